package xlsx_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
)

// handTrend is a trend by hand: series a (its name a formula) has its p99
// TTFT rise by 20% at its fifth run, a regression, and its throughput
// without change; series b has three runs, too few.
func handTrend() *analysis.TrendReport {
	ttft := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}, Name: "TTFT",
		Unit: schemas.UnitSeconds, Direction: schemas.LowerIsBetter}
	tput := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.OutputTokenThroughput, Stat: schemas.StatValue}, Name: "Output token throughput",
		Unit: schemas.UnitTokensPerSecond, Direction: schemas.HigherIsBetter}
	a := analysis.TrendSeries{Name: hostile}
	for i := range 8 {
		id := fmt.Sprintf("a-%d", i)
		a.Runs = append(a.Runs, analysis.TrendRun{RunID: id, Order: fmt.Sprintf("v0.%d", i)})
		v := 0.5
		if i >= 4 {
			v = 0.6
		}
		ttft.Points = append(ttft.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: v, SE: 0.005})
		if i != 2 { // run a-2 has no throughput
			tput.Points = append(tput.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: 1000 + float64(i), SE: math.NaN()})
		}
	}
	ttft.Changes = []analysis.TrendChange{{Index: 4, RunID: "a-4", Order: "v0.4", Before: 0.5, After: 0.6, Relative: 0.2, Lo: 0.18, Hi: 0.22,
		P: 0.005, Direction: "bad", Regression: true, PHolm: math.NaN()}}
	a.Metrics = []analysis.TrendMetric{ttft, tput}
	b := analysis.TrendSeries{Name: "b"}
	short := ttft
	short.Points, short.Changes, short.Note = nil, nil, "3 values: too few to look for a change"
	for i := range 3 {
		id := fmt.Sprintf("b-%d", i)
		b.Runs = append(b.Runs, analysis.TrendRun{RunID: id, Order: fmt.Sprintf("v0.%d", i)})
		short.Points = append(short.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: 0.7, SE: math.NaN()})
	}
	b.Metrics = []analysis.TrendMetric{short}
	return &analysis.TrendReport{Dataset: "history.dataset", By: "label:engine_version", MinChange: 0.02, Series: []analysis.TrendSeries{a, b}}
}

// TestTrendSheet: verdict report --trend adds a Trend sheet whose
// changes and per-run values are the trend's numbers, read back with
// excelize, each series' figure embedded below its changes, and the
// formula-like series name stored as text.
func TestTrendSheet(t *testing.T) {
	tr := handTrend()
	rep := &analysis.Report{Title: "trend", Trend: tr}
	figs, _, err := plot.Trend(tr, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var o xlsx.Options
	for _, f := range figs {
		o.TrendPictures = append(o.TrendPictures, xlsx.Picture{Name: f.Name, Title: f.Title, Caption: f.Caption, PNG: f.PNG})
	}
	path := filepath.Join(t.TempDir(), "trend.xlsx")
	if err := xlsx.Write(context.Background(), path, rep, o); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A trend alone: no bundle sheets.
	if got := f.GetSheetList(); !slices.Equal(got, []string{xlsx.SheetTrend, xlsx.SheetAbout}) {
		t.Fatalf("sheets %v, want Trend and About", got)
	}
	rows, err := f.GetRows(xlsx.SheetTrend, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	num := func(r []string, i int) float64 {
		t.Helper()
		if i >= len(r) {
			t.Fatalf("row %q has no column %d", r, i+1)
		}
		v, err := strconv.ParseFloat(r[i], 64)
		if err != nil {
			t.Fatalf("row %q, column %d: %v", r, i+1, err)
		}
		return v
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	var change, run4, run2, short []string
	runsHeader := -1
	for i, r := range rows {
		switch {
		case len(r) > 1 && r[0] == "ttft:p99" && r[1] == "a-4":
			change = r
		case len(r) > 1 && r[0] == "ttft:p99" && r[1] == "too few runs":
			short = r
		case len(r) > 3 && r[0] == "run" && r[1] == "run ID" && runsHeader < 0:
			runsHeader = i
		case runsHeader >= 0 && len(r) > 1 && r[1] == "a-4" && run4 == nil:
			run4 = r
		case runsHeader >= 0 && len(r) > 1 && r[1] == "a-2" && run2 == nil:
			run2 = r
		}
	}
	if change == nil || short == nil || run4 == nil || run2 == nil {
		t.Fatalf("change %q, short %q, run a-4 %q, run a-2 %q in\n%q", change, short, run4, run2, rows)
	}
	// before/after in ms, the size and its interval as ratios, p.
	for i, want := range map[int]float64{4: 500, 5: 600, 6: 0.2, 7: 0.18, 8: 0.22, 9: 0.005} {
		if got := num(change, i); !near(got, want) {
			t.Errorf("change column %d = %v, want %v", i+1, got, want)
		}
	}
	if change[3] != "ms" || change[10] != "bad" || change[11] != "yes" {
		t.Errorf("change row %q", change)
	}
	// Run a-4: fifth, p99 TTFT 600 ms ± 1.96 × 5 ms; throughput without
	// an interval. Run a-2 has no throughput: its cells are empty.
	want := []float64{5, 0, 0, 600, 600 - 1.959963984540054*5, 600 + 1.959963984540054*5, 1004}
	for i, w := range want {
		if i == 1 || i == 2 {
			continue
		}
		if got := num(run4, i); !near(got, w) {
			t.Errorf("run a-4 column %d = %v, want %v", i+1, got, w)
		}
	}
	if len(run4) > 7 && run4[7] != "" || len(run2) > 6 && run2[6] != "" {
		t.Errorf("intervals or values where there are none: a-4 %q, a-2 %q", run4, run2)
	}
	// The series name, a formula, is text as given, with quotePrefix.
	i := slices.IndexFunc(rows, func(r []string) bool { return len(r) > 0 && r[0] == hostile })
	if i < 0 {
		t.Fatal("the series name is not stored as text")
	}
	if id, _ := f.GetCellStyle(xlsx.SheetTrend, "A"+strconv.Itoa(i+1)); !quotePrefixXfs(t, path)[id] {
		t.Error("the series name lacks the quotePrefix style")
	}
	// One picture per series, each the figure's PNG.
	cells, err := f.GetPictureCells(xlsx.SheetTrend)
	if err != nil || len(cells) != 2 {
		t.Fatalf("pictures at %v (%v)", cells, err)
	}
	for i, c := range cells {
		pics, err := f.GetPictures(xlsx.SheetTrend, c)
		if err != nil || len(pics) != 1 || !bytes.Equal(pics[0].File, figs[i].PNG) {
			t.Errorf("picture at %s: %d, %v", c, len(pics), err)
		}
	}
}
