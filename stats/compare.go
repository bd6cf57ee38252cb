package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// CompareOptions configure [Compare].
type CompareOptions struct {
	// Center is the statistic compared; a Statistic without Func means
	// MedianStatistic(), which is robust to the long tails of latencies.
	Center Statistic
	// Bootstrap configures the intervals (zero fields take DefaultBootstrap's
	// values, as in Bootstrap).
	Bootstrap BootstrapOptions
	// Alpha is the significance level of the Mann-Whitney test; zero means
	// 0.05, benchstat's default. A change judged by an interval is
	// significant when the interval at Bootstrap.Confidence excludes no
	// change.
	Alpha float64
	// Scheme is how each sample's requests are resampled: "" or SchemeIID
	// treats them as independent (BCa intervals, the U test for the
	// median); the dependent schemes (SchemeBlock, SchemeStationary,
	// SchemeESS) resample each sample as a time series in the order given,
	// as EstimateSeries does, with percentile intervals, and judge every
	// statistic, the median too, by the ratio's interval: the U test
	// assumes independent requests.
	Scheme Scheme
}

// A SignificanceTest names how Compare decides whether a change is
// significant.
type SignificanceTest string

const (
	// MannWhitneyTest: the two-sided Mann-Whitney U test of the two
	// samples at Alpha, benchstat's test, which asks whether one sample
	// tends to exceed the other; it decides the median.
	MannWhitneyTest SignificanceTest = "mann_whitney_u"
	// RatioIntervalTest: the bootstrap interval of new/old excludes 1. It
	// decides every other statistic (a tail percentile, the mean), whose
	// change the rank test does not measure: raising the slowest 3% of
	// requests by 60% barely moves the ranks but moves the p99 by 60%.
	RatioIntervalTest SignificanceTest = "ratio_interval"
	// DeltaIntervalTest: the bootstrap interval of new - old excludes 0;
	// it stands in for the ratio when the old value is 0.
	DeltaIntervalTest SignificanceTest = "delta_interval"
)

// SignificanceTestFor is the test Compare uses for statistic s: the
// Mann-Whitney U test for a median (any percentile method), the interval
// of the ratio for every other statistic.
func SignificanceTestFor(s Statistic) SignificanceTest {
	if s.kind == quantileStat && s.p == 0.5 {
		return MannWhitneyTest
	}
	return RatioIntervalTest
}

// DefaultCompare compares medians at alpha 0.05 with DefaultBootstrap
// intervals.
var DefaultCompare = CompareOptions{Center: MedianStatistic(), Bootstrap: DefaultBootstrap, Alpha: 0.05}

// A Comparison is the change of a statistic between an old and a new
// sample, like one cell of benchstat's delta column.
type Comparison struct {
	// Old and New are the statistic of each sample with its own interval,
	// computed by Estimate exactly as for one sample on its own (same
	// options, same seed), so a comparison shows the interval the
	// statistics view shows.
	Old, New Interval
	// Delta is New - Old with a two-sample bootstrap interval: each
	// replicate resamples both samples independently.
	Delta Interval
	// Ratio is New/Old with its interval, from the same replicates. Its
	// bounds are NaN when the old statistic is 0.
	Ratio Interval
	// Test is the Mann-Whitney U test of the two samples (computed for
	// every statistic; it decides only when Basis says so).
	Test RankTest
	// Alpha is the significance level used.
	Alpha float64
	// Basis is the test that decided Significant (SignificanceTestFor the
	// statistic, or DeltaIntervalTest when the old value is 0).
	Basis SignificanceTest
	// Significant reports Test.P < Alpha for MannWhitneyTest, and that
	// the Ratio (or Delta) interval excludes 1 (or 0) for the interval
	// tests. When it is false the change is shown as "~": the data do not
	// show a difference, whatever the point estimates say.
	Significant bool
	// Warnings gathers the caveats of the intervals and the test.
	Warnings []error
	// OldSeries and NewSeries say how Old and New were resampled (their
	// scheme and block length); set only for a dependent Scheme.
	OldSeries, NewSeries *SeriesInterval
}

// Compare compares old and new: the center statistic of each with its
// interval (Estimate of each sample alone), the difference and ratio with
// two-sample bootstrap intervals, the Mann-Whitney U test, and whether the
// change is significant by the test SignificanceTestFor chooses for the
// statistic: for the median the U test decides "~" as in benchstat; for a
// tail percentile or the mean, whether the ratio's interval excludes 1.
// BCa intervals of the difference and ratio use scipy's two-sample
// acceleration (jackknifing each sample in turn, see BCaFromReplicates).
// The intervals are deterministic like Bootstrap's. Compare panics on an
// empty sample, NaN or invalid options.
func Compare(old, new []float64, o CompareOptions) Comparison {
	if o.Center.Func == nil {
		o.Center = MedianStatistic()
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultCompare.Alpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		panic(fmt.Sprintf("stats: Compare with alpha %v", o.Alpha))
	}
	if o.Scheme != "" && o.Scheme != SchemeIID {
		return compareSeries(old, new, o)
	}
	bo := o.Bootstrap.withDefaults()
	s := o.Center
	if len(old) == 0 || len(new) == 0 {
		panic("stats: Compare of an empty sample")
	}
	so, okO := sortedCopy(old)
	sn, okN := sortedCopy(new)
	if !okO || !okN {
		panic("stats: Compare of a sample holding NaN")
	}
	c := Comparison{Alpha: o.Alpha, Test: MannWhitneyU(old, new), Basis: SignificanceTestFor(s)}

	drawOld, drawNew := drawerFor(so, s), drawerFor(sn, s)
	reps := runReplicates(bo.Resamples, 2, bo.Seed, bo.Workers, func() replicator {
		d0, d1 := drawOld(), drawNew()
		return func(r *rand.Rand, dst []float64) {
			dst[0] = d0(r)
			dst[1] = d1(r)
		}
	})
	b := bo.Resamples
	ro, rn, rd, rr := make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)
	for i := range b {
		ro[i], rn[i] = reps[2*i], reps[2*i+1]
		rd[i] = rn[i] - ro[i]
		rr[i] = rn[i] / ro[i]
	}
	eo, en := s.Func(so), s.Func(sn)
	newIv := func(name string, est float64, n int) Interval {
		return Interval{
			Statistic: name, Estimate: est, Confidence: bo.Confidence, Method: bo.Method,
			N: n, Resamples: b, Seed: bo.Seed, Z0: math.NaN(), Acceleration: math.NaN(),
		}
	}
	c.Old = Estimate(old, s, bo)
	c.New = Estimate(new, s, bo)
	c.Delta = newIv(s.Name+" delta", en-eo, len(so)+len(sn))
	c.Ratio = newIv(s.Name+" ratio", en/eo, len(so)+len(sn))

	// Acceleration: each center from its own jackknife; a two-sample
	// f(old, new) from the jackknife of old with new whole, then of new
	// with old whole.
	var jo, jn jackknife
	bca := bo.Method == BCa
	if bca {
		jo, jn = jackknifeOf(so, s, bo), jackknifeOf(sn, s, bo)
	}
	twoSample := func(f func(o, n float64) float64) func() float64 {
		if !bca {
			return nil
		}
		return func() float64 {
			a := make(jackknife, len(jo))
			for i, x := range jo {
				a[i] = weighted{f(x.v, en), x.w}
			}
			b := make(jackknife, len(jn))
			for i, x := range jn {
				b[i] = weighted{f(eo, x.v), x.w}
			}
			return jackknifeSet{a, b}.acceleration()
		}
	}
	finishInterval(&c.Delta, rd, bo, twoSample(func(o, n float64) float64 { return n - o }))
	if eo == 0 {
		c.Ratio.Lo, c.Ratio.Hi, c.Ratio.StdErr = math.NaN(), math.NaN(), math.NaN()
		c.Ratio.Warnings = append(c.Ratio.Warnings, fmt.Errorf("%s: old value is 0; no ratio", c.Ratio.Statistic))
	} else {
		finishInterval(&c.Ratio, rr, bo, twoSample(func(o, n float64) float64 { return n / o }))
	}

	for _, iv := range []Interval{c.Old, c.New, c.Delta, c.Ratio} {
		c.Warnings = append(c.Warnings, iv.Warnings...)
	}
	if c.Basis == RatioIntervalTest && (eo == 0 || math.IsNaN(c.Ratio.Lo) || math.IsNaN(c.Ratio.Hi)) {
		c.Basis = DeltaIntervalTest
	}
	switch c.Basis {
	case MannWhitneyTest:
		c.Significant = c.Test.P < o.Alpha
		if mannWhitneyMinP(len(so), len(sn)) >= o.Alpha {
			c.Warnings = append(c.Warnings, errCannotDetect(len(so), len(sn), o.Alpha))
		}
	case RatioIntervalTest:
		c.Significant = c.Ratio.Lo > 1 || c.Ratio.Hi < 1
	case DeltaIntervalTest:
		c.Significant = c.Delta.Lo > 0 || c.Delta.Hi < 0
	}
	return c
}

// String renders the comparison as benchstat does: the relative change
// and the test, or "~" when the change is not significant, e.g.
// "+12.50% (p=0.002 n=10+10)" or "~ (p=0.310 n=10+10)" for the U test and
// "+60.00% (95% CI of ratio n=5000+5000)" for an interval test. When the
// old value is 0 the absolute change is shown instead of a percentage.
func (c Comparison) String() string {
	tail := fmt.Sprintf(" (p=%.3f n=%d+%d)", c.Test.P, c.Old.N, c.New.N)
	switch c.Basis {
	case RatioIntervalTest:
		tail = fmt.Sprintf(" (%g%% CI of ratio n=%d+%d)", 100*c.Ratio.Confidence, c.Old.N, c.New.N)
	case DeltaIntervalTest:
		tail = fmt.Sprintf(" (%g%% CI of delta n=%d+%d)", 100*c.Delta.Confidence, c.Old.N, c.New.N)
	}
	if !c.Significant {
		return "~" + tail
	}
	if c.Old.Estimate == 0 {
		return signed(c.Delta.Estimate, 'g', 4) + tail
	}
	return signed(100*(c.Ratio.Estimate-1), 'f', 2) + "%" + tail
}

func signed(v float64, format byte, prec int) string {
	s := strconv.FormatFloat(v, format, prec, 64)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// compareSeries is Compare under a dependent scheme: Old and New are
// EstimateSeries of each sample (the intervals verdict stats gives each
// run); the difference and ratio are percentile intervals of the paired
// replicates of the two samples' series bootstraps, the new sample's
// drawn on a stream of its own so the two are independent. Every
// statistic is judged by the ratio's interval (the delta's when the old
// value is 0). Compare has set o's defaults and checked Alpha.
func compareSeries(old, new []float64, o CompareOptions) Comparison {
	if len(old) == 0 || len(new) == 0 {
		panic("stats: Compare of an empty sample")
	}
	if slices.ContainsFunc(old, math.IsNaN) || slices.ContainsFunc(new, math.IsNaN) {
		panic("stats: Compare of a sample holding NaN")
	}
	s := o.Center
	so := SeriesOptions{Scheme: o.Scheme, Bootstrap: o.Bootstrap}
	c := Comparison{Alpha: o.Alpha, Test: MannWhitneyU(old, new), Basis: RatioIntervalTest}
	oldIv, ro := seriesReplicates(old, s, so, true)
	newIv := EstimateSeries(new, s, so)
	alt := so
	alt.Bootstrap.Seed = so.withDefaults().Bootstrap.Seed ^ compareStream
	_, rn := seriesReplicates(new, s, alt, true)
	c.Old, c.New = oldIv.Interval, newIv.Interval
	c.OldSeries, c.NewSeries = &oldIv, &newIv
	bo := so.withDefaults().Bootstrap
	eo, en := c.Old.Estimate, c.New.Estimate
	mk := func(name string, est float64) Interval {
		return Interval{Statistic: name, Estimate: est, Confidence: bo.Confidence, Method: Percentile,
			N: len(old) + len(new), Resamples: bo.Resamples, Seed: bo.Seed, Lo: math.NaN(), Hi: math.NaN(),
			StdErr: math.NaN(), Z0: math.NaN(), Acceleration: math.NaN()}
	}
	c.Delta, c.Ratio = mk(s.Name+" delta", en-eo), mk(s.Name+" ratio", en/eo)
	if len(ro) == len(rn) && len(ro) > 0 {
		rd, rr := make([]float64, len(ro)), make([]float64, len(ro))
		for i := range ro {
			rd[i], rr[i] = rn[i]-ro[i], rn[i]/ro[i]
		}
		finishInterval(&c.Delta, rd, bo, nil)
		if eo != 0 {
			finishInterval(&c.Ratio, rr, bo, nil)
		}
	}
	if eo == 0 {
		c.Ratio.Lo, c.Ratio.Hi, c.Ratio.StdErr = math.NaN(), math.NaN(), math.NaN()
		c.Ratio.Warnings = append(c.Ratio.Warnings, fmt.Errorf("%s: old value is 0; no ratio", c.Ratio.Statistic))
	}
	c.Warnings = append(c.Warnings, oldIv.Warnings...)
	c.Warnings = append(c.Warnings, newIv.Warnings...)
	c.Warnings = append(c.Warnings, c.Delta.Warnings...)
	c.Warnings = append(c.Warnings, c.Ratio.Warnings...)
	if math.IsNaN(c.Ratio.Lo) || math.IsNaN(c.Ratio.Hi) {
		c.Basis = DeltaIntervalTest
	}
	switch c.Basis {
	case RatioIntervalTest:
		c.Significant = c.Ratio.Lo > 1 || c.Ratio.Hi < 1
	case DeltaIntervalTest:
		c.Significant = c.Delta.Lo > 0 || c.Delta.Hi < 0
	}
	return c
}

// compareStream decorrelates the new sample's resamples from the old's
// (both would otherwise draw the same block starts).
const compareStream = 0x9e3779b97f4a7c15
