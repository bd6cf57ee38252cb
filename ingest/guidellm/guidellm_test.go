package guidellm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/guidellm"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func read(t *testing.T, name string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, guidellm.Format{}, filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var fixtures = []string{"gen0_v01.json", "genA_sweep.json", "genB_v04.yaml", "genC_complete.json", "genD_v07.json", "vector_genC.json", "bad_rows.json", "genC_warmup.json"}

// TestGolden compares everything the reader reports for each hand-made
// report with a golden file.
func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			golden(t, strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".yaml")+".golden.json", dump(t, read(t, name)))
		})
	}
}

func metric(t *testing.T, r *ingesttest.Result, run string, id schemas.MetricID, stat string, pct float64, source string) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(run, id, stat, pct, source)
	if !ok {
		t.Fatalf("no %s %s p%v %s metric for run %s", id, stat, pct, source, run)
	}
	return m
}

// checkAgreement compares each reported statistic with its recomputed
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
		c, ok := computed[m.RunID+"/"+m.Key()]
		if m.Source != schemas.SourceReported || !m.Value.OK || !ok {
			continue
		}
		n++
		if d := math.Abs(m.Value.V - c.Value.V); d > tol*math.Max(math.Abs(m.Value.V), 1e-300) {
			t.Errorf("%s %s: reported %v, recomputed %v", m.RunID, m.NativeName, m.Value.V, c.Value.V)
		}
		if m.Method != c.Method || (m.N.OK && m.N != c.N) {
			t.Errorf("%s %s: method %q n %v, recomputed %q n %v", m.RunID, m.NativeName, m.Method, m.N, c.Method, c.N)
		}
	}
	return n
}

// TestSemantics checks the decisions per schema generation.
func TestSemantics(t *testing.T) {
	// v0.1: numpy linear percentiles, every result kept, recomputed.
	r := read(t, "gen0_v01.json")
	if len(r.Runs) != 2 || r.Runs[0].Scenario != schemas.ScenarioSingleStream || r.Runs[1].Arrival != schemas.ArrivalPoisson || r.Runs[1].RequestRate.V != 2 {
		t.Errorf("v0.1 runs: %+v", r.Runs)
	}
	if n := checkAgreement(t, r, 1e-9); n < 40 {
		t.Errorf("v0.1: only %d statistics compared", n)
	}
	if m := metric(t, r, r.Runs[0].ID, schemas.TPOTTokenWeighted, schemas.StatP, 50, schemas.SourceReported); m.Method != string(stats.Linear) {
		t.Errorf("v0.1 percentile method %q", m.Method)
	}
	if r.Runs[1].Failed.V != 1 || r.NumRequests != 8 {
		t.Errorf("v0.1 errors: failed %v, %d requests", r.Runs[1].Failed, r.NumRequests)
	}

	// v0.2-v0.3: TPOT excludes the TTFT, ITL is per request; records sampled.
	r = read(t, "genA_sweep.json")
	if len(r.Runs) != 2 || r.Runs[1].Scenario != schemas.ScenarioServer || r.Runs[1].Arrival != schemas.ArrivalConstant || r.Runs[1].RequestRate.V != 3.5 {
		t.Fatalf("v0.3 runs: %+v", r.Runs)
	}
	for _, run := range r.Runs {
		if !slicesContains(run.Flags, "requests_sampled") || run.Labels["profile"] != "sweep" {
			t.Errorf("run %s: flags %v labels %v", run.ID, run.Flags, run.Labels)
		}
	}
	if m := metric(t, r, r.Runs[0].ID, schemas.DecodeTimePerOutputToken, schemas.StatMean, -1, schemas.SourceReported); math.Abs(m.Value.V-0.00492*127/128) > 1e-15 {
		t.Errorf("v0.3 TPOT: %+v", m)
	}
	metric(t, r, r.Runs[0].ID, schemas.TPOTLastToken, schemas.StatP, 99, schemas.SourceReported)
	for _, m := range r.Metrics {
		if m.Source == schemas.SourceComputed {
			t.Fatalf("sampled records were used to recompute %+v", m)
		}
	}

	// v0.4 YAML: throughput capped by max_concurrency.
	r = read(t, "genB_v04.yaml")
	if run := r.Runs[0]; run.Scenario != schemas.ScenarioConcurrency || run.MaxConcurrency.V != 3 || !strings.HasPrefix(run.ToolVersion, "GuideLLM v0.4") {
		t.Errorf("v0.4: %+v", run)
	}
	if n := checkAgreement(t, r, 1e-9); n == 0 {
		t.Error("v0.4: nothing recomputed")
	}

	// v0.5: token-weighted latencies; errored and incomplete records.
	r = read(t, "genC_complete.json")
	run := r.Runs[0]
	if run.Arrival != schemas.ArrivalPoisson || run.RequestRate.V != 2 || run.Completed.V != 6 || run.Failed.V != 1 || run.Labels["incomplete_requests"] != "1" {
		t.Errorf("v0.5 run: %+v", run)
	}
	if m := metric(t, r, run.ID, schemas.TPOTInclTTFTTokenWeighted, schemas.StatMean, -1, schemas.SourceReported); m.N.V != 289 {
		t.Errorf("token-weighted count %v, want the 289 output tokens", m.N)
	}
	if m := metric(t, r, run.ID, schemas.TPOTTokenWeighted, schemas.StatMean, -1, schemas.SourceReported); m.N.V != 283 {
		t.Errorf("ITL count %v, want 289 - 6 requests", m.N)
	}
	if n := checkAgreement(t, r, 1e-9); n < 60 {
		t.Errorf("v0.5: only %d statistics compared", n)
	}
	var statuses []string
	for _, q := range r.Requests {
		statuses = append(statuses, q.Status)
		if q.Status == schemas.StatusError && q.E2ES.OK {
			t.Errorf("failed request keeps its latency: %+v", q)
		}
	}
	if got := strings.Join(statuses, ","); got != "ok,ok,ok,ok,ok,ok,error,error" {
		t.Errorf("statuses %s", got)
	}

	// v0.7: first answer token, labels, sampled records, trace replay.
	r = read(t, "genD_v07.json")
	run = r.Runs[0]
	if run.Labels["label team"] != "perf" || run.Scenario != schemas.ScenarioServer || run.Arrival != schemas.ArrivalUnknown ||
		!slicesContains(run.Flags, "requests_sampled") || !strings.Contains(run.ToolVersion, "0.7.3") || run.Labels["warmup_duration_s"] != "1.5" {
		t.Errorf("v0.7 run: %+v", run)
	}
	metric(t, r, run.ID, schemas.TTFTAnswer, schemas.StatP, 99, schemas.SourceReported)

	// Bad rows are rejected with their position; the rest is ingested.
	r = read(t, "bad_rows.json")
	var got []string
	for _, rej := range r.Rejections {
		got = append(got, fmt.Sprintf("%s %d:%d %s", rej.Table, rej.Line, rej.Column, rej.Field))
	}
	want := "metrics 626:22 metrics.time_to_first_token_ms.successful.percentiles.p90; requests 1191:32 end; requests 1305:30 prompt_tokens"
	if strings.Join(got, "; ") != want {
		t.Errorf("rejections:\n got %s\nwant %s", strings.Join(got, "; "), want)
	}
	if r.NumRequests != 6 {
		t.Errorf("%d requests ingested, want 8 - 2", r.NumRequests)
	}
}

func slicesContains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// TestPercentileVector ingests ten requests with TTFTs 10, 20, ..., 100 ms:
// GuideLLM's cumulative nearest rank gives 30, 50, 80, 100 and 100 ms at
// p25, p50, p75, p90 and p99 (p90 is 100, not 90: the float running sum of
// nine tenths is 0.8999999999999999).
func TestPercentileVector(t *testing.T) {
	r := read(t, "vector_genC.json")
	run := r.Runs[0].ID
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, c := range []struct{ p, want float64 }{{25, 30}, {50, 50}, {75, 80}, {90, 100}, {99, 100}} {
		if q := stats.Quantile(x, c.p/100, stats.NearestRankCumulative); q != c.want {
			t.Fatalf("stats.Quantile p%v = %v, want %v", c.p, q, c.want)
		}
		for _, src := range []string{schemas.SourceReported, schemas.SourceComputed} {
			m := metric(t, r, run, schemas.TTFT, schemas.StatP, c.p, src)
			if math.Abs(m.Value.V-c.want/1000) > 1e-12 || m.Method != string(stats.NearestRankCumulative) {
				t.Errorf("%s p%v: %v (%s), want %v ms (nearest_rank_cumulative)", src, c.p, m.Value.V, m.Method, c.want)
			}
		}
	}
	if m := metric(t, r, run, schemas.TTFT, schemas.StatMedian, -1, schemas.SourceComputed); math.Abs(m.Value.V-0.05) > 1e-12 {
		t.Errorf("median %v, want the lower middle value 50 ms", m.Value.V)
	}
}

// TestSharedCorpus checks values against the real reports.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "guidellm")
	readShared := func(name string) *ingesttest.Result {
		r, err := ingesttest.ReadFile(t, guidellm.Format{}, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rejections) != 0 || len(r.Warnings) != 0 {
			t.Errorf("%s: rejections %v, warnings %v", name, r.Rejections, r.Warnings)
		}
		return r
	}
	// The v0.3 test asset: a sweep's synchronous benchmark, one record of 46 kept.
	j := readShared("guidellm-v0.3-tests-benchmarks_stripped.json")
	y := readShared("guidellm-v0.3-tests-benchmarks_stripped.yaml")
	run := j.Runs[0]
	if run.Scenario != schemas.ScenarioSingleStream || run.Completed.V != 46 || run.Labels["incomplete_requests"] != "1" ||
		!slicesContains(run.Flags, "requests_sampled") || j.NumRequests != 1 {
		t.Errorf("v0.3 run: %+v", run)
	}
	for _, c := range []struct {
		id        schemas.MetricID
		stat      string
		pct, want float64
	}{
		{schemas.TTFT, schemas.StatMean, -1, 0.016792535781860348}, {schemas.TTFT, schemas.StatP, 99, 0.021281957626342773},
		{schemas.TTFT, schemas.StatMedian, -1, 0.01638054847717285}, {schemas.E2E, schemas.StatP, 90, 0.6488735675811768},
		{schemas.TPOTLastToken, schemas.StatMean, -1, 0.004941609043733832}, {schemas.DecodeTimePerOutputToken, schemas.StatMean, -1, 0.00490300272307966},
		{schemas.RequestThroughputSpan, schemas.StatValue, -1, 1.5481806532737452}, {schemas.OutputTokens, schemas.StatSum, -1, 5888},
	} {
		m := metric(t, j, run.ID, c.id, c.stat, c.pct, schemas.SourceReported)
		if math.Abs(m.Value.V-c.want) > 1e-15*c.want {
			t.Errorf("v0.3 %s %s: %v, want %v", c.id, m.NativeName, m.Value.V, c.want)
		}
	}
	// The YAML serialisation reads to the same metrics.
	if len(j.Metrics) != len(y.Metrics) {
		t.Fatalf("JSON %d metrics, YAML %d", len(j.Metrics), len(y.Metrics))
	}
	for i := range j.Metrics {
		a, b := j.Metrics[i], y.Metrics[i]
		a.RunID, b.RunID = "", ""
		if a != b {
			t.Errorf("JSON %+v\nYAML %+v", a, b)
		}
	}

	// The v0.5 concurrent run: every record kept; the worked example.
	r := readShared("guidellm-v0.5.0dev0-concurrent4-qwen3-4b.benchmarks.json")
	run = r.Runs[0]
	if run.Scenario != schemas.ScenarioConcurrency || run.MaxConcurrency.V != 4 || run.Model != "Qwen/Qwen3-4B-Thinking-2507" || r.NumRequests != 4 {
		t.Errorf("v0.5 run: %+v", run)
	}
	q := r.Requests[0]
	if math.Abs(q.TTFTS.V-0.1715217) > 1e-7 || math.Abs(q.E2ES.V-24.90786) > 1e-5 || q.OutputTokens.V != 1024 {
		t.Errorf("request 0: %+v", q)
	}
	for _, c := range []struct {
		id        schemas.MetricID
		stat      string
		pct, want float64
		n         int64
	}{
		{schemas.TTFT, schemas.StatP, 50, 0.17152166366577148, 4}, {schemas.TTFT, schemas.StatP, 99, 0.17263293266296387, 4},
		{schemas.TTFT, schemas.StatMean, -1, 0.1717655062675476, 4}, {schemas.TPOTTokenWeighted, schemas.StatMean, -1, 0.02417877651496134, 4092},
		{schemas.TPOTInclTTFTTokenWeighted, schemas.StatMedian, -1, 0.02432254352606833, 4096},
		{schemas.RequestThroughputMeasured, schemas.StatValue, -1, 0.12043527909470322, 0},
	} {
		m := metric(t, r, run.ID, c.id, c.stat, c.pct, schemas.SourceReported)
		if math.Abs(m.Value.V-c.want) > 1e-15*c.want || (c.n > 0 && m.N.V != c.n) {
			t.Errorf("v0.5 %s: %v (n %v), want %v (n %d)", m.NativeName, m.Value.V, m.N, c.want, c.n)
		}
	}
	if n := checkAgreement(t, r, 1e-9); n < 60 {
		t.Errorf("v0.5: only %d statistics compared with the records", n)
	}
}

func TestFileErrors(t *testing.T) {
	cases := map[string]string{
		"truncated.json":    "truncated.json:114:15: malformed JSON: unterminated string",
		"not_a_report.json": "not_a_report.json: not a GuideLLM report: no benchmarks array",
	}
	for name, want := range cases {
		_, err := ingesttest.ReadFile(t, guidellm.Format{}, filepath.Join("testdata", name))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an *ingest.Error containing %q", name, err, want)
		}
	}
	for in, want := range map[string]string{
		`[1, 2]`:                                 "expected a mapping at the top",
		`{"benchmarks": [3]}`:                    "expected a benchmark object, found a number",
		`{"benchmarks": [{"x": 1}]}`:             "not a GuideLLM benchmark",
		`{"benchmarks": []}`:                     "the report holds no benchmarks",
		"benchmarks:\n- mode: x\n  results: 3\n": "results: expected a list",
	} {
		_, err := ingesttest.ReadBytes(guidellm.Format{}, "x", []byte(in))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

// TestDetect runs Detect over every file of the shared corpus: only
// GuideLLM's reports are claimed.
func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, guidellm.Format{}, "guidellm", 85, fixtures)
}

var requestRecord = regexp.MustCompile(`^benchmark (\d+), (successful|errored|incomplete|errors)\[(\d+)\]$`)

// FuzzRead: no panic, deterministic output, and every request record
// either ingested or rejected exactly once.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"genC_complete.json", "gen0_v01.json", "bad_rows.json", "truncated.json", "genB_v04.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"benchmarks":[{"type_":"generative_benchmark","config":{"strategy":{"type_":"poisson","rate":1}},"metrics":{},"requests":{"successful":[{"info":{"timings":{"request_start":1,"request_end":0.5}}},3]}}]}`))
	for _, name := range []string{"gen0_v01.json", "genC_complete.json"} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r1, err1 := ingesttest.ReadBytes(guidellm.Format{}, "fuzz.json", data)
		ingesttest.CheckInSync(t, data, r1, err1)
		r2, err2 := ingesttest.ReadBytes(guidellm.Format{}, "fuzz.json", data)
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
		// Per run, request indexes are dense: ingested rows and rejected
		// records together cover 0..n-1 once.
		perRun := map[string]map[int64]bool{}
		for _, q := range r1.Requests {
			if perRun[q.RunID] == nil {
				perRun[q.RunID] = map[int64]bool{}
			}
			if perRun[q.RunID][q.Index] {
				t.Fatalf("request %s/%d twice", q.RunID, q.Index)
			}
			perRun[q.RunID][q.Index] = true
			for _, v := range []schemas.Opt[float64]{q.TTFTS, q.E2ES} {
				if v.OK && (v.V < 0 || math.IsNaN(v.V) || math.IsInf(v.V, 0)) {
					t.Fatalf("bad latency ingested: %+v", q)
				}
			}
		}
		seen := map[string]bool{}
		for _, rej := range r1.Rejections {
			if rej.Table != schemas.TableRequests {
				continue
			}
			if requestRecord.FindStringSubmatch(rej.Record) == nil || seen[rej.Record] {
				t.Fatalf("request rejection without a unique record: %+v", rej)
			}
			seen[rej.Record] = true
		}
		for run, idx := range perRun {
			for i := range idx {
				if i < 0 || i >= int64(len(idx)+len(seen)) {
					t.Fatalf("run %s: index %d out of range", run, i)
				}
			}
		}
	})
}

// BenchmarkRead reads a generated v0.5 report with 20,000 request records.
func BenchmarkRead(b *testing.B) {
	data := bigReport(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		// The collecting sink without request rows: the benchmark measures
		// the reader.
		s := &ingesttest.Sink{}
		in := ingest.NewInput("big.json", int64(len(data)), "0",
			func(off int64) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data[off:])), nil })
		if err := (guidellm.Format{}).Read(context.Background(), in, s); err != nil || s.R.NumRequests != 20000 {
			b.Fatal(err, s.R.NumRequests)
		}
	}
}

func bigReport(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"metadata": {"version": 1, "guidellm_version": "0.5.2"}, "args": {"model": "m"}, "benchmarks": [{"type_": "generative_benchmark", "config": {"strategy": {"type_": "concurrent", "streams": 64}}, "metrics": {"request_totals": {"successful": `)
	buf.WriteString(strconv.Itoa(n))
	buf.WriteString(`, "errored": 0, "incomplete": 0, "total": `)
	buf.WriteString(strconv.Itoa(n))
	buf.WriteString(`}}, "requests": {"successful": [`)
	for i := range n {
		if i > 0 {
			buf.WriteString(",\n")
		}
		s := 1000 + float64(i)*0.01
		fmt.Fprintf(&buf, `{"type_": "generative_request_stats", "request_id": "r%d", "info": {"status": "completed", "timings": {"request_start": %v, "first_token_iteration": %v, "last_token_iteration": %v, "request_end": %v}}, "prompt_tokens": 128, "output_tokens": %d, "output": "some generated text that takes a little room"}`,
			i, s, s+0.1, s+0.1+0.02*float64(50+i%50), s+0.1+0.02*float64(50+i%50)+0.001, 51+i%50)
	}
	buf.WriteString(`], "errored": [], "incomplete": []}, "start_time": 1000, "end_time": 2000, "duration": 1000}]}`)
	return buf.Bytes()
}

// TestDriver ingests the shared reports through the driver, detected among
// every format (GuideLLM's JSON resembles other tools' summaries) and with
// --format, and checks that the counts add up.
func TestDriver(t *testing.T) {
	dir := testkit.Corpus(t, "guidellm")
	files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	var paths []string
	for _, f := range files {
		if filepath.Base(f) != "SOURCES.md" {
			paths = append(paths, f)
		}
	}
	for _, format := range []string{"auto", "guidellm"} {
		sum, err := ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats(), Format: format})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sum.Manifest.Sources {
			if s.Tool != "guidellm" {
				t.Errorf("%s read as %s", s.Path, s.Tool)
			}
			for table, c := range s.Counts {
				if c.Read != c.Ingested+c.Rejected {
					t.Errorf("%s %s: %+v", s.Path, table, c)
				}
			}
		}
		if got := sum.Totals(schemas.TableRequests).Ingested; got != 36 {
			t.Errorf("%d requests, want 1 + 1 + 4 + 30 (the warm-up run writes its 5 warm-up and cool-down requests too)", got)
		}
	}
}

// phases counts request rows by phase.
func phases(r *ingesttest.Result) map[string]int {
	out := map[string]int{}
	for _, q := range r.Requests {
		out[q.Phase]++
	}
	return out
}

// TestWarmupCooldown reads a hand-made GuideLLM 0.5 report with warm-up
// and cool-down (make_warmup.py): the request lists hold every request,
// the metrics only those overlapping the measurement window. The rows
// outside it are warm-up and cool-down, left out of the recomputed
// statistics, which then equal the tool's own (n and mean, and every
// percentile by GuideLLM's method).
func TestWarmupCooldown(t *testing.T) {
	r := read(t, "genC_warmup.json")
	if len(r.Runs) != 1 || r.NumRequests != 8 {
		t.Fatalf("%d runs, %d requests", len(r.Runs), r.NumRequests)
	}
	run := r.Runs[0]
	if got := phases(r); got[schemas.PhaseWarmup] != 1 || got[schemas.PhaseCooldown] != 1 || got[schemas.PhaseProfiling] != 6 {
		t.Errorf("phases %v, want 1 warm-up, 6 profiling (two of them overlap the window's ends), 1 cool-down", got)
	}
	if r.Requests[0].Phase != schemas.PhaseWarmup || r.Requests[7].Phase != schemas.PhaseCooldown || r.Requests[6].Phase != schemas.PhaseProfiling {
		t.Errorf("phases by index: %v %v %v", r.Requests[0].Phase, r.Requests[6].Phase, r.Requests[7].Phase)
	}
	if slicesContains(run.Flags, "requests_sampled") || !run.Streaming.OK || !run.Streaming.V {
		t.Errorf("run flags %v, streaming %v", run.Flags, run.Streaming)
	}
	for _, id := range []schemas.MetricID{schemas.TTFT, schemas.E2E, schemas.TPOTTokenWeighted} {
		rep := metric(t, r, run.ID, id, schemas.StatMean, -1, schemas.SourceReported)
		com := metric(t, r, run.ID, id, schemas.StatMean, -1, schemas.SourceComputed)
		if rep.N != com.N || math.Abs(rep.Value.V-com.Value.V) > 1e-12*rep.Value.V {
			t.Errorf("%s mean: tool %v (n %v), recomputed %v (n %v)", id, rep.Value.V, rep.N, com.Value.V, com.N)
		}
	}
	if n := checkAgreement(t, r, 1e-9); n < 60 {
		t.Errorf("only %d statistics compared", n)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "disagrees") || strings.Contains(w, "not compared") || strings.Contains(w, "request_totals says") {
			t.Errorf("warning: %s", w)
		}
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "1 warm-up and 1 cool-down") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestWarmupCorpus reads the real GuideLLM 0.5 run with --warmup 0.1
// --cooldown 0.1 (30 requests written, 25 in the tool's statistics): the
// recomputed TTFT p99 is the tool's 60.78 ms (GuideLLM's own summary of
// the 25), not the cold first request's; and V015 sees the warm-up kept
// apart instead of a cold start inside the measurement.
func TestWarmupCorpus(t *testing.T) {
	dir := ingesttest.SharedDir(t, "guidellm")
	path := filepath.Join(dir, "v0.5.0.dev0_danielkorat-guidellm-bench_gpt-oss-20b_sync_warm0.1_cool0.1_benchmarks.json")
	r, err := ingesttest.ReadFile(t, guidellm.Format{}, path)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	if got := phases(r); got[schemas.PhaseWarmup] != 2 || got[schemas.PhaseCooldown] != 3 || got[schemas.PhaseProfiling] != 25 {
		t.Errorf("phases %v, want 2 warm-up, 25 profiling, 3 cool-down", got)
	}
	p99 := metric(t, r, run.ID, schemas.TTFT, schemas.StatP, 99, schemas.SourceComputed)
	if math.Abs(p99.Value.V-0.0607762336730957) > 1e-12 || p99.N.V != 25 {
		t.Errorf("recomputed TTFT p99 %v (n %v), want the tool's 60.776 ms over 25", p99.Value.V, p99.N)
	}
	mean := metric(t, r, run.ID, schemas.TTFT, schemas.StatMean, -1, schemas.SourceComputed)
	if math.Abs(mean.Value.V-0.048843650817871094) > 1e-9 {
		t.Errorf("recomputed TTFT mean %v, want the tool's 48.84 ms", mean.Value.V)
	}
	if n := checkAgreement(t, r, 1e-6); n < 60 {
		t.Errorf("only %d statistics compared", n)
	}
	if !run.Streaming.OK || !run.Streaming.V {
		t.Errorf("streaming %v: every request_args says stream: true", run.Streaming)
	}

	dest := filepath.Join(t.TempDir(), "b")
	if _, err := ingest.ToBundle(context.Background(), []string{path}, dest, ingest.Options{Formats: all.Formats()}); err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Validate(context.Background(), []string{dest}, validate.Options{Rules: []string{"V015"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 {
		t.Errorf("V015 findings: %+v", rep.Findings)
	}
	if len(rep.Checks) != 1 || len(rep.Checks[0].Notes) == 0 || !strings.Contains(rep.Checks[0].Notes[0], "2 warm-up requests recorded and kept apart, and 3 cool-down") {
		t.Errorf("V015 checks: %+v", rep.Checks)
	}
	// stats reads the profiling rows only: 25 TTFTs.
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := analysis.Observe(context.Background(), b, analysis.ObserveOptions{Metrics: []schemas.MetricID{schemas.TTFT}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(runs[0].Values[schemas.TTFT]); n != 25 {
		t.Errorf("stats see %d TTFTs, want 25", n)
	}
}

// TestHostileYAML: a benchmarks.yaml nested 50,000 levels (100 KB) or
// holding an alias bomb (49.6 KB standing for billions of values) is
// refused with a positioned error, in little time and memory (issue 15:
// 3.9 GB and 25 s, and 9 million request rows, with goccy/go-yaml).
func TestHostileYAML(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "genB_v04.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var bomb strings.Builder
	bomb.WriteString("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; bomb.Len() < 49_600; i++ {
		fmt.Fprintf(&bomb, "l%d: &l%d [*l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d]\n", i, i, i-1)
	}
	for name, tail := range map[string]string{
		"deep": "deep: " + strings.Repeat("[", 50_000) + strings.Repeat("]", 50_000) + "\n",
		"bomb": bomb.String(),
		"tag":  "other: !t 0\na:",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		r, err := ingesttest.ReadBytes(guidellm.Format{}, "benchmarks.yaml", append(slices.Clone(base), tail...))
		runtime.ReadMemStats(&after)
		var ie *ingest.Error
		if name == "tag" {
			// a custom tag on a key GuideLLM does not have is no harm
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		} else if !errors.As(err, &ie) || !strings.Contains(err.Error(), "malformed YAML") {
			t.Errorf("%s: %v (%d requests)", name, err, len(r.Requests))
		}
		if d, mb := time.Since(start), (after.TotalAlloc-before.TotalAlloc)>>20; d > 5*time.Second || mb > 128 {
			t.Errorf("%s: %v, %d MB allocated", name, d, mb)
		}
	}
}
