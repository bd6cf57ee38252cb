package render_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// validateGolden compares got with testdata/name (testkit.Golden).
func validateGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got)
}

// validateRuns are two runs of different tools: vLLM reports per-chunk
// ITL, GenAI-Perf a per-request TPOT over answer tokens; the GenAI-Perf
// run lacks its driver and failure count and has no warm-up recorded.
func validateRuns() []*validate.RunData {
	sut := func(gpu string) schemas.Inventory {
		return schemas.Inventory{Model: "org/model-8b", Quantization: "bf16", Engine: "vllm", EngineVersion: "0.11.2",
			GPUModel: gpu, GPUCount: schemas.Some(int64(1)), Driver: "570.86", Dataset: "prompts-700",
			DatasetSHA256: strings.Repeat("ab", 32), CacheState: "cold", WarmupRequests: schemas.Some(int64(10))}
	}
	m := func(run string, id schemas.MetricID, stat string, p, v float64, method string) schemas.Metric {
		x := schemas.Metric{RunID: run, MetricID: id, Stat: stat, Value: schemas.Some(v), Method: method,
			Unit: schemas.UnitSeconds, Source: schemas.SourceReported, N: schemas.Some(int64(700))}
		if p > 0 {
			x.Percentile = schemas.Some(p)
		}
		return x
	}
	run := func(id, tool, bundle string, inv schemas.Inventory) schemas.Run {
		return schemas.Run{ID: id, Tool: tool, Format: tool, Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
			RequestRate: schemas.Some(10.0), Burstiness: schemas.Some(1.0), MaxConcurrency: schemas.Some(int64(0)),
			Streaming: schemas.Some(true), Model: "org/model-8b", NumPrompts: schemas.Some(int64(700)),
			Completed: schemas.Some(int64(700)), Failed: schemas.Some(int64(0)), DurationS: schemas.Some(70.0),
			WindowKind: schemas.WindowKindDispatch, SUT: inv}
	}
	a := &validate.RunData{Bundle: "out/h100.bundle", Run: run("vllm-1", "vllm", "h100", sut("NVIDIA H100")),
		Metrics: []schemas.Metric{
			m("vllm-1", schemas.TTFT, schemas.StatP, 99, 0.056, "linear"),
			m("vllm-1", schemas.ITLChunk, schemas.StatMean, 0, 0.010, "arithmetic"),
			m("vllm-1", schemas.E2E, schemas.StatP, 99, 2.4, "linear"),
		}}
	gsut := sut("AMD MI300X")
	gsut.Driver, gsut.WarmupRequests = "", schemas.Opt[int64]{}
	b := &validate.RunData{Bundle: "out/mi300x.bundle", Run: run("genai-perf-1", "genai-perf", "mi300x", gsut),
		Metrics: []schemas.Metric{
			m("genai-perf-1", schemas.TTFT, schemas.StatP, 99, 0.061, "linear"),
			m("genai-perf-1", schemas.TPOTAnswer, schemas.StatMean, 0, 0.011, "arithmetic"),
			m("genai-perf-1", schemas.E2E, schemas.StatP, 99, 2.6, "nearest_rank_floor"),
		}}
	b.Run.Failed = schemas.Opt[int64]{}
	b.Run.NumPrompts = schemas.Some(int64(1000))
	return []*validate.RunData{a, b}
}

func validateReport(t *testing.T, compare bool) *validate.Report {
	t.Helper()
	rep, err := validate.Validate(validateRuns(), validate.Options{Compare: compare})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestValidateGolden(t *testing.T) {
	rep := validateReport(t, true)
	if rep.Verdict != validate.NotComparable || rep.Pass {
		t.Fatalf("verdict %s pass %v", rep.Verdict, rep.Pass)
	}
	for _, f := range []render.Format{render.Text, render.Markdown, render.JSON} {
		var b bytes.Buffer
		if err := render.WriteValidate(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		validateGolden(t, "validate-compare."+string(f), b.Bytes())
	}
	var b bytes.Buffer
	if err := render.WriteJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	validateGolden(t, "validate-compare.junit.xml", b.Bytes())

	b.Reset()
	if err := render.WriteValidate(&b, render.Text, validateReport(t, false)); err != nil {
		t.Fatal(err)
	}
	validateGolden(t, "validate-bundles.table", b.Bytes())

	b.Reset()
	if err := render.WriteRules(&b, render.Markdown); err != nil {
		t.Fatal(err)
	}
	validateGolden(t, "rules.markdown", b.Bytes())
}

func TestValidateJSONIsTheReport(t *testing.T) {
	rep := validateReport(t, true)
	var b bytes.Buffer
	if err := render.WriteValidate(&b, render.JSON, rep); err != nil {
		t.Fatal(err)
	}
	var back validate.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != validate.ReportSchema || back.Verdict != rep.Verdict || len(back.Findings) != len(rep.Findings) || len(back.Checks) != len(rep.Checks) {
		t.Errorf("round trip: %+v", back)
	}
}

// The JUnit structures a CI system reads, declared here independently of
// the writer's.
type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Skipped  int       `xml:"skipped,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	SystemOut string `xml:"system-out"`
}

func TestJUnitParses(t *testing.T) {
	rep := validateReport(t, true)
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := render.WriteJUnitFile(path, rep); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the JUnit file: %v", entries)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc xmlSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != len(rep.Rules) || doc.Tests != len(rep.Checks) || doc.Skipped != rep.Counts.Skipped {
		t.Errorf("suites %d tests %d skipped %d; report %d rules %d checks %+v", len(doc.Suites), doc.Tests, doc.Skipped, len(rep.Rules), len(rep.Checks), rep.Counts)
	}
	failing := 0
	for _, ch := range rep.Checks {
		if ch.Status == validate.StatusFail {
			failing++
		}
	}
	tests, failures := 0, 0
	var v004 *xmlCase
	for _, s := range doc.Suites {
		tests += s.Tests
		failures += s.Failures
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d with %d cases", s.Name, s.Tests, len(s.Cases))
		}
		for i, c := range s.Cases {
			if c.Failure != nil && c.Skipped != nil {
				t.Errorf("%s %s both failed and skipped", s.Name, c.Name)
			}
			if s.Name == "V004-metric-definition" {
				v004 = &s.Cases[i]
			}
		}
	}
	if tests != doc.Tests || failures != doc.Failures || failures != failing {
		t.Errorf("totals: tests %d/%d failures %d/%d, failing checks %d", tests, doc.Tests, failures, doc.Failures, failing)
	}
	if v004 == nil || v004.Failure == nil || v004.Name != "pair vllm-1 vs genai-perf-1" ||
		!strings.Contains(v004.Failure.Text, "itl_chunk") || !strings.Contains(v004.Failure.Text, "tpot_answer") || v004.Failure.Type != "not_comparable" {
		t.Errorf("V004 case %+v", v004)
	}
	// A missing directory is an error, and leaves nothing behind.
	if err := render.WriteJUnitFile(filepath.Join(t.TempDir(), "no", "such", "dir.xml"), rep); err == nil {
		t.Error("wrote into a missing directory")
	}
}

func TestRulesFormats(t *testing.T) {
	for _, f := range render.Formats {
		var b bytes.Buffer
		if err := render.WriteRules(&b, f); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"V001-scenario", "V018-unverified", "early stopping"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: rules lack %q", f, want)
			}
		}
	}
}
