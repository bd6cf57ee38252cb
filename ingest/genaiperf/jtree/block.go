package jtree

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// GenAI-Perf and AIPerf write each metric as a block
// {"unit": u, "avg": x, "p1".."p99": x, "min": x, "max": x, "std": x}
// (AIPerf also "count", "sum", and up to 0.1.x "tag" and "header").
// Both compute with numpy: arithmetic mean, linear percentiles and the
// population standard deviation.

// A Block is the metric block of one metric.
type Block struct {
	Node  *Node
	Unit  string
	Count *Node // AIPerf "count": the observations behind the statistics
}

// Spec says how a block maps to a definition.
type Spec struct {
	RunID    string
	MetricID schemas.MetricID
	Native   string // the tool's name for the metric, e.g. "time_to_first_token"
	// Div divides every value (e.g. 1000 for ms -> s); 0 means 1. Dividing
	// by an exact power of ten rounds once, where multiplying by 1e-3
	// would not.
	Div float64
	// AvgStat is the statistic "avg" becomes: StatMean for distributions,
	// StatValue for run-level values, StatSum for totals.
	AvgStat string
	Record  string // names the block in rejections, e.g. "summary"
	// Note qualifies every row; NotMeasured, when set, drops every value
	// and becomes the rows' note (a value the tool wrote that does not
	// measure what its name says).
	Note        string
	NotMeasured string
	N           schemas.Opt[int64]
}

// Emit writes a block's statistics as metric rows through emit and
// rejects unusable values through sink. Nulls are absent statistics, as
// both tools write them for metrics without data. Keys that are not
// statistics are returned.
func Emit(sink ingest.Sink, b *Node, s Spec, emit func(*schemas.Metric) error) (unknown []string, err error) {
	def := schemas.MustLookup(s.MetricID)
	n := s.N
	if c := b.Get("count"); c != nil && !n.OK && s.AvgStat == schemas.StatMean {
		if v, ok := c.Int(); ok && v >= 0 {
			n = schemas.Some(v)
		}
	}
	for _, m := range b.Members {
		row := schemas.Metric{RunID: s.RunID, MetricID: s.MetricID, Source: schemas.SourceReported, Unit: def.Unit,
			NativeName: s.Native + "." + m.Key, Note: s.Note}
		switch k := m.Key; {
		case k == "avg":
			row.Stat = s.AvgStat
			if row.Stat == schemas.StatMean {
				row.Method = "arithmetic"
			}
		case k == "min":
			row.Stat = schemas.StatMin
		case k == "max":
			row.Stat = schemas.StatMax
		case k == "std":
			row.Stat, row.Method = schemas.StatStd, "population"
		case k == "sum":
			row.Stat = schemas.StatSum
		case len(k) > 1 && k[0] == 'p' && isNumber(k[1:]):
			p, _ := strconv.ParseFloat(k[1:], 64)
			if p < 0 || p > 100 {
				unknown = append(unknown, k)
				continue
			}
			row.Stat, row.Method, row.Percentile = schemas.StatP, string(stats.Linear), schemas.Some(p)
			if p == 50 {
				row.Stat, row.Percentile = schemas.StatMedian, schemas.Opt[float64]{}
			}
		case k == "unit", k == "count", k == "tag", k == "header":
			continue
		default:
			unknown = append(unknown, k)
			continue
		}
		if row.Stat != s.AvgStat && (s.AvgStat == schemas.StatValue || s.AvgStat == schemas.StatSum) && m.Val.IsNull() {
			continue
		}
		if row.Stat != schemas.StatValue && row.Stat != schemas.StatSum {
			row.N = n
		}
		v := m.Val
		switch v.Kind {
		case jsonscan.Null:
			continue // not computed: no data
		case jsonscan.Number:
			f, ok := v.Float()
			switch {
			case !ok:
				reject(sink, s, m, "bad number "+v.Text)
				continue
			case math.IsNaN(f):
				row.Note = join(row.Note, "the tool wrote NaN (no data)")
			case math.IsInf(f, 0) || f < 0:
				reject(sink, s, m, "statistics of "+s.Native+" must be finite and non-negative, found "+v.Text)
				continue
			case s.NotMeasured != "":
				row.Note = join(s.NotMeasured, row.Note)
			default:
				row.Value = schemas.Some(s.apply(f))
			}
		default:
			reject(sink, s, m, "expected a number, found "+v.Describe())
			continue
		}
		if err := emit(&row); err != nil {
			return unknown, err
		}
	}
	return unknown, nil
}

func (s Spec) apply(f float64) float64 {
	if s.Div == 0 || s.Div == 1 {
		return f
	}
	return f / s.Div
}

func reject(sink ingest.Sink, s Spec, m Member, reason string) {
	sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: m.Val.Pos.Line, Column: m.Val.Pos.Col,
		Record: s.Record, Field: s.Native + "." + m.Key, Reason: reason})
}

// RejectBlock rejects every statistic of a block with one reason (for
// example a metric without a definition, or a unit that does not fit).
func RejectBlock(sink ingest.Sink, b *Node, record, native, reason string) {
	if !b.IsObject() {
		sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: b.Pos.Line, Column: b.Pos.Col,
			Record: record, Field: native, Reason: reason})
		return
	}
	for _, m := range b.Members {
		switch m.Key {
		case "unit", "count", "tag", "header":
			continue
		}
		if m.Val.IsNull() {
			continue
		}
		sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: m.Val.Pos.Line, Column: m.Val.Pos.Col,
			Record: record, Field: native + "." + m.Key, Reason: reason})
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	dot := false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// A Scale is how a tool's display unit converts to the registry's storage
// unit: divide by Div.
type Scale struct {
	Div  float64
	Unit string // the storage unit it yields
}

// UnitScale converts a GenAI-Perf or AIPerf unit string. ok is false for a
// unit that is not known.
func UnitScale(unit string) (Scale, bool) {
	switch strings.TrimSpace(unit) {
	case "ns":
		return Scale{1e9, schemas.UnitSeconds}, true
	case "us", "µs":
		return Scale{1e6, schemas.UnitSeconds}, true
	case "ms":
		return Scale{1e3, schemas.UnitSeconds}, true
	case "s", "sec", "seconds":
		return Scale{1, schemas.UnitSeconds}, true
	case "tokens":
		return Scale{1, schemas.UnitTokens}, true
	case "requests", "count":
		return Scale{1, schemas.UnitRequests}, true
	case "requests/sec", "per sec":
		return Scale{1, schemas.UnitRequestsPerSecond}, true
	case "tokens/sec":
		return Scale{1, schemas.UnitTokensPerSecond}, true
	case "tokens/sec/user":
		return Scale{1, schemas.UnitTokensPerSecUser}, true
	case "%":
		return Scale{100, schemas.UnitRatio}, true
	case "ratio":
		return Scale{1, schemas.UnitRatio}, true
	}
	return Scale{}, false
}

// Fits reports whether a value in storage unit got can be stored under a
// definition whose unit is want. Per-request rates are written as
// tokens/sec by some versions and tokens/sec/user by others.
func Fits(got, want string) bool {
	if got == want {
		return true
	}
	perUser := func(u string) bool { return u == schemas.UnitTokensPerSecond || u == schemas.UnitTokensPerSecUser }
	return perUser(got) && perUser(want)
}

// ErrorAt builds an *ingest.Error at a node.
func ErrorAt(path string, n *Node, record, field, format string, args ...any) error {
	e := &ingest.Error{File: path, Record: record, Field: field, Err: fmt.Errorf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Pos.Line, n.Pos.Col
	}
	return e
}
