// Package plot draws verdict's report figures with gonum/plot, as SVG and
// PNG: ECDFs (each run's p50 and p99 marked) and histograms of TTFT,
// TPOT, ITL and E2E with every run on shared axes, latency against
// throughput with one curve per platform through its load points
// (repeats drawn around their median) and interval bars, GPU utilization
// (0-100 %), memory and power over time with the run window shaded on
// every panel, and cost per 1M output tokens by run with intervals. Text
// is Liberation Sans; legends sit outside the data area (drawPanel).
//
// It sits after render's report view: [Report] reads a *analysis.Report and
// returns [Figure] values, whose bytes the HTML report inlines, the
// workbook embeds and `verdict report --plots DIR` writes. Every figure
// states its metric, unit and population in its title and axis labels, and
// names runs in its legend, so that it can be read without the code.
//
// Output is deterministic: the same report gives byte-identical SVG and
// PNG. NaN and infinite values, which gonum/plot refuses, are filtered out
// before plotting (and counted in the figure's caption).
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/verdict-llm/verdict/render"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Options configure the figures. The zero value is valid.
type Options struct {
	// DPI is the PNG resolution; 0 means 96.
	DPI int
	// EmbedFonts embeds the fonts in each SVG, which makes it portable and
	// about 0.5 MB larger. The HTML report embeds them once instead
	// (FontFaceCSS).
	EmbedFonts bool
	// MaxPoints bounds the points of one ECDF line; larger samples are
	// drawn through MaxPoints evenly spaced quantiles. 0 means 2000.
	MaxPoints int
	// Bins is the number of histogram bins; 0 means 40.
	Bins int
}

// A Figure is one rendered chart.
type Figure struct {
	// Name is a file stem: lower-case letters, digits and dashes.
	Name string
	// Title says what the figure shows; Caption adds how to read it.
	Title, Caption string
	// Width and Height are the figure's size.
	Width, Height vg.Length
	SVG, PNG      []byte
}

// palette is Tableau 10: distinct for up to ten runs, then dashes vary.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// lineStyle is series i's style.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.5), Dashes: dashes[(i/len(palette))%len(dashes)]}
}

// A Series is one run's values of one quantity. For a sample too large
// to hold, Values may be evenly spaced quantiles of it (its ECDF at that
// resolution) and N its size; N = 0 means len(Values).
type Series struct {
	Name   string
	Values []float64
	N      int
}

// size is the number of observations a series stands for.
func (s Series) size(finite int) int {
	if s.N > 0 {
		return s.N
	}
	return finite
}

// finite returns the finite values of xs, sorted, and how many were
// dropped.
func finite(xs []float64) ([]float64, int) {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out, len(xs) - len(out)
}

// Scale chooses a display unit for values stored in unit: milliseconds
// for durations under a second, gibibytes for bytes.
func Scale(unit string, typical float64) (factor float64, label string) {
	switch unit {
	case schemas.UnitSeconds:
		if math.Abs(typical) < 1 {
			return 1e3, "ms"
		}
		return 1, "s"
	case schemas.UnitBytes:
		return 1.0 / (1 << 30), "GiB"
	case schemas.UnitRatio:
		return 100, "%"
	}
	return 1, unit
}

// ticks places 5 to 8 labelled ticks at a round step (1, 2, 2.5 or 5
// times a power of ten) with an unlabelled tick halfway between, labelled
// with at most four significant digits ("25", not "25.00"). gonum's
// DefaultTicks labels only 3 or 4, too few to read a value off a large
// figure.
type ticks struct{}

// tickCounts are the wanted numbers of labelled ticks, best first.
var tickCounts = []int{6, 7, 5, 8}

func (ticks) Ticks(min, max float64) []plot.Tick {
	if !isFinite(min) || !isFinite(max) || max <= min {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	step, best := 0.0, math.MaxInt
	e := math.Floor(math.Log10(max - min))
	for k := e - 2; k <= e+1; k++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			st := m * math.Pow(10, k)
			n := int(math.Floor(max/st+1e-9) - math.Ceil(min/st-1e-9) + 1)
			rank := len(tickCounts) + absInt(n-6) // outside 5-8: the nearest
			if i := slices.Index(tickCounts, n); i >= 0 {
				rank = i
			}
			if rank < best {
				step, best = st, rank
			}
		}
	}
	var ts []plot.Tick
	half := step / 2
	for i := math.Ceil(min/half - 1e-9); i*half <= max+1e-9*step; i++ {
		v := i * half
		if math.Abs(v) < 1e-12*step {
			v = 0
		}
		t := plot.Tick{Value: v}
		if math.Mod(i, 2) == 0 {
			t.Label = render.Sig(v, 4)
		}
		ts = append(ts, t)
	}
	return ts
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// sansFont is the figures' typeface: Liberation Sans (gonum/plot's
// Liberation collection, font variant "Sans"), metrically compatible with
// Arial, as the HTML report's text.
var sansFont = font.Font{Typeface: plot.DefaultFont.Typeface, Variant: "Sans"}

// sans sets every text of p in sansFont, keeping sizes.
func sans(p *plot.Plot) {
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Typeface, f.Variant = sansFont.Typeface, sansFont.Variant
	}
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	sans(p)
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.TextStyle.Font.Size = vg.Points(12)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks{}, ticks{}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Title.Padding = vg.Points(6)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.Padding = vg.Points(2)
	return p
}

// ECDF plots the empirical CDF of each series on shared axes. Values are
// multiplied by scale.
func ECDF(title, xlabel, ylabel string, series []Series, scale float64, maxPoints int) (*plot.Plot, int, error) {
	if maxPoints <= 0 {
		maxPoints = 2000
	}
	p := newPlot(title, xlabel, ylabel)
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(8)
	dropped, drawn := 0, 0
	for i, s := range series {
		xs, d := finite(s.Values)
		dropped += d
		if len(xs) == 0 {
			continue
		}
		n := len(xs)
		pts := plotter.XYs{{X: xs[0] * scale, Y: 0}}
		step := 1
		if n > maxPoints {
			step = (n + maxPoints - 1) / maxPoints
		}
		for j := 0; j < n; j += step {
			pts = append(pts, plotter.XY{X: xs[j] * scale, Y: float64(j+1) / float64(n)})
		}
		if (n-1)%step != 0 {
			pts = append(pts, plotter.XY{X: xs[n-1] * scale, Y: 1})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, 0, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = lineStyle(i)
		marks, err := plotter.NewScatter(ecdfMarks(xs, scale))
		if err != nil {
			return nil, 0, err
		}
		marks.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: l.LineStyle.Color, Radius: vg.Points(3.5), Shape: markShapes[k]}
		}
		name := fmt.Sprintf("%s (n=%d)", s.Name, s.size(n))
		p.Add(tagSeries(name, l, marks))
		p.Legend.Add(name, l)
		drawn++
	}
	if drawn == 0 {
		return nil, dropped, errNoData
	}
	for k, q := range ecdfLevels {
		p.Legend.Add(fmt.Sprintf("p%g of each run", 100*q), &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Gray{Y: 60}, Radius: vg.Points(3.5), Shape: markShapes[k]}})
	}
	return p, dropped, nil
}

// ecdfLevels are the percentiles marked on each ECDF line, with
// markShapes: the p50 and p99 the report's tables give.
var (
	ecdfLevels = []float64{0.5, 0.99}
	markShapes = []draw.GlyphDrawer{draw.RingGlyph{}, draw.TriangleGlyph{}}
)

// ecdfMarks are the points of sorted's ECDF at ecdfLevels: the quantile
// (type 7, as stats.Linear and the tables) and its level, x scaled.
func ecdfMarks(sorted []float64, scale float64) plotter.XYs {
	out := make(plotter.XYs, len(ecdfLevels))
	for k, q := range ecdfLevels {
		out[k] = plotter.XY{X: stats.Quantile(sorted, q, stats.Linear) * scale, Y: q}
	}
	return out
}

var errNoData = fmt.Errorf("plot: no data")

// Histogram plots each series' share of values per bin as a step outline,
// with bins shared by every series.
func Histogram(title, xlabel, ylabel string, series []Series, scale float64, bins int) (*plot.Plot, int, error) {
	if bins <= 0 {
		bins = 40
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	clean := make([][]float64, len(series))
	dropped := 0
	for i, s := range series {
		xs, d := finite(s.Values)
		dropped += d
		clean[i] = xs
		if len(xs) > 0 {
			lo, hi = math.Min(lo, xs[0]), math.Max(hi, xs[len(xs)-1])
		}
	}
	if math.IsInf(lo, 1) {
		return nil, dropped, errNoData
	}
	if hi == lo {
		hi = lo + math.Max(math.Abs(lo)*1e-3, 1e-9)
	}
	width := (hi - lo) / float64(bins)
	p := newPlot(title, xlabel, ylabel)
	p.Y.Min = 0
	ymax := 0.0
	for i, xs := range clean {
		if len(xs) == 0 {
			continue
		}
		counts := make([]float64, bins)
		for _, x := range xs {
			k := int((x - lo) / width)
			if k >= bins {
				k = bins - 1
			}
			counts[k]++
		}
		pts := make(plotter.XYs, 0, bins+2)
		for k, c := range counts {
			share := c / float64(len(xs))
			ymax = math.Max(ymax, share)
			pts = append(pts, plotter.XY{X: (lo + float64(k)*width) * scale, Y: share})
		}
		pts = append(pts, plotter.XY{X: hi * scale, Y: pts[len(pts)-1].Y}, plotter.XY{X: hi * scale, Y: 0})
		pts = append(plotter.XYs{{X: lo * scale, Y: 0}}, pts...)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, dropped, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = lineStyle(i)
		name := fmt.Sprintf("%s (n=%d)", series[i].Name, series[i].size(len(xs)))
		p.Add(tagSeries(name, l))
		p.Legend.Add(name, l)
	}
	p.Y.Max = ymax * 1.08
	return p, dropped, nil
}

// errPoints are points with X and Y intervals.
type errPoints struct {
	plotter.XYs
	plotter.XErrors
	plotter.YErrors
}

// A SweepPoint is one load point of a sweep: throughput and latency with
// their intervals (NaN bounds: none). When the load point was run more
// than once, X and Y are the medians over its runs, Repeats holds each
// run's point, and the curve goes through the median.
type SweepPoint struct {
	X, XLo, XHi float64
	Y, YLo, YHi float64
	Repeats     []plotter.XY
}

// SweepLine is one configuration's load points at one percentile, in load
// order: the curve joins them in the order given.
type SweepLine struct {
	Name   string
	Dashed bool
	Color  int
	Points []SweepPoint
}

// Sweep plots latency against throughput with interval bars, one curve
// per line through its points in order, and the runs of repeated load
// points as small rings around the curve's median point.
func Sweep(title, xlabel, ylabel string, lines []SweepLine) (*plot.Plot, error) {
	p := newPlot(title, xlabel, ylabel)
	p.Legend.Top, p.Legend.Left = true, true
	p.Y.Min, p.X.Min = 0, 0
	ymax, xmax := 0.0, 0.0
	drawn := 0
	var repeatGlyph *plotter.Scatter
	for _, ln := range lines {
		var d errPoints
		var reps plotter.XYs
		for _, pt := range ln.Points {
			if !isFinite(pt.X) || !isFinite(pt.Y) {
				continue
			}
			d.XYs = append(d.XYs, plotter.XY{X: pt.X, Y: pt.Y})
			d.XErrors = append(d.XErrors, struct{ Low, High float64 }{Low: bound(pt.X - pt.XLo), High: bound(pt.XHi - pt.X)})
			d.YErrors = append(d.YErrors, struct{ Low, High float64 }{Low: bound(pt.Y - pt.YLo), High: bound(pt.YHi - pt.Y)})
			ymax = math.Max(ymax, math.Max(pt.Y, finiteOr(pt.YHi, pt.Y)))
			xmax = math.Max(xmax, math.Max(pt.X, finiteOr(pt.XHi, pt.X)))
			for _, r := range pt.Repeats {
				if isFinite(r.X) && isFinite(r.Y) {
					reps = append(reps, r)
					ymax, xmax = math.Max(ymax, r.Y), math.Max(xmax, r.X)
				}
			}
		}
		if len(d.XYs) == 0 {
			continue
		}
		drawn++
		ls := lineStyle(ln.Color)
		if ln.Dashed {
			ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		l, s, err := plotter.NewLinePoints(d.XYs)
		if err != nil {
			return nil, err
		}
		l.LineStyle = ls
		s.GlyphStyle.Color = ls.Color
		s.GlyphStyle.Radius = vg.Points(2.5)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		if ln.Dashed {
			s.GlyphStyle.Shape = draw.RingGlyph{}
		}
		xe, err := plotter.NewXErrorBars(d)
		if err != nil {
			return nil, err
		}
		ye, err := plotter.NewYErrorBars(d)
		if err != nil {
			return nil, err
		}
		xe.LineStyle.Color, ye.LineStyle.Color = ls.Color, ls.Color
		ps := []plot.Plotter{l, s, xe, ye}
		if len(reps) > 0 {
			rs, err := plotter.NewScatter(reps)
			if err != nil {
				return nil, err
			}
			rs.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}
			ps = append(ps, rs)
			if repeatGlyph == nil {
				repeatGlyph = &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Gray{Y: 90}, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}}
			}
		}
		p.Add(tagSeries(ln.Name, ps...))
		p.Legend.Add(ln.Name, l, s)
	}
	if drawn == 0 {
		return nil, errNoData
	}
	if repeatGlyph != nil {
		p.Legend.Add("one run of a repeated load", repeatGlyph)
	}
	p.Y.Max, p.X.Max = ymax*1.15, xmax*1.1
	return p, nil
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func finiteOr(x, def float64) float64 {
	if isFinite(x) {
		return x
	}
	return def
}

// bound turns a missing or negative interval half-width into 0.
func bound(d float64) float64 {
	if !isFinite(d) || d < 0 {
		return 0
	}
	return d
}

// A Bar is one labelled value with an interval (NaN bounds: none).
type Bar struct {
	Label         string
	Value, Lo, Hi float64
}

// Bars plots one bar per label with interval bars.
func Bars(title, ylabel string, bars []Bar) (*plot.Plot, error) {
	p := newPlot(title, "", ylabel)
	var vals plotter.Values
	var d errPoints
	var names []string
	ymax := 0.0
	for _, b := range bars {
		if !isFinite(b.Value) {
			continue
		}
		x := float64(len(vals))
		vals = append(vals, b.Value)
		names = append(names, b.Label)
		d.XYs = append(d.XYs, plotter.XY{X: x, Y: b.Value})
		d.YErrors = append(d.YErrors, struct{ Low, High float64 }{Low: bound(b.Value - b.Lo), High: bound(b.Hi - b.Value)})
		ymax = math.Max(ymax, math.Max(b.Value, finiteOr(b.Hi, b.Value)))
	}
	if len(vals) == 0 {
		return nil, errNoData
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(36))
	if err != nil {
		return nil, err
	}
	bc.Color = palette[0]
	bc.LineStyle.Width = 0
	ye, err := plotter.NewYErrorBars(d)
	if err != nil {
		return nil, err
	}
	ye.LineStyle.Width = vg.Points(1.2)
	p.Add(bc, ye)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.7, float64(len(vals))-0.3
	p.Y.Min, p.Y.Max = 0, ymax*1.15
	return p, nil
}

// A Track is one device's values over time (seconds from the origin).
type Track struct {
	Name string
	T, V []float64
}

// Timeline plots tracks over time with [wStart, wEnd] shaded (no shading
// when wEnd <= wStart), on a value axis from min(0, lowest value) to yMax,
// or to a little above the highest value when yMax is NaN.
func Timeline(title, ylabel string, tracks []Track, wStart, wEnd, yMax float64) (*plot.Plot, error) {
	p := newPlot(title, "time since the first sample or window start (s)", ylabel)
	p.Legend.Top, p.Legend.Left = true, false
	lo, hi := math.Inf(1), math.Inf(-1)
	drawn := 0
	var lines []plot.Plotter
	for i, tr := range tracks {
		var pts plotter.XYs
		for j := range tr.T {
			if isFinite(tr.T[j]) && isFinite(tr.V[j]) {
				pts = append(pts, plotter.XY{X: tr.T[j], Y: tr.V[j]})
				lo, hi = math.Min(lo, tr.V[j]), math.Max(hi, tr.V[j])
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(i)
		lines = append(lines, tagSeries(tr.Name, l))
		p.Legend.Add(tr.Name, l)
		drawn++
	}
	if drawn == 0 {
		return nil, errNoData
	}
	lo = math.Min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	hi *= 1.08 // the legend is outside the data area (drawPanel)
	if isFinite(yMax) {
		hi = yMax
	}
	if wEnd > wStart {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: wStart, Y: lo}, {X: wEnd, Y: lo}, {X: wEnd, Y: hi}, {X: wStart, Y: hi}})
		if err != nil {
			return nil, err
		}
		poly.Color = color.NRGBA{R: 255, G: 190, B: 60, A: 70}
		poly.LineStyle = draw.LineStyle{Color: color.Transparent, Width: 0}
		p.Add(poly)
		p.Legend.Add("run window", poly)
	}
	for _, l := range lines {
		p.Add(l)
	}
	p.Y.Min, p.Y.Max = lo, hi
	return p, nil
}

// Draw renders a grid of plots (rows of columns, nil cells left empty) of
// the given size as SVG and PNG. In the SVG the series added through
// tagSeries are groups with hover points (interactive.go); the PNG has no
// such marks.
func Draw(rows [][]*plot.Plot, w, h vg.Length, o Options) (svg, png []byte, err error) {
	dpi := o.DPI
	if dpi <= 0 {
		dpi = 96
	}
	paint := func(c vg.CanvasSizer) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("plot: %v", r)
			}
		}()
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		var cs [][]draw.Canvas
		if len(rows) == 1 && len(rows[0]) == 1 {
			cs = [][]draw.Canvas{{dc}}
		} else {
			t := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Points(12), PadY: vg.Points(12),
				PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
			cs = plot.Align(rows, t, dc)
		}
		right, below := legendSpace(rows, cs)
		for i := range rows {
			for j, p := range rows[i] {
				if p != nil {
					drawPanel(p, cs[i][j], right[j], below[i])
				}
			}
		}
		return nil
	}
	sc := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(o.EmbedFonts))
	mc := newMarkCanvas(sc) // series marks: interactive.go
	if err := paint(mc); err != nil {
		return nil, nil, err
	}
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	if svg, err = mc.rewrite(sb.Bytes()); err != nil {
		return nil, nil, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	if err := paint(ic); err != nil {
		return nil, nil, err
	}
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	return svg, pb.Bytes(), nil
}

// legendGap separates a panel's data area from its legend.
const legendGap = vg.Length(8)

// Legends go beside the data area when they take at most
// legendRightShare of a panel's width, else below it, taking at most
// legendBelowShare of its height.
const legendRightShare, legendBelowShare = 0.4, 0.35

// legendSize is the size of p's legend; zero when it has no entries.
func legendSize(p *plot.Plot) vg.Point {
	return p.Legend.Rectangle(draw.Canvas{}).Size()
}

// legendSpace is the room kept for the legends of a grid of panels drawn
// in cells: a width per column beside the data areas, or (when a legend
// is too wide to go beside its panel) a height per row below them. One
// size per column or row keeps the data areas of the grid aligned (the
// GPU panels share their time axis).
func legendSpace(rows [][]*plot.Plot, cells [][]draw.Canvas) (right, below []vg.Length) {
	right, below = make([]vg.Length, len(rows[0])), make([]vg.Length, len(rows))
	wide := false
	for i := range rows {
		for j, p := range rows[i] {
			if p == nil {
				continue
			}
			sz := legendSize(p)
			if sz.X <= 0 {
				continue
			}
			right[j] = max(right[j], sz.X+legendGap+vg.Points(2))
			below[i] = max(below[i], min(sz.Y+legendGap+vg.Points(2), legendBelowShare*cells[i][j].Size().Y))
			wide = wide || right[j] > legendRightShare*cells[i][j].Size().X
		}
	}
	if wide {
		clear(right)
	} else {
		clear(below)
	}
	return right, below
}

// drawPanel draws p in c with its legend outside the data area: in a
// column of width right beside it, from the top of the data area, or in a
// band of height below under the axis; neither: p as it is. A legend
// inside hides the lines under it, and one at an edge is cut off by the
// lines reaching it. A legend taller than its room is set in a smaller
// type (down to 6 pt) to fit.
func drawPanel(p *plot.Plot, c draw.Canvas, right, below vg.Length) {
	if right <= 0 && below <= 0 {
		p.Draw(c)
		return
	}
	lg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = lg }()
	pc := draw.Crop(c, 0, -right, below, 0)
	p.Draw(pc)
	data := p.DataCanvas(pc)
	box := vg.Rectangle{Min: vg.Point{X: pc.Max.X + legendGap, Y: c.Min.Y}, Max: vg.Point{X: c.Max.X, Y: data.Max.Y}}
	if right <= 0 {
		box = vg.Rectangle{Min: vg.Point{X: data.Min.X, Y: c.Min.Y}, Max: vg.Point{X: c.Max.X, Y: c.Min.Y + below - legendGap}}
	}
	out := lg
	out.Top, out.Left, out.XOffs, out.YOffs = true, true, 0, 0
	// Text height is not proportional to the type size: shrink until it
	// fits, at most a few times.
	for range 4 {
		h := out.Rectangle(draw.Canvas{}).Size().Y + out.TextStyle.FontExtents().Descent
		if h <= box.Size().Y || out.TextStyle.Font.Size <= vg.Points(6) {
			break
		}
		r := box.Size().Y / h
		out.TextStyle.Font.Size = max(vg.Points(6), out.TextStyle.Font.Size*r)
		out.Padding *= r
	}
	out.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: box})
}

// FileStem turns text into a file-name stem: lower-case letters, digits
// and single dashes.
func FileStem(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if len(out) > 60 {
		out = strings.TrimSuffix(out[:60], "-")
	}
	if out == "" {
		out = "run"
	}
	return out
}

// FontFaceCSS returns @font-face rules embedding the fonts the figures
// use, as data URLs, for documents that inline SVG figures drawn without
// EmbedFonts.
func FontFaceCSS() (string, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range []font.Font{sansFont} {
		face := font.DefaultCache.Lookup(f, 12)
		if face.Face == nil {
			return "", fmt.Errorf("plot: font %v not found", f)
		}
		c := vgsvg.NewWith(vgsvg.UseWH(1, 1), vgsvg.EmbedFonts(true))
		c.FillString(face, vg.Point{}, "x")
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return "", err
		}
		s := buf.String()
		i := strings.Index(s, "@font-face")
		j := -1
		if i >= 0 {
			j = strings.Index(s[i:], "</style>")
		}
		if j < 0 {
			return "", fmt.Errorf("plot: no @font-face in the embedded SVG")
		}
		rule := strings.TrimSpace(s[i : i+j])
		if !seen[rule] {
			seen[rule] = true
			b.WriteString(rule + "\n")
		}
	}
	return b.String(), nil
}
