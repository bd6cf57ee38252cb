package validate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/schemas"
)

// reasoningBundles ingests a vLLM run (TTFT and TPOT count reasoning) and a
// GenAI-Perf run (answer only), hand-made fixtures of the ingest packages,
// with the given inventory on each.
func reasoningBundles(t *testing.T, a, b schemas.Inventory) []string {
	t.Helper()
	var out []string
	for i, c := range []struct {
		path string
		sut  schemas.Inventory
	}{
		{filepath.Join("..", "ingest", "vllm", "testdata", "serve_detailed.json"), a},
		{filepath.Join("..", "ingest", "genaiperf", "testdata", "artifacts", "demo-8b-openai-chat-concurrency2", "profile_export_genai_perf.json"), b},
	} {
		dest := filepath.Join(t.TempDir(), []string{"vllm", "genai-perf"}[i])
		if _, err := ingest.ToBundle(context.Background(), []string{c.path}, dest, ingest.Options{Formats: all.Formats(), SUT: c.sut}); err != nil {
			t.Fatal(err)
		}
		out = append(out, dest)
	}
	return out
}

// TestReasoningDeclaredAbsent: with model.reasoning: none in both
// inventories (testdata/sut-no-reasoning.yaml), ttft against ttft_answer
// and tpot against tpot_answer are warnings naming the assumption; without
// it they stay errors, with a hint; a model declared split stays an error.
func TestReasoningDeclaredAbsent(t *testing.T) {
	none, err := schemas.LoadInventory(filepath.Join("testdata", "sut-no-reasoning.yaml"))
	if err != nil || none.Reasoning != schemas.ReasoningNone {
		t.Fatalf("inventory %+v: %v", none, err)
	}
	v004 := func(bundles []string) *Report {
		t.Helper()
		rep, err := ValidateBundles(context.Background(), bundles, Options{Compare: true, Rules: []string{"V004", "V006"}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := v004(reasoningBundles(t, none, none))
	fams := map[string]bool{}
	for _, f := range rep.Findings {
		fams[f.Metric] = true
		if f.Rule == "V006-window" && f.Metric != "output length" {
			continue // throughputs over other windows: not a matter of reasoning
		}
		if f.Severity != Warning || f.FailsGate || !strings.Contains(f.Message, "that is assumed") || !strings.Contains(f.Message, "model.reasoning: none") {
			t.Errorf("declared none: %+v", f)
		}
	}
	if !fams["TTFT"] || !fams["ITL/TPOT"] || !fams["output length"] {
		t.Errorf("declared none: verdict %s, families %v", rep.Verdict, fams)
	}

	rep = v004(reasoningBundles(t, schemas.Inventory{}, none))
	for _, f := range rep.Findings {
		if f.Metric == "TTFT" && (f.Severity != Error || !strings.Contains(f.Message, "declare it in the inventory (model.reasoning: none, or inline) for ")) {
			t.Errorf("undeclared: %+v", f)
		}
	}

	split := none
	split.Reasoning = schemas.ReasoningSplit
	for _, f := range v004(reasoningBundles(t, split, none)).Findings {
		if f.Metric == "TTFT" && f.Severity != Error {
			t.Errorf("declared split: %+v", f)
		}
	}
}

// TestReasoningZeroInTheData: reasoning tokens of 0 in every request (AIPerf
// records, captures) are evidence too, as is a reported 0.
func TestReasoningZeroInTheData(t *testing.T) {
	a, b := pair()
	renameMetric(b, schemas.TTFT, schemas.TTFTAnswer)
	a.Requests.ReasoningKnown, a.Requests.ReasoningNonZero = a.Requests.OK, 0
	b.Metrics = append(b.Metrics, metric(b.Run.ID, schemas.ReasoningTokens, schemas.StatSum, -1, 0, "", 0))
	b.Metrics[len(b.Metrics)-1].NativeName = "total_reasoning_tokens.avg"
	_, fs := findingsOf(t, "V004-metric-definition", true, "", a, b)
	if len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Message, "reasoning tokens are 0 in all") ||
		!strings.Contains(fs[0].Message, "the tool reports 0 reasoning tokens (total_reasoning_tokens.avg)") {
		t.Errorf("findings %+v", fs)
	}
	a.Requests.ReasoningNonZero = 3
	if _, fs = findingsOf(t, "V004-metric-definition", true, "", a, b); len(fs) != 1 || fs[0].Severity != Error {
		t.Errorf("reasoning in the data: %+v", fs)
	}
}

// TestReasoningZeroInAIPerfRecords ingests a hand-made AIPerf run whose
// records all have reasoning_token_count 0 (ingest/aiperf/testdata/
// reasoning_zero, make_reasoning_zero.py: six records and the summary
// computed from them) and compares it with the GenAI-Perf demo run
// (answer only) declared model.reasoning: none. AIPerf's TPOT, TTST and
// per-user rate count reasoning, GenAI-Perf's the answer only: the data are
// the AIPerf side's evidence, so each such V004 finding is a warning that
// names the assumption and both pieces of evidence, and the pair is
// comparable with warnings. Without the declaration on the GenAI-Perf side,
// or with reasoning in one AIPerf record (and in the summary's total), they
// stay errors.
func TestReasoningZeroInAIPerfRecords(t *testing.T) {
	none, err := schemas.LoadInventory(filepath.Join("testdata", "sut-no-reasoning.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	aiperfDir := filepath.Join("..", "ingest", "aiperf", "testdata", "reasoning_zero")
	genaiperf := filepath.Join("..", "ingest", "genaiperf", "testdata", "artifacts", "demo-8b-openai-chat-concurrency2", "profile_export_genai_perf.json")
	ingestOne := func(path string, sut schemas.Inventory) string {
		t.Helper()
		dest := filepath.Join(t.TempDir(), "b")
		if _, err := ingest.ToBundle(context.Background(), []string{path}, dest, ingest.Options{Formats: all.Formats(), SUT: sut}); err != nil {
			t.Fatal(err)
		}
		return dest
	}
	// withReasoning is the run with 3 reasoning tokens in its first record.
	withReasoning := t.TempDir()
	for name, edit := range map[string][2]string{
		"profile_export.jsonl": {`"reasoning_token_count": {"value": 0,`, `"reasoning_token_count": {"value": 3,`},
		"profile_export_aiperf.json": {`"total_reasoning_tokens": {
    "unit": "tokens",
    "avg": 0.0`, `"total_reasoning_tokens": {
    "unit": "tokens",
    "avg": 3.0`},
	} {
		data, err := os.ReadFile(filepath.Join(aiperfDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(edit[0])) {
			t.Fatalf("%s: no %q to edit", name, edit[0])
		}
		if err := os.WriteFile(filepath.Join(withReasoning, name), bytes.Replace(data, []byte(edit[0]), []byte(edit[1]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	answerFamilies := []string{"ITL/TPOT", "TTST", "output token rate per user"}
	for _, c := range []struct {
		name           string
		aiperf         string
		genaiperf      schemas.Inventory
		severity       Severity
		verdict        Verdict
		want, wantHint string
	}{
		{"zero in the data, declared none", aiperfDir, none, Warning, ComparableWithWarnings,
			"that is assumed: for aiperf-", "reasoning tokens are 0 in all 6 successful requests, for genai-perf-"},
		{"zero in the data, undeclared", aiperfDir, schemas.Inventory{}, Error, NotComparable,
			"no definition is common to both runs", "declare it in the inventory (model.reasoning: none, or inline) for genai-perf-"},
		{"reasoning in the data, declared none", withReasoning, none, Error, NotComparable,
			"no definition is common to both runs", "declare it in the inventory (model.reasoning: none, or inline) for aiperf-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := ingestOne(c.aiperf, schemas.Inventory{}), ingestOne(genaiperf, c.genaiperf)
			rep, err := ValidateBundles(context.Background(), []string{a, b}, Options{Compare: true, Rules: []string{"V004"}})
			if err != nil {
				t.Fatal(err)
			}
			fams := map[string]bool{}
			for _, f := range rep.Findings {
				fams[f.Metric] = true
				if f.Severity != c.severity || !strings.Contains(f.Message, c.want) || !strings.Contains(f.Message, c.wantHint) {
					t.Errorf("finding %+v", f)
				}
			}
			for _, fam := range answerFamilies {
				if !fams[fam] {
					t.Errorf("no finding about %s: %+v", fam, rep.Findings)
				}
			}
			if len(rep.Findings) != len(answerFamilies) || rep.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s; findings %+v", rep.Verdict, c.verdict, rep.Findings)
			}
		})
	}
}
