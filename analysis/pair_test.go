package analysis_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
)

// comparePairsAsValidation checks that compare pairs the runs of a and b
// exactly as validation's pair rules do, and that every pair matches
// streaming with streaming.
func comparePairsAsValidation(t *testing.T, a, b string) {
	t.Helper()
	c, err := analysis.Compare(context.Background(), a, b, analysis.CompareOptions{StatsOptions: analysis.DefaultStats, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pairs) != 2 || len(c.Validation.Pairs) != 2 {
		t.Fatalf("compare %d pairs, validation %d", len(c.Pairs), len(c.Validation.Pairs))
	}
	for i, p := range c.Pairs {
		if !p.Old.Streaming.OK || p.Old.Streaming != p.New.Streaming {
			t.Errorf("pair %d: streaming %v compared with %v", i, p.Old.Streaming, p.New.Streaming)
		}
		// Validation names runs bundle/ID when both bundles hold the ID.
		v := c.Validation.Pairs[i]
		if v.A != filepath.Base(a)+"/"+p.Old.ID || v.B != filepath.Base(b)+"/"+p.New.ID {
			t.Errorf("pair %d: compare %s vs %s, validation %s vs %s", i, p.Old.ID, p.New.ID, v.A, v.B)
		}
	}
}

// TestComparePairsAsValidation is the regression test of issue 13 item 1:
// bundle A holds a streaming and a non-streaming GenAI-Perf 0.0.9 c100 run,
// bundle B the same two in the other order. Validation pairs streaming
// with streaming (its load key includes streaming); compare used to pair
// them by position under a shorter key and print numbers for streaming
// against non-streaming, a pair validation never checked.
func TestComparePairsAsValidation(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join("testdata", "genaiperf-0.0.9-c100-streaming_profile_export_genai_perf.json")
	n := filepath.Join("testdata", "genaiperf-0.0.9-c100-nonstreaming_profile_export_genai_perf.json")
	a := ingestBundle(t, dir, "a.bundle", nil, schemas.Inventory{}, s, n)
	b := ingestBundle(t, dir, "b.bundle", nil, schemas.Inventory{}, n, s)
	comparePairsAsValidation(t, a, b)
}

// TestComparePairsAsValidationCorpus is the same on the two real exports
// of triton-inference-server/perf_analyzer#298.
func TestComparePairsAsValidationCorpus(t *testing.T) {
	s := corpus(t, "genai-perf/v0.0.9_issue298_kserve-trtllm_c100_streaming_profile_export_genai_perf.json")
	n := corpus(t, "genai-perf/v0.0.9_issue298_kserve-trtllm_c100_nonstreaming_profile_export_genai_perf.json")
	dir := t.TempDir()
	a := ingestBundle(t, dir, "a.bundle", nil, schemas.Inventory{}, s, n)
	b := ingestBundle(t, dir, "b.bundle", nil, schemas.Inventory{}, n, s)
	comparePairsAsValidation(t, a, b)
}

// TestPairRuns: the same load point pairs first, whatever the order; the
// rest pairs in order; a longer list leaves runs unpaired.
func TestPairRuns(t *testing.T) {
	run := func(id string, streaming bool, c int64) schemas.Run {
		return schemas.Run{ID: id, Scenario: schemas.ScenarioServer, Streaming: schemas.Some(streaming), MaxConcurrency: schemas.Some(c)}
	}
	old := []schemas.Run{run("s1", true, 1), run("n1", false, 1), run("s8", true, 8)}
	new := []schemas.Run{run("N1", false, 1), run("S1", true, 1)}
	pairs, unpaired := analysis.PairRuns(old, new)
	want := [][2]int{{0, 1}, {1, 0}}
	if len(pairs) != 2 || pairs[0] != want[0] || pairs[1] != want[1] || len(unpaired) != 1 || unpaired[0] != "s8" {
		t.Errorf("pairs %v unpaired %v", pairs, unpaired)
	}
}
