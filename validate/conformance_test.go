package validate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
)

// The conformance tests run the rules over the corpus of real tool outputs
// (testkit.Corpus; skipped without it, failing under
// VERDICT_REQUIRE_CORPUS=1), ingested with every
// format verdict knows. A case whose tool has no registered format in
// ingest/all is skipped with a message, so the case starts running the day
// the format is registered.

// sharedBundle ingests shared fixtures (tool/file) into one bundle.
func sharedBundle(t *testing.T, name string, files ...string) string {
	t.Helper()
	formats := all.Formats()
	var paths []string
	for _, f := range files {
		tool, file, _ := strings.Cut(f, "/")
		dir := testkit.Corpus(t, tool)
		if _, ok := ingest.Find(formats, tool); !ok { // each tool's directory is named after its format
			t.Skipf("the %s format is not registered in ingest/all, so %s cannot be ingested", tool, file)
		}
		paths = append(paths, filepath.Join(dir, file))
	}
	dest := filepath.Join(t.TempDir(), name)
	if _, err := ingest.ToBundle(context.Background(), paths, dest, ingest.Options{Formats: formats}); err != nil {
		t.Fatalf("ingest %v: %v", files, err)
	}
	return dest
}

// findRule returns the findings of a rule.
func findRule(rep *Report, rule string) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func requireFinding(t *testing.T, rep *Report, rule string, want ...string) Finding {
	t.Helper()
	fs := findRule(rep, rule)
	for _, f := range fs {
		ok := true
		for _, w := range want {
			if !strings.Contains(f.Message, w) {
				ok = false
			}
		}
		if ok {
			return f
		}
	}
	var msgs []string
	for _, f := range rep.Findings {
		msgs = append(msgs, f.Rule+": "+f.Message)
	}
	t.Fatalf("no %s finding with %q; findings:\n%s", rule, want, strings.Join(msgs, "\n"))
	return Finding{}
}

func validateDirs(t *testing.T, opts Options, dirs ...string) *Report {
	t.Helper()
	rep, err := ValidateBundles(context.Background(), dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSharedVLLMAllFailed(t *testing.T) {
	b := sharedBundle(t, "failed.bundle", "vllm/vllm_bench_serve_v0.25.1_all-requests-failed.json")
	rep := validateDirs(t, Options{}, b)
	if rep.Verdict != Invalid || rep.Pass || rep.Bundles[0].Verdict != Invalid {
		t.Errorf("verdict %s pass %v", rep.Verdict, rep.Pass)
	}
	f := requireFinding(t, rep, "V016-failures", "no request succeeded (completed 0, failed 8)")
	if f.Effect != EffectInvalid || !f.FailsGate {
		t.Errorf("finding %+v", f)
	}
	// Without inventory, the run is also unverified, field by field.
	requireFinding(t, rep, "V018-unverified", "no system-under-test inventory was supplied", "gpu_model")
}

func TestSharedVLLMScenarios(t *testing.T) {
	a := sharedBundle(t, "rate10.bundle", "vllm/benchmark_serving_2025-03_detailed_rate10_concurrency1.json")
	b := sharedBundle(t, "inf.bundle", "vllm/benchmark_serving_fork-inferencex_2026-04_inf_concurrency4_p90-p99.9.json")
	rep := validateDirs(t, Options{Compare: true}, a, b)
	if rep.Verdict != NotComparable || rep.Pass || len(rep.Pairs) != 1 {
		t.Fatalf("verdict %s pass %v pairs %+v", rep.Verdict, rep.Pass, rep.Pairs)
	}
	requireFinding(t, rep, "V001-scenario", "the server scenario", "the fixed_concurrency scenario")
	requireFinding(t, rep, "V002-arrival", "finite rate of 10 req/s")
	requireFinding(t, rep, "V002-arrival", "concurrency limits differ: 1 for", "4 for")
}

func TestSharedVLLMDetailed(t *testing.T) {
	b := sharedBundle(t, "detailed.bundle", "vllm/benchmark_serving_2025-03_detailed_rate10_concurrency1.json")
	rep := validateDirs(t, Options{}, b)
	// 100 requests, each chunk one token (this capture counts chunks as
	// tokens), streamed.
	for _, rule := range []string{"V013-chunking", "V014-not-streaming", "V016-failures", "V020-tool-invalid"} {
		if fs := findRule(rep, rule); len(fs) > 0 {
			t.Errorf("%s fired: %+v", rule, fs)
		}
	}
	requireFinding(t, rep, "V017-sample-size", "p99 needs 662", "ttft over 100")
	if rep.Verdict != Incomplete {
		t.Errorf("verdict %s, want incomplete (no inventory)", rep.Verdict)
	}
}

func TestSharedVLLMRepeatedRuns(t *testing.T) {
	b := sharedBundle(t, "multi.bundle", "vllm/benchmark_serving_2025-05_multi-run_newline-separated_rate10-30-inf.json")
	rep := validateDirs(t, Options{}, b)
	if fs := findRule(rep, "V012-prefix-cache"); len(fs) != 8 {
		t.Errorf("%d prefix-cache warnings for 9 runs of one model against one server, want 8", len(fs))
	}
	// Grouped by run, every pair of the sweep is compared; the repeats of
	// one rate pair first.
	rep = validateDirs(t, Options{Compare: true, GroupBy: "run", Rules: []string{"V001", "V002"}}, b)
	if len(rep.Pairs) != 36 {
		t.Errorf("%d pairs, want 36", len(rep.Pairs))
	}
}

func TestSharedGenAIPerfStreamingMode(t *testing.T) {
	a := sharedBundle(t, "nonstreaming.bundle", "genai-perf/v0.0.9_issue298_kserve-trtllm_c100_nonstreaming_profile_export_genai_perf.json")
	b := sharedBundle(t, "streaming.bundle", "genai-perf/v0.0.9_issue298_kserve-trtllm_c100_streaming_profile_export_genai_perf.json")
	rep := validateDirs(t, Options{Compare: true}, a, b)
	if rep.Verdict != NotComparable {
		t.Errorf("verdict %s", rep.Verdict)
	}
	requireFinding(t, rep, "V003-streaming", "streamed its responses and", "did not")
	requireFinding(t, rep, "V020-tool-invalid", "perf_analyzer#298")
	requireFinding(t, rep, "V019-unmaintained-tool", "AIPerf")
	requireFinding(t, rep, "V015-warmup", "warmup_request_count: 0")
}

func TestSharedGuideLLMvsVLLM(t *testing.T) {
	a := sharedBundle(t, "guidellm.bundle", "guidellm/guidellm-v0.5.0dev0-concurrent4-qwen3-4b.benchmarks.json")
	b := sharedBundle(t, "vllm.bundle", "vllm/vllm_bench_sweep_serve_v0.25.1_run0_concurrency2_with-e2el.json")
	rep := validateDirs(t, Options{Compare: true}, a, b)
	if rep.Verdict != NotComparable {
		t.Errorf("verdict %s", rep.Verdict)
	}
	// GuideLLM reports token-weighted TPOTs only, but its complete
	// request records give verdict's tpot (schemas.Request.TPOT), which
	// vLLM reports too: the runs share a definition, so ITL/TPOT is not a
	// definition mismatch.
	for _, f := range findRule(rep, "V004-metric-definition") {
		if f.Metric == "ITL/TPOT" {
			t.Errorf("ITL/TPOT mismatch although both runs have tpot: %+v", f)
		}
	}
	requireFinding(t, rep, "V005-percentile-method", "nearest_rank_cumulative", "linear")
}

func TestSharedAIPerfVsGenAIPerf(t *testing.T) {
	a := sharedBundle(t, "aiperf.bundle", "aiperf/v0.2.x_qwen3-0.6b_c1_profile_export_aiperf.json")
	b := sharedBundle(t, "genai-perf.bundle", "genai-perf/v0.0.9_issue298_kserve-trtllm_c100_streaming_profile_export_genai_perf.json")
	rep := validateDirs(t, Options{Compare: true}, a, b)
	requireFinding(t, rep, "V004-metric-definition", "tpot_answer")
	requireFinding(t, rep, "V006-window", "request_throughput_span_all")
}

func TestSharedMLPerfVsVLLM(t *testing.T) {
	a := sharedBundle(t, "mlperf.bundle", "mlperf/amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt")
	b := sharedBundle(t, "vllm.bundle", "vllm/benchmark_serving_2025-03_detailed_rate10_concurrency1.json")
	rep := validateDirs(t, Options{Compare: true}, a, b)
	if rep.Verdict != NotComparable {
		t.Errorf("verdict %s", rep.Verdict)
	}
	requireFinding(t, rep, "V004-metric-definition", "TTFT is reported under different definitions", "ttft_scheduled")
	requireFinding(t, rep, "V004-metric-definition", "E2E latency is reported under different definitions", "e2e_scheduled")
	// With no definition in common, no percentile is compared, so the
	// methods (nearest rank against linear) are not at issue.
	if fs := findRule(rep, "V005-percentile-method"); len(fs) > 0 {
		t.Errorf("V005 fired: %+v", fs)
	}
}
