// Package rows holds the small helpers the interchange readers
// (ingest/llmdbr, ingest/inferenceperf, ingest/genaibench,
// ingest/mlperfendpoints) share to report metric rows and rejections: a
// run's metric writer that fills the unit from the registry, and the
// percentile-key spellings of each tool.
package rows

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// Metrics writes the metric rows of one run.
type Metrics struct {
	Sink   ingest.Sink
	RunID  string
	Record string // for rejections, e.g. "report"
	Path   string
}

// A Row is one statistic to write; Value is in the registry's unit.
type Row struct {
	ID         schemas.MetricID
	Stat       string
	Percentile schemas.Opt[float64]
	Value      schemas.Opt[float64]
	Method     string
	Source     string // schemas.SourceReported when empty
	Native     string
	N          schemas.Opt[int64]
	Note       string
}

// Add writes r.
func (m Metrics) Add(r Row) error {
	if r.Source == "" {
		r.Source = schemas.SourceReported
	}
	row := schemas.Metric{RunID: m.RunID, MetricID: r.ID, Stat: r.Stat, Percentile: r.Percentile, Value: r.Value,
		Unit: schemas.MustLookup(r.ID).Unit, Method: r.Method, Source: r.Source, NativeName: r.Native, N: r.N, Note: r.Note}
	return m.Sink.Metric(&row)
}

// Reject records a metric value that was not ingested, at n's position.
func (m Metrics) Reject(n *jtree.Node, field, reason string) {
	rej := schemas.Rejection{Table: schemas.TableMetrics, Record: m.Record, Field: field, Reason: reason}
	if n != nil {
		rej.Line, rej.Column = n.Pos.Line, n.Pos.Col
	}
	m.Sink.Reject(rej)
}

// Number reads a finite number; ok is false (and a rejection recorded)
// for anything else, a missing value or null excepted, which give ok
// false silently.
func (m Metrics) Number(n *jtree.Node, field string) (float64, bool) {
	if n.IsNull() {
		return 0, false
	}
	v, ok := n.Float()
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		m.Reject(n, field, "expected a finite number, found "+n.Describe())
		return 0, false
	}
	return v, true
}

// StatKey maps a statistic key of a summary object to a statistic and
// percentile. It knows the spellings of BR ("p0p1", "p99p9", "p50"),
// inference-perf ("p0.1", "median"), genai-bench ("p25", "stddev") and
// MLPerf Endpoints ("avg", "std_dev", "99.9"). ok is false for keys that
// are not statistics.
func StatKey(key string) (stat string, pct float64, ok bool) {
	switch key {
	case "mean", "avg":
		return schemas.StatMean, 0, true
	case "median":
		return schemas.StatMedian, 0, true
	case "min":
		return schemas.StatMin, 0, true
	case "max":
		return schemas.StatMax, 0, true
	case "stddev", "std", "std_dev":
		return schemas.StatStd, 0, true
	case "sum", "total":
		return schemas.StatSum, 0, true
	case "count":
		return schemas.StatCount, 0, true
	}
	p, ok := Percentile(strings.TrimPrefix(key, "p"))
	if !ok || (!strings.HasPrefix(key, "p") && !isNumeric(key)) {
		return "", 0, false
	}
	return schemas.StatP, p, true
}

// Percentile parses a percentile label: "99", "99.9", "99.0", or BR's
// "0p1" and "99p9" where p stands for the decimal point.
func Percentile(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	s = strings.Replace(s, "p", ".", 1)
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || !(p >= 0 && p <= 100) {
		return 0, false
	}
	return p, true
}

func isNumeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Label renders a scalar for a run label.
func Label(n *jtree.Node) string {
	if n.IsNull() {
		return ""
	}
	s, ok := n.Scalar()
	if !ok {
		return fmt.Sprintf("{%d members}", len(n.Fields()))
	}
	return s
}

// DistOptions say how to read a tool's summary object.
type DistOptions struct {
	// Method is the tool's percentile method (a stats.Method).
	Method string
	// Std is the tool's standard deviation, "population" or "sample".
	Std string
	// Div converts the tool's unit to the registry's: values are divided
	// by it (1000 for milliseconds, 1e9 for nanoseconds; 1 when 0).
	// Dividing rounds once, so 61000000 ns is exactly 0.061 s.
	Div float64
	// Ignore lists members that are not statistics of this distribution
	// (read elsewhere, or not at all).
	Ignore []string
	// N is the number of observations, when known.
	N schemas.Opt[int64]
	// Note qualifies every row, e.g. a version quirk.
	Note string
}

// Dist writes the statistics of a summary object ({"mean", "min", "max",
// "median", "p99", ...}) as rows of one definition. Members that are not
// statistics, and values that are not finite numbers, are rejections.
func (m Metrics) Dist(id schemas.MetricID, n *jtree.Node, native string, o DistOptions) error {
	if n.IsNull() {
		return nil
	}
	if !n.IsObject() {
		m.Reject(n, native, "expected an object of statistics, found "+n.Describe())
		return nil
	}
	div := o.Div
	if div == 0 {
		div = 1
	}
	for _, mem := range n.Fields() {
		if slices.Contains(o.Ignore, mem.Key) {
			continue
		}
		key := native + "." + mem.Key
		stat, pct, ok := StatKey(mem.Key)
		if !ok {
			m.Reject(mem.Val, key, "not a statistic")
			continue
		}
		v, ok := m.Number(mem.Val, key)
		if !ok {
			continue
		}
		row := Row{ID: id, Stat: stat, Value: schemas.Some(v / div), Native: key, N: o.N, Note: o.Note}
		switch stat {
		case schemas.StatP:
			row.Percentile, row.Method = schemas.Some(pct), o.Method
		case schemas.StatMedian:
			row.Method = o.Method
		case schemas.StatStd:
			if v < 0 {
				m.Reject(mem.Val, key, "a standard deviation cannot be negative")
				continue
			}
			row.Method = o.Std
		case schemas.StatMean:
			row.Method = "arithmetic"
		case schemas.StatCount:
			row.N = schemas.Opt[int64]{}
		}
		if err := m.Add(row); err != nil {
			return err
		}
	}
	return nil
}

// Value writes a run-level value, rejecting a non-finite or negative one.
func (m Metrics) Value(id schemas.MetricID, n *jtree.Node, native string, note string) error {
	if n.IsNull() {
		return nil
	}
	v, ok := m.Number(n, native)
	if !ok {
		return nil
	}
	if v < 0 {
		m.Reject(n, native, "a rate or count cannot be negative")
		return nil
	}
	return m.Add(Row{ID: id, Stat: schemas.StatValue, Value: schemas.Some(v), Native: native, Note: note})
}
