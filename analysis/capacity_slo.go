package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// A CapacityLimit is one limit of a capacity SLO: a statistic of one
// metric at every load point.
type CapacityLimit struct {
	// Metric is the definition ID the statistic is computed from.
	Metric schemas.MetricID
	// Mean limits the mean; otherwise Percentile (0-100) names the
	// percentile, read with the capacity options' method.
	Mean       bool
	Percentile float64
	// Bound is the limit in the metric's unit (seconds); Strict excludes
	// equality.
	Bound  float64
	Strict bool
}

// Stat names the statistic: "p99", "median", "mean".
func (l CapacityLimit) Stat() string {
	if l.Mean {
		return "mean"
	}
	return PercentileLabel(l.Percentile)
}

// String is the limit as --slo writes it: "ttft:p99<=2s".
func (l CapacityLimit) String() string {
	op := "<="
	if l.Strict {
		op = "<"
	}
	return sloName(l.Metric) + ":" + l.Stat() + op + fmtDuration(l.Bound)
}

// A GoodputLimit is a goodput-style SLO: a request is good when it
// succeeded and meets every per-request limit of SLO, and the share of
// good requests must be at least MinShare.
type GoodputLimit struct {
	SLO      stats.SLO
	MinShare float64
}

// String is the limit as --slo writes it.
func (g GoodputLimit) String() string {
	var parts []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"ttft", g.SLO.TTFT}, {"tpot", g.SLO.TPOT}, {"itl", g.SLO.ITL}, {"e2e", g.SLO.E2E}} {
		if f.v > 0 {
			parts = append(parts, f.name+"<="+fmtDuration(f.v))
		}
	}
	return strings.Join(append(parts, "goodput>="+strconv.FormatFloat(g.MinShare, 'g', -1, 64)), ",")
}

// sloMetrics are the metrics a capacity SLO may limit, by --slo name.
var sloMetrics = map[string]schemas.MetricID{
	"ttft": schemas.TTFT, "tpot": schemas.TPOT, "itl": schemas.ITLChunk, "e2e": schemas.E2E, "queue": schemas.ClientQueue,
}

func sloName(id schemas.MetricID) string {
	for k, v := range sloMetrics {
		if v == id {
			return k
		}
	}
	return string(id)
}

func fmtDuration(s float64) string {
	return time.Duration(math.Round(s * 1e9)).String()
}

// ParseCapacitySLO reads a capacity SLO: comma-separated terms of three
// kinds.
//
//	METRIC:STAT<=DURATION   a percentile or mean limit at every load point:
//	                        ttft:p99<=2s, tpot:p99<50ms, e2e:mean<=10s
//	                        (METRIC: ttft, tpot, itl, e2e, queue; STAT: pNN,
//	                        median or mean; < makes it strict)
//	METRIC<=DURATION        a per-request limit (ttft, tpot, itl, e2e) ...
//	goodput>=SHARE          ... and the share of requests meeting all of
//	                        them: goodput>=0.9 or goodput>=90%
//
// Per-request limits and goodput come together; durations need a unit
// (s, ms, us).
func ParseCapacitySLO(s string) ([]CapacityLimit, *GoodputLimit, error) {
	var limits []CapacityLimit
	var good GoodputLimit
	perRequest, share := false, false
	for _, raw := range strings.Split(s, ",") {
		term := strings.TrimSpace(raw)
		if term == "" {
			continue
		}
		name, op, value, err := splitTerm(term)
		if err != nil {
			return nil, nil, err
		}
		switch metric, stat, hasStat := strings.Cut(name, ":"); {
		case name == "goodput":
			if op != ">=" {
				return nil, nil, fmt.Errorf("%q: goodput is a floor: goodput>=SHARE", term)
			}
			v, err := parseShare(value)
			if err != nil {
				return nil, nil, fmt.Errorf("%q: %w", term, err)
			}
			good.MinShare, share = v, true
		case hasStat:
			l, err := statLimit(term, metric, stat, op, value)
			if err != nil {
				return nil, nil, err
			}
			limits = append(limits, l)
		default:
			if err := requestLimit(&good.SLO, term, name, op, value); err != nil {
				return nil, nil, err
			}
			perRequest = true
		}
	}
	switch {
	case perRequest && !share:
		return nil, nil, fmt.Errorf("per-request limits need the share of requests that must meet them: add goodput>=SHARE (e.g. goodput>=0.9)")
	case share && !perRequest:
		return nil, nil, fmt.Errorf("goodput>=SHARE needs per-request limits, e.g. ttft<=2s,tpot<=50ms")
	case len(limits) == 0 && !share:
		return nil, nil, fmt.Errorf("no limit in %q", s)
	}
	if !share {
		return limits, nil, nil
	}
	return limits, &good, nil
}

// splitTerm splits "name<=value" at its comparison.
func splitTerm(term string) (name, op, value string, err error) {
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if i := strings.Index(term, op); i > 0 {
			return strings.ToLower(strings.TrimSpace(term[:i])), op, strings.TrimSpace(term[i+len(op):]), nil
		}
	}
	return "", "", "", fmt.Errorf("%q: want METRIC:STAT<=DURATION, METRIC<=DURATION or goodput>=SHARE", term)
}

func statLimit(term, metric, stat, op, value string) (CapacityLimit, error) {
	id, ok := sloMetrics[metric]
	if !ok {
		return CapacityLimit{}, fmt.Errorf("%q: unknown metric %q (ttft, tpot, itl, e2e, queue)", term, metric)
	}
	if op != "<=" && op != "<" {
		return CapacityLimit{}, fmt.Errorf("%q: latency limits are ceilings: use <= or <", term)
	}
	l := CapacityLimit{Metric: id, Strict: op == "<"}
	switch {
	case stat == "mean":
		l.Mean = true
	case stat == "median":
		l.Percentile = 50
	case strings.HasPrefix(stat, "p"):
		p, err := strconv.ParseFloat(stat[1:], 64)
		if err != nil || !(p > 0 && p < 100) {
			return l, fmt.Errorf("%q: %q is not a percentile between p0 and p100", term, stat)
		}
		l.Percentile = p
	default:
		return l, fmt.Errorf("%q: unknown statistic %q (pNN, median or mean)", term, stat)
	}
	d, err := parseSeconds(value)
	if err != nil {
		return l, fmt.Errorf("%q: %w", term, err)
	}
	l.Bound = d
	return l, nil
}

// requestLimit adds a per-request limit to slo, read as ParseSLO reads
// verdict stats --slo (name=duration).
func requestLimit(slo *stats.SLO, term, name, op, value string) error {
	if op != "<=" {
		return fmt.Errorf("%q: per-request limits are inclusive ceilings: use <=", term)
	}
	one, err := ParseSLO(name + "=" + value)
	if err != nil {
		return fmt.Errorf("%q: %w (or METRIC:STAT for a percentile)", term, err)
	}
	for _, f := range []struct{ dst, v *float64 }{{&slo.TTFT, &one.TTFT}, {&slo.TPOT, &one.TPOT}, {&slo.ITL, &one.ITL}, {&slo.E2E, &one.E2E}} {
		if *f.v > 0 {
			*f.dst = *f.v
		}
	}
	return nil
}

// parseSeconds reads a positive duration with its unit.
func parseSeconds(v string) (float64, error) {
	d, err := time.ParseDuration(strings.ReplaceAll(v, "µ", "u"))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration with a unit (2s, 50ms, 500us)", v)
	}
	return d.Seconds(), nil
}

// parseShare reads 0.9 or 90%.
func parseShare(v string) (float64, error) {
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if pct {
		f /= 100
	}
	if err != nil || !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("%q is not a share in (0, 1] (0.9 or 90%%)", v)
	}
	return f, nil
}
