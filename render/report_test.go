package render_test

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
)

const demo = "../testdata/demo/"

// demoBundles ingests the two demo platforms into dir, as `make demo`
// does.
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
			Formats: all.Formats(), SUT: inv, Labels: map[string]string{"platform": p},
			Bundle: schemas.BundleOptions{VerdictVersion: "test", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dest)
	}
	return out
}

// goldenAt compares got with render/testdata/name under the repository
// root (testkit.Golden); the report tests run in a temporary directory.
func goldenAt(t *testing.T, root, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join(root, "render", "testdata", name), []byte(got))
}

// demoReport is the report of the demo bundles with the demo quotes,
// read with relative paths from a temporary directory so that outputs do
// not depend on where it is.
func demoReport(t *testing.T) (*analysis.Report, string) {
	t.Helper()
	dir := t.TempDir()
	demoBundles(t, dir)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(root, "testdata", "demo")
	t.Chdir(dir)
	rep, err := analysis.LoadReport(context.Background(), []string{"platform-a.bundle", "platform-b.bundle"}, analysis.ReportOptions{
		VerdictVersion: "test", Resamples: 2000, Quotes: []string{filepath.Join(abs, "quote-a.yaml"), filepath.Join(abs, "quote-b.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	return rep, root
}

// TestReportGolden pins the text, Markdown and JSON renderings of the
// demo report.
func TestReportGolden(t *testing.T) {
	rep, root := demoReport(t)
	for _, c := range []struct {
		f     render.Format
		brief bool
		name  string
	}{
		{render.Text, true, "report-demo-brief.table"},
		{render.Text, false, "report-demo.table"},
		{render.Markdown, false, "report-demo.markdown"},
		{render.JSON, true, "report-demo-brief.json"},
	} {
		var b bytes.Buffer
		if err := render.WriteReport(&b, rep, c.f, c.brief); err != nil {
			t.Fatal(err)
		}
		goldenAt(t, root, c.name, strings.ReplaceAll(b.String(), root, "ROOT"))
	}
}

func TestReportFigures(t *testing.T) {
	rep, _ := demoReport(t)
	if len(rep.Runs) != 2 {
		t.Fatalf("%d runs", len(rep.Runs))
	}
	a := rep.Runs[0]
	if a.Name != "a" || a.Platform != "a" || !a.Complete() {
		t.Errorf("run a: name %q, platform %q, status %q", a.Name, a.Platform, a.Status())
	}
	// The headline p99 is the computed percentile of the per-request
	// data, equal to the tool's own figure, with an interval around it.
	h, ok := a.Headline("ttft_p99")
	if !ok || !h.Known || h.From != "requests" {
		t.Fatalf("ttft_p99: %+v", h)
	}
	var reported float64
	for _, m := range a.Metrics {
		if m.MetricID == schemas.TTFT && m.Stat == schemas.StatP && m.Percentile.V == 99 && m.Source == schemas.SourceReported {
			reported = m.Value.V
		}
	}
	if math.Abs(h.Est.Value-reported) > 1e-12 || !(h.Est.Lo <= h.Est.Value && h.Est.Value <= h.Est.Hi) {
		t.Errorf("ttft p99 %v [%v, %v], reported %v", h.Est.Value, h.Est.Lo, h.Est.Hi, reported)
	}
	// Throughput interval: a scaled mean around the run's throughput.
	tp, _ := a.Headline("output_token_throughput")
	if !(tp.Est.Lo < tp.Est.Value && tp.Est.Value < tp.Est.Hi) || math.Abs(tp.Est.Value-24009/34.748682018308315) > 1e-6 {
		t.Errorf("output token throughput %+v", tp.Est)
	}
	// The quote prices the run's duration (no timestamps) per second.
	c := a.Cost
	if c == nil || c.Quote == nil || !c.WindowFromDuration || c.UnitsSource != "quote" {
		t.Fatalf("cost: %+v", c)
	}
	if got := c.Quote.GPU.BilledUnits.String(); got != "35" {
		t.Errorf("billed seconds %s, want 35", got)
	}
	u, _ := c.Unit(costing.CostPer1MOutputTokens)
	want := c.Quote.TotalCost.Float64() * 1e6 / 24009
	if math.Abs(u.Value-want) > 1e-12 || !(u.Lo < u.Value && u.Value < u.Hi) {
		t.Errorf("cost per 1M output tokens %v [%v, %v], want %v", u.Value, u.Lo, u.Hi, want)
	}
	// Steady state: the quote's rate per hour (2.49 per GPU-hour for one
	// GPU, 200 GB at 0.08 per GB-month of 730 h) over the measured
	// throughput and its interval, not the 35 billed seconds.
	rate := 2.49 + 200*0.08/730
	s, _ := c.SteadyUnit(costing.SteadyCostPer1MOutputTokens)
	if c.SteadyRate == nil || math.Abs(c.SteadyRate.PerHour-rate) > 1e-9 || math.Abs(s.Value-rate/3600*1e6/tp.Est.Value) > 1e-9 ||
		math.Abs(s.Lo-rate/3600*1e6/tp.Est.Hi) > 1e-9 || math.Abs(s.Hi-rate/3600*1e6/tp.Est.Lo) > 1e-9 {
		t.Errorf("steady state %+v, rate %+v; want %v/h over %+v", s, c.SteadyRate, rate, tp.Est)
	}
	if rep.Validation != nil || !strings.Contains(render.ValidationTable(rep).Notes[0], "validation not available") {
		t.Errorf("validation should be reported as not available")
	}
}

// TestReportIncomplete: a run without inventory or per-request data is
// marked incomplete, and stays in input order.
func TestReportIncomplete(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "bare.bundle")
	// No --sut: the inventory is unknown.
	if _, err := ingest.ToBundle(context.Background(), []string{demo + "platform-b.json"}, dest, ingest.Options{Formats: all.Formats()}); err != nil {
		t.Fatal(err)
	}
	bundles := append(demoBundles(t, dir)[:1], dest)
	rep, err := analysis.LoadReport(context.Background(), bundles, analysis.ReportOptions{Confidence: -1,
		Validation: &analysis.ReportValidation{Verdict: "incomplete", Runs: []analysis.ReportRunVerdict{{Bundle: dest, RunID: "x", Verdict: "invalid"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs[0].Name != "a" || rep.Runs[1].Name != "bare" {
		t.Fatalf("order: %s, %s", rep.Runs[0].Name, rep.Runs[1].Name)
	}
	st := rep.Runs[1].Status()
	if !strings.HasPrefix(st, "INCOMPLETE") || !strings.Contains(st, "system under test unknown") || !strings.Contains(st, "validation verdict incomplete") {
		t.Errorf("status %q", st)
	}
	h, _ := rep.Runs[0].Headline("ttft_p99")
	if !math.IsNaN(h.Est.Lo) {
		t.Errorf("intervals were turned off: %+v", h.Est)
	}
}

func TestMoneyText(t *testing.T) {
	for v, want := range map[float64]string{1234.5678: "1234.57 USD", 0.00008445279: "0.00008445 USD", 1.0171141: "1.017 USD", 0: "0 USD"} {
		if got := render.MoneyText(v, "USD"); got != want {
			t.Errorf("MoneyText(%v) = %q, want %q", v, got, want)
		}
	}
}
