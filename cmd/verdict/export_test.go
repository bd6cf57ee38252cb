package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	xbenchfmt "golang.org/x/perf/benchfmt"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/llmdbr"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// brSchemas compiles the BR v0.2.1 schemas render/br's tests validate
// against: the hand-written subset in render/br/testdata, and
// llm-d-benchmark's own v0.2.1 schema when the shared corpus is there
// (read at test time, never copied into the repository). Formats
// (date-time) are asserted.
func brSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	paths := map[string]string{"subset": filepath.Join("..", "..", "render", "br", "testdata", "br-v0.2.1-subset.schema.json")}
	t.Run("corpus", func(t *testing.T) {
		paths["llm-d-benchmark"] = filepath.Join(testkit.Corpus(t, "llmd-br"), "v0.2.1_llmd-benchmark_json-schema.json")
	})
	out := map[string]*jsonschema.Schema{}
	for name, path := range paths {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		s, err := c.Compile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = s
	}
	return out
}

// TestExportBRAndBenchfmt ingests the demo run, exports it as a Benchmark
// Report and in the Go benchmark format, and reads both back: the BR with
// verdict's own reader (the definitions come back as they were), the
// benchfmt file with benchstat's reader.
func TestExportBRAndBenchfmt(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "a.bundle")
	if code, _, errs := runCLI(t, "ingest", "--sut", demo+"sut-a.yaml", "-o", bundle, demo+"platform-a.json"); code != 0 {
		t.Fatalf("ingest: %d %s", code, errs)
	}
	out := filepath.Join(dir, "br")
	code, stdout, errs := runCLI(t, "export", "--format", "br", "-o", out, bundle)
	if code != 0 || !strings.Contains(stdout, "written as BR 0.2.1") {
		t.Fatalf("export br: %d %s %s", code, stdout, errs)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.br.json"))
	if len(files) != 1 {
		t.Fatalf("%d reports", len(files))
	}
	// What the CLI wrote is valid BR 0.2.1 (issue 17).
	doc, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", files[0], err)
	}
	for name, sch := range brSchemas(t) {
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: not valid against the %s BR v0.2.1 schema: %v", files[0], name, err)
		}
	}
	// Read it back through the driver, as verdict ingest would.
	again := filepath.Join(dir, "again.bundle")
	if _, err := ingest.ToBundle(context.Background(), files, again, ingest.Options{Formats: []ingest.Format{llmdbr.Format{}}}); err != nil {
		t.Fatal(err)
	}
	b, err := schemas.OpenBundle(again)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	metrics, _ := b.Metrics(context.Background())
	run := runs[0]
	if run.Labels["verdict.validation"] == "" || run.SUT.GPUModel != "NVIDIA H100 80GB HBM3" || run.Labels["verdict.tool"] != "vllm" {
		t.Errorf("read back: labels %v, inventory %+v", run.Labels, run.SUT)
	}
	ids := map[schemas.MetricID]bool{}
	for _, m := range metrics {
		ids[m.MetricID] = true
	}
	for _, id := range []schemas.MetricID{schemas.TTFT, schemas.ITLChunk, schemas.TPOT, schemas.E2E, schemas.RequestThroughput} {
		if !ids[id] {
			t.Errorf("%s did not come back (have %v)", id, ids)
		}
	}

	txt := filepath.Join(dir, "a.txt")
	if code, _, errs := runCLI(t, "export", "--format", "benchfmt", "-o", txt, bundle); code != 0 {
		t.Fatalf("export benchfmt: %d %s", code, errs)
	}
	data, _ := os.ReadFile(txt)
	rd := xbenchfmt.NewReader(bytes.NewReader(data), txt)
	n := 0
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *xbenchfmt.Result:
			n++
			if rec.GetConfig("tool") != "vllm" {
				t.Errorf("config %v", rec.Config)
			}
		case *xbenchfmt.SyntaxError:
			t.Error(rec)
		}
	}
	if n == 0 {
		t.Error("no benchmark lines")
	}
	if code, _, _ := runCLI(t, "export", "--format", "br", bundle); code != 2 {
		t.Errorf("br without --out: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "export", "--format", "xml", "-o", out, bundle); code != 2 {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
}
