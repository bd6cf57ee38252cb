package costing

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestEnergyPerToken works a run by hand: two GPUs whose counters rise by
// 360 kJ and 540 kJ over a 10-minute window (mean 600 W and 900 W, 1.5 kW
// together), generating 1.8 million output tokens (3,000 tokens/s).
// J/token = 900,000 / 1,800,000 = 0.5; tokens/s per kW = 3,000 / 1.5 =
// 2,000 = 1000 / 0.5. Power samples are never read: a power average of
// 5 kW in between would change nothing.
func TestEnergyPerToken(t *testing.T) {
	t0 := time.Date(2025, 6, 10, 10, 0, 0, 0, time.UTC)
	end := t0.Add(10 * time.Minute)
	samples := []EnergySample{
		{GPU: "GPU-a", Time: t0, Millijoules: 1_000_000}, {GPU: "GPU-a", Time: end, Millijoules: 361_000_000},
		{GPU: "GPU-b", Time: t0, Millijoules: 0}, {GPU: "GPU-b", Time: t0.Add(5 * time.Minute), Millijoules: 270_000_000},
		{GPU: "GPU-b", Time: end, Millijoules: 540_000_000},
	}
	te := EnergyPerToken(MeasureEnergy(samples, t0, end, EnergyOptions{}), 1_800_000)
	if te.Joules != 900_000 || te.JoulesPerToken != 0.5 || te.TokensPerSecondPerKW != 2000 || te.Coverage != 1 || len(te.Warnings) != 0 {
		t.Errorf("%+v", te)
	}
	// Scope 2 per million tokens stays labelled: 0.25 kWh at 400 g/kWh is
	// 100 g for 1.8M tokens, 55.6 g per million.
	em := LocationBased(MeasureEnergy(samples, t0, end, EnergyOptions{}), EmissionFactor{GramsCO2ePerKWh: 400, Source: "grid 2024", Region: "X"})
	pm := te.PerMillionTokens(em)
	if pm.Method != LocationBasedMethod || math.Abs(pm.GramsCO2ePerMTokens-100/1.8) > 1e-9 || pm.Factor.Source != "grid 2024" {
		t.Errorf("%+v", pm)
	}
	// Counters covering 8 of 10 minutes: a warning that J/token is low.
	late := []EnergySample{{GPU: "GPU-a", Time: t0.Add(2 * time.Minute), Millijoules: 0}, {GPU: "GPU-a", Time: end, Millijoules: 480_000_000}}
	te = EnergyPerToken(MeasureEnergy(late, t0, end, EnergyOptions{}), 1_000_000)
	if math.Abs(te.Coverage-0.8) > 1e-12 || !hasWarningText(te.Warnings, "cover 80%") {
		t.Errorf("late: %+v", te)
	}
	if te := EnergyPerToken(MeasureEnergy(samples, t0, end, EnergyOptions{}), 0); !math.IsNaN(te.JoulesPerToken) || !hasWarningText(te.Warnings, "no output tokens") {
		t.Errorf("no tokens: %+v", te)
	}
	got, skipped := EnergySamplesFromJoules([]string{"a", "a", "a"}, []time.Time{t0, end, end}, []float64{1.2345, 2.5, math.NaN()})
	if skipped != 1 || len(got) != 2 || got[0].Millijoules != 1235 || got[1].Millijoules != 2500 {
		t.Errorf("from joules: %+v %d", got, skipped)
	}
}

func hasWarningText(ws []error, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Error(), sub) {
			return true
		}
	}
	return false
}
