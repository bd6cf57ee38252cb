package inferenceperf_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/inferenceperf"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

var files = []string{"v0.2_stage_0_lifecycle_metrics.json", "v0.5.0_stage_3_lifecycle_metrics.json", "summary_prometheus_metrics.json",
	"bad_requests.json", "report/summary_lifecycle_metrics.json", "report/stage_1_lifecycle_metrics.json", "report/per_request_lifecycle_metrics.json"}

func read(t *testing.T, name string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, inferenceperf.Format{}, filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readDir(t *testing.T, dir string) *ingesttest.Result {
	t.Helper()
	s := &ingesttest.Sink{KeepRequests: true}
	if err := (inferenceperf.Format{}).ReadDir(t.Context(), dir, s); err != nil {
		t.Fatal(err)
	}
	return &s.R
}

func TestGolden(t *testing.T) {
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			ingesttest.Golden(t, strings.ReplaceAll(name, "/", "_")+".golden.json", ingesttest.Dump(t, read(t, name)))
		})
	}
	t.Run("report", func(t *testing.T) {
		r := readDir(t, filepath.Join("testdata", "report"))
		for i := range r.Runs {
			r.Runs[i].SourcePath = filepath.Base(r.Runs[i].SourcePath)
		}
		ingesttest.Golden(t, "report_dir.golden.json", ingesttest.Dump(t, r))
	})
}

func metric(t *testing.T, r *ingesttest.Result, run string, id schemas.MetricID, stat string, pct float64, src string) float64 {
	t.Helper()
	m, ok := r.Metric(run, id, stat, pct, src)
	if !ok || !m.Value.OK {
		t.Fatalf("run %s: no %s %s %v %s", run, id, stat, pct, src)
	}
	return m.Value.V
}

func runWith(t *testing.T, r *ingesttest.Result, stage string) schemas.Run {
	t.Helper()
	for _, run := range r.Runs {
		if run.Labels["inference_perf.stage"] == stage {
			return run
		}
	}
	t.Fatalf("no run of stage %s", stage)
	return schemas.Run{}
}

// TestReportDir reads the hand-made report directory: the stages are runs
// with the config's settings, the per-request rows belong to the summary
// over all stages, and recomputing the summary from them gives its numbers
// (make_fixtures.py computes them as inference-perf's reportgen does).
func TestReportDir(t *testing.T) {
	r := readDir(t, filepath.Join("testdata", "report"))
	if len(r.Runs) != 3 || r.NumRequests != 6 {
		t.Fatalf("%d runs, %d requests", len(r.Runs), r.NumRequests)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "recomputed") {
			t.Errorf("the summary disagrees with its requests: %s", w)
		}
	}
	s0 := runWith(t, r, "0")
	if s0.Arrival != schemas.ArrivalPoisson || s0.RequestRate != schemas.Some(2.0) || s0.Model != "demo/model-8b" || !s0.Streaming.V {
		t.Errorf("stage 0 settings: %s %v %q %v", s0.Arrival, s0.RequestRate, s0.Model, s0.Streaming)
	}
	all := runWith(t, r, "all")
	if !slices.Contains(all.Flags, "inference_perf_all_stages") || all.RequestRate.OK {
		t.Errorf("summary run: flags %v rate %v", all.Flags, all.RequestRate)
	}
	for _, q := range r.Requests {
		if q.RunID != all.ID {
			t.Fatalf("request %d belongs to %s, want the summary's run", q.Index, q.RunID)
		}
	}
	// Recomputed equals reported, statistic by statistic.
	n := 0
	for _, m := range r.Metrics {
		if m.RunID != all.ID || m.Source != schemas.SourceReported {
			continue
		}
		pct := -1.0
		if m.Percentile.OK {
			pct = m.Percentile.V
		}
		c, ok := r.Metric(all.ID, m.MetricID, m.Stat, pct, schemas.SourceComputed)
		if !ok {
			continue
		}
		n++
		if math.Abs(c.Value.V-m.Value.V) > 1e-12 {
			t.Errorf("%s: reported %v, recomputed %v", m.NativeName, m.Value.V, c.Value.V)
		}
	}
	if n < 60 {
		t.Errorf("only %d statistics compared", n)
	}
	// NTPOT counts the request without output tokens as 0: its minimum is
	// 0, and the mean is over all 6 - 1 failed = 5 successes.
	if v := metric(t, r, all.ID, schemas.TPOTInclTTFTZeroFilled, schemas.StatMin, -1, schemas.SourceReported); v != 0 {
		t.Errorf("ntpot min %v, want 0", v)
	}
	// Chunk-stamped token gaps: two tokens in one chunk give a 0 gap.
	if v := metric(t, r, all.ID, schemas.ITLTokenChunkStamped, schemas.StatMin, -1, schemas.SourceComputed); v != 0 {
		t.Errorf("itl min %v, want 0", v)
	}
	// The throughput window includes the failed request: stage 0 runs from
	// 100.0 to 102.0 (the failure ends last), 3 successes / 2 s.
	if v := metric(t, r, s0.ID, schemas.RequestThroughput, schemas.StatValue, -1, schemas.SourceReported); v != 1.5 {
		t.Errorf("stage 0 request throughput %v, want 1.5", v)
	}
	if v := metric(t, r, s0.ID, schemas.SendSpan, schemas.StatValue, -1, schemas.SourceReported); v != 1.5 {
		t.Errorf("send span %v", v)
	}
}

// TestVersions checks the version quirks: before v0.5 TPOT divides by
// timestamps (tpot_per_chunk), v0.5.0 counts a BOS per chunk (flagged).
func TestVersions(t *testing.T) {
	early := read(t, "v0.2_stage_0_lifecycle_metrics.json")
	if !slices.Contains(early.Runs[0].Flags, "inference_perf_tpot_per_timestamp") {
		t.Errorf("flags %v", early.Runs[0].Flags)
	}
	if _, ok := early.Metric(early.Runs[0].ID, schemas.TPOTPerChunk, schemas.StatMean, -1, schemas.SourceReported); !ok {
		t.Error("early TPOT is not tpot_per_chunk")
	}
	v5 := read(t, "v0.5.0_stage_3_lifecycle_metrics.json")
	run := v5.Runs[0]
	if !slices.Contains(run.Flags, "inference_perf_v0.5.0_bos_per_chunk") || run.Labels["inference_perf.stage"] != "3" {
		t.Errorf("flags %v labels %v", run.Flags, run.Labels)
	}
	m, _ := v5.Metric(run.ID, schemas.OutputTokens, schemas.StatMean, -1, schemas.SourceReported)
	if !strings.Contains(m.Note, "BOS") {
		t.Errorf("output length note %q", m.Note)
	}
}

func TestPrometheus(t *testing.T) {
	r := read(t, "summary_prometheus_metrics.json")
	run := r.Runs[0]
	if v := metric(t, r, run.ID, schemas.ServerTTFT, schemas.StatP, 99, schemas.SourceReported); v != 0.5 {
		t.Errorf("server ttft p99 %v", v)
	}
	if v := metric(t, r, run.ID, schemas.ServerOutputTokenThroughput, schemas.StatValue, -1, schemas.SourceReported); v != 2624 {
		t.Errorf("server output rate %v", v)
	}
	if run.Labels["server.prompt_len.mean"] != "" || run.Labels["server.output_len.mean"] != "128" {
		t.Errorf("a 0 mean is no data: %v", run.Labels)
	}
}

func TestRequestRejections(t *testing.T) {
	r := read(t, "bad_requests.json")
	if r.NumRequests != 2 || len(r.Rejections) != 4 {
		t.Fatalf("%d requests, rejections %v", r.NumRequests, r.Rejections)
	}
	for i, line := range []int{3, 4, 5, 6} {
		if r.Rejections[i].Line != line {
			t.Errorf("rejection %d at line %d, want %d: %v", i, r.Rejections[i].Line, line, r.Rejections[i])
		}
	}
	if r.Requests[1].Status != schemas.StatusError || r.Requests[1].Error != "Timeout: read timed out" {
		t.Errorf("failed request %+v", r.Requests[1])
	}
}

func TestFileErrors(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"config.yaml": {"api: {type: completion}\nserver: {type: vllm}\nload: {type: constant}\n", "holds the run's settings, not its results"},
		"trunc.json":  {`{"load_summary": {"count": 1, "schedule_delay": {"mean": 1}}, "failures": {}, "successes": {"latency": {"request_latency": {"mean"`, "trunc.json:1:"},
		"empty.json":  {`[]`, "no request records"},
		"succ.json":   {`{"load_summary": {}, "successes": 3, "failures": {}, "normalized_time_per_output_token": 1}`, "successes: expected an object"},
	} {
		_, err := ingesttest.ReadBytes(inferenceperf.Format{}, name, []byte(c.data))
		var ie *ingest.Error
		if name == "empty.json" {
			_, err = ingesttest.ReadBytes(inferenceperf.Format{}, name, []byte(`[{"start_time": 1`))
			if !errors.As(err, &ie) {
				t.Errorf("truncated array: %v", err)
			}
			continue
		}
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
}

func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, inferenceperf.Format{}, "inference-perf", 60, files)
}

// TestCorpus reads every file of the shared corpus: configs are refused
// with their reason, every report is one run whose numbers are the file's,
// and the PR #705 run read as a report directory recomputes its summary.
func TestCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "inference-perf")
	paths, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, path := range paths {
		if filepath.Base(path) == "SOURCES.md" {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			r, err := ingesttest.ReadFile(t, inferenceperf.Format{}, path)
			if strings.HasSuffix(path, ".yaml") {
				if err == nil || !strings.Contains(err.Error(), "not its results") {
					t.Errorf("config: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Runs) != 1 || len(r.Rejections) != 0 {
				t.Fatalf("%d runs, rejections %v", len(r.Runs), r.Rejections)
			}
			if !strings.Contains(path, "per_request") {
				checkNumbers(t, path, r)
			}
		})
	}
	t.Run("pr705 as a directory", func(t *testing.T) {
		tmp := t.TempDir()
		prefix := filepath.Join(dir, "v0.5.0_infperf-pr705-corpus-clean-two-stage_")
		for _, n := range []string{"summary_lifecycle_metrics.json", "stage_0_lifecycle_metrics.json", "stage_1_lifecycle_metrics.json",
			"per_request_lifecycle_metrics.json", "config.yaml"} {
			data, err := os.ReadFile(prefix + n)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(tmp, n), data, 0o644)
		}
		r := readDir(t, tmp)
		if len(r.Runs) != 3 || r.NumRequests != 6 {
			t.Fatalf("%d runs, %d requests", len(r.Runs), r.NumRequests)
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "recomputed") {
				t.Error(w)
			}
		}
		all := runWith(t, r, "all")
		if v := metric(t, r, all.ID, schemas.E2E, schemas.StatMedian, -1, schemas.SourceComputed); v != metric(t, r, all.ID, schemas.E2E, schemas.StatMedian, -1, schemas.SourceReported) {
			t.Errorf("median e2e recomputed %v", v)
		}
	})
}

// checkNumbers finds every number of the file's latency, throughput and
// length blocks among the rows, by native name.
func checkNumbers(t *testing.T, path string, r *ingesttest.Result) {
	f, _ := os.Open(path)
	defer f.Close()
	root, err := jtree.Parse(path, f)
	if err != nil {
		t.Fatal(err)
	}
	byNative := map[string]float64{}
	for _, m := range r.Metrics {
		byNative[m.NativeName] = m.Value.V
	}
	n := 0
	check := func(key string, v *jtree.Node) {
		want, ok := v.Float()
		if !ok || v.Kind != jsonscan.Number {
			return
		}
		n++
		if got, ok := byNative[key]; !ok || got != want {
			t.Errorf("%s = %v, row %v (present %v)", key, want, got, ok)
		}
	}
	succ := root.Get("successes")
	if strings.Contains(path, "prometheus") {
		for _, k := range []string{"time_to_first_token", "time_per_output_token", "request_latency"} {
			for _, st := range succ.Get(k).Fields() {
				check("successes."+k+"."+st.Key, st.Val)
			}
		}
	}
	for _, lat := range succ.Get("latency").Fields() {
		for _, st := range lat.Val.Fields() {
			check("successes.latency."+lat.Key+"."+st.Key, st.Val)
		}
	}
	for _, k := range []string{"prompt_len", "output_len"} {
		if strings.Contains(path, "prometheus") {
			break // {mean, rate}: the rate is checked in TestPrometheus
		}
		for _, st := range succ.Get(k).Fields() {
			if _, _, ok := rows.StatKey(st.Key); ok {
				check("successes."+k+"."+st.Key, st.Val)
			}
		}
	}
	for _, k := range []string{"requests_per_sec", "output_tokens_per_sec", "input_tokens_per_sec", "total_tokens_per_sec"} {
		check("successes.throughput."+k, succ.Path("throughput", k))
	}
	if n == 0 && !strings.Contains(path, "prometheus") {
		t.Error("no numbers checked")
	}
}

func FuzzRead(f *testing.F) {
	ingesttest.AddTypeSeedFiles(f, 30, files...)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.ReadTwice(t, inferenceperf.Format{}, "fuzz.json", data)
	})
}
