package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEDivisiveQHand checks the statistic against a case computed by hand
// from Matteson and James (2014), eq. 5 with α = 1: X = {0, 1},
// Y = {5, 6, 7}: 2/(2·3)·33 − 1/1·1 − 1/3·4 = 26/3, times 2·3/5 = 10.4.
func TestEDivisiveQHand(t *testing.T) {
	if q := EDivisiveQ([]float64{0, 1}, []float64{5, 6, 7}); math.Abs(q-10.4) > 1e-12 {
		t.Fatalf("Q = %v, want 10.4", q)
	}
	// The O(n²) search agrees with the definition at every split.
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 17)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	tau, q, ok := segmentSplit(z, 2, make([]float64, 2*(len(z)+1)))
	if !ok {
		t.Fatal("no split")
	}
	best, bestQ := 0, math.Inf(-1)
	for s := 2; s <= len(z)-2; s++ {
		if v := EDivisiveQ(z[:s], z[s:]); v > bestQ {
			best, bestQ = s, v
		}
	}
	if tau != best || math.Abs(q-bestQ) > 1e-9*math.Abs(bestQ) {
		t.Fatalf("search: τ=%d Q=%v, definition: τ=%d Q=%v", tau, q, best, bestQ)
	}
}

func noisy(r *rand.Rand, levels []float64, each int, sd float64) []float64 {
	var xs []float64
	for _, l := range levels {
		for range each {
			xs = append(xs, l+sd*r.NormFloat64())
		}
	}
	return xs
}

func TestEDivisiveKnownSeries(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	drift := make([]float64, 40)
	for i := range drift {
		drift[i] = 100 + 0.5*float64(i) + 0.5*r.NormFloat64()
	}
	tests := []struct {
		name string
		xs   []float64
		want []int // change points; for the drift, at least one anywhere
	}{
		{"one step", noisy(r, []float64{100, 110}, 15, 1), []int{15}},
		{"two steps", noisy(r, []float64{100, 110, 95}, 12, 1), []int{12, 24}},
		{"step down", noisy(r, []float64{50, 45}, 20, 0.5), []int{20}},
		{"drift", drift, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cps := EDivisive(tc.xs, nil, ChangePointOptions{Seed: 3})
			if tc.want == nil {
				if len(cps) == 0 {
					t.Fatal("a drift of 20 sd over the series: no change found")
				}
				return
			}
			if len(cps) != len(tc.want) {
				t.Fatalf("change points %+v, want at %v", cps, tc.want)
			}
			for i, c := range cps {
				if c.Index != tc.want[i] || c.P >= 0.05 {
					t.Errorf("change %d: %+v, want index %d with p < 0.05", i, c, tc.want[i])
				}
				if !(c.Lo <= c.Relative && c.Relative <= c.Hi) {
					t.Errorf("change %d: interval [%v, %v] does not hold %v", i, c.Lo, c.Hi, c.Relative)
				}
			}
			if tc.name == "one step" {
				if c := cps[0]; c.Lo > 0.1 || c.Hi < 0.1 || c.Lo < 0.07 {
					t.Errorf("one step of +10%%: relative %v [%v, %v]", c.Relative, c.Lo, c.Hi)
				}
			}
		})
	}
}

// TestEDivisiveNoise: on pure noise a change is reported at the 5% level
// in about 5% of series. With R = 199 the test's size is 9/200 = 4.5%;
// over 400 series the count of false positives is binomial, and 3
// standard deviations around 400·0.045 = 18 allow 6 to 30.
func TestEDivisiveNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("400 series")
	}
	r := rand.New(rand.NewPCG(11, 13))
	fp := 0
	for i := range 400 {
		xs := noisy(r, []float64{100}, 24, 2)
		if len(EDivisive(xs, nil, ChangePointOptions{Seed: uint64(i)})) > 0 {
			fp++
		}
	}
	if fp < 6 || fp > 30 {
		t.Fatalf("%d of 400 noise series had a change at the 5%% level; want 6..30", fp)
	}
	t.Logf("%d of 400 noise series (%.1f%%)", fp, float64(fp)/4)
}

func TestWeightedMean(t *testing.T) {
	// Equal standard errors and no excess scatter: the plain mean, variance se²/n.
	m, v := WeightedMean([]float64{1, 1, 1, 1}, []float64{2, 2, 2, 2})
	if m != 1 || math.Abs(v-1) > 1e-12 {
		t.Fatalf("mean %v var %v, want 1 and 1", m, v)
	}
	// A noisy value counts less.
	m, _ = WeightedMean([]float64{10, 10, 20}, []float64{0.1, 0.1, 100})
	if math.Abs(m-10) > 0.01 {
		t.Fatalf("weighted mean %v, want about 10", m)
	}
	// Unknown se: the plain mean with s²/n.
	m, v = WeightedMean([]float64{1, 2, 3}, []float64{1, math.NaN(), 1})
	if m != 2 || math.Abs(v-1.0/3) > 1e-12 {
		t.Fatalf("mean %v var %v", m, v)
	}
}

func TestEDivisiveTooShort(t *testing.T) {
	if cps := EDivisive([]float64{1, 2, 3, 4, 5}, nil, ChangePointOptions{}); len(cps) != 0 {
		t.Fatalf("%+v", cps)
	}
}
