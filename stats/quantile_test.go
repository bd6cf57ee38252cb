package stats

import (
	"math"
	"testing"
)

// TestSharedVector is the cross-tool table of docs/formats/percentiles.md:
// x = 10, 20, ..., 100 read by each tool's own method.
func TestSharedVector(t *testing.T) {
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	ps := []float64{0.25, 0.50, 0.75, 0.90, 0.99}
	want := map[Method][]float64{
		NearestRankFloor:      {30, 60, 80, 100, 100}, // MLPerf
		NearestRankCumulative: {30, 50, 80, 100, 100}, // GuideLLM
		Linear:                {32.5, 55, 77.5, 91, 99.1},
		LocustBuckets:         {30, 60, 80, 100, 100},
		// numpy.percentile(x, [25, 50, 75, 90, 99], method="lower"):
		// x[floor(9p)] = x[2], x[4], x[6], x[8], x[8] (MLPerf Endpoints).
		Lower: {30, 50, 70, 90, 90},
	}
	for m, ws := range want {
		for i, p := range ps {
			if got := Quantile(x, p, m); got != ws[i] {
				t.Errorf("Quantile(x, %v, %s) = %v, want %v", p, m, got, ws[i])
			}
		}
	}
}

// TestCumulativeFloatArtefact pins the GuideLLM behaviour that makes p90 of
// ten values the tenth: the float64 running sum of 0.1 nine times is
// 0.8999999999999999. An exact-arithmetic rank (ceil(n*p)-1 = 8) would give 90.
func TestCumulativeFloatArtefact(t *testing.T) {
	var cum float64
	for range 9 {
		cum += 0.1
	}
	if cum >= 0.9 {
		t.Fatalf("float64 sum of nine 0.1 = %v, expected below 0.9", cum)
	}
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	if got := Quantile(x, 0.9, NearestRankCumulative); got != 100 {
		t.Errorf("p90 = %v, want 100", got)
	}
	if i := cumulativeRank(10, 0.9); i != 9 {
		t.Errorf("cumulativeRank(10, 0.9) = %d, want 9", i)
	}
	// Merged duplicates: probabilities 0.2, 0.3, 0.5 summed as 0.2, 0.5, 1.
	y := []float64{1, 1, 2, 2, 2, 3, 3, 3, 3, 3}
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {0.2, 1}, {0.21, 2}, {0.5, 2}, {0.51, 3}, {1, 3},
	} {
		if got := Quantile(y, c.p, NearestRankCumulative); got != c.want {
			t.Errorf("Quantile(y, %v, cumulative) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestLocustRound(t *testing.T) {
	test := func(in, want float64) {
		t.Helper()
		if got := LocustRound(in); got != want {
			t.Errorf("LocustRound(%v) = %v, want %v", in, got, want)
		}
	}
	// The examples in Locust's own comment.
	test(147, 150)
	test(3432, 3400)
	test(58760, 59000)
	// Halves go to the even multiple (Python's round).
	test(0.5, 0)
	test(1.5, 2)
	test(98.5, 98)
	test(99.5, 100)
	test(145, 140)
	test(155, 160)
	test(999.5, 1000)
	test(1050, 1000)
	test(1150, 1200)
	test(10500, 10000)
	test(11500, 12000)
	// Just off a half: decided by the exact value.
	test(math.Nextafter(145, 0), 140)
	test(math.Nextafter(145, 200), 150)
	test(math.Nextafter(10500, 20000), 11000)
	test(math.Nextafter(10500, 0), 10000)
	test(99.49, 99)
	test(0, 0)
	if !math.IsNaN(LocustRound(math.NaN())) || !math.IsInf(LocustRound(math.Inf(1)), 1) {
		t.Error("LocustRound must pass NaN and +Inf through")
	}
}

// TestLocustWalk checks Quantile's shortcut (the bucket of x[int(n*p)])
// against a literal transcription of Locust's walk over a bucket histogram.
func TestLocustWalk(t *testing.T) {
	walk := func(xs []float64, p float64) float64 {
		counts := map[float64]int{}
		var keys []float64
		for _, x := range xs {
			k := LocustRound(x)
			if counts[k] == 0 {
				keys = append(keys, k)
			}
			counts[k]++
		}
		// sorted(keys, reverse=True)
		for i := range keys {
			for j := i + 1; j < len(keys); j++ {
				if keys[j] > keys[i] {
					keys[i], keys[j] = keys[j], keys[i]
				}
			}
		}
		n := len(xs)
		want := int(float64(n) * p)
		processed := 0
		for _, k := range keys {
			processed += counts[k]
			if n-processed <= want {
				return k
			}
		}
		return 0
	}
	xs := []float64{3, 7.5, 12, 99.6, 101, 145, 155, 870, 999.4, 1049, 1051, 9950, 12345, 60000}
	for _, p := range []float64{0, 0.1, 0.33, 0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1} {
		if got, want := Quantile(xs, p, LocustBuckets), walk(xs, p); got != want {
			t.Errorf("p=%v: Quantile = %v, Locust walk = %v", p, got, want)
		}
	}
}

func TestQuantilePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"empty":  func() { Quantile(nil, 0.5, Linear) },
		"p>1":    func() { Quantile([]float64{1}, 1.5, Linear) },
		"p NaN":  func() { Quantile([]float64{1}, math.NaN(), Linear) },
		"method": func() { Quantile([]float64{1}, 0.5, "bogus") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestLowerRanks checks that the spill path (QuantileRanks and
// QuantileFromRanks) gives what Quantile gives for numpy's "lower", at the
// edges too: p=1 reads the last value, p=0 the first.
func TestLowerRanks(t *testing.T) {
	x := []float64{1, 2, 3, 5, 8, 13, 21}
	for _, p := range []float64{0, 0.1, 0.5, 0.999, 1} {
		ranks, ok := QuantileRanks(len(x), p, Lower)
		if !ok || len(ranks) != 1 {
			t.Fatalf("QuantileRanks(%v) = %v, %v", p, ranks, ok)
		}
		if got, want := QuantileFromRanks(len(x), p, Lower, []float64{x[ranks[0]]}), Quantile(x, p, Lower); got != want {
			t.Errorf("p=%v: from ranks %v, Quantile %v", p, got, want)
		}
	}
	// numpy.percentile([1,2,3,5,8,13,21], 50, method="lower") = 5 (h = 3).
	if got := Quantile(x, 0.5, Lower); got != 5 {
		t.Errorf("median lower = %v, want 5", got)
	}
}
