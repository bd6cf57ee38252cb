package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// demoBundles ingests the two demo platforms once per test.
func demoBundles(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bundle"), filepath.Join(dir, "b.bundle")
	for _, x := range [][3]string{{a, "platform-a.json", "a"}, {b, "platform-b.json", "b"}} {
		if code, _, errs := runCLI(t, "ingest", "--sut", demo+"sut-"+x[2]+".yaml", "--label", "platform="+x[2], "-o", x[0], demo+x[1]); code != 0 {
			t.Fatalf("ingest: %s", errs)
		}
	}
	return a, b
}

func TestStatsCommand(t *testing.T) {
	a, b := demoBundles(t)
	code, out, errs := runCLI(t, "stats", "--metric", "ttft,tpot,itl_chunk", "--slo", "ttft=150ms,tpot=20ms", a, b)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	cliGolden(t, "stats-demo.table", out)

	// The recomputed p99 TTFT (no intervals) must equal what vLLM's numpy
	// wrote in the file.
	code, out, _ = runCLI(t, "stats", "--ci", "0", "--metric", "ttft", "--percentiles", "99", "--format", "json", a)
	if code != 0 {
		t.Fatal(code)
	}
	var doc struct {
		Runs []struct {
			Metrics []struct {
				Metric      string
				Percentiles []struct{ Value float64 } `json:"percentiles"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var file struct {
		P99TTFT float64 `json:"p99_ttft_ms"`
	}
	data, _ := os.ReadFile(demo + "platform-a.json")
	json.Unmarshal(data, &file)
	got := doc.Runs[0].Metrics[0].Percentiles[0].Value
	if math.Abs(got*1000-file.P99TTFT) > 1e-9*file.P99TTFT {
		t.Errorf("p99 TTFT %v s, the file says %v ms", got, file.P99TTFT)
	}

	// --interval block: every interval says it kept neighbours together.
	code, out, errs = runCLI(t, "stats", "--resamples", "500", "--interval", "block", "--metric", "ttft", "--format", "json", a)
	if code != 0 || !strings.Contains(out, `"resampling": "block"`) || !strings.Contains(out, `"block_length": `) || !strings.Contains(out, `"interval": "block"`) {
		t.Errorf("--interval block: %d %s %s", code, errs, out)
	}
	code, out, _ = runCLI(t, "stats", "--resamples", "500", "--interval", "stationary", "--metric", "ttft", a)
	if code != 0 || !strings.Contains(out, "(--interval stationary): stationary bootstrap") {
		t.Errorf("--interval stationary: %s", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stats"}, "give at least one BUNDLE"},
		{[]string{"stats", "--percentiles", "101", a}, "not a number between 0 and 100"},
		{[]string{"stats", "--method", "median-of-three", a}, "--method"},
		{[]string{"stats", "--slo", "ttft=fast", a}, "not a positive duration"},
		{[]string{"stats", "--metric", "latency", a}, `--metric "latency": no such definition`},
		{[]string{"compare", a}, "give two bundles"},
		{[]string{"stats", "--interval", "jackknife", a}, "--interval: unknown interval scheme"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("verdict %s: %d %q", strings.Join(c.args, " "), code, errs)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	a, b := demoBundles(t)
	code, out, errs := runCLI(t, "compare", "--metric", "ttft,tpot,input_tokens", a, b)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	cliGolden(t, "compare-demo.table", out)
	if !strings.HasPrefix(out, "Verdict: comparable with warnings (gate passed)") {
		t.Errorf("no validation verdict on top: %.200s", out)
	}
	// Same prompts on both platforms: input lengths must not differ, and
	// the slower decode of platform b must.
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch {
		case f[0] == "input_tokens" && !strings.HasSuffix(l, "~"):
			t.Errorf("input lengths differ: %s", l)
		case f[0] == "tpot" && strings.HasSuffix(l, "~"):
			t.Errorf("TPOT difference not found: %s", l)
		}
	}
}

func TestExportDataset(t *testing.T) {
	a, b := demoBundles(t)
	ds := filepath.Join(t.TempDir(), "history")
	code, out, errs := runCLI(t, "export", "--dataset", ds, a, b)
	if code != 0 || strings.Count(out, "1 runs exported (240 requests)") != 2 {
		t.Fatalf("%d %q %s", code, out, errs)
	}
	code, out, _ = runCLI(t, "export", "--dataset", ds, a)
	if code != 0 || !strings.Contains(out, "0 runs exported (0 requests), 1 already in the dataset") {
		t.Errorf("re-export: %q", out)
	}
	// Commands read a dataset like a bundle: stats over the dataset equal
	// stats over the two bundles.
	_, fromBundles, _ := runCLI(t, "stats", "--ci", "0", "--metric", "ttft", a, b)
	code, fromDataset, errs := runCLI(t, "stats", "--ci", "0", "--metric", "ttft", ds)
	if code != 0 {
		t.Fatal(errs)
	}
	norm := func(s string) []string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(lines)
		return lines
	}
	if !slices.Equal(norm(fromBundles), norm(fromDataset)) {
		t.Errorf("stats differ:\n%s\n---\n%s", fromBundles, fromDataset)
	}
	if code, out, _ := runCLI(t, "show", ds); code != 0 || !strings.Contains(out, "platform-b.json") {
		t.Errorf("show dataset: %d", code)
	}
}

// TestCompareRefuses: runs that validation says are not comparable get no
// numbers (unless --force) and exit 1.
func TestCompareRefuses(t *testing.T) {
	a, _ := demoBundles(t)
	other := filepath.Join(t.TempDir(), "other.bundle")
	if code, _, errs := runCLI(t, "ingest", "-o", other, "../../ingest/vllm/testdata/serve_detailed.json"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := runCLI(t, "compare", a, other)
	if code != 1 || !strings.Contains(out, "Verdict: not comparable") || !strings.Contains(out, "Refusing to compare") ||
		strings.Contains(out, "Compare vllm-") || !strings.Contains(errs, "may not be compared") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "compare", "--force", "--metric", "ttft", a, other)
	if code != 1 || !strings.Contains(out, "NOT COMPARABLE") || !strings.Contains(out, "Compare vllm-") {
		t.Errorf("--force: exit %d\n%s", code, out)
	}
}

// TestStatsNoSeries: a metric the run has no per-request series of is a
// row that says so, not an empty table.
func TestStatsNoSeries(t *testing.T) {
	a, _ := demoBundles(t)
	code, out, errs := runCLI(t, "stats", "--resamples", "200", "--metric", "server_ttft", a)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	for _, want := range []string{"server_ttft  0  no per-request series", "server_ttft: the run has no per-request series of it"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[lo, hi]") {
		t.Errorf("an interval note without any interval:\n%s", out)
	}
}

// TestCompareInterval: compare --interval resamples as verdict stats
// --interval does (old carries the very interval stats gives the run) and
// says so; the default says its intervals treat requests as i.i.d.
func TestCompareInterval(t *testing.T) {
	a, b := demoBundles(t)
	// The p99 cell of ttft's row: "168.7 [151.1, 217.1] ms" in both views.
	cell := func(out string, col int) string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Split(strings.Join(strings.Fields(l), " "), " "); len(f) > 1 && f[0] == "ttft" {
				return strings.Join(strings.Fields(l)[col:col+4], " ")
			}
		}
		return ""
	}
	for _, c := range []struct {
		scheme, note string
	}{
		{"iid", "which treats each run's requests as independent (i.i.d."},
		{"block", "(--interval block: circular block bootstrap"},
		{"ess", "(--interval ess: i.i.d. bootstrap of the effective sample size"},
	} {
		code, cmpOut, errs := runCLI(t, "compare", "--resamples", "500", "--interval", c.scheme, "--metric", "ttft", "--percentiles", "99", a, b)
		if code != 0 {
			t.Fatalf("%s: %d %s", c.scheme, code, errs)
		}
		_, statsOut, _ := runCLI(t, "stats", "--resamples", "500", "--interval", c.scheme, "--metric", "ttft", "--percentiles", "99", a)
		old, want := cell(cmpOut, 2), cell(statsOut, 6) // stats: metric n mean(4 fields) p99
		if old == "" || old != want {
			t.Errorf("%s: compare's old p99 %q, verdict stats %q", c.scheme, old, want)
		}
		if !strings.Contains(cmpOut, c.note) {
			t.Errorf("%s: no note %q:\n%s", c.scheme, c.note, cmpOut)
		}
		if c.scheme != "iid" && !strings.Contains(cmpOut, "the Mann-Whitney U test assumes independent requests") {
			t.Errorf("%s: the note does not say the U test is not used", c.scheme)
		}
	}
	if code, _, errs := runCLI(t, "compare", "--interval", "bags", a, b); code != 2 || !strings.Contains(errs, "--interval") {
		t.Errorf("--interval bags: %d %s", code, errs)
	}
}
