package stats

import (
	"math"
	"math/rand/v2"
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

// orderSampler draws the order statistics plan reads from a bootstrap
// resample of sorted (see the comment at the top of this file).
type orderSampler struct {
	sorted []float64
	plan   orderPlan
	ga, gb gammaSampler
	above  float64 // n-k-1, the count of uniforms above U_(k+1)
}

func newOrderSampler(sorted []float64, plan orderPlan) *orderSampler {
	n := len(sorted)
	s := &orderSampler{
		sorted: sorted,
		plan:   plan,
		ga:     newGammaSampler(float64(plan.k + 1)),
		gb:     newGammaSampler(float64(n - plan.k)),
		above:  float64(n - plan.k - 1),
	}
	return s
}

// draw returns the statistic of one bootstrap resample.
func (s *orderSampler) draw(r *rand.Rand) float64 {
	n := len(s.sorted)
	fn := float64(n)
	a := s.ga.draw(r)
	b := s.gb.draw(r)
	u := a / (a + b)
	j1 := index(fn * u)
	if j1 >= n {
		j1 = n - 1
	}
	if !s.plan.two {
		return s.plan.value(s.sorted[j1], 0)
	}
	// U_(k+2) = u + (1-u) V, V = 1 - W^(1/(n-k-1)) = -expm1(log(W)/(n-k-1)).
	w := 1 - r.Float64() // in (0, 1]
	v := -math.Expm1(math.Log(w) / s.above)
	u2 := u + float64(b/(a+b))*v
	j2 := index(fn * u2)
	if j2 >= n {
		j2 = n - 1
	}
	if j2 < j1 {
		j2 = j1
	}
	return s.plan.value(s.sorted[j1], s.sorted[j2])
}

// index truncates a non-negative float to an int.
func index(f float64) int { return int(f) }
