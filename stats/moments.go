package stats

import "math"

// Mean returns the arithmetic mean of xs, or NaN for an empty slice.
// It sums pairwise, as numpy does, so that long samples keep their
// precision and a tool's reported mean is reproduced to the last digits.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return pairwiseSum(xs) / float64(len(xs))
}

// StdDev returns the standard deviation of xs with ddof degrees of freedom
// removed: ddof 0 is the population convention (numpy.std, vLLM,
// GenAI-Perf, AIPerf), ddof 1 the sample convention (pandas, LLMPerf).
// It returns NaN when len(xs) <= ddof.
func StdDev(xs []float64, ddof int) float64 {
	n := len(xs)
	if n <= ddof {
		return math.NaN()
	}
	m := Mean(xs)
	// Two-pass: the sum of squared deviations from the mean, summed
	// pairwise like the mean itself.
	dev := make([]float64, 0, min(n, 1<<12))
	var total float64
	for i := 0; i < n; i += 1 << 12 {
		dev = dev[:0]
		for _, x := range xs[i:min(n, i+1<<12)] {
			d := x - m
			dev = append(dev, float64(d*d))
		}
		total += pairwiseSum(dev)
	}
	return math.Sqrt(total / float64(n-ddof))
}

// pairwiseSum adds xs the way numpy's add.reduce does for a contiguous
// float64 array (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum):
// eight interleaved accumulators for blocks of up to 128 values, recursive
// halving (at a multiple of 8) above that. Its error grows as O(log n), and
// following numpy's order reproduces a tool's reported mean to the bit in
// most cases.
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		var s float64
		for _, x := range xs {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += xs[i+0]
			r[1] += xs[i+1]
			r[2] += xs[i+2]
			r[3] += xs[i+3]
			r[4] += xs[i+4]
			r[5] += xs[i+5]
			r[6] += xs[i+6]
			r[7] += xs[i+7]
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += xs[i]
		}
		return s
	default:
		h := n / 2
		h -= h % 8
		return pairwiseSum(xs[:h]) + pairwiseSum(xs[h:])
	}
}
