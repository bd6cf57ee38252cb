package vllm_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/internal/memwatch"
	"github.com/verdict-llm/verdict/schemas"
)

// BenchmarkIngestDetailed1M ingests a generated --save-detailed file of
// 1,000,000 requests (16 chunks each) into a bundle, through the same
// driver as `verdict ingest`.
func BenchmarkIngestDetailed1M(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "detailed.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := gen.VLLMDetailed(f, gen.VLLMOptions{Requests: 1_000_000, Chunks: 16, Seed: 1, FailEvery: 100}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	var peak float64
	for b.Loop() {
		stop := memwatch.Start()
		sum, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "out"),
			ingest.Options{Formats: []ingest.Format{vllm.Format{}}, Bundle: schemas.BundleOptions{Overwrite: true}})
		peak = max(peak, stop().MappedMiB)
		if err != nil {
			b.Fatal(err)
		}
		if got := sum.Totals(schemas.TableRequests).Ingested; got != 1_000_000 {
			b.Fatalf("%d requests", got)
		}
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(peak, "peak-MiB")
}

// bigValueFile writes the demo result with an unknown key whose value is
// a string of size bytes.
func bigValueFile(tb testing.TB, dir string, size int) string {
	tb.Helper()
	data, err := os.ReadFile("../../testdata/demo/platform-a.json")
	if err != nil {
		tb.Fatal(err)
	}
	i := bytes.LastIndexByte(data, '}')
	var b bytes.Buffer
	b.Write(data[:i])
	b.WriteString(`, "mystery_key": "`)
	b.Write(bytes.Repeat([]byte{'x'}, size))
	b.WriteString(`"}`)
	path := filepath.Join(dir, "big_value.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestBigValue: an unknown key's 100 MB value becomes a label cut to
// ingest.MaxTextBytes that says so, not a 100 MB label copied into the
// bundle and every report (issue 15).
func TestBigValue(t *testing.T) {
	dir := t.TempDir()
	path := bigValueFile(t, dir, 100<<20)
	if _, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "out"), ingest.Options{Formats: []ingest.Format{vllm.Format{}}}); err != nil {
		t.Fatal(err)
	}
	b, err := schemas.OpenBundle(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	v := runs[0].Labels["mystery_key"]
	if len(v) > ingest.MaxTextBytes+40 || !strings.HasSuffix(v, fmt.Sprintf("... [cut: %d bytes]", 100<<20)) {
		t.Errorf("label of %d bytes ending %q", len(v), v[max(0, len(v)-40):])
	}
	var total int64
	filepath.WalkDir(filepath.Join(dir, "out"), func(p string, d fs.DirEntry, err error) error {
		if fi, err := d.Info(); err == nil && !d.IsDir() {
			total += fi.Size()
		}
		return nil
	})
	if total > 1<<20 {
		t.Errorf("the bundle holds %d bytes", total)
	}
}

// BenchmarkIngestBigValue ingests a result file with one 100 MB value and
// reports the peak heap (issue 15: about ten times the value, 1.21 GB
// peak RSS; now the value is held once, by the scanner's buffer, and cut
// before it is copied: 252 MB peak RSS for `verdict ingest`).
func BenchmarkIngestBigValue(b *testing.B) {
	dir := b.TempDir()
	path := bigValueFile(b, dir, 100<<20)
	var peak float64
	for b.Loop() {
		stop := memwatch.Start()
		_, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "out"),
			ingest.Options{Formats: []ingest.Format{vllm.Format{}}, Bundle: schemas.BundleOptions{Overwrite: true}})
		peak = max(peak, stop().HeapMiB)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(peak, "peak-heap-MiB")
}
