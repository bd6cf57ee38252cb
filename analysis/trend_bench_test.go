package analysis_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/gen"
)

// BenchmarkTrend10kRuns runs verdict trend over a dataset of 10,000 runs:
// 50 configurations of 200 nightly runs each, every fifth with a 20% step
// at run 150, the rest noise; eight statistics each (400 series ×
// statistic tests), gated since 2026-05-01 (run 120). The dataset is
// written once, outside the timing.
func BenchmarkTrend10kRuns(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	ds := filepath.Join(dir, "ds")
	var runs []gen.HistoryRun
	for c := range 50 {
		lv := slices.Repeat([]float64{1}, 200)
		if c%5 == 0 {
			for i := 150; i < 200; i++ {
				lv[i] = 1.2
			}
		}
		runs = append(runs, gen.HistoryRuns("c"+string(rune('a'+c/26))+string(rune('a'+c%26)), c, lv, 0.02, uint64(c))...)
	}
	if err := gen.History(ctx, ds, dir, runs, 1000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := analysis.Trend(ctx, ds, analysis.TrendOptions{Since: "2026-05-01"})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Series) != 50 || rep.Gate.Pass {
			b.Fatalf("%d series, gate %+v", len(rep.Series), rep.Gate)
		}
	}
}
