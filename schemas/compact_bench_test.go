package schemas_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/schemas"
)

var compactRuns = flag.Int("compact-runs", 20, "runs of 100,000 requests in BenchmarkCompact's dataset")

// BenchmarkCompact copies the requests of a dataset of generated runs into
// one sorted file with a bloom filter on run_id, with parquet-go (Compact)
// and, for comparison, with pqarrow (the library that writes the dataset):
// the same rows, sort order, row group size, compression and bloom filter.
// It reports the bytes written; -benchmem the allocations.
func BenchmarkCompact(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	ds := filepath.Join(root, "history")
	o := gen.RunsOptions{Runs: *compactRuns, Requests: 100_000, Seed: 1, FailEvery: 100}
	if err := gen.Dataset(ctx, ds, root, o); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(ds, "table=requests", "tool=*", "run_id=*", "part-*.parquet"))
	slices.Sort(files) // one tool: path order is run_id order
	size := func(p string) float64 {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		return float64(fi.Size())
	}
	b.Run("parquet-go", func(b *testing.B) {
		dest := filepath.Join(b.TempDir(), "compact")
		for b.Loop() {
			if _, err := schemas.Compact(ctx, ds, dest, schemas.CompactOptions{Replace: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(size(filepath.Join(dest, "table=requests", "part-00000.parquet")), "bytes-written")
	})
	b.Run("pqarrow", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "part-00000.parquet")
		for b.Loop() {
			if err := pqarrowCopy(ctx, files, out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(size(out), "bytes-written")
	})
}

// pqarrowCopy is Compact's copy of one table written with pqarrow.
func pqarrowCopy(ctx context.Context, files []string, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	var w *pqarrow.FileWriter
	for _, p := range files {
		rdr, err := file.OpenParquetFile(p, false)
		if err != nil {
			return err
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		if w == nil {
			sc, err := fr.Schema()
			if err != nil {
				return err
			}
			props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCompressionLevel(1),
				parquet.WithMaxRowGroupLength(128<<10), parquet.WithStats(true), parquet.WithDictionaryDefault(false),
				parquet.WithDictionaryFor("run_id", true), parquet.WithDictionaryFor("status", true), parquet.WithDictionaryFor("phase", true),
				parquet.WithBloomFilterEnabledFor("run_id", true), parquet.WithPageIndexEnabled(true),
				parquet.WithSortingColumns([]parquet.SortingColumn{{ColumnIdx: 0}}))
			if w, err = pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
				return err
			}
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			return err
		}
		for rr.Next() {
			if err := w.WriteBuffered(rr.RecordBatch()); err != nil {
				return err
			}
		}
		rr.Release()
		rdr.Close()
	}
	return w.Close()
}
