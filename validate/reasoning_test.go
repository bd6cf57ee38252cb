package validate

import (
	"context"
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
