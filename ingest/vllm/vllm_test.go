package vllm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// TestGolden reads every hand-written fixture and compares everything the
// reader reports with a golden file.
// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func TestGolden(t *testing.T) {
	for _, name := range []string{"serve_2024-02_first.json", "serve_2024-10_e2el_swapped.json", "append_result.json",
		"sweep_summary.json", "serve_bad_rows.json", "serve_detailed.json"} {
		t.Run(name, func(t *testing.T) {
			r, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(name, ".json")+".golden.json", dump(t, r))
		})
	}
}

func metric(t *testing.T, r *ingesttest.Result, run string, id schemas.MetricID, stat string, pct float64, source string) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(run, id, stat, pct, source)
	if !ok {
		t.Fatalf("no %s %s %s p%v %s metric for run %s", id, stat, source, pct, source, run)
	}
	return m
}

// TestSemantics checks the version-dependent decisions on the hand-written
// fixtures, independently of the golden files.
func TestSemantics(t *testing.T) {
	read := func(name string) *ingesttest.Result {
		r, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// 2024-02: TPOT included TTFT, NaN means no data, old key names.
	r := read("serve_2024-02_first.json")
	run := r.Runs[0].ID
	if m := metric(t, r, run, schemas.TPOTInclTTFT, "mean", -1, "reported"); m.Value.OK || !strings.Contains(m.Note, "NaN") {
		t.Errorf("NaN TPOT: %+v", m)
	}
	if m := metric(t, r, run, schemas.RequestThroughput, "value", -1, "reported"); m.NativeName != "request_inthroughput" || m.Value.V != 1.142857 {
		t.Errorf("request_inthroughput: %+v", m)
	}
	if m := metric(t, r, run, schemas.TTFT, "p", 99, "reported"); m.Value.V != 0.15025 || m.Unit != "s" {
		t.Errorf("p99 TTFT in seconds: %+v", m)
	}
	if r.Runs[0].Arrival != schemas.ArrivalPoisson || r.Runs[0].MaxConcurrency.V != 0 || !r.Runs[0].MaxConcurrency.OK {
		t.Errorf("2024-02 arrival: %+v %+v", r.Runs[0].Arrival, r.Runs[0].MaxConcurrency)
	}

	// 2024-10: mean and median E2E were swapped by vLLM; corrected.
	r = read("serve_2024-10_e2el_swapped.json")
	run = r.Runs[0].ID
	if m := metric(t, r, run, schemas.E2E, "mean", -1, "reported"); m.Value.V != 2.25 || !strings.Contains(m.Note, "swapped") {
		t.Errorf("swapped mean: %+v", m)
	}
	if m := metric(t, r, run, schemas.E2E, "median", -1, "reported"); m.Value.V != 2.1 {
		t.Errorf("swapped median: %+v", m)
	}
	if m := metric(t, r, run, schemas.Goodput, "value", -1, "reported"); m.Value.OK || m.NativeName != "request_goodput:" {
		t.Errorf("typo goodput key: %+v", m)
	}
	if run := r.Runs[0]; run.Scenario != schemas.ScenarioOffline || !math.IsInf(run.RequestRate.V, 1) {
		t.Errorf("inf rate without limit: %+v %+v", run.Scenario, run.RequestRate)
	}

	// --append-result: two runs; gamma arrivals; a ramp-up.
	r = read("append_result.json")
	if len(r.Runs) != 2 {
		t.Fatalf("%d runs", len(r.Runs))
	}
	if a := r.Runs[0]; a.Arrival != schemas.ArrivalGamma || a.Burstiness.V != 0.5 || a.Backend != "vllm" || a.Labels["label"] != "a" {
		t.Errorf("run a: %+v", a)
	}
	if b := r.Runs[1]; b.Arrival != schemas.ArrivalRampUp || b.RampUp != "linear 1->4 req/s" || b.MaxConcurrency.V != 4 {
		t.Errorf("run b: %+v", b)
	}

	// Bad rows are rejected with their line, column and field.
	r = read("serve_bad_rows.json")
	var got []string
	for _, rej := range r.Rejections {
		got = append(got, fmt.Sprintf("%s %d:%d %s", rej.Table, rej.Line, rej.Column, rej.Field))
	}
	want := []string{"metrics 2:75 output_throughput", "metrics 7:43 median_ttft_ms", "requests 4:17 ttfts[1]", "requests 5:40 itls[2]"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("rejections:\n got %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
	if r.NumRequests != 2 {
		t.Errorf("%d requests ingested, want 2 of 4", r.NumRequests)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), `unknown key "extra_flag"`) {
		t.Errorf("warnings: %q", r.Warnings)
	}
}

// TestDetailedAgreement recomputes the hand-made detailed file's summary
// from its arrays: the file was written by make_detailed.py with vLLM's
// formulas, so every reported statistic must be reproduced.
func TestDetailedAgreement(t *testing.T) {
	r, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join("testdata", "serve_detailed.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := checkAgreement(t, r, 1e-9)
	if n < 20 {
		t.Errorf("only %d statistics compared", n)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %q", r.Warnings)
	}
	run := r.Runs[0]
	if run.Arrival != schemas.ArrivalConstant || run.Scenario != schemas.ScenarioServer || !math.IsInf(run.Burstiness.V, 1) {
		t.Errorf("burstiness Infinity: %+v %+v %+v", run.Scenario, run.Arrival, run.Burstiness)
	}
	if run.Labels["deployment"] != "demo" || run.Labels["tp"] != "2" {
		t.Errorf("metadata labels %v", run.Labels)
	}
	var failed int
	for _, q := range r.Requests {
		if q.Status == schemas.StatusError {
			failed++
			if q.TTFTS.OK || q.E2ES.OK || q.Error != "Not Found" {
				t.Errorf("failed request %d keeps data: %+v", q.Index, q)
			}
		}
		if q.Status == schemas.StatusOK && (!q.StartS.OK || !q.EndS.OK || !q.QueueS.OK) {
			t.Errorf("request %d lacks times: %+v", q.Index, q)
		}
	}
	if failed != 2 || run.Failed.V != 2 {
		t.Errorf("failed %d, run says %v", failed, run.Failed)
	}
}

// checkAgreement compares every reported statistic with its recomputed
// counterpart and returns how many were compared.
func checkAgreement(t *testing.T, r *ingesttest.Result, tol float64) int {
	t.Helper()
	computed := map[string]schemas.Metric{}
	for _, m := range r.Metrics {
		if m.Source == schemas.SourceComputed {
			m.Source = schemas.SourceReported
			computed[m.RunID+"/"+m.Key()] = m
		}
	}
	n := 0
	for _, m := range r.Metrics {
		if m.Source != schemas.SourceReported || !m.Value.OK {
			continue
		}
		c, ok := computed[m.RunID+"/"+m.Key()]
		if !ok {
			continue
		}
		n++
		if d := math.Abs(m.Value.V - c.Value.V); d > tol*math.Abs(m.Value.V) {
			t.Errorf("%s %s: reported %v, recomputed %v (relative %.3g)", m.RunID, m.NativeName, m.Value.V, c.Value.V, d/math.Abs(m.Value.V))
		}
	}
	return n
}

// Each shared fixture, with values checked against the file.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "vllm")
	type check struct {
		id   schemas.MetricID
		stat string
		pct  float64
		want float64 // NaN: the value must be missing
	}
	cases := []struct {
		file     string
		format   string
		runs     int
		requests int
		scenario schemas.Scenario
		checks   []check
		agree    bool
	}{
		{"benchmark_serving_2025-03_detailed_rate10_concurrency1.json", "vllm-serve", 1, 100, schemas.ScenarioServer,
			[]check{{schemas.TTFT, "mean", -1, 0.03618261438001355}, {schemas.ITLChunk, "p", 99, 0.011423090469497766},
				{schemas.Goodput, "value", -1, math.NaN()}, {schemas.RequestThroughput, "value", -1, 1.0902475203881978}}, true},
		{"benchmark_serving_2025-05_multi-run_newline-separated_rate10-30-inf.json", "vllm-serve", 9, 0, schemas.ScenarioServer,
			[]check{{schemas.TTFT, "p", 99, 0.09869780922984769}, {schemas.OutputTokenThroughput, "value", -1, 2258.212337970085}}, false},
		{"benchmark_serving_fork-inferencex_2026-04_inf_concurrency4_p90-p99.9.json", "vllm-serve", 1, 0, schemas.ScenarioConcurrency,
			[]check{{schemas.TTFT, "p", 99.9, 1.0827990462793985}, {schemas.E2E, "p", 90, 9.388286692928523}, {schemas.TPOT, "std", -1, 0.00002406742291045804}}, false},
		{"vllm_bench_serve_v0.25.1_all-requests-failed.json", "vllm-serve", 1, 0, schemas.ScenarioOffline,
			[]check{{schemas.TTFT, "mean", -1, math.NaN()}, {schemas.RequestThroughput, "value", -1, math.NaN()}, {schemas.ITLChunk, "p", 99, math.NaN()}}, false},
		{"vllm_bench_sweep_serve_v0.25.1_run0_concurrency2_with-e2el.json", "vllm-serve", 1, 0, schemas.ScenarioConcurrency,
			[]check{{schemas.E2E, "p", 99, 0.8768009717071254}, {schemas.PeakConcurrency1s, "value", -1, 6}, {schemas.PeakChunkRate1s, "value", -1, 75}}, false},
		{"benchmark_throughput_2025-02_output-json.json", "vllm-throughput", 1, 0, schemas.ScenarioOffline,
			[]check{{schemas.OfflineRequestThroughput, "value", -1, 2.781764499305893}, {schemas.OfflineTotalTokenThroughput, "value", -1, 1198.996134490826}}, true},
		{"benchmark_latency_2025-02_output-json.json", "vllm-latency", 1, 0, schemas.ScenarioBatchLatency,
			[]check{{schemas.BatchLatency, "mean", -1, 7.1091228867570555}, {schemas.BatchLatency, "p", 99, 7.868931790143251}}, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != c.format || len(r.Runs) != c.runs || r.NumRequests != c.requests || len(r.Rejections) != 0 {
				t.Errorf("format %s, %d runs, %d requests, %d rejections", r.Format, len(r.Runs), r.NumRequests, len(r.Rejections))
			}
			if r.Runs[0].Scenario != c.scenario {
				t.Errorf("scenario %s, want %s", r.Runs[0].Scenario, c.scenario)
			}
			for _, k := range c.checks {
				m := metric(t, r, r.Runs[0].ID, k.id, k.stat, k.pct, "reported")
				if math.IsNaN(k.want) {
					if m.Value.OK || m.Note == "" {
						t.Errorf("%s: want a missing value with a note, got %+v", m.NativeName, m)
					}
				} else if !m.Value.OK || math.Abs(m.Value.V-k.want) > 1e-12*math.Abs(k.want) {
					t.Errorf("%s: got %v, want %v", m.NativeName, m.Value, k.want)
				}
			}
			if c.agree {
				if n := checkAgreement(t, r, 1e-6); n == 0 {
					t.Error("no statistic was recomputed")
				}
			}
		})
	}
}

func TestFileErrors(t *testing.T) {
	cases := map[string]string{
		"truncated.json":         `truncated.json:2:53: malformed JSON: unexpected end of input`,
		"wrong_type.json":        `wrong_type.json:3:15: run 0: completed: expected an integer, found the string "ten"`,
		"mismatched_arrays.json": `mismatched_arrays.json:3:11: run 0: ttfts: has 2 elements but input_lens has 3`,
	}
	for name, want := range cases {
		_, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join("testdata", name))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v\nwant an *ingest.Error containing %q", name, err, want)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := map[string]int{
		`{"date": "20250101-000000", "backend": "vllm", "model_id": "m", "num_prompts": 1, "request_rate": 1}`:   90,
		"{\n    \"elapsed_time\": 1, \"num_requests\": 2, \"requests_per_second\": 2, \"tokens_per_second\": 3}": 90,
		`{"avg_latency": 1, "latencies": [1]}`:          90,
		`{"mean_ttft_ms": 1, "mean_e2e_latency_ms": 2}`: 0, // sglang's bench_serving
		`[{"benchmark": {"name": "vLLM benchmark"}}]`:   0, // the .pytorch.json side file
		`model_id,num_prompts`:                          0,
	}
	for in, want := range cases {
		if got := (vllm.Format{}).Detect("x.json", []byte(in)); got != want {
			t.Errorf("Detect(%.40q) = %d, want %d", in, got, want)
		}
	}
}

var requestRecord = regexp.MustCompile(`^run (\d+), request (\d+)$`)

// FuzzRead feeds arbitrary bytes to the reader. It must not panic, must be
// deterministic, and every request index of every run must be either
// ingested or rejected, exactly once.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"serve_2024-02_first.json", "append_result.json", "serve_bad_rows.json", "sweep_summary.json", "truncated.json", "throughput_energy.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_id":"m","num_prompts":2,"duration":1,"completed":1,"ttfts":[0.1,NaN],"itls":[[0.1],[1,2]],"errors":["","x"]}`))
	for _, name := range []string{"serve_2024-02_first.json", "append_result.json", "serve_bad_rows.json", "sweep_summary.json", "serve_2024-10_e2el_swapped.json", "throughput_energy.json"} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r1 := ingesttest.ReadTwice(t, vllm.Format{}, "fuzz.json", data)
		if r1 == nil {
			return
		}
		seen := map[string]bool{}
		for _, q := range r1.Requests {
			k := q.RunID + "/" + strconv.FormatInt(q.Index, 10)
			if seen[k] {
				t.Fatalf("request %s twice", k)
			}
			seen[k] = true
			for _, g := range q.ChunkGapsS {
				if g < 0 || math.IsNaN(g) || math.IsInf(g, 0) {
					t.Fatalf("bad gap ingested: %v", g)
				}
			}
			if v := q.TTFTS; v.OK && (v.V < 0 || math.IsNaN(v.V) || math.IsInf(v.V, 0)) {
				t.Fatalf("bad TTFT ingested: %v", v)
			}
		}
		for _, rej := range r1.Rejections {
			if rej.Table != schemas.TableRequests {
				continue
			}
			g := requestRecord.FindStringSubmatch(rej.Record)
			if g == nil {
				t.Fatalf("rejection without a request position: %+v", rej)
			}
			idx, _ := strconv.Atoi(g[1])
			if idx >= len(r1.Runs) {
				t.Fatalf("rejection of an unknown run: %+v", rej)
			}
			k := r1.Runs[idx].ID + "/" + g[2]
			if seen[k] {
				t.Fatalf("request %s both ingested and rejected", k)
			}
			seen[k] = true
		}
	})
}

// TestRustMultiTurnRefused: the Rust vllm-bench's multi-turn result (a
// hand-made file in its layout: "mode": "multi_turn", ISO-8601 date,
// per_turn_metrics) is refused by name, detected or with --format vllm,
// rather than read as a vllm bench serve run.
func TestRustMultiTurnRefused(t *testing.T) {
	path := filepath.Join("testdata", "rust_multi_turn.json")
	for _, format := range []string{"auto", "vllm"} {
		_, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats(), Format: format})
		if err == nil || !strings.Contains(err.Error(), "a multi-turn result of the Rust vllm-bench (found mode, num_conversations, per_turn_metrics)") {
			t.Errorf("%s: %v", format, err)
		}
	}
}
