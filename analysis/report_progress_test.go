package analysis_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
)

// statsCounter is a fake analysis.StatsProgress: per bundle, its steps
// and the updates it got.
type statsCounter struct {
	bundles []string
	steps   []int
	updates [][]int
	done    []int // updates with done set
}

func (c *statsCounter) Stats(bundle string, steps int) func(int, bool) {
	k := len(c.bundles)
	c.bundles, c.steps = append(c.bundles, filepath.Base(bundle)), append(c.steps, steps)
	c.updates, c.done = append(c.updates, nil), append(c.done, 0)
	return func(n int, done bool) {
		c.updates[k] = append(c.updates[k], n)
		if done {
			c.done[k]++
		}
	}
}

// TestReportStatsProgress: the statistics phase reports, per bundle, one
// step per run and per-request metric, counting up to its total, done
// once at the end.
func TestReportStatsProgress(t *testing.T) {
	dirs := demoBundles(t, t.TempDir())
	c := &statsCounter{}
	rep, err := analysis.LoadReport(context.Background(), dirs, analysis.ReportOptions{Resamples: 200, Progress: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.bundles) != 2 || c.bundles[0] != "platform-a.bundle" || c.bundles[1] != "platform-b.bundle" {
		t.Fatalf("bundles %v", c.bundles)
	}
	runs := map[string]int{}
	for _, r := range rep.Runs {
		runs[filepath.Base(r.Bundle)]++
	}
	for k, b := range c.bundles {
		want := runs[b] * len(analysis.SeriesMetrics)
		if c.steps[k] != want || want == 0 {
			t.Errorf("%s: %d steps, want %d", b, c.steps[k], want)
		}
		u := c.updates[k]
		if len(u) != want || u[len(u)-1] != want || c.done[k] != 1 {
			t.Errorf("%s: updates %v (done %d times), want 1..%d, done once", b, u, c.done[k], want)
		}
		for i, n := range u {
			if n != i+1 {
				t.Errorf("%s: update %d is %d", b, i, n)
				break
			}
		}
	}
}
