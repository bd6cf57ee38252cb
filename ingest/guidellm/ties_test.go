package guidellm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest/guidellm"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// TestV03TiesNotMerged: GuideLLM v0.2-v0.3 read percentiles without merging
// equal values (src/guidellm/objects/statistics.py,
// DistributionSummary.from_distribution_function: probabilities =
// weights / np.sum(weights), cdf = np.cumsum, value at
// np.argmax(cdf >= p)). Ten complete records with nine outputs of 128
// tokens and one of 200: the ninth running sum of 0.1 is
// 0.8999999999999999 < 0.9, so v0.3 reports p90 = 200 (merging the 128s
// into one probability 0.9 would give 128). The recomputation must agree
// and raise no "disagrees" warning.
func TestV03TiesNotMerged(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "genA_sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	b := doc["benchmarks"].([]any)[0].(map[string]any)
	rec := b["requests"].(map[string]any)["successful"].([]any)[0].(map[string]any)
	var recs []any
	for i := range 10 {
		r := map[string]any{}
		for k, v := range rec {
			r[k] = v
		}
		r["request_id"] = "t" + string(rune('0'+i))
		if i == 9 {
			r["output_tokens"] = 200.0
		}
		recs = append(recs, r)
	}
	b["requests"] = map[string]any{"successful": recs, "errored": []any{}, "incomplete": []any{}, "total": nil}
	b["request_totals"] = map[string]any{"successful": 10, "errored": 0, "incomplete": 0, "total": 10}
	b["request_samples"] = nil
	out := b["metrics"].(map[string]any)["output_token_count"].(map[string]any)["successful"].(map[string]any)
	out["count"] = 10
	out["percentiles"].(map[string]any)["p90"] = 200.0
	doc["benchmarks"] = []any{b}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "benchmarks.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ingesttest.ReadFile(t, guidellm.Format{}, path)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0].ID
	c := metric(t, r, run, schemas.OutputTokens, schemas.StatP, 90, schemas.SourceComputed)
	if c.Value.V != 200 || c.Method != string(stats.NearestRankCumulativeUnmerged) {
		t.Errorf("recomputed output_tokens p90 = %v (%s), want 200 (nearest_rank_cumulative_unmerged)", c.Value.V, c.Method)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "output_token_count") && strings.Contains(w, "p90") {
			t.Errorf("false disagreement: %s", w)
		}
	}
	// The method itself, against the same reference.
	xs := []float64{128, 128, 128, 128, 128, 128, 128, 128, 128, 200}
	if q := stats.Quantile(xs, 0.9, stats.NearestRankCumulativeUnmerged); q != 200 {
		t.Errorf("unmerged p90 = %v, want 200", q)
	}
	if q := stats.Quantile(xs, 0.9, stats.NearestRankCumulative); q != 128 {
		t.Errorf("merged (v0.4+) p90 = %v, want 128", q)
	}
}
