package llmperf_test

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
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/llmperf"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// golden and dump are the shared ingest test helpers.
var (
	golden = ingesttest.Golden
	dump   = ingesttest.Dump
)

func readPath(t *testing.T, path string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, llmperf.Format{}, path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func read(t *testing.T, name string) *ingesttest.Result {
	t.Helper()
	return readPath(t, filepath.Join("testdata", name))
}

var fixtures = []string{"demo_summary.json", "demo_individual_responses.json", "vector_individual_responses.json",
	"lists_individual_responses.json", "bad_individual_responses.json"}

func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			golden(t, strings.TrimSuffix(name, ".json")+".golden.json", dump(t, read(t, name)))
		})
	}
}

func metric(t *testing.T, r *ingesttest.Result, id schemas.MetricID, stat string, pct float64, source string) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, stat, pct, source)
	if !ok {
		t.Fatalf("no %s %s p%v %s metric", id, stat, pct, source)
	}
	return m
}

// agree compares a summary's reported statistics with those recomputed
// from the matching individual responses (a separate input, joined here by
// result_name), and returns how many were compared.
func agree(t *testing.T, summary, individual *ingesttest.Result, tol float64) int {
	t.Helper()
	if a, b := summary.Runs[0].Labels["result_name"], individual.Runs[0].Labels["result_name"]; a != b {
		t.Fatalf("result_name %q vs %q", a, b)
	}
	computed := map[string]schemas.Metric{}
	for _, m := range individual.Metrics {
		m.RunID, m.Source = "", schemas.SourceReported
		computed[m.Key()] = m
	}
	n := 0
	for _, m := range summary.Metrics {
		if !m.Value.OK {
			continue
		}
		id := m.RunID
		m.RunID = ""
		c, ok := computed[m.Key()]
		m.RunID = id
		if !ok {
			continue
		}
		n++
		if d := math.Abs(m.Value.V - c.Value.V); d > tol*math.Abs(m.Value.V) {
			t.Errorf("%s: summary %v, recomputed %v", m.NativeName, m.Value.V, c.Value.V)
		}
		if m.Method != c.Method {
			t.Errorf("%s: method %q, recomputed %q", m.NativeName, m.Method, c.Method)
		}
	}
	return n
}

// TestPairs checks that the statistics recomputed from each individual
// responses file reproduce its summary, with the same definitions.
func TestPairs(t *testing.T) {
	s, i := read(t, "demo_summary.json"), read(t, "demo_individual_responses.json")
	if n := agree(t, s, i, 1e-12); n != 60 {
		t.Errorf("demo: %d statistics compared, want 6 metrics x 10", n)
	}
	dir := testkit.Corpus(t, "llmperf")
	for _, name := range []string{"leaderboard-anyscale_70b", "leaderboard-lepton_70b"} {
		s := readPath(t, filepath.Join(dir, name+"_summary.json"))
		i := readPath(t, filepath.Join(dir, name+"_individual_responses.json"))
		if n := agree(t, s, i, 1e-12); n != 60 {
			t.Errorf("%s: %d statistics compared, want 60", name, n)
		}
	}
}

func TestSemantics(t *testing.T) {
	// A 2026 summary: code after 2024-12-08, ITL over chunks, rates over tokens.
	r := read(t, "demo_summary.json")
	run := r.Runs[0]
	if run.MaxConcurrency.V != 4 || run.Completed.V != 10 || run.Failed.V != 2 || run.NumPrompts.V != 12 ||
		run.Labels["additional_sampling_params_temperature"] != "0.0" || run.Labels["deployment"] != "lab" ||
		run.Labels["results_error_code_frequency"] != "{429: 1, -1: 1}" || run.TokenSource == "" {
		t.Errorf("summary run: %+v", run)
	}
	if strings.Join(run.Flags, ",") != "itl_per_chunk_assumed" {
		t.Errorf("flags %v", run.Flags)
	}
	metric(t, r, schemas.TPOTInclTTFTPerChunk, schemas.StatStd, -1, schemas.SourceReported)
	metric(t, r, schemas.E2EOutputTokenRate, schemas.StatP, 99, schemas.SourceReported)
	if m := metric(t, r, schemas.OutputTokens, schemas.StatMin, -1, schemas.SourceReported); !m.Value.OK || m.Note != "written as a string" {
		t.Errorf("string min: %+v", m)
	}
	if m := metric(t, r, schemas.RequestThroughput, schemas.StatValue, -1, schemas.SourceReported); math.Abs(m.Value.V-10/9.5) > 1e-12 {
		t.Errorf("requests per minute / 60: %+v", m)
	}
	if m := metric(t, r, schemas.ErrorRate, schemas.StatValue, -1, schemas.SourceReported); m.Value.V != 2.0/12 || m.Unit != schemas.UnitRatio {
		t.Errorf("error rate: %+v", m)
	}
	if m := metric(t, r, schemas.TTFT, schemas.StatStd, -1, schemas.SourceReported); m.Method != "sample" {
		t.Errorf("std method %q", m.Method)
	}

	// The individual responses: failed rows kept without latencies; NaN dropped.
	r = read(t, "demo_individual_responses.json")
	if r.Runs[0].Labels["error_codes"] != "-1: 1, 429: 1" || r.NumRequests != 12 {
		t.Errorf("run %+v, %d requests", r.Runs[0], r.NumRequests)
	}
	for _, q := range r.Requests {
		if q.Status == schemas.StatusError && (q.TTFTS.OK || q.E2ES.OK || q.OutputTokens.OK || !q.InputTokens.OK || q.Error == "") {
			t.Errorf("failed request %d: %+v", q.Index, q)
		}
	}
	if q := r.Requests[4]; q.Error != "Too Many Requests" || q.Status != schemas.StatusError {
		t.Errorf("request 4: %+v", q)
	}
	if m := metric(t, r, schemas.TPOTInclTTFTPerChunk, schemas.StatMean, -1, schemas.SourceComputed); m.N.V != 9 {
		t.Errorf("NaN ITL not dropped: n %v", m.N)
	}
	if m := metric(t, r, schemas.TTFT, schemas.StatMean, -1, schemas.SourceComputed); m.N.V != 10 {
		t.Errorf("ttft n %v", m.N)
	}

	// Lists of gaps are pooled, as the summary flattens them.
	r = read(t, "lists_individual_responses.json")
	if m := metric(t, r, schemas.ITLChunk, schemas.StatMax, -1, schemas.SourceComputed); m.N.V != 6 || m.Value.V != 0.3 {
		t.Errorf("pooled gaps: %+v", m)
	}
	if len(r.Requests[0].ChunkGapsS) != 4 || !strings.Contains(strings.Join(r.Runs[0].Flags, ","), "itl_lists_pooled") {
		t.Errorf("gaps %v flags %v", r.Requests[0].ChunkGapsS, r.Runs[0].Flags)
	}

	// Bad rows are rejected with line, column and field.
	r = read(t, "bad_individual_responses.json")
	var got []string
	for _, rej := range r.Rejections {
		got = append(got, fmt.Sprintf("%d:%d %s %s", rej.Line, rej.Column, rej.Record, rej.Field))
	}
	want := "17:19 request 1 ttft_s; 29:33 request 2 end_to_end_latency_s; 35:5 request 3 ; 44:33 request 4 number_output_tokens"
	if strings.Join(got, "; ") != want {
		t.Errorf("rejections:\n got %s\nwant %s", strings.Join(got, "; "), want)
	}
	if r.NumRequests != 2 || r.Runs[0].NumPrompts.V != 6 {
		t.Errorf("%d requests ingested of %v", r.NumRequests, r.Runs[0].NumPrompts)
	}
}

// TestPercentileVector: pandas' linear quantiles of TTFTs 10, 20, ..., 100.
func TestPercentileVector(t *testing.T) {
	r := read(t, "vector_individual_responses.json")
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, c := range []struct{ p, want float64 }{{25, 32.5}, {50, 55}, {75, 77.5}, {90, 91}, {99, 99.1}} {
		if q := stats.Quantile(x, c.p/100, stats.Linear); math.Abs(q-c.want) > 1e-12 {
			t.Fatalf("stats.Quantile p%v = %v", c.p, q)
		}
		m := metric(t, r, schemas.TTFT, schemas.StatP, c.p, schemas.SourceComputed)
		if math.Abs(m.Value.V-c.want) > 1e-12 || m.Method != string(stats.Linear) {
			t.Errorf("p%v = %v (%s), want %v (linear)", c.p, m.Value.V, m.Method, c.want)
		}
	}
	if m := metric(t, r, schemas.TTFT, schemas.StatStd, -1, schemas.SourceComputed); math.Abs(m.Value.V-30.276503540974915) > 1e-12 {
		t.Errorf("std (ddof 1) %v", m.Value.V)
	}
}

// TestSharedCorpus checks the leaderboard files' values and quirks.
func TestSharedCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "llmperf")
	r := readPath(t, filepath.Join(dir, "leaderboard-lepton_70b_summary.json"))
	run := r.Runs[0]
	if run.Completed.V != 20 || run.Failed.V != 130 || run.NumPrompts.V != 150 || run.Model != "llama2-70b" ||
		!strings.Contains(run.ToolVersion, "run of 2023-12-27") || strings.Join(run.Flags, ",") != "request_output_throughput_counts_chunks" {
		t.Errorf("lepton summary: %+v", run)
	}
	for _, c := range []struct {
		id        schemas.MetricID
		stat      string
		pct, want float64
	}{
		{schemas.OutputTokens, schemas.StatMin, -1, 94}, {schemas.TPOTInclTTFT, schemas.StatP, 50, 0.03027240502980114},
		{schemas.TTFT, schemas.StatMean, -1, 0.899458765500001}, {schemas.RequestOutputChunkRate, schemas.StatMax, -1, 13.566569705792936},
		{schemas.ErrorRate, schemas.StatValue, -1, 0.8666666666666667}, {schemas.OutputTokenThroughput, schemas.StatValue, -1, 53.02189174249291},
	} {
		if m := metric(t, r, c.id, c.stat, c.pct, schemas.SourceReported); m.Value.V != c.want {
			t.Errorf("%s: %v, want %v", m.NativeName, m.Value.V, c.want)
		}
	}
	r = readPath(t, filepath.Join(dir, "leaderboard-lepton_70b_individual_responses.json"))
	if run := r.Runs[0]; run.Labels["error_codes"] != "429: 130" || run.Failed.V != 130 || !strings.Contains(strings.Join(run.Flags, ","), "request_output_throughput_counts_chunks") {
		t.Errorf("lepton individual: %+v", run)
	}
	r = readPath(t, filepath.Join(dir, "leaderboard-anyscale_70b_individual_responses.json"))
	if q := r.Requests[0]; q.OutputTokens.V != 151 || math.Abs(q.E2ES.V-2.53284) > 1e-5 {
		t.Errorf("anyscale record 0: %+v", q)
	}
	if len(r.Rejections) != 0 || len(r.Warnings) != 0 {
		t.Errorf("rejections %v warnings %v", r.Rejections, r.Warnings)
	}
}

func TestFileErrors(t *testing.T) {
	for name, want := range map[string]string{
		"correctness_summary.json": "correctness_summary.json:4:32: num_mismatched_requests: an LLMPerf correctness summary",
		"truncated_summary.json":   "truncated_summary.json:16:5: malformed JSON: unterminated string",
	} {
		_, err := ingesttest.ReadFile(t, llmperf.Format{}, filepath.Join("testdata", name))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	for in, want := range map[string]string{
		`3`:                     "expected a summary object or a list of responses",
		`[] []`:                 "more than one JSON value",
		`{"model": "m"}`:        "not an LLMPerf summary",
		"":                      "no JSON value found",
		`[{"ttft_s": 1}, {"x"]`: "malformed JSON",
	} {
		_, err := ingesttest.ReadBytes(llmperf.Format{}, "x.json", []byte(in))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, llmperf.Format{}, "llmperf", 90, fixtures)
}

var requestRecord = regexp.MustCompile(`^request (\d+)$`)

// FuzzRead: no panic, deterministic output, every response ingested or
// rejected exactly once, and the run's counts add up.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"demo_summary.json", "demo_individual_responses.json", "bad_individual_responses.json", "lists_individual_responses.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"error_code": null, "ttft_s": NaN, "end_to_end_latency_s": "1", "inter_token_latency_s": [1, "x"]}, 7]`))
	for _, name := range []string{"demo_summary.json", "demo_individual_responses.json", "lists_individual_responses.json"} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		ingesttest.AddTypeSeeds(f, 0, data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r1, err1 := ingesttest.ReadBytes(llmperf.Format{}, "fuzz.json", data)
		ingesttest.CheckInSync(t, data, r1, err1)
		r2, err2 := ingesttest.ReadBytes(llmperf.Format{}, "fuzz.json", data)
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
		if r1.Format != "llmperf-individual" {
			return
		}
		seen := map[int64]bool{}
		for _, q := range r1.Requests {
			if seen[q.Index] {
				t.Fatalf("request %d twice", q.Index)
			}
			seen[q.Index] = true
		}
		for _, rej := range r1.Rejections {
			g := requestRecord.FindStringSubmatch(rej.Record)
			if g == nil {
				t.Fatalf("rejection without a request: %+v", rej)
			}
			i, _ := strconv.ParseInt(g[1], 10, 64)
			if seen[i] {
				t.Fatalf("request %d ingested and rejected", i)
			}
			seen[i] = true
		}
		if n := r1.Runs[0].NumPrompts.V; int64(len(seen)) != n {
			t.Fatalf("%d responses accounted for, %d read", len(seen), n)
		}
	})
}

// BenchmarkReadIndividual reads 100,000 generated responses.
func BenchmarkReadIndividual(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i := range 100000 {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `    {"error_code": null, "error_msg": "", "inter_token_latency_s": 0.0%03d, "ttft_s": 0.%03d, "end_to_end_latency_s": 2.%03d, "request_output_throughput_token_per_s": 60.5, "number_total_tokens": 701, "number_output_tokens": 151, "number_input_tokens": 550}`,
			100+i%900, 100+i%900, i%1000)
	}
	buf.WriteString("\n]\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		// A sink that counts request rows without keeping them, so that
		// the benchmark measures the reader.
		s := &ingesttest.Sink{}
		in := ingest.NewInput("big_individual_responses.json", int64(len(data)), "0",
			func(off int64) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data[off:])), nil })
		if err := (llmperf.Format{}).Read(context.Background(), in, s); err != nil || s.R.NumRequests != 100000 {
			b.Fatal(err, s.R.NumRequests)
		}
	}
}

// TestDriver ingests the shared files through the driver, detected and
// with --format, and checks that the counts add up.
func TestDriver(t *testing.T) {
	dir := testkit.Corpus(t, "llmperf")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, format := range []string{"auto", "llmperf"} {
		sum, err := ingest.ToBundle(context.Background(), files, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats(), Format: format})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sum.Manifest.Sources {
			for table, c := range s.Counts {
				if c.Read != c.Ingested+c.Rejected {
					t.Errorf("%s %s: %+v", s.Path, table, c)
				}
			}
		}
		if got := sum.Totals(schemas.TableRequests).Ingested; got != 300 {
			t.Errorf("%d requests", got)
		}
	}
}

// ingestFiles runs the driver over files of testdata.
func ingestFiles(t *testing.T, names ...string) (ingest.Summary, error) {
	t.Helper()
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join("testdata", n))
	}
	return ingest.ToBundle(context.Background(), paths, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
}

// TestPairIsOneRun: a summary and its individual responses given together
// are one run that lists both files, holds the responses' rows, and whose
// recomputed statistics agree with the summary's (no warning).
func TestPairIsOneRun(t *testing.T) {
	sum, err := ingestFiles(t, "demo_summary.json", "demo_individual_responses.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 1 {
		t.Fatalf("%d sources", len(sum.Manifest.Sources))
	}
	src := sum.Manifest.Sources[0]
	if len(src.Runs) != 1 || len(src.Files) != 2 || src.Format != "llmperf-pair" || len(src.Warnings) != 0 {
		t.Errorf("source: runs %v, files %v, format %s, warnings %q", src.Runs, src.Files, src.Format, src.Warnings)
	}
	if c := src.Counts[schemas.TableRequests]; c.Ingested != 12 {
		t.Errorf("requests %+v", c)
	}
	if c := src.Counts[schemas.TableMetrics]; c.Computed != 60 || c.Ingested == 0 {
		t.Errorf("metrics %+v", c)
	}
	b, _ := schemas.OpenBundle(sum.Dest)
	runs, _ := b.Runs(context.Background())
	if r := runs[0]; len(r.SourceFiles) != 2 || r.Completed.V != 10 || r.Labels["error_codes"] != "-1: 1, 429: 1" {
		t.Errorf("run %+v", r)
	}

	// The leaderboard pairs of the corpus: two runs of 150 requests each.
	dir := ingesttest.SharedDir(t, "llmperf")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sum, err = ingest.ToBundle(context.Background(), files, filepath.Join(t.TempDir(), "c"), ingest.Options{Formats: all.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 2 {
		t.Fatalf("%d sources, want the two pairs", len(sum.Manifest.Sources))
	}
	for _, s := range sum.Manifest.Sources {
		if len(s.Runs) != 1 || s.Counts[schemas.TableRequests].Ingested != 150 || len(s.Warnings) != 0 {
			t.Errorf("%s: runs %v, counts %v, warnings %q", s.Path, s.Runs, s.Counts, s.Warnings)
		}
	}
}

// TestEraOfOneTokenChunks: December 2023 responses from a server that
// streams one token per chunk (make_era.py). Alone, their rates come within
// 2% of tokens / latency without equalling it, which the newer code would
// give exactly: the era is unknown and said so. With their summary, the
// summary's date decides: chunk-counting code, ITL over tokenizer tokens,
// the same definitions as the summary's, and no uncertainty.
func TestEraOfOneTokenChunks(t *testing.T) {
	r := read(t, "oneperchunk_individual_responses.json")
	flags := strings.Join(r.Runs[0].Flags, ",")
	if !strings.Contains(flags, "llmperf_itl_divisor_uncertain") || !strings.Contains(flags, "llmperf_code_date_unknown") ||
		!strings.Contains(r.Runs[0].ToolVersion, "code date unknown") {
		t.Errorf("alone: flags %s, version %q", flags, r.Runs[0].ToolVersion)
	}
	s := read(t, "oneperchunk_summary.json")
	metric(t, s, schemas.TPOTInclTTFT, schemas.StatMean, -1, schemas.SourceReported)
	metric(t, s, schemas.RequestOutputChunkRate, schemas.StatMean, -1, schemas.SourceReported)

	sum, err := ingestFiles(t, "oneperchunk_summary.json", "oneperchunk_individual_responses.json")
	if err != nil {
		t.Fatal(err)
	}
	src := sum.Manifest.Sources[0]
	if len(sum.Manifest.Sources) != 1 || len(src.Warnings) != 0 {
		t.Fatalf("%d sources, warnings %q", len(sum.Manifest.Sources), src.Warnings)
	}
	b, _ := schemas.OpenBundle(sum.Dest)
	runs, _ := b.Runs(context.Background())
	if f := strings.Join(runs[0].Flags, ","); f != "request_output_throughput_counts_chunks" {
		t.Errorf("pair flags %q", f)
	}
	ms, _ := b.Metrics(context.Background())
	ids := map[schemas.MetricID]int{}
	for _, m := range ms {
		ids[m.MetricID]++
	}
	if ids[schemas.TPOTInclTTFT] != 20 || ids[schemas.RequestOutputChunkRate] != 20 || ids[schemas.TPOTInclTTFTPerChunk] != 0 || ids[schemas.E2EOutputTokenRate] != 0 {
		t.Errorf("definitions %v: the summary's era must govern the recomputed statistics too", ids)
	}
}

// TestPairMismatch: a summary and responses named as one run whose
// request counts differ are refused, naming both files.
func TestPairMismatch(t *testing.T) {
	dir := t.TempDir()
	s, _ := os.ReadFile(filepath.Join("testdata", "oneperchunk_summary.json"))
	i, _ := os.ReadFile(filepath.Join("testdata", "demo_individual_responses.json"))
	sp, ip := filepath.Join(dir, "x_summary.json"), filepath.Join(dir, "x_individual_responses.json")
	os.WriteFile(sp, s, 0o644)
	os.WriteFile(ip, i, 0o644)
	_, err := ingest.ToBundle(context.Background(), []string{sp, ip}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats()})
	if err == nil || !strings.Contains(err.Error(), sp+" and "+ip+" are named as one run, but their request count differs (results_num_requests_started 6 against 12 responses)") {
		t.Errorf("err %v", err)
	}
}
