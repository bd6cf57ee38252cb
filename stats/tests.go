package stats

import (
	"fmt"
	"math"
	"slices"
)

// A RankTest is the result of a two-sample Mann-Whitney U test.
type RankTest struct {
	// U is the statistic of the first sample: its rank sum minus
	// n1(n1+1)/2, scipy.stats.mannwhitneyu's statistic.
	U float64
	// P is the two-sided p-value.
	P float64
	// Exact reports whether P comes from the exact null distribution of U
	// rather than the normal approximation.
	Exact bool
}

// MannWhitneyU tests whether x and y come from the same distribution
// against the two-sided alternative that one tends to exceed the other,
// and needs no assumption about the shape of either distribution, which
// suits latencies. It chooses its method as scipy.stats.mannwhitneyu's
// method="auto" does, and gives scipy's answer:
//
//   - exact when either sample has at most 8 values and no value is tied:
//     P = 2 P[U' >= max(U1, U2)] from the exact null distribution (the
//     number of ways to reach U is the number of partitions of U into at
//     most min(n1, n2) parts no larger than max(n1, n2), the coefficients
//     of the Gaussian binomial [n1+n2 choose n1]);
//   - otherwise the normal approximation with the tie-corrected variance
//     n1 n2/12 ((n+1) - Σ(t³-t)/(n(n-1))) and a continuity correction of
//     0.5 towards the mean.
//
// P is clipped to 1. MannWhitneyU panics on an empty sample or NaN.
func MannWhitneyU(x, y []float64) RankTest {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		panic("stats: MannWhitneyU of an empty sample")
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	for _, o := range all {
		if math.IsNaN(o.v) {
			panic("stats: MannWhitneyU of a sample holding NaN")
		}
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// Mid-ranks for ties; tie term Σ(t³-t).
	var r1, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+1+j) / 2 // mean of ranks i+1..j
		for _, o := range all[i:j] {
			if o.first {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	fn1, fn2 := float64(n1), float64(n2)
	u1 := r1 - fn1*(fn1+1)/2
	u := max(u1, fn1*fn2-u1)
	res := RankTest{U: u1}
	if (n1 <= 8 || n2 <= 8) && !ties {
		res.Exact = true
		res.P = 2 * mannWhitneyTail(n1, n2, int(u))
	} else {
		n := fn1 + fn2
		s := math.Sqrt(fn1 * fn2 / 12 * ((n + 1) - tieTerm/(n*(n-1))))
		z := (u - fn1*fn2/2 - 0.5) / s
		res.P = 2 * normSF(z)
	}
	res.P = min(res.P, 1)
	return res
}

// mannWhitneyTail returns P[U >= u] under the null hypothesis, for sample
// sizes n1, n2 without ties. By symmetry it is P[U <= n1 n2 - u], the sum
// of the counts c_k for k <= n1 n2 - u over C(n1+n2, n1), where c_k is the
// number of partitions of k into at most m = min(n1, n2) parts each at most
// max(n1, n2): the coefficients of prod_{i=1..m} (1-q^(n+i))/(1-q^i).
func mannWhitneyTail(n1, n2, u int) float64 {
	m, n := min(n1, n2), max(n1, n2)
	kmax := m*n - u
	if kmax < 0 {
		return 0
	}
	c := make([]float64, kmax+1)
	c[0] = 1
	// 1/prod(1-q^i): partitions into parts of size at most m.
	for i := 1; i <= m; i++ {
		for k := i; k <= kmax; k++ {
			c[k] += c[k-i]
		}
	}
	// prod(1-q^(n+i)): remove the partitions with a part above n.
	for i := 1; i <= m; i++ {
		s := n + i
		for k := kmax; k >= s; k-- {
			c[k] -= c[k-s]
		}
	}
	var count float64
	for _, v := range c {
		count += v
	}
	total := 1.0 // C(m+n, m)
	for i := 1; i <= m; i++ {
		total = total * float64(n+i) / float64(i)
	}
	return count / total
}

// normSF is the standard normal survival function.
func normSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// A DistributionTest is the result of a two-sample Kolmogorov-Smirnov test.
type DistributionTest struct {
	// D is the largest distance between the two empirical distribution
	// functions.
	D float64
	// P is the two-sided p-value.
	P float64
	// Exact reports whether P is exact.
	Exact bool
}

// ksExactMax is scipy.stats.ks_2samp's MAX_AUTO_N: method="auto" is exact
// up to this sample size.
const ksExactMax = 10000

// KolmogorovSmirnov tests whether x and y come from the same continuous
// distribution, against any difference (two-sided); it is the check for
// distributions of per-request lengths. Like scipy.stats.ks_2samp's
// method="auto":
//
//   - when neither sample exceeds 10,000 values, P is exact: D is rounded
//     to a multiple h/lcm(n1, n2) (and reported so, as scipy does), and P
//     is the share of the C(n1+n2, n1) equally likely merge orders whose
//     ECDF difference reaches D, counted by a lattice-path recursion
//     (Hodges 1958) over the band |n2 i - n1 j| < h gcd(n1, n2), with
//     each count normalised by its binomial so nothing overflows;
//   - above that, P comes from Kolmogorov's limiting distribution at
//     (sqrt(e) + 0.12 + 0.11/sqrt(e)) D with e = n1 n2/(n1+n2)
//     (Stephens' small-sample correction). scipy uses the exact one-sample
//     distribution kstwo at round(e) instead; the two agree to about 1e-3
//     at these sizes (checked against scipy in the tests).
//
// Ties are allowed in computing D but the p-value assumes none, as in
// scipy. KolmogorovSmirnov panics on an empty sample or NaN.
func KolmogorovSmirnov(x, y []float64) DistributionTest {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		panic("stats: KolmogorovSmirnov of an empty sample")
	}
	a, okA := sortedCopy(x)
	b, okB := sortedCopy(y)
	if !okA || !okB {
		panic("stats: KolmogorovSmirnov of a sample holding NaN")
	}
	// D = max over all values v of |F1(v) - F2(v)|, with F(v) the share at
	// or below v (scipy's searchsorted side="right" over the pooled data).
	var d float64
	fn1, fn2 := float64(n1), float64(n2)
	for i, j := 0, 0; i < n1 || j < n2; {
		var v float64
		switch {
		case j >= n2 || (i < n1 && a[i] <= b[j]):
			v = a[i]
		default:
			v = b[j]
		}
		for i < n1 && a[i] == v {
			i++
		}
		for j < n2 && b[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/fn1-float64(j)/fn2))
	}
	if max(n1, n2) <= ksExactMax {
		g := gcd(n1, n2)
		lcm := (n1 / g) * n2
		h := int(math.Round(d * float64(lcm)))
		d = float64(h) / float64(lcm)
		if h == 0 {
			return DistributionTest{D: d, P: 1, Exact: true}
		}
		// Count over the larger sample first so that swapping the samples
		// gives the same bits.
		return DistributionTest{D: d, P: min(1, max(0, ksOutside(max(n1, n2), min(n1, n2), h*g))), Exact: true}
	}
	e := fn1 * fn2 / (fn1 + fn2)
	se := math.Sqrt(e)
	return DistributionTest{D: d, P: kolmogorovSF((se + 0.12 + 0.11/se) * d)}
}

// ksOutside returns the share of lattice paths from (0,0) to (n1,n2) that
// touch |n2 i - n1 j| >= bound somewhere. It sums the tail directly rather
// than taking one minus the share that stays inside, which would lose every
// digit below about 1e-16 (50 + 50 fully separated values: 2/C(100,50) =
// 1.98e-29, not 0).
//
// v[j] holds, for the current row i, the number of paths to (i, j) that
// stay strictly inside, divided by C(i+j, i); the counts add,
// N(i,j) = N(i-1,j) + N(i,j-1), and the binomial ratios turn that into
// u(i,j) = v(i-1,j) i/(i+j) + v(i,j-1) j/(i+j). At a point outside the band
// u(i,j) C(i+j, i) counts the paths that leave the band there for the
// first time; each goes on in C(N-i-j, n1-i) ways, so the point adds
// u(i,j) C(i+j,i) C(N-i-j,n1-i) / C(N,n1) to the share (a hypergeometric
// probability, computed from log-gamma so nothing overflows). Every term
// is positive: no digits cancel.
func ksOutside(n1, n2, bound int) float64 {
	v := make([]float64, n2+1)
	inside := func(i, j int) bool {
		diff := n2*i - n1*j
		return diff < bound && -diff < bound
	}
	lchoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
	total := lchoose(n1+n2, n1)
	var tail float64
	leave := func(i, j int, u float64) {
		if u > 0 {
			tail += u * math.Exp(lchoose(i+j, i)+lchoose(n1+n2-i-j, n1-i)-total)
		}
	}
	v[0] = 1
	for j := 1; j <= n2; j++ {
		if inside(0, j) {
			v[j] = v[j-1]
			continue
		}
		leave(0, j, v[j-1])
		v[j] = 0
	}
	// lo is the first column that may hold a path inside the band; the
	// columns before it are zero.
	lo := 0
	for i := 1; i <= n1; i++ {
		fi := float64(i)
		// Inside points of row i have j below (n2 i + bound)/n1.
		jhi := min(n2, (n2*i+bound)/n1+1)
		next := -1
		for j := lo; j <= jhi; j++ {
			fj := float64(j)
			u := v[j] * fi / (fi + fj)
			if j > 0 {
				u += v[j-1] * fj / (fi + fj)
			}
			if !inside(i, j) {
				leave(i, j, u)
				v[j] = 0
				continue
			}
			v[j] = u
			if next < 0 && u > 0 {
				next = j
			}
		}
		if next < 0 {
			break // no path stays inside: the tail is complete
		}
		lo = next
	}
	return tail
}

// kolmogorovSF is P[K > x] for Kolmogorov's limiting distribution.
func kolmogorovSF(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if x < 1 {
		// P[K <= x] = sqrt(2π)/x Σ_{k>=1} exp(-(2k-1)² π²/(8x²)), fast here.
		var s float64
		for k := 1; k <= 20; k++ {
			t := float64(2*k - 1)
			s += math.Exp(-t * t * math.Pi * math.Pi / (8 * x * x))
		}
		return 1 - math.Sqrt(2*math.Pi)/x*s
	}
	// P[K > x] = 2 Σ_{k>=1} (-1)^(k-1) exp(-2k²x²), fast here.
	var s float64
	for k := 1; k <= 100; k++ {
		t := math.Exp(-2 * float64(k*k) * x * x)
		if k%2 == 1 {
			s += t
		} else {
			s -= t
		}
		if t < 1e-300 {
			break
		}
	}
	return min(1, max(0, 2*s))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// mannWhitneyMinP is the smallest two-sided p-value MannWhitneyU can give
// for samples of n1 and n2 distinct values: 2/C(n1+n2, n1).
func mannWhitneyMinP(n1, n2 int) float64 {
	total := 1.0
	m, n := min(n1, n2), max(n1, n2)
	for i := 1; i <= m; i++ {
		total = total * float64(n+i) / float64(i)
	}
	return min(1, 2/total)
}

// errCannotDetect is the warning Compare gives when the samples are too
// small for any difference to be significant.
func errCannotDetect(n1, n2 int, alpha float64) error {
	return fmt.Errorf("samples of %d and %d values cannot show a difference at alpha=%g: the smallest possible Mann-Whitney p-value is %.3g",
		n1, n2, alpha, mannWhitneyMinP(n1, n2))
}
