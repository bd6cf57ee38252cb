package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/verdict-llm/verdict/analysis"
)

// trendZ is the normal quantile of the runs' 95 % intervals in the
// trend figures (value ± z standard errors; docs/trend.md, section 2).
const trendZ = 1.959963984540054

// Colours of the trend figures' change points: a regression, another
// bad change, a good one (or one of a metric without a direction).
var (
	regressionColor = palette[3] // red
	badColor        = palette[1] // orange
	goodColor       = palette[2] // green
	levelColor      = color.RGBA{A: 255}
)

// Trend draws one figure per series of a trend (verdict report --trend):
// a panel per statistic with each run's value in order and its 95 %
// interval (value ± 1.96 standard errors, where the run's metrics rows
// give one) as bars (a line in a shaded band beyond TrendBandFrom runs),
// the segment means between change points as a step
// line, and each change point as a vertical line between the last run
// before and the first after it, red and named in the legend for a
// regression. figs[i] is series i's figure; a series with nothing to draw
// has a zero Figure (no SVG) and a line in skipped.
func Trend(tr *analysis.TrendReport, o Options) (figs []Figure, skipped []string, err error) {
	figs = make([]Figure, len(tr.Series))
	for i, s := range tr.Series {
		var panels []*plot.Plot
		for _, m := range s.Metrics {
			p, err := trendPanel(m, tr.By)
			if err := collect(&panels, &skipped, "trend of "+s.Name+", "+m.Stat.Label()+": no finite value", p, err); err != nil {
				return nil, nil, err
			}
		}
		if len(panels) == 0 {
			skipped = append(skipped, "trend of "+s.Name+": no statistic to draw")
			continue
		}
		const cols = 2
		var rows [][]*plot.Plot
		for k := 0; k < len(panels); k += cols {
			row := make([]*plot.Plot, cols)
			copy(row, panels[k:min(k+cols, len(panels))])
			rows = append(rows, row)
		}
		if len(panels) == 1 {
			rows = [][]*plot.Plot{{panels[0]}}
		}
		w := vg.Length(len(rows[0])) * 6 * vg.Inch
		h := vg.Length(len(rows)) * 3.6 * vg.Inch
		name := fmt.Sprintf("trend-%d-%s", i+1, FileStem(s.Name))
		var add []Figure
		if err := figureAdder(o, &add)(name, "Trend of "+s.Name, trendCaption(tr, s), w, h, rows); err != nil {
			return nil, nil, err
		}
		figs[i] = add[0]
	}
	return figs, skipped, nil
}

// trendCaption says what a series' figure shows and how to read it.
func trendCaption(tr *analysis.TrendReport, s analysis.TrendSeries) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Each statistic of the series' runs in order of %s", tr.By)
	if n := len(s.Runs); n > 0 {
		fmt.Fprintf(&b, " (run 1 is %s, %s; run %d is %s, %s)", s.Runs[0].RunID, s.Runs[0].Order, n, s.Runs[n-1].RunID, s.Runs[n-1].Order)
	}
	fmt.Fprintf(&b, ". Bars (a shaded band beyond %d runs): each run's 95 %% interval", TrendBandFrom)
	b.WriteString(" (± 1.96 standard errors from its stored percentiles or standard deviation; none for throughputs). ")
	b.WriteString("Black steps: the segment means between change points. Vertical lines: E-Divisive change points, red for a regression (a bad change beyond ")
	b.WriteString(strings.TrimPrefix(fmt.Sprintf("%+.1f%%", 100*tr.MinChange), "+"))
	b.WriteString(" whose interval excludes no change), orange for another bad change, green for a good one; the legend names each with its size and first run.")
	if len(s.Excluded) > 0 {
		fmt.Fprintf(&b, " %d %s not comparable with the series %s left out (see the table).", len(s.Excluded), pluralWord(len(s.Excluded), "run", "runs"), pluralWord(len(s.Excluded), "is", "are"))
	}
	return b.String()
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// trendPanel draws one statistic of a series.
func trendPanel(m analysis.TrendMetric, by string) (*plot.Plot, error) {
	typical := 0.0
	for _, pt := range m.Points {
		typical = math.Max(typical, math.Abs(finiteOr(pt.Value, 0)))
	}
	scale, ulabel := Scale(m.Unit, typical)
	// "TTFT p99", "Output token throughput" (a run's single value).
	title := m.Stat.Label()
	if _, stat, _ := strings.Cut(title, ":"); m.Name != "" {
		title = m.Name
		if stat != "value" {
			title += " " + stat
		}
	}
	switch {
	case slices.ContainsFunc(m.Changes, func(c analysis.TrendChange) bool { return c.Regression }):
		title += ": REGRESSION"
	case len(m.Changes) == 0 && strings.Contains(m.Note, "too few"):
		title += ": too few runs to look for a change"
	}
	ylabel := ulabel
	if m.Name != "" {
		ylabel = fmt.Sprintf("%s (%s)", m.Name, ulabel)
	}
	p := newPlot(title, "run in order of "+by, ylabel)
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Tick.Marker = intTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(10)

	var d errPoints
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pt := range m.Points {
		if !isFinite(pt.Value) {
			continue
		}
		v := pt.Value * scale
		e := 0.0
		if isFinite(pt.SE) && pt.SE > 0 {
			e = trendZ * pt.SE * scale
		}
		d.XYs = append(d.XYs, plotter.XY{X: float64(i + 1), Y: v})
		d.YErrors = append(d.YErrors, struct{ Low, High float64 }{Low: e, High: e})
		lo, hi = math.Min(lo, v-e), math.Max(hi, v+e)
	}
	if len(d.XYs) == 0 {
		return nil, errNoData
	}
	n := len(m.Points)
	changes := slices.Clone(m.Changes)
	slices.SortFunc(changes, func(a, b analysis.TrendChange) int { return cmp.Compare(a.Index, b.Index) })
	for _, c := range changes {
		for _, v := range []float64{c.Before, c.After} {
			if isFinite(v) {
				lo, hi = math.Min(lo, v*scale), math.Max(hi, v*scale)
			}
		}
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi)*0.1, 1e-9)
	}
	entries := 1 + len(changes)
	if len(changes) > 0 {
		entries++
	}
	p.Y.Min = lo - 0.08*span
	top := hi + 0.08*span                             // where the change-point lines end
	p.Y.Max = top + span*(0.05+0.12*float64(entries)) // headroom for the legend
	p.X.Min, p.X.Max = 0.5, float64(n)+0.5

	if err := addRuns(p, d, n > TrendBandFrom); err != nil {
		return nil, err
	}

	if len(changes) > 0 {
		// Segment means: [0, c1), [c1, c2), ..., [ck, n), drawn over the
		// runs' positions (1-based) from half a run before to half after.
		var steps plotter.XYs
		start := 0
		level := changes[0].Before
		for k := 0; k <= len(changes); k++ {
			end := n
			if k < len(changes) {
				end = changes[k].Index
			}
			if isFinite(level) && end > start {
				steps = append(steps, plotter.XY{X: float64(start) + 0.5, Y: level * scale}, plotter.XY{X: float64(end) + 0.5, Y: level * scale})
			}
			if k < len(changes) {
				start, level = changes[k].Index, changes[k].After
			}
		}
		if len(steps) > 0 {
			sl, err := plotter.NewLine(steps)
			if err != nil {
				return nil, err
			}
			sl.LineStyle = draw.LineStyle{Color: levelColor, Width: vg.Points(1.4)}
			p.Add(sl)
			p.Legend.Add("segment mean", sl)
		}
	}
	for _, c := range changes {
		x := float64(c.Index) + 0.5
		vl, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: top}})
		if err != nil {
			return nil, err
		}
		col, word := goodColor, "change"
		switch {
		case c.Regression:
			col, word = regressionColor, "REGRESSION"
		case c.Direction == "bad":
			col, word = badColor, "bad change"
		case c.Direction == "good":
			word = "good change"
		}
		vl.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		p.Add(vl)
		p.Legend.Add(fmt.Sprintf("%s %s from run %d (%s)", word, changeText(c), c.Index+1, c.RunID), vl)
	}
	return p, nil
}

// TrendBandFrom is the series length beyond which the runs are drawn as
// a line in a shaded band of their intervals rather than as points with
// bars: three paths per run would make a long series' SVG heavy (about
// 0.7 MB for 8 statistics of 200 runs) and its bars unreadable.
const TrendBandFrom = 60

// addRuns draws the runs' values with their intervals: points with bars,
// or (band) a line in a shaded band.
func addRuns(p *plot.Plot, d errPoints, band bool) error {
	blue := palette[0]
	if band {
		upper, lower := make(plotter.XYs, len(d.XYs)), make(plotter.XYs, len(d.XYs))
		for i, q := range d.XYs {
			upper[i] = plotter.XY{X: q.X, Y: q.Y + d.YErrors[i].High}
			lower[len(d.XYs)-1-i] = plotter.XY{X: q.X, Y: q.Y - d.YErrors[i].Low}
		}
		poly, err := plotter.NewPolygon(append(upper, lower...))
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{R: blue.R, G: blue.G, B: blue.B, A: 60}
		poly.LineStyle = draw.LineStyle{Color: color.Transparent, Width: 0}
		l, err := plotter.NewLine(d.XYs)
		if err != nil {
			return err
		}
		l.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1)}
		const runs = "run's value (band: 95 % interval)"
		p.Add(tagSeries(runs, poly, l))
		p.Legend.Add(runs, l, poly)
		return nil
	}
	l, sc, err := plotter.NewLinePoints(d.XYs)
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: color.NRGBA{R: blue.R, G: blue.G, B: blue.B, A: 110}, Width: vg.Points(0.8)}
	sc.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	ye, err := plotter.NewYErrorBars(d)
	if err != nil {
		return err
	}
	ye.LineStyle.Color = blue
	ye.LineStyle.Width = vg.Points(0.8)
	ye.CapWidth = vg.Points(4)
	const runs = "run's value (bars: 95 % interval)"
	p.Add(tagSeries(runs, l, ye, sc))
	p.Legend.Add(runs, sc)
	return nil
}

// changeText is "+20.1% [+18.0%, +22.3%]" (render.changeSize's form).
func changeText(c analysis.TrendChange) string {
	pct := func(x float64) string {
		if !isFinite(x) {
			return "?"
		}
		return fmt.Sprintf("%+.1f%%", 100*x)
	}
	s := pct(c.Relative)
	if isFinite(c.Lo) && isFinite(c.Hi) {
		s += " [" + pct(c.Lo) + ", " + pct(c.Hi) + "]"
	}
	return s
}

// intTicks puts ticks at whole run positions: every 1, 2, 5, 10, 20, ...
// runs, so that at most about ten are labelled.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := int(math.Ceil(lo)), int(math.Floor(hi))
	if last < first {
		return nil
	}
	step := 1
	for k := 0; (last-first)/step > 10; k++ {
		step = []int{2, 5, 10}[k%3] * int(math.Pow10(k/3))
	}
	var ts []plot.Tick
	for v := first; v <= last; v++ {
		t := plot.Tick{Value: float64(v)}
		if v%step == 0 {
			t.Label = fmt.Sprint(v)
		}
		if t.Label != "" || step <= 5 {
			ts = append(ts, t)
		}
	}
	return ts
}
