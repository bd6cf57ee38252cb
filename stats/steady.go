package stats

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Steady state. A run's percentiles describe the server's steady state
// only if the run reached one: a warm-up transient at the start (cold
// caches, graph capture, a queue filling up) or a latency that keeps
// rising (the server cannot keep up with the offered rate) makes them
// depend on how long the run was.

// MSER is the result of the MSER truncation rule.
type MSER struct {
	// Batch is the batch size (5 for MSER-5) and Batches the number of
	// complete batches; the n mod Batch values at the end are not used.
	Batch, Batches int
	// Drop is the number of batches to drop from the start, and Truncate
	// = Drop*Batch the number of values.
	Drop, Truncate int
	// Statistic holds MSER(d) for d = 0..Batches-2.
	Statistic []float64
	// Steady reports that the minimum over the first half lies before the
	// half. A minimum on the half means MSER was still falling there: the
	// transient has not ended within the first half of the run, so the
	// run is too short or never settles.
	Steady bool
}

// MSER5 is MSERBatch(xs, 5), White's MSER-5.
func MSER5(xs []float64) MSER { return MSERBatch(xs, 5) }

// MSERBatch applies the marginal standard error rule (White, "An
// effective truncation heuristic for bias reduction in simulation output",
// Simulation 69(6), 1997; MSER-5 in White, Cobb and Spratt, "A comparison
// of five steady-state truncation heuristics", WSC 2000) to the series xs
// in time order. The values are averaged in batches of batch; with Z_1..Z_b
// the batch means, the rule drops the first d* batches, where d* minimises
//
//	MSER(d) = 1/(b-d)^2 sum_{j=d+1..b} (Z_j - mean(Z_{d+1..b}))^2
//
// (the first minimum on ties). MSER(d) is the squared standard error of
// the truncated mean times (b-d-1)/(b-d): it falls while dropping biased
// early batches and rises once dropping costs more precision than it
// removes bias. The minimum is searched over the first half, d = 0..b/2,
// as is usual since Franklin and White ("Stationarity tests and MSER-5",
// WSC 2008): near the end MSER(d) rests on a few batches and is often tiny
// by chance (with two batches left, for a stationary series of 50 batches,
// in about a fifth of runs), so a minimum there says nothing. A minimum on
// the half itself means no steady state was found. A series with fewer
// than four batches gives Drop 0 and Steady false. MSERBatch panics if
// batch < 1.
func MSERBatch(xs []float64, batch int) MSER {
	if batch < 1 {
		panic(fmt.Sprintf("stats: MSER batch %d", batch))
	}
	b := len(xs) / batch
	m := MSER{Batch: batch, Batches: b}
	if b < 4 {
		return m
	}
	z := make([]float64, b)
	for j := range z {
		z[j] = Mean(xs[j*batch : (j+1)*batch])
	}
	// Suffix sums give every MSER(d) in O(1); the batch means are first
	// shifted by their overall mean so that the sum of squares about the
	// suffix mean does not cancel catastrophically.
	shift := Mean(z)
	m.Statistic = make([]float64, b-1)
	var s1, s2 float64
	for d := b - 1; d >= 0; d-- {
		v := z[d] - shift
		s1 += v
		s2 += v * v
		if d <= b-2 {
			k := float64(b - d)
			m.Statistic[d] = max(0, s2-s1*s1/k) / (k * k)
		}
	}
	best := math.Inf(1)
	for d, v := range m.Statistic[:b/2+1] {
		if v < best {
			best, m.Drop = v, d
		}
	}
	m.Truncate = m.Drop * batch
	m.Steady = m.Drop < b/2
	return m
}

// A Trend is the least-squares line of y against x and GuideLLM's test of
// its slope (guidellm scheduler/constraints/saturation.py, SlopeChecker):
// the slope is significantly positive when it is positive and its relative
// margin of error, t(1-alpha/2, n-2) times the slope's standard error over
// the slope, is below a threshold (GuideLLM's over-saturation detector
// uses 2 at 95%).
type Trend struct {
	// N is the number of points and EffectiveN the sample size the test
	// assumes (GuideLLM caps it at the number of seconds spanned, since
	// requests of one second are highly correlated).
	N          int
	EffectiveN float64
	// Slope and Intercept are the least-squares line; StdErr is the
	// slope's standard error with EffectiveN-2 degrees of freedom.
	Slope, Intercept, StdErr float64
	// MarginOfError is t * StdErr / Slope, the half-width of the slope's
	// interval relative to the slope (GuideLLM's margin_of_error; it is
	// computed with a slope floor of 1e-12, as GuideLLM does).
	MarginOfError float64
	// Rising reports Slope > 0 and MarginOfError below the threshold.
	Rising bool
}

// guidellmEps is GuideLLM's floor for the slope and for the x sum of
// squares.
const guidellmEps = 1e-12

// SlopeTest fits y = a + b x by least squares and tests the slope as
// GuideLLM's SlopeChecker.check_slope does, with effectiveN in place of
// the number of points (pass len(x) for none) and GuideLLM's
// approximation of the t quantile ([ApproxTQuantile]). GuideLLM keeps
// running sums; SlopeTest centres first, which is the same arithmetic
// without the cancellation that running sums of Unix timestamps suffer.
// With effectiveN below 3 the test does not apply (Rising false, NaN
// fields). SlopeTest panics if x and y differ in length.
func SlopeTest(x, y []float64, effectiveN, confidence, moeThreshold float64) Trend {
	if len(x) != len(y) {
		panic(fmt.Sprintf("stats: SlopeTest of %d x and %d y", len(x), len(y)))
	}
	tr := Trend{N: len(x), EffectiveN: effectiveN, Slope: math.NaN(), Intercept: math.NaN(),
		StdErr: math.NaN(), MarginOfError: math.NaN()}
	if effectiveN < 3 || len(x) < 2 {
		return tr
	}
	mx, my := Mean(x), Mean(y)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	sxx = max(sxx, guidellmEps)
	tr.Slope = sxy / sxx
	tr.Intercept = my - tr.Slope*mx
	rss := max(syy-sxy*sxy/sxx, 0)
	dof := effectiveN - 2
	tr.StdErr = math.Sqrt(rss / dof / sxx)
	t := ApproxTQuantile(1-(1-confidence)/2, dof)
	tr.MarginOfError = t * tr.StdErr / max(tr.Slope, guidellmEps)
	tr.Rising = tr.Slope > 0 && tr.MarginOfError < moeThreshold
	return tr
}

// ApproxTQuantile is GuideLLM's approximation of Student's t quantile
// (approx_t_ppf): the normal quantile by Abramowitz and Stegun 26.2.23
// (error below 4.5e-4), corrected for df degrees of freedom by two terms
// of the Cornish-Fisher expansion (A&S 26.7.5). GuideLLM's second term is
// (5z^4 + 16z^3 + 3z^2)/96 where A&S has (5z^5 + 16z^3 + 3z)/96; it is
// reproduced as GuideLLM writes it, so that the over-saturation test
// decides as GuideLLM does (the approximation is therefore not symmetric
// in p). For p = 0.975 it gives 2.2192 at df = 10 (exact 2.2281) and 2.9899
// at df = 3 (exact 3.1824). It is NaN for df <= 0.
func ApproxTQuantile(p, df float64) float64 {
	if df <= 0 {
		return math.NaN()
	}
	c := [3]float64{2.515517, 0.802853, 0.010328}
	d := [3]float64{1.432788, 0.189269, 0.001308}
	var z float64
	if p < 0.5 {
		t := math.Sqrt(-2 * math.Log(p))
		z = -(t - ((c[2]*t+c[1])*t+c[0])/(((d[2]*t+d[1])*t+d[0])*t+1))
	} else {
		t := math.Sqrt(-2 * math.Log(1-p))
		z = t - ((c[2]*t+c[1])*t+c[0])/(((d[2]*t+d[1])*t+d[0])*t+1)
	}
	z2 := z * z
	z3 := z2 * z
	z4 := z3 * z
	g1 := (z3 + z) / 4
	g2 := (5*z4 + 16*z3 + 3*z2) / 96
	return z + g1/df + g2/(df*df)
}

// InFlight returns, for each request i, the number of requests in flight
// at its start (its own included): those started at or before start[i]
// and not yet ended, end > start[i]. This is the concurrency GuideLLM's
// over-saturation detector follows (the scheduler's processing count when
// a request starts). A request with a NaN start gets NaN; one with a NaN
// end counts as never ending. InFlight is O(n log n) and panics if the
// slices differ in length.
func InFlight(start, end []float64) []float64 {
	if len(start) != len(end) {
		panic(fmt.Sprintf("stats: InFlight of %d starts and %d ends", len(start), len(end)))
	}
	var ss, es []float64
	for i := range start {
		if !math.IsNaN(start[i]) {
			ss = append(ss, start[i])
			e := end[i]
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
			es = append(es, e)
		}
	}
	slices.Sort(ss)
	slices.Sort(es)
	out := make([]float64, len(start))
	for i, s := range start {
		if math.IsNaN(s) {
			out[i] = math.NaN()
			continue
		}
		started := countAtMost(ss, s)
		ended := countAtMost(es, s)
		out[i] = float64(started - ended)
	}
	return out
}

// countAtMost returns the number of values of sorted that are <= v.
func countAtMost(sorted []float64, v float64) int {
	return sort.Search(len(sorted), func(i int) bool { return sorted[i] > v })
}
