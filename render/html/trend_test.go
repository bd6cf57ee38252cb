package html_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
)

// handTrend is a trend of two series by hand: the first, with a hostile
// name, has its p99 TTFT rise by 20% at its fifth run (a regression) and
// one run left out; the second has three runs, too few.
func handTrend() *analysis.TrendReport {
	m := analysis.TrendMetric{Stat: analysis.TrendStat{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}, Name: "TTFT",
		Unit: schemas.UnitSeconds, Direction: schemas.LowerIsBetter}
	a := analysis.TrendSeries{Name: hostileLabel + " GPU-0", Excluded: []analysis.TrendExcluded{{RunID: "a-x", Reasons: []string{"V003: the dataset differs"}}}}
	for i := range 8 {
		id := fmt.Sprintf("a-%d", i)
		a.Runs = append(a.Runs, analysis.TrendRun{RunID: id, Order: fmt.Sprintf("v0.%d", i)})
		v := 0.5
		if i >= 4 {
			v = 0.6
		}
		m.Points = append(m.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: v, SE: 0.005})
	}
	m.Changes = []analysis.TrendChange{{Index: 4, RunID: "a-4", Order: "v0.4", Before: 0.5, After: 0.6, Relative: 0.2, Lo: 0.18, Hi: 0.22,
		P: 0.005, Direction: "bad", Regression: true, PHolm: math.NaN()}}
	a.Metrics = []analysis.TrendMetric{m}
	b := analysis.TrendSeries{Name: "GPU-1"}
	short := m
	short.Points, short.Changes, short.Note = nil, nil, "3 values: too few to look for a change"
	for i := range 3 {
		id := fmt.Sprintf("b-%d", i)
		b.Runs = append(b.Runs, analysis.TrendRun{RunID: id, Order: fmt.Sprintf("v0.%d", i)})
		short.Points = append(short.Points, analysis.TrendPoint{RunID: id, Order: fmt.Sprintf("v0.%d", i), Value: 0.7, SE: math.NaN()})
	}
	b.Metrics = []analysis.TrendMetric{short}
	b.Notes = []string{"3 comparable runs: too few to look for a change (at least 6: segments of at least 3 runs); no change is claimed"}
	return &analysis.TrendReport{Dataset: "history.dataset", By: "label:engine_version", MinChange: 0.02, Series: []analysis.TrendSeries{a, b}}
}

// tinySVG stands for a series' figure (render/plot tests the drawing).
const tinySVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt" viewBox="0 0 10 10"><path d="M1,1L1,9" style="stroke:#D62728"/></svg>`

// TestTrendSection: the trend section (verdict report --trend) holds
// the trend's summary, each series' figure above its table of change
// points, the regression named, and hostile text escaped; without
// bundles the page is the trend section alone. Golden: the section.
func TestTrendSection(t *testing.T) {
	rep := &analysis.Report{Title: "nightly trend", Trend: handTrend()}
	o := html.Options{TrendFigures: []html.Figure{{Name: "trend-1-gpu-0", Title: "Trend of GPU-0", Caption: "The series' runs in order.", SVG: []byte(tinySVG)}, {}}}
	var buf bytes.Buffer
	if err := html.WriteTo(context.Background(), &buf, rep, o); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	sec := regexp.MustCompile(`(?s)<section id="trend">.*?</section>\n`).FindString(page)
	if sec == "" {
		t.Fatal("no trend section")
	}
	testkit.Golden(t, filepath.Join("testdata", "trend-section.html"), []byte(sec))
	for _, want := range []string{`<figure id="figure-trend-1-gpu-0">`, `<svg class="figure" role="img" xmlns=`, "yes", "&#43;20.0% [&#43;18.0%, &#43;22.0%]",
		"a-4 (v0.4)", "too few runs", "left out: a-x: V003: the dataset differs", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the trend section lacks %q", want)
		}
	}
	if strings.Contains(sec, "<script>alert") {
		t.Error("the hostile series name reached the page unescaped")
	}
	// The figure sits above its own series' table; the second series
	// (no figure) has none.
	fig, t1, t2 := strings.Index(sec, "<figure"), strings.Index(sec, `id="table-trend-1"`), strings.Index(sec, `id="table-trend-2"`)
	if !(fig >= 0 && fig < t1 && t1 < t2) || strings.Count(sec, "<figure") != 1 {
		t.Errorf("figure at %d, tables at %d and %d, %d figures", fig, t1, t2, strings.Count(sec, "<figure"))
	}
	// No bundles: no verdict, summary, figures or bundle sections.
	for _, absent := range []string{`<section id="verdict">`, `<section id="summary">`, `<section id="figures">`, `<section id="inventory">`, `<section id="definitions">`} {
		if strings.Contains(page, absent) {
			t.Errorf("a report of a trend alone has %s", absent)
		}
	}
	for _, want := range []string{`<a href="#trend">Trend</a>`, "the history in <code>history.dataset</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// An unsafe trend figure is refused as any other.
	o.TrendFigures[0].SVG = []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	if err := html.WriteTo(context.Background(), &bytes.Buffer{}, rep, o); err == nil {
		t.Error("accepted a trend figure with a script")
	}
}

// TestChromiumTrend loads a report of a trend alone, with plot.Trend's
// figures, in headless Chromium with the network off: both figures
// render, nothing is blocked or broken, no console message.
func TestChromiumTrend(t *testing.T) {
	dir := t.TempDir()
	rep := &analysis.Report{Title: "nightly trend", Trend: handTrend()}
	figs, skipped, err := plot.Trend(rep.Trend, plot.Options{})
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	css, err := plot.FontFaceCSS()
	if err != nil {
		t.Fatal(err)
	}
	o := html.Options{FontCSS: css}
	for _, f := range figs {
		o.TrendFigures = append(o.TrendFigures, html.Figure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: f.SVG})
	}
	path := filepath.Join(dir, "trend.html")
	if err := html.Write(context.Background(), path, rep, o); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 1400, 1000)
	b.load(t, path)
	if c := b.selfCheck(t); c.Figures != 2 || c.Rendered != 2 {
		t.Errorf("%d of %d figures rendered, want 2 of 2", c.Rendered, c.Figures)
	} else if c.Broken != 0 {
		t.Errorf("%d broken images", c.Broken)
	}
	dom := eval[string](t, b, `document.documentElement.outerHTML`)
	for _, want := range []string{`<figure id="figure-trend-1-script-alert-1-script-img-src-x-onerror-alert-2-gpu-0">`, "TTFT p99: REGRESSION", "<h3>Series GPU-1</h3>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}
	for _, p := range b.Problems() {
		t.Errorf("with the network off: %s", p)
	}
}
