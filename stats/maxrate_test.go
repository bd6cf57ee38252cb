package stats

import (
	"math"
	"strings"
	"testing"
)

// ramp returns 2000 latencies (i+1)/2000*scale, whose LoadGen p99
// (x[1980]) is 0.9905*scale.
func ramp(scale float64) []float64 {
	xs := make([]float64, 2000)
	for i := range xs {
		xs[i] = float64(i+1) / 2000 * scale
	}
	return xs
}

func sweep(scales map[float64]float64) []SweepRun {
	var runs []SweepRun
	// Deliberately not in rate order.
	for _, rate := range []float64{3, 1, 4, 2.5, 2} {
		if s, ok := scales[rate]; ok {
			runs = append(runs, SweepRun{Rate: rate, Samples: map[string][]float64{"ttft": ramp(s)}})
		}
	}
	return runs
}

func hasWarning(ws []error, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Error(), sub) {
			return true
		}
	}
	return false
}

func TestMaxRate(t *testing.T) {
	limit := []LatencyLimit{{Metric: "ttft", P: 0.99, Method: NearestRankFloor, Limit: 1}}
	o := MaxRateOptions{Limits: limit, Bootstrap: BootstrapOptions{Resamples: 2000}}

	// Bracketed: 1 and 2 pass, 2.5 is just over (p99 1.001, its interval
	// reaches below 1), 3 and 4 fail clearly.
	r := MaxRateUnderLimits(sweep(map[float64]float64{1: 0.5, 2: 0.8, 2.5: 1.001 / 0.9905, 3: 1.2, 4: 1.5}), o)
	if r.Status != RateBracketed || r.Rate != 2 || r.Above != 2.5 || r.NonMonotone {
		t.Errorf("bracketed: %+v", r)
	}
	if r.Lo != 2 || r.Hi != 2.5 {
		t.Errorf("bracketed: Lo %v Hi %v, want 2 and 2.5", r.Lo, r.Hi)
	}
	// Worst ratios 0.7924 at 2 and 1.001 at 2.5: crossing at 2 + 0.5*(0.2076/0.2086).
	if want := 2 + 0.5*(1-0.7924)/(1.001-0.7924); math.Abs(r.Interpolated-want) > 1e-9 {
		t.Errorf("interpolated %v, want %v", r.Interpolated, want)
	}
	if len(r.Runs) != 5 || r.Runs[0].Rate != 1 || r.Runs[4].Rate != 4 || r.Runs[2].Pass || !r.Runs[2].MayPass {
		t.Errorf("runs: %+v", r.Runs)
	}

	// Every run passes: a lower bound.
	r = MaxRateUnderLimits(sweep(map[float64]float64{1: 0.5, 2: 0.8}), o)
	if r.Status != RateLowerBound || r.Rate != 2 || !math.IsNaN(r.Above) || !hasWarning(r.Warnings, "lower bound") {
		t.Errorf("all pass: %+v", r)
	}

	// No run passes.
	r = MaxRateUnderLimits(sweep(map[float64]float64{1: 1.2, 2: 1.5}), o)
	if r.Status != RateNoneMet || !math.IsNaN(r.Rate) || r.Above != 1 || !math.IsNaN(r.Lo) || !hasWarning(r.Warnings, "below 1") {
		t.Errorf("none pass: %+v", r)
	}

	// Non-monotone: 1 passes, 2 fails, 3 passes, 4 fails.
	r = MaxRateUnderLimits(sweep(map[float64]float64{1: 0.5, 2: 1.2, 3: 0.9, 4: 1.5}), o)
	if r.Status != RateBracketed || r.Rate != 1 || r.Above != 2 || !r.NonMonotone || r.HighestPassing != 3 || !hasWarning(r.Warnings, "not monotone") {
		t.Errorf("non-monotone: %+v", r)
	}
}

func TestMaxRateTwoLimitsAndMissing(t *testing.T) {
	limits := []LatencyLimit{
		{Metric: "ttft", P: 0.99, Method: NearestRankFloor, Limit: 2},
		{Metric: "tpot", P: 0.99, Method: NearestRankFloor, Limit: 0.1},
	}
	runs := []SweepRun{
		{Rate: 1, Samples: map[string][]float64{"ttft": ramp(1), "tpot": ramp(0.05)}},
		{Rate: 2, Samples: map[string][]float64{"ttft": ramp(1.5), "tpot": ramp(0.2)}}, // TPOT fails
		{Rate: 3, Samples: map[string][]float64{"ttft": ramp(1.5)}},                    // no TPOT samples
	}
	r := MaxRateUnderLimits(runs, MaxRateOptions{Limits: limits, Bootstrap: BootstrapOptions{Resamples: 1000}})
	if r.Status != RateBracketed || r.Rate != 1 || r.Above != 2 || r.NonMonotone {
		t.Errorf("%+v", r)
	}
	if !hasWarning(r.Warnings, "rate 3: no tpot samples") || r.Runs[2].Pass || !math.IsNaN(r.Runs[2].Percentiles[1].Estimate) {
		t.Errorf("missing samples: %+v", r.Runs[2])
	}
	// TPOT's worst ratio dominates the interpolation: p99 0.049525/0.1 at
	// rate 1 and 0.1981/0.1 at rate 2 (TTFT's are 0.495 and 0.743).
	if want := 1 + (1-0.49525)/(1.981-0.49525); math.Abs(r.Interpolated-want) > 1e-9 {
		t.Errorf("interpolated %v, want %v", r.Interpolated, want)
	}
}

func TestMaxRateStrict(t *testing.T) {
	// Every latency equals the limit: LoadGen passes, the checker fails.
	flat := make([]float64, 1000)
	for i := range flat {
		flat[i] = 1
	}
	runs := []SweepRun{{Rate: 5, Samples: map[string][]float64{"e2e": flat}}}
	l := LatencyLimit{Metric: "e2e", P: 0.99, Method: NearestRankFloor, Limit: 1}
	o := MaxRateOptions{Limits: []LatencyLimit{l}, Bootstrap: BootstrapOptions{Resamples: 500}}
	if r := MaxRateUnderLimits(runs, o); r.Status != RateLowerBound {
		t.Errorf("inclusive: %+v", r)
	}
	o.Limits[0].Strict = true
	if r := MaxRateUnderLimits(runs, o); r.Status != RateNoneMet {
		t.Errorf("strict: %+v", r)
	}
}
