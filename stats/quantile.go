package stats

import (
	"fmt"
	"math"
)

// A Method names how a percentile is read off a sorted sample. Tools differ,
// and the same data give different answers, so every stored percentile
// records its Method.
type Method string

const (
	// Linear interpolates between the two closest ranks: h = (n-1)p,
	// x[floor(h)] + (h-floor(h))(x[floor(h)+1]-x[floor(h)]). It is
	// Hyndman-Fan type 7, numpy's default and Excel PERCENTILE.INC; vLLM,
	// GenAI-Perf, AIPerf and LLMPerf (pandas) use it.
	Linear Method = "linear"
	// NearestRankFloor is MLPerf LoadGen's x[floor(n*p)] (0-based, the
	// product computed in float64 and truncated; the index is clamped to
	// n-1).
	NearestRankFloor Method = "nearest_rank_floor"
	// NearestRankCumulative is GuideLLM's: the first value whose cumulative
	// probability (i+1)/n reaches p. It is Hyndman-Fan type 1, the inverse
	// of the empirical CDF.
	NearestRankCumulative Method = "nearest_rank_cumulative"
)

// Quantile returns the p-quantile (0 <= p <= 1) of sorted, read with method
// m. sorted must be in ascending order and contain no NaN; Quantile panics
// on an empty sample, on p outside [0, 1] or on an unknown method, which
// are programmer errors.
func Quantile(sorted []float64, p float64, m Method) float64 {
	n := len(sorted)
	if n == 0 {
		panic("stats: Quantile of an empty sample")
	}
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("stats: Quantile with p=%v outside [0, 1]", p))
	}
	switch m {
	case Linear:
		h := p * float64(n-1)
		lo := math.Floor(h)
		i := int(lo)
		if i+1 >= n {
			return sorted[n-1]
		}
		frac := h - lo
		// Written as numpy writes it (lerp), with explicit float64
		// conversions so that no fused multiply-add changes the last bit.
		d := float64(sorted[i+1] - sorted[i])
		return sorted[i] + float64(frac*d)
	case NearestRankFloor:
		i := int(float64(n) * p)
		if i >= n {
			i = n - 1
		}
		return sorted[i]
	case NearestRankCumulative:
		// Smallest i with (i+1)/n >= p, i.e. i = ceil(n*p) - 1.
		i := int(math.Ceil(float64(n)*p)) - 1
		if i < 0 {
			i = 0
		}
		if i >= n {
			i = n - 1
		}
		return sorted[i]
	}
	panic(fmt.Sprintf("stats: unknown quantile method %q", m))
}

// Median is Quantile(sorted, 0.5, Linear): the mean of the two middle values
// for an even count, as numpy.median computes it.
func Median(sorted []float64) float64 { return Quantile(sorted, 0.5, Linear) }
