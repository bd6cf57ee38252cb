package schemas

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func TestRegistry(t *testing.T) {
	seen := map[MetricID]bool{}
	for _, d := range Registry() {
		if seen[d.ID] {
			t.Errorf("duplicate ID %s", d.ID)
		}
		seen[d.ID] = true
		if d.Name == "" || d.Unit == "" || d.Level == "" || d.Population == "" || d.Direction == "" || d.Description == "" {
			t.Errorf("%s: incomplete definition %+v", d.ID, d)
		}
		isRate := strings.Contains(d.Unit, "/s")
		if isRate && d.Level == LevelRun && d.Numerator != "" && (d.Denominator == "" || d.Window == "") {
			t.Errorf("%s: a rate needs numerator, denominator and window", d.ID)
		}
		if d.Unit == UnitSeconds && (d.From == "" || d.To == "") {
			t.Errorf("%s: a duration needs from and to events", d.ID)
		}
	}
	for _, table := range nativeTables {
		for _, n := range table {
			if !seen[n.Metric] {
				t.Errorf("native %s %q maps to unknown metric %q", n.Tool, n.Names, n.Metric)
			}
		}
	}
	// The definitions the foundation must keep apart.
	distinct := []MetricID{TTFT, TTFTAnswer, ITLChunk, TPOT, TPOTInclTTFT, E2E, RequestThroughput,
		RequestThroughputSpan, OutputTokenThroughput, TotalTokenThroughput}
	sums := map[string]MetricID{}
	for _, id := range distinct {
		d, ok := Lookup(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		s := d.Summary()
		if other, dup := sums[s]; dup {
			t.Errorf("%s and %s have the same definition %q", id, other, s)
		}
		sums[s] = id
	}
	if d := MustLookup(ITLChunk); d.Level != LevelChunk {
		t.Errorf("itl_chunk level %s", d.Level)
	}
	if d := MustLookup(TPOT); !strings.Contains(d.Formula, "output_tokens - 1") {
		t.Errorf("tpot formula %q", d.Formula)
	}
}

// TestSchemasCarryDefinitions checks that every metric column names its
// definition in field metadata.
func TestSchemasCarryDefinitions(t *testing.T) {
	want := map[string]MetricID{"ttft_s": TTFT, "e2e_s": E2E, "chunk_gaps_s": ITLChunk, "queue_s": ClientQueue,
		"output_tokens": OutputTokens, "input_tokens": InputTokens, "ttft_answer_s": TTFTAnswer, "reasoning_tokens": ReasoningTokens}
	for name, id := range want {
		fs, ok := RequestsSchema().FieldsByName(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		if got, _ := fs[0].Metadata.GetValue(MetaMetric); got != string(id) {
			t.Errorf("%s: metadata %s = %q, want %q", name, MetaMetric, got, id)
		}
		if got, _ := RequestsSchema().Metadata().GetValue(MetaMetric + "." + name); got != string(id) {
			t.Errorf("%s: schema metadata %s.%s = %q, want %q", name, MetaMetric, name, got, id)
		}
	}
	for _, sc := range []string{TableRuns, TableRequests, TableMetrics} {
		s, _ := SchemaOf(sc)
		if v, _ := s.Metadata().GetValue(MetaSchema); v != "1" {
			t.Errorf("%s: schema version %q", sc, v)
		}
	}
}

func sampleRuns() []Run {
	start := time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)
	return []Run{{
		ID: "vllm-000000000001", Tool: "vllm", ToolVersion: "era", Format: "vllm-serve", SourcePath: "a.json",
		SourceSHA256: strings.Repeat("ab", 32), SourceRecord: 2, Scenario: ScenarioServer, Arrival: ArrivalGamma,
		RequestRate: Some(math.Inf(1)), Burstiness: Some(0.5), MaxConcurrency: Some(int64(0)), RampUp: "linear 1->10 req/s",
		Streaming: Some(true), Backend: "openai", Endpoint: "/v1/completions", Model: "m", Tokenizer: "tok",
		NumPrompts: Some(int64(10)), Completed: Some(int64(9)), Failed: Some(int64(1)), DurationS: Some(12.5),
		WindowKind: WindowKindDispatch, WindowStart: Some(start), WindowEnd: Some(start.Add(45 * time.Minute)),
		ToolDate: "20261130-103000", TokenSource: "server usage", Labels: map[string]string{"gpu": "H100", "=x": "@y"},
		Flags: []string{"a", "b"},
		SUT: Inventory{Model: "m", ModelRevision: "r", Quantization: "fp8", Engine: "vllm", EngineVersion: "0.11",
			LaunchArgs: []string{"--tp", "2"}, GPUModel: "H100", GPUCount: Some(int64(2)), Driver: "550", CUDA: "12.4",
			Image: "img", Dataset: "ds", DatasetSHA256: strings.Repeat("cd", 32), Endpoint: "http://x", ClientLocation: "az",
			CacheState: "cold", WarmupRequests: Some(int64(3)), ResourceIDs: []string{"i-1"}},
	}, {
		ID: "vllm-000000000002", Tool: "vllm", Format: "vllm-throughput", SourceRecord: 0,
		Scenario: ScenarioOffline, Arrival: ArrivalAllAtOnce,
	}}
}

func sampleMetrics() []Metric {
	return []Metric{
		{RunID: "vllm-000000000001", MetricID: TTFT, Stat: StatP, Percentile: Some(99.9), Value: Some(0.25), Unit: UnitSeconds,
			Method: "linear", Source: SourceReported, NativeName: "p99.9_ttft_ms", N: Some(int64(9))},
		{RunID: "vllm-000000000001", MetricID: Goodput, Stat: StatValue, Unit: UnitRequestsPerSecond, Source: SourceReported,
			Note: "the tool wrote null"},
	}
}

// TestBundleRoundTrip writes every kind of value and reads it back through
// Parquet, with a checked allocator to catch leaked Arrow buffers.
func TestBundleRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dest := filepath.Join(t.TempDir(), "b")
	created := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w, err := CreateBundle(dest, BundleOptions{Allocator: mem, BatchRows: 3, VerdictVersion: "test", CreatedAt: created})
	if err != nil {
		t.Fatal(err)
	}
	runs, metrics := sampleRuns(), sampleMetrics()
	for _, r := range runs {
		w.AddRun(r)
	}
	for _, m := range metrics {
		w.AddMetric(m)
	}
	var reqs []Request
	for i := range 8 {
		r := Request{RunID: runs[i%2].ID, Index: int64(i), Status: StatusOK, Phase: PhaseProfiling,
			StartS: Some(float64(i)), TTFTS: Some(0.01 * float64(i+1)), E2ES: Some(0.5), InputTokens: Some(int64(100 + i)),
			OutputTokens: Some(int64(20)), ChunkGapsS: []float64{0.01, 0.02}}
		switch i {
		case 3:
			r.Status, r.Error, r.TTFTS, r.E2ES, r.OutputTokens, r.ChunkGapsS = StatusError, "Not Found", Opt[float64]{}, Opt[float64]{}, Opt[int64]{}, nil
		case 5:
			r.ChunkGapsS = []float64{}
			r.Phase = PhaseWarmup
		}
		reqs = append(reqs, r)
		if err := w.AddRequest(&r); err != nil {
			t.Fatal(err)
		}
	}
	src := Source{Path: "a.json", Counts: map[string]Counts{TableRequests: {Read: 9, Ingested: 8, Rejected: 1, Reasons: map[string]int64{"negative value": 1}}}}
	if err := w.Commit(Manifest{Sources: []Source{src}}); err != nil {
		t.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		t.Errorf("writer leaked %d bytes", n)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 1 {
		t.Errorf("temporary files left beside the bundle: %v", entries)
	}

	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.SchemaVersion != SchemaVersion || b.Manifest.VerdictVersion != "test" || !b.Manifest.CreatedAt.Equal(created) {
		t.Errorf("manifest header %+v", b.Manifest)
	}
	if got := b.Manifest.Sources[0].Counts[TableRequests]; got.Read != got.Ingested+got.Rejected {
		t.Errorf("counts do not add up: %+v", got)
	}
	ctx := context.Background()
	gotRuns, err := b.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Unset scenario-like fields read back as their stored defaults.
	if !reflect.DeepEqual(gotRuns, runs) {
		t.Errorf("runs differ:\n got %+v\nwant %+v", gotRuns, runs)
	}
	gotMetrics, err := b.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotMetrics, metrics) {
		t.Errorf("metrics differ:\n got %+v\nwant %+v", gotMetrics, metrics)
	}
	var gotReqs []Request
	if err := b.Requests(ctx, func(r *Request) error {
		c := *r
		if r.ChunkGapsS != nil {
			c.ChunkGapsS = append([]float64{}, r.ChunkGapsS...)
		}
		gotReqs = append(gotReqs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotReqs, reqs) {
		t.Errorf("requests differ:\n got %+v\nwant %+v", gotReqs, reqs)
	}

	// Field metadata survives Parquet, so other engines see definitions.
	rdr, err := file.OpenParquetFile(filepath.Join(dest, "requests.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := sc.FieldsByName("chunk_gaps_s")
	if v, _ := f[0].Metadata.GetValue(MetaMetric); v != string(ITLChunk) {
		t.Errorf("chunk_gaps_s metadata after Parquet: %v", f[0].Metadata)
	}
	if v, _ := sc.Metadata().GetValue(MetaSchema); v != "1" {
		t.Errorf("schema version after Parquet: %v", sc.Metadata())
	}
	if rg := rdr.NumRowGroups(); rg != 3 {
		t.Errorf("%d row groups, want 3 (8 rows in batches of 3)", rg)
	}
}

func TestBundleRefusesOtherVersions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"schema_version": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenBundle(dir)
	if !errors.Is(err, ErrSchemaVersion) || !strings.Contains(err.Error(), "schema version 7") {
		t.Fatalf("got %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{}`), 0o644)
	if _, err := OpenBundle(dir); !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("missing version: got %v", err)
	}
	if _, err := OpenBundle(filepath.Join(dir, ManifestFile)); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("file as bundle: got %v", err)
	}
	if _, err := OpenBundle(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("empty dir: got %v", err)
	}
}

func TestBundleAtomicity(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "b")
	w, err := CreateBundle(dest, BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(sampleRuns()[1])
	w.Abort()
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Fatalf("abort left %v", entries)
	}
	commit := func(opts BundleOptions, model string) error {
		w, err := CreateBundle(dest, opts)
		if err != nil {
			return err
		}
		r := sampleRuns()[1]
		r.Model = model
		w.AddRun(r)
		return w.Commit(Manifest{})
	}
	if err := commit(BundleOptions{}, "first"); err != nil {
		t.Fatal(err)
	}
	if err := commit(BundleOptions{}, "second"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("overwrite without option: %v", err)
	}
	if err := commit(BundleOptions{Overwrite: true}, "second"); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	if len(runs) != 1 || runs[0].Model != "second" {
		t.Fatalf("after overwrite: %+v", runs)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("overwrite left %v", entries)
	}
	// A directory that is not a bundle is never replaced.
	other := filepath.Join(parent, "notabundle")
	os.Mkdir(other, 0o755)
	if _, err := CreateBundle(other, BundleOptions{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "not a bundle") {
		t.Fatalf("replacing a plain directory: %v", err)
	}
}

func TestParseInventory(t *testing.T) {
	good := `
model: {name: meta-llama/Llama-3.1-8B-Instruct, revision: 0e9e39f, quantization: fp8, reasoning: none}
engine: {name: vllm, version: 0.11.0, launch_args: [--max-num-seqs, "256"]}
gpu: {model: NVIDIA H100 80GB HBM3, count: 2, driver: 550.54.15, cuda: "12.4"}
container_image: vllm/vllm-openai:v0.11.0
dataset: {name: sharegpt, sha256: ` + strings.Repeat("AB", 32) + `}
endpoint: http://10.0.0.5:8000/v1/completions
client_location: same zone
cache_state: cold
warmup_requests: 10
cloud: {resource_ids: [i-0abc123]}
`
	inv, err := ParseInventory("sut.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := Inventory{Model: "meta-llama/Llama-3.1-8B-Instruct", ModelRevision: "0e9e39f", Quantization: "fp8", Reasoning: "none", Engine: "vllm",
		EngineVersion: "0.11.0", LaunchArgs: []string{"--max-num-seqs", "256"}, GPUModel: "NVIDIA H100 80GB HBM3",
		GPUCount: Some(int64(2)), Driver: "550.54.15", CUDA: "12.4", Image: "vllm/vllm-openai:v0.11.0", Dataset: "sharegpt",
		DatasetSHA256: strings.Repeat("ab", 32), Endpoint: "http://10.0.0.5:8000/v1/completions", ClientLocation: "same zone",
		CacheState: "cold", WarmupRequests: Some(int64(10)), ResourceIDs: []string{"i-0abc123"}}
	if !reflect.DeepEqual(inv, want) {
		t.Errorf("got %+v\nwant %+v", inv, want)
	}
	bad := map[string]string{
		"model: {name: x}\ngpus: {count: 2}\n": "gpus",
		"model: {name: x, revison: y}\n":       "revison",
		"cache_state: lukewarm\n":              "lukewarm",
		"model: {reasoning: hidden}\n":         "model.reasoning \"hidden\" is not one of none, split, inline",
		"gpu: {count: 0}\n":                    "at least 1",
		"dataset: {sha256: nothex}\n":          "64 hex",
		"":                                     "empty",
		"warmup_requests: -1\n":                "negative",
		"model: {name: x}\nmodel: {name: y}\n": "already defined",
		"model: [unclosed\n":                   "sut.yaml",
		"other: !t 0\na:":                      `sut.yaml:1:1: unknown field "other"`,
		"model: &m [*m]\n":                     "sut.yaml:1:12: alias *m refers to the value it is inside",
	}
	for in, frag := range bad {
		_, err := ParseInventory("sut.yaml", []byte(in))
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(frag)) {
			t.Errorf("%q: got %v, want an error mentioning %q", in, err, frag)
		}
	}
}

func TestOptJSON(t *testing.T) {
	type s struct {
		A Opt[float64] `json:"a"`
		B Opt[float64] `json:"b"`
		C Opt[int64]   `json:"c"`
	}
	in := s{A: Some(math.Inf(1)), C: Some(int64(3))}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"a":"inf","b":null,"c":3}` {
		t.Fatalf("got %s", data)
	}
	var out s
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip %+v", out)
	}
}

func TestSamplesRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dest := filepath.Join(t.TempDir(), "b")
	w, err := CreateBundle(dest, BundleOptions{Allocator: mem, BatchRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(sampleRuns()[1])
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 123456789, time.UTC)
	var want []Sample
	for i := range 5 {
		s := Sample{RunID: "vllm-000000000002", Source: "nvml", Device: "0", DeviceUUID: "GPU-1", DeviceName: "H200",
			Time: t0.Add(time.Duration(i) * 100 * time.Millisecond), UtilPct: Some(float64(90 + i)),
			MemUsedBytes: Some(int64(1 << 30)), PowerW: Some(500.5), EnergyJ: Some(1e6 + float64(i)*50)}
		if i == 2 {
			s.PowerW = Opt[float64]{}
		}
		want = append(want, s)
		if err := w.AddSample(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Manifest{}); err != nil {
		t.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		t.Errorf("leaked %d bytes", n)
	}
	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Samples(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples differ:\n got %+v\nwant %+v", got, want)
	}
	f, _ := SamplesSchema().FieldsByName("energy_j")
	if v, _ := f[0].Metadata.GetValue(MetaMetric); v != string(GPUEnergyCounter) {
		t.Errorf("energy_j metadata %v", f[0].Metadata)
	}
}
