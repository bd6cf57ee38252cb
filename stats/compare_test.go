package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func scaled(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f * x
	}
	return out
}

func TestCompare(t *testing.T) {
	old := expSample(400, 10)
	o := CompareOptions{Bootstrap: BootstrapOptions{Resamples: 4000, Seed: 1}}

	same := Compare(old, expSample(400, 11), o)
	if same.Significant || !strings.HasPrefix(same.String(), "~ (p=") {
		t.Errorf("same distribution: %v, %+v", same, same.Test)
	}
	if !(same.Delta.Lo < 0 && same.Delta.Hi > 0) {
		t.Errorf("same distribution: delta interval [%v, %v] excludes 0", same.Delta.Lo, same.Delta.Hi)
	}

	slower := Compare(old, scaled(expSample(400, 12), 1.5), o)
	if !slower.Significant || !strings.HasPrefix(slower.String(), "+") || !strings.Contains(slower.String(), "% (p=") {
		t.Errorf("1.5x slower: %v", slower)
	}
	if !(slower.Ratio.Lo < 1.5 && slower.Ratio.Hi > 1.5) || slower.Ratio.Lo <= 1 {
		t.Errorf("1.5x slower: ratio interval [%v, %v]", slower.Ratio.Lo, slower.Ratio.Hi)
	}
	if d := slower.New.Estimate - slower.Old.Estimate; d != slower.Delta.Estimate {
		t.Errorf("delta %v != new - old %v", slower.Delta.Estimate, d)
	}
	if slower.Old.Estimate != Median(sortedOf(old)) {
		t.Errorf("old median %v", slower.Old.Estimate)
	}

	// Deterministic for any number of workers.
	o.Bootstrap.Workers = 1
	a := Compare(old, scaled(expSample(400, 12), 1.5), o)
	o.Bootstrap.Workers = 5
	b := Compare(old, scaled(expSample(400, 12), 1.5), o)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("workers 1 and 5 differ:\n%+v\n%+v", a, b)
	}

	// Percentile intervals and a mean center.
	o.Bootstrap.Method = Percentile
	o.Center = MeanStatistic()
	m := Compare(old, scaled(old, 2), o)
	if m.Delta.Method != Percentile || !math.IsNaN(m.Delta.Z0) || !(m.Ratio.Lo < 2 && m.Ratio.Hi > 2) {
		t.Errorf("mean, percentile: %+v", m.Ratio)
	}
}

func sortedOf(xs []float64) []float64 { s, _ := sortedCopy(xs); return s }

func TestCompareSmallAndZero(t *testing.T) {
	c := Compare([]float64{1, 2, 3}, []float64{4, 5, 6}, CompareOptions{})
	found := false
	for _, w := range c.Warnings {
		if strings.Contains(w.Error(), "cannot show a difference") {
			found = true
		}
	}
	if !found || c.Significant {
		t.Errorf("3+3 samples: significant=%v warnings %v", c.Significant, c.Warnings)
	}
	// Old median 0: no ratio; the change is shown as an absolute delta.
	z := Compare([]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, CompareOptions{})
	if !math.IsNaN(z.Ratio.Lo) || !strings.HasPrefix(z.String(), "+1 (p=") {
		t.Errorf("zero old: %v, ratio %+v", z, z.Ratio)
	}
}

// TestCompareSchemeAR1: two independent AR(1) latency series of one
// distribution differ by chance only. The i.i.d. comparison, which treats
// neighbouring requests as independent, calls far more of them different
// than its 5% level (0.41 for the mean here, as 2 P(|Z| > 1.96 sqrt(0.4/1.6))
// = 0.33 predicts up to the p90's and the sampling error); the block
// schemes come near 5%, within the small downward coverage bias the block
// bootstraps have at this length (TestCoverageAR1 allows coverage down to
// 0.89 per interval, and a difference of two such is wider still) and the
// 2.2-point sampling error of 100 pairs. Each dependent
// comparison's Old and New are EstimateSeries of each series, as verdict
// stats gives them.
func TestCompareSchemeAR1(t *testing.T) {
	const sims, n, phi = 100, 1000, 0.6
	latencies := func(seed uint64) []float64 {
		xs := ar1(rand.New(rand.NewPCG(seed, 7)), n, phi)
		for i, x := range xs {
			xs[i] = 1 + math.Exp(0.3*x)
		}
		return xs
	}
	bo := BootstrapOptions{Resamples: 300, Workers: 2}
	for _, c := range []struct {
		scheme Scheme
		stat   Statistic
		lo, hi float64 // bounds on the share called different
	}{
		{SchemeIID, MeanStatistic(), 0.2, 1},
		{SchemeIID, QuantileStatistic(0.9, Linear), 0.2, 1},
		{SchemeBlock, MeanStatistic(), 0, 0.16},
		{SchemeBlock, MedianStatistic(), 0, 0.16},
		{SchemeStationary, QuantileStatistic(0.9, Linear), 0, 0.16},
		{SchemeESS, MedianStatistic(), 0, 0.16},
	} {
		different := 0
		for sim := range uint64(sims) {
			old, new := latencies(2*sim), latencies(2*sim+1)
			o := CompareOptions{Center: c.stat, Bootstrap: bo, Scheme: c.scheme}
			o.Bootstrap.Seed = sim
			cmp := Compare(old, new, o)
			if cmp.Significant {
				different++
			}
			if c.scheme == SchemeIID {
				continue
			}
			if cmp.Basis != RatioIntervalTest || cmp.Ratio.Method != Percentile || cmp.OldSeries == nil || cmp.OldSeries.Scheme != c.scheme {
				t.Fatalf("%s %s: basis %s, method %s, series %+v", c.scheme, c.stat.Name, cmp.Basis, cmp.Ratio.Method, cmp.OldSeries)
			}
			want := EstimateSeries(new, c.stat, SeriesOptions{Scheme: c.scheme, Bootstrap: o.Bootstrap})
			if cmp.New.Lo != want.Lo || cmp.New.Hi != want.Hi || cmp.Delta.Estimate != cmp.New.Estimate-cmp.Old.Estimate {
				t.Fatalf("%s %s: new [%v, %v], EstimateSeries [%v, %v]", c.scheme, c.stat.Name, cmp.New.Lo, cmp.New.Hi, want.Lo, want.Hi)
			}
		}
		share := float64(different) / sims
		t.Logf("%-10s %-6s called different %.2f", c.scheme, c.stat.Name, share)
		if share < c.lo || share > c.hi {
			t.Errorf("%s %s: %.2f of same-distribution pairs called different, want [%.2f, %.2f]", c.scheme, c.stat.Name, share, c.lo, c.hi)
		}
	}
}
