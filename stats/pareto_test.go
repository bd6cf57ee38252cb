package stats

import (
	"math"
	"testing"
)

// TestParetoFrontierHand: of the points (x, y) = (10, 900), (20, 800),
// (15, 700), (30, 500), (25, 400), (30, 450), (5, 850) the frontier is
// (10, 900), (20, 800), (30, 500): (15, 700) and (5, 850) are dominated
// by (20, 800) and (10, 900), (25, 400) and (30, 450) by (30, 500).
func TestParetoFrontierHand(t *testing.T) {
	pts := []ParetoPoint{{10, 900, "a"}, {20, 800, "b"}, {15, 700, "c"}, {30, 500, "d"}, {25, 400, "e"}, {30, 450, "f"}, {5, 850, "g"}, {math.NaN(), 1e9, "nan"}}
	f := ParetoFrontier(pts)
	if len(f) != 3 || f[0].Label != "a" || f[1].Label != "b" || f[2].Label != "d" {
		t.Fatalf("frontier %+v", f)
	}
	// At 14 tokens/s/user: 900 + (14-10)/(20-10)*(800-900) = 860.
	for _, c := range []struct {
		x      float64
		y      float64
		status FrontierStatus
	}{
		{14, 860, FrontierInterpolated},
		{25, 650, FrontierInterpolated}, // 800 + 0.5*(500-800)
		{20, 800, FrontierInterpolated},
		{10, 900, FrontierInterpolated},
		{30, 500, FrontierInterpolated},
		{4, 900, FrontierLowerBound},
		{31, math.NaN(), FrontierNotReached},
	} {
		v := ThroughputAt(f, c.x)
		if v.Status != c.status || !(v.Y == c.y || math.IsNaN(v.Y) && math.IsNaN(c.y)) {
			t.Errorf("at %v: %+v, want %v %v", c.x, v, c.y, c.status)
		}
	}
	if v := ThroughputAt(nil, 1); v.Status != FrontierNotReached {
		t.Errorf("empty: %+v", v)
	}
	if Interactivity(0.02) != 50 || !math.IsNaN(Interactivity(0)) {
		t.Error("interactivity")
	}
}
