package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// CompareSchema is the "schema" value of `verdict compare --format json`.
const CompareSchema = "verdict.compare/v1"

// CompareOptions configure Compare.
type CompareOptions struct {
	StatsOptions
	// Alpha is the significance level of the Mann-Whitney test (the
	// median's); 0 means stats.DefaultCompare's 0.05.
	Alpha float64
	// Validate configures the validation that decides whether the two
	// bundles may be compared at all (Compare is set by Compare).
	Validate validate.Options
	// Force computes the numbers even when validation says the runs are
	// not comparable (the result still fails).
	Force bool
	// Mean adds a row for each metric's mean (judged by the ratio's
	// interval) before its percentiles.
	Mean bool
}

func (o CompareOptions) alpha() float64 {
	if o.Alpha > 0 {
		return o.Alpha
	}
	return stats.DefaultCompare.Alpha
}

// confidence is the intervals' confidence: comparing needs intervals.
func (o CompareOptions) confidence() float64 {
	if o.Confidence > 0 {
		return o.Confidence
	}
	return DefaultStats.Confidence
}

// ErrNotComparable is wrapped by Comparison.Err when validation says the
// bundles may not be compared, or its gate fails.
var ErrNotComparable = errors.New("the runs may not be compared")

// A Comparison is `verdict compare` of two bundles: the validation
// verdict, and unless refused, each pair of runs compared metric by
// metric.
type Comparison struct {
	Options              CompareOptions
	OldBundle, NewBundle string
	Validation           *validate.Report
	// Refused: validation says the runs are not comparable and Force was
	// not given, so no numbers were computed.
	Refused  bool
	Pairs    []Pair
	Unpaired []string
}

// Err is nil when the comparison passes validation's gate, and wraps
// ErrNotComparable otherwise.
func (c *Comparison) Err() error {
	switch {
	case c.Validation.Verdict == validate.NotComparable:
		return fmt.Errorf("%w: %s", ErrNotComparable, c.Validation.Verdict.Text())
	case !c.Validation.Pass:
		return fmt.Errorf("%w: the validation gate failed: %s", ErrNotComparable, strings.Join(c.Validation.Gate, "; "))
	}
	return nil
}

// A Pair is two runs compared, old and new.
type Pair struct {
	Old, New schemas.Run
	Rows     []ComparisonRow
	Notes    []string
}

// A ComparisonRow is one statistic of one metric compared.
type ComparisonRow struct {
	Metric schemas.MetricID
	// Stat is the statistic's label ("mean", "median", "p99") and
	// Percentile its percentile (0-100; 0 for the mean).
	Stat       string
	Percentile float64
	Unit       string
	// Old and New are each run's estimate with the interval the
	// statistics view gives it (the same options and seed).
	Old, New Estimate
	// Change is new/old - 1 in percent with its interval; NaN when the
	// old value is 0 (Delta then carries the change).
	Change Estimate
	// Delta is new - old in Unit with its interval.
	Delta Estimate
	// Test is the test that decided Significant (stats.SignificanceTest),
	// and P the Mann-Whitney p-value when that test decided (NaN for the
	// interval tests).
	Test        stats.SignificanceTest
	P           float64
	Significant bool
	// Verdict is "~" or the change, e.g. "+12.50%".
	Verdict  string
	N        [2]int
	Warnings []string
}

// Compare validates the two bundles as a comparison and, unless
// validation says they are not comparable (and o.Force is not set),
// compares every pair of runs (PairRuns) metric by metric and percentile
// by percentile. Its error is for inputs that cannot be read; a failed
// gate is Comparison.Err.
func Compare(ctx context.Context, oldDir, newDir string, o CompareOptions) (*Comparison, error) {
	vo := o.Validate
	vo.Compare = true
	report, err := Validate(ctx, []string{oldDir, newDir}, vo)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Options: o, OldBundle: oldDir, NewBundle: newDir, Validation: report,
		Refused: report.Verdict == validate.NotComparable && !o.Force}
	if c.Refused {
		return c, nil
	}
	load := func(dir string) ([]*Observations, error) {
		b, err := Open(dir)
		if err != nil {
			return nil, err
		}
		return Observe(ctx, b, ObserveOptions{Metrics: o.Metrics})
	}
	old, err := load(oldDir)
	if err != nil {
		return nil, err
	}
	defer closeAll(old)
	new, err := load(newDir)
	if err != nil {
		return nil, err
	}
	defer closeAll(new)
	pairs, unpaired := PairRuns(runsOf(old), runsOf(new))
	c.Unpaired = unpaired
	for _, ij := range pairs {
		c.Pairs = append(c.Pairs, comparePair(old[ij[0]], new[ij[1]], o))
	}
	return c, nil
}

// closeAll closes every run's observations.
func closeAll(obs []*Observations) {
	for _, r := range obs {
		r.Close()
	}
}

func runsOf(obs []*Observations) []schemas.Run {
	out := make([]schemas.Run, len(obs))
	for i, r := range obs {
		out[i] = r.Run
	}
	return out
}

func comparePair(a, b *Observations, o CompareOptions) Pair {
	p := Pair{Old: a.Run, New: b.Run}
	for _, side := range []*Observations{a, b} {
		if side.RequestRows == 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("run %s has no per-request data: nothing can be compared with a test", side.Run.ID))
		}
	}
	ids := o.Metrics
	if len(ids) == 0 {
		ids = ObservedMetrics
	}
	for _, id := range ids {
		xa, xb := a.Values[id], b.Values[id]
		if len(xa) == 0 || len(xb) == 0 {
			continue
		}
		def, _ := schemas.Lookup(id)
		if o.Mean {
			p.Rows = append(p.Rows, CompareMean(id, xa, xb, o))
		}
		for _, pct := range o.Percentiles {
			p.Rows = append(p.Rows, CompareMetric(id, xa, xb, pct, o))
		}
		if _, note := MethodFor(o.Method, def.Unit); note != "" {
			p.Notes = append(p.Notes, string(id)+": "+note)
		}
		if def.Level == schemas.LevelChunk {
			p.Notes = append(p.Notes, string(id)+": gaps within one request are not independent, so the test's p-value and the intervals are optimistic; compare per-request metrics (tpot) for a sounder answer")
		}
	}
	return p
}

// CompareMetric compares percentile pct (0-100) of one metric between the
// old and new observations with stats.Compare: the old and new estimates
// carry exactly the intervals MetricEstimate gives each run alone, and
// the row's verdict comes from the test stats.SignificanceTestFor picks
// for that statistic.
func CompareMetric(id schemas.MetricID, old, new []float64, pct float64, o CompareOptions) ComparisonRow {
	unit := schemas.MustLookup(id).Unit
	r := compareStatistic(id, old, new, PercentileStatistic(pct, o.Method, unit), StatP, pct, o)
	r.Stat = PercentileLabel(pct)
	return r
}

// CompareMean compares a metric's mean: the old and new values are summed
// in dispatch order as MetricEstimate sums them, with its intervals; the
// change is judged by the ratio's interval.
func CompareMean(id schemas.MetricID, old, new []float64, o CompareOptions) ComparisonRow {
	r := compareStatistic(id, old, new, stats.MeanStatistic(), StatMean, 0, o)
	r.Stat = StatMean
	r.Old.Value, r.New.Value = stats.Mean(old), stats.Mean(new)
	return r
}

func compareStatistic(id schemas.MetricID, old, new []float64, s stats.Statistic, stat string, pct float64, o CompareOptions) ComparisonRow {
	unit := schemas.MustLookup(id).Unit
	eo := o.EstimateOptions
	eo.Confidence = o.confidence()
	// The scheme is --interval, as verdict stats reads it (old and new in
	// dispatch order; stats.Compare resamples them as EstimateSeries does).
	co := stats.CompareOptions{Center: s, Bootstrap: eo.Bootstrap(), Alpha: o.alpha(), Scheme: eo.Interval}
	c := stats.Compare(old, new, co)
	r := ComparisonRow{Metric: id, Percentile: pct, Unit: unit,
		Old: fromInterval(stat, pct, c.Old), New: fromInterval(stat, pct, c.New),
		Delta: fromInterval(stat, pct, c.Delta), Change: fromInterval(stat, pct, c.Ratio),
		Test: c.Basis, P: math.NaN(), Significant: c.Significant, N: [2]int{len(old), len(new)}}
	if c.OldSeries != nil && c.NewSeries != nil {
		r.Old, r.New = fromSeries(stat, pct, *c.OldSeries), fromSeries(stat, pct, *c.NewSeries)
		r.Delta.Scheme, r.Change.Scheme = string(eo.Interval), string(eo.Interval)
	}
	r.Change.Value, r.Change.Lo, r.Change.Hi = 100*(r.Change.Value-1), 100*(r.Change.Lo-1), 100*(r.Change.Hi-1)
	if c.Basis == stats.MannWhitneyTest {
		r.P = c.Test.P
	}
	for _, w := range c.Warnings {
		msg := w.Error()
		if !slices.Contains(r.Warnings, msg) {
			r.Warnings = append(r.Warnings, msg)
		}
	}
	r.Verdict = "~"
	switch {
	case !c.Significant:
	case c.Basis == stats.DeltaIntervalTest || math.IsNaN(r.Change.Value) || math.IsInf(r.Change.Value, 0):
		r.Verdict = fmt.Sprintf("%+.4g %s", r.Delta.Value, unit)
	default:
		r.Verdict = fmt.Sprintf("%+.2f%%", r.Change.Value)
	}
	return r
}
