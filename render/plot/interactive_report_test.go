package plot_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/verdict-llm/verdict/render/plot"
)

var hoverTitle = regexp.MustCompile(`<circle class="pt" cx="[-0-9.e]+" cy="[-0-9.e]+" r="4" fill="#[0-9a-f]{6}" fill-opacity="0"><title>[^<]+: [^<]+ [-0-9.e]+[^<]*, [^<]+ [-0-9.e]+[^<]*</title></circle>`)

// TestFiguresHaveSeries: every figure of the report and of the capacity
// view that has named series marks them (render/plot/interactive.go):
// series groups and hover points titled "series: x, y" with units; the
// cost bars, one unnamed series, have none. (A figure whose series lost
// their tagSeries would fail here.)
func TestFiguresHaveSeries(t *testing.T) {
	figs, _, err := plot.Report(syntheticReport(), plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cf, _, err := plot.Capacity(capacityResult(t), plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(figs, cf...) {
		groups := bytes.Count(f.SVG, []byte(`<g class="series" data-series="`))
		points := len(hoverTitle.FindAll(f.SVG, -1))
		switch f.Name {
		case "cost-per-1m-output-tokens":
			if groups != 0 || points != 0 {
				t.Errorf("%s: %d series groups and %d hover points, want none", f.Name, groups, points)
			}
		default:
			if groups == 0 || points == 0 {
				t.Errorf("%s: %d series groups and %d hover points, want some", f.Name, groups, points)
			}
		}
	}
}
