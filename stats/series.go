package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Intervals for the requests of a load test, which are a time series:
// neighbours share the server's batch and queue, so their latencies are
// correlated and the i.i.d. bootstrap, which treats them as independent,
// gives intervals that are too narrow. A Scheme says how an interval
// treats that dependence.

// A Scheme names how an interval resamples the requests of one run.
type Scheme string

const (
	// SchemeIID resamples requests independently ([Bootstrap]): right for
	// independent requests, overconfident for correlated ones.
	SchemeIID Scheme = "iid"
	// SchemeBlock is the circular block bootstrap (Politis and Romano,
	// 1992): a resample is made of blocks of consecutive requests of a
	// fixed length, starting at uniform positions and wrapping around the
	// end. The length is Politis-White's b_CB rounded up.
	SchemeBlock Scheme = "block"
	// SchemeStationary is the stationary bootstrap (Politis and Romano,
	// 1994): like SchemeBlock with geometric block lengths of mean b_SB.
	SchemeStationary Scheme = "stationary"
	// SchemeESS is the i.i.d. bootstrap of a resample of the effective
	// sample size n/inflation instead of n (an m-out-of-n bootstrap),
	// where the inflation is the flat-top long-run variance over the
	// variance of the statistic's series: of the values for the mean, of
	// the indicator x <= q for a quantile q (whose variance is, to first
	// order, that of the indicator's mean; Bahadur's representation). The
	// resampled statistic then has the variance the dependence gives it.
	SchemeESS Scheme = "ess"
)

// Schemes lists the schemes in the order `verdict --interval` documents
// them.
var Schemes = []Scheme{SchemeIID, SchemeBlock, SchemeStationary, SchemeESS}

// ParseScheme returns the scheme named s.
func ParseScheme(s string) (Scheme, error) {
	for _, sc := range Schemes {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", fmt.Errorf("unknown interval scheme %q: use iid, block, stationary or ess", s)
}

// SeriesOptions configure [SeriesBootstrap] and [RunsBootstrap].
type SeriesOptions struct {
	// Scheme is how requests are resampled; "" means SchemeIID.
	Scheme Scheme
	// BlockLength fixes the block length (SchemeBlock, rounded up) or the
	// mean block length (SchemeStationary); zero chooses it from the data
	// with [PolitisWhite].
	BlockLength float64
	// Bootstrap sets the number of resamples, the confidence, the seed
	// and the workers. Its Method applies to SchemeIID only; the other
	// schemes read percentile intervals (BCa's acceleration has no
	// established form for dependent resampling).
	Bootstrap BootstrapOptions
}

// A SeriesInterval is a statistic of one or more runs with an interval
// that says how it treated the dependence between requests.
type SeriesInterval struct {
	Interval
	// Scheme is how requests were resampled within a run.
	Scheme Scheme
	// BlockLength is the (mean) block length used: 1 for SchemeIID and
	// SchemeESS. BlockAuto reports that it was chosen from the data.
	BlockLength float64
	BlockAuto   bool
	// EffectiveN is the number of independent requests the run is worth
	// for this statistic: n over the flat-top variance inflation (NaN for
	// SchemeIID, which does not estimate it). For several runs it is the
	// sum over the runs.
	EffectiveN float64
	// Runs is the number of runs: 1 for one series; above 1 the interval
	// comes from the two-level bootstrap of RunsBootstrap.
	Runs int
	// RunEstimates holds each run's statistic (several runs only).
	RunEstimates []float64
	// BetweenVar and WithinVar split the variance of one run's statistic
	// into the part that changes from run to run (server state,
	// placement, caches) and the part due to the sampling of requests
	// within a run; NaN for one run. The variance of the mean of R runs'
	// statistics is (BetweenVar + WithinVar)/R.
	BetweenVar, WithinVar float64
	// RequestsPerRun is the mean number of requests of a run.
	RequestsPerRun float64
}

// Describe says in words how the interval was computed, for reports.
func (s SeriesInterval) Describe() string {
	var within string
	switch s.Scheme {
	case SchemeIID:
		within = "i.i.d. bootstrap of requests"
		if s.Method == BCa {
			within = "i.i.d. BCa bootstrap of requests"
		}
	case SchemeBlock:
		within = fmt.Sprintf("circular block bootstrap (block %s requests%s)", fmtLen(s.BlockLength), autoText(s.BlockAuto))
	case SchemeStationary:
		within = fmt.Sprintf("stationary bootstrap (mean block %s requests%s)", fmtLen(s.BlockLength), autoText(s.BlockAuto))
	case SchemeESS:
		within = fmt.Sprintf("i.i.d. bootstrap of the effective sample size (%s of %d requests)", fmtLen(s.EffectiveN), s.N)
	default:
		within = string(s.Scheme)
	}
	if s.Runs > 1 {
		return fmt.Sprintf("two-level bootstrap over %d runs, %s within each", s.Runs, within)
	}
	return within
}

func fmtLen(v float64) string { return fmt.Sprintf("%.3g", v) }

func autoText(auto bool) string {
	if auto {
		return ", Politis-White"
	}
	return ""
}

// SeriesBootstrap returns statistic s of xs, one run's requests in time
// order (dispatch order), with an interval from o.Scheme. With SchemeIID
// it is [Bootstrap] (BCa by default); the other schemes give percentile
// intervals. xs is not modified. An empty series or one holding NaN gives
// NaN bounds and a warning. SeriesBootstrap panics on invalid options or
// an unknown scheme.
func SeriesBootstrap(xs []float64, s Statistic, o SeriesOptions) SeriesInterval {
	iv, _ := seriesReplicates(xs, s, o, false)
	return iv
}

// withDefaults checks the scheme and fills the bootstrap defaults.
func (o SeriesOptions) withDefaults() SeriesOptions {
	if o.Scheme == "" {
		o.Scheme = SchemeIID
	}
	if _, err := ParseScheme(string(o.Scheme)); err != nil {
		panic("stats: " + err.Error())
	}
	if !(o.BlockLength >= 0) {
		panic(fmt.Sprintf("stats: block length %v", o.BlockLength))
	}
	o.Bootstrap = o.Bootstrap.withDefaults()
	if o.Scheme != SchemeIID {
		o.Bootstrap.Method = Percentile
	}
	return o
}

// seriesReplicates computes the interval of one series and, with keep, its
// replicates in the order drawn.
func seriesReplicates(xs []float64, s Statistic, o SeriesOptions, keep bool) (SeriesInterval, []float64) {
	o = o.withDefaults()
	if s.Func == nil {
		panic("stats: SeriesBootstrap of a Statistic without Func")
	}
	si := SeriesInterval{Scheme: o.Scheme, BlockLength: 1, EffectiveN: math.NaN(), Runs: 1,
		BetweenVar: math.NaN(), WithinVar: math.NaN(), RequestsPerRun: float64(len(xs))}
	if o.Scheme == SchemeIID {
		iv, reps := bootstrap(xs, s, o.Bootstrap, keep)
		si.Interval = iv
		return si, reps
	}
	bo := o.Bootstrap
	si.Interval = Interval{Statistic: s.Name, Confidence: bo.Confidence, Method: Percentile,
		N: len(xs), Resamples: bo.Resamples, Seed: bo.Seed,
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(),
		Z0: math.NaN(), Acceleration: math.NaN()}
	sorted, ok := sortedCopy(xs)
	switch {
	case !ok:
		si.Warnings = append(si.Warnings, fmt.Errorf("%s: sample holds NaN; no interval", s.Name))
		return si, nil
	case len(xs) == 0:
		si.Warnings = append(si.Warnings, fmt.Errorf("%s: empty sample; no interval", s.Name))
		return si, nil
	}
	si.Estimate = s.Func(sorted)

	// The series whose dependence matters: the values for the mean (and
	// any other statistic), the indicator at the estimate for a quantile.
	dep := xs
	if s.kind == quantileStat {
		dep = indicator(xs, si.Estimate)
	}
	bl := PolitisWhite(dep)
	for _, w := range bl.Warnings {
		if s.kind == quantileStat {
			w = fmt.Errorf("%w (the series is the indicator of values at or below the %s)", w, s.Name)
		}
		si.Warnings = append(si.Warnings, fmt.Errorf("%s: %w", s.Name, w))
	}
	si.EffectiveN = effectiveN(len(xs), bl, &si.Warnings, s.Name)

	var newRep func() replicator
	switch o.Scheme {
	case SchemeESS:
		m := int(math.Round(si.EffectiveN))
		newRep = mOutOfN(sorted, m, s)
	default:
		b := o.BlockLength
		si.BlockAuto = b == 0
		if b == 0 {
			b = bl.Stationary
			if o.Scheme == SchemeBlock {
				b = bl.Circular
			}
		}
		if o.Scheme == SchemeBlock {
			b = math.Ceil(b)
		}
		b = min(b, float64(len(xs)))
		si.BlockLength = b
		bs := blockScheme{n: len(xs), length: b, stationary: o.Scheme == SchemeStationary}
		newRep = blockReplicator(xs, sorted, s, bs, float64(len(xs))/si.EffectiveN)
	}
	reps := runReplicates(bo.Resamples, 1, bo.Seed, bo.Workers, newRep)
	var kept []float64
	if keep {
		kept = slices.Clone(reps)
	}
	finishInterval(&si.Interval, reps, bo, nil)
	si.Warnings = append(sampleWarnings(len(xs), s), si.Warnings...)
	return si, kept
}

// indicator returns 1 where x <= q and 0 elsewhere.
func indicator(xs []float64, q float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if x <= q {
			out[i] = 1
		}
	}
	return out
}

// effectiveN is n over the flat-top inflation, clamped to [2, n]: a
// negative or undefined long-run variance, or negative dependence, leaves
// n (with a warning for the first two).
func effectiveN(n int, bl BlockLength, ws *[]error, name string) float64 {
	infl := bl.Inflation()
	switch {
	case math.IsNaN(infl) || bl.N < minBlockSeries:
		return float64(n)
	case !(infl > 0):
		*ws = append(*ws, fmt.Errorf("%s: the flat-top long-run variance is not positive (%.3g); the effective sample size is taken as n", name, bl.LongRunVariance))
		return float64(n)
	}
	return max(2, min(float64(n), float64(n)/infl))
}

// mOutOfN draws i.i.d. resamples of m values from sorted (SchemeESS). A
// quantile's order statistics are drawn directly, in O(1): the (k+1)-th
// smallest of m uniform draws is Beta(k+1, m-k), mapped to an index of the
// n values by floor(n u) (see orderstat.go).
func mOutOfN(sorted []float64, m int, s Statistic) func() replicator {
	n := len(sorted)
	if s.kind == quantileStat {
		plan := s.plan(m)
		return func() replicator {
			is := &indexSampler{n: n, plan: plan, ga: newGammaSampler(float64(plan.k + 1)),
				gb: newGammaSampler(float64(m - plan.k)), above: float64(m - plan.k - 1)}
			return func(r *rand.Rand, dst []float64) {
				j1, j2 := is.indices(r)
				dst[0] = plan.value(sorted[j1], sorted[j2])
			}
		}
	}
	return func() replicator {
		buf := make([]float64, m)
		return func(r *rand.Rand, dst []float64) {
			for i := range buf {
				buf[i] = sorted[r.IntN(n)]
			}
			if s.kind == meanStat {
				dst[0] = Mean(buf)
				return
			}
			slices.Sort(buf)
			dst[0] = s.Func(buf)
		}
	}
}

// EstimateSeries is [Estimate] for a run's series in dispatch order under
// scheme o.Scheme: with SchemeIID it is Estimate itself (the bootstrap, or
// Student's t for the mean of a large sample, as IntervalMethodFor
// chooses); the other schemes go to SeriesBootstrap, whose intervals keep
// neighbouring requests together. It is the one place the --interval
// choice is made.
func EstimateSeries(xs []float64, s Statistic, o SeriesOptions) SeriesInterval {
	if o.Scheme == "" || o.Scheme == SchemeIID {
		iv := Estimate(xs, s, o.Bootstrap)
		return SeriesInterval{Interval: iv, Scheme: SchemeIID, BlockLength: 1, EffectiveN: math.NaN(), Runs: 1,
			BetweenVar: math.NaN(), WithinVar: math.NaN(), RequestsPerRun: float64(len(xs))}
	}
	return SeriesBootstrap(xs, s, o)
}

// Text says in words how an interval of the scheme is computed, for the
// notes of a view (each interval's own block length is in
// SeriesInterval.Describe).
func (sc Scheme) Text() string {
	switch sc {
	case SchemeBlock:
		return "circular block bootstrap of each run's requests in dispatch order, the block length chosen per series by Politis-White (2004, with the 2009 correction), percentile intervals"
	case SchemeStationary:
		return "stationary bootstrap of each run's requests in dispatch order, the mean block length chosen per series by Politis-White (2004, with the 2009 correction), percentile intervals"
	case SchemeESS:
		return "i.i.d. bootstrap of the effective sample size (n over the flat-top variance inflation of the series), percentile intervals"
	}
	return fmt.Sprintf("bootstrap of independent requests (BCa), Student's t for means of more than %d values", MaxMeanBootstrap)
}
