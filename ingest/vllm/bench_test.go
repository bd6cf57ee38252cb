package vllm_test

import (
	"context"
	"os"
	"path/filepath"
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
