package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChangePointOptions configure [EDivisive]. A zero field takes its value
// from [DefaultChangePoint], except Seed, for which zero is a seed like
// any other.
type ChangePointOptions struct {
	// Alpha is the significance level of each permutation test (0.05).
	Alpha float64
	// Permutations is the number of permutations per test (199).
	Permutations int
	// MinSize is the smallest segment a split may leave (3; at least 2).
	MinSize int
	// Confidence is the level of the change's interval (0.95).
	Confidence float64
	// Seed fixes the permutations.
	Seed uint64
}

// DefaultChangePoint holds the defaults of ChangePointOptions.
var DefaultChangePoint = ChangePointOptions{Alpha: 0.05, Permutations: 199, MinSize: 3, Confidence: 0.95}

func (o ChangePointOptions) withDefaults() ChangePointOptions {
	d := DefaultChangePoint
	if o.Alpha > 0 {
		d.Alpha = o.Alpha
	}
	if o.Permutations > 0 {
		d.Permutations = o.Permutations
	}
	if o.MinSize >= 2 {
		d.MinSize = o.MinSize
	}
	if o.Confidence > 0 {
		d.Confidence = o.Confidence
	}
	d.Seed = o.Seed
	return d
}

// A ChangePoint is one change in a series found by [EDivisive].
type ChangePoint struct {
	// Index is the position of the first value after the change.
	Index int
	// Statistic is the E-Divisive statistic Q of the split, and P the
	// permutation p-value of the test that accepted it:
	// (1 + permutations with a statistic at least as large) / (1 + R).
	Statistic, P float64
	// Before and After are the (weighted) means of the segments on
	// either side, up to the neighbouring change points.
	Before, After float64
	// Relative is After/Before - 1, with its interval [Lo, Hi] at the
	// options' confidence (NaN when it cannot be computed).
	Relative, Lo, Hi float64
}

// EDivisive finds change points in the mean of a series with the
// E-Divisive means method of Matteson and James ("A nonparametric
// approach for multiple change point analysis of multivariate data",
// JASA 109, 2014), with exponent 1 as MongoDB's signal-processing-
// algorithms and Hunter use it: the split of a segment into X = [s, τ)
// and Y = [τ, e) maximising
//
//	Q(X, Y) = m n / (m + n) · ( 2/(m n) Σ|x-y| − 1/C(m,2) Σ|x-x'| − 1/C(n,2) Σ|y-y'| )
//
// over every segment of the current partition is a candidate, and it is
// accepted when a permutation test (values permuted within each
// segment, the statistic recomputed over all segments) gives a p-value
// below Alpha; the search then repeats on the new partition. Change
// points are returned in index order.
//
// se, when not nil, holds each value's own standard error (NaN or
// negative where unknown): the per-run uncertainty of a statistic. The
// detection uses the values only (the permutation test is exact under
// exchangeability whatever the per-run noise); the size of each change
// uses them: the segment means are inverse-variance weighted with a
// random-effects variance se² + τ² (DerSimonian and Laird 1986, τ² the
// between-value variance beyond the per-value one), so a noisy run
// counts less and the interval is never narrower than the values'
// scatter allows. Without se the means are plain and their variance the
// sample variance over n. The interval of Relative is the delta-method
// interval of a ratio of means with Student's t quantile at
// m + n − 2 degrees of freedom. docs/trend.md says why.
//
// EDivisive panics when se has another length than xs.
func EDivisive(xs, se []float64, o ChangePointOptions) []ChangePoint {
	if se != nil && len(se) != len(xs) {
		panic("stats: EDivisive: se and xs differ in length")
	}
	o = o.withDefaults()
	r := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	cuts := []int{0, len(xs)}
	work := make([]float64, len(xs))
	scratch := make([]float64, 2*(len(xs)+1)) // segmentSplit's prefix and suffix sums, reused
	var found []ChangePoint
	for {
		tau, q, ok := bestSplit(xs, cuts, o.MinSize, scratch)
		if !ok {
			break
		}
		above := 0
		copy(work, xs)
		for range o.Permutations {
			for k := 0; k+1 < len(cuts); k++ {
				seg := work[cuts[k]:cuts[k+1]]
				r.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			}
			if _, qp, ok := bestSplit(work, cuts, o.MinSize, scratch); ok && qp >= q {
				above++
			}
		}
		p := float64(1+above) / float64(1+o.Permutations)
		if p >= o.Alpha {
			break
		}
		found = append(found, ChangePoint{Index: tau, Statistic: q, P: p})
		cuts = append(cuts, tau)
		slices.Sort(cuts)
	}
	slices.SortFunc(found, func(a, b ChangePoint) int { return a.Index - b.Index })
	for i := range found {
		lo := 0
		if i > 0 {
			lo = found[i-1].Index
		}
		hi := len(xs)
		if i+1 < len(found) {
			hi = found[i+1].Index
		}
		sizeChange(&found[i], xs, se, lo, found[i].Index, hi, o.Confidence)
	}
	return found
}

// bestSplit returns the split with the largest Q over the segments of
// cuts, each side at least minSize long. scratch holds at least
// 2(len(xs)+1) values.
func bestSplit(xs []float64, cuts []int, minSize int, scratch []float64) (tau int, q float64, ok bool) {
	q = math.Inf(-1)
	for k := 0; k+1 < len(cuts); k++ {
		t, v, found := segmentSplit(xs[cuts[k]:cuts[k+1]], minSize, scratch)
		if found && v > q {
			tau, q, ok = cuts[k]+t, v, true
		}
	}
	return tau, q, ok
}

// segmentSplit maximises EDivisiveQ over the splits of one segment. It
// keeps the within-sums of every prefix and suffix, so a segment of n
// values costs O(n²); scratch (at least 2(n+1) values) holds the sums.
func segmentSplit(z []float64, minSize int, scratch []float64) (tau int, q float64, ok bool) {
	n := len(z)
	if n < 2*minSize {
		return 0, 0, false
	}
	// within[i] = Σ_{a<b<i} |z_a - z_b| (prefix), suffix likewise.
	prefix := scratch[:n+1]
	prefix[0] = 0
	for i := 1; i <= n; i++ {
		s := 0.0
		for a := 0; a < i-1; a++ {
			s += math.Abs(z[a] - z[i-1])
		}
		prefix[i] = prefix[i-1] + s
	}
	suffix := scratch[n+1 : 2*(n+1)] // suffix[i] = Σ_{i<=a<b<n}
	suffix[n] = 0
	for i := n - 1; i >= 0; i-- {
		s := 0.0
		for b := i + 1; b < n; b++ {
			s += math.Abs(z[i] - z[b])
		}
		suffix[i] = suffix[i+1] + s
	}
	total := prefix[n]
	q = math.Inf(-1)
	for t := minSize; t <= n-minSize; t++ {
		m, k := float64(t), float64(n-t)
		between := total - prefix[t] - suffix[t]
		e := 2*between/(m*k) - prefix[t]/(m*(m-1)/2) - suffix[t]/(k*(k-1)/2)
		if v := m * k / (m + k) * e; v > q {
			tau, q, ok = t, v, true
		}
	}
	return tau, q, ok
}

// EDivisiveQ is the E-Divisive statistic of two samples with exponent 1
// (Matteson and James 2014, eq. 5 with α = 1), computed directly from its
// definition: the reference the O(n²) search is tested against.
func EDivisiveQ(x, y []float64) float64 {
	m, n := float64(len(x)), float64(len(y))
	var xy, xx, yy float64
	for _, a := range x {
		for _, b := range y {
			xy += math.Abs(a - b)
		}
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			xx += math.Abs(x[i] - x[j])
		}
	}
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			yy += math.Abs(y[i] - y[j])
		}
	}
	e := 2*xy/(m*n) - xx/(m*(m-1)/2) - yy/(n*(n-1)/2)
	return m * n / (m + n) * e
}

// sizeChange fills the size of a change at tau between the segments
// [lo, tau) and [tau, hi).
func sizeChange(c *ChangePoint, xs, se []float64, lo, tau, hi int, confidence float64) {
	var seA, seB []float64
	if se != nil {
		seA, seB = se[lo:tau], se[tau:hi]
	}
	b, vb := WeightedMean(xs[lo:tau], seA)
	a, va := WeightedMean(xs[tau:hi], seB)
	c.Before, c.After = b, a
	c.Relative = a/b - 1
	c.Lo, c.Hi = math.NaN(), math.NaN()
	df := float64(hi - lo - 2)
	if b == 0 || math.IsNaN(va) || math.IsNaN(vb) || df < 1 {
		return
	}
	// Delta method for a/b: var ≈ va/b² + a² vb/b⁴.
	sd := math.Sqrt(va/(b*b) + a*a*vb/(b*b*b*b))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + confidence/2)
	c.Lo, c.Hi = c.Relative-t*sd, c.Relative+t*sd
}

// WeightedMean returns the mean of xs and its variance. With se (each
// value's standard error; NaN or negative where unknown, which leaves
// the value unweighted) the mean is the random-effects weighted mean of
// DerSimonian and Laird (1986): weights 1/(se² + τ²), τ² the moment
// estimate of the variance between values beyond their own, and its
// variance 1/Σw. Without se, or when any se is unknown, it is the plain
// mean with variance s²/n (NaN for fewer than two values).
func WeightedMean(xs, se []float64) (mean, variance float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	known := se != nil
	for _, s := range se {
		if !(s > 0) || math.IsInf(s, 0) {
			known = false
			break
		}
	}
	if !known || n < 2 {
		m := Mean(xs)
		if n < 2 {
			return m, math.NaN()
		}
		ss := 0.0
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return m, ss / float64(n-1) / float64(n)
	}
	// Fixed-effect weights, Cochran's Q, then τ².
	var sw, sw2, swx float64
	for i, x := range xs {
		w := 1 / (se[i] * se[i])
		sw += w
		sw2 += w * w
		swx += w * x
	}
	fixed := swx / sw
	qs := 0.0
	for i, x := range xs {
		qs += (x - fixed) * (x - fixed) / (se[i] * se[i])
	}
	tau2 := max(0, (qs-float64(n-1))/(sw-sw2/sw))
	sw, swx = 0, 0
	for i, x := range xs {
		w := 1 / (se[i]*se[i] + tau2)
		sw += w
		swx += w * x
	}
	return swx / sw, 1 / sw
}
