package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// An Estimate is a statistic with its interval. Lo and Hi are NaN when no
// interval was computed; Confidence and Method are then zero.
type Estimate struct {
	// Stat is "mean", "p" (a percentile: Percentile says which, 0-100) or
	// "value" (a run-level figure).
	Stat       string
	Percentile float64
	Value      float64
	Lo, Hi     float64
	Confidence float64
	// Method is the interval method (stats.IntervalMethod: bca,
	// percentile, t); "" without an interval.
	Method string
	// Scheme is how requests were resampled when not independently
	// (stats.Scheme: block, stationary, ess; "" for the i.i.d. default),
	// and BlockLength the (mean) block length of the block schemes.
	Scheme      string
	BlockLength float64
}

// Statistic names of Estimate.Stat.
const (
	StatMean  = schemas.StatMean
	StatP     = schemas.StatP
	StatValue = schemas.StatValue
)

// HasInterval reports whether the estimate has both bounds.
func (e Estimate) HasInterval() bool { return !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) }

// Label is "mean", "median" for p50, or "p99".
func (e Estimate) Label() string {
	if e.Stat != StatP {
		return e.Stat
	}
	return PercentileLabel(e.Percentile)
}

// PercentileLabel is "median" for 50, else "p" and the percentile.
func PercentileLabel(p float64) string {
	if p == 50 {
		return "median"
	}
	return "p" + strconv.FormatFloat(p, 'g', -1, 64)
}

// MarshalJSON writes the estimate in verdict's JSON style: snake_case
// keys, numbers as numbers, NaN and infinite bounds as null, the
// percentile whenever the estimate is one (p0 included).
func (e Estimate) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"stat":` + strconv.Quote(e.Stat))
	if e.Stat == StatP {
		b.WriteString(`,"percentile":` + jsonNumber(e.Percentile))
	}
	b.WriteString(`,"value":` + jsonNumber(e.Value) + `,"lo":` + jsonNumber(e.Lo) + `,"hi":` + jsonNumber(e.Hi))
	if e.Method != "" {
		fmt.Fprintf(&b, `,"confidence":%s,"interval_method":%q`, jsonNumber(e.Confidence), e.Method)
	}
	if e.Scheme != "" {
		fmt.Fprintf(&b, `,"resampling":%q`, e.Scheme)
		if e.BlockLength > 1 {
			b.WriteString(`,"block_length":` + jsonNumber(e.BlockLength))
		}
	}
	b.WriteString("}")
	return []byte(b.String()), nil
}

// jsonNumber writes v as a JSON number, or null when it is not finite.
func jsonNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func fromInterval(stat string, pct float64, iv stats.Interval) Estimate {
	return Estimate{Stat: stat, Percentile: pct, Value: iv.Estimate, Lo: iv.Lo, Hi: iv.Hi, Confidence: iv.Confidence, Method: string(iv.Method)}
}

// fromSeries is fromInterval for an interval that says how it resampled.
func fromSeries(stat string, pct float64, si stats.SeriesInterval) Estimate {
	e := fromInterval(stat, pct, si.Interval)
	if si.Scheme != stats.SchemeIID && si.Scheme != "" {
		e.Scheme = string(si.Scheme)
		if si.Scheme == stats.SchemeBlock || si.Scheme == stats.SchemeStationary {
			e.BlockLength = si.BlockLength
		}
	}
	return e
}

func pointEstimate(stat string, pct, v float64) Estimate {
	return Estimate{Stat: stat, Percentile: pct, Value: v, Lo: math.NaN(), Hi: math.NaN()}
}

// EstimateOptions say which statistics MetricEstimate computes and how.
type EstimateOptions struct {
	// Percentiles are 0-100.
	Percentiles []float64
	// Method reads the percentiles.
	Method stats.Method
	// Confidence of the intervals; 0 turns them off.
	Confidence float64
	// Resamples and Seed configure the bootstrap.
	Resamples int
	Seed      uint64
	// Interval is how requests are resampled (--interval): "" or
	// stats.SchemeIID treats them as independent; stats.SchemeBlock,
	// SchemeStationary and SchemeESS keep the dependence between
	// neighbouring requests (stats.EstimateSeries).
	Interval stats.Scheme
}

// Series is the options' resampling scheme with its bootstrap.
func (o EstimateOptions) Series() stats.SeriesOptions {
	return stats.SeriesOptions{Scheme: o.Interval, Bootstrap: o.Bootstrap()}
}

// Bootstrap is the bootstrap configuration of the options (BCa).
func (o EstimateOptions) Bootstrap() stats.BootstrapOptions {
	bo := stats.DefaultBootstrap
	bo.Confidence, bo.Resamples, bo.Seed = o.Confidence, o.Resamples, o.Seed
	return bo
}

// MethodFor is the percentile method a metric in unit is read with, and a
// note when it is not o.Method: Locust's buckets are defined on response
// times in milliseconds, so a metric that is not a duration is read with
// nearest_rank_floor, Locust's walk without the rounding.
func MethodFor(m stats.Method, unit string) (stats.Method, string) {
	if m == stats.LocustBuckets && unit != schemas.UnitSeconds {
		return stats.NearestRankFloor, "locust_buckets rounds response times in milliseconds; this metric is not a duration, so its percentiles are read with nearest_rank_floor (the same walk, unrounded)"
	}
	return m, ""
}

// msPerUnit is how many milliseconds one stored unit is (only Locust's
// buckets need it).
func msPerUnit(unit string) float64 {
	if unit == schemas.UnitSeconds {
		return 1000
	}
	return 1
}

// PercentileStatistic is the statistic of percentile p (0-100) of a
// metric stored in unit, read with method m (Locust's buckets on the value
// in milliseconds; see MethodFor).
func PercentileStatistic(p float64, m stats.Method, unit string) stats.Statistic {
	m, _ = MethodFor(m, unit)
	return stats.QuantileStatisticScaled(p/100, m, msPerUnit(unit))
}

// MetricStats are the statistics of one metric of one run.
type MetricStats struct {
	Metric     schemas.MetricID
	Definition string
	Unit       string
	N          int
	Mean       Estimate
	Std        float64
	Quantiles  []Estimate
	// Method is the percentile method the quantiles were read with.
	Method   stats.Method
	Warnings []string
}

// Quantile returns the estimate of percentile p.
func (ms MetricStats) Quantile(p float64) (Estimate, bool) {
	i := slices.IndexFunc(ms.Quantiles, func(q Estimate) bool { return q.Percentile == p })
	if i < 0 {
		return Estimate{}, false
	}
	return ms.Quantiles[i], true
}

func (ms *MetricStats) warn(s string) {
	if s != "" && !slices.Contains(ms.Warnings, s) {
		ms.Warnings = append(ms.Warnings, s)
	}
}

func newMetricStats(id schemas.MetricID, n int, o EstimateOptions) MetricStats {
	def, _ := schemas.Lookup(id)
	m, note := MethodFor(o.Method, def.Unit)
	ms := MetricStats{Metric: id, Definition: def.Summary(), Unit: def.Unit, N: n, Method: m}
	ms.warn(note)
	return ms
}

// MetricEstimate computes a metric's mean, population standard deviation
// and percentiles from its observations in memory, with the intervals
// stats.Estimate chooses (BCa bootstrap; Student's t for the mean of a
// large sample). It is the one computation behind every view's figures.
// The mean is summed in xs's order (dispatch order, as numpy sums);
// then xs is sorted in place.
func MetricEstimate(id schemas.MetricID, xs []float64, o EstimateOptions) MetricStats {
	ms := newMetricStats(id, len(xs), o)
	ms.Std = stats.StdDev(xs, 0)
	bo := o.Bootstrap()
	keep := func(iv stats.Interval) {
		for _, w := range iv.Warnings {
			ms.warn(w.Error())
		}
	}
	mean := stats.Mean(xs)
	ms.Mean = pointEstimate(StatMean, 0, mean)
	so := o.Series()
	so.Bootstrap = bo
	if o.Confidence > 0 {
		iv := stats.EstimateSeries(xs, stats.MeanStatistic(), so)
		keep(iv.Interval)
		ms.Mean = fromSeries(StatMean, 0, iv)
		ms.Mean.Value = mean
	}
	// The dependent schemes read the series in dispatch order.
	ordered := xs
	if o.Confidence > 0 && o.Interval != "" && o.Interval != stats.SchemeIID {
		ordered = slices.Clone(xs)
	}
	stats.SortFloats(xs)
	for _, p := range o.Percentiles {
		s := PercentileStatistic(p, o.Method, ms.Unit)
		if o.Confidence <= 0 {
			ms.Quantiles = append(ms.Quantiles, pointEstimate(StatP, p, s.Func(xs)))
			continue
		}
		iv := stats.EstimateSeries(ordered, s, so)
		keep(iv.Interval)
		ms.Quantiles = append(ms.Quantiles, fromSeries(StatP, p, iv))
	}
	return ms
}

// ErrNeedsMemory is returned (wrapped) for a percentile method that needs
// the whole sample in memory, on a series spilled to disk.
var ErrNeedsMemory = spill.ErrNeedsMemory

// BoundedEstimate is MetricEstimate for a series held with bounded memory
// (see internal/spill): the mean with Student's t interval from the
// moments when intervals are asked for (stats.Estimate's choice for a
// sample too large to resample; a series held in memory goes to
// MetricEstimate), the standard deviation and exact percentiles without
// intervals. A method that needs the whole sample in memory
// (nearest_rank_cumulative, which merges ties) returns an error wrapping
// ErrNeedsMemory.
func BoundedEstimate(id schemas.MetricID, f *spill.Floats, o EstimateOptions) (MetricStats, error) {
	if xs, ok := f.Values(); ok {
		return MetricEstimate(id, xs, o), nil
	}
	ms := newMetricStats(id, int(f.Len()), o)
	ms.Std = f.StdDev(0)
	ms.Mean = pointEstimate(StatMean, 0, f.Mean())
	if o.Confidence > 0 {
		ms.Mean = fromInterval(StatMean, 0, stats.StudentTInterval(f.Mean(), f.StdDev(1), int(f.Len()), o.Confidence))
	}
	ps := make([]float64, len(o.Percentiles))
	for i, p := range o.Percentiles {
		ps[i] = p / 100
	}
	qs, err := f.QuantilesScaled(ps, ms.Method, msPerUnit(ms.Unit))
	if err != nil {
		return ms, fmt.Errorf("%s: %w", id, err)
	}
	for i, p := range o.Percentiles {
		ms.Quantiles = append(ms.Quantiles, pointEstimate(StatP, p, qs[i]))
	}
	if o.Confidence > 0 {
		ms.warn(fmt.Sprintf("%d values, more than are resampled in memory: exact percentiles without intervals", f.Len()))
	}
	return ms, nil
}

// needsMemory reports whether err says a method needs the whole sample.
func needsMemory(err error) bool { return errors.Is(err, spill.ErrNeedsMemory) }
