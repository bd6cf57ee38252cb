package main

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// TestCostQuote prices the demo run from its quote and stores the costs in
// the bundle: TOTAL_COST = GPU_RATE x GPU_HOURS + the listed storage.
func TestCostQuote(t *testing.T) {
	a, _ := demoBundles(t)
	code, out, errs := runCLI(t, "cost", "--quote", demo+"quote-a.yaml", a)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "TOTAL_COST") || !strings.Contains(out, "stored as costs.parquet") {
		t.Errorf("output: %s", out)
	}
	b, err := schemas.OpenBundle(a)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.Costs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	byItem := map[string]schemas.CostRow{}
	for _, r := range rows {
		byItem[r.Item] = r
	}
	// quote-a: 2.49 USD per GPU-hour billed per second, rounding up; the
	// run has no timestamps, so its duration is the run time.
	secs := math.Ceil(runs[0].DurationS.V)
	gpu := 2.49 * secs / 3600
	if got := byItem["GPU_COST"].AmountValue.V; math.Abs(got-gpu) > 1e-9 {
		t.Errorf("GPU_COST %v, want 2.49 x %v s / 3600 = %v", got, secs, gpu)
	}
	total := byItem["TOTAL_COST"].AmountValue.V
	if other := byItem["OTHER_LISTED_COST"].AmountValue.V; math.Abs(total-(gpu+other)) > 1e-9 || other <= 0 {
		t.Errorf("TOTAL_COST %v != %v + %v", total, gpu, other)
	}
	if per := byItem["cost_per_successful_request"].AmountValue.V; math.Abs(per-total/float64(runs[0].Completed.V)) > 1e-12 {
		t.Errorf("per request %v", per)
	}
	if code, _, errs := runCLI(t, "cost", a); code != 2 || !strings.Contains(errs, "give --billing") {
		t.Errorf("no inputs: %d %s", code, errs)
	}
}

// TestCostBill joins an hourly bill to a 45-minute run with a window:
// 10:30-11:15 takes 30/60 of the 10:00 row and 15/60 of the 11:00 row,
// 49.16 + 24.58 = 73.74 USD; another resource's row is not the run's.
func TestCostBill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap.bundle")
	w, err := schemas.CreateBundle(dir, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC)
	w.AddRun(schemas.Run{ID: "capture-000000000001", Tool: "verdict-capture", Format: "capture", Scenario: schemas.ScenarioServer,
		Arrival: schemas.ArrivalPoisson, Completed: schemas.Some(int64(1000)), WindowStart: schemas.Some(start),
		WindowEnd: schemas.Some(start.Add(45 * time.Minute)), DurationS: schemas.Some(2700.0),
		SUT: schemas.Inventory{ResourceIDs: []string{"i-0a1b2c3d4e5f60718"}}})
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "cost", "--billing", "testdata/focus-hourly.csv", dir)
	if code != 0 {
		t.Fatal(errs)
	}
	b, _ := schemas.OpenBundle(dir)
	rows, _ := b.Costs(context.Background())
	var alloc, total, steady float64
	for _, r := range rows {
		if r.Item == "STEADY_RATE_PER_HOUR" && r.Source == "bill" {
			steady = r.AmountValue.V
		}
		if r.Sort == "allocation" && r.Included {
			alloc += r.AmountValue.V
		}
		if r.Sort == "total" && r.Source == "bill" && r.Item == "TOTAL_COST" {
			total = r.AmountValue.V
		}
		if r.ResourceID == "i-0someoneelse00000" {
			t.Errorf("another resource's charge was allocated: %+v", r)
		}
	}
	if math.Abs(alloc-73.74) > 0.005 || math.Abs(total-73.74) > 0.005 {
		t.Errorf("allocated %v, total %v, want 73.74\n%s", alloc, total, out)
	}
	// The steady-state rate: 73.74 USD over 0.75 h.
	if math.Abs(steady-73.74/0.75) > 1e-9 {
		t.Errorf("steady rate %v, want %v", steady, 73.74/0.75)
	}
}
