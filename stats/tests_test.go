package stats

import (
	"math"
	"testing"
)

// TestMannWhitneyExactBruteForce checks the partition-count tail against
// a count over every assignment of ranks 1..n1+n2 to the first sample.
func TestMannWhitneyExactBruteForce(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {4, 5}, {3, 9}, {2, 30}, {6, 6}, {5, 8}} {
		n1, n2 := sz[0], sz[1]
		n := n1 + n2
		// Distribution of U1 = (sum of ranks of sample 1) - n1(n1+1)/2.
		counts := map[int]float64{}
		var total float64
		var rec func(start, left, sum int)
		rec = func(start, left, sum int) {
			if left == 0 {
				counts[sum-n1*(n1+1)/2]++
				total++
				return
			}
			for r := start; r <= n-left+1; r++ {
				rec(r+1, left-1, sum+r)
			}
		}
		rec(1, n1, 0)
		for u := n1 * n2 / 2; u <= n1*n2; u++ {
			var want float64
			for k, c := range counts {
				if k >= u {
					want += c
				}
			}
			want /= total
			if got := mannWhitneyTail(n1, n2, u); math.Abs(got-want) > 1e-13 {
				t.Errorf("n=%d,%d: P[U >= %d] = %v, enumeration %v", n1, n2, u, got, want)
			}
		}
	}
}

func TestMannWhitneyProperties(t *testing.T) {
	x := []float64{1.1, 2.5, 3.7, 0.4, 5.2, 6.8, 2.2, 9.1, 4.4, 3.3}
	y := []float64{2.9, 7.7, 8.1, 6.6, 5.9, 9.9, 4.8, 7.2, 8.8}
	a, b := MannWhitneyU(x, y), MannWhitneyU(y, x)
	if a.P != b.P || a.U+b.U != float64(len(x)*len(y)) || a.Exact {
		t.Errorf("swap: %+v vs %+v", a, b)
	}
	// Fully separated samples of 3 and 3: the exact two-sided p is
	// 2/C(6,3) = 0.1, also the smallest possible.
	r := MannWhitneyU([]float64{1, 2, 3}, []float64{4, 5, 6})
	if !r.Exact || r.U != 0 || math.Abs(r.P-0.1) > 1e-15 || math.Abs(mannWhitneyMinP(3, 3)-0.1) > 1e-15 {
		t.Errorf("separated 3+3: %+v", r)
	}
}

func TestKolmogorovSmirnovProperties(t *testing.T) {
	x := expSample(300, 4)
	y := expSample(250, 5)
	a, b := KolmogorovSmirnov(x, y), KolmogorovSmirnov(y, x)
	if a != b {
		t.Errorf("swap: %+v vs %+v", a, b)
	}
	if r := KolmogorovSmirnov(x, x); r.D != 0 || r.P != 1 {
		t.Errorf("same sample: %+v", r)
	}
	// Scaling one sample by 3 is an obvious difference.
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = 3 * v
	}
	if r := KolmogorovSmirnov(x, z); r.P > 1e-6 {
		t.Errorf("x vs 3y: %+v", r)
	}
	// Kolmogorov's limit: P[K > 1.3581] = 0.05 (to 4 digits).
	if p := kolmogorovSF(1.3581); math.Abs(p-0.05) > 1e-4 {
		t.Errorf("kolmogorovSF(1.3581) = %v", p)
	}
	if p := kolmogorovSF(0.5); math.Abs(p-0.9639) > 1e-4 {
		t.Errorf("kolmogorovSF(0.5) = %v", p)
	}
}
