package xlsx_test

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
)

// TestCapacitySheet: verdict report --slo adds a Capacity sheet whose
// numbers are the capacity view's.
func TestCapacitySheet(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for _, p := range []string{"h100", "l40s"} {
		inv, err := schemas.LoadInventory("../../testdata/capacity/sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob("../../testdata/capacity/" + p + "/*.json")
		dest := filepath.Join(dir, p+".bundle")
		if _, err := ingest.ToBundle(context.Background(), files, dest, ingest.Options{Formats: all.Formats(), SUT: inv}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dest)
	}
	co := analysis.DefaultCapacity
	co.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms")
	co.Resamples = 200
	rep, err := analysis.LoadReport(context.Background(), dirs, analysis.ReportOptions{Resamples: 200, Capacity: &co})
	if err != nil {
		t.Fatal(err)
	}
	path := writeBook(t, rep, dir, xlsx.Options{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(xlsx.SheetCapacity, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, r := range rows {
		if len(r) > 1 && r[0] == "capacity" {
			v, err := strconv.ParseFloat(r[1], 64)
			if err != nil {
				t.Fatalf("capacity cell %q", r[1])
			}
			got = append(got, v)
		}
	}
	if len(got) != 2 {
		t.Fatalf("capacity rows %v", rows)
	}
	for i, cc := range rep.Capacity.Configs {
		if math.Abs(got[i]-cc.Capacity.Load) > 1e-9*cc.Capacity.Load {
			t.Errorf("%s: sheet %v, view %v", cc.Name, got[i], cc.Capacity.Load)
		}
	}
}
