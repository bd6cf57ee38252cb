package mlperf_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/mlperf"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func readPath(t *testing.T, path string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, mlperf.Format{}, path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const interactivePath = "submission/closed/Demo/results/demo-system/llama3.1-8b/Interactive/performance/run_1/mlperf_log_detail.txt"

var fixtures = []string{"server_token_detail.txt", "vector_singlestream_detail.txt", "multistream_summary.txt",
	"singlestream_token_summary.txt", "offline_invalid_summary.txt", interactivePath}

func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(name))))+filepath.Base(name), func(t *testing.T) {
			g := strings.TrimSuffix(filepath.Base(name), ".txt")
			if name == interactivePath {
				g = "interactive_detail"
			}
			golden(t, g+".golden.json", dump(t, readPath(t, filepath.Join("testdata", name))))
		})
	}
}

func metric(t *testing.T, r *ingesttest.Result, id schemas.MetricID, stat string, pct float64) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, stat, pct, schemas.SourceReported)
	if !ok {
		t.Fatalf("no %s %s p%v metric", id, stat, pct)
	}
	return m
}

func rejections(r *ingesttest.Result) string {
	var s []string
	for _, rej := range r.Rejections {
		s = append(s, fmt.Sprintf("%d:%d %s", rej.Line, rej.Column, rej.Field))
	}
	return strings.Join(s, "; ")
}

func TestSemantics(t *testing.T) {
	// A broken LLM Server run: limits, validity and its reasons, LoadGen's
	// token-throughput unit bug, lenient and rejected lines.
	r := readPath(t, "testdata/server_token_detail.txt")
	run := r.Runs[0]
	if run.Scenario != schemas.ScenarioServer || run.Arrival != schemas.ArrivalPoisson || run.RequestRate.V != 10.5 || run.NumPrompts.V != 1000 {
		t.Errorf("run: %+v", run)
	}
	for k, want := range map[string]string{
		"result_validity": "INVALID", "result_invalid_reason": "TTFT constrain not met: Reduce target QPS to improve latency.",
		"early_stopping_tpot_result":           "Run unsuccessful. Processed 1000 queries. Would need to run at least 1 more queries, with the run being successful if every additional query were under latency.",
		"effective_sample_index_rng_seed":      "14771362308971278857",
		"sut_description":                      `demo "quoted" SUT`,
		"sut_name":                             "DemoSUT",
		"loaded_qsl_set":                       "[array of 40]",
		"early_stopping_tolerated_overlatency": "2 of 1000 samples may exceed each latency limit at p99 (computed by verdict)",
	} {
		if got := run.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if got := strings.Join(run.Flags, ","); got != "early_stopping_not_met,loadgen_errors,negative_tpot,perf_constraints_not_met,result_invalid,result_token_throughput_per_ns_converted" {
		t.Errorf("flags %s", got)
	}
	if m := metric(t, r, schemas.TTFTScheduledLimit, schemas.StatValue, -1); m.Value.V != 2 || m.Unit != "s" {
		t.Errorf("TTFT limit %+v", m)
	}
	if m := metric(t, r, schemas.TPOTLoadGenLimit, schemas.StatValue, -1); m.Value.V != 0.1 {
		t.Errorf("TPOT limit %+v", m)
	}
	if m := metric(t, r, schemas.OutputTokenRatePerLatency, schemas.StatValue, -1); m.Value.V != 250 || !strings.Contains(m.Note, "tokens per nanosecond") {
		t.Errorf("result_token_throughput: %+v", m)
	}
	if m := metric(t, r, schemas.TPOTLoadGen, schemas.StatMin, -1); m.Value.V != -5e-6 || m.Note == "" {
		t.Errorf("negative TPOT: %+v", m)
	}
	if got := rejections(r); got != "24:1 ; 25:43 result_bogus; 49:65 result_95.00_percentile_latency_ns" {
		t.Errorf("rejections %s", got)
	}
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "line 20: sut_description: the value is not valid JSON") ||
		!strings.Contains(w, "line 23: LoadGen error error_runtime") || !strings.Contains(w, "key sut_name repeats") {
		t.Errorf("warnings %q", r.Warnings)
	}

	// MultiStream summary: query latencies and their early-stopping estimate.
	r = readPath(t, "testdata/multistream_summary.txt")
	if run := r.Runs[0]; run.Scenario != schemas.ScenarioMultiStream || run.NumPrompts.V != 8192 || !strings.Contains(run.ToolVersion, "2025-02 or later") {
		t.Errorf("MultiStream run %+v", run)
	}
	if m := metric(t, r, schemas.QueryLatencyScheduledEarlyStopping, schemas.StatP, 99); m.Value.V != 0.005 || m.Method != "mlperf_early_stopping" {
		t.Errorf("MultiStream estimate %+v", m)
	}
	metric(t, r, schemas.QueryLatencyScheduled, schemas.StatP, 99.9)

	// Token SingleStream summary: TTFT and TPOT early stopping, "Time per".
	r = readPath(t, "testdata/singlestream_token_summary.txt")
	if m := metric(t, r, schemas.TTFTScheduledEarlyStopping, schemas.StatP, 90); m.Value.V != 0.22 {
		t.Errorf("TTFT estimate %+v", m)
	}
	if m := metric(t, r, schemas.TPOTLoadGenEarlyStopping, schemas.StatP, 90); m.Value.V != 0.031 {
		t.Errorf("TPOT estimate %+v", m)
	}
	if m := metric(t, r, schemas.OutputTokenRatePerLatency, schemas.StatValue, -1); m.Value.V != 41.25 || m.Note != "" {
		t.Errorf("TPS w/o overhead is already per second: %+v", m)
	}
	if !strings.Contains(r.Runs[0].ToolVersion, "2025-10 or later") || len(r.Warnings) != 0 {
		t.Errorf("version %q, warnings %q", r.Runs[0].ToolVersion, r.Warnings)
	}
	if _, ok := r.Metric(r.Runs[0].ID, schemas.TTFTScheduledLimit, schemas.StatValue, -1, schemas.SourceReported); ok {
		t.Error("SingleStream runs have no TTFT limit")
	}

	// An invalid Offline summary with bad values.
	r = readPath(t, "testdata/offline_invalid_summary.txt")
	run = r.Runs[0]
	if run.Scenario != schemas.ScenarioOffline || !math.IsInf(run.RequestRate.V, 1) || run.Labels["result_invalid_reason"] == "" ||
		run.Labels["errors"] != "2" || run.Labels["frobnication_level"] != "11" || run.NumPrompts.V != 24576 {
		t.Errorf("Offline run %+v", run)
	}
	if got := rejections(r); got != "7:21 Samples per second; 19:35 Max latency (ns)" {
		t.Errorf("rejections %s", got)
	}

	// An Interactive run, logged as Server: the directory decides.
	r = readPath(t, filepath.Join("testdata", interactivePath))
	run = r.Runs[0]
	if run.Scenario != schemas.ScenarioServer || run.Labels["mlperf_scenario"] != "Interactive" || run.Model != "llama3.1-8b" ||
		strings.Join(run.Flags, ",") != "interactive_scenario_from_path,perf_constraint_at_limit" {
		t.Errorf("Interactive run %+v", run)
	}
}

// TestPercentileVector: LoadGen's x[floor(n*p)] over latencies 10, 20, ...,
// 100 ms gives 30, 60, 80, 100 and 100 ms at p25, p50, p75, p90, p99. The
// detail log holds no per-sample data, so the hand-written log carries the
// values LoadGen computes; the reader must store them with that method.
func TestPercentileVector(t *testing.T) {
	r := readPath(t, "testdata/vector_singlestream_detail.txt")
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, c := range []struct{ p, want float64 }{{25, 30}, {50, 60}, {75, 80}, {90, 100}, {99, 100}} {
		if q := stats.Quantile(x, c.p/100, stats.NearestRankFloor); q != c.want {
			t.Fatalf("stats.Quantile p%v = %v", c.p, q)
		}
		m := metric(t, r, schemas.E2EScheduled, schemas.StatP, c.p)
		if math.Abs(m.Value.V-c.want/1000) > 1e-15 || m.Method != string(stats.NearestRankFloor) {
			t.Errorf("p%v = %v (%s), want %v ms (nearest_rank_floor)", c.p, m.Value.V, m.Method, c.want)
		}
	}
	// Ten queries are too few for early stopping (64 needed at p90).
	if m := metric(t, r, schemas.E2EScheduledEarlyStopping, schemas.StatP, 90); m.Value.OK || stats.EarlyStoppingPercentile(x, 0.9).Met {
		t.Errorf("early stopping with 10 queries: %+v", m)
	}
}

// TestDetailAndSummaryAgree reads the AMD Server detail log and its summary:
// every statistic the summary prints equals the detail log's, up to the
// summary's rounding of rates.
func TestDetailAndSummaryAgree(t *testing.T) {
	dir := testkit.Corpus(t, "mlperf")
	d := readPath(t, filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt"))
	s := readPath(t, filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_summary.txt"))
	byKey := map[string]schemas.Metric{}
	for _, m := range d.Metrics {
		m.RunID = ""
		byKey[m.Key()] = m
	}
	n := 0
	for _, m := range s.Metrics {
		m.RunID = ""
		dm, ok := byKey[m.Key()]
		if !ok {
			t.Errorf("the detail log has no %s (%s)", m.Key(), m.NativeName)
			continue
		}
		n++
		tol := 0.0
		if m.Unit != schemas.UnitSeconds {
			tol = 5e-4 * math.Abs(dm.Value.V) // rates: 2 decimals in the summary, 6 digits in the log
		}
		if math.Abs(m.Value.V-dm.Value.V) > tol || m.Method != dm.Method {
			t.Errorf("%s: summary %v (%s), detail %v (%s)", m.Key(), m.Value.V, m.Method, dm.Value.V, dm.Method)
		}
	}
	if n != 32 {
		t.Errorf("%d statistics compared", n)
	}
}

// TestSharedCorpus checks values of the real logs.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "mlperf")
	r := readPath(t, filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt"))
	run := r.Runs[0]
	if run.ToolVersion != "LoadGen 5.1.0 @ 091d51f041" || run.NumPrompts.V != 73728 || run.RequestRate.V != 83.5 ||
		run.Labels["result_validity"] != "VALID" || run.Labels["early_stopping_ttft_result"] != "Run successful." ||
		run.Labels["effective_schedule_rng_seed"] != "18209322760996052031" || len(r.Rejections) != 0 || len(r.Warnings) != 0 {
		t.Errorf("AMD Server detail: %+v; rejections %v; warnings %v", run, r.Rejections, r.Warnings)
	}
	for _, c := range []struct {
		id        schemas.MetricID
		stat      string
		pct, want float64
	}{
		{schemas.TTFTScheduled, schemas.StatP, 99, 1.914647645}, {schemas.TPOTLoadGen, schemas.StatP, 99, 0.193380124},
		{schemas.OutputTokenThroughputCompleted, schemas.StatValue, -1, 24593.8}, {schemas.SampleThroughputCompleted, schemas.StatValue, -1, 81.6768},
		{schemas.OutputTokenRatePerLatency, schemas.StatValue, -1, 6.90935}, {schemas.TTFTScheduledLimit, schemas.StatValue, -1, 2},
		{schemas.TPOTLoadGenLimit, schemas.StatValue, -1, 0.2}, {schemas.E2EScheduled, schemas.StatMean, -1, 43.579602295},
	} {
		if m := metric(t, r, c.id, c.stat, c.pct); math.Abs(m.Value.V-c.want) > 1e-12*c.want {
			t.Errorf("%s: %v, want %v", m.NativeName, m.Value.V, c.want)
		}
	}

	// The v4.1 SingleStream summary: "90th" text; the early-stopping text
	// agrees with LoadGen's arithmetic (13368 queries: discard 1255).
	r = readPath(t, filepath.Join(dir, "nvidia-v4.1-orin-gptj-99-singlestream.mlperf_log_summary.txt"))
	run = r.Runs[0]
	if run.Scenario != schemas.ScenarioSingleStream || run.NumPrompts.V != 13368 || !strings.Contains(run.ToolVersion, "before 2025-02") || len(r.Warnings) != 0 {
		t.Errorf("Orin SingleStream: %+v; warnings %v", run, r.Warnings)
	}
	if m := metric(t, r, schemas.E2EScheduledEarlyStopping, schemas.StatP, 90); m.Value.V != 4.17662608 {
		t.Errorf("p90 estimate %+v", m)
	}
	if m := metric(t, r, schemas.E2EScheduled, schemas.StatP, 90); m.Value.V != 4.149771822 {
		t.Errorf("p90 %+v", m)
	}
	if e := stats.EarlyStoppingMaxOverLatency(13368, 0.9); e-1 != 1255 {
		t.Errorf("LoadGen discards %d", e-1)
	}

	r = readPath(t, filepath.Join(dir, "amd-v5.1-llama2-70b-99-offline.mlperf_log_summary.txt"))
	if m := metric(t, r, schemas.OfflineOutputTokenThroughput, schemas.StatValue, -1); m.Value.V != 27803.9 {
		t.Errorf("Offline tokens/s %+v", m)
	}
	if run := r.Runs[0]; run.NumPrompts.OK || !strings.Contains(strings.Join(run.Flags, ","), "sample_concatenate_permutation") {
		t.Errorf("Offline samples must stay unknown with sample concatenation: %+v", run)
	}
}

// TestShow ingests the AMD Server detail log through the driver and checks
// that `verdict show` prints the TTFT/TPOT limits, the early-stopping
// result and the validity, with units.
func TestShow(t *testing.T) {
	dir := testkit.Corpus(t, "mlperf")
	dest := filepath.Join(t.TempDir(), "b")
	path := filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt")
	if _, err := ingest.ToBundle(context.Background(), []string{path}, dest, ingest.Options{Formats: all.Formats()}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	d, err := analysis.LoadShow(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := render.WriteShow(&out, d, render.Text); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, re := range []string{
		`ttft_scheduled_limit +value +2 s`, `tpot_loadgen_limit +value +200 ms`,
		`label early_stopping_ttft_result +Run successful\.`, `label early_stopping_tpot_result +Run successful\.`,
		`label result_validity +VALID`, `label early_stopping_met +true`, `ttft_scheduled +p99 +1\.915 s +nearest_rank_floor`,
		`output_token_rate_per_latency +value +6\.909 tokens/s`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("show output lacks %q", re)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// TestDriver ingests every shared MLPerf file through the driver with
// detection and with --format, and checks that the counts add up.
func TestDriver(t *testing.T) {
	dir := testkit.Corpus(t, "mlperf")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, format := range []string{"", "mlperf"} {
		sum, err := ingest.ToBundle(context.Background(), files, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats(), Format: format})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sum.Manifest.Sources {
			for table, c := range s.Counts {
				if c.Read != c.Ingested+c.Rejected {
					t.Errorf("%s %s: read %d, ingested %d, rejected %d", s.Path, table, c.Read, c.Ingested, c.Rejected)
				}
			}
			if s.Tool != "mlperf" || len(s.Runs) != 1 {
				t.Errorf("%s: tool %q, %d runs", s.Path, s.Tool, len(s.Runs))
			}
		}
	}
	// --format mlperf on a file that is not a LoadGen log is an error with
	// its position.
	_, err := ingest.ToBundle(context.Background(), []string{"testdata/not_mllog.txt"}, filepath.Join(t.TempDir(), "c"), ingest.Options{Formats: all.Formats(), Format: "mlperf"})
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Errorf("forced format on a foreign file: %v", err)
	}
}

func TestFileErrors(t *testing.T) {
	for in, want := range map[string]string{
		"MLPerf log of some other kind\n:::MLLOG {}\n": `x.txt:1:1: not an MLPerf LoadGen log: found "MLPerf log of some other kind", expected :::MLLOG lines`,
		"\n\n":           "x.txt: no :::MLLOG lines found",
		"SUT name : x\n": `x.txt:1:1: not an MLPerf LoadGen log: found "SUT name : x", expected :::MLLOG lines (mlperf_log_detail.txt of LoadGen 1.0 or later) or the "MLPerf Results Summary" title (mlperf_log_summary.txt)`,
		// The summary of an accuracy run (LoadGen's RunAccuracyMode logs no
		// performance summary): said as what it is, also with --format.
		"\nNo warnings encountered during test.\n\nNo errors encountered during test.\n":                 `x.txt:1: the summary of an MLPerf LoadGen accuracy run (AccuracyOnly mode logs no performance results): found only the warning and error counts ("No warnings encountered during test."), expected the "MLPerf Results Summary" block`,
		"================================================\nMLPerf Results Summary\n====\nSUT name : x\n": "",
	} {
		_, err := ingesttest.ReadBytes(mlperf.Format{}, "x.txt", []byte(in))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, mlperf.Format{}, "mlperf", 90, fixtures)
}

// FuzzRead: no panic, deterministic output, file problems are
// *ingest.Error, and every rejection names its line.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"server_token_detail.txt", "multistream_summary.txt", "singlestream_token_summary.txt", "offline_invalid_summary.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, name := range []string{"server_token_detail.txt", "vector_singlestream_detail.txt"} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r1, err1 := ingesttest.ReadBytes(mlperf.Format{}, "fuzz.txt", data)
		r2, err2 := ingesttest.ReadBytes(mlperf.Format{}, "fuzz.txt", data)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("nondeterministic: %v vs %v", err1, err2)
		}
		if err1 != nil {
			var ie *ingest.Error
			if !errors.As(err1, &ie) {
				t.Fatalf("not an *ingest.Error: %v", err1)
			}
			return
		}
		if !bytes.Equal(dump(t, r1), dump(t, r2)) {
			t.Fatal("nondeterministic output")
		}
		lines := map[int]bool{}
		for _, rej := range r1.Rejections {
			if rej.Line <= 0 || (lines[rej.Line] && rej.Table != schemas.TableMetrics) {
				t.Fatalf("rejection without a line: %+v", rej)
			}
			lines[rej.Line] = true
		}
		for _, m := range r1.Metrics {
			if m.Stat == schemas.StatP && m.Method == "" {
				t.Fatalf("percentile without a method: %+v", m)
			}
		}
	})
}

// BenchmarkReadDetail reads a generated detail log of 200,000 lines.
func BenchmarkReadDetail(b *testing.B) {
	var buf bytes.Buffer
	for i := range 200000 {
		fmt.Fprintf(&buf, `:::MLLOG {"key": "result_%d.%02d_percentile_latency_ns", "value": %d, "time_ms": %d.000000, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "results.cc", "line_no": 778, "pid": 1, "tid": 1}}`+"\n",
			i%100, i%100, 1000000+i, i)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ingesttest.ReadBytes(mlperf.Format{}, "mlperf_log_detail.txt", data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSummaryAndDetailOneRun: the real AMD Server run's summary and detail
// log given together are one run with the detail log's numbers, and a
// hand-made pair whose scenarios differ is refused naming both.
func TestSummaryAndDetailOneRun(t *testing.T) {
	dir := ingesttest.SharedDir(t, "mlperf")
	paths := []string{filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_summary.txt"),
		filepath.Join(dir, "amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt")}
	sum, err := ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 1 {
		t.Fatalf("%d sources", len(sum.Manifest.Sources))
	}
	src := sum.Manifest.Sources[0]
	if filepath.Base(src.Path) != "amd-v5.1-llama2-70b-99-server.mlperf_log_detail.txt" || len(src.Files) != 2 || src.Format != "mlperf-logs" || len(src.Runs) != 1 {
		t.Errorf("source %+v", src)
	}
	for _, w := range src.Warnings {
		if strings.Contains(w, "differ from the detail log") {
			t.Errorf("warning %s", w)
		}
	}
	b, _ := schemas.OpenBundle(sum.Dest)
	ms, _ := b.Metrics(context.Background())
	for _, m := range ms {
		if m.MetricID == schemas.TTFTScheduled && m.Stat == schemas.StatP && m.Percentile.V == 99 && m.Value.V != 1.914647645 {
			t.Errorf("TTFT p99 %v, want the detail log's 1,914,647,645 ns", m.Value.V)
		}
	}

	// The detail log of a Server run with the summary of an Offline run.
	tmp := t.TempDir()
	off, _ := os.ReadFile(filepath.Join(dir, "amd-v5.1-llama2-70b-99-offline.mlperf_log_summary.txt"))
	det, _ := os.ReadFile(paths[1])
	a, c := filepath.Join(tmp, "mlperf_log_summary.txt"), filepath.Join(tmp, "mlperf_log_detail.txt")
	os.WriteFile(a, off, 0o644)
	os.WriteFile(c, det, 0o644)
	_, err = ingest.ToBundle(context.Background(), []string{a, c}, filepath.Join(t.TempDir(), "c"), ingest.Options{Formats: all.Formats()})
	if err == nil || !strings.Contains(err.Error(), c+" and "+a+" are named as one run, but their scenario differs (Server against Offline)") {
		t.Errorf("err %v", err)
	}
}

// TestPairFixture: a hand-made submission's summary and detail log (the
// layout LoadGen writes, make_pair.py) are one run, with no disagreement,
// the limits and the target QPS of the detail log.
func TestPairFixture(t *testing.T) {
	dir := filepath.Join("testdata", "pair", "system-a", "llama2-70b-99", "Server", "performance", "run_1")
	paths := []string{filepath.Join(dir, "mlperf_log_summary.txt"), filepath.Join(dir, "mlperf_log_detail.txt")}
	sum, err := ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	src := sum.Manifest.Sources[0]
	if len(sum.Manifest.Sources) != 1 || len(src.Files) != 2 || len(src.Warnings) != 0 || len(src.Rejections) != 0 {
		t.Fatalf("sources %+v", sum.Manifest.Sources)
	}
	b, _ := schemas.OpenBundle(sum.Dest)
	runs, _ := b.Runs(context.Background())
	run := runs[0]
	if run.Scenario != schemas.ScenarioServer || run.RequestRate.V != 10.5 || run.Labels["mlperf_benchmark"] != "llama2-70b-99" || len(run.SourceFiles) != 2 {
		t.Errorf("run %+v", run)
	}
}

// TestServerQPSIsTheResult compares hand-made Server submissions of one
// benchmark (make_pair.py): under the same TTFT and TPOT limits V002
// reports the target QPS as the result (info) and the pair is comparable;
// under a different TPOT limit, of a different benchmark or of a different
// scenario (the same logs under an Interactive directory, which LoadGen
// logs as Server) it is not. The benchmark and the scenario come from the
// submission path (docs/formats/mlperf.md section 4.1), so the logs are
// placed under the path each case needs.
func TestServerQPSIsTheResult(t *testing.T) {
	ctx := context.Background()
	bundle := func(system, benchmark, scenario string) string {
		src := filepath.Join("testdata", "pair", system, "llama2-70b-99", "Server", "performance", "run_1")
		root := t.TempDir()
		dir := filepath.Join(root, system, benchmark, scenario, "performance", "run_1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, name := range []string{"mlperf_log_summary.txt", "mlperf_log_detail.txt"} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, filepath.Join(dir, name))
			if err := os.WriteFile(paths[len(paths)-1], data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dest := filepath.Join(root, "bundle")
		if _, err := ingest.ToBundle(ctx, paths, dest, ingest.Options{Formats: all.Formats()}); err != nil {
			t.Fatal(err)
		}
		return dest
	}
	a := bundle("system-a", "llama2-70b-99", "Server")
	for _, c := range []struct {
		name              string
		b                 string
		rules             []string
		severity          validate.Severity
		verdict           validate.Verdict
		message, message2 string
	}{
		{"same limits", bundle("system-b", "llama2-70b-99", "Server"), []string{"V001", "V002", "V009"}, validate.Info, validate.Comparable,
			"the target QPS is the result, each tuned to meet the same limits (TTFT 2 s, TPOT 200 ms at p99): 10.5 req/s for", "+33.3%"},
		{"different limits", bundle("system-c", "llama2-70b-99", "Server"), []string{"V002"}, validate.Error, validate.NotComparable,
			"the TPOT limits differ: 200 ms for", ""},
		{"different benchmark", bundle("system-b", "llama3.1-8b", "Server"), []string{"V002"}, validate.Error, validate.NotComparable,
			"the runs are of different MLPerf benchmarks, llama2-70b-99 for", "and llama3.1-8b for"},
		{"different scenario", bundle("system-b", "llama2-70b-99", "Interactive"), []string{"V002"}, validate.Error, validate.NotComparable,
			"the runs are of different MLPerf scenarios, Server for", "and Interactive for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := analysis.Validate(ctx, []string{a, c.b}, validate.Options{Compare: true, Rules: c.rules})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 1 || rep.Findings[0].Severity != c.severity || rep.Verdict != c.verdict ||
				!strings.Contains(rep.Findings[0].Message, c.message) || !strings.Contains(rep.Findings[0].Message, c.message2) {
				t.Errorf("verdict %s, findings %+v", rep.Verdict, rep.Findings)
			}
		})
	}
}
