package aiperf_test

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/internal/memwatch"
	"github.com/verdict-llm/verdict/schemas"
)

// writeRecords writes n records with the given chunks per record (see
// gen.AIPerfRecords).
func writeRecords(path string, n, chunks int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gen.AIPerfRecords(f, gen.AIPerfOptions{Records: n, Chunks: chunks}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkIngestRecords1M ingests a generated 1,000,000-record
// profile_export.jsonl (8 chunks per record) into a bundle through the
// driver `verdict ingest` uses, with the statistics recomputed.
func BenchmarkIngestRecords1M(b *testing.B) {
	n := benchRecords
	dir := b.TempDir()
	path := filepath.Join(dir, "profile_export.jsonl")
	if err := writeRecords(path, n, 8); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	var heap, total float64
	cpu0 := cpuTime()
	for b.Loop() {
		stop := memwatch.Start()
		sum, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "out"),
			ingest.Options{Formats: []ingest.Format{aiperf.Format{}}, Bundle: schemas.BundleOptions{Overwrite: true}})
		p := stop()
		heap, total = max(heap, p.HeapMiB), max(total, p.MappedMiB)
		if err != nil {
			b.Fatal(err)
		}
		if c := sum.Totals(schemas.TableRequests); c.Ingested != int64(n) || c.Rejected != 0 {
			b.Fatalf("%+v", c)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(heap, "peak-heap-MiB")
	b.ReportMetric(total, "peak-mapped-MiB")
}

// benchRecords is the benchmark's record count: -records N sets it (a
// quicker run on a shared machine); tests of the benchmark itself may
// lower it.
var benchRecords = 1_000_000

func init() {
	flag.IntVar(&benchRecords, "records", benchRecords, "records in BenchmarkIngestRecords1M's generated input")
}

// BenchmarkReadRecords reads the same generated profile_export.jsonl as
// BenchmarkIngestRecords1M into a sink that keeps nothing: the parsing
// alone, without Arrow, Parquet or the input's hash.
func BenchmarkReadRecords(b *testing.B) {
	n := benchRecords
	path := filepath.Join(b.TempDir(), "profile_export.jsonl")
	if err := writeRecords(path, n, 8); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	in := ingest.NewInput(path, fi.Size(), "0", func(off int64) (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		_, err = f.Seek(off, io.SeekStart)
		return f, err
	})
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		s := &ingesttest.Sink{}
		if err := (aiperf.Format{}).Read(context.Background(), in, s); err != nil {
			b.Fatal(err)
		}
		if s.R.NumRequests != n || len(s.R.Rejections) != 0 {
			b.Fatalf("%d requests, %d rejections", s.R.NumRequests, len(s.R.Rejections))
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
