package plot

import (
	"math"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
)

// sweepRun is a run at a load with a throughput and a TTFT p99/p50.
func sweepRun(platform string, rate, conc float64, tput, p99 float64) *analysis.ReportRun {
	r := &analysis.ReportRun{Platform: platform, Name: platform}
	if rate > 0 {
		r.Run.RequestRate = schemas.Some(rate)
	}
	if conc > 0 {
		r.Run.MaxConcurrency = schemas.Some(int64(conc))
	}
	add := func(key string, m schemas.MetricID, v float64) {
		r.Headlines = append(r.Headlines, analysis.Headline{HeadlineSpec: analysis.HeadlineSpec{Key: key, Metric: m},
			Est: analysis.Estimate{Value: v, Lo: 0.9 * v, Hi: 1.1 * v}, Known: true})
	}
	add("output_token_throughput", schemas.OutputTokenThroughput, tput)
	add("ttft_p99", schemas.TTFT, p99)
	add("ttft_p50", schemas.TTFT, p99/2)
	add("tpot_p99", schemas.TPOT, p99/10)
	add("tpot_p50", schemas.TPOT, p99/20)
	return r
}

// TestSweepLines: one point per load point in load order, repeats at
// their median with every run kept, never a line through the repeats.
func TestSweepLines(t *testing.T) {
	type pt struct {
		x, y    float64
		repeats int
	}
	tests := []struct {
		name string
		runs []*analysis.ReportRun
		want map[string][]pt // line name -> points
	}{
		{"repeats at one rate, runs out of order", []*analysis.ReportRun{
			sweepRun("a", 8, 0, 800, 0.3), sweepRun("a", 2, 0, 200, 0.1), sweepRun("a", 4, 0, 410, 0.22),
			sweepRun("a", 4, 0, 390, 0.18), sweepRun("a", 4, 0, 400, 0.2)},
			map[string][]pt{"a p99": {{200, 100, 0}, {400, 200, 3}, {800, 300, 0}}, "a p50": {{200, 50, 0}, {400, 100, 3}, {800, 150, 0}}}},
		{"two repeats: the median is their mean", []*analysis.ReportRun{
			sweepRun("a", 0, 16, 500, 0.4), sweepRun("b", 0, 16, 300, 0.5), sweepRun("a", 0, 16, 520, 0.6), sweepRun("a", 0, 4, 200, 0.1)},
			map[string][]pt{"a p99": {{200, 100, 0}, {510, 500, 2}}, "b p99": {{300, 500, 0}}}},
		{"throughput falls past saturation: load order, not throughput order", []*analysis.ReportRun{
			sweepRun("a", 2, 0, 200, 0.1), sweepRun("a", 4, 0, 400, 0.2), sweepRun("a", 8, 0, 300, 2)},
			map[string][]pt{"a p99": {{200, 100, 0}, {400, 200, 0}, {300, 2000, 0}}}},
		{"no load recorded: one point (repeats), by throughput", []*analysis.ReportRun{
			sweepRun("a", 0, 0, 200, 0.1), sweepRun("a", 0, 0, 400, 0.3)},
			map[string][]pt{"a p99": {{300, 200, 2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := sweepLines(&analysis.Report{Runs: tc.runs}, schemas.TTFT, 1000)
			got := map[string]SweepLine{}
			for _, ln := range lines {
				got[ln.Name] = ln
			}
			for name, want := range tc.want {
				ln, ok := got[name]
				if !ok {
					t.Fatalf("no line %q in %v", name, lines)
				}
				if len(ln.Points) != len(want) {
					t.Fatalf("%s: %d points %+v, want %d", name, len(ln.Points), ln.Points, len(want))
				}
				for k, w := range want {
					p := ln.Points[k]
					if math.Abs(p.X-w.x) > 1e-9 || math.Abs(p.Y-w.y) > 1e-9 || len(p.Repeats) != w.repeats {
						t.Errorf("%s point %d: (%g, %g) with %d repeats, want (%g, %g) with %d", name, k, p.X, p.Y, len(p.Repeats), w.x, w.y, w.repeats)
					}
					if w.repeats > 1 && !math.IsNaN(p.YLo) {
						t.Errorf("%s point %d: a median of repeats carries one run's interval %g", name, k, p.YLo)
					}
				}
			}
		})
	}
}

// TestCapacityLatencyLines: the capacity view's latency lines go through
// the load points in load order, also where the throughput falls past
// saturation.
func TestCapacityLatencyLines(t *testing.T) {
	pt := func(load, tput, p99 float64) analysis.CapacityPoint {
		return analysis.CapacityPoint{Load: load, OutputTokensPerSecond: tput, Latency: map[schemas.MetricID][2]float64{schemas.TTFT: {p99 / 2, p99}}}
	}
	res := &analysis.CapacityResult{Configs: []*analysis.ConfigCapacity{{Name: "a",
		Points: []analysis.CapacityPoint{pt(8, 300, 2), pt(2, 200, 0.1), pt(4, 400, 0.2)}}}}
	lines := capacityLatencyLines(res, schemas.TTFT, 1, func(p analysis.CapacityPoint) float64 { return p.OutputTokensPerSecond })
	if len(lines) != 2 || lines[1].Name != "a p99" {
		t.Fatalf("lines %+v", lines)
	}
	var xs []float64
	for _, p := range lines[1].Points {
		xs = append(xs, p.X)
	}
	if len(xs) != 3 || xs[0] != 200 || xs[1] != 400 || xs[2] != 300 {
		t.Errorf("throughputs in line order %v, want load order 200 400 300", xs)
	}
	// Against requests/s, and per GPU where it is known: a point without
	// the axis's value is left out of the line.
	res.Configs[0].Points[0].RequestsPerSecond, res.Configs[0].Points[1].RequestsPerSecond = 7.5, 2
	res.Configs[0].Points[2].RequestsPerSecond = math.NaN()
	lines = capacityLatencyLines(res, schemas.TTFT, 1, func(p analysis.CapacityPoint) float64 { return p.RequestsPerSecond })
	xs = xs[:0]
	for _, p := range lines[1].Points {
		xs = append(xs, p.X)
	}
	if len(xs) != 2 || xs[0] != 2 || xs[1] != 7.5 || lines[1].Points[1].Y != 2 {
		t.Errorf("requests/s in line order %v, want 2 7.5", xs)
	}
}
