package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Repeated runs of one configuration.
//
// R runs of one configuration at one load point differ by more than the
// sampling of their requests: each run meets the server in another state
// (placement, caches, clocks, neighbours). With theta_r the statistic of
// run r, the one-way random-effects model is
//
//	theta_r = theta + u_r + e_r,   Var u_r = BetweenVar, Var e_r = WithinVar
//
// and the configuration's statistic is the mean of the runs' statistics,
// whose variance is (BetweenVar + WithinVar)/R. WithinVar is estimated by
// the mean over the runs of the within-run bootstrap variance (of the
// chosen Scheme); BetweenVar by the method of moments, max(0, s^2 -
// WithinVar) with s^2 the variance (ddof 1) of the theta_r.
//
// The interval comes from a two-level bootstrap: a replicate draws R runs
// with replacement and, for each, one of its within-run replicates. Done
// naively (resampling at both levels) it counts the within-run variance
// twice, once through the spread of the theta_r and once through the inner
// resampling (Davison and Hinkley, Bootstrap Methods and their
// Application, 1997, section 3.8). As Davison and Hinkley do for cluster
// means, the drawn runs' effects are shrunk towards the grand mean:
//
//	theta* = theta^ + (1/R) sum_j [ c (theta_Ij - theta^) + (theta*_Ij - theta_Ij) ]
//	c^2    = R/(R-1) BetweenVar / s^2
//
// so that the replicates' variance is (BetweenVar + WithinVar)/R, the
// model's. The interval is read with the percentile method.

// RunsBootstrap returns the statistic s of a configuration run R times,
// each run's requests in time order, with the two-level bootstrap interval
// described above; the within-run resampling follows o.Scheme. One run
// gives SeriesBootstrap's result. Runs without values are left out with a
// warning. RunsBootstrap panics on invalid options.
func RunsBootstrap(runs [][]float64, s Statistic, o SeriesOptions) SeriesInterval {
	in := make([]runInput, len(runs))
	for i, r := range runs {
		in[i] = runInput{values: r}
	}
	iv, _ := runsReplicates(in, s, o, false)
	return iv
}

// minRuns is the number of runs below which the between-run variance
// rests on too few degrees of freedom to mean much.
const minRuns = 5

// runInput is one run of a configuration: its per-request values, or only
// the statistic its tool reported.
type runInput struct {
	values   []float64
	reported float64
	hasValue bool // reported is set
}

// runStat is one run's statistic, with its within-run replicates (nil
// for a reported statistic, which carries no sampling information).
type runStat struct {
	iv   SeriesInterval
	reps []float64
	n    int
}

// reportedInterval is the SeriesInterval of a statistic known only as the
// tool reported it.
func reportedInterval(v float64, s Statistic, o SeriesOptions) SeriesInterval {
	bo := o.Bootstrap
	return SeriesInterval{Scheme: o.Scheme, BlockLength: 1, EffectiveN: math.NaN(), Runs: 1,
		BetweenVar: math.NaN(), WithinVar: math.NaN(), RequestsPerRun: math.NaN(),
		Interval: Interval{Statistic: s.Name, Estimate: v, Confidence: bo.Confidence, Method: Percentile,
			Resamples: bo.Resamples, Seed: bo.Seed, Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(),
			Z0: math.NaN(), Acceleration: math.NaN(),
			Warnings: []error{fmt.Errorf("%s: the value the tool reported; without per-request values there is no interval", s.Name)}}}
}

// runStats computes each usable run's statistic.
func runStats(runs []runInput, s Statistic, o SeriesOptions, keep bool) ([]runStat, []error) {
	var out []runStat
	var ws []error
	for i, r := range runs {
		switch {
		case len(r.values) > 0:
			ro := o
			if len(runs) > 1 {
				ro.Bootstrap.Seed = mixSeed(o.Bootstrap.Seed, uint64(i))
			}
			iv, reps := seriesReplicates(r.values, s, ro, keep || len(runs) > 1)
			out = append(out, runStat{iv: iv, reps: reps, n: len(r.values)})
		case r.hasValue:
			out = append(out, runStat{iv: reportedInterval(r.reported, s, o)})
		default:
			ws = append(ws, fmt.Errorf("%s: run %d has no values and is left out", s.Name, i+1))
		}
	}
	return out, ws
}

func runsReplicates(runs []runInput, s Statistic, o SeriesOptions, keep bool) (SeriesInterval, []float64) {
	o = o.withDefaults()
	rs, ws := runStats(runs, s, o, keep)
	switch len(rs) {
	case 0:
		iv, _ := seriesReplicates(nil, s, o, false)
		iv.Warnings = append(ws, iv.Warnings...)
		return iv, nil
	case 1:
		rs[0].iv.Warnings = append(ws, rs[0].iv.Warnings...)
		return rs[0].iv, rs[0].reps
	}
	R := len(rs)
	thetas := make([]float64, R)
	var within, effN, reqs float64
	sampled := 0
	for i, r := range rs {
		for _, w := range r.iv.Warnings {
			ws = append(ws, fmt.Errorf("run %d: %w", i+1, w))
		}
		if math.IsNaN(r.iv.Estimate) {
			si := r.iv
			si.Warnings = append(ws, fmt.Errorf("%s: run %d has no estimate; no interval over the runs", s.Name, i+1))
			return si, nil
		}
		thetas[i] = r.iv.Estimate
		if r.reps != nil {
			within += sampleVar(r.reps)
			effN += r.iv.EffectiveN
			reqs += float64(r.n)
			sampled++
		}
	}
	if sampled > 0 {
		within /= float64(sampled)
		reqs /= float64(sampled)
	} else {
		effN, reqs = math.NaN(), math.NaN()
		ws = append(ws, fmt.Errorf("%s: no run has per-request values; the interval comes from the spread of the %d runs' reported values alone", s.Name, R))
	}
	mean := Mean(thetas)
	s2 := sampleVar(thetas)
	between := max(0, s2-within)
	c := 0.0
	if s2 > 0 {
		c = math.Sqrt(float64(R) / float64(R-1) * between / s2)
	}

	bo := o.Bootstrap
	first := rs[0].iv
	si := SeriesInterval{Scheme: o.Scheme, BlockLength: first.BlockLength, BlockAuto: first.BlockAuto,
		EffectiveN: effN, Runs: R, RunEstimates: thetas, BetweenVar: between, WithinVar: within,
		RequestsPerRun: reqs}
	si.Interval = Interval{Statistic: s.Name, Estimate: mean, Confidence: bo.Confidence, Method: Percentile,
		N: int(reqs * float64(sampled)), Resamples: bo.Resamples, Seed: bo.Seed, Lo: math.NaN(), Hi: math.NaN(),
		Z0: math.NaN(), Acceleration: math.NaN()}
	reps := runReplicates(bo.Resamples, 1, mixSeed(bo.Seed, math.MaxUint64), bo.Workers, func() replicator {
		return func(r *rand.Rand, dst []float64) {
			var sum float64
			for range R {
				j := r.IntN(R)
				dev := c * (thetas[j] - mean)
				if inner := rs[j].reps; inner != nil {
					dev += inner[r.IntN(len(inner))] - thetas[j]
				}
				sum += dev
			}
			dst[0] = mean + sum/float64(R)
		}
	})
	// A statistic of non-negative values (every latency, count and share)
	// is non-negative, but with few runs a replicate can fall below 0:
	// c exceeds 1 when R is small (up to sqrt(2) for two runs), and a
	// replicate that draws the lowest run R times lands at mean - c (mean
	// - theta_min), below 0 when the runs are far apart. Such replicates
	// are set to 0, the statistic's lower bound. max(0, x) is monotone, so
	// the percentile interval of the clamped replicates is the plain
	// interval with its ends clamped at 0; since the true value is at
	// least 0, clamping can only move an end towards it, never lose
	// coverage.
	if nonNegative(runs) {
		clamped := 0
		for i, v := range reps {
			if v < 0 {
				reps[i] = 0
				clamped++
			}
		}
		if clamped > 0 {
			ws = append(ws, fmt.Errorf("%s: %d of %d two-level replicates fell below 0 (the runs lie far apart for their number) and were set to 0, the lower bound of a statistic of non-negative values", s.Name, clamped, len(reps)))
		}
	}
	var kept []float64
	if keep {
		kept = slices.Clone(reps)
	}
	finishInterval(&si.Interval, reps, bo, nil)
	if R < minRuns {
		ws = append(ws, fmt.Errorf("%s: %d runs; the between-run variance rests on %d degrees of freedom and the interval's coverage falls short of %g%% (at least %d runs are advised)",
			s.Name, R, R-1, 100*bo.Confidence, minRuns))
	}
	si.Warnings = append(ws, si.Warnings...)
	return si, kept
}

// nonNegative reports that every run's values (or reported statistic)
// are at least 0.
func nonNegative(runs []runInput) bool {
	for _, r := range runs {
		if r.hasValue && len(r.values) == 0 && r.reported < 0 {
			return false
		}
		for _, v := range r.values {
			if v < 0 {
				return false
			}
		}
	}
	return true
}

// sampleVar is the variance with ddof 1; 0 for fewer than two values.
func sampleVar(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	sd := StdDev(xs, 1)
	return sd * sd
}

// A RunPlan says what an interval of a given half-width needs, under the
// random-effects model: the variance of the configuration's statistic
// with R runs of n requests is (BetweenVar + WithinVar n0/n)/R, where n0
// is the present RequestsPerRun (within-run variance falls as 1/n for
// independent and for weakly dependent requests alike). The interval's
// half-width is about z times its standard error.
type RunPlan struct {
	// HalfWidth is the target half-width and Confidence its level.
	HalfWidth, Confidence float64
	// Runs is the number of runs of the present length that reach it.
	Runs int
	// RequestsPerRun is the run length that reaches it with the present
	// number of runs; +Inf when the between-run variance alone is too
	// large, and then MinRuns is the fewest runs that can reach it with
	// runs of any length.
	RequestsPerRun float64
	MinRuns        int
	// Warnings say when the plan rests on one run (no between-run
	// variance) or on a zero variance.
	Warnings []error
}

// Plan returns what a half-width of halfWidth (in the statistic's unit)
// needs at the interval's confidence. For one run, BetweenVar is unknown:
// the plan counts only the within-run variance (StdErr squared) and warns.
func (s SeriesInterval) Plan(halfWidth float64) RunPlan {
	p := RunPlan{HalfWidth: halfWidth, Confidence: s.Confidence}
	z := normQuantile((1 + s.Confidence) / 2)
	between, within, R := s.BetweenVar, s.WithinVar, float64(max(1, s.Runs))
	if s.Runs <= 1 {
		between, within = 0, s.StdErr*s.StdErr
		p.Warnings = append(p.Warnings, fmt.Errorf("one run: the between-run variance is unknown and taken as zero; repeat the run to measure it"))
	}
	if !(halfWidth > 0) || math.IsNaN(between) || math.IsNaN(within) {
		p.Warnings = append(p.Warnings, fmt.Errorf("no plan: half-width %v, variances %v and %v", halfWidth, between, within))
		p.RequestsPerRun = math.NaN()
		return p
	}
	h2 := (halfWidth / z) * (halfWidth / z) // the variance the interval may have
	p.Runs = max(1, int(math.Ceil((between+within)/h2)))
	p.MinRuns = max(1, int(math.Ceil(between/h2)))
	if between/R >= h2 {
		p.RequestsPerRun = math.Inf(1)
	} else {
		p.RequestsPerRun = math.Ceil(within * s.RequestsPerRun / (R*h2 - between))
	}
	return p
}
