package xlsx_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/schemas"
)

const demo = "../../testdata/demo/"

// hostile is a model name that a spreadsheet would run as a formula.
const hostile = `=HYPERLINK("http://x","y")`

// demoBundles ingests the two demo platforms into dir.
func demoBundles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"a", "b"} {
		inv, err := schemas.LoadInventory(demo + "sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(dir, "platform-"+p+".bundle")
		_, err = ingest.ToBundle(context.Background(), []string{demo + "platform-" + p + ".json"}, dest, ingest.Options{
			Formats: all.Formats(), SUT: inv, Labels: map[string]string{"platform": p}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dest)
	}
	return out
}

// windowStart is the synthetic capture run's first dispatch.
var windowStart = time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC)

// captureBundle writes a bundle like capture's: one run with a
// timestamped 45-minute window, a resource ID, GPU samples, per-request
// rows and a hostile model name and platform label.
func captureBundle(t testing.TB, dest string) {
	t.Helper()
	w, err := schemas.CreateBundle(dest, schemas.BundleOptions{VerdictVersion: "test", CreatedAt: windowStart})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	dur := 45 * time.Minute
	run := schemas.Run{ID: "cap-1", Tool: "verdict", Format: "capture", Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
		RequestRate: schemas.Some(0.15), Streaming: schemas.Some(true), Model: hostile,
		NumPrompts: schemas.Some(int64(n)), Completed: schemas.Some(int64(n - 2)), Failed: schemas.Some(int64(2)),
		DurationS: schemas.Some(dur.Seconds()), WindowKind: schemas.WindowKindDispatch,
		WindowStart: schemas.Some(windowStart), WindowEnd: schemas.Some(windowStart.Add(dur)),
		Labels: map[string]string{"platform": "@SUM(1+1)"},
		SUT: schemas.Inventory{Model: hostile, GPUModel: "NVIDIA H100 80GB HBM3", GPUCount: schemas.Some(int64(1)),
			Engine: "vllm", EngineVersion: "0.11.2", ResourceIDs: []string{"i-0gpu1"}}}
	w.AddRun(run)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		q := schemas.Request{RunID: run.ID, Index: int64(i), Status: schemas.StatusOK, Phase: schemas.PhaseProfiling}
		start := float64(i) * dur.Seconds() / n
		ttft := 0.05 + 0.05*rng.Float64()
		out := int64(50 + rng.IntN(100))
		e2e := ttft + float64(out-1)*(0.01+0.002*rng.Float64())
		q.StartS, q.EndS = schemas.Some(start), schemas.Some(start+e2e)
		q.TTFTS, q.E2ES = schemas.Some(ttft), schemas.Some(e2e)
		q.InputTokens, q.OutputTokens = schemas.Some(int64(200+rng.IntN(300))), schemas.Some(out)
		gaps := make([]float64, out-1)
		for k := range gaps {
			gaps[k] = (e2e - ttft) / float64(out-1)
		}
		q.ChunkGapsS = gaps
		if i == 7 || i == 300 {
			q.Status, q.Error = schemas.StatusError, "-1 upstream reset"
			q.TTFTS, q.E2ES, q.OutputTokens, q.ChunkGapsS = schemas.Opt[float64]{}, schemas.Opt[float64]{}, schemas.Opt[int64]{}, nil
		}
		if err := w.AddRequest(&q); err != nil {
			t.Fatal(err)
		}
	}
	for s := 0; s <= 60; s++ {
		at := windowStart.Add(-5 * time.Minute).Add(time.Duration(s) * time.Minute)
		busy := at.After(windowStart) && at.Before(windowStart.Add(dur))
		util, power := 3.0, 70.0
		if busy {
			util, power = 85+10*rng.Float64(), 500+150*rng.Float64()
		}
		smp := schemas.Sample{RunID: run.ID, Source: "nvml", Host: "gpu-host", Device: "0", DeviceName: "NVIDIA H100 80GB HBM3", Time: at,
			UtilPct: schemas.Some(util), MemUsedBytes: schemas.Some(int64(60 << 30)), PowerW: schemas.Some(power)}
		if err := w.AddSample(&smp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(schemas.Manifest{Sources: []schemas.Source{{Path: "capture", Format: "capture", Tool: "verdict", Runs: []string{run.ID}}}}); err != nil {
		t.Fatal(err)
	}
}

// focusBill is a FOCUS export with two hourly rows of the capture run's
// instance and a monthly tax row.
const focusBill = `BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeFrequency,ResourceId,PricingQuantity,PricingUnit,ProviderName
98.32,98.32,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,Usage-Based,i-0gpu1,1,Hours,AWS
98.32,98.32,USD,2025-06-10T11:00:00Z,2025-06-10T12:00:00Z,Usage,Usage-Based,i-0gpu1,1,Hours,AWS
7.15,7.15,USD,2025-06-01T00:00:00Z,2025-07-01T00:00:00Z,Tax,,,,,AWS
`

// quoteYAML prices 1 H100 per second with a start-up fee.
const quoteYAML = `provider: Example GPU Cloud
currency: USD
gpu:
  accelerator: H100
  count: 1
  rate: 2.49
  billing: {unit: second, rounding: up, minimum: 60}
other:
  - {name: start-up fee, kind: startup, basis: per-run, rate: 0.50, unit: start}
`

// writeFile writes data to dir/name and returns the path.
func writeFile(t testing.TB, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
