package llmdbr_test

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
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/ingest/llmdbr"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

var fixtures = []string{"v0.1_inference-perf.yaml", "v0.1_guidellm_ms.yaml", "v0.2_vllm-benchmark.json",
	"inference-perf.partial.stage_2.yaml", "bad_rows.yaml", "unquoted_version.yaml"}

func read(t *testing.T, name string) *ingesttest.Result {
	t.Helper()
	r, err := ingesttest.ReadFile(t, llmdbr.Format{}, filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			ingesttest.Golden(t, name+".golden.json", ingesttest.Dump(t, read(t, name)))
		})
	}
}

func value(t *testing.T, r *ingesttest.Result, id schemas.MetricID, stat string, pct float64) float64 {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, stat, pct, schemas.SourceReported)
	if !ok || !m.Value.OK {
		t.Fatalf("no %s %s %v", id, stat, pct)
	}
	return m.Value.V
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestProducerDefinitions checks that each producer's fields land on the
// definitions its code measures (docs/formats/llmd-br.md).
func TestProducerDefinitions(t *testing.T) {
	for _, c := range []struct {
		file  string
		field map[schemas.MetricID]bool
		flags []string
	}{
		// inference-perf lifecycle summary through the converter: chunk-stamped
		// token gaps, NTPOT with empty outputs as 0, the dispatch window.
		{"v0.1_inference-perf.yaml", map[schemas.MetricID]bool{schemas.ITLTokenChunkStamped: true, schemas.TPOTInclTTFTZeroFilled: true,
			schemas.RequestThroughput: true, schemas.SendSpan: true, schemas.TTFT: true, schemas.TPOT: true, schemas.E2E: true}, []string{"br_v01_duration_is_send_span"}},
		// inference-perf's own writer skips empty outputs for NTPOT.
		{"inference-perf.partial.stage_2.yaml", map[schemas.MetricID]bool{schemas.ITLTokenChunkStamped: true, schemas.TPOTInclTTFT: true}, nil},
		// vLLM: the pooled chunk gap.
		{"v0.2_vllm-benchmark.json", map[schemas.MetricID]bool{schemas.ITLChunk: true, schemas.TTFT: true}, nil},
		// A producer verdict has not checked: BR's schema text, flagged.
		{"v0.1_guidellm_ms.yaml", map[schemas.MetricID]bool{schemas.ITLChunk: true}, []string{"br_definitions_from_schema_text"}},
	} {
		r := read(t, c.file)
		got := map[schemas.MetricID]bool{}
		for _, m := range r.Metrics {
			got[m.MetricID] = true
		}
		for id := range c.field {
			if !got[id] {
				t.Errorf("%s: no %s rows (have %v)", c.file, id, got)
			}
		}
		for _, f := range c.flags {
			if !slices.Contains(r.Runs[0].Flags, f) {
				t.Errorf("%s: flags %v lack %s", c.file, r.Runs[0].Flags, f)
			}
		}
	}
}

// TestUnitsAndWindow checks the scaling by units, the 0.1 time window and
// the send span.
func TestUnitsAndWindow(t *testing.T) {
	r := read(t, "v0.1_guidellm_ms.yaml")
	if v := value(t, r, schemas.TTFT, schemas.StatMean, -1); !near(v, 0.0415) {
		t.Errorf("ttft mean %v, want 0.0415 s (41.5 ms)", v)
	}
	if v := value(t, r, schemas.TPOT, schemas.StatP, 99); !near(v, 0.014) {
		t.Errorf("tpot p99 %v, want 0.014 s/token", v)
	}
	if v := value(t, r, schemas.RequestThroughput, schemas.StatValue, -1); v != 3.92 {
		t.Errorf("request rate %v", v)
	}
	run := r.Runs[0]
	if !run.WindowStart.OK || run.WindowEnd.V.Sub(run.WindowStart.V).Seconds() != 61.5 {
		t.Errorf("window %v..%v", run.WindowStart, run.WindowEnd)
	}
	if run.Labels["br.metrics.time.duration_s"] != "61.5" {
		t.Errorf("an unchecked producer's duration is kept as a label: %v", run.Labels)
	}
	ip := read(t, "v0.1_inference-perf.yaml")
	if v := value(t, ip, schemas.SendSpan, schemas.StatValue, -1); v != 20.957 {
		t.Errorf("send span %v", v)
	}
	if ip.Runs[0].DurationS.OK {
		t.Error("the send span must not become the run's duration")
	}
	if v := value(t, ip, schemas.E2E, schemas.StatP, 99.9); v != 28.4 {
		t.Errorf("p99p9 %v", v)
	}
	if v := value(t, ip, schemas.E2E, schemas.StatP, 0.1); v != 17.01 {
		t.Errorf("p0p1 %v", v)
	}
}

// TestScenario checks the stack as inventory, the load as arrival
// settings, credentials kept out.
func TestScenario(t *testing.T) {
	ip := read(t, "v0.1_inference-perf.yaml").Runs[0]
	if ip.Arrival != schemas.ArrivalPoisson || ip.RequestRate != schemas.Some(3.0) || ip.Labels["br.stage"] != "1" || !ip.Streaming.V {
		t.Errorf("load: %s %v stage %q streaming %v", ip.Arrival, ip.RequestRate, ip.Labels["br.stage"], ip.Streaming)
	}
	if ip.SUT.Endpoint != "http://gateway.example:80/v1" || ip.Model != "Qwen/Qwen3-32B" {
		t.Errorf("endpoint %q model %q", ip.SUT.Endpoint, ip.Model)
	}
	gl := read(t, "v0.1_guidellm_ms.yaml").Runs[0]
	if gl.SUT.GPUCount != schemas.Some(int64(5)) || gl.SUT.Parallelism != "prefill x1: tp=1 pp=1 dp=1 ep=1; decode x1: tp=4 pp=1 dp=1 ep=1" {
		t.Errorf("inventory %+v", gl.SUT)
	}
	if !strings.Contains(gl.Labels["br.stack.0.args"], "--api-key <redacted>") || strings.Contains(gl.Labels["br.stack.0.args"], "hunter2") {
		t.Errorf("args %q", gl.Labels["br.stack.0.args"])
	}
	v := read(t, "v0.2_vllm-benchmark.json")
	vr := v.Runs[0]
	if vr.SUT.GPUCount != schemas.Some(int64(4)) || vr.SUT.Image != "docker.io/vllm/vllm-openai:v0.11.0" || vr.SUT.Parallelism != "tp=2 pp=1 dp=1 ep=1" {
		t.Errorf("inventory %+v", vr.SUT)
	}
	if slices.Contains(vr.SUT.LaunchArgs, "hf_abc") || !slices.Contains(vr.SUT.LaunchArgs, "<redacted>") {
		t.Errorf("launch args %v", vr.SUT.LaunchArgs)
	}
	if vr.RequestRate != schemas.Some(6.0) || vr.Scenario != schemas.ScenarioServer || vr.Labels["br.run.time.duration_s"] != "65" {
		t.Errorf("load %v %s %v", vr.RequestRate, vr.Scenario, vr.Labels)
	}
	if !strings.Contains(strings.Join(v.Warnings, "\n"), "envars") {
		t.Errorf("environment variables are not kept, and it says so: %v", v.Warnings)
	}
}

// TestRejections checks that every bad value is one rejection with its
// line and field, and that the other rows are kept.
func TestRejections(t *testing.T) {
	r := read(t, "bad_rows.yaml")
	want := map[string]int{ // field -> line
		"results.request_performance.aggregate.requests.total":                       13,
		"results.request_performance.aggregate.latency.time_to_first_token.units":    15,
		"results.request_performance.aggregate.latency.time_per_output_token.stddev": 16,
		"results.request_performance.aggregate.latency.time_per_output_token.p99":    16,
		"results.request_performance.aggregate.throughput.request_rate":              20,
		"results.request_performance.aggregate.latency.request_latency.p42":          17,
	}
	got := map[string]int{}
	for _, rej := range r.Rejections {
		got[rej.Field] = rej.Line
	}
	for f, line := range want {
		if got[f] != line {
			t.Errorf("rejection of %s at line %d, want %d (all: %v)", f, got[f], line, r.Rejections)
		}
	}
	if len(r.Rejections) != len(want) {
		t.Errorf("%d rejections, want %d: %v", len(r.Rejections), len(want), r.Rejections)
	}
	if v := value(t, r, schemas.TPOT, schemas.StatMean, -1); v != 0.01 {
		t.Errorf("the good rows of a field with a bad one are kept: %v", v)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "time_to_last_token is not a BR 0.2 key") {
		t.Errorf("warnings %v", r.Warnings)
	}
}

func TestFileErrors(t *testing.T) {
	for name, want := range map[string]string{
		"bad_version.yaml": `bad_version.yaml:1:10: version: the string "0.3" is not a Benchmark Report version`,
		"nover.yaml":       "no version",
		"list.yaml":        "expected a Benchmark Report mapping",
		"noruns.json":      "needs a run mapping",
		"badyaml.yaml":     "malformed YAML",
	} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		switch name {
		case "nover.yaml":
			data = []byte("run: {uid: a}\nresults: {}\n")
		case "list.yaml":
			data = []byte("- 1\n- 2\n")
		case "noruns.json":
			data = []byte(`{"version": "0.2", "results": {}}`)
		case "badyaml.yaml":
			data = []byte("version: '0.2'\nrun: {uid: [\n")
		}
		_, err := ingesttest.ReadBytes(llmdbr.Format{}, name, data)
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	r := read(t, "unquoted_version.yaml")
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "version 0.2 is a number") {
		t.Errorf("warnings %v", r.Warnings)
	}
}

func TestDetect(t *testing.T) {
	// The corpus's JSON Schema files score 60: taken for BR, and refused.
	ingesttest.CheckDetect(t, llmdbr.Format{}, "llmd-br", 60, []string{"v0.1_inference-perf.yaml", "v0.1_guidellm_ms.yaml",
		"v0.2_vllm-benchmark.json", "inference-perf.partial.stage_2.yaml", "bad_rows.yaml"})
}

// TestCorpus reads every report of the shared corpus: each is one run, no
// row is rejected, and every number of the aggregate is a metric row with
// the file's value scaled by its units (the reports have no per-request
// data to recompute them from).
func TestCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "llmd-br")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 8 {
		t.Fatalf("%d reports in the corpus, want 8", len(files))
	}
	schemaFiles, _ := filepath.Glob(filepath.Join(dir, "*json-schema.json"))
	for _, path := range schemaFiles {
		_, err := ingesttest.ReadFile(t, llmdbr.Format{}, path)
		if err == nil || !strings.Contains(err.Error(), "JSON Schema of the Benchmark Report, not a report") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if len(schemaFiles) != 3 {
		t.Errorf("%d schema files", len(schemaFiles))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r, err := ingesttest.ReadFile(t, llmdbr.Format{}, path)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Runs) != 1 || len(r.Rejections) != 0 {
				t.Fatalf("%d runs, rejections %v", len(r.Runs), r.Rejections)
			}
			checkNumbers(t, path, r)
		})
	}
}

// checkNumbers walks the file's aggregate and finds each statistic among
// the rows by its native name.
func checkNumbers(t *testing.T, path string, r *ingesttest.Result) {
	f, _ := os.Open(path)
	defer f.Close()
	root, err := jtree.ParseYAML(path, f)
	if err != nil {
		t.Fatal(err)
	}
	byNative := map[string]float64{}
	for _, m := range r.Metrics {
		byNative[m.NativeName] = m.Value.V
	}
	prefix, agg := "results.request_performance.aggregate.", root.Path("results", "request_performance", "aggregate")
	if agg == nil {
		prefix, agg = "metrics.", root.Get("metrics")
	}
	n := 0
	for _, group := range []string{"latency", "requests", "throughput"} {
		for _, fld := range agg.Get(group).Fields() {
			if !fld.Val.IsObject() {
				if v, ok := fld.Val.Float(); ok && group == "throughput" {
					n++
					if byNative[prefix+group+"."+fld.Key] != v {
						t.Errorf("%s.%s: %v, row %v", group, fld.Key, v, byNative[prefix+group+"."+fld.Key])
					}
				}
				continue
			}
			if group == "requests" && fld.Key != "input_length" && fld.Key != "output_length" {
				continue
			}
			if group == "throughput" && !strings.HasSuffix(fld.Key, "token_rate") && fld.Key != "request_rate" {
				continue
			}
			units, _ := fld.Val.Get("units").Str()
			div := 1.0
			if strings.HasPrefix(units, "ms") {
				div = 1000
			}
			for _, st := range fld.Val.Fields() {
				if _, _, ok := rows.StatKey(st.Key); !ok || st.Val.Kind != jsonscan.Number {
					continue
				}
				v, _ := st.Val.Float()
				key := prefix + group + "." + fld.Key + "." + st.Key
				got, ok := byNative[key]
				if !ok || got != v/div {
					t.Errorf("%s = %v, row %v (present %v)", key, v/div, got, ok)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no numbers checked")
	}
}

// FuzzRead feeds the reader its fixtures as JSON with each value replaced
// by each JSON type, and YAML as it is.
func FuzzRead(f *testing.F) {
	ingesttest.AddTypeSeedFiles(f, 40, fixtures...)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := ingesttest.ReadTwice(t, llmdbr.Format{}, "fuzz.yaml", data)
		if r != nil && len(r.Runs) != 1 {
			t.Fatalf("%d runs", len(r.Runs))
		}
	})
}
