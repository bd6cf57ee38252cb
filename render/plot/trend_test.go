package plot_test

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
)

// trendReport is a hand-made trend of two series: GPU-0, whose p99 TTFT
// rises by 20% at its seventh run (a regression) and whose throughput
// rises by 5% at its fourth (a good change), and GPU-1 with three runs,
// too few to look for a change.
func trendReport() *analysis.TrendReport {
	ttft := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}, Name: "TTFT",
		Unit: schemas.UnitSeconds, Direction: schemas.LowerIsBetter}
	tput := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.OutputTokenThroughput, Stat: schemas.StatValue}, Name: "Output token throughput",
		Unit: schemas.UnitTokensPerSecond, Direction: schemas.HigherIsBetter}
	s := analysis.TrendSeries{Name: "GPU-0 vllm org/model-8b", Excluded: []analysis.TrendExcluded{{RunID: "gpu0-x", Reasons: []string{"V003: another dataset"}}}}
	for i := range 12 {
		id, order := fmt.Sprintf("gpu0-%02d", i), fmt.Sprintf("v0.%d", i)
		s.Runs = append(s.Runs, analysis.TrendRun{RunID: id, Order: order})
		lat := 0.5 * (1 + 0.01*math.Sin(float64(i)))
		if i >= 6 {
			lat *= 1.2
		}
		ttft.Points = append(ttft.Points, analysis.TrendPoint{RunID: id, Order: order, Value: lat, SE: 0.004})
		thr := 1000 * (1 + 0.005*math.Cos(float64(i)))
		if i >= 3 {
			thr *= 1.05
		}
		tput.Points = append(tput.Points, analysis.TrendPoint{RunID: id, Order: order, Value: thr, SE: math.NaN()})
	}
	ttft.Changes = []analysis.TrendChange{{Index: 6, RunID: "gpu0-06", Order: "v0.6", Before: 0.502, After: 0.603, Relative: 0.201, Lo: 0.19, Hi: 0.212,
		P: 0.005, Direction: "bad", Regression: true, PHolm: math.NaN()}}
	tput.Changes = []analysis.TrendChange{{Index: 3, RunID: "gpu0-03", Order: "v0.3", Before: 1001, After: 1051, Relative: 0.05, Lo: 0.04, Hi: 0.06,
		P: 0.01, Direction: "good", PHolm: math.NaN()}}
	s.Metrics = []analysis.TrendMetric{ttft, tput}
	short := analysis.TrendSeries{Name: "GPU-1 vllm org/model-8b"}
	m := ttft
	m.Points, m.Changes, m.Note = nil, nil, "3 values: too few to look for a change"
	for i := range 3 {
		id := fmt.Sprintf("gpu1-%02d", i)
		short.Runs = append(short.Runs, analysis.TrendRun{RunID: id, Order: fmt.Sprintf("v0.%d", i)})
		m.Points = append(m.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: 0.7, SE: math.NaN()})
	}
	short.Metrics = []analysis.TrendMetric{m}
	return &analysis.TrendReport{Dataset: "history.dataset", By: "label:engine_version", MinChange: 0.02, Series: []analysis.TrendSeries{s, short}}
}

// TestTrendFigures: one figure per series, deterministic, matching its
// golden SVG; the regression's change point is drawn as a red vertical
// line between the sixth and seventh runs and named in the legend.
func TestTrendFigures(t *testing.T) {
	tr := trendReport()
	figs, skipped, err := plot.Trend(tr, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || len(skipped) != 0 {
		t.Fatalf("%d figures, skipped %v", len(figs), skipped)
	}
	again, _, err := plot.Trend(tr, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range figs {
		if !bytes.Equal(f.SVG, again[i].SVG) || !bytes.Equal(f.PNG, again[i].PNG) {
			t.Errorf("%s: output differs between two runs", f.Name)
		}
		golden(t, f.Name+".svg", f.SVG, bytes.Equal)
	}
	f := figs[0]
	if f.Name != "trend-1-gpu-0-vllm-org-model-8b" || f.Title != "Trend of GPU-0 vllm org/model-8b" || len(f.PNG) == 0 {
		t.Errorf("figure %q %q, %d PNG bytes", f.Name, f.Title, len(f.PNG))
	}
	svg := string(f.SVG)
	for _, want := range []string{"TTFT p99: REGRESSION", "REGRESSION +20.1% [+19.0%, +21.2%] from run 7 (gpu0-06)",
		"good change +5.0% [+4.0%, +6.0%] from run 4 (gpu0-03)", "segment mean", "TTFT (ms)", "Output token throughput (tokens/s)", "run in order of label:engine_version"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	for _, want := range []string{"run 1 is gpu0-00, v0.0; run 12 is gpu0-11, v0.11", "1 run not comparable"} {
		if !strings.Contains(f.Caption, want) {
			t.Errorf("caption lacks %q: %s", want, f.Caption)
		}
	}
	// The markers: dashed vertical paths (gonum writes a line as
	// d="Mx,yLx,y"), red for the regression, between the glyphs of the
	// sixth and seventh runs (the first panel's first twelve circles),
	// and green for the good change.
	var centres []float64
	for _, m := range regexp.MustCompile(`<path d="M([0-9.]+),[0-9.]+A2\.2,2\.2 [^"]*" style="fill:#1F77B4" />`).FindAllStringSubmatch(svg, 12) {
		x, _ := strconv.ParseFloat(m[1], 64)
		centres = append(centres, x-2.2)
	}
	vertical := func(colour string) []float64 {
		var xs []float64
		re := regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)" style="fill:none;stroke:` + colour + `;stroke-width:1.6;stroke-dasharray:5,3" />`)
		for _, m := range re.FindAllStringSubmatch(svg, -1) {
			if m[1] == m[3] && m[2] != m[4] {
				x, _ := strconv.ParseFloat(m[1], 64)
				xs = append(xs, x)
			}
		}
		return xs
	}
	red := vertical("#D62728")
	if len(centres) != 12 || len(red) != 1 || !(centres[5] < red[0] && red[0] < centres[6]) {
		t.Errorf("regression marker at %v, runs at %v", red, centres)
	}
	if green := vertical("#2CA02C"); len(green) != 1 {
		t.Errorf("%d good-change markers, want 1", len(green))
	}
	if short := string(figs[1].SVG); !strings.Contains(short, "too few runs to look for a change") || strings.Contains(short, "REGRESSION") {
		t.Error("the short series' figure does not say it is too short")
	}
	// A series without values is skipped with its reason.
	empty := &analysis.TrendReport{By: "created", Series: []analysis.TrendSeries{{Name: "none"}}}
	figs, skipped, err = plot.Trend(empty, plot.Options{})
	if err != nil || len(figs) != 1 || figs[0].SVG != nil || len(skipped) != 1 {
		t.Errorf("empty series: %v %v %v", figs, skipped, err)
	}
}

// TestTrendLongSeries: beyond TrendBandFrom runs the intervals are a
// shaded band around a line (no glyph or bar per run), which keeps the
// SVG small; the change point is still marked.
func TestTrendLongSeries(t *testing.T) {
	for _, n := range []int{plot.TrendBandFrom, 200} {
		m := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}, Name: "TTFT",
			Unit: schemas.UnitSeconds, Direction: schemas.LowerIsBetter}
		s := analysis.TrendSeries{Name: "long"}
		for i := range n {
			id := fmt.Sprintf("r%03d", i)
			v := 0.5 * (1 + 0.01*math.Sin(float64(i)))
			if i >= n/2 {
				v *= 1.2
			}
			s.Runs = append(s.Runs, analysis.TrendRun{RunID: id, Order: id})
			m.Points = append(m.Points, analysis.TrendPoint{RunID: id, Order: id, Value: v, SE: 0.004})
		}
		m.Changes = []analysis.TrendChange{{Index: n / 2, RunID: fmt.Sprintf("r%03d", n/2), Before: 0.5, After: 0.6, Relative: 0.2, Lo: 0.19, Hi: 0.21,
			P: 0.005, Direction: "bad", Regression: true, PHolm: math.NaN()}}
		s.Metrics = []analysis.TrendMetric{m}
		figs, _, err := plot.Trend(&analysis.TrendReport{By: "created", MinChange: 0.02, Series: []analysis.TrendSeries{s}}, plot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		svg := string(figs[0].SVG)
		glyphs := strings.Count(svg, "A2.2,2.2")
		band := strings.Contains(svg, "band: 95 % interval")
		if n > plot.TrendBandFrom {
			if glyphs != 0 || !band || len(svg) > 40_000 {
				t.Errorf("%d runs: %d glyphs, band %v, %d bytes of SVG", n, glyphs, band, len(svg))
			}
		} else if glyphs != 2*(n+1) || band { // two arcs per glyph: the runs and the legend's
			t.Errorf("%d runs: %d glyphs, band %v", n, glyphs, band)
		}
		if !strings.Contains(svg, fmt.Sprintf("REGRESSION +20.0%% [+19.0%%, +21.0%%] from run %d", n/2+1)) || !strings.Contains(svg, "stroke:#D62728;stroke-width:1.6;stroke-dasharray:5,3") {
			t.Errorf("%d runs: the regression is not marked", n)
		}
	}
}
