package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Drawing a resample's order statistics without building the resample.
//
// A bootstrap resample of a sorted sample x[0..n-1] picks n indices
// I_1..I_n independently and uniformly from {0..n-1}. Write I_m =
// floor(n*U_m) with U_m independent Uniform(0,1). Since floor and x are
// non-decreasing, the resample's (k+1)-th smallest value is
// x[floor(n*U_(k+1))], where U_(k+1) is the (k+1)-th smallest of the n
// uniforms, and U_(k+1) ~ Beta(k+1, n-k). Given U_(k+1) = u, the n-k-1
// uniforms above u are independent Uniform(u, 1), so the next order
// statistic is U_(k+2) = u + (1-u)*V with V = 1 - W^(1/(n-k-1)) ~
// Beta(1, n-k-1), W ~ Uniform(0,1). Drawing (U_(k+1), U_(k+2)) this way and
// mapping them through floor(n*.) gives exactly the joint distribution of
// the two adjacent order statistics a bootstrap resample would have, up to
// floating-point rounding (the index n*u carries a relative error near
// 1e-16), in O(1) per replicate instead of O(n log n).
//
// Beta(a, b) is drawn as G_a/(G_a+G_b) with G_a, G_b independent Gamma
// variables (Marsaglia and Tsang's method, exact by rejection for shape
// >= 1, which holds here since a = k+1 >= 1 and b = n-k >= 1); 1-u is
// computed as G_b/(G_a+G_b) so that upper quantiles keep their precision.

// gammaSampler draws Gamma(shape, 1) variables for a fixed shape >= 1 by
// Marsaglia and Tsang's squeeze-and-reject method ("A simple method for
// generating gamma variables", ACM TOMS 26(3), 2000).
type gammaSampler struct {
	d, c float64
}

func newGammaSampler(shape float64) gammaSampler {
	if !(shape >= 1) {
		panic("stats: gamma shape below 1")
	}
	d := shape - 1.0/3
	return gammaSampler{d: d, c: 1 / math.Sqrt(9*d)}
}

func (g gammaSampler) draw(r *rand.Rand) float64 {
	for {
		x := r.NormFloat64()
		v := 1 + g.c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return g.d * v
		}
		if u > 0 && math.Log(u) < 0.5*x2+g.d*(1-v+math.Log(v)) {
			return g.d * v
		}
	}
}

// indexSampler draws the positions, in a sorted sample of n values, of the
// order statistics a plan reads from a bootstrap resample (see the comment
// at the top of this file). It needs only n, not the values.
type indexSampler struct {
	n      int
	plan   orderPlan
	ga, gb gammaSampler
	above  float64 // n-k-1, the count of uniforms above U_(k+1)
}

func newIndexSampler(n int, plan orderPlan) *indexSampler {
	return &indexSampler{
		n:     n,
		plan:  plan,
		ga:    newGammaSampler(float64(plan.k + 1)),
		gb:    newGammaSampler(float64(n - plan.k)),
		above: float64(n - plan.k - 1),
	}
}

// indices draws the positions of the resample's order statistics k and
// (for a two-position plan) k+1; j2 is j1 for a one-position plan.
func (s *indexSampler) indices(r *rand.Rand) (j1, j2 int) {
	n := s.n
	fn := float64(n)
	a := s.ga.draw(r)
	b := s.gb.draw(r)
	u := a / (a + b)
	j1 = min(index(fn*u), n-1)
	if !s.plan.two {
		return j1, j1
	}
	// U_(k+2) = u + (1-u) V, V = 1 - W^(1/(n-k-1)) = -expm1(log(W)/(n-k-1)).
	w := 1 - r.Float64() // in (0, 1]
	v := -math.Expm1(math.Log(w) / s.above)
	u2 := u + float64(b/(a+b))*v
	j2 = max(j1, min(index(fn*u2), n-1))
	return j1, j2
}

// orderSampler draws the statistic of a bootstrap resample of sorted.
type orderSampler struct {
	*indexSampler
	sorted []float64
}

func newOrderSampler(sorted []float64, plan orderPlan) orderSampler {
	return orderSampler{newIndexSampler(len(sorted), plan), sorted}
}

func (s orderSampler) draw(r *rand.Rand) float64 {
	j1, j2 := s.indices(r)
	return s.plan.value(s.sorted[j1], s.sorted[j2])
}

// index truncates a non-negative float to an int.
func index(f float64) int { return int(f) }

// orderWindow holds the order statistics lo..hi of a sample, which is all
// a quantile's bootstrap reads: its replicates' positions cluster within a
// few sqrt(n p (1-p)) of the quantile's rank. Selecting them costs O(n);
// sorting the whole sample, O(n log n), was most of the time of a p99
// interval from a million values.
type orderWindow struct {
	lo     int
	values []float64
}

// newOrderWindow selects the order statistics lo..hi of xs (0 <= lo <= hi
// < len(xs)) without modifying xs.
func newOrderWindow(xs []float64, lo, hi int) orderWindow {
	if w, ok := windowBySample(xs, lo, hi); ok {
		return w
	}
	buf := slices.Clone(xs)
	nthElement(buf, lo)
	// buf[lo:] now holds the n-lo largest values, buf[lo] the smallest of
	// them; the (hi-lo)-th of those is order statistic hi, and everything
	// selected before it is order statistics lo..hi.
	nthElement(buf[lo:], hi-lo)
	w := buf[lo : hi+1]
	slices.Sort(w)
	return orderWindow{lo: lo, values: w}
}

func (w orderWindow) at(j int) float64 { return w.values[j-w.lo] }

// windowSample is the size of the subsample windowBySample guesses value
// bounds from.
const windowSample = 4096

// windowBySample finds the order statistics lo..hi of a large sample
// without copying it (Floyd and Rivest's idea): a sorted strided subsample
// of 4096 values gives value bounds vL, vH that should bracket ranks lo and
// hi with a margin of four binomial standard deviations; one pass counts
// the values below vL and between the bounds, and if the bounds do bracket
// the ranks, a second pass collects the values between them, which are
// sorted. The answer is exact whenever ok is true; when the guess misses
// (unlucky or periodic data, or a window too wide to pay off), ok is false
// and the caller selects the slow way.
func windowBySample(xs []float64, lo, hi int) (w orderWindow, ok bool) {
	n := len(xs)
	if n < 16*windowSample {
		return w, false
	}
	m := windowSample
	sample := make([]float64, m)
	stride := n / m
	for i := range sample {
		sample[i] = xs[i*stride]
	}
	slices.Sort(sample)
	rank := func(q, sign float64) int {
		sd := math.Sqrt(float64(m) * q * (1 - q))
		return int(math.Floor(q*float64(m) + sign*(4*sd+2)))
	}
	vL, vH := math.Inf(-1), math.Inf(1)
	if r := rank(float64(lo)/float64(n), -1); r >= 0 {
		vL = sample[min(r, m-1)]
	}
	if r := rank(float64(hi+1)/float64(n), 1); r < m {
		vH = sample[max(r, 0)]
	}
	below, between := 0, 0
	for _, x := range xs {
		switch {
		case x < vL:
			below++
		case x <= vH:
			between++
		}
	}
	if below > lo || below+between < hi+1 || between > n/8 {
		return w, false
	}
	buf := make([]float64, 0, between)
	for _, x := range xs {
		if x >= vL && x <= vH {
			buf = append(buf, x)
		}
	}
	slices.Sort(buf)
	return orderWindow{lo: lo, values: buf[lo-below : hi-below+1]}, true
}

// nthElement rearranges a so that a[k] is the value a sorted a would hold
// there, with no larger value before it and no smaller one after it
// (Hoare's FIND with a median-of-three pivot; after too many unbalanced
// rounds it sorts what is left, which bounds the worst case at
// O(n log n)).
func nthElement(a []float64, k int) {
	lo, hi := 0, len(a)-1
	budget := 2*bits.Len(uint(len(a))) + 8
	for hi > lo {
		if budget == 0 {
			slices.Sort(a[lo : hi+1])
			return
		}
		budget--
		x, y, z := a[lo], a[lo+(hi-lo)/2], a[hi]
		pivot := max(min(x, y), min(max(x, y), z))
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// a[lo..j] <= pivot <= a[i..hi], and a[j+1..i-1] == pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
