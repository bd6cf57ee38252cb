package plot_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
)

// capacityResult is the capacity view of the hand-made sweep.
func capacityResult(t *testing.T) *analysis.CapacityResult {
	t.Helper()
	dir := t.TempDir()
	var dirs []string
	for _, p := range []string{"h100", "l40s"} {
		inv, err := schemas.LoadInventory("../../testdata/capacity/sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob("../../testdata/capacity/" + p + "/*.json")
		dest := filepath.Join(dir, p+".bundle")
		if _, err := ingest.ToBundle(context.Background(), files, dest, ingest.Options{Formats: all.Formats(), SUT: inv}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dest)
	}
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms,tpot:p99<=80ms")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), dirs, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCapacityFigures(t *testing.T) {
	res := capacityResult(t)
	figs, skipped, err := plot.Capacity(res, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 3 || len(skipped) != 0 {
		t.Fatalf("%d figures, skipped %v", len(figs), skipped)
	}
	want := map[string][]string{
		"capacity":                       {"ttft:p99&lt;=500ms", "tpot:p99&lt;=80ms", "h100.bundle capacity", "limit", "offered request rate"},
		"capacity-latency-vs-throughput": {"TTFT vs output token throughput", "l40s.bundle p99", "E2E latency vs request throughput", "achieved request throughput (requests/s)", "TPOT vs output tokens/s per GPU"},
		"pareto-frontier":                {"output tokens/s per GPU", "1/median TPOT"},
	}
	for _, f := range figs {
		for _, s := range want[f.Name] {
			if !bytes.Contains(f.SVG, []byte(s)) {
				t.Errorf("%s: the SVG lacks %q", f.Name, s)
			}
		}
		if len(f.PNG) == 0 || f.Caption == "" {
			t.Errorf("%s: no PNG or caption", f.Name)
		}
	}
	// Without configurations every figure is skipped with its reason: the
	// curves, each of the 9 latency panels (3 latencies x 3 throughputs),
	// the frontier.
	figs, skipped, err = plot.Capacity(&analysis.CapacityResult{}, plot.Options{})
	if err != nil || len(figs) != 0 || len(skipped) != 11 {
		t.Errorf("empty: %d figures, %v, %v", len(figs), skipped, err)
	}
}
