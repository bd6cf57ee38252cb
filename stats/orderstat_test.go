package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactOrderPMF enumerates all n^n equally likely index tuples of a
// resample of n values and returns the joint distribution of the positions
// of its order statistics k and k+1 (k+1 clamped to n-1).
func exactOrderPMF(n, k int) map[[2]int]float64 {
	pmf := map[[2]int]float64{}
	idx := make([]int, n)
	total := int(math.Pow(float64(n), float64(n)))
	counts := make([]int, n)
	for c := range total {
		x := c
		for i := range idx {
			idx[i] = x % n
			x /= n
		}
		clear(counts)
		for _, i := range idx {
			counts[i]++
		}
		// Position of order statistic m: smallest j with cum count > m.
		at := func(m int) int {
			cum := 0
			for j, c := range counts {
				cum += c
				if cum > m {
					return j
				}
			}
			return n - 1
		}
		pmf[[2]int{at(k), at(min(k+1, n-1))}] += 1 / float64(total)
	}
	return pmf
}

// TestOrderSamplerExact checks the order-statistic shortcut against the
// exact joint distribution of a resample's adjacent order statistics,
// enumerated over all 6^6 resamples of six values, with a chi-square test
// on 200,000 draws. Drawing U_(k+1) from Beta(k, n-k+1), say, or the next
// order statistic from the wrong conditional law fails it.
func TestOrderSamplerExact(t *testing.T) {
	const n, draws = 6, 200000
	sorted := []float64{0, 1, 2, 3, 4, 5}
	for k := range n {
		for _, two := range []bool{false, true} {
			if two && k == n-1 {
				continue
			}
			plan := orderPlan{k: k, two: two, frac: 0.5}
			exact := exactOrderPMF(n, k)
			if !two {
				// Marginal of the first position.
				m := map[[2]int]float64{}
				for key, p := range exact {
					m[[2]int{key[0], key[0]}] += p
				}
				exact = m
			}
			s := newOrderSampler(sorted, plan)
			r := rand.New(rand.NewPCG(uint64(k), 1))
			got := map[[2]int]int{}
			for range draws {
				j1, j2 := s.indices(r)
				got[[2]int{j1, j2}]++
			}
			var chi2 float64
			cells := 0
			for key, p := range exact {
				e := p * draws
				d := float64(got[key]) - e
				chi2 += d * d / e
				cells++
				delete(got, key)
			}
			if len(got) != 0 {
				t.Errorf("k=%d two=%v: impossible outcomes drawn: %v", k, two, got)
			}
			pv := distuv.ChiSquared{K: float64(cells - 1)}.Survival(chi2)
			if pv < 1e-4 {
				t.Errorf("k=%d two=%v: chi2 = %.1f on %d cells, p = %.2g", k, two, chi2, cells-1, pv)
			}
		}
	}
}

// TestGammaSampler checks the mean and variance of the Marsaglia-Tsang
// sampler (both equal the shape).
func TestGammaSampler(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, shape := range []float64{1, 2.5, 100, 1e6} {
		g := newGammaSampler(shape)
		const m = 200000
		xs := make([]float64, m)
		for i := range xs {
			xs[i] = g.draw(r)
		}
		mean, sd := Mean(xs), StdDev(xs, 1)
		// The sample mean has SE sqrt(shape/m); allow 5 SE. The variance
		// check allows 3% (its SE is about sqrt(2/m) relative plus a
		// skewness term).
		if math.Abs(mean-shape) > 5*math.Sqrt(shape/m) || math.Abs(sd*sd/shape-1) > 0.03 {
			t.Errorf("Gamma(%v): mean %v, variance %v", shape, mean, sd*sd)
		}
	}
}

// TestFastPathMatchesResampling draws quantile replicates both ways,
// through the order-statistic shortcut and by resampling value by value
// (the quantile as an opaque custom statistic), and requires the two
// bootstrap distributions to agree (two-sample Kolmogorov-Smirnov test on
// 40,000 replicates each; the replicates take few distinct values, which
// only makes the test conservative) and the exact jackknife to equal the
// leave-one-out one.
func TestFastPathMatchesResampling(t *testing.T) {
	if testing.Short() {
		t.Skip("resamples 40,000 times")
	}
	xs := expSample(150, 3)
	sorted, _ := sortedCopy(xs)
	for _, q := range []Statistic{
		QuantileStatistic(0.75, Linear), QuantileStatistic(0.9, NearestRankFloor),
		QuantileStatistic(0.5, NearestRankCumulative), MedianStatistic(),
		QuantileStatistic(0.97, LocustBuckets),
	} {
		opaque := Statistic{Name: "opaque " + q.Name, Func: q.Func}
		fast := runReplicates(40000, 1, 1, 2, replicatorFor(sorted, q))
		slow := runReplicates(40000, 1, 2, 2, replicatorFor(sorted, opaque))
		if ks := KolmogorovSmirnov(fast, slow); ks.P < 1e-3 {
			t.Errorf("%s: bootstrap distributions differ: D = %.4f, p = %.2g", q.Name, ks.D, ks.P)
		}
		if r := StdDev(fast, 1) / StdDev(slow, 1); math.Abs(r-1) > 0.03 {
			t.Errorf("%s: bootstrap SE ratio %v", q.Name, r)
		}
		a := leaveOneOut(sorted, q).acceleration()
		b := leaveOneOut(sorted, opaque).acceleration()
		if math.Abs(a-b) > 1e-12 {
			t.Errorf("%s: exact jackknife a = %v, leave-one-out a = %v", q.Name, a, b)
		}
	}
	// The test can fail: a shortcut reading the wrong order statistic
	// (one rank too high) is detected.
	wrong := QuantileStatistic(0.75, NearestRankFloor)
	plan := planFor(len(sorted), wrong.p, wrong.method)
	plan.k++
	shifted := runReplicates(40000, 1, 1, 2, func() replicator {
		os := newOrderSampler(sorted, plan)
		return func(r *rand.Rand, dst []float64) { dst[0] = os.draw(r) }
	})
	slow := runReplicates(40000, 1, 2, 2, replicatorFor(sorted, Statistic{Func: wrong.Func}))
	if ks := KolmogorovSmirnov(shifted, slow); ks.P >= 1e-3 {
		t.Errorf("a shifted rank passes: p = %v", ks.P)
	}
}

// TestOrderWindow checks the O(n) selection against a full sort, on data
// with many ties, sorted, reversed and constant runs (the cases that break
// naive partitioning).
func TestOrderWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	gen := map[string]func(i int) float64{
		"ties":     func(int) float64 { return float64(r.IntN(7)) },
		"uniform":  func(int) float64 { return r.Float64() },
		"sorted":   func(i int) float64 { return float64(i) },
		"reversed": func(i int) float64 { return float64(-i) },
		"constant": func(int) float64 { return 3 },
		"organ":    func(i int) float64 { return float64(min(i, 5000-i)) },
	}
	// Large samples go through the subsample guess; the periodic one
	// defeats its strided subsample and falls back.
	gen["large uniform"] = func(int) float64 { return r.Float64() }
	gen["large ties"] = func(int) float64 { return float64(r.IntN(50)) }
	gen["large periodic"] = func(i int) float64 {
		if i%(100000/windowSample) == 0 {
			return 0
		}
		return float64(i)
	}
	for name, g := range gen {
		n := 5000
		if strings.HasPrefix(name, "large") {
			n = 100000
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = g(i)
		}
		keep := slices.Clone(xs)
		sorted := slices.Sorted(slices.Values(xs))
		for _, rg := range [][2]int{{0, 0}, {n - 1, n - 1}, {0, n - 1}, {n/2 - 100, n/2 + 100}, {n * 99 / 100, n*99/100 + 20}, {17, 17}} {
			w := newOrderWindow(xs, rg[0], rg[1])
			for j := rg[0]; j <= rg[1]; j++ {
				if w.at(j) != sorted[j] {
					t.Fatalf("%s: window %v: position %d = %v, sorted %v", name, rg, j, w.at(j), sorted[j])
				}
			}
		}
		if !slices.Equal(xs, keep) {
			t.Fatalf("%s: newOrderWindow modified its input", name)
		}
		// Both ways of selecting are exercised.
		_, ok := windowBySample(xs, n*99/100, n*99/100+20)
		if want := name == "large uniform" || name == "large ties"; ok != want {
			t.Errorf("%s: subsample guess used = %v, want %v", name, ok, want)
		}
	}
}
