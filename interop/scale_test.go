//go:build unix

package interop

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/sqlgen"
)

// The scale benchmark of issue 21: a dataset of generated runs, and p99
// TTFT per run computed by verdict stats and by the DuckDB views over it.
// The size is 1,000 runs of 100,000 requests (100 million rows):
//
//	cd interop && go test -run '^$' -bench P99TTFTDataset -benchtime 1x -scale-runs 1000 -timeout 3h .
//
// The default is a tenth of that, which finishes in minutes on two cores.
var (
	scaleRuns     = flag.Int("scale-runs", 100, "runs in the scale benchmark's dataset (the issue's full size: 1000)")
	scaleRequests = flag.Int("scale-requests", 100_000, "requests per run in the scale benchmark")
	scaleDir      = flag.String("scale-dir", "", "build the scale dataset here and keep it for the next run (default: a temporary directory, removed)")
)

// cpuSeconds is the CPU time this process has used, DuckDB's threads
// included: on a shared machine it varies less than the wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// scaleDataset builds (or reuses, under -scale-dir) the dataset: one
// bundle per run, exported and removed, so memory stays bounded.
func scaleDataset(b *testing.B) string {
	b.Helper()
	root := *scaleDir
	if root == "" {
		root = b.TempDir()
	}
	o := gen.RunsOptions{Runs: *scaleRuns, Requests: *scaleRequests, Seed: 1, FailEvery: 100}
	ds := filepath.Join(root, fmt.Sprintf("history-%dx%d", o.Runs, o.Requests))
	if schemas.IsDataset(ds) {
		return ds
	}
	start := time.Now()
	if err := gen.Dataset(context.Background(), ds, root, o); err != nil {
		b.Fatal(err)
	}
	b.Logf("dataset of %d runs x %d requests generated and exported in %v", o.Runs, o.Requests, time.Since(start).Round(time.Millisecond))
	return ds
}

// BenchmarkP99TTFTDataset computes p99 TTFT per run four ways and checks
// that verdict and the views agree to the bit:
//
//   - verdict: verdict stats --ci 0 --metric ttft --percentiles 99 (the
//     command's own code, render.ComputeStats);
//   - views: verdict sql --metric ttft --percentiles 99, then
//     SELECT run_id, value FROM verdict_stat_percentile;
//   - verdict_stats: the default script (all eight metrics), filtered to
//     TTFT p99, which DuckDB has to push through the union;
//   - quantile_cont: DuckDB's own function over the glob, for scale (it
//     differs from numpy in the last bit for some runs).
func BenchmarkP99TTFTDataset(b *testing.B) {
	ds := scaleDataset(b)
	rows := float64(*scaleRuns * *scaleRequests)
	want := map[string]float64{}
	b.Run("verdict", func(b *testing.B) {
		o := analysis.DefaultStats
		o.Metrics, o.Percentiles, o.Confidence = []schemas.MetricID{schemas.TTFT}, []float64{99}, 0
		cpu := cpuSeconds()
		for b.Loop() {
			res, err := analysis.ComputeStats(context.Background(), []string{ds}, o)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res.Runs {
				want[r.Run.ID] = r.Metrics[0].Quantiles[0].Value
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
	})
	check := func(b *testing.B, name string, got map[string]float64, exact bool) {
		if len(got) != *scaleRuns {
			b.Errorf("%s: p99 of %d runs, want %d", name, len(got), *scaleRuns)
		}
		differ := 0
		for run, v := range got {
			if v != want[run] {
				differ++
			}
		}
		if exact && differ > 0 {
			b.Errorf("%s: %d of %d runs differ from verdict stats", name, differ, len(got))
		}
		b.ReportMetric(float64(differ), "runs-differing")
	}
	duck := func(b *testing.B, name string, o *sqlgen.Options, query string, exact bool) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		got := map[string]float64{}
		cpu := cpuSeconds()
		for b.Loop() {
			if o != nil {
				var s strings.Builder
				o.Dialect, o.Dataset = sqlgen.DuckDB, ds
				if err := sqlgen.Write(&s, *o); err != nil {
					b.Fatal(err)
				}
				if _, err := db.Exec(s.String()); err != nil {
					b.Fatal(err)
				}
			}
			rs, err := db.Query(query)
			if err != nil {
				b.Fatal(err)
			}
			for rs.Next() {
				var run string
				var v float64
				rs.Scan(&run, &v)
				got[run] = v
			}
			rs.Close()
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
		check(b, name, got, exact)
	}
	b.Run("duckdb-views", func(b *testing.B) {
		duck(b, "views", &sqlgen.Options{Metrics: []schemas.MetricID{schemas.TTFT}, Percentiles: []float64{99}},
			"SELECT run_id, value FROM verdict_stat_percentile", true)
	})
	b.Run("duckdb-verdict_stats", func(b *testing.B) {
		duck(b, "verdict_stats", &sqlgen.Options{},
			"SELECT run_id, value FROM verdict_stats WHERE metric_id = 'ttft' AND stat = 'p' AND percentile = 99", true)
	})
	b.Run("duckdb-quantile_cont", func(b *testing.B) {
		duck(b, "quantile_cont", nil, fmt.Sprintf(`SELECT run_id, quantile_cont(ttft_s, 0.99)
			FROM read_parquet('%s/table=requests/**/*.parquet', hive_partitioning = false)
			WHERE status = 'ok' AND phase <> 'warmup' AND ttft_s IS NOT NULL GROUP BY run_id`, ds), false)
	})
}
