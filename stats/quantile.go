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
	//
	// The arithmetic follows numpy's _lerp to the bit: for a fraction
	// t >= 0.5 numpy interpolates down from the upper value,
	// x[i+1] - (1-t)(x[i+1]-x[i]), which can differ from the upward form in
	// the last bit.
	Linear Method = "linear"
	// NearestRankFloor is MLPerf LoadGen's x[floor(n*p)] (0-based, the
	// product computed in float64 and truncated; the index is clamped to
	// n-1).
	NearestRankFloor Method = "nearest_rank_floor"
	// NearestRankCumulative is GuideLLM's: the first value whose cumulative
	// probability reaches p. It is Hyndman-Fan type 1, the inverse of the
	// empirical CDF, computed the way GuideLLM computes it (see Quantile):
	// equal values are merged, each distinct value gets probability
	// count/n, and the probabilities are added one at a time in float64
	// (numpy.cumsum). Where n*p is a whole number the rounding of that sum
	// decides the answer: for the ten values 10, 20, ..., 100 the sum after
	// nine values is 0.8999999999999999 < 0.9, so p90 is 100, not 90.
	//
	// This is GuideLLM from v0.4 (schemas/statistics.py, from_values with
	// np.unique); v0.2-v0.3 do not merge, see NearestRankCumulativeUnmerged.
	NearestRankCumulative Method = "nearest_rank_cumulative"
	// NearestRankCumulativeUnmerged is GuideLLM v0.2-v0.3's
	// (objects/statistics.py, from_distribution_function): every value
	// keeps its own probability weight/sum(weights), 1/n for unit weights,
	// even when it equals its neighbour; cdf = numpy.cumsum of those in
	// sorted order, and percentile p is the value at argmax(cdf >= p). The
	// answer is x[i] for the first i whose float64 sum of i+1 copies of 1/n
	// reaches p: it depends on n and p alone, never on ties, so nine 128s
	// and one 200 have p90 200 (the ninth sum is 0.8999999999999999 < 0.9),
	// where merging the 128s into one probability of 0.9 gives 128. (When
	// every sum stays below p, possible only for p within rounding of 1,
	// numpy's argmax would return the smallest value; Quantile returns the
	// largest.)
	NearestRankCumulativeUnmerged Method = "nearest_rank_cumulative_unmerged"
	// LocustBuckets is Locust's: each value (a response time in
	// milliseconds) is first rounded into its bucket (see LocustRound), then
	// the buckets are walked from the top until n - processed <= int(n*p).
	// That walk lands on the bucket of x[int(n*p)] (clamped to n-1), which
	// is how Quantile computes it; the values must be in milliseconds for
	// the bucket edges (100, 1000, 10000) to mean what Locust means:
	// QuantileScaled converts values held in another unit (seconds) to
	// milliseconds before rounding and back after.
	LocustBuckets Method = "locust_buckets"
	// Lower is numpy.percentile(x, P, method="lower"): x[floor((n-1)p)],
	// the observed value at or below linear's interpolation point, never an
	// interpolated one. MLPerf Endpoints reads its final percentiles this
	// way (docs/formats/mlperf-endpoints.md).
	Lower Method = "lower"
)

// Quantile returns the p-quantile (0 <= p <= 1) of sorted, read with method
// m. sorted must be in ascending order and contain no NaN; Quantile panics
// on an empty sample, on p outside [0, 1] or on an unknown method, which
// are programmer errors.
//
// Callers reproducing numpy.percentile(x, P) should pass P/100 computed in
// float64, as numpy itself divides.
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
		return lerp(sorted[i], sorted[i+1], h-lo)
	case NearestRankFloor:
		return sorted[floorRank(n, p)]
	case NearestRankCumulative:
		return cumulativeQuantile(sorted, p)
	case NearestRankCumulativeUnmerged:
		return sorted[cumulativeRank(n, p)]
	case LocustBuckets:
		return LocustRound(sorted[floorRank(n, p)])
	case Lower:
		return sorted[lowerRank(n, p)]
	}
	panic(fmt.Sprintf("stats: unknown quantile method %q", m))
}

// QuantileScaled is Quantile for values stored in a unit of which one is
// msPerUnit milliseconds (1000 for seconds; 1 for milliseconds). Only
// LocustBuckets depends on the unit: Locust's buckets are defined on
// milliseconds, so the value it reads is converted to milliseconds, rounded
// into its bucket and converted back. Every other method ignores msPerUnit.
// It panics when msPerUnit is not positive.
func QuantileScaled(sorted []float64, p float64, m Method, msPerUnit float64) float64 {
	if m != LocustBuckets {
		return Quantile(sorted, p, m)
	}
	checkScale(msPerUnit)
	_ = Quantile(sorted, p, NearestRankFloor) // the same checks
	return locustScaled(sorted[floorRank(len(sorted), p)], msPerUnit)
}

// locustScaled rounds a value held in a unit of msPerUnit milliseconds
// into its Locust bucket.
func locustScaled(v, msPerUnit float64) float64 {
	if msPerUnit == 1 {
		return LocustRound(v)
	}
	return LocustRound(v*msPerUnit) / msPerUnit
}

func checkScale(msPerUnit float64) {
	if !(msPerUnit > 0) || math.IsInf(msPerUnit, 0) {
		panic(fmt.Sprintf("stats: %v milliseconds per unit", msPerUnit))
	}
}

// lowerRank is numpy's index for method="lower": floor of the same
// virtual index h = (n-1)p that linear interpolates at.
func lowerRank(n int, p float64) int {
	return min(int(math.Floor(p*float64(n-1))), n-1)
}

// Median is Quantile(sorted, 0.5, Linear): the mean of the two middle values
// for an even count, as numpy.median computes it.
func Median(sorted []float64) float64 { return Quantile(sorted, 0.5, Linear) }

// lerp interpolates between a and b by t the way numpy's _lerp does,
// including its switch to the downward form at t >= 0.5, with explicit
// float64 conversions so that no fused multiply-add changes the last bit.
func lerp(a, b, t float64) float64 {
	d := float64(b - a)
	if t >= 0.5 {
		return b - float64(d*float64(1-t))
	}
	return a + float64(t*d)
}

// floorRank is LoadGen's (and Locust's) index int(n*p), clamped to n-1.
func floorRank(n int, p float64) int {
	i := int(float64(n) * p)
	if i >= n {
		i = n - 1
	}
	return i
}

// cumulativeQuantile is GuideLLM's Percentiles.from_pdf after
// DistributionSummary.from_values with unit weights: np.unique merges equal
// values, probabilities are count/n (n is np.sum of the unit weights, exact),
// cdf = np.cumsum(probabilities) adds them left to right, and the answer is
// the value at np.searchsorted(cdf, p, side="left"), the first index with
// cdf >= p. If rounding leaves every cdf entry below p (only possible for p
// close to 1), GuideLLM would index past the end; the largest value is
// returned instead.
func cumulativeQuantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	fn := float64(n)
	var cum float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		cum += float64(j-i) / fn
		if cum >= p {
			return sorted[i]
		}
		i = j
	}
	return sorted[n-1]
}

// cumulativeRank is the index cumulativeQuantile returns for a sample of n
// distinct values: the first i whose float64 running sum of i+1 copies of
// 1/n reaches p. It is NearestRankCumulativeUnmerged's index for any
// sample (numpy.cumsum adds in order, and weight/sum of unit weights is
// exactly 1/n), and the bootstrap uses it for resamples (see Bootstrap).
func cumulativeRank(n int, p float64) int {
	step := 1 / float64(n)
	var cum float64
	for i := range n {
		cum += step
		if cum >= p {
			return i
		}
	}
	return n - 1
}

// LocustRound rounds a response time in milliseconds to the key Locust
// stores it under (locust/stats.py StatsEntry._log_response_time): below
// 100 to a whole millisecond, below 1000 to 10, below 10000 to 100, and
// above that to 1000. Python's round rounds halves to even on the exact
// binary value, so 145 becomes 140, 155 becomes 160, 99.5 becomes 100 and
// 1050 becomes 1000; LocustRound does the same. NaN and infinities are
// returned unchanged.
func LocustRound(ms float64) float64 {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return ms
	}
	switch {
	case ms < 100:
		return math.RoundToEven(ms)
	case ms < 1000:
		return roundToMultiple(ms, 10)
	case ms < 10000:
		return roundToMultiple(ms, 100)
	}
	return roundToMultiple(ms, 1000)
}

// roundToMultiple rounds x >= 2m to the nearest multiple of m, halves to the
// even multiple, deciding ties on the exact value of x (as Python's
// round(x, -k) does) rather than on the rounded quotient x/m, which can
// land exactly on a half when x is not.
func roundToMultiple(x, m float64) float64 {
	k := math.Floor(x / m)
	lo := k * m
	for lo > x {
		k--
		lo = k * m
	}
	for lo+m <= x {
		k++
		lo = k * m
	}
	// Both differences are exact (Sterbenz), since lo and lo+m lie within
	// a factor of two of x.
	below, above := x-lo, (lo+m)-x
	switch {
	case below < above:
		return lo
	case below > above:
		return lo + m
	case math.Mod(k, 2) == 0:
		return lo
	}
	return lo + m
}

// QuantileRanks returns the 0-based ranks of the order statistics that
// Quantile reads for a sample of n values, so that a caller holding the
// sample outside memory (see internal/spill) can select just those and
// finish with QuantileFromRanks. ok is false for NearestRankCumulative,
// whose answer depends on ties and so on the whole sample.
// NearestRankCumulativeUnmerged depends on n and p alone and is supported.
func QuantileRanks(n int, p float64, m Method) (ranks []int, ok bool) {
	switch m {
	case Linear:
		i := int(math.Floor(p * float64(n-1)))
		if i+1 >= n {
			return []int{n - 1}, true
		}
		return []int{i, i + 1}, true
	case NearestRankFloor, LocustBuckets:
		return []int{floorRank(n, p)}, true
	case NearestRankCumulativeUnmerged:
		return []int{cumulativeRank(n, p)}, true
	case Lower:
		return []int{lowerRank(n, p)}, true
	}
	return nil, false
}

// QuantileFromRanks evaluates method m from the order statistics vals at
// the ranks QuantileRanks(n, p, m) returned; it gives exactly what
// Quantile gives on the whole sorted sample.
func QuantileFromRanks(n int, p float64, m Method, vals []float64) float64 {
	return QuantileFromRanksScaled(n, p, m, 1, vals)
}

// QuantileFromRanksScaled is QuantileFromRanks for values stored in a unit
// of msPerUnit milliseconds, as QuantileScaled.
func QuantileFromRanksScaled(n int, p float64, m Method, msPerUnit float64, vals []float64) float64 {
	switch m {
	case Linear:
		if len(vals) == 1 {
			return vals[0]
		}
		h := p * float64(n-1)
		return lerp(vals[0], vals[1], h-math.Floor(h))
	case NearestRankFloor, NearestRankCumulativeUnmerged, Lower:
		return vals[0]
	case LocustBuckets:
		checkScale(msPerUnit)
		return locustScaled(vals[0], msPerUnit)
	}
	panic(fmt.Sprintf("stats: QuantileFromRanks does not support %q", m))
}
