package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/gen"
)

// TestTrendOnDuckDBRewrite rewrites a dataset's runs and metrics tables
// with DuckDB, as a warehouse job writes results back (COPY ...
// PARTITION_BY (tool, run_id): the partition columns leave the files,
// timestamps become microseconds), and checks that verdict trend reads the
// rewrite and gives the same answer as on verdict's own export.
func TestTrendOnDuckDBRewrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ds, out := filepath.Join(dir, "ds"), filepath.Join(dir, "out")
	step := slices.Concat(slices.Repeat([]float64{1}, 8), slices.Repeat([]float64{1.25}, 6))
	runs := slices.Concat(gen.HistoryRuns("a", 0, step, 0.01, 1), gen.HistoryRuns("b", 1, slices.Repeat([]float64{1}, 10), 0.01, 2))
	if err := gen.History(ctx, ds, dir, runs, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	db := open(t)
	for _, table := range []string{"runs", "metrics"} {
		q := fmt.Sprintf(`COPY (SELECT * EXCLUDE ("table") FROM read_parquet('%s/table=%s/**/*.parquet', hive_partitioning=1))
			TO '%s/table=%s' (FORMAT parquet, PARTITION_BY (tool, run_id))`, ds, table, out, table)
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want, err := analysis.Trend(ctx, ds, analysis.TrendOptions{Since: "a-0006"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := analysis.Trend(ctx, out, analysis.TrendOptions{Since: "a-0006"})
	if err != nil {
		t.Fatal(err)
	}
	if w, g := fmt.Sprintf("%+v", *want.Gate), fmt.Sprintf("%+v", *got.Gate); w != g {
		t.Errorf("gate of the DuckDB rewrite %s, want %s", g, w)
	}
	wg, gg := want.Gate, got.Gate
	want.Dataset, got.Dataset, want.Gate, got.Gate = "", "", nil, nil
	if w, g := fmt.Sprintf("%+v", *want), fmt.Sprintf("%+v", *got); w != g {
		i := 0
		for i < min(len(w), len(g)) && w[i] == g[i] {
			i++
		}
		lo := max(0, i-300)
		t.Errorf("trend of the DuckDB rewrite differs at byte %d:\n got ...%.600s\nwant ...%.600s", i, g[lo:], w[lo:])
	}
	if len(got.Series) != 2 || gg.Pass || wg.Pass {
		t.Fatalf("series %d, gate %+v", len(got.Series), gg)
	}
	if s := fmt.Sprint(gg.Failures); !strings.Contains(s, "a-0008") {
		t.Errorf("gate failures %s", s)
	}
}
