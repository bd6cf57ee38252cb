package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// An IntervalMethod names how a bootstrap confidence interval is read off
// the bootstrap distribution.
type IntervalMethod string

const (
	// BCa is Efron's bias-corrected and accelerated interval (Efron and
	// Tibshirani, An Introduction to the Bootstrap, 14.3): the percentiles
	// of the bootstrap distribution are shifted by the bias z0 (the
	// normal quantile of the share of replicates below the estimate,
	// counting ties as half, as scipy does) and the acceleration a (the
	// skewness of the jackknife values). It is second-order accurate and
	// the default.
	BCa IntervalMethod = "bca"
	// Percentile takes the (1-c)/2 and (1+c)/2 quantiles of the bootstrap
	// distribution, read with Linear interpolation (as scipy does).
	Percentile IntervalMethod = "percentile"
)

// BootstrapOptions configure [Bootstrap] and the functions built on it.
// A zero field takes its value from [DefaultBootstrap], except Seed, for
// which zero is a seed like any other.
type BootstrapOptions struct {
	// Method is BCa or Percentile.
	Method IntervalMethod
	// Confidence is the two-sided coverage, strictly between 0 and 1.
	Confidence float64
	// Resamples is the number of bootstrap replicates.
	Resamples int
	// Seed fixes the random numbers. The same data, statistic, options and
	// Seed give a bit-identical result for any Workers or GOMAXPROCS (on a
	// given architecture): replicate b is drawn from the PCG stream
	// rand.NewPCG(Seed, b/128), each block of 128 replicates from its own
	// stream, whichever goroutine runs it. Record the seed with the result;
	// a seed derived from a hash of the data is a good default.
	Seed uint64
	// Workers bounds the goroutines drawing replicates; zero means
	// runtime.GOMAXPROCS(0). It changes only the speed.
	Workers int
	// JackknifeGroups matters only for BCa with a custom Statistic: on a
	// sample larger than this the acceleration comes from a delete-a-group
	// jackknife with this many groups (a random partition fixed by Seed)
	// instead of n leave-one-out evaluations, which would cost n
	// evaluations of O(n) each. The acceleration is a skewness ratio,
	// a = κ3/(6 σ³ sqrt(n)) for a smooth statistic, and the group sums'
	// cumulants add up to the same ratio, so the grouped estimate is
	// consistent (the formula is the same, with n_j the number of groups).
	// Its standard error is about 1/(sqrt(6) G) in absolute terms, 4e-4
	// for 1000 groups, which moves BCa's levels by well under 1%.
	JackknifeGroups int
}

// DefaultBootstrap is a 95% BCa interval from 10,000 replicates, which puts
// about 250 replicates beyond each end of the interval.
var DefaultBootstrap = BootstrapOptions{
	Method:          BCa,
	Confidence:      0.95,
	Resamples:       10000,
	Seed:            0,
	JackknifeGroups: 1000,
}

// withDefaults fills zero fields and panics on invalid values.
func (o BootstrapOptions) withDefaults() BootstrapOptions {
	if o.Method == "" {
		o.Method = DefaultBootstrap.Method
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultBootstrap.Confidence
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultBootstrap.Resamples
	}
	if o.JackknifeGroups == 0 {
		o.JackknifeGroups = DefaultBootstrap.JackknifeGroups
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Method != BCa && o.Method != Percentile:
		panic(fmt.Sprintf("stats: unknown interval method %q", o.Method))
	case !(o.Confidence > 0 && o.Confidence < 1):
		panic(fmt.Sprintf("stats: confidence %v outside (0, 1)", o.Confidence))
	case o.Resamples < 2:
		panic(fmt.Sprintf("stats: %d resamples", o.Resamples))
	case o.JackknifeGroups < 2:
		panic(fmt.Sprintf("stats: %d jackknife groups", o.JackknifeGroups))
	}
	return o
}

// An Interval is a statistic's estimate with its bootstrap confidence
// interval.
type Interval struct {
	// Statistic is the statistic's Name.
	Statistic string
	// Estimate is the statistic of the sample itself.
	Estimate float64
	// Lo and Hi bound the interval. They are NaN when no interval could be
	// computed (see Warnings).
	Lo, Hi float64
	// Confidence is the coverage the interval was computed for.
	Confidence float64
	// Method is how the interval was read. It is Percentile when BCa was
	// asked for but could not be computed (a warning says so).
	Method IntervalMethod
	// N is the sample size and Resamples the number of replicates.
	N, Resamples int
	// Seed is the seed the replicates were drawn with.
	Seed uint64
	// StdErr is the standard deviation (ddof 1) of the replicates, the
	// bootstrap standard error.
	StdErr float64
	// Z0 and Acceleration are BCa's bias correction and acceleration; NaN
	// for a Percentile interval.
	Z0, Acceleration float64
	// Warnings are caveats: too few samples or resamples for the interval
	// to mean much, a degenerate bootstrap distribution, a fallback from
	// BCa. They never prevent a result.
	Warnings []error
}

// minSamples is the sample size below which any bootstrap interval gets a
// warning: resamples of fewer values take few distinct values, and the
// bootstrap's coverage falls well short of its nominal level.
const minSamples = 20

// minTail is the number of observations that must lie beyond a quantile
// (above it for p > 0.5, below it otherwise) for its interval to be
// trusted. With fewer, the bootstrap distribution of the quantile is a
// handful of the sample's extreme values and cannot extend past the
// sample maximum, so the upper end is understated. The rule is
// n*min(p, 1-p) >= 10: p50 needs 20 samples, p90 100, p99 1,000 and
// p99.9 10,000.
const minTail = 10

// minBeyond is the number of replicates that should lie beyond each end of
// the interval for its endpoints to be more than resampling noise.
const minBeyond = 10

// blockSize is the number of consecutive replicates drawn from one PCG
// stream. It is part of the determinism contract: changing it changes
// every interval.
const blockSize = 128

// Bootstrap returns the estimate of statistic s on xs and its bootstrap
// confidence interval. xs need not be sorted and is not modified (a sorted
// copy is made unless xs is already sorted). Replicates are drawn in
// parallel and the result is deterministic (see BootstrapOptions.Seed).
//
// Quantile statistics ([QuantileStatistic], [MedianStatistic]) are not
// resampled value by value: each replicate draws the one or two order
// statistics the quantile reads, from their exact bootstrap distribution
// (see orderstat.go), in O(1), and their BCa jackknife is computed exactly
// in O(1) from the two or three distinct leave-one-out values. A 95% BCa
// interval of p99 from a million samples and 10,000 replicates takes a few
// milliseconds. The mean's jackknife is exact in O(n); its replicates cost
// O(n) each. Custom statistics cost O(n) per replicate plus their jackknife
// (see Statistic).
//
// An empty sample or one holding NaN gives NaN bounds and a warning.
// Bootstrap panics on invalid options or a Statistic without Func.
func Bootstrap(xs []float64, s Statistic, o BootstrapOptions) Interval {
	iv, _ := bootstrap(xs, s, o, false)
	return iv
}

// bootstrap is Bootstrap; with keep it also returns the replicates in the
// order they were drawn (replicate i from the stream of block i/128), which
// callers combining several bootstraps need unsorted.
func bootstrap(xs []float64, s Statistic, o BootstrapOptions, keep bool) (Interval, []float64) {
	o = o.withDefaults()
	if s.Func == nil {
		panic("stats: Bootstrap of a Statistic without Func")
	}
	iv := Interval{
		Statistic: s.Name, Confidence: o.Confidence, Method: o.Method,
		N: len(xs), Resamples: o.Resamples, Seed: o.Seed,
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(),
		Z0: math.NaN(), Acceleration: math.NaN(),
	}
	isSorted, ok := scanSample(xs)
	if !ok {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%s: sample holds NaN; no interval", s.Name))
		return iv, nil
	}
	if len(xs) == 0 {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%s: empty sample; no interval", s.Name))
		return iv, nil
	}
	if s.kind == quantileStat {
		reps := bootstrapQuantile(&iv, xs, isSorted, s, o, keep)
		return iv, reps
	}
	sorted := xs
	if !isSorted {
		sorted = slices.Clone(xs)
		slices.Sort(sorted)
	}
	iv.Estimate = s.Func(sorted)
	reps := runReplicates(o.Resamples, 1, o.Seed, o.Workers, replicatorFor(sorted, s))
	var kept []float64
	if keep {
		kept = slices.Clone(reps)
	}
	var accel func() float64
	if o.Method == BCa {
		accel = func() float64 { return jackknifeOf(sorted, s, o).acceleration() }
	}
	finishInterval(&iv, reps, o, accel)
	iv.Warnings = append(sampleWarnings(len(sorted), s), iv.Warnings...)
	return iv, kept
}

// bootstrapQuantile is Bootstrap for a quantile statistic. It works in two
// passes: first the positions of every replicate's order statistics are
// drawn (they depend only on n), then the values at those positions are
// read. On unsorted data only the range of positions actually drawn (plus
// those the estimate and the jackknife read) is selected, in O(n), instead
// of sorting the sample. Sorted and unsorted input give identical results.
func bootstrapQuantile(iv *Interval, xs []float64, isSorted bool, s Statistic, o BootstrapOptions, keep bool) []float64 {
	n := len(xs)
	plan := s.plan(n)
	idx := runBlocks(o.Resamples, 2, o.Seed, o.Workers, func() func(*rand.Rand, []int) {
		is := newIndexSampler(n, plan)
		return func(r *rand.Rand, dst []int) { dst[0], dst[1] = is.indices(r) }
	})
	var at func(int) float64
	if isSorted || s.method == NearestRankCumulative {
		// GuideLLM's estimate merges equal values over the whole sample.
		sorted := xs
		if !isSorted {
			sorted = slices.Clone(xs)
			slices.Sort(sorted)
		}
		at = func(j int) float64 { return sorted[j] }
		iv.Estimate = s.Func(sorted)
	} else {
		// The estimate reads k, k+1 and the jackknife (plan for n-1) reads
		// at most k-1..k+2 (clamped to the sample).
		lo, hi := max(0, plan.k-1), min(n-1, plan.k+2)
		for _, j := range idx {
			lo, hi = min(lo, j), max(hi, j)
		}
		w := newOrderWindow(xs, lo, hi)
		at = w.at
		iv.Estimate = plan.value(at(plan.k), at(min(plan.k+1, n-1)))
	}
	reps := make([]float64, o.Resamples)
	for i := range reps {
		reps[i] = plan.value(at(idx[2*i]), at(idx[2*i+1]))
	}
	var kept []float64
	if keep {
		kept = slices.Clone(reps)
	}
	var accel func() float64
	if o.Method == BCa {
		accel = func() float64 {
			if n < 2 {
				return 0 // no jackknife; the bootstrap is degenerate anyway
			}
			return quantileJackknife(at, n, s.plan(n-1)).acceleration()
		}
	}
	finishInterval(iv, reps, o, accel)
	iv.Warnings = append(sampleWarnings(n, s), iv.Warnings...)
	return kept
}

// scanSample reports whether xs is sorted and whether it is free of NaN.
func scanSample(xs []float64) (isSorted, ok bool) {
	isSorted = true
	for i, x := range xs {
		if math.IsNaN(x) {
			return false, false
		}
		if i > 0 && x < xs[i-1] {
			isSorted = false
		}
	}
	return isSorted, true
}

// sortedCopy returns xs if it is sorted, else a sorted copy; ok is false if
// xs holds NaN.
func sortedCopy(xs []float64) (sorted []float64, ok bool) {
	isSorted, ok := scanSample(xs)
	if !ok {
		return nil, false
	}
	if isSorted {
		return xs, true
	}
	sorted = slices.Clone(xs)
	slices.Sort(sorted)
	return sorted, true
}

// sampleWarnings are the warnings that depend on the sample size alone.
func sampleWarnings(n int, s Statistic) []error {
	var ws []error
	if n < minSamples {
		ws = append(ws, fmt.Errorf("%s: bootstrap interval from %d samples; below %d its coverage is unreliable", s.Name, n, minSamples))
	}
	if s.kind == quantileStat && n >= minSamples {
		q := min(s.p, 1-s.p)
		if float64(n)*q < minTail {
			need := int(math.Ceil(minTail / q))
			if q == 0 {
				ws = append(ws, fmt.Errorf("%s: the bootstrap distribution of a sample extreme is degenerate; its interval cannot cover the true value", s.Name))
			} else {
				ws = append(ws, fmt.Errorf("%s from %d samples: about %.0f lie beyond it, so its interval rests on those few and is only indicative; a reliable one needs %d samples (%d beyond)", s.Name, n, float64(n)*q, need, minTail))
			}
		}
	}
	return ws
}

// finishInterval sorts the replicates and reads the interval off them.
// accel computes BCa's acceleration; it is nil for a Percentile interval.
func finishInterval(iv *Interval, reps []float64, o BootstrapOptions, accel func() float64) {
	slices.Sort(reps)
	iv.StdErr = StdDev(reps, 1)
	alpha := (1 - o.Confidence) / 2
	if float64(len(reps))*alpha < minBeyond {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%s: %d resamples leave %.1f beyond each end of a %g%% interval; use at least %d",
			iv.Statistic, len(reps), float64(len(reps))*alpha, 100*o.Confidence, int(math.Ceil(minBeyond/alpha))))
	}
	if reps[0] == reps[len(reps)-1] {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%s: every bootstrap replicate equals %v; the interval carries no information about sampling error", iv.Statistic, reps[0]))
	}
	if accel != nil {
		bca := bcaFromSorted(iv.Estimate, reps, accel(), o.Confidence)
		iv.Z0, iv.Acceleration = bca.Z0, bca.Acceleration
		if !math.IsNaN(bca.Lo) && !math.IsNaN(bca.Hi) {
			iv.Lo, iv.Hi = bca.Lo, bca.Hi
			iv.Warnings = append(iv.Warnings, bca.Warnings...)
			return
		}
		iv.Method = Percentile
		iv.Warnings = append(iv.Warnings, fmt.Errorf("%s: BCa interval undefined (z0=%v, a=%v; the estimate lies at the edge of its bootstrap distribution, as for a minimum or maximum); percentile interval given instead",
			iv.Statistic, bca.Z0, bca.Acceleration))
	}
	iv.Lo = Quantile(reps, alpha, Linear)
	iv.Hi = Quantile(reps, 1-alpha, Linear)
}

// BCaFromReplicates computes a BCa interval from replicates drawn by the
// caller and the jackknife values of the statistic: jackknife[j] holds the
// statistic with each observation of sample j left out in turn (one slice
// for a one-sample statistic, one per sample for a statistic of several
// samples). It is the building block of [Bootstrap] for callers who
// resample themselves, and lets the formula be checked against scipy on
// the same replicates. The acceleration is scipy's multi-sample form
// (Efron and Tibshirani eq. 15.36 for one sample):
//
//	U_ji = (n_j - 1)(mean_i θ_ji - θ_ji)
//	a    = Σ_j Σ_i U_ji³/n_j³ / (6 (Σ_j Σ_i U_ji²/n_j²)^(3/2))
//
// The replicates are not modified. BCaFromReplicates panics if confidence
// is outside (0, 1) or there are no replicates.
func BCaFromReplicates(estimate float64, replicates []float64, jackknife [][]float64, confidence float64) Interval {
	if !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("stats: confidence %v outside (0, 1)", confidence))
	}
	if len(replicates) == 0 {
		panic("stats: BCaFromReplicates without replicates")
	}
	var j jackknifeSet
	for _, vs := range jackknife {
		w := make([]weighted, len(vs))
		for i, v := range vs {
			w[i] = weighted{v, 1}
		}
		j = append(j, w)
	}
	reps := slices.Clone(replicates)
	slices.Sort(reps)
	iv := bcaFromSorted(estimate, reps, j.acceleration(), confidence)
	iv.StdErr = StdDev(reps, 1)
	return iv
}

// bcaFromSorted reads the BCa interval off sorted replicates given the
// acceleration. Lo and Hi are NaN when the adjusted levels are undefined.
func bcaFromSorted(estimate float64, reps []float64, a, confidence float64) Interval {
	b := len(reps)
	below, _ := slices.BinarySearch(reps, estimate) // count of reps < estimate
	atOrBelow := below
	for atOrBelow < b && reps[atOrBelow] <= estimate {
		atOrBelow++
	}
	share := float64(below+atOrBelow) / float64(2*b)
	z0 := normQuantile(share)
	alpha := (1 - confidence) / 2
	zl := normQuantile(alpha)
	n1 := z0 + zl
	a1 := normCDF(z0 + n1/(1-a*n1))
	n2 := z0 - zl
	a2 := normCDF(z0 + n2/(1-a*n2))
	iv := Interval{
		Estimate: estimate, Confidence: confidence, Method: BCa, Resamples: b,
		Z0: z0, Acceleration: a, Lo: math.NaN(), Hi: math.NaN(),
	}
	if math.IsNaN(a1) || math.IsNaN(a2) || math.IsInf(z0, 0) {
		// No replicate on one side of the estimate: the bias correction is
		// infinite and the adjusted levels collapse onto an end.
		return iv
	}
	iv.Lo = Quantile(reps, a1, Linear)
	iv.Hi = Quantile(reps, a2, Linear)
	if float64(b)*a1 < 1 || float64(b)*(1-a2) < 1 {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("BCa moved an end of the interval to the %.4g/%.4g levels, beyond the resolution of %d replicates; the end is the most extreme replicate", a1, a2, b))
	}
	return iv
}

// normCDF is the standard normal distribution function.
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normQuantile is the standard normal quantile function; ±Inf at 0 and 1.
func normQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// A replicator draws one bootstrap replicate (dim values) into dst. Each
// goroutine gets its own replicator, so it may keep scratch space.
type replicator func(r *rand.Rand, dst []float64)

// runReplicates draws b replicates of dim values each, in parallel.
func runReplicates(b, dim int, seed uint64, workers int, newReplicator func() replicator) []float64 {
	return runBlocks(b, dim, seed, workers, func() func(*rand.Rand, []float64) { return newReplicator() })
}

// runBlocks draws b replicates of dim values each, in parallel. Block k
// (replicates k*blockSize up to (k+1)*blockSize) is drawn from
// rand.NewPCG(seed, k) whichever goroutine draws it, so the result does not
// depend on scheduling or on the number of workers.
func runBlocks[T any](b, dim int, seed uint64, workers int, newReplicator func() func(*rand.Rand, []T)) []T {
	out := make([]T, b*dim)
	blocks := (b + blockSize - 1) / blockSize
	workers = max(1, min(workers, blocks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			rep := newReplicator()
			pcg := rand.NewPCG(seed, 0)
			r := rand.New(pcg)
			for {
				k := int(next.Add(1) - 1)
				if k >= blocks {
					return
				}
				pcg.Seed(seed, uint64(k))
				for i := k * blockSize; i < min(b, (k+1)*blockSize); i++ {
					rep(r, out[i*dim:(i+1)*dim])
				}
			}
		})
	}
	wg.Wait()
	return out
}

// A drawer draws the statistic of one bootstrap resample. Each goroutine
// gets its own drawer, so it may keep scratch space.
type drawer func(r *rand.Rand) float64

// drawerFor returns a constructor of drawers for s on sorted, using the
// cheapest exact way to draw s's replicates.
func drawerFor(sorted []float64, s Statistic) func() drawer {
	n := len(sorted)
	switch s.kind {
	case quantileStat:
		plan := s.plan(n)
		return func() drawer { return newOrderSampler(sorted, plan).draw }
	case meanStat:
		return func() drawer {
			buf := make([]float64, n)
			return func(r *rand.Rand) float64 {
				for i := range buf {
					buf[i] = sorted[r.IntN(n)]
				}
				return Mean(buf)
			}
		}
	}
	return func() drawer {
		rs := newResampler(sorted)
		return func(r *rand.Rand) float64 { return s.Func(rs.draw(r)) }
	}
}

// replicatorFor draws one-sample replicates of s.
func replicatorFor(sorted []float64, s Statistic) func() replicator {
	newDrawer := drawerFor(sorted, s)
	return func() replicator {
		d := newDrawer()
		return func(r *rand.Rand, dst []float64) { dst[0] = d(r) }
	}
}

// resampler draws full bootstrap resamples of a sorted sample already in
// sorted order: n uniform indices are counted (a multinomial draw), and
// each value is written out as often as it was drawn. O(n) per resample,
// no sort.
type resampler struct {
	sorted []float64
	counts []int32
	buf    []float64
}

func newResampler(sorted []float64) *resampler {
	return &resampler{sorted: sorted, counts: make([]int32, len(sorted)), buf: make([]float64, len(sorted))}
}

func (rs *resampler) draw(r *rand.Rand) []float64 {
	n := len(rs.sorted)
	clear(rs.counts)
	for range n {
		rs.counts[r.IntN(n)]++
	}
	j := 0
	for i, c := range rs.counts {
		for range c {
			rs.buf[j] = rs.sorted[i]
			j++
		}
	}
	return rs.buf
}
