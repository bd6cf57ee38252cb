package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomEffects draws R runs of n requests: run r is N(mu + u_r, 1) with
// u_r ~ N(0, between).
func randomEffects(r *rand.Rand, R, n int, mu, between float64) [][]float64 {
	runs := make([][]float64, R)
	for i := range runs {
		u := math.Sqrt(between) * r.NormFloat64()
		runs[i] = make([]float64, n)
		for j := range runs[i] {
			runs[i][j] = mu + u + r.NormFloat64()
		}
	}
	return runs
}

// TestRunsVariance checks the two-level bootstrap's variance against the
// random-effects model it is built to reproduce: Var* = (BetweenVar +
// WithinVar)/R (see runs.go), and the variance components against their
// definitions.
func TestRunsVariance(t *testing.T) {
	runs := randomEffects(rand.New(rand.NewPCG(3, 3)), 8, 400, 10, 0.04)
	o := SeriesOptions{Scheme: SchemeIID, Bootstrap: BootstrapOptions{Resamples: 20000, Seed: 5}}
	iv := RunsBootstrap(runs, MeanStatistic(), o)
	if iv.Runs != 8 || len(iv.RunEstimates) != 8 || iv.RequestsPerRun != 400 || iv.N != 3200 {
		t.Fatalf("%+v", iv)
	}
	// The estimate is the mean of the run means; the within variance of a
	// run mean is about 1/400; s^2 of the run means estimates 0.04 + 1/400.
	if want := Mean(iv.RunEstimates); iv.Estimate != want {
		t.Errorf("estimate %v, want the mean of the run estimates %v", iv.Estimate, want)
	}
	if math.Abs(iv.WithinVar*400-1) > 0.1 {
		t.Errorf("within variance %v, want about 1/400", iv.WithinVar)
	}
	s2 := sampleVar(iv.RunEstimates)
	if !close(iv.BetweenVar, s2-iv.WithinVar, 1e-12) {
		t.Errorf("between %v, want s^2 - within = %v", iv.BetweenVar, s2-iv.WithinVar)
	}
	want := math.Sqrt((iv.BetweenVar + iv.WithinVar) / 8)
	if math.Abs(iv.StdErr/want-1) > 0.03 {
		t.Errorf("bootstrap standard error %v, want sqrt((between+within)/R) = %v", iv.StdErr, want)
	}
	if iv.Describe() != "two-level bootstrap over 8 runs, i.i.d. bootstrap of requests within each" {
		t.Errorf("describe: %q", iv.Describe())
	}
	if !hasWarning(RunsBootstrap(runs[:3], MeanStatistic(), o).Warnings, "3 runs") {
		t.Error("no warning for three runs")
	}
}

// TestRunsCoverage simulates the random-effects model: the configuration's
// true median is mu (each run's median is mu + u_r). With a between-run
// component the pooled i.i.d. bootstrap, which treats all requests as one
// sample, under-covers badly; the two-level bootstrap covers about the
// nominal 95% (a little less with 12 runs: the percentile interval uses
// normal rather than t quantiles, P(|T_11| < 1.96) = 0.924), and without
// a between-run component it does not over-cover, as a naive two-level
// bootstrap would (its variance would be twice the within-run one).
func TestRunsCoverage(t *testing.T) {
	sims := 200
	if testing.Short() {
		sims = 60
	}
	const R, n, mu = 12, 300, 5.0
	o := SeriesOptions{Scheme: SchemeIID, Bootstrap: BootstrapOptions{Resamples: 400, Method: Percentile, Workers: 2}}
	for _, c := range []struct {
		between        float64
		lo, hi, pooled float64
	}{
		{0.02, 0.88, 0.99, 0.8},
		{0, 0.9, 0.985, 1},
	} {
		var hit, hitPooled int
		for sim := range sims {
			runs := randomEffects(rand.New(rand.NewPCG(uint64(sim), 17)), R, n, mu, c.between)
			oo := o
			oo.Bootstrap.Seed = uint64(sim)
			iv := RunsBootstrap(runs, MedianStatistic(), oo)
			if iv.Lo <= mu && mu <= iv.Hi {
				hit++
			}
			var pooled []float64
			for _, r := range runs {
				pooled = append(pooled, r...)
			}
			p := SeriesBootstrap(pooled, MedianStatistic(), oo)
			if p.Lo <= mu && mu <= p.Hi {
				hitPooled++
			}
		}
		cov, covPooled := float64(hit)/float64(sims), float64(hitPooled)/float64(sims)
		t.Logf("between %v: two-level coverage %.3f, pooled i.i.d. %.3f", c.between, cov, covPooled)
		if cov < c.lo || cov > c.hi {
			t.Errorf("between %v: two-level coverage %.3f outside [%v, %v]", c.between, cov, c.lo, c.hi)
		}
		if covPooled > c.pooled {
			t.Errorf("between %v: pooled coverage %.3f, want at most %v", c.between, covPooled, c.pooled)
		}
	}
}

// TestRunPlan works the plan by hand: BetweenVar 0.01, WithinVar 0.04
// (runs of 1000 requests), 4 runs, 95%: z = 1.959964, so a half-width of
// 0.1 allows a variance of (0.1/z)^2 = 0.00260318. Runs:
// (0.01+0.04)/0.00260318 = 19.21, so 20. Requests per run with 4 runs:
// 0.04*1000/(4*0.00260318 - 0.01) = 40/0.00041271 = 96,920.2, so 96,921.
// MinRuns: 0.01/0.00260318 = 3.84, so 4. (Python's
// statistics.NormalDist gives the same numbers.)
func TestRunPlan(t *testing.T) {
	iv := SeriesInterval{Interval: Interval{Confidence: 0.95}, Runs: 4, BetweenVar: 0.01, WithinVar: 0.04, RequestsPerRun: 1000}
	p := iv.Plan(0.1)
	h2 := math.Pow(0.1/normQuantile(0.975), 2)
	if p.Runs != 20 || p.MinRuns != 4 || p.RequestsPerRun != math.Ceil(40/(4*h2-0.01)) {
		t.Errorf("%+v (h2 %v)", p, h2)
	}
	if p.RequestsPerRun != 96921 {
		t.Errorf("requests per run %v, want 96,921", p.RequestsPerRun)
	}
	// A tighter target than the between-run variance allows at 4 runs.
	if p := iv.Plan(0.05); !math.IsInf(p.RequestsPerRun, 1) || p.MinRuns != 16 {
		t.Errorf("tight: %+v", p)
	}
	one := SeriesInterval{Interval: Interval{Confidence: 0.95, StdErr: 0.02}, Runs: 1, RequestsPerRun: 500}
	if p := one.Plan(0.02); p.Runs != 4 || p.RequestsPerRun != 1921 || !hasWarning(p.Warnings, "between-run variance is unknown") {
		t.Errorf("one run: %+v", p)
	}
}

// TestRunsNonNegative: two runs of a latency far apart (about 0.1 s and
// 10 s) give c = sqrt(2 between/s^2) near 1.41, so a replicate drawing
// the fast run twice lands near 5.05 - 1.41 * 4.95 = -1.9 s. Those
// replicates are set to 0 with a warning, and the interval starts at 0;
// values that may be negative are left alone.
func TestRunsNonNegative(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	run := func(center float64) []float64 {
		xs := make([]float64, 300)
		for i := range xs {
			xs[i] = center * (0.9 + 0.2*r.Float64())
		}
		return xs
	}
	runs := [][]float64{run(0.1), run(10)}
	o := SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 2000, Seed: 1}}
	iv := RunsBootstrap(runs, MedianStatistic(), o)
	if iv.Lo != 0 || !(iv.Hi > iv.Estimate) {
		t.Errorf("interval [%v, %v] around %v, want it to start at 0", iv.Lo, iv.Hi, iv.Estimate)
	}
	found := false
	for _, w := range iv.Warnings {
		found = found || strings.Contains(w.Error(), "were set to 0")
	}
	if !found {
		t.Errorf("no clamping warning: %v", iv.Warnings)
	}
	// Shifted below zero the same runs may have a negative statistic.
	for _, xs := range runs {
		for i := range xs {
			xs[i] -= 20
		}
	}
	if iv := RunsBootstrap(runs, MedianStatistic(), o); !(iv.Lo < iv.Estimate-5) {
		t.Errorf("negative values: interval [%v, %v] around %v", iv.Lo, iv.Hi, iv.Estimate)
	}
}
