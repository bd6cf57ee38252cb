package stats

import (
	"fmt"
	"math"
)

// Automatic block length and long-run variance (Politis and White, 2004,
// "Automatic Block-Length Selection for the Dependent Bootstrap",
// Econometric Reviews 23(1), with the correction of Patton, Politis and
// White, 2009, Econometric Reviews 28(4)).
//
// The arithmetic follows the authors' own MATLAB code step by step
// (Patton's opt_block_length_REV_dec07.m, the version with the 2009
// correction), so that its numbers can be reproduced:
//
//	K_N   = max(5, ceil(sqrt(log10 n)))
//	m_max = ceil(sqrt n) + K_N
//	b_max = ceil(min(3 sqrt n, n/3))
//	rho(k), k = 1..m_max: the Pearson correlation of x[t] and x[t-k] over
//	      t = m_max+1..n (one common window for every lag)
//	m^    = the smallest m such that |rho(m)|, ..., |rho(m+K_N-1)| are all
//	      below 2 sqrt(log10(n)/n); if there is none, the largest lag whose
//	      |rho| is above it
//	M     = min(2 m^, m_max)
//	R(k), k = 0..M: the sample covariance (ddof 1) of x[t] and x[t-k] over
//	      t = M+1..n
//	lambda(s) = 1 for |s| < 1/2, 2(1-|s|) for 1/2 <= |s| <= 1 (flat top)
//	g     = sum over |k| <= M of lambda(k/M) R(k)        (long-run variance)
//	G     = sum over |k| <= M of lambda(k/M) |k| R(k)
//	b_SB  = (2 G^2 / D_SB)^(1/3) n^(1/3), D_SB = 2 g^2    (the 2009 correction)
//	b_CB  = (2 G^2 / D_CB)^(1/3) n^(1/3), D_CB = (4/3) g^2
//
// each capped at b_max. (The code's m^ is one more than a literal reading
// of the paper's definition; the code is the reference.)

// A BlockLength is the automatic block length of a series and the
// spectral quantities it comes from.
type BlockLength struct {
	// N is the series length.
	N int
	// Stationary is the optimal mean block length of the stationary
	// bootstrap and Circular the optimal block length of the circular
	// (moving) block bootstrap; the authors advise rounding Circular up.
	// Both are at least 1: a series without dependence gets 1, the i.i.d.
	// bootstrap.
	Stationary, Circular float64
	// MHat is m^, the lag after which the correlations are insignificant,
	// and M the bandwidth of the flat-top window.
	MHat, M int
	// Variance is R(0), LongRunVariance is g (the sum of all
	// autocovariances, 2 pi times the spectral density at zero) and G
	// the sum of |k| R(k), both through the flat-top window.
	Variance, LongRunVariance, G float64
	// Capped reports that a block length was cut to b_max.
	Capped bool
	// Warnings say when the series was too short or too flat for an
	// estimate (the lengths are then 1).
	Warnings []error
}

// Inflation is LongRunVariance/Variance: the factor by which dependence
// multiplies the variance of the series' mean (1 for independent data).
// The effective sample size of the mean is N/Inflation. It is NaN when
// the variance is zero.
func (b BlockLength) Inflation() float64 {
	if !(b.Variance > 0) {
		return math.NaN()
	}
	return b.LongRunVariance / b.Variance
}

// minBlockSeries is the shortest series PolitisWhite estimates from: the
// correlations need a common window of a few dozen points beyond m_max.
const minBlockSeries = 32

// PolitisWhite returns the automatic block length of the series xs (in
// time order), computed as the authors' code computes it (see the comment
// above). A series shorter than 32 values, or one whose values are all
// equal, gets lengths 1 with a warning. PolitisWhite is O(n sqrt n).
func PolitisWhite(xs []float64) BlockLength {
	n := len(xs)
	b := BlockLength{N: n, Stationary: 1, Circular: 1, Variance: math.NaN(), LongRunVariance: math.NaN(), G: math.NaN()}
	if n < minBlockSeries {
		b.Warnings = append(b.Warnings, fmt.Errorf("block length: %d values; at least %d are needed to estimate the dependence, so the i.i.d. bootstrap is used", n, minBlockSeries))
		return b
	}
	fn := float64(n)
	kn := max(5, int(math.Ceil(math.Sqrt(math.Log10(fn)))))
	mmax := int(math.Ceil(math.Sqrt(fn))) + kn
	bmax := math.Ceil(min(3*math.Sqrt(fn), fn/3))
	thr := 2 * math.Sqrt(math.Log10(fn)/fn)

	rho := make([]float64, mmax+1)
	flat := false
	ls := newLaggedSums(xs, mmax)
	for k := 1; k <= mmax; k++ {
		r, ok := windowCorrelation(ls, k)
		if !ok {
			flat = true
			break
		}
		rho[k] = r
	}
	if flat {
		b.Warnings = append(b.Warnings, fmt.Errorf("block length: the series does not vary; no dependence to estimate"))
		return b
	}
	b.MHat = firstQuietLag(rho, kn, thr)
	b.M = min(2*b.MHat, mmax)

	acv := windowCovariances(xs, b.M)
	b.Variance = acv[0]
	g, bigG := acv[0], 0.0
	for k := 1; k <= b.M; k++ {
		w := flatTop(float64(k) / float64(b.M))
		g += 2 * w * acv[k]
		bigG += 2 * w * float64(k) * acv[k]
	}
	b.LongRunVariance, b.G = g, bigG
	cube := math.Cbrt(fn)
	sb := math.Cbrt(2*bigG*bigG/(2*g*g)) * cube
	cb := math.Cbrt(2*bigG*bigG/(4.0/3*g*g)) * cube
	if math.IsNaN(sb) || math.IsNaN(cb) {
		b.Warnings = append(b.Warnings, fmt.Errorf("block length: the flat-top estimate is undefined (long-run variance %g); the i.i.d. bootstrap is used", g))
		return b
	}
	if sb > bmax || cb > bmax {
		b.Capped = true
		b.Warnings = append(b.Warnings, fmt.Errorf("block length: the dependence reaches beyond b_max = %g of %d values; the block length is capped there and intervals may still be too narrow", bmax, n))
	}
	b.Stationary = max(1, min(sb, bmax))
	b.Circular = max(1, min(cb, bmax))
	return b
}

// flatTop is Politis and Romano's trapezoidal flat-top lag window.
func flatTop(s float64) float64 {
	s = math.Abs(s)
	switch {
	case s < 0.5:
		return 1
	case s <= 1:
		return 2 * (1 - s)
	}
	return 0
}

// firstQuietLag is m^: the smallest m (1-based) such that rho[m..m+kn-1]
// are all below thr in magnitude, else the largest lag above it.
func firstQuietLag(rho []float64, kn int, thr float64) int {
	mmax := len(rho) - 1
	for m := 1; m+kn-1 <= mmax; m++ {
		quiet := true
		for k := m; k < m+kn; k++ {
			if !(math.Abs(rho[k]) < thr) {
				quiet = false
				break
			}
		}
		if quiet {
			return m
		}
	}
	last := 1
	for k := 1; k <= mmax; k++ {
		if math.Abs(rho[k]) > thr {
			last = k
		}
	}
	return last
}

// laggedSums holds a series centred on its mean and the prefix sums of
// it and its squares, so that the sums over any lagged window cost O(1)
// and only the cross products need a pass.
type laggedSums struct {
	x      []float64 // centred
	p, pp  []float64 // prefix sums of x and x^2
	window int       // the common window starts at this position
}

func newLaggedSums(xs []float64, window int) laggedSums {
	m := Mean(xs)
	ls := laggedSums{x: make([]float64, len(xs)), p: make([]float64, len(xs)+1), pp: make([]float64, len(xs)+1), window: window}
	for i, v := range xs {
		d := v - m
		ls.x[i] = d
		ls.p[i+1] = ls.p[i] + d
		ls.pp[i+1] = ls.pp[i] + d*d
	}
	return ls
}

// moments returns, over t = window..n-1, the centred cross product of
// x[t] and x[t-k] and the centred sums of squares of both sides.
func (ls laggedSums) moments(k int) (sac, saa, scc float64) {
	n, w := len(ls.x), ls.window
	nn := float64(n - w)
	a, c := ls.x[w:], ls.x[w-k:n-k]
	var s float64
	for i := range a {
		s += a[i] * c[i]
	}
	sa, sc := ls.p[n]-ls.p[w], ls.p[n-k]-ls.p[w-k]
	saa = ls.pp[n] - ls.pp[w] - sa*sa/nn
	scc = ls.pp[n-k] - ls.pp[w-k] - sc*sc/nn
	return s - sa*sc/nn, saa, scc
}

// windowCorrelation is the Pearson correlation of x[t] and x[t-k] over
// the common window t = w..n-1 (0-based), each side centred on its own
// mean; ok is false when either side does not vary.
func windowCorrelation(ls laggedSums, k int) (float64, bool) {
	sac, saa, scc := ls.moments(k)
	if !(saa > 0) || !(scc > 0) {
		return 0, false
	}
	return sac / math.Sqrt(saa*scc), true
}

// windowCovariances returns R(0..m): the sample covariances (ddof 1) of
// x[t] and x[t-k] over t = m..n-1 (0-based), each side centred on its own
// mean.
func windowCovariances(xs []float64, m int) []float64 {
	ls := newLaggedSums(xs, m)
	nn := float64(len(xs) - m)
	acv := make([]float64, m+1)
	for k := 0; k <= m; k++ {
		sac, _, _ := ls.moments(k)
		acv[k] = sac / (nn - 1)
	}
	return acv
}
