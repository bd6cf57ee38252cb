package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoBundlesCLI ingests the demo platforms with verdict ingest.
func demoBundlesCLI(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"a", "b"} {
		b := filepath.Join(dir, "platform-"+p+".bundle")
		code, _, errs := runCLI(t, "ingest", "--sut", demo+"sut-"+p+".yaml", "--label", "platform="+p, "-o", b, demo+"platform-"+p+".json")
		if code != 0 {
			t.Fatalf("ingest %s: %d %s", p, code, errs)
		}
		out = append(out, b)
	}
	return out
}

// TestReport runs `verdict report` as `make demo` does and checks every
// output.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	b := demoBundlesCLI(t, dir)
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	args := []string{"report", "--no-validate", "--resamples", "2000", "--quote", demo + "quote-a.yaml", "--quote", demo + "quote-b.yaml",
		"--xlsx", filepath.Join(out, "report.xlsx"), "--html", filepath.Join(out, "report.html"),
		"--markdown", filepath.Join(out, "report.md"), "--plots", filepath.Join(out, "plots"), b[0], b[1]}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	cliGolden(t, "report-demo.table", stdout)
	for _, f := range []string{"report.xlsx", "report.html", "report.md", "plots/ecdf-ttft.svg", "plots/ecdf-ttft.png",
		"plots/latency-vs-throughput.svg", "plots/cost-per-1m-output-tokens.png"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if !strings.HasSuffix(f, ".png") && !strings.HasSuffix(f, ".svg") && !strings.Contains(stderr, "wrote "+filepath.Join(out, f)) {
			t.Errorf("stderr does not list %s: %s", f, stderr)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"# verdict report", "### Summary (one column per run", "### System under test and provenance", "### Costs", "### Metrics of a"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}

	// With validation (the default) the Summary carries each run's
	// verdict; JSON output is the same tables.
	code, stdout, stderr = runCLI(t, "report", "--resamples", "1000", "--format", "json", b[0], b[1])
	if code != 0 || !strings.Contains(stdout, `"title": "Validation: `) || strings.Contains(stdout, "not available") {
		t.Errorf("report with validation: exit %d, %.300s %s", code, stdout, stderr)
	}
}

// TestReportVerdictFirst: the first table of verdict report, and the top
// of its Markdown, carry the pair's verdict in words.
func TestReportVerdictFirst(t *testing.T) {
	dir := t.TempDir()
	b := demoBundlesCLI(t, dir)
	md := filepath.Join(dir, "r.md")
	code, stdout, stderr := runCLI(t, "report", "--resamples", "500", "--markdown", md, b[0], b[1])
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	first, _, _ := strings.Cut(stdout, "\n\n")
	for _, want := range []string{"Verdict: a vs b is comparable with warnings (the validation gate passed).", "a vs b   comparable with warnings  reason",
		"warning (V010-boundary): the quantization differs"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first table lacks %q:\n%s", want, first)
		}
	}
	if !strings.Contains(stdout, "Differences: b against a") {
		t.Error("no differences for the comparable pair")
	}
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	heads := regexp.MustCompile(`(?m)^### .*$`).FindAllString(string(data), 2)
	if len(heads) < 2 || !strings.HasPrefix(heads[0], "### Verdict: a vs b is comparable with warnings") || !strings.HasPrefix(heads[1], "### Differences: b against a") {
		t.Errorf("Markdown headings begin %q", heads)
	}
}

func TestReportUsage(t *testing.T) {
	dir := t.TempDir()
	b := demoBundlesCLI(t, dir)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("provider: x\ncurrency: usd\ngpu: {count: 1, rate: 1, billing: {unit: second}}\n"), 0o644)
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"report"}, "give at least one BUNDLE"},
		{[]string{"report", "--format", "csv", b[0]}, "--format: use table, markdown or json"},
		{[]string{"report", "--quote", demo + "quote-a.yaml", "--quote", demo + "quote-b.yaml", "--quote", demo + "quote-b.yaml", b[0], b[1]}, "one per BUNDLE (3 quotes, 2 bundles)"},
		{[]string{"report", filepath.Join(dir, "missing.bundle")}, "no such file"},
		{[]string{"report", "--no-validate", "--quote", bad, b[0]}, "currency"},
		{[]string{"report", "--no-validate", "--billing", filepath.Join(dir, "none.csv"), b[0]}, "none.csv"},
		// issue 15: an output inside an input bundle destroyed it
		{[]string{"report", "--no-validate", "--xlsx", filepath.Join(b[0], "requests.parquet"), b[0]}, "is inside the input"},
		{[]string{"report", "--no-validate", "--force", "--html", filepath.Join(b[1], "x.html"), b[0], b[1]}, "is inside the input"},
		{[]string{"report", "--no-validate", "--plots", b[0], b[0]}, "is inside the input"},
		{[]string{"report", "--no-validate", "--markdown", bad, b[0]}, "exists (use --force to replace it)"},
		{[]string{"report", "--no-validate", "--markdown", filepath.Join(dir, "r.md"), "--html", filepath.Join(dir, ".", "r.md"), b[0]}, "also given to"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.stderr) {
			t.Errorf("verdict %s: exit %d, stderr %q; want 2 with %q", strings.Join(c.args, " "), code, errs, c.stderr)
		}
	}
	code, out, _ := runCLI(t, "report", "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--xlsx") {
		t.Errorf("report --help: %d %.200s", code, out)
	}
	// issue 15: help offered --format csv, which is refused
	if strings.Contains(out, "csv or markdown") || !strings.Contains(out, "table, json or markdown") {
		t.Errorf("report --help offers formats it refuses: %s", out)
	}
	before, _ := os.ReadFile(filepath.Join(b[0], "requests.parquet"))
	after, _ := os.ReadFile(filepath.Join(b[0], "requests.parquet"))
	if len(before) == 0 || string(before) != string(after) {
		t.Error("the input bundle changed")
	}
	// With --force an existing output is replaced.
	md := filepath.Join(dir, "again.md")
	os.WriteFile(md, []byte("old"), 0o644)
	if code, _, errs := runCLI(t, "report", "--no-validate", "--force", "--markdown", md, b[0]); code != 0 {
		t.Errorf("--force: %d %s", code, errs)
	}
	if got, _ := os.ReadFile(md); string(got) == "old" {
		t.Error("--force did not replace the file")
	}
}
