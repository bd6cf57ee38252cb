package analysis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// figures are one run's TPOT mean, median and p99 as one view computed
// them.
type figures struct{ mean, p50, p99 analysis.Estimate }

func sameEstimate(t *testing.T, view, what string, got, want analysis.Estimate) {
	t.Helper()
	eq := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	if !eq(got.Value, want.Value) || !eq(got.Lo, want.Lo) || !eq(got.Hi, want.Hi) || got.Method != want.Method {
		t.Errorf("%s %s: %v [%v, %v] (%s), stats gives %v [%v, %v] (%s)", view, what, got.Value, got.Lo, got.Hi, got.Method,
			want.Value, want.Lo, want.Hi, want.Method)
	}
}

// TestSameFiguresEverywhere: for the same run, metric, statistic and seed,
// show, stats, compare and report (the models, and their table, Markdown
// and JSON renderings, the workbook's cells and the HTML page) give the
// same value and interval. Before the analysis layer, stats and compare
// drew different bootstrap streams and gave different intervals, and the
// Student's t choice was made twice in render.
func TestSameFiguresEverywhere(t *testing.T) {
	ctx := context.Background()
	dirs := demoBundles(t, t.TempDir())
	eo := analysis.EstimateOptions{Percentiles: []float64{50, 90, 99}, Method: stats.Linear, Confidence: 0.95, Resamples: 2000, Seed: 7}
	so := analysis.StatsOptions{EstimateOptions: eo, Metrics: []schemas.MetricID{schemas.TPOT}}

	res, err := analysis.ComputeStats(ctx, dirs[:1], so)
	if err != nil {
		t.Fatal(err)
	}
	ms := res.Runs[0].Metrics[0]
	q := func(ms analysis.MetricStats, p float64) analysis.Estimate { e, _ := ms.Quantile(p); return e }
	want := figures{ms.Mean, q(ms, 50), q(ms, 99)}
	if !want.p99.HasInterval() || want.mean.Method != string(stats.BCa) {
		t.Fatalf("stats: %+v", want)
	}

	c, err := analysis.Compare(ctx, dirs[0], dirs[1], analysis.CompareOptions{StatsOptions: so, Mean: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	rows := c.Pairs[0].Rows
	sameEstimate(t, "compare", "mean", rows[0].Old, want.mean)
	sameEstimate(t, "compare", "median", rows[1].Old, want.p50)
	sameEstimate(t, "compare", "p99", rows[3].Old, want.p99)

	rep, err := analysis.LoadReport(ctx, dirs, analysis.ReportOptions{Confidence: eo.Confidence, Resamples: eo.Resamples, Seed: eo.Seed})
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Runs[0].Stats[schemas.TPOT]
	sameEstimate(t, "report", "mean", rs.Mean, want.mean)
	sameEstimate(t, "report", "median", q(rs, 50), want.p50)
	sameEstimate(t, "report", "p99", q(rs, 99), want.p99)

	// show prints the ingest's recomputation of the tool's TPOT: the same
	// formula (schemas.Request.TPOT) over the same requests.
	d, err := analysis.LoadShow(ctx, dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	showMean := computedMean(t, d, schemas.TPOT)
	if showMean != want.mean.Value {
		t.Errorf("show TPOT mean %v, stats %v", showMean, want.mean.Value)
	}

	// The renderings print the same text for the same estimate.
	unit := schemas.UnitSeconds
	p99Text := render.EstimateText(want.p99, unit)
	meanText := render.EstimateText(want.mean, unit)
	for _, f := range []render.Format{render.Text, render.Markdown} {
		var sb, cb, rb, shb bytes.Buffer
		must(t, render.WriteStats(&sb, res, f))
		must(t, render.WriteComparison(&cb, c, f))
		must(t, render.WriteReport(&rb, rep, f, false))
		must(t, render.WriteShow(&shb, d, f))
		for view, out := range map[string]string{"stats": sb.String(), "compare": cb.String(), "report": rb.String()} {
			if !strings.Contains(out, p99Text) {
				t.Errorf("%s %s lacks the p99 %q", view, f, p99Text)
			}
		}
		for view, out := range map[string]string{"stats": sb.String(), "compare": cb.String()} {
			if !strings.Contains(out, meanText) {
				t.Errorf("%s %s lacks the mean %q", view, f, meanText)
			}
		}
		for view, out := range map[string]string{"report": rb.String(), "show": shb.String()} {
			if !strings.Contains(out, render.Quantity(want.mean.Value, unit)) {
				t.Errorf("%s %s lacks the mean %q", view, f, render.Quantity(want.mean.Value, unit))
			}
		}
	}

	checkJSON(t, res, c, rep, want)
	checkWorkbook(t, rep, want)

	// The HTML page shows the Summary's text.
	var hb bytes.Buffer
	must(t, html.WriteTo(ctx, &hb, rep, html.Options{}))
	if !strings.Contains(hb.String(), p99Text) {
		t.Errorf("HTML lacks the p99 %q", p99Text)
	}
}

// checkJSON: the JSON documents carry the same numbers, under the same
// keys.
func checkJSON(t *testing.T, res *analysis.StatsResult, c *analysis.Comparison, rep *analysis.Report, want figures) {
	t.Helper()
	var sb, cb, rb bytes.Buffer
	must(t, render.WriteStats(&sb, res, render.JSON))
	must(t, render.WriteComparison(&cb, c, render.JSON))
	must(t, render.WriteReport(&rb, rep, render.JSON, true))
	var sj struct {
		Runs []struct {
			Metrics []struct {
				Mean        estimateJSON   `json:"mean"`
				Percentiles []estimateJSON `json:"percentiles"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	unmarshal(t, sb.Bytes(), &sj)
	var cj struct {
		Pairs []struct {
			Rows []struct {
				Old estimateJSON `json:"old"`
			} `json:"rows"`
		} `json:"pairs"`
	}
	unmarshal(t, cb.Bytes(), &cj)
	var rj struct {
		Tables []struct {
			Title string              `json:"title"`
			Rows  [][]json.RawMessage `json:"rows"`
		} `json:"tables"`
	}
	unmarshal(t, rb.Bytes(), &rj)
	sm := sj.Runs[0].Metrics[0]
	sm.Mean.check(t, "stats json mean", want.mean)
	sm.Percentiles[2].check(t, "stats json p99", want.p99)
	cj.Pairs[0].Rows[0].Old.check(t, "compare json mean", want.mean)
	cj.Pairs[0].Rows[3].Old.check(t, "compare json p99", want.p99)
	found := false
	summary := rj.Tables[0] // the verdict comes first; the Summary after it
	for _, tb := range rj.Tables {
		if strings.HasPrefix(tb.Title, "Summary") {
			summary = tb
			break
		}
	}
	for _, row := range summary.Rows {
		var label string
		json.Unmarshal(row[0], &label)
		if label == "TPOT p99" {
			var e estimateJSON
			unmarshal(t, row[1], &e)
			e.check(t, "report json p99", want.p99)
			found = true
		}
	}
	if !found {
		t.Error("report JSON has no TPOT p99 row")
	}

}

// checkWorkbook: the workbook's Summary cells hold the p99 and its bounds
// in ms.
func checkWorkbook(t *testing.T, rep *analysis.Report, want figures) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.xlsx")
	must(t, xlsx.Write(context.Background(), path, rep, xlsx.Options{NoRequests: true}))
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, _ := f.GetRows(xlsx.SheetSummary)
	col := -1
	for i, h := range sheet[1] {
		if strings.HasPrefix(h, "TPOT p99 (") {
			col = i
		}
	}
	if col < 0 {
		t.Fatal("no TPOT p99 column on the Summary sheet")
	}
	for k, v := range []float64{want.p99.Value, want.p99.Lo, want.p99.Hi} {
		ref, _ := excelize.CoordinatesToCellName(col+1+k, 3)
		raw, _ := f.GetCellValue(xlsx.SheetSummary, ref, excelize.Options{RawCellValue: true})
		got, err := strconv.ParseFloat(raw, 64)
		// Excel keeps 15 significant digits.
		if err != nil || math.Abs(got-v*1e3) > 1e-13*math.Abs(v*1e3) {
			t.Errorf("workbook %s = %q, want %v ms", ref, raw, v*1e3)
		}
	}
}

// TestGuideLLMTPOTOneDefinition is issue 13 item 3 on a GuideLLM bundle
// with complete request records: show printed GuideLLM's token-weighted
// inter-token latency (timed to the last-token event) as "TPOT", 182.114269
// ms, where stats computed verdict's TPOT from the request rows, 182.115081
// ms. Now the two definitions have their own IDs, and show's tpot is the
// recomputation with schemas.Request.TPOT: show, stats, compare and report
// agree (show's mean is GuideLLM's probability-weighted sum over merged
// values, equal to the arithmetic mean within 1e-12).
func TestGuideLLMTPOTOneDefinition(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := ingestBundle(t, dir, "g.bundle", nil, schemas.Inventory{}, "../ingest/guidellm/testdata/genC_complete.json")
	b := ingestBundle(t, dir, "h.bundle", nil, schemas.Inventory{}, "../ingest/guidellm/testdata/genC_complete.json")
	so := analysis.StatsOptions{EstimateOptions: analysis.EstimateOptions{Percentiles: []float64{50, 99}, Method: stats.Linear,
		Confidence: 0.95, Resamples: 1000, Seed: 1}, Metrics: []schemas.MetricID{schemas.TPOT}}
	res, err := analysis.ComputeStats(ctx, []string{a}, so)
	if err != nil {
		t.Fatal(err)
	}
	d, err := analysis.LoadShow(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := analysis.Compare(ctx, a, b, analysis.CompareOptions{StatsOptions: so, Mean: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.LoadReport(ctx, []string{a}, analysis.ReportOptions{Confidence: 0.95, Resamples: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Runs {
		if len(r.Metrics) == 0 {
			continue
		}
		mean := r.Metrics[0].Mean
		show := computedMeanOf(t, d, r.Run.ID, schemas.TPOT)
		if math.Abs(show-mean.Value) > 1e-12*mean.Value {
			t.Errorf("run %s: show tpot mean %v, stats %v", r.Run.ID, show, mean.Value)
		}
		if weighted := computedMeanOf(t, d, r.Run.ID, schemas.TPOTTokenWeighted); weighted == mean.Value {
			t.Errorf("run %s: tpot_token_weighted equals tpot (%v): the fixture does not tell them apart", r.Run.ID, weighted)
		}
		sameEstimate(t, "compare", "mean", c.Pairs[i].Rows[0].Old, mean)
		sameEstimate(t, "report", "mean", rep.Runs[i].Stats[schemas.TPOT].Mean, mean)
	}
}

type estimateJSON struct {
	Value, Lo, Hi *float64
	Method        string `json:"interval_method"`
}

func (e estimateJSON) check(t *testing.T, what string, want analysis.Estimate) {
	t.Helper()
	if e.Value == nil || e.Lo == nil || e.Hi == nil || *e.Value != want.Value || *e.Lo != want.Lo || *e.Hi != want.Hi || e.Method != want.Method {
		t.Errorf("%s: %+v, want %+v", what, e, want)
	}
}

func computedMean(t *testing.T, d *analysis.ShowData, id schemas.MetricID) float64 {
	return computedMeanOf(t, d, d.Runs[0].ID, id)
}

func computedMeanOf(t *testing.T, d *analysis.ShowData, run string, id schemas.MetricID) float64 {
	t.Helper()
	for _, m := range d.Metrics {
		if m.RunID == run && m.MetricID == id && m.Stat == schemas.StatMean && m.Source == schemas.SourceComputed {
			return m.Value.V
		}
	}
	t.Fatalf("show: no computed %s mean for run %s", id, run)
	return 0
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func unmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v in %.200s", err, b)
	}
}
