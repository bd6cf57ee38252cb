package validate

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// The tests build runs in Go: goodRun is a complete, clean streamed server
// run (inventory, window, 700 requests, metrics with n) that no rule
// flags, and each case changes one thing.

const nRequests = 700 // >= 662, so p99 has enough samples

func goodSUT(gpu string) schemas.Inventory {
	return schemas.Inventory{
		Model: "org/model-8b", ModelRevision: "abc123", Quantization: "bf16",
		Engine: "vllm", EngineVersion: "0.11.2", LaunchArgs: []string{"--max-num-seqs", "256"},
		GPUModel: gpu, GPUCount: schemas.Some(int64(1)), Driver: "570.86", CUDA: "12.8",
		Image: "vllm/vllm-openai:v0.11.2", Dataset: "prompts-700",
		DatasetSHA256: strings.Repeat("ab", 32), Endpoint: "http://10.0.0.1:8000/v1/completions",
		ClientLocation: "same zone", CacheState: "cold", WarmupRequests: schemas.Some(int64(10)),
	}
}

// goodRequests returns n successful streamed requests: input 100..149
// tokens, output 200..229 tokens, one token per chunk, 10 ms per token.
func goodRequests(runID string, n int) []schemas.Request {
	reqs := make([]schemas.Request, n)
	for i := range reqs {
		out := int64(200 + i%30)
		ttft := 0.050 + 0.001*float64(i%7)
		gaps := make([]float64, out-1)
		for j := range gaps {
			gaps[j] = 0.010
		}
		reqs[i] = schemas.Request{RunID: runID, Index: int64(i), Status: schemas.StatusOK, Phase: schemas.PhaseProfiling,
			StartS: schemas.Some(0.1 * float64(i)), TTFTS: schemas.Some(ttft), E2ES: schemas.Some(ttft + 0.010*float64(out-1)),
			InputTokens: schemas.Some(int64(100 + i%50)), OutputTokens: schemas.Some(out), ChunkGapsS: gaps}
	}
	return reqs
}

func metric(run string, id schemas.MetricID, stat string, pct float64, v float64, method string, n int64) schemas.Metric {
	m := schemas.Metric{RunID: run, MetricID: id, Stat: stat, Value: schemas.Some(v), Method: method,
		Source: schemas.SourceReported, N: schemas.Some(n)}
	if def, ok := schemas.Lookup(id); ok {
		m.Unit = def.Unit
	}
	if pct > 0 {
		m.Percentile = schemas.Some(pct)
	}
	return m
}

func goodMetrics(run string) []schemas.Metric {
	const n = nRequests
	return []schemas.Metric{
		metric(run, schemas.TTFT, schemas.StatMean, 0, 0.053, "arithmetic", n),
		metric(run, schemas.TTFT, schemas.StatP, 99, 0.056, "linear", n),
		metric(run, schemas.TTFT, schemas.StatStd, 0, 0.002, "population", n),
		metric(run, schemas.TPOT, schemas.StatMean, 0, 0.010, "arithmetic", n),
		metric(run, schemas.TPOT, schemas.StatP, 99, 0.010, "linear", n),
		metric(run, schemas.ITLChunk, schemas.StatMean, 0, 0.010, "arithmetic", n*200),
		metric(run, schemas.E2E, schemas.StatMean, 0, 2.19, "arithmetic", n),
		metric(run, schemas.E2E, schemas.StatP, 90, 2.33, "linear", n),
		metric(run, schemas.RequestThroughput, schemas.StatValue, 0, 9.9, "", n),
		metric(run, schemas.InputTokens, schemas.StatSum, 0, 86450, "", n),
		metric(run, schemas.OutputTokens, schemas.StatSum, 0, 150850, "", n),
	}
}

func goodRun(id, bundle, gpu string) *RunData {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	return &RunData{Bundle: bundle,
		Run: schemas.Run{ID: id, Tool: "vllm", Format: "vllm-serve", ToolVersion: "0.11.2",
			Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
			RequestRate: schemas.Some(10.0), Burstiness: schemas.Some(1.0), MaxConcurrency: schemas.Some(int64(0)),
			Streaming: schemas.Some(true), Backend: "openai", Model: "org/model-8b", Tokenizer: "org/model-8b",
			NumPrompts: schemas.Some(int64(nRequests)), Completed: schemas.Some(int64(nRequests)), Failed: schemas.Some(int64(0)),
			DurationS: schemas.Some(70.7), WindowKind: schemas.WindowKindDispatch,
			WindowStart: schemas.Some(start), WindowEnd: schemas.Some(start.Add(70700 * time.Millisecond)),
			TokenSource: "output: server usage; input: server usage", SUT: goodSUT(gpu)},
		Metrics:  goodMetrics(id),
		Requests: SummariseRequests(goodRequests(id, nRequests)),
	}
}

// pair returns two clean runs in different bundles (groups).
func pair() (*RunData, *RunData) {
	return goodRun("run-a", "a.bundle", "NVIDIA H100"), goodRun("run-b", "b.bundle", "AMD MI300X")
}

// findingsOf validates runs with one rule and returns its findings.
func findingsOf(t *testing.T, rule string, compare bool, groupBy string, runs ...*RunData) (*Report, []Finding) {
	t.Helper()
	rep, err := Validate(runs, Options{Compare: compare, GroupBy: groupBy, Rules: []string{rule}})
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, f := range rep.Findings {
		if f.Rule != rule {
			t.Fatalf("finding of rule %s when only %s ran", f.Rule, rule)
		}
		out = append(out, f)
	}
	return rep, out
}

func setMetric(d *RunData, id schemas.MetricID, stat string, v float64) {
	for i := range d.Metrics {
		if d.Metrics[i].MetricID == id && d.Metrics[i].Stat == stat {
			d.Metrics[i].Value = schemas.Some(v)
		}
	}
}

// renameMetric changes a definition ID on every row of a run.
func renameMetric(d *RunData, from, to schemas.MetricID) {
	for i := range d.Metrics {
		if d.Metrics[i].MetricID == from {
			d.Metrics[i].MetricID = to
		}
	}
}

func dropMetric(d *RunData, id schemas.MetricID) {
	d.Metrics = slices.DeleteFunc(d.Metrics, func(m schemas.Metric) bool { return m.MetricID == id })
}
