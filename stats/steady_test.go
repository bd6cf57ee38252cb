package stats

import (
	"math"
	"slices"
	"testing"
)

// batches returns a series whose batches of five have the given means
// (each batch mean-0 noise of +-d around its mean).
func batches(means []float64, d float64) []float64 {
	var xs []float64
	for _, m := range means {
		xs = append(xs, m-d, m+d, m, m-2*d, m+2*d)
	}
	return xs
}

// TestMSER5Hand works MSER-5 by hand. Batch means 10, 6, 2, 3, 2, 3:
//
//	d=0: mean 26/6, SS = 49.333, MSER = 49.333/36 = 1.37037
//	d=1: 6,2,3,2,3, mean 3.2, SS = 10.8, MSER = 10.8/25 = 0.432
//	d=2: 2,3,2,3, mean 2.5, SS = 1, MSER = 1/16 = 0.0625
//	d=3: 3,2,3, mean 8/3, SS = 2/3, MSER = (2/3)/9 = 0.074074
//	d=4: 2,3, mean 2.5, SS = 0.5, MSER = 0.5/4 = 0.125
//
// The first half is d = 0..3, so d* = 2: drop the first 10 values; 2 is
// before the half, steady. Batch means 1..6 (a rising series) give 0.486,
// 0.4, 0.3125, 0.222 over the first half (and 0.125 at d = 4, not
// searched): d* = 3, on the half, so the run never settled.
func TestMSER5Hand(t *testing.T) {
	m := MSER5(append(batches([]float64{10, 6, 2, 3, 2, 3}, 0.1), 99, 99)) // 2 leftover values ignored
	want := []float64{49.333333333333333 / 36, 0.432, 0.0625, 2.0 / 27, 0.125}
	if m.Batches != 6 || m.Drop != 2 || m.Truncate != 10 || !m.Steady || len(m.Statistic) != 5 {
		t.Fatalf("%+v", m)
	}
	for d, w := range want {
		if !close(m.Statistic[d], w, 1e-12) {
			t.Errorf("MSER(%d) = %.15g, want %.15g", d, m.Statistic[d], w)
		}
	}
	m = MSER5(batches([]float64{1, 2, 3, 4, 5, 6}, 0.3))
	if m.Drop != 3 || m.Steady {
		t.Errorf("rising: %+v", m)
	}
	if !close(m.Statistic[3], 2.0/9, 1e-12) {
		t.Errorf("rising MSER(3) = %v, want 2/9", m.Statistic[3])
	}
	// A large offset does not cancel.
	off := batches([]float64{1e9 + 10, 1e9 + 6, 1e9 + 2, 1e9 + 3, 1e9 + 2, 1e9 + 3}, 0.1)
	if m := MSER5(off); m.Drop != 2 || !close(m.Statistic[2], 0.0625, 1e-6) {
		t.Errorf("offset: %+v", m)
	}
	if m := MSER5(make([]float64, 19)); m.Batches != 3 || m.Steady || m.Statistic != nil {
		t.Errorf("short: %+v", m)
	}
}

// TestSlopeTestHand: x = 1..5, y = 2, 3, 4, 5, 7. Sxx = 10, Sxy = 12, so
// the slope is 1.2 and the intercept 4.2 - 3.6 = 0.6; Syy = 14.8, RSS =
// 14.8 - 144/10 = 0.4, SE = sqrt(0.4/3/10) = 0.1154700538; GuideLLM's t
// for 0.975 and 3 dof is 2.9899395775853796 (approx_t_ppf, evaluated in
// Python), so MOE = 2.98994 * 0.11547 / 1.2 = 0.287707, below 2: rising.
func TestSlopeTestHand(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{2, 3, 4, 5, 7}
	tr := SlopeTest(x, y, 5, 0.95, 2)
	if !close(tr.Slope, 1.2, 1e-12) || !close(tr.Intercept, 0.6, 1e-12) || !close(tr.StdErr, 0.11547005383792515, 1e-12) {
		t.Errorf("%+v", tr)
	}
	if !close(tr.MarginOfError, 0.2877070699966058, 1e-12) || !tr.Rising {
		t.Errorf("MOE %v rising %v", tr.MarginOfError, tr.Rising)
	}
	if got := ApproxTQuantile(0.975, 10); !close(got, 2.2192073919054045, 1e-12) {
		t.Errorf("t(0.975, 10) = %v", got)
	}
	// Offsets as large as Unix timestamps change nothing.
	xs := slices.Clone(x)
	for i := range xs {
		xs[i] += 1.7e9
	}
	if tr2 := SlopeTest(xs, y, 5, 0.95, 2); !close(tr2.Slope, 1.2, 1e-9) || !close(tr2.MarginOfError, tr.MarginOfError, 1e-6) {
		t.Errorf("offset: %+v", tr2)
	}
	// A falling line is not rising; a flat noisy one has a large MOE.
	if tr := SlopeTest(x, []float64{7, 5, 4, 3, 2}, 5, 0.95, 2); tr.Rising {
		t.Errorf("falling: %+v", tr)
	}
	if tr := SlopeTest(x, []float64{3, 1, 3.2, 1, 3}, 5, 0.95, 2); tr.Rising || tr.MarginOfError < 2 {
		t.Errorf("noise: %+v", tr)
	}
	if tr := SlopeTest(x, y, 2, 0.95, 2); tr.Rising || !math.IsNaN(tr.Slope) {
		t.Errorf("too few: %+v", tr)
	}
}

func TestInFlight(t *testing.T) {
	// Requests [0,3), [1,2), [2,5), [4, never), and one without a start.
	start := []float64{0, 1, 2, 4, math.NaN()}
	end := []float64{3, 2, 5, math.NaN(), 1}
	got := InFlight(start, end)
	want := []float64{1, 2, 2, 2} // at 2: [0,3) and [2,5) ([1,2) ended at 2); at 4: [2,5) and [4,..)
	for i, w := range want {
		if got[i] != w {
			t.Errorf("request %d: %v in flight, want %v", i, got[i], w)
		}
	}
	if !math.IsNaN(got[4]) {
		t.Errorf("no start: %v", got[4])
	}
}
