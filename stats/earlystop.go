package stats

import (
	"fmt"
	"math"
)

// MLPerf LoadGen early stopping (loadgen/early_stopping.cc and
// PerformanceSummary::EarlyStopping in loadgen/results.cc; the rules'
// appendix "Early Stopping Criterion").
//
// With t queries over the latency target, h(t, p) is the fewest queries
// under it such that, were the true p-quantile latency at the target, a run
// of h+t queries would have at most t over it with probability below
// 1 - c = 1%:
//
//	P[Binomial(h+t, 1-p) <= t] < 0.01      (strict, LoadGen's find_min_passing)
//
// LoadGen evaluates the binomial tail as a regularized incomplete beta
// through a hypergeometric series; here it is summed exactly in log space,
// logsumexp over x = 0..t of ln C(h+t, x) + x ln(1-p) + (h+t-x) ln p, with
// ln C from math.Lgamma. LoadGen's tolerance d is 0 and c is 0.99 in every
// released version; they are fixed here.

// earlyStoppingLogAlpha is ln(1 - c) for LoadGen's confidence c = 0.99.
var earlyStoppingLogAlpha = math.Log(1 - 0.99)

// logBinomCDF returns ln P[Binomial(n, 1-p) <= t], summing the terms in
// log space with a running maximum (a streaming logsumexp).
func logBinomCDF(n, t int, p float64) float64 {
	if t >= n {
		return 0
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	ln1, _ := math.Lgamma(float64(n) + 1)
	peak, sum := math.Inf(-1), 0.0
	for x := 0; x <= t; x++ {
		lx, _ := math.Lgamma(float64(x) + 1)
		lnx, _ := math.Lgamma(float64(n-x) + 1)
		v := ln1 - lx - lnx + float64(x)*lq + float64(n-x)*lp
		if v > peak {
			sum = sum*math.Exp(peak-v) + 1
			peak = v
		} else {
			sum += math.Exp(v - peak)
		}
	}
	return peak + math.Log(sum)
}

// earlyStoppingPasses reports whether q queries with t over the target
// meet the criterion, which is q >= h(t, p) + t: P[Bin(q, 1-p) <= t] falls
// as q grows, so q passes exactly when q - t under-latency queries are at
// least the fewest that pass.
func earlyStoppingPasses(q, t int, p float64) bool {
	return logBinomCDF(q, t, p) < earlyStoppingLogAlpha
}

func checkEarlyStoppingP(p float64) {
	if !(p > 0 && p < 1) {
		panic(fmt.Sprintf("stats: early stopping percentile %v outside (0, 1)", p))
	}
}

// EarlyStoppingH returns LoadGen's h(t, p): with t over-latency queries,
// the fewest under-latency queries for early stopping to accept that the
// p-quantile latency is under the target (confidence 0.99). h(0, 0.99) is
// 459, h(1, 0.9) is 63, h(1, 0.99) is 661. It panics if t < 0 or p is
// outside (0, 1).
func EarlyStoppingH(t int, p float64) int {
	checkEarlyStoppingP(p)
	if t < 0 {
		panic(fmt.Sprintf("stats: EarlyStoppingH with t=%d", t))
	}
	// LoadGen starts its search from h(0) = ceil(log(1-c)/log(p)); any
	// passing h brackets the answer, so grow from there.
	hi := max(1, int(math.Ceil(earlyStoppingLogAlpha/math.Log(p))))
	for !earlyStoppingPasses(hi+t, t, p) {
		hi *= 2
	}
	lo := 0 // h = 0 never passes: P[Bin(t, .) <= t] = 1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if earlyStoppingPasses(mid+t, t, p) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// EarlyStoppingMaxOverLatency returns the most over-latency queries a
// server run of q queries may have and still pass early stopping at
// percentile p: the largest t with h(t, p) + t <= q, or -1 if even t = 0
// needs more than q queries. For p = 0.99: 459 queries allow 0, 662 allow
// 1, 1000 allow 2 and 10,000 allow 77. It panics if q < 0 or p is outside
// (0, 1).
func EarlyStoppingMaxOverLatency(q int, p float64) int {
	checkEarlyStoppingP(p)
	if q < 0 {
		panic(fmt.Sprintf("stats: EarlyStoppingMaxOverLatency with q=%d", q))
	}
	if !earlyStoppingPasses(q, 0, p) {
		return -1
	}
	// The binomial CDF grows with t, so the passing t form a prefix; t
	// cannot reach the mean q(1-p), where the CDF is about one half.
	lo, hi := 0, int(math.Ceil(float64(q)*(1-p)))+1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if earlyStoppingPasses(q, mid, p) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// An EarlyStoppingEstimate is LoadGen's early-stopping percentile estimate
// for the SingleStream and MultiStream scenarios (results.cc, MultiStream
// on query latencies).
type EarlyStoppingEstimate struct {
	// P is the percentile, 0.9 for SingleStream and 0.99 for MultiStream.
	P float64
	// Queries is the number of queries q (the sample size).
	Queries int
	// MinQueries is h(1, p) + 1, the fewest queries early stopping needs:
	// 64 for p90, 662 for p99.
	MinQueries int
	// Met is false when Queries < MinQueries; LoadGen then reports "Only
	// processed q queries. Need to process at least MinQueries queries for
	// early stopping." and the fields below are zero or NaN.
	Met bool
	// T is the largest t >= 1 with h(t, p) + t <= q.
	T int
	// Index is q - T, the 0-based position of the estimate in the sorted
	// latencies.
	Index int
	// Discarded is T - 1, LoadGen's "Would discard N highest latency
	// queries".
	Discarded int
	// Estimate is sorted[q - T], LoadGen's "Early stopping Nth percentile
	// estimate".
	Estimate float64
}

// EarlyStoppingPercentile computes LoadGen's early-stopping estimate of the
// p-quantile of sorted latencies, which must be in ascending order (as for
// Quantile). With 100 latencies 1..100 and p = 0.9, T is 3 and the
// estimate is sorted[97] = 98, where the plain percentile
// Quantile(sorted, 0.9, NearestRankFloor) is sorted[90] = 91. It panics if
// p is outside (0, 1).
func EarlyStoppingPercentile(sorted []float64, p float64) EarlyStoppingEstimate {
	checkEarlyStoppingP(p)
	q := len(sorted)
	e := EarlyStoppingEstimate{P: p, Queries: q, MinQueries: EarlyStoppingH(1, p) + 1, Estimate: math.NaN()}
	if q < e.MinQueries {
		return e
	}
	e.Met = true
	// LoadGen increments t while h(t+1, p) + t + 1 <= q; the passing t
	// form a prefix, so the largest is found by bisection.
	e.T = EarlyStoppingMaxOverLatency(q, p)
	e.Index = q - e.T
	e.Discarded = e.T - 1
	e.Estimate = sorted[e.Index]
	return e
}

// An EarlyStoppingServerCheck is LoadGen's early-stopping verdict on one
// latency array of a Server run (results.cc): sample latencies against
// target_latency, or in token mode TPOT against server_tpot_latency and
// TTFT against server_ttft_latency, at p = target_latency_percentile.
type EarlyStoppingServerCheck struct {
	// P is the percentile and Target the latency bound.
	P, Target float64
	// Queries is q and OverLatency the number t of latencies strictly
	// above Target.
	Queries, OverLatency int
	// Needed is h(t, p) + t, the queries the run needed.
	Needed int
	// Met reports Queries >= Needed: LoadGen's "Run successful."
	Met bool
	// MoreQueries is Needed - Queries when the run failed: LoadGen's
	// "Would need to run at least N more queries, with the run being
	// successful if every additional query were under latency."
	MoreQueries int
}

// EarlyStoppingServer applies LoadGen's Server-scenario early-stopping
// check to latencies (any order). With 1,000 queries at p = 0.99, three
// over the target fail (h(3) = 998, so 1,001 are needed: one more query);
// two pass. It panics if p is outside (0, 1).
//
// LoadGen's separate PerfConstraintsMet check compares the plain
// percentile Quantile(sorted, p, NearestRankFloor) with the target and
// fails only if it is greater; the submission checker fails unless it is
// strictly less.
func EarlyStoppingServer(latencies []float64, target, p float64) EarlyStoppingServerCheck {
	checkEarlyStoppingP(p)
	c := EarlyStoppingServerCheck{P: p, Target: target, Queries: len(latencies)}
	for _, l := range latencies {
		if l > target {
			c.OverLatency++
		}
	}
	c.Needed = EarlyStoppingH(c.OverLatency, p) + c.OverLatency
	c.Met = c.Queries >= c.Needed
	if !c.Met {
		c.MoreQueries = c.Needed - c.Queries
	}
	return c
}
