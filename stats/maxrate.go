package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// A LatencyLimit bounds one metric's percentile, as MLPerf's Server
// scenario bounds the p99 of TTFT and of TPOT.
type LatencyLimit struct {
	// Metric names the samples in SweepRun.Samples.
	Metric string
	// P and Method say which percentile is bounded and how it is read;
	// MLPerf reads p = 0.99 with NearestRankFloor.
	P      float64
	Method Method
	// Limit is the bound, in the samples' unit.
	Limit float64
	// Strict makes the bound exclusive (percentile < Limit), as the MLPerf
	// submission checker compares. By default a percentile equal to the
	// limit passes, as in LoadGen's PerfConstraintsMet, which fails only
	// above it.
	Strict bool
}

func (l LatencyLimit) within(v float64) bool {
	if l.Strict {
		return v < l.Limit
	}
	return v <= l.Limit
}

// A SweepRun is one run of a rate sweep: the request rate (offered or
// achieved; say which when reporting) and the per-request samples of every
// constrained metric.
type SweepRun struct {
	Rate    float64
	Samples map[string][]float64
}

// MaxRateOptions configure [MaxRateUnderLimits].
type MaxRateOptions struct {
	// Limits must all hold for a run to pass. At least one is required.
	Limits []LatencyLimit
	// Bootstrap configures the interval of each run's percentiles. Its
	// Seed is combined with the run's position (by rate) and the limit's
	// index, so every percentile gets its own deterministic stream.
	Bootstrap BootstrapOptions
}

// A RunCheck is the verdict on one run of a sweep.
type RunCheck struct {
	// Rate is the run's rate.
	Rate float64
	// Percentiles holds each limit's percentile with its interval, in the
	// order of MaxRateOptions.Limits.
	Percentiles []Interval
	// Pass reports that every percentile estimate is within its limit.
	Pass bool
	// SurePass reports that every interval lies within its limit: the run
	// passes even at the unfavourable end of its intervals.
	SurePass bool
	// MayPass reports that every interval reaches into its limit: the run
	// could pass at the favourable end of its intervals.
	MayPass bool
}

// A MaxRateStatus says how far a sweep answers the question.
type MaxRateStatus string

const (
	// RateBracketed: a passing run is followed by a failing one, so the
	// highest sustainable rate lies between Rate and Above.
	RateBracketed MaxRateStatus = "bracketed"
	// RateLowerBound: every run passed. Rate, the highest rate tried, is
	// only a lower bound; the sweep does not reach the limit.
	RateLowerBound MaxRateStatus = "lower_bound"
	// RateNoneMet: the lowest rate tried already fails. The answer is
	// below Above, the lowest rate tried; Rate is NaN.
	RateNoneMet MaxRateStatus = "none_met"
)

// MaxRate is the highest request rate of a sweep whose latency percentiles
// meet their limits: the primary metric of MLPerf's Server scenario,
// computed from a sweep of Poisson runs.
type MaxRate struct {
	// Status says whether Rate is bracketed, a lower bound, or absent.
	Status MaxRateStatus
	// Rate is the highest rate such that it and every lower rate passed
	// (NaN if the lowest rate failed). A run that passes above a failure
	// does not raise it: see NonMonotone.
	Rate float64
	// Above is the lowest failing rate above Rate, the upper end of the
	// bracket (NaN when every run passed).
	Above float64
	// Lo and Hi carry the percentiles' sampling error into the answer:
	// Lo is the Rate obtained when each run is judged at the unfavourable
	// end of its intervals (SurePass), Hi at the favourable end (MayPass).
	// Lo <= Rate <= Hi; either is NaN when not even the lowest rate
	// passes under that reading.
	Lo, Hi float64
	// Interpolated estimates where the limits are crossed between Rate
	// and Above: each limit failing at Above is interpolated linearly in
	// rate and the first to reach its limit decides (as in
	// CapacityUnderLimits). NaN unless bracketed and every limit is
	// positive.
	Interpolated float64
	// HighestPassing is the highest rate that passed anywhere in the
	// sweep; above Rate only when NonMonotone.
	HighestPassing float64
	// NonMonotone reports a run passing above a failing one.
	NonMonotone bool
	// Runs holds the verdict on every run, sorted by rate.
	Runs []RunCheck
	// Warnings explain unbracketed and non-monotone sweeps, missing
	// samples, and the intervals' own caveats.
	Warnings []error
}

// MaxRateUnderLimits finds the highest rate of a sweep whose percentiles
// meet every limit, in the manner of MLPerf's Server scenario. Runs are
// sorted by rate (equal rates keep their order). A run without samples of a
// constrained metric fails, with a warning. MaxRateUnderLimits panics
// without limits, on a limit whose P is outside [0, 1] or whose Method is
// unknown, or on invalid bootstrap options.
func MaxRateUnderLimits(runs []SweepRun, o MaxRateOptions) MaxRate {
	if len(o.Limits) == 0 {
		panic("stats: MaxRateUnderLimits without limits")
	}
	stats := make([]Statistic, len(o.Limits))
	for j, l := range o.Limits {
		stats[j] = QuantileStatistic(l.P, l.Method)
		stats[j].Name = l.Metric + " " + stats[j].Name
	}
	bo := o.Bootstrap.withDefaults()
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b SweepRun) int { return cmp.Compare(a.Rate, b.Rate) })

	res := MaxRate{Rate: math.NaN(), Above: math.NaN(), Lo: math.NaN(), Hi: math.NaN(),
		Interpolated: math.NaN(), HighestPassing: math.NaN()}
	if len(sorted) == 0 {
		res.Status = RateNoneMet
		res.Warnings = append(res.Warnings, fmt.Errorf("max rate: no runs"))
		return res
	}
	for i, run := range sorted {
		rc := RunCheck{Rate: run.Rate, Pass: true, SurePass: true, MayPass: true}
		for j, l := range o.Limits {
			xs := run.Samples[l.Metric]
			if len(xs) == 0 {
				res.Warnings = append(res.Warnings, fmt.Errorf("rate %g: no %s samples; the run counts as failing", run.Rate, l.Metric))
				rc.Percentiles = append(rc.Percentiles, Interval{Statistic: stats[j].Name, Estimate: math.NaN(),
					Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(), Z0: math.NaN(), Acceleration: math.NaN()})
				rc.Pass, rc.SurePass, rc.MayPass = false, false, false
				continue
			}
			b := bo
			b.Seed = mixSeed(bo.Seed, uint64(i), uint64(j))
			iv := Bootstrap(xs, stats[j], b)
			for _, w := range iv.Warnings {
				res.Warnings = append(res.Warnings, fmt.Errorf("rate %g: %w", run.Rate, w))
			}
			pass := l.within(iv.Estimate)
			rc.Pass = rc.Pass && pass
			rc.SurePass = rc.SurePass && pass && l.within(iv.Hi)
			rc.MayPass = rc.MayPass && (pass || l.within(iv.Lo))
			rc.Percentiles = append(rc.Percentiles, iv)
		}
		res.Runs = append(res.Runs, rc)
	}

	// prefix returns the index of the last run of the leading passing run
	// of runs, or -1.
	prefix := func(ok func(RunCheck) bool) int {
		k := -1
		for k+1 < len(res.Runs) && ok(res.Runs[k+1]) {
			k++
		}
		return k
	}
	last := prefix(func(r RunCheck) bool { return r.Pass })
	if k := prefix(func(r RunCheck) bool { return r.SurePass }); k >= 0 {
		res.Lo = res.Runs[k].Rate
	}
	if k := prefix(func(r RunCheck) bool { return r.MayPass }); k >= 0 {
		res.Hi = res.Runs[k].Rate
	}
	for _, r := range res.Runs {
		if r.Pass {
			res.HighestPassing = r.Rate
		}
	}
	switch {
	case last < 0:
		res.Status = RateNoneMet
		res.Above = res.Runs[0].Rate
		res.Warnings = append(res.Warnings, fmt.Errorf("max rate: no run meets the limits; the sustainable rate is below %g, the lowest rate tried", res.Above))
	case last == len(res.Runs)-1:
		res.Status = RateLowerBound
		res.Rate = res.Runs[last].Rate
		res.Warnings = append(res.Warnings, fmt.Errorf("max rate: every run meets the limits; %g is only a lower bound, the sweep does not reach the limit", res.Rate))
	default:
		res.Status = RateBracketed
		res.Rate = res.Runs[last].Rate
		res.Above = res.Runs[last+1].Rate
		res.Interpolated = interpolateCrossing(res.Runs[last], res.Runs[last+1], o.Limits)
	}
	if last+1 < len(res.Runs) {
		var above []string
		for _, r := range res.Runs[last+1:] {
			if r.Pass {
				above = append(above, fmt.Sprint(r.Rate))
			}
		}
		if len(above) > 0 {
			res.NonMonotone = true
			res.Warnings = append(res.Warnings, fmt.Errorf("max rate: runs at %v meet the limits above a failing run at %g; the sweep is not monotone (noise, too short runs, or an unstable server); Rate is the highest rate below the first failure",
				above, res.Runs[last+1].Rate))
		}
	}
	return res
}

// interpolateCrossing estimates where the limits are crossed between a
// passing and a failing run, as CapacityUnderLimits does (crossLoad): each
// failing limit's percentile is interpolated linearly in rate and the
// first to reach its limit decides.
func interpolateCrossing(pass, fail RunCheck, limits []LatencyLimit) float64 {
	va, vb := make([]float64, len(limits)), make([]float64, len(limits))
	bounds, fails := make([]float64, len(limits)), make([]bool, len(limits))
	for j, l := range limits {
		if !(l.Limit > 0) {
			return math.NaN()
		}
		va[j], vb[j], bounds[j] = pass.Percentiles[j].Estimate, fail.Percentiles[j].Estimate, l.Limit
		fails[j] = !l.within(vb[j])
	}
	load, _ := crossLoad(pass.Rate, fail.Rate, va, vb, bounds, fails)
	return load
}

// mixSeed derives a seed for one of several bootstraps from a base seed
// (splitmix64's finaliser over the inputs).
func mixSeed(seed uint64, parts ...uint64) uint64 {
	z := seed
	for _, p := range parts {
		z += 0x9e3779b97f4a7c15 + p
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
	}
	return z
}
