package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/render/xlsx"
)

// TestReportTrend: verdict report --trend DATASET alone writes the trend
// section into the HTML report (each series' figure inline, the
// regression named), a Trend sheet with a picture per series, the
// figures into --plots DIR and the trend's tables on stdout.
func TestReportTrend(t *testing.T) {
	trendDataset(t)
	code, out, errs := runCLI(t, "report", "--trend", "ds", "--trend-by", "label:engine_version", "--trend-metric", "ttft:p99,output_token_throughput",
		"--html", "trend.html", "--xlsx", "trend.xlsx", "--plots", "plots")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Trend of ds (by label:engine_version)", "Series vllm · org/model-8b · server · 10 req/s · GPU-0", "gpu0-0010 (v0.10)", "yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Summary") {
		t.Errorf("a report of a trend alone prints a Summary:\n%s", out)
	}
	b, err := os.ReadFile("trend.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	sec := regexp.MustCompile(`(?s)<section id="trend">.*?</section>`).FindString(page)
	if n := strings.Count(sec, `<svg class="figure"`); n != 2 {
		t.Errorf("%d inline trend figures, want one per series (2)", n)
	}
	for _, want := range []string{`<figure id="figure-trend-1-vllm-org-model-8b-server-10-req-s-gpu-0">`, "TTFT p99: REGRESSION", "REGRESSION +19.4%", "from run 11 (gpu0-0010)", "the history in <code>ds</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	f, err := excelize.OpenFile("trend.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(xlsx.SheetTrend)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if len(r) > 11 && r[0] == "ttft:p99" && r[1] == "gpu0-0010" && r[11] == "yes" {
			found = true
		}
	}
	if !found {
		t.Errorf("the Trend sheet has no regression row for gpu0-0010:\n%q", rows)
	}
	if cells, err := f.GetPictureCells(xlsx.SheetTrend); err != nil || len(cells) != 2 {
		t.Errorf("Trend sheet pictures %v (%v), want 2", cells, err)
	}
	svgs, _ := filepath.Glob("plots/trend-*.svg")
	pngs, _ := filepath.Glob("plots/trend-*.png")
	if len(svgs) != 2 || len(pngs) != 2 {
		t.Errorf("plots: %v %v", svgs, pngs)
	}
}

// TestReportTrendWithBundle: with a BUNDLE, the report keeps its own
// sections and adds the trend's after them.
func TestReportTrendWithBundle(t *testing.T) {
	pkg := trendDataset(t)
	if code, _, errs := runCLI(t, "ingest", "--sut", filepath.Join(pkg, demo, "sut-a.yaml"), "-o", "a.bundle", filepath.Join(pkg, demo, "platform-a.json")); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := runCLI(t, "report", "--resamples", "200", "--trend", "ds", "--trend-metric", "ttft:p99", "--html", "r.html", "a.bundle")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if s, tr := strings.Index(out, "Summary"), strings.Index(out, "Trend of ds"); s < 0 || tr < s {
		t.Errorf("stdout: Summary at %d, trend at %d:\n%s", s, tr, out)
	}
	b, err := os.ReadFile("r.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	sections := regexp.MustCompile(`<section id="([a-z]+)">`).FindAllStringSubmatch(page, -1)
	var ids []string
	for _, m := range sections {
		ids = append(ids, m[1])
	}
	if got := strings.TrimSuffix(strings.Join(ids, " "), " notes"); got != "verdict summary figures inventory metrics validation trend definitions" {
		t.Errorf("sections %s", got)
	}
	if !strings.Contains(page, "<code>a.bundle</code> and the history in <code>ds</code>") {
		t.Error("the header does not name both inputs")
	}
}

// TestReportTrendErrors: --trend on what is not a dataset, or with bad
// trend flags, exits 2 and says what is wrong.
func TestReportTrendErrors(t *testing.T) {
	pkg := trendDataset(t)
	if err := os.WriteFile("notes.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("empty", 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "ingest", "--sut", filepath.Join(pkg, demo, "sut-a.yaml"), "-o", "a.bundle", filepath.Join(pkg, demo, "platform-a.json")); code != 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"report", "--trend", "nowhere", "--html", "r.html"}, "report --trend: nowhere: no such dataset"},
		{"a file", []string{"report", "--trend", "notes.txt"}, "notes.txt is a file, not a dataset"},
		{"a bundle", []string{"report", "--trend", "a.bundle"}, "a.bundle is a bundle, not a dataset: verdict export --dataset DATASET a.bundle"},
		{"a directory without runs", []string{"report", "--trend", "empty", "--html", "r.html"}, "empty is not a dataset: it has no runs table"},
		{"unknown metric", []string{"report", "--trend", "ds", "--trend-metric", "speed"}, `--trend-metric "speed": unknown metric "speed"`},
		{"bad min change", []string{"report", "--trend", "ds", "--trend-min-change", "lots"}, "--trend-min-change"},
		{"bad by", []string{"report", "--trend", "ds", "--trend-by", "size"}, `unknown --by "size"`},
		{"nothing", []string{"report"}, "give at least one BUNDLE (or --trend DATASET)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != exitInput || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d (want %d), want %q in:\n%s\n%s", code, exitInput, c.want, out, errs)
			}
		})
	}
	if _, err := os.Stat("r.html"); err == nil {
		t.Error("a failed report wrote its HTML file")
	}
}
