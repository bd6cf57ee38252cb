package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// writeBundle writes a one-run bundle whose run reports the given
// inter-token metric (itl_chunk for vLLM, tpot_answer for GenAI-Perf),
// with a complete inventory, so that only the definitions differ.
func writeBundle(t *testing.T, dir, tool string, itlID schemas.MetricID) string {
	t.Helper()
	path := filepath.Join(dir, tool+".bundle")
	w, err := schemas.CreateBundle(path, schemas.BundleOptions{CreatedAt: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	id := tool + "-run"
	w.AddRun(schemas.Run{ID: id, Tool: tool, Format: tool, Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
		RequestRate: schemas.Some(10.0), Burstiness: schemas.Some(1.0), MaxConcurrency: schemas.Some(int64(0)),
		Streaming: schemas.Some(true), Model: "org/model-8b", NumPrompts: schemas.Some(int64(700)),
		Completed: schemas.Some(int64(700)), Failed: schemas.Some(int64(0)), DurationS: schemas.Some(70.0),
		WindowKind: schemas.WindowKindDispatch,
		SUT: schemas.Inventory{Model: "org/model-8b", Quantization: "bf16", Engine: "vllm", EngineVersion: "0.11.2",
			GPUModel: "NVIDIA H100", GPUCount: schemas.Some(int64(1)), Driver: "570.86", Dataset: "prompts-700",
			DatasetSHA256: strings.Repeat("ab", 32), CacheState: "cold", WarmupRequests: schemas.Some(int64(10))}})
	for _, m := range []schemas.Metric{
		{MetricID: schemas.TTFT, Stat: schemas.StatP, Percentile: schemas.Some(99.0), Value: schemas.Some(0.05), Method: "linear"},
		{MetricID: itlID, Stat: schemas.StatMean, Value: schemas.Some(0.012), Method: "arithmetic"},
	} {
		m.RunID, m.Unit, m.Source, m.N = id, schemas.UnitSeconds, schemas.SourceReported, schemas.Some(int64(700))
		w.AddMetric(m)
	}
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// junitDoc is what a CI system reads of the JUnit file.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestValidateDifferentDefinitions(t *testing.T) {
	dir := t.TempDir()
	a := writeBundle(t, dir, "vllm", schemas.ITLChunk)
	b := writeBundle(t, dir, "genai-perf", schemas.TPOTAnswer)
	junit := filepath.Join(dir, "reports", "validate.xml")
	if err := os.MkdirAll(filepath.Dir(junit), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "validate", "--compare", "--junit", junit, a, b)
	if code != exitGate {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"Verdict: not comparable (gate FAILED)", "V004-metric-definition", "ITL/TPOT is reported under different definitions",
		"itl_chunk (ITL (per chunk)) by vllm-run", "tpot_answer (TPOT (answer)) by genai-perf-run"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "verdict: validate: not comparable: gate failed") {
		t.Errorf("stderr %q", errs)
	}

	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	found := false
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if s.Name == "V004-metric-definition" && c.Name == "pair vllm-run vs genai-perf-run" && c.Failure != nil &&
				c.Failure.Type == "not_comparable" && strings.Contains(c.Failure.Message, "tpot_answer") {
				found = true
			}
		}
	}
	if !found || doc.Failures == 0 || doc.Tests == 0 {
		t.Errorf("JUnit lacks the V004 failure: %s", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(junit)); len(entries) != 1 {
		t.Errorf("files beside the JUnit file: %v", entries)
	}

	// The same two bundles with only the definition rule, as JSON.
	code, out, _ = runCLI(t, "validate", "--compare", "--rules", "V004", "--format", "json", a, b)
	var rep struct {
		Schema   string `json:"schema"`
		Verdict  string `json:"verdict"`
		Pass     bool   `json:"pass"`
		Findings []struct {
			Rule   string   `json:"rule"`
			Values []string `json:"values"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if code != exitGate || rep.Schema != "verdict.validate/v1" || rep.Verdict != "not_comparable" || len(rep.Findings) != 1 ||
		strings.Join(rep.Findings[0].Values, "|") != "itl_chunk|tpot_answer" {
		t.Errorf("exit %d report %+v", code, rep)
	}

	// Alone, each bundle is valid.
	code, out, errs = runCLI(t, "validate", a)
	if code != exitOK || !strings.Contains(out, "Verdict: valid (gate passed)") {
		t.Errorf("single bundle: exit %d\n%s%s", code, out, errs)
	}
}

func TestValidateCompatible(t *testing.T) {
	dir := t.TempDir()
	var bundles []string
	for _, p := range []string{"a", "b"} {
		bundle := filepath.Join(dir, "platform-"+p+".bundle")
		code, _, errs := runCLI(t, "ingest", "--sut", demo+"sut-"+p+".yaml", "--label", "platform="+p, "-o", bundle, demo+"platform-"+p+".json")
		if code != 0 {
			t.Fatalf("ingest: %d %s", code, errs)
		}
		bundles = append(bundles, bundle)
	}
	junit := filepath.Join(dir, "validate.xml")
	code, out, errs := runCLI(t, append([]string{"validate", "--compare", "--junit", junit}, bundles...)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errs)
	}
	cliGolden(t, "validate-demo.table", out)
	// The platforms' engines were launched differently (sut-a.yaml,
	// sut-b.yaml): the comparison names the flags, by kind.
	if !strings.Contains(out, `the engine launch arguments differ: "--max-num-seqs 256 --enable-prefix-caching" for`) ||
		!strings.Contains(out, `"--max-num-seqs 128" for`) || !strings.Contains(out, "prefix caching: --enable-prefix-caching (set) against (not given)") ||
		!strings.Contains(out, "scheduling limits: --max-num-seqs 256 against 128") {
		t.Errorf("launch arguments not named:\n%s", out)
	}
	var doc junitDoc
	if data, err := os.ReadFile(junit); err != nil {
		t.Fatal(err)
	} else if err := xml.Unmarshal(data, &doc); err != nil || doc.Failures != 0 || doc.Tests == 0 {
		t.Errorf("JUnit: %v %+v", err, doc)
	}

	code, out, _ = runCLI(t, append([]string{"validate", "--compare", "--format", "markdown"}, bundles...)...)
	if code != exitOK || !strings.HasPrefix(out, "### Verdict: comparable with warnings (gate passed)") {
		t.Errorf("markdown: exit %d\n%.300s", code, out)
	}
	// Grouping by the platform label gives the same comparison.
	code, out, _ = runCLI(t, append([]string{"validate", "--compare", "--group-by", "label:platform"}, bundles...)...)
	if code != exitOK || !strings.Contains(out, "platform=a vs platform=b") {
		t.Errorf("group by label: exit %d\n%.600s", code, out)
	}

	// A policy that fails on the quantization warning turns the gate.
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("fail_on_warnings: [V010-boundary]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, append([]string{"validate", "--compare", "--policy", policy}, bundles...)...)
	if code != exitGate || !strings.Contains(out, "2 warnings of V010-boundary, which the policy's fail_on_warnings lists") {
		t.Errorf("policy: exit %d\n%s%s", code, out, errs)
	}
	// Disabling the rule passes again.
	code, _, _ = runCLI(t, append([]string{"validate", "--compare", "--policy", policy, "--disable", "V010,V017"}, bundles...)...)
	if code != exitOK {
		t.Errorf("disabled: exit %d", code)
	}
}

func TestValidateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	a := writeBundle(t, dir, "vllm", schemas.ITLChunk)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("thresholds:\n  max_failed: 2\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "give at least one BUNDLE"},
		{[]string{"validate", "--format", "xml", a}, "unknown format"},
		{[]string{"validate", "--rules", "V999", a}, `unknown rule "V999"`},
		{[]string{"validate", "--group-by", "colour", a}, `unknown --group-by "colour"`},
		{[]string{"validate", "--compare", a}, "comparing needs at least two groups"},
		{[]string{"validate", filepath.Join(dir, "missing.bundle")}, "missing.bundle"},
		{[]string{"validate", "--policy", bad, a}, `unknown field "max_failed"`},
		{[]string{"validate", "--policy", filepath.Join(dir, "none.yaml"), a}, "none.yaml"},
		{[]string{"validate", "--bogus", a}, "bogus"},
		{[]string{"validate", "--junit", filepath.Join(dir, "no", "dir", "x.xml"), a}, "--junit"},
		{[]string{"rules", "extra"}, "rules takes no arguments"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != exitInput || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q\nstdout %.200s\nstderr %s", tc.args, code, tc.want, out, errs)
		}
	}
}

func TestRulesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"V001-scenario", "error", "pair", "V012-prefix-cache", "warning", "V019-unmaintained-tool", "info",
		"V017-sample-size: A percentile needs enough samples"} {
		if !strings.Contains(out, want) {
			t.Errorf("rules lack %q", want)
		}
	}
	code, out, _ = runCLI(t, "rules", "--format", "json")
	var doc struct {
		Schema string
		Rules  []struct {
			ID, Title, Severity, Scope, Rationale string
		}
	}
	err := json.Unmarshal([]byte(out), &doc)
	rules := doc.Rules
	if err != nil || code != exitOK || len(rules) < 19 || doc.Schema != "verdict.rules/v1" {
		t.Fatalf("rules json: exit %d, %v, %d rules", code, err, len(rules))
	}
	for _, r := range rules {
		if r.ID == "" || r.Title == "" || r.Severity == "" || r.Scope == "" || r.Rationale == "" {
			t.Errorf("incomplete rule %+v", r)
		}
	}
}
