package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BootstrapRatio returns the ratio of sums Σnum/Σden over paired
// per-request values, with its bootstrap interval: requests are resampled
// as pairs. It is the shape of a throughput whose denominator is itself
// measured per request, such as decode speed over a run (Σ output tokens /
// Σ decode seconds) or tokens per request-second (Σ tokens / Σ e2e
// latency); the ratio of sums weights long requests by their length,
// unlike the mean of per-request ratios. (A rate over a fixed wall-clock
// duration, Σ tokens / duration, is a scaled mean; bootstrap it with
// MeanStatistic and scale.) The jackknife for BCa is exact in O(n): the
// leave-one-out ratio is (Σnum - num_i)/(Σden - den_i).
//
// Each replicate costs O(n). An empty sample or one holding NaN gives NaN
// bounds and a warning. BootstrapRatio panics if the slices differ in
// length or the options are invalid.
func BootstrapRatio(num, den []float64, o BootstrapOptions) Interval {
	o = o.withDefaults()
	if len(num) != len(den) {
		panic(fmt.Sprintf("stats: BootstrapRatio of %d numerators and %d denominators", len(num), len(den)))
	}
	n := len(num)
	iv := Interval{
		Statistic: "ratio", Confidence: o.Confidence, Method: o.Method,
		N: n, Resamples: o.Resamples, Seed: o.Seed,
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(),
		Z0: math.NaN(), Acceleration: math.NaN(),
	}
	for i := range num {
		if math.IsNaN(num[i]) || math.IsNaN(den[i]) {
			iv.Warnings = append(iv.Warnings, fmt.Errorf("ratio: sample holds NaN; no interval"))
			return iv
		}
	}
	if n == 0 {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("ratio: empty sample; no interval"))
		return iv
	}
	sn, sd := pairwiseSum(num), pairwiseSum(den)
	iv.Estimate = sn / sd
	reps := runReplicates(o.Resamples, 1, o.Seed, o.Workers, func() replicator {
		return func(r *rand.Rand, dst []float64) {
			var a, b float64
			for range n {
				i := r.IntN(n)
				a += num[i]
				b += den[i]
			}
			dst[0] = a / b
		}
	})
	var accel func() float64
	if o.Method == BCa {
		accel = func() float64 {
			j := make(jackknife, n)
			for i := range n {
				j[i] = weighted{(sn - num[i]) / (sd - den[i]), 1}
			}
			return j.acceleration()
		}
	}
	finishInterval(&iv, reps, o, accel)
	if n < minSamples {
		iv.Warnings = append([]error{fmt.Errorf("ratio: bootstrap interval from %d samples; below %d its coverage is unreliable", n, minSamples)}, iv.Warnings...)
	}
	return iv
}
