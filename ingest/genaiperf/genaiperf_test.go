package genaiperf_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/genaiperf"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

const artifacts = "testdata/artifacts/demo-8b-openai-chat-concurrency2"

// readDir runs ReadDir into a collecting sink.
// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func readDir(t testing.TB, dir string) (*ingesttest.Result, error) {
	t.Helper()
	s := &ingesttest.Sink{KeepRequests: true}
	err := genaiperf.Format{}.ReadDir(context.Background(), dir, s)
	return &s.R, err
}

func read(t *testing.T, name string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, genaiperf.Format{}, filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func metric(t *testing.T, r *ingesttest.Result, run string, id schemas.MetricID, stat string, pct float64, source string) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(run, id, stat, pct, source)
	if !ok {
		t.Fatalf("no %s %s p%v %s metric for run %s", id, stat, pct, source, run)
	}
	return m
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"v0.0.3_ns.json", "v0.0.13_sessions_nonstreaming.json", "v0.0.10_bad_rows.csv",
		"raw_edge_cases.json", filepath.Join("artifacts", "demo-8b-openai-chat-concurrency2", "profile_export_genai_perf.csv")} {
		t.Run(name, func(t *testing.T) {
			golden(t, strings.ReplaceAll(name, string(filepath.Separator), "_")+".golden.json", dump(t, read(t, name)))
		})
	}
	t.Run("artifacts", func(t *testing.T) {
		r, err := readDir(t, "testdata/artifacts")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "artifacts_dir.golden.json", dump(t, r))
	})
}

// TestDirAgreement reads the hand-made artifacts directory, whose
// processed export make_artifacts.py computed from its raw export with
// GenAI-Perf's formulas: every statistic verdict can recompute without a
// tokenizer must agree, and the definitions must be the answer-only ones.
func TestDirAgreement(t *testing.T) {
	r, err := readDir(t, artifacts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 1 || r.NumRequests != 14 || len(r.Rejections) != 0 {
		t.Fatalf("%d runs, %d requests, %d rejections", len(r.Runs), r.NumRequests, len(r.Rejections))
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "disagrees") || strings.Contains(w, "differs") {
			t.Error(w)
		}
	}
	run := r.Runs[0]
	n := 0
	computed := map[string]schemas.Metric{}
	for _, m := range r.Metrics {
		if m.Source == schemas.SourceComputed {
			m.Source = schemas.SourceReported
			computed[m.Key()] = m
		}
	}
	for _, m := range r.Metrics {
		c, ok := computed[m.Key()]
		if m.Source != schemas.SourceReported || !ok {
			continue
		}
		n++
		if d := math.Abs(m.Value.V - c.Value.V); d > 1e-9*math.Abs(m.Value.V) {
			t.Errorf("%s: reported %v, recomputed %v", m.NativeName, m.Value.V, c.Value.V)
		}
	}
	if n < 35 { // latency, TTFT and TTST: 13 statistics each, plus throughput
		t.Errorf("only %d statistics compared", n)
	}
	// GenAI-Perf's request throughput counts the request without content.
	thr := metric(t, r, run.ID, schemas.RequestThroughputSpanAll, "value", -1, "computed")
	if thr.N.V != 14 || run.Completed.V != 13 || run.Failed.V != 1 {
		t.Errorf("throughput over %v requests, completed %v, failed %v", thr.N, run.Completed, run.Failed)
	}
	if run.ToolVersion != "0.0.14 or later" || run.Scenario != schemas.ScenarioConcurrency || run.MaxConcurrency.V != 2 ||
		!run.Streaming.V || run.Endpoint != "v1/chat/completions" || run.Model != "demo-org/demo-8b" {
		t.Errorf("run: %+v", run)
	}
	// Reasoning chunks: TTFT over any output is earlier than the answer's.
	q := r.Requests[2]
	if !(q.TTFTS.V < q.TTFTAnswerS.V) || q.ReasoningTokens.V != 6 {
		t.Errorf("request 2 (reasoning first): %+v", q)
	}
	if q := r.Requests[5]; q.Status != schemas.StatusError || q.E2ES.OK {
		t.Errorf("request 5 (no content): %+v", q)
	}
	// ITL is a per-request TPOT over answer tokens, not a chunk gap.
	if m := metric(t, r, run.ID, schemas.TPOTAnswer, "mean", -1, "reported"); m.NativeName != "inter_token_latency.avg" {
		t.Errorf("ITL: %+v", m)
	}
	if _, ok := r.Metric(run.ID, schemas.ITLChunk, "mean", -1, "reported"); ok {
		t.Error("GenAI-Perf's ITL was stored as a per-chunk ITL")
	}
	if m := metric(t, r, run.ID, schemas.ITLChunk, "mean", -1, "computed"); !m.Value.OK || m.N.V < 100 {
		t.Errorf("per-chunk gaps from the raw export: %+v", m)
	}
}

// TestSemantics checks the version-dependent decisions.
func TestSemantics(t *testing.T) {
	// 0.0.3: nanoseconds, old names, per-chunk ITL.
	r := read(t, "v0.0.3_ns.json")
	run := r.Runs[0]
	if run.ToolVersion != "0.0.3" || !strings.Contains(strings.Join(run.Flags, ","), "itl_per_chunk_per_token") {
		t.Errorf("0.0.3 run: %s %v", run.ToolVersion, run.Flags)
	}
	if m := metric(t, r, run.ID, schemas.ITLChunkPerToken, "mean", -1, "reported"); m.Value.V != 0.001641253 {
		t.Errorf("ns ITL: %+v", m)
	}
	if m := metric(t, r, run.ID, schemas.AnswerTokens, "mean", -1, "reported"); m.NativeName != "num_output_token.avg" || m.Value.V != 57 {
		t.Errorf("num_output_token: %+v", m)
	}
	// Non-streaming: TTFT is the latency and stored as not measured;
	// sessions become runs of their own.
	r = read(t, "v0.0.13_sessions_nonstreaming.json")
	run = r.Runs[0]
	if m := metric(t, r, run.ID, schemas.TTFTAnswer, "mean", -1, "reported"); m.Value.OK || !strings.Contains(m.Note, "not measured") {
		t.Errorf("non-streaming TTFT: %+v", m)
	}
	if m := metric(t, r, run.ID, schemas.E2E, "mean", -1, "reported"); m.Value.V != 1.2505 {
		t.Errorf("latency: %+v", m)
	}
	if len(r.Runs) != 3 || r.Runs[1].Labels["session_id"] != "session-a" || r.Runs[2].Labels["session_of"] != run.ID {
		t.Errorf("sessions: %+v", r.Runs[1:])
	}
	if run.Labels["session_concurrency"] != "4" || run.Completed.V != 8 || run.Labels["output_tokens_mean"] != "" {
		t.Errorf("nested config: %+v", run)
	}
	// Bad cells are rejected with their position; the rest is kept.
	r = read(t, "v0.0.10_bad_rows.csv")
	var got []string
	for _, rej := range r.Rejections[:3] {
		got = append(got, strconv.Itoa(rej.Line)+":"+strconv.Itoa(rej.Column)+" "+rej.Field)
	}
	want := "3:33 Time To Second Token (ms).min; 4:33 Request Latency (ms).min; 6:25 Prefix Hit Rate (ratio).avg"
	if strings.Join(got, "; ") != want {
		t.Errorf("rejections:\n got %s\nwant %s", strings.Join(got, "; "), want)
	}
	if m := metric(t, r, r.Runs[0].ID, schemas.TTFTAnswer, "p", 99, "reported"); m.Value.V != 3.45797 {
		t.Errorf("thousands separator: %+v", m)
	}
	if _, ok := r.Metric(r.Runs[0].ID, schemas.TTFTAnswer, "max", -1, "reported"); ok {
		t.Error("N/A became a value")
	}
}

// TestRawEdgeCases: splintered SSE events, error events, Triton and
// C-API outputs, and bad request rows.
func TestRawEdgeCases(t *testing.T) {
	r := read(t, "raw_edge_cases.json")
	if len(r.Runs) != 2 || r.NumRequests != 4 || len(r.Rejections) != 3 {
		t.Fatalf("%d runs, %d requests, %d rejections", len(r.Runs), r.NumRequests, len(r.Rejections))
	}
	q := r.Requests[0] // the answer starts in a splintered event completed by the next response
	if q.TTFTAnswerS.V != 0.3 || q.E2ES.V != 0.4 || len(q.ChunkGapsS) != 1 {
		t.Errorf("splintered chunk: %+v", q)
	}
	if q := r.Requests[1]; q.Status != schemas.StatusError || q.Error != "overloaded" {
		t.Errorf("error event: %+v", q)
	}
	if q := r.Requests[3]; q.OutputTokens.V != 4 {
		t.Errorf("output_ids: %+v", q)
	}
	if r.Runs[1].RequestRate.V != 2.5 || r.Runs[1].Scenario != schemas.ScenarioServer {
		t.Errorf("request-rate experiment: %+v", r.Runs[1])
	}
	for _, rej := range r.Rejections {
		if rej.Line == 0 || rej.Field == "" || !strings.HasPrefix(rej.Record, "experiment 0, request ") {
			t.Errorf("rejection without position: %+v", rej)
		}
	}
}

// Each shared fixture, with the version detected and values checked
// against the file.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "genai-perf")
	type check struct {
		id   schemas.MetricID
		stat string
		pct  float64
		want float64 // NaN: the value must be missing, with a note
	}
	cases := []struct {
		file, format, version string
		streaming             bool
		flags                 []string
		checks                []check
	}{
		{"v0.0.2dev_profile_export_genai_perf.csv", "genai-perf-csv", "0.0.3 or earlier", true, []string{"itl_per_chunk_per_token"},
			[]check{{schemas.TTFTAnswer, "mean", -1, 0.005964158}, {schemas.ITLChunkPerToken, "p", 99, 0.002004229},
				{schemas.AnswerTokens, "max", -1, 104}, {schemas.RequestThroughputSpanAll, "value", -1, 10.95}}},
		{"v0.0.9_issue298_kserve-trtllm_c100_streaming_profile_export_genai_perf.json", "genai-perf-json", "0.0.9", true,
			[]string{"itl_counts_single_chunk_requests_as_zero", "streaming_osl_inflated"},
			[]check{{schemas.TTFTAnswer, "p", 99, 0.42502943662}, {schemas.TPOTAnswer, "mean", -1, 0.0021767344516666665},
				{schemas.AnswerTokens, "mean", -1, 2565.855}, {schemas.E2EOutputTokenRateAnswer, "median", -1, 444.1575106746062},
				{schemas.OutputTokenThroughputSpanAnswer, "value", -1, 44190.56002502682}}},
		{"v0.0.9_issue298_kserve-trtllm_c100_nonstreaming_profile_export_genai_perf.json", "genai-perf-json", "0.0.9", false, nil,
			[]check{{schemas.TTFTAnswer, "mean", -1, math.NaN()}, {schemas.E2E, "mean", -1, 4.6106156361171425},
				{schemas.RequestThroughputSpanAll, "value", -1, 21.621765653636075}, {schemas.InputTokens, "std", -1, 19.752151781514844}}},
		{"v0.0.10-12_cloudai-doc_dynamo_profile_export_genai_perf.csv", "genai-perf-csv", "0.0.10-0.0.12", true,
			[]string{"itl_counts_single_chunk_requests_as_zero"},
			[]check{{schemas.TTFTAnswer, "mean", -1, 1.14631}, {schemas.E2E, "p", 99, 9.43613}, {schemas.TTSTAnswer, "min", -1, 0},
				{schemas.InputTokens, "mean", -1, 3000.05}, {schemas.OutputTokenThroughputSpanAnswer, "value", -1, 261.25}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, err := ingesttest.ReadFile(t, genaiperf.Format{}, filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			run := r.Runs[0]
			if r.Format != c.format || r.Tool != "genai-perf" || r.Version != c.version || run.ToolVersion != c.version || len(r.Rejections) != 0 {
				t.Errorf("format %s, tool %s, version %q, %d rejections", r.Format, r.Tool, r.Version, len(r.Rejections))
			}
			if !run.Streaming.OK || run.Streaming.V != c.streaming {
				t.Errorf("streaming %v", run.Streaming)
			}
			for _, f := range c.flags {
				if !strings.Contains(strings.Join(run.Flags, ","), f) {
					t.Errorf("flag %s missing from %v", f, run.Flags)
				}
			}
			for _, k := range c.checks {
				m := metric(t, r, run.ID, k.id, k.stat, k.pct, "reported")
				if math.IsNaN(k.want) {
					if m.Value.OK || m.Note == "" {
						t.Errorf("%s: want a missing value with a note, got %+v", m.NativeName, m)
					}
				} else if !m.Value.OK || math.Abs(m.Value.V-k.want) > 1e-12*math.Max(1, math.Abs(k.want)) {
					t.Errorf("%s: got %v, want %v", m.NativeName, m.Value, k.want)
				}
			}
			if strings.Contains(c.file, "_streaming_") {
				if !strings.Contains(strings.Join(r.Warnings, "\n"), "perf_analyzer#298") {
					t.Errorf("no warning about the OSL bug: %q", r.Warnings)
				}
				if m := metric(t, r, run.ID, schemas.AnswerTokens, "mean", -1, "reported"); !strings.Contains(m.Note, "5x") {
					t.Errorf("OSL note: %q", m.Note)
				}
			}
		})
	}
}

func TestFileErrors(t *testing.T) {
	_, err := ingesttest.ReadFile(t, genaiperf.Format{}, "testdata/truncated.json")
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.Line != 1 || ie.Column != 99 || !strings.Contains(err.Error(), "malformed JSON") {
		t.Errorf("truncated raw export: %v", err)
	}
	for name, want := range map[string]string{
		"bad.csv":  `bad.csv:2:28: malformed CSV`,
		"bad.json": `bad.json:1:27: summary: request_count.avg: expected a non-negative whole number`,
		"arr.json": "not a GenAI-Perf file",
	} {
		data := map[string]string{
			"bad.csv":  "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nTime To First Token (ms),\"1\"2,3\n",
			"bad.json": `{"request_count": {"avg": 2.5}, "request_latency": {"unit": "ms", "avg": 1}, "input_config": {}}`,
			"arr.json": `[1, 2]`,
		}[name]
		_, err := ingesttest.ReadBytes(genaiperf.Format{}, name, []byte(data))
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
}

// TestDriver ingests the artifacts directory and a file through the
// driver, by detection and with --format.
func TestDriver(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	sum, err := ingest.ToBundle(context.Background(), []string{"testdata/artifacts", "testdata/v0.0.3_ns.json"}, out,
		ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 2 || sum.Manifest.Sources[0].Format != "genai-perf-dir" || sum.Manifest.Sources[0].Tool != "genai-perf" ||
		sum.Manifest.Sources[1].ToolVersion != "0.0.3" {
		t.Errorf("sources: %+v", sum.Manifest.Sources)
	}
	if c := sum.Totals(schemas.TableRequests); c.Ingested != 14 {
		t.Errorf("requests: %+v", c)
	}
	// --format genai-perf on a file detection would also take.
	_, err = ingest.ToBundle(context.Background(), []string{"testdata/raw_edge_cases.json"}, filepath.Join(t.TempDir(), "c"),
		ingest.Options{Formats: all.Formats(), Format: "genai-perf"})
	if err != nil {
		t.Fatal(err)
	}
	// Rows read = ingested + rejected.
	for _, src := range sum.Manifest.Sources {
		for table, c := range src.Counts {
			if c.Read != c.Ingested+c.Rejected {
				t.Errorf("%s %s: %+v", src.Path, table, c)
			}
		}
	}
}

var requestRecord = regexp.MustCompile(`^experiment (\d+), request (\d+)$`)

// FuzzRead feeds arbitrary bytes to the reader (raw exports, summaries and
// CSVs). It must not panic, must be deterministic, must fail only with
// *ingest.Error, and every request of the raw export must be either
// ingested or rejected, exactly once.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"v0.0.3_ns.json", "v0.0.13_sessions_nonstreaming.json", "v0.0.10_bad_rows.csv",
		"raw_edge_cases.json", "truncated.json", filepath.Join("artifacts", "demo-8b-openai-chat-concurrency2", "profile_export_genai_perf.csv")} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"experiments":[{"requests":[{"timestamp":1,"response_timestamps":[2,3],"response_outputs":[{"response":"data: {}"},{}]}]}]}`))
	for _, name := range []string{"v0.0.3_ns.json", "v0.0.13_sessions_nonstreaming.json", "raw_edge_cases.json",
		filepath.Join("artifacts", "demo-8b-openai-chat-concurrency2", "profile_export_genai_perf.json")} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r1 := ingesttest.ReadTwice(t, genaiperf.Format{}, "fuzz", data)
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
			for _, v := range append([]float64{q.TTFTS.V, q.E2ES.V, q.TTFTAnswerS.V}, q.ChunkGapsS...) {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("bad time ingested: %+v", q)
				}
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
		for _, m := range r1.Metrics {
			if v := m.Value; v.OK && (math.IsInf(v.V, 0) || v.V < 0) {
				t.Fatalf("bad value ingested: %+v", m)
			}
		}
	})
}

// TestStreamingOSLQuirkDirection: a hand-made GenAI-Perf 0.0.9 streaming
// run against an OpenAI-compatible (vLLM) server, in the layout of the
// real 0.0.9 exports: output lengths about 5x the requested ones. The
// notes and the warning never call ITL too large: miscounted tokens make
// it too small (it divides by them), and really generated ones leave it
// right. The backend is the endpoint called, not the Triton default
// tensorrtllm that the argparse dump carries.
func TestStreamingOSLQuirkDirection(t *testing.T) {
	r := read(t, "v0.0.9_openai_vllm_streaming.json")
	run := r.Runs[0]
	if run.Backend != "openai-chat" {
		t.Errorf("backend %q, want openai-chat", run.Backend)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "output lengths are about 5x the requested ones") || !strings.Contains(w, "ITL about 5x too small") ||
		!strings.Contains(w, "5.0x the requested 512 tokens") {
		t.Errorf("warning %q", w)
	}
	itl := metric(t, r, run.ID, schemas.TPOTAnswer, "mean", -1, "reported")
	if !strings.Contains(itl.Note, "5x too small") || !strings.Contains(itl.Note, "never too large") {
		t.Errorf("ITL note %q", itl.Note)
	}
	for _, m := range r.Metrics {
		if m.MetricID == schemas.TPOTAnswer && strings.Contains(strings.ReplaceAll(m.Note, "never too large", ""), "too large") {
			t.Errorf("%s note says too large: %q", m.NativeName, m.Note)
		}
	}
	if thr := metric(t, r, run.ID, schemas.OutputTokenThroughputSpanAnswer, "value", -1, "reported"); !strings.Contains(thr.Note, "too large if the output tokens were miscounted") {
		t.Errorf("throughput note %q", thr.Note)
	}
}
