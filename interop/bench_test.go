package interop

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/schemas"
)

var (
	bigOnce sync.Once
	bigPath string
	bigErr  error
)

// bigVLLM writes (once per test binary) the 1,000,000-request vLLM
// --save-detailed file the ingest benchmark uses.
func bigVLLM(b *testing.B) string {
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "verdict-interop-bench")
		if err != nil {
			bigErr = err
			return
		}
		bigPath = filepath.Join(dir, "detailed.json")
		f, err := os.Create(bigPath)
		if err != nil {
			bigErr = err
			return
		}
		defer f.Close()
		bigErr = gen.VLLMDetailed(f, gen.VLLMOptions{Requests: 1_000_000, Chunks: 16, Seed: 1, FailEvery: 100})
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath
}

// BenchmarkPercentileVLLM1M runs the same job both ways on the same file:
// p99 TTFT over the successful requests of a 1,000,000-request vLLM
// result. verdict ingests the file into a bundle (validating every row and
// recomputing the summary) and then computes the percentile; DuckDB reads
// the JSON with read_json and computes quantile_cont.
func BenchmarkPercentileVLLM1M(b *testing.B) {
	path := bigVLLM(b)
	fi, _ := os.Stat(path)
	b.Run("verdict", func(b *testing.B) {
		b.SetBytes(fi.Size())
		dir := b.TempDir()
		var p99 float64
		for b.Loop() {
			out := filepath.Join(dir, "b")
			if _, err := ingest.ToBundle(context.Background(), []string{path}, out, ingest.Options{Formats: all.Formats(), Bundle: bundleOverwrite}); err != nil {
				b.Fatal(err)
			}
			o := analysis.DefaultStats
			o.Metrics, o.Percentiles, o.Confidence = []schemas.MetricID{schemas.TTFT}, []float64{99}, 0
			res, err := analysis.ComputeStats(context.Background(), []string{out}, o)
			if err != nil {
				b.Fatal(err)
			}
			rs := res.Runs
			p99 = rs[0].Metrics[0].Quantiles[0].Value
		}
		b.ReportMetric(p99, "p99-ttft-s")
	})
	b.Run("duckdb", func(b *testing.B) {
		b.SetBytes(fi.Size())
		db, err := sql.Open("duckdb", "")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		q := fmt.Sprintf(`SELECT quantile_cont(t, 0.99) FROM (
			SELECT unnest(ttfts) AS t, unnest(errors) AS e FROM read_json('%s', maximum_object_size = 2000000000)
		) WHERE e = ''`, path)
		var p99 float64
		for b.Loop() {
			if err := db.QueryRow(q).Scan(&p99); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(p99, "p99-ttft-s")
	})
}
