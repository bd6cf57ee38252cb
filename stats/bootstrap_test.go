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

// TestBootstrapRatio checks the ratio of sums against the mean, which it
// equals when every denominator is 1: the same indices are drawn, so the
// intervals agree up to summation order.
func TestBootstrapRatio(t *testing.T) {
	num := slices.Sorted(slices.Values(expSample(400, 21)))
	ones := make([]float64, len(num))
	for i := range ones {
		ones[i] = 1
	}
	o := BootstrapOptions{Resamples: 2000, Seed: 4}
	r := BootstrapRatio(num, ones, o)
	m := Bootstrap(num, MeanStatistic(), o)
	if !close(r.Estimate, m.Estimate, 1e-14) || !close(r.Lo, m.Lo, 1e-12) || !close(r.Hi, m.Hi, 1e-12) ||
		!close(r.Acceleration, m.Acceleration, 1e-9) {
		t.Errorf("ratio with unit denominators %+v, mean %+v", r, m)
	}
	// A constant ratio has a degenerate bootstrap distribution.
	den := expSample(50, 22)
	twice := make([]float64, len(den))
	for i := range den {
		twice[i] = 2 * den[i]
	}
	c := BootstrapRatio(twice, den, o)
	if !close(c.Lo, 2, 1e-12) || !close(c.Hi, 2, 1e-12) || len(c.Warnings) == 0 {
		t.Errorf("constant ratio: %+v", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("mismatched lengths did not panic")
		}
	}()
	BootstrapRatio(num, den, o)
}

// TestBootstrapSmallSamples checks that tiny samples give results with
// warnings rather than panics, for every kind of statistic.
func TestBootstrapSmallSamples(t *testing.T) {
	stats := []Statistic{
		QuantileStatistic(0.99, Linear), QuantileStatistic(0.5, NearestRankCumulative), MeanStatistic(),
		{Name: "max", Func: func(s []float64) float64 { return s[len(s)-1] }},
	}
	for _, n := range []int{1, 2, 3, 5} {
		xs := expSample(n, uint64(n))
		for _, s := range stats {
			iv := Bootstrap(xs, s, BootstrapOptions{Resamples: 200})
			if len(iv.Warnings) == 0 || math.IsNaN(iv.Lo) || iv.Lo > iv.Hi || (n == 1 && iv.Method != BCa && s.Name != "mean") {
				t.Errorf("n=%d %s: %+v", n, s.Name, iv)
			}
		}
	}
	// The maximum's BCa interval pushes its upper end past the last
	// replicate's level, with a warning.
	iv := Bootstrap(expSample(100, 1), stats[3], BootstrapOptions{Resamples: 500})
	if !hasWarning(iv.Warnings, "beyond the resolution") || iv.Hi != iv.Estimate {
		t.Errorf("max: %+v", iv)
	}
	// The number of distinct values is below the estimate in every
	// resample: z0 is +Inf, BCa is undefined, and the percentile interval
	// is given instead.
	distinct := Statistic{Name: "distinct", Func: func(s []float64) float64 {
		d := 0
		for i := range s {
			if i == 0 || s[i] != s[i-1] {
				d++
			}
		}
		return float64(d)
	}}
	iv = Bootstrap(expSample(100, 1), distinct, BootstrapOptions{Resamples: 500})
	if iv.Method != Percentile || !math.IsInf(iv.Z0, 1) || !hasWarning(iv.Warnings, "percentile interval given instead") {
		t.Errorf("distinct: %+v", iv)
	}
}

func TestBootstrapWarnings(t *testing.T) {
	has := func(iv Interval, sub string) bool { return hasWarning(iv.Warnings, sub) }
	xs := expSample(500, 3)
	if iv := Bootstrap(xs, QuantileStatistic(0.99, Linear), BootstrapOptions{Resamples: 1000}); !has(iv, "needs 1000 samples") {
		t.Errorf("p99 of 500: %v", iv.Warnings)
	}
	if iv := Bootstrap(xs, QuantileStatistic(0.9, Linear), BootstrapOptions{Resamples: 1000}); len(iv.Warnings) != 0 {
		t.Errorf("p90 of 500: %v", iv.Warnings)
	}
	if iv := Bootstrap(xs, MedianStatistic(), BootstrapOptions{Resamples: 100}); !has(iv, "use at least 400") {
		t.Errorf("100 resamples: %v", iv.Warnings)
	}
	if iv := Bootstrap(expSample(10, 3), MeanStatistic(), BootstrapOptions{Resamples: 1000}); !has(iv, "from 10 samples") {
		t.Errorf("n=10: %v", iv.Warnings)
	}
	flat := []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
	if iv := Bootstrap(flat, MeanStatistic(), BootstrapOptions{Resamples: 1000}); !has(iv, "every bootstrap replicate equals 2") || iv.Lo != 2 || iv.Hi != 2 {
		t.Errorf("constant: %+v", iv)
	}
}

// TestGroupedJackknife checks that the delete-a-group acceleration agrees
// with the leave-one-out one on a skewed sample, and that it is used above
// JackknifeGroups values. 2000 groups of 5 exponential values have group
// sums of skewness 2/sqrt(5) = 0.89, estimated with a standard error near
// sqrt(6/2000) = 0.055, so a is expected within about 6%; the test allows
// 25%.
func TestGroupedJackknife(t *testing.T) {
	xs := expSample(10000, 8)
	sorted, _ := sortedCopy(xs)
	custom := Statistic{Name: "mean", Func: Mean}
	full := leaveOneOut(sorted, custom).acceleration()
	grouped := groupedJackknife(sorted, custom, 2000, 1, 2).acceleration()
	if math.Abs(grouped/full-1) > 0.25 {
		t.Errorf("grouped a = %v, leave-one-out a = %v", grouped, full)
	}
	o := BootstrapOptions{Resamples: 300, JackknifeGroups: 2000, Seed: 1}
	iv := Bootstrap(xs, custom, o)
	if iv.Acceleration != grouped {
		t.Errorf("Bootstrap used a = %v, grouped jackknife %v", iv.Acceleration, grouped)
	}
}
