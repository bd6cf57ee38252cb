package stats

import (
	"math"
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
