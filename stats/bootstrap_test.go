package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func expSample(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 99))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = r.ExpFloat64()
	}
	return xs
}

// TestBootstrapDeterministic checks that the interval is bit-identical for
// any number of workers, and changes with the seed.
func TestBootstrapDeterministic(t *testing.T) {
	xs := expSample(500, 1)
	stats := []Statistic{
		QuantileStatistic(0.9, Linear), MedianStatistic(), MeanStatistic(),
		{Name: "custom p75", Func: QuantileStatistic(0.75, Linear).Func},
	}
	for _, s := range stats {
		var first Interval
		for i, w := range []int{1, 2, 3, 8} {
			o := BootstrapOptions{Resamples: 1000, Seed: 7, Workers: w, JackknifeGroups: 100}
			iv := Bootstrap(xs, s, o)
			if i == 0 {
				first = iv
				continue
			}
			if !reflect.DeepEqual(iv, first) {
				t.Errorf("%s: workers=%d gave %+v, workers=1 gave %+v", s.Name, w, iv, first)
			}
		}
		other := Bootstrap(xs, s, BootstrapOptions{Resamples: 1000, Seed: 8})
		if other.Lo == first.Lo && other.Hi == first.Hi {
			t.Errorf("%s: seeds 7 and 8 gave the same interval", s.Name)
		}
	}
}

// TestBootstrapUnsortedInput checks that order does not matter (unsorted
// quantile input goes through the O(n) order window, sorted input does
// not) and that the input is left alone.
func TestBootstrapUnsortedInput(t *testing.T) {
	xs := expSample(3000, 2)
	keep := slices.Clone(xs)
	sorted := slices.Sorted(slices.Values(xs))
	for _, s := range []Statistic{
		QuantileStatistic(0.9, NearestRankFloor), QuantileStatistic(0.99, Linear),
		QuantileStatistic(0.5, NearestRankCumulative), QuantileStatistic(0.999, LocustBuckets),
		QuantileStatistic(0.01, Linear), MedianStatistic(), MeanStatistic(),
		{Name: "custom", Func: func(s []float64) float64 { return s[len(s)/3] }},
	} {
		o := BootstrapOptions{Resamples: 500, JackknifeGroups: 50}
		a := Bootstrap(xs, s, o)
		if !slices.Equal(xs, keep) {
			t.Fatal("Bootstrap modified its input")
		}
		if b := Bootstrap(sorted, s, o); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: unsorted %+v != sorted %+v", s.Name, a, b)
		}
	}
}

func TestBootstrapEmptyAndNaN(t *testing.T) {
	for name, xs := range map[string][]float64{"empty": nil, "nan": {1, math.NaN(), 2}} {
		iv := Bootstrap(xs, MeanStatistic(), BootstrapOptions{})
		if !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) || len(iv.Warnings) == 0 {
			t.Errorf("%s: %+v, want NaN bounds and a warning", name, iv)
		}
	}
}
