package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFloats checks SortFloats against slices.Sort (the reference:
// pdqsort with cmp.Less, NaNs first) on series that take each path: short
// ones (pdqsort), long ones with every kind of float, ones whose high
// digits are all equal (skipped passes), and all-equal ones.
func TestSortFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := map[string]func(i int) float64{
		"latencies":   func(int) float64 { return 0.001 + r.ExpFloat64()*0.02 },
		"mixed signs": func(int) float64 { return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)) },
		"specials": func(i int) float64 {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.SmallestNonzeroFloat64,
				-math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, r.Float64() - 0.5}[i%10]
		},
		"equal":    func(int) float64 { return 0.25 },
		"integers": func(int) float64 { return float64(r.IntN(300)) },
	}
	for name, f := range gen {
		for _, n := range []int{0, 1, 7, radixMin - 1, radixMin, 100_003, 2*radixParallelMin + 5} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = f(i)
			}
			want := slices.Clone(xs)
			slices.Sort(want)
			got := slices.Clone(xs)
			SortFloats(got)
			if n > 1 && n < 200_000 {
				// Every split between workers sorts as one worker does.
				var one []float64
				for _, w := range []int{1, 2, 3, 7} {
					par := slices.Clone(xs)
					nan := 0
					for i, x := range par {
						if x != x {
							par[i], par[nan] = par[nan], x
							nan++
						}
					}
					radixSortWorkers(par[nan:], w)
					if w == 1 {
						one = par
					}
					for i := range par {
						if math.Float64bits(par[i]) != math.Float64bits(one[i]) && !(par[i] != par[i] && one[i] != one[i]) {
							t.Fatalf("%s n=%d, %d workers: [%d] = %v, one worker gives %v", name, n, w, i, par[i], one[i])
						}
					}
				}
			}
			for i := range want {
				w, g := want[i], got[i]
				same := w == g || (w != w && g != g)
				if !same {
					t.Fatalf("%s n=%d: [%d] = %v, slices.Sort gives %v", name, n, i, g, w)
				}
			}
			// The same multiset of bit patterns (-0 and +0 kept apart).
			bits := func(s []float64) []uint64 {
				b := make([]uint64, len(s))
				for i, x := range s {
					b[i] = math.Float64bits(x)
				}
				slices.Sort(b)
				return b
			}
			if !slices.Equal(bits(got), bits(xs)) {
				t.Fatalf("%s n=%d: values changed", name, n)
			}
		}
	}
}

// BenchmarkSortFloats sorts 15 million latencies (the pooled chunk gaps
// of a 1M-request, 16-chunk run) with SortFloats and with slices.Sort.
func BenchmarkSortFloats(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 15_000_000)
	for i := range xs {
		xs[i] = 0.002 + r.ExpFloat64()*0.01
	}
	work := make([]float64, len(xs))
	for _, c := range []struct {
		name string
		sort func([]float64)
	}{{"radix", SortFloats}, {"pdqsort", slices.Sort[[]float64]}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(xs)))
			for b.Loop() {
				copy(work, xs)
				c.sort(work)
			}
		})
	}
}
