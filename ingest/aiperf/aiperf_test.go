package aiperf_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/genaiperf"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

const artifacts = "testdata/artifacts/demo-8b-openai-chat-concurrency4"

// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func readDir(t testing.TB, dir string) (*ingesttest.Result, error) {
	t.Helper()
	s := &ingesttest.Sink{KeepRequests: true}
	err := aiperf.Format{}.ReadDir(context.Background(), dir, s)
	return &s.R, err
}

func read(t *testing.T, path string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, aiperf.Format{}, path)
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
	for _, name := range []string{"records_bad.jsonl", "v0.3_timeslices.csv", filepath.Join(artifacts, "profile_export_aiperf.csv")} {
		t.Run(name, func(t *testing.T) {
			path := name
			if !strings.HasPrefix(name, "testdata") {
				path = filepath.Join("testdata", name)
			}
			golden(t, filepath.Base(name)+".golden.json", dump(t, read(t, path)))
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

// TestDirAgreement reads the hand-made artifacts directory, whose summary
// make_artifacts.py computed from its records with AIPerf's formulas:
// every statistic recomputed from the records must agree with it.
func TestDirAgreement(t *testing.T) {
	r, err := readDir(t, artifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "disagrees") || strings.Contains(w, "differs") {
			t.Error(w)
		}
	}
	main := r.Runs[0]
	computed := map[string]schemas.Metric{}
	for _, m := range r.Metrics {
		if m.Source == schemas.SourceComputed && m.RunID == main.ID {
			m.Source = schemas.SourceReported
			computed[m.Key()] = m
		}
	}
	n := 0
	for _, m := range r.Metrics {
		c, ok := computed[m.Key()]
		if m.Source != schemas.SourceReported || m.RunID != main.ID || !ok {
			continue
		}
		n++
		tol := 1e-9
		if schemas.MustLookup(m.MetricID).Level == schemas.LevelRun {
			tol = 1e-6
		}
		if d := math.Abs(m.Value.V - c.Value.V); d > tol*math.Abs(m.Value.V) {
			t.Errorf("%s: reported %v, recomputed %v", m.NativeName, m.Value.V, c.Value.V)
		}
	}
	if n < 150 {
		t.Errorf("only %d statistics compared", n)
	}
	if main.ToolVersion != "0.5.0" || main.Completed.V != 15 || main.Failed.V != 2 || main.Scenario != schemas.ScenarioConcurrency ||
		main.Labels["warmup_records"] != "1" || !strings.Contains(main.Labels["error_summary"], "499 RequestCancellationError") {
		t.Errorf("run: %+v", main)
	}
	// Warm-up and failed records are rows; the error text is kept.
	var warm, failed int
	for _, q := range r.Requests {
		switch {
		case q.Phase == schemas.PhaseWarmup:
			warm++
		case q.Status == schemas.StatusError:
			failed++
			if q.Error == "" || !q.InputTokens.OK || q.E2ES.OK {
				t.Errorf("failed record: %+v", q)
			}
		}
	}
	if warm != 1 || failed != 2 || r.NumRequests != 18 {
		t.Errorf("%d warm-up, %d failed of %d", warm, failed, r.NumRequests)
	}
	// Samples: per GPU, energy in joules as a counter.
	if len(r.Samples) != 6 || r.Samples[0].RunID != main.ID || r.Samples[0].EnergyJ.V != 1000.0004e6 || r.Samples[0].MemUsedBytes.V != 120_500_000_000 {
		t.Errorf("samples: %+v", r.Samples[:1])
	}
	// Timeslices are runs of their own, tied to the main run.
	if len(r.Runs) != 4 || r.Runs[1].Labels["timeslice_of"] != main.ID || r.Runs[1].Labels["timeslice_index"] != "0" {
		t.Errorf("timeslice runs: %+v", r.Runs[1:])
	}
}

// TestDefinitions checks that AIPerf's names land under the definitions
// that match what it computes.
func TestDefinitions(t *testing.T) {
	r, err := readDir(t, artifacts)
	if err != nil {
		t.Fatal(err)
	}
	id := r.Runs[0].ID
	for native, want := range map[string]schemas.MetricID{
		"time_to_first_token.avg": schemas.TTFT, "time_to_first_output_token.avg": schemas.TTFTAnswer, "inter_token_latency.avg": schemas.TPOT,
		"inter_chunk_latency.avg": schemas.ITLChunk, "output_sequence_length.avg": schemas.OutputTokens, "output_token_count.avg": schemas.AnswerTokens,
		"request_throughput.avg": schemas.RequestThroughputSpan, "output_token_throughput.avg": schemas.OutputTokenThroughputSpan,
		"prefill_throughput_per_user.avg": schemas.PrefillRatePerUser, "total_osl.avg": schemas.OutputTokens, "error_isl.avg": schemas.InputTokensFailed,
	} {
		found := false
		for _, m := range r.Metrics {
			if m.RunID == id && m.NativeName == native {
				found = true
				if m.MetricID != want {
					t.Errorf("%s -> %s, want %s", native, m.MetricID, want)
				}
			}
		}
		if !found {
			t.Errorf("%s not ingested", native)
		}
	}
	if m := metric(t, r, id, schemas.OutputTokens, "sum", -1, "reported"); m.Value.V != 259 {
		t.Errorf("total_osl: %+v", m)
	}
	// Reasoning requests: TTFT (any content) comes before the first answer.
	if m, a := metric(t, r, id, schemas.TTFT, "max", -1, "reported"), metric(t, r, id, schemas.TTFTAnswer, "max", -1, "reported"); !(m.Value.V < a.Value.V) {
		t.Errorf("ttft %v, ttft_answer %v", m.Value, a.Value)
	}
}

// TestSideBySide ingests one workload measured by AIPerf and by vLLM bench
// serve into one bundle. TTFT, TPOT and the per-chunk gaps must carry the
// same definition IDs in both, and agree in value; GenAI-Perf's ITL must
// not be a per-chunk ITL.
func TestSideBySide(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	sum, err := ingest.ToBundle(context.Background(), []string{"testdata/side_by_side/profile_export.jsonl",
		"testdata/side_by_side/vllm_serve_detailed.json"}, out, ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Manifest.Sources[0].Tool != "aiperf" || sum.Manifest.Sources[1].Tool != "vllm" {
		t.Fatalf("sources: %+v", sum.Manifest.Sources)
	}
	for _, s := range sum.Manifest.Sources {
		for _, w := range s.Warnings {
			if strings.Contains(w, "disagrees") {
				t.Error(w)
			}
		}
	}
	b, err := analysis.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	// A lone records file stores no distributions (verdict stats computes
	// them); compare the two runs the way it does, from the request rows.
	runs, err := analysis.Observe(context.Background(), b, analysis.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string]map[schemas.MetricID]float64{} // tool -> metric -> mean
	for _, r := range runs {
		mean[r.Run.Tool] = map[schemas.MetricID]float64{}
		for id, xs := range r.Values {
			mean[r.Run.Tool][id] = stats.Mean(xs)
		}
	}
	for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk, schemas.E2E} {
		a, okA := mean["aiperf"][id]
		v, okV := mean["vllm"][id]
		if !okA || !okV || math.Abs(a-v) > 1e-9*math.Abs(v) {
			t.Errorf("%s: aiperf %v (%v), vllm %v (%v)", id, a, okA, v, okV)
		}
	}
	// The definitions behind the IDs, as `verdict show` prints them.
	if d := schemas.MustLookup(schemas.ITLChunk); d.Level != schemas.LevelChunk {
		t.Errorf("itl_chunk level %s", d.Level)
	}
	natives := map[schemas.MetricID][]string{}
	for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk, schemas.TPOTAnswer, schemas.TTFTAnswer} {
		for _, n := range schemas.MustLookup(id).Reported {
			natives[id] = append(natives[id], n.Tool+":"+n.Names)
		}
	}
	joined := func(id schemas.MetricID) string { return strings.Join(natives[id], " | ") }
	switch {
	case !strings.Contains(joined(schemas.TPOT), "aiperf:inter_token_latency") || !strings.Contains(joined(schemas.TPOT), "vllm:"):
		t.Errorf("tpot natives: %s", joined(schemas.TPOT))
	case !strings.Contains(joined(schemas.ITLChunk), "aiperf:inter_chunk_latency") || !strings.Contains(joined(schemas.ITLChunk), "vllm:itls"):
		t.Errorf("itl_chunk natives: %s", joined(schemas.ITLChunk))
	case !strings.Contains(joined(schemas.TPOTAnswer), "genai-perf:inter_token_latency"):
		t.Errorf("tpot_answer natives: %s", joined(schemas.TPOTAnswer))
	case !strings.Contains(joined(schemas.TTFTAnswer), "aiperf:time_to_first_output_token") || !strings.Contains(joined(schemas.TTFTAnswer), "genai-perf:time_to_first_token"):
		t.Errorf("ttft_answer natives: %s", joined(schemas.TTFTAnswer))
	}
}

func TestRecordsBad(t *testing.T) {
	r := read(t, "testdata/records_bad.jsonl")
	var got []string
	for _, rej := range r.Rejections {
		got = append(got, strconv.Itoa(rej.Line)+":"+strconv.Itoa(rej.Column)+" "+rej.Record+" "+rej.Field)
	}
	want := []string{
		"2:148 record 1 metrics.request_latency.value",
		"3:166 record 2 metrics.time_to_first_token.unit",
		"4:53 record 3 metadata.request_start_ns",
		"5:93 record 4 metadata.benchmark_phase",
		"6:155 record 5 metrics.output_sequence_length.value",
		"8:1 record 6 ",
		"9:206 record 8 metrics.inter_chunk_latency.value",
		"11:184 record 9 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rejections:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Rows read (non-empty lines) = ingested + rejected.
	if r.NumRequests+len(r.Rejections) != 11 || r.NumRequests != 3 {
		t.Errorf("%d ingested + %d rejected", r.NumRequests, len(r.Rejections))
	}
	run := r.Runs[0]
	if run.Completed.V != 1 || run.Failed.V != 1 {
		t.Errorf("run: %+v", run)
	}
	if q := r.Requests[0]; q.StartS.V != 1764669600 || q.EndS.V != 1764669600.4505 || q.E2ES.V != 0.4505 {
		t.Errorf("request 0: %+v", q)
	}
	if q := r.Requests[2]; q.Phase != schemas.PhaseWarmup || q.E2ES.V != 0.1 {
		t.Errorf("warm-up record in seconds: %+v", q)
	}
}

// Each shared fixture, with the version detected and values checked
// against the file.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "aiperf")
	type check struct {
		id     schemas.MetricID
		stat   string
		pct    float64
		source string
		want   float64
	}
	cases := []struct {
		file, format, version string
		requests, samples     int
		checks                []check
	}{
		{"v0.1.1-dev_records-format_profile_export_aiperf.json", "aiperf-json", "0.1.x", 0, 0,
			[]check{{schemas.TTFT, "mean", -1, "reported", 2.343219436988764}, {schemas.TTST, "p", 99, "reported", 0.14291884412},
				{schemas.TPOT, "median", -1, "reported", 0.027615130366666666}, {schemas.ITLChunk, "p", 95, "reported", 0.0316586686},
				{schemas.AnswerTokens, "mean", -1, "reported", 61.06666666666667}, {schemas.ReasoningTokens, "sum", -1, "reported", 19792},
				{schemas.RequestThroughputSpan, "value", -1, "reported", 9.551622221540914}}},
		{"v0.2.x_qwen3-0.6b_c1_profile_export_aiperf.json", "aiperf-json", "0.2.x", 0, 0,
			[]check{{schemas.TTFT, "p", 10, "reported", 0.029051044199999996}, {schemas.TTFTAnswer, "max", -1, "reported", 0.034717433},
				{schemas.OutputTokenRatePerUser, "mean", -1, "reported", 54.96763210350922}, {schemas.PrefillRatePerUser, "std", -1, "reported", 141.77943729060345},
				{schemas.OutputTokens, "sum", -1, "reported", 12799}, {schemas.OutputTokenThroughputSpan, "value", -1, "reported", 50.08213863971112}}},
		{"v0.2.x_qwen3-0.6b_c1_profile_export.jsonl", "aiperf-records", "0.2.x or later", 10, 0,
			[]check{{schemas.OutputTokens, "sum", -1, "computed", 2000}}},
		{"v0.2.x_qwen3-0.6b_c1_gpu_telemetry_export.jsonl", "aiperf-gpu-telemetry", "0.2.x or later", 0, 20, nil},
		{"v0.8.0_mock-model_c4_nonstreaming_profile_export_aiperf.json", "aiperf-json", "0.8.0", 0, 0,
			[]check{{schemas.E2E, "p", 95, "reported", 0.010865638499999939}, {schemas.E2EOutputTokenRate, "mean", -1, "reported", 818779.8208254927},
				{schemas.InputTokensUsageDiff, "max", -1, "reported", 0.17272727272727273}, {schemas.UsageDiscrepancyRequests, "value", -1, "reported", 2},
				{schemas.TotalTokenThroughputSpan, "value", -1, "reported", 2042654.398625265}}},
		{"v0.8.0_mock-model_c4_nonstreaming_profile_export_aiperf.csv", "aiperf-csv", "0.7.x or later", 0, 0,
			[]check{{schemas.E2E, "mean", -1, "reported", 0.00152}, {schemas.OutputTokens, "sum", -1, "reported", 35277}, {schemas.E2EOutputTokenRate, "sum", -1, "reported", 52401908.53},
				{schemas.OutputTokensUsageDiff, "mean", -1, "reported", 0.0353}, {schemas.RequestThroughputSpan, "value", -1, "reported", 1854.93}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r := read(t, filepath.Join(dir, c.file))
			run := r.Runs[0]
			if r.Format != c.format || r.Tool != "aiperf" || r.Version != c.version || run.ToolVersion != c.version ||
				r.NumRequests != c.requests || len(r.Samples) != c.samples || len(r.Rejections) != 0 {
				t.Errorf("format %s, version %q, %d requests, %d samples, %d rejections", r.Format, r.Version, r.NumRequests, len(r.Samples), len(r.Rejections))
			}
			for _, k := range c.checks {
				m := metric(t, r, run.ID, k.id, k.stat, k.pct, k.source)
				if !m.Value.OK || math.Abs(m.Value.V-k.want) > 1e-12*math.Max(1, math.Abs(k.want)) {
					t.Errorf("%s %s: got %v, want %v", k.id, m.NativeName, m.Value, k.want)
				}
			}
		})
	}
	// 0.1.x: the failed requests and their error summary are kept.
	r := read(t, filepath.Join(dir, "v0.1.1-dev_records-format_profile_export_aiperf.json"))
	if run := r.Runs[0]; run.Failed.V != 11 || run.Completed.V != 89 || !strings.Contains(run.Labels["error_summary"], "11 x 499 RequestCancellationError") {
		t.Errorf("0.1.x errors: %+v", run)
	}
	// The 0.8.0 run did not stream: no TTFT exists, and nothing claims one.
	r = read(t, filepath.Join(dir, "v0.8.0_mock-model_c4_nonstreaming_profile_export_aiperf.json"))
	if run := r.Runs[0]; run.Streaming.V || !run.Streaming.OK || run.MaxConcurrency.V != 4 || run.Model != "mock-model" {
		t.Errorf("0.8.0 run: %+v", run)
	}
	// Telemetry: energy is a counter in joules.
	r = read(t, filepath.Join(dir, "v0.2.x_qwen3-0.6b_c1_gpu_telemetry_export.jsonl"))
	if s := r.Samples[0]; s.EnergyJ.V != 32.62748095e6 || s.PowerW.V != 30.257 || s.Time.UnixNano() != 1762551530946074466 {
		t.Errorf("sample: %+v", s)
	}
}

// TestDetectionMatrix runs both detectors (and vLLM's) over every shared
// fixture: each tool's files go to its own format and to no other.
func TestDetectionMatrix(t *testing.T) {
	root := filepath.Dir(testkit.Corpus(t, "aiperf"))
	files, _ := filepath.Glob(filepath.Join(root, "*", "*"))
	if len(files) < 20 {
		t.Fatalf("only %d fixtures", len(files))
	}
	for _, path := range files {
		if strings.HasSuffix(path, ".md") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), ingest.HeadSize)]
		tool := filepath.Base(filepath.Dir(path))
		gap := genaiperf.Format{}.Detect(path, head)
		aip := aiperf.Format{}.Detect(path, head)
		vl := vllm.Format{}.Detect(path, head)
		switch tool {
		case "genai-perf":
			if gap == 0 || aip != 0 || vl != 0 {
				t.Errorf("%s: genai-perf %d, aiperf %d, vllm %d", path, gap, aip, vl)
			}
		case "aiperf", "aiperf-energy": // AIPerf runs with GPU energy telemetry
			if aip == 0 || gap != 0 || vl != 0 {
				t.Errorf("%s: genai-perf %d, aiperf %d, vllm %d", path, gap, aip, vl)
			}
		default:
			if gap != 0 || aip != 0 {
				t.Errorf("%s (%s): genai-perf %d, aiperf %d", path, tool, gap, aip)
			}
		}
	}
	// Directories too.
	if (aiperf.Format{}).DetectDir(filepath.Join(root, "vllm")) != 0 || (genaiperf.Format{}).DetectDir(artifacts) != 0 ||
		(aiperf.Format{}).DetectDir(artifacts) == 0 {
		t.Error("directory detection")
	}
}

func TestFileErrors(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"empty.jsonl": {`{"metadata": {}, "metrics": {}}` + "\n" + "   \n", ""},
		"trunc.json":  {`{"schema_version": "1.0", "aiperf_version": "0.5.0", "request_latency": {"unit": "ms", "avg": 1`, "trunc.json:1:96: malformed JSON"},
		"dur.json":    {`{"schema_version": "1.0", "aiperf_version": "0.5.0", "benchmark_duration": {"unit": "tokens", "avg": 1}}`, "dur.json:1:102: summary: benchmark_duration: expected a duration"},
		"csv.csv":     {"Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\nRequest Latency (ms),\"1\n", "csv.csv:2:25: malformed CSV"},
	} {
		if c.want == "" {
			continue
		}
		_, err := ingesttest.ReadBytes(aiperf.Format{}, name, []byte(c.data))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
}

var recordRe = regexp.MustCompile(`^record (\d+)$`)

// FuzzRead feeds arbitrary bytes to the reader (records, summaries,
// CSVs, timeslices, telemetry). It must not panic, must be deterministic,
// must fail only with *ingest.Error, and every record must be ingested or
// rejected exactly once.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"testdata/records_bad.jsonl", "testdata/v0.3_timeslices.csv", filepath.Join(artifacts, "profile_export_aiperf.json"),
		filepath.Join(artifacts, "profile_export_aiperf.csv"), filepath.Join(artifacts, "gpu_telemetry_export.jsonl"),
		filepath.Join(artifacts, "profile_export_aiperf_timeslices.json"),
		"testdata/energy/profile_export_aiperf.json", "testdata/energy/gpu_telemetry_export.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	recs, _ := os.ReadFile(filepath.Join(artifacts, "profile_export.jsonl"))
	f.Add(recs[:min(len(recs), 3000)])
	// Every field of a record, a summary, a time slice and a telemetry
	// line replaced by every JSON type (issue 15: "was_cancelled": [1]
	// panicked).
	first := recs[:bytes.IndexByte(recs, '\n')+1]
	f.Add([]byte(`{"metadata": {"was_cancelled": [1], "request_start_ns": []}, "metrics": {}}` + "\n"))
	for _, name := range []string{filepath.Join(artifacts, "profile_export_aiperf.json"), filepath.Join(artifacts, "profile_export_aiperf_timeslices.json"),
		filepath.Join(artifacts, "gpu_telemetry_export.jsonl"), "testdata/records_bad.jsonl",
		"testdata/energy/profile_export_aiperf.json", "testdata/energy/gpu_telemetry_export.jsonl"} {
		data, _ := os.ReadFile(name)
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	ingesttest.AddTypeSeeds(f, 0, first)
	f.Fuzz(func(t *testing.T, data []byte) {
		r1 := ingesttest.ReadTwice(t, aiperf.Format{}, "fuzz", data)
		if r1 == nil {
			return
		}
		seen := map[int64]bool{}
		for _, q := range r1.Requests {
			if seen[q.Index] {
				t.Fatalf("record %d twice", q.Index)
			}
			seen[q.Index] = true
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
			g := recordRe.FindStringSubmatch(rej.Record)
			if g == nil {
				t.Fatalf("rejection without a record position: %+v", rej)
			}
			i, _ := strconv.ParseInt(g[1], 10, 64)
			if seen[i] {
				t.Fatalf("record %d both ingested and rejected", i)
			}
			seen[i] = true
		}
		for i := range int64(len(seen)) {
			if !seen[i] {
				t.Fatalf("record %d neither ingested nor rejected", i)
			}
		}
		for _, m := range r1.Metrics {
			if v := m.Value; v.OK && (math.IsInf(v.V, 0) || v.V < 0) {
				t.Fatalf("bad value ingested: %+v", m)
			}
		}
	})
}

// TestFormatOverride: --format aiperf reads a file whatever detection
// would say, and refuses a file of another tool with a positioned error.
func TestFormatOverride(t *testing.T) {
	opts := ingest.Options{Formats: all.Formats(), Format: "aiperf"}
	sum, err := ingest.ToBundle(context.Background(), []string{"testdata/records_bad.jsonl"}, filepath.Join(t.TempDir(), "b"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Totals(schemas.TableRequests)
	if c.Read != 11 || c.Ingested != 3 || c.Rejected != 8 || sum.Manifest.Sources[0].ToolVersion != "0.2.x or later" {
		t.Errorf("counts %+v, source %+v", c, sum.Manifest.Sources[0])
	}
	_, err = ingest.ToBundle(context.Background(), []string{"testdata/side_by_side/vllm_serve_detailed.json"}, filepath.Join(t.TempDir(), "c"), opts)
	var ie *ingest.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `not an AIPerf export: found a JSON object with the keys "date", "endpoint_type"`) {
		t.Errorf("vLLM file read as AIPerf: %v", err)
	}
}

// copyAs copies files of the hand-made artifact set into dir under new
// names (old name -> new name), the layout of exports given as files.
func copyAs(t *testing.T, dir string, names map[string]string) []string {
	t.Helper()
	var out []string
	for _, old := range []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "gpu_telemetry_export.jsonl", "profile_export_aiperf_timeslices.json"} {
		name, ok := names[old]
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(artifacts, old))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestFilesAsOneRun gives the records, summary and telemetry of one run as
// files (as a shell glob does), under AIPerf's default names, under a
// --profile-export-prefix and under renamed copies: each is one run, as
// the directory form gives, that lists every file.
func TestFilesAsOneRun(t *testing.T) {
	ctx := context.Background()
	dirSum, err := ingest.ToBundle(ctx, []string{artifacts}, filepath.Join(t.TempDir(), "dir"), ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	want := dirSum.Totals(schemas.TableRequests).Ingested
	for _, c := range []struct {
		name  string
		names map[string]string
	}{
		{"default names", map[string]string{"profile_export.jsonl": "profile_export.jsonl", "profile_export_aiperf.json": "profile_export_aiperf.json",
			"gpu_telemetry_export.jsonl": "gpu_telemetry_export.jsonl"}},
		{"prefix", map[string]string{"profile_export.jsonl": "myrun.jsonl", "profile_export_aiperf.json": "myrun.json",
			"gpu_telemetry_export.jsonl": "myrun_gpu_telemetry.jsonl", "profile_export_aiperf_timeslices.json": "myrun_timeslices.json"}},
		{"prefix, old telemetry name", map[string]string{"profile_export.jsonl": "myrun.jsonl", "profile_export_aiperf.json": "myrun_aiperf.json",
			"gpu_telemetry_export.jsonl": "gpu_telemetry_export.jsonl"}},
		{"renamed copies", map[string]string{"profile_export.jsonl": "qwen_c1_profile_export.jsonl", "profile_export_aiperf.json": "qwen_c1_profile_export_aiperf.json",
			"profile_export_aiperf.csv": "qwen_c1_profile_export_aiperf.csv", "gpu_telemetry_export.jsonl": "qwen_c1_gpu_telemetry_export.jsonl"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := copyAs(t, dir, c.names)
			sum, err := ingest.ToBundle(ctx, paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Manifest.Sources) != 1 {
				t.Fatalf("%d sources, want one run's", len(sum.Manifest.Sources))
			}
			src := sum.Manifest.Sources[0]
			if len(src.Runs) < 1 || len(src.Files) != len(paths) || src.Format != "aiperf-files" {
				t.Errorf("source %s: runs %v, %d files, format %s", src.Path, src.Runs, len(src.Files), src.Format)
			}
			if got := sum.Totals(schemas.TableRequests).Ingested; got != want {
				t.Errorf("%d requests, the directory form gives %d", got, want)
			}
			if got := sum.Totals(schemas.TableSamples).Ingested; got == 0 {
				t.Error("the telemetry's samples were not read")
			}
			b, err := schemas.OpenBundle(sum.Dest)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := b.Runs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			main := runs[0]
			if main.Format != "aiperf-files" || filepath.Base(main.SourcePath) != c.names["profile_export_aiperf.json"] || len(main.SourceFiles) != len(paths)-btoi(c.names["profile_export_aiperf.csv"] != "") {
				t.Errorf("run %s: format %s, source %s, files %v", main.ID, main.Format, main.SourcePath, main.SourceFiles)
			}
			for _, r := range runs[1:] {
				if !strings.HasPrefix(r.Format, "aiperf-timeslices") {
					t.Errorf("extra run %s (%s)", r.ID, r.Format)
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFilesNotOneRun: files whose names say one run and whose contents
// say otherwise, and names that leave the pairing open, are refused with a
// message naming the files; files of different runs stay apart.
func TestFilesNotOneRun(t *testing.T) {
	ctx := context.Background()
	ingestErr := func(paths []string) error {
		_, err := ingest.ToBundle(ctx, paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
		return err
	}
	// Two summaries with one stem.
	dir := t.TempDir()
	paths := copyAs(t, dir, map[string]string{"profile_export_aiperf.json": "run1_aiperf.json", "profile_export.jsonl": "run1.jsonl"})
	data, _ := os.ReadFile(filepath.Join(artifacts, "profile_export_aiperf.json"))
	second := filepath.Join(dir, "run1.json")
	os.WriteFile(second, append(data, '\n'), 0o644) // another file, not the same one twice
	err := ingestErr(append(paths, second))
	if err == nil || !strings.Contains(err.Error(), "run1_aiperf.json and "+second) || !strings.Contains(err.Error(), "both aiperf-json files named as one run") {
		t.Errorf("two summaries: %v", err)
	}

	// Records of another day under the summary's stem.
	dir = t.TempDir()
	paths = copyAs(t, dir, map[string]string{"profile_export_aiperf.json": "run1_aiperf.json"})
	rec, _ := os.ReadFile(filepath.Join(artifacts, "profile_export.jsonl"))
	rec = []byte(strings.ReplaceAll(string(rec), `"request_start_ns": 17646696`, `"request_start_ns": 17640000`))
	recPath := filepath.Join(dir, "run1.jsonl")
	os.WriteFile(recPath, rec, 0o644)
	err = ingestErr(append(paths, recPath))
	if err == nil || !strings.Contains(err.Error(), "are named as one run, but their time differs") || !strings.Contains(err.Error(), recPath) {
		t.Errorf("records of another run: %v", err)
	}

	// Different stems: two runs.
	dir = t.TempDir()
	paths = copyAs(t, dir, map[string]string{"profile_export_aiperf.json": "a_aiperf.json", "profile_export.jsonl": "b.jsonl"})
	sum, err := ingest.ToBundle(ctx, paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err != nil || len(sum.Manifest.Sources) != 2 {
		t.Errorf("different stems: %v, %d sources", err, len(sum.Manifest.Sources))
	}
}

// TestCorpusFilesAsOneRun ingests the real AIPerf corpus as files: the
// trimmed v0.2 run's records, summary and telemetry are one run, and the
// disagreements the trimming causes are one warning that says so.
func TestCorpusFilesAsOneRun(t *testing.T) {
	dir := ingesttest.SharedDir(t, "aiperf")
	paths, _ := filepath.Glob(filepath.Join(dir, "v*"))
	sum, err := ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 3 {
		t.Fatalf("%d sources, want 3 runs (v0.1.1, v0.2.x in three files, v0.8.0 in two)", len(sum.Manifest.Sources))
	}
	src := sum.Manifest.Sources[1]
	if len(src.Files) != 3 || len(src.Runs) != 1 {
		t.Fatalf("v0.2.x source: %d files, runs %v", len(src.Files), src.Runs)
	}
	n := 0
	for _, w := range src.Warnings {
		if strings.Contains(w, "disagree") {
			n++
			if !strings.Contains(w, "the records hold 10 of the 64 successful requests the summary counts") || !regexp.MustCompile(`: \d+ reported statistics disagree`).MatchString(w) {
				t.Errorf("warning %q", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d disagreement warnings, want one for the one cause", n)
	}
}

// TestNewerCSVWithHTTPTrace: a hand-made CSV in the layout of a newer
// AIPerf with --export-http-trace (CRLF, a stats header without sum,
// HTTP trace rows): the HTTP trace rows are valid and not ingested (one
// warning, no rejection), and a version the layout contradicts says which
// evidence says what.
func TestNewerCSVWithHTTPTrace(t *testing.T) {
	r := read(t, "testdata/newer_http_trace.csv")
	if len(r.Rejections) != 0 {
		t.Errorf("rejections %+v", r.Rejections)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "10 HTTP trace metrics (http_req_blocked, http_req_dns_lookup, http_req_connecting, http_req_sending, http_req_waiting,") {
		t.Errorf("warnings %q", w)
	}
	if v := r.Runs[0].ToolVersion; v != "unknown (contradictory layout: e2e_output_token_throughput says 0.7.x or later, the CSV header without sum says 0.5.x or earlier)" {
		t.Errorf("version %q", v)
	}
	metric(t, r, r.Runs[0].ID, schemas.TTFT, schemas.StatP, 99, schemas.SourceReported)
}

// TestRefusalSaysWhat: a file named profile_export_aiperf.json whose content
// is no AIPerf export is refused, with --format aiperf, with what was
// found and what was expected.
func TestRefusalSaysWhat(t *testing.T) {
	_, err := ingesttest.ReadBytes(aiperf.Format{}, "profile_export_aiperf.json", []byte(`{"benchmark": {"name": "x"}, "results": [1, 2], "version": 3}`))
	if err == nil || !strings.Contains(err.Error(), `not an AIPerf export: found a JSON object with the keys "benchmark", "results", "version", none of an AIPerf export's; expected per-request records (profile_export.jsonl`) {
		t.Errorf("err %v", err)
	}
	_, err = ingesttest.ReadBytes(aiperf.Format{}, "profile_export_aiperf.csv", []byte("when,what\r\n1,2\r\n"))
	if err == nil || !strings.Contains(err.Error(), `found "when,what"; expected`) {
		t.Errorf("err %v", err)
	}
}

// TestSameFileTwice: a file given twice is not grouped with itself; the
// driver names it as given twice.
func TestSameFileTwice(t *testing.T) {
	p := filepath.Join(artifacts, "profile_export_aiperf.json")
	_, err := ingest.ToBundle(context.Background(), []string{p, p}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err == nil || !strings.Contains(err.Error(), "the same file given twice?") {
		t.Errorf("err %v", err)
	}
}

// TestTrimmedRecords ingests a hand-made run whose records file was
// trimmed against its summary (make_trimmed.py: the demo summary of 15
// successful requests, the first 9 records), as a directory and as files:
// the disagreements the trimming causes are one warning that counts them
// and names the cause, not one warning per statistic, and the request count
// with the span it changes is one more (issue 14).
func TestTrimmedRecords(t *testing.T) {
	dir := filepath.Join("testdata", "trimmed", "demo-8b-openai-chat-concurrency4")
	for name, paths := range map[string][]string{
		"directory": {dir},
		"files":     {filepath.Join(dir, "profile_export.jsonl"), filepath.Join(dir, "profile_export_aiperf.json")},
	} {
		t.Run(name, func(t *testing.T) {
			sum, err := ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Manifest.Sources) != 1 {
				t.Fatalf("%d sources, want the one run", len(sum.Manifest.Sources))
			}
			n := 0
			for _, w := range sum.Manifest.Sources[0].Warnings {
				if !strings.Contains(w, "disagree") {
					continue
				}
				n++
				m := regexp.MustCompile(`: (\d+) reported statistics disagree with those recomputed from the records \(the records hold 7 of the 15 successful requests the summary counts, so their statistics are of another population\); largest relative difference [^;]+; e\.g\. [^;]+; [^;]+; [^;]+, and (\d+) more$`).FindStringSubmatch(w)
				if m == nil {
					t.Errorf("warning %q", w)
					continue
				}
				if total, _ := strconv.Atoi(m[1]); total < 100 || m[2] != strconv.Itoa(total-3) {
					t.Errorf("%s statistics, %s more: %q", m[1], m[2], w)
				}
			}
			if n != 1 {
				t.Errorf("%d disagreement warnings, want one for the one cause: %q", n, sum.Manifest.Sources[0].Warnings)
			}
			// The count and the span the trimming changes are one warning.
			n = 0
			for _, w := range sum.Manifest.Sources[0].Warnings {
				if strings.Contains(w, "request_count") || strings.Contains(w, "benchmark_duration") {
					n++
					if !strings.HasSuffix(w, "request_count is 15, the records hold 7 successful profiling requests; so benchmark_duration 2.671533366 s differs from the records' span 1.502590003 s") {
						t.Errorf("warning %q", w)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d warnings about the count and the span, want one: %q", n, sum.Manifest.Sources[0].Warnings)
			}
		})
	}
}
