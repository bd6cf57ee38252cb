package analysis

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/internal/gen"
)

// TestCapacityReusesReportJoin: report --slo --billing joins the bills
// once. Capacity given the report's join of the same windows prices the
// capacity point exactly as its own join does, and does not read the
// billing files again (here they are gone: a second read would fail).
func TestCapacityReusesReportJoin(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "two.bundle")
	if err := gen.TwoLoadBundle(b, time.Date(2026, 11, 24, 10, 10, 0, 0, time.UTC), []string{"i-0c0ffee0c0ffee001"}); err != nil {
		t.Fatal(err)
	}
	co := DefaultCapacity
	co.Limits, _, _ = ParseCapacitySLO("ttft:p99<=400ms")
	co.Resamples = 200
	data, err := os.ReadFile("../testdata/capacity/focus-capacity.csv")
	if err != nil {
		t.Fatal(err)
	}
	bill := filepath.Join(dir, "focus-capacity.csv")
	if err := os.WriteFile(bill, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := LoadReport(context.Background(), []string{b}, ReportOptions{Billing: []string{bill}, Capacity: &co, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	own := co
	own.Billing = []string{bill}
	alone, err := Capacity(context.Background(), []string{b}, own)
	if err != nil {
		t.Fatal(err)
	}
	got, want := rep.Capacity.Configs[0].Cost, alone.Configs[0].Cost
	if got == nil || got.Source != "bill" || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(rep.Capacity.Notes, alone.Notes) {
		t.Fatalf("report's capacity cost %+v, notes %q;\nalone %+v, notes %q", got, rep.Capacity.Notes, want, alone.Notes)
	}
	if err := os.Remove(bill); err != nil {
		t.Fatal(err)
	}
	reused := own
	reused.joined = rep.Costs
	again, err := Capacity(context.Background(), []string{b}, reused)
	if err != nil {
		t.Fatalf("the join was not reused: %v", err)
	}
	if !reflect.DeepEqual(again.Configs[0].Cost, want) {
		t.Errorf("reused join %+v, want %+v", again.Configs[0].Cost, want)
	}
	// Other files, or other windows, are joined afresh (and here fail).
	other := reused
	other.Billing = []string{filepath.Join(dir, "other.csv")}
	if _, err := Capacity(context.Background(), []string{b}, other); err == nil {
		t.Error("another bill's join was reused")
	}
	if sameJoinWindows(rep.Costs.windows, rep.Costs.windows[1:]) || !sameJoinWindows(rep.Costs.windows, rep.Costs.windows) {
		t.Error("sameJoinWindows")
	}
}
