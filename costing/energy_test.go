package costing

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestMeasureEnergy(t *testing.T) {
	t0 := time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC)
	s := func(gpu string, sec int, mJ uint64) EnergySample {
		return EnergySample{GPU: gpu, Time: t0.Add(time.Duration(sec) * time.Second), Millijoules: mJ}
	}
	samples := []EnergySample{
		// GPU-a: steady, samples out of order, one before and one after the window.
		s("GPU-a", -10, 1_000_000), s("GPU-a", 600, 421_000_000), s("GPU-a", 0, 1_000_000),
		s("GPU-a", 1200, 841_000_000), s("GPU-a", 1210, 900_000_000),
		// GPU-b: the driver reloads between 600 s and 900 s; the counter restarts.
		s("GPU-b", 0, 5_000_000_000), s("GPU-b", 600, 5_300_000_000), s("GPU-b", 900, 100_000_000),
		s("GPU-b", 1200, 400_000_000),
		// GPU-c: samples start late.
		s("GPU-c", 60, 0), s("GPU-c", 1200, 700_000_000),
	}
	e := MeasureEnergy(samples, t0, t0.Add(20*time.Minute), EnergyOptions{})
	// GPU-a: 841e6 − 1e6 = 840e6 mJ = 840 kJ.
	// GPU-b: 300e6 (0→600 s) + 100e6 (counter value after the reset) + 300e6 = 700e6 mJ.
	// GPU-c: 700e6 mJ, with an edge warning.
	want := map[string]uint64{"GPU-a": 840_000_000, "GPU-b": 700_000_000, "GPU-c": 700_000_000}
	if len(e.GPUs) != 3 {
		t.Fatalf("%d GPUs", len(e.GPUs))
	}
	for _, g := range e.GPUs {
		if g.Millijoules != want[g.GPU] {
			t.Errorf("%s: %d mJ, want %d", g.GPU, g.Millijoules, want[g.GPU])
		}
	}
	if e.GPUs[1].Resets != 1 || len(e.GPUs[1].Warnings) != 1 || !strings.Contains(e.GPUs[1].Warnings[0].Error(), "reset") {
		t.Errorf("GPU-b reset not reported: %+v", e.GPUs[1])
	}
	if len(e.GPUs[2].Warnings) != 1 || !strings.Contains(e.GPUs[2].Warnings[0].Error(), "edges") {
		t.Errorf("GPU-c edge not reported: %+v", e.GPUs[2])
	}
	// 2240e6 mJ = 2,240,000 J = 0.6222… kWh
	if e.Joules != 2_240_000 || math.Abs(e.KWh-2_240_000/3.6e6) > 1e-12 || len(e.Warnings) != 2 {
		t.Errorf("total %v J %v kWh warnings %v", e.Joules, e.KWh, e.Warnings)
	}

	// A counter that wraps at 2^32−1 mJ.
	wrap := []EnergySample{s("GPU-w", 0, math.MaxUint32-999), s("GPU-w", 60, 1000)}
	e = MeasureEnergy(wrap, t0, t0.Add(time.Minute), EnergyOptions{CounterMax: math.MaxUint32})
	// (MaxUint32 − (MaxUint32 − 999)) + 1000 + 1 = 999 + 1001 = 2000
	if g := e.GPUs[0]; g.Millijoules != 2000 || g.Wraps != 1 || len(g.Warnings) != 0 {
		t.Errorf("wrap: %+v", g)
	}
	if e := MeasureEnergy(nil, t0, t0.Add(time.Minute), EnergyOptions{}); len(e.Warnings) != 1 || e.KWh != 0 {
		t.Errorf("no samples: %+v", e)
	}
}

// TestScope2 keeps location- and market-based figures apart, each with its
// method and factor source.
func TestScope2(t *testing.T) {
	e := Energy{KWh: 2.5}
	loc := LocationBased(e, EmissionFactor{GramsCO2ePerKWh: 380, Source: "grid average 2024 (user)", Region: "DE"})
	mkt := MarketBased(e, EmissionFactor{GramsCO2ePerKWh: 20, Source: "supplier contract (user)"})
	if loc.Method != LocationBasedMethod || loc.GramsCO2e != 950 || loc.Factor.Source == "" || loc.Scope == "" {
		t.Errorf("location-based %+v", loc)
	}
	if mkt.Method != MarketBasedMethod || mkt.GramsCO2e != 50 {
		t.Errorf("market-based %+v", mkt)
	}
}

func TestUnitCostsUndefined(t *testing.T) {
	out := UnitCosts(Money{dec("10"), "USD"}, RunWindow{}, Throughput{
		SuccessfulRequestsPerSecond: &Interval{Point: 1, Lo: 0, Hi: 2}})
	if !math.IsNaN(out[1].Value) || !strings.Contains(out[1].Note, "SUCCESSFUL_REQUESTS") {
		t.Errorf("zero requests: %+v", out[1])
	}
	// Requests known but no window: no interval can be carried.
	out = UnitCosts(Money{dec("10"), "USD"}, RunWindow{SuccessfulRequests: 4}, Throughput{
		SuccessfulRequestsPerSecond: &Interval{Point: 1, Lo: 0, Hi: 2}})
	if out[1].Amount.String() != "2.5" || !math.IsNaN(out[1].Lo) || !strings.Contains(out[1].Note, "no run window") {
		t.Errorf("no window: %+v", out[1])
	}
	// lo = 0 requests/s: the upper bound is unbounded.
	w := RunWindow{Start: time.Unix(0, 0), End: time.Unix(100, 0), SuccessfulRequests: 100}
	out = UnitCosts(Money{dec("10"), "USD"}, w, Throughput{SuccessfulRequestsPerSecond: &Interval{Point: 1, Lo: 0, Hi: 2}})
	// ρ = 10/100 = 0.1 per s; Lo = 0.1/2 = 0.05, Hi = 0.1/0 = +Inf; value 10/100 = 0.1.
	if out[1].Lo != 0.05 || !math.IsInf(out[1].Hi, 1) || out[1].Value != 0.1 {
		t.Errorf("open interval: %+v", out[1])
	}
}
