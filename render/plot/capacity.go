package plot

import (
	"errors"
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
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// A CapacityMark is one configuration's capacity on a load axis: the
// estimate and its interval (NaN: none; an infinite bound is drawn to
// the axis edge), in the colour of its line.
type CapacityMark struct {
	Name          string
	Load, Lo, Hi  float64
	Color         int
	Bound, Exceed bool // Load is a lower bound (never failed) / every load failed
}

// CapacityCurve plots a statistic against the load, one line per
// configuration with interval bars (as Sweep), the limit as a horizontal
// line, and each configuration's capacity as a vertical line with its
// interval shaded.
func CapacityCurve(title, xlabel, ylabel string, lines []SweepLine, limit float64, limitName string, marks []CapacityMark) (*plot.Plot, error) {
	p, err := Sweep(title, xlabel, ylabel, lines)
	if err != nil {
		return nil, err
	}
	if isFinite(limit) {
		// Above capacity latency explodes (a queue grows through the run);
		// keep the crossing readable by showing up to four times the
		// limit, the points above off the chart.
		p.Y.Max = math.Min(math.Max(p.Y.Max, limit*1.15), math.Max(limit*4, 0))
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: limit}, {X: p.X.Max, Y: limit}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: color.RGBA{A: 255}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		p.Add(l)
		p.Legend.Add(limitName, l)
	}
	for _, m := range marks {
		if err := addMark(p, m); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addMark draws one capacity: a shaded band over [Lo, Hi] and a line at
// Load (a lower bound is drawn as the band alone from Load onwards).
func addMark(p *plot.Plot, m CapacityMark) error {
	c := palette[m.Color%len(palette)]
	edge := func(v, def float64) float64 {
		if math.IsNaN(v) {
			return math.NaN()
		}
		if math.IsInf(v, 0) {
			return def
		}
		return math.Min(math.Max(v, p.X.Min), p.X.Max)
	}
	lo, hi := edge(m.Lo, p.X.Min), edge(m.Hi, p.X.Max)
	if math.IsInf(m.Lo, -1) {
		lo = p.X.Min
	}
	if math.IsInf(m.Hi, 1) {
		hi = p.X.Max
	}
	if isFinite(lo) && isFinite(hi) && hi > lo {
		band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: p.Y.Min}, {X: hi, Y: p.Y.Min}, {X: hi, Y: p.Y.Max}, {X: lo, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		band.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 40}
		band.LineStyle = draw.LineStyle{Color: color.Transparent, Width: 0}
		p.Add(band)
	}
	if !isFinite(m.Load) {
		return nil
	}
	x := math.Min(math.Max(m.Load, p.X.Min), p.X.Max)
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(2)}}
	p.Add(l)
	name := m.Name
	switch {
	case m.Bound:
		name += " (at least)"
	case m.Exceed:
		name += " (below the lowest load)"
	}
	p.Legend.Add(name, l)
	return nil
}

// A FrontierSet is one configuration's operating points (X interactivity,
// Y throughput, both better higher) and the subset on its frontier.
type FrontierSet struct {
	Name     string
	Color    int
	Points   []plotter.XY
	Frontier []plotter.XY // sorted by X
}

// Frontier plots every operating point as a marker and each set's Pareto
// frontier as a line through its frontier points.
func Frontier(title, xlabel, ylabel string, sets []FrontierSet) (*plot.Plot, error) {
	p := newPlot(title, xlabel, ylabel)
	p.Legend.Top, p.Legend.Left = true, false
	p.X.Min, p.Y.Min = 0, 0
	xmax, ymax := 0.0, 0.0
	drawn := 0
	for _, s := range sets {
		var pts, front plotter.XYs
		for _, q := range s.Points {
			if isFinite(q.X) && isFinite(q.Y) {
				pts = append(pts, q)
				xmax, ymax = math.Max(xmax, q.X), math.Max(ymax, q.Y)
			}
		}
		for _, q := range s.Frontier {
			if isFinite(q.X) && isFinite(q.Y) {
				front = append(front, q)
			}
		}
		if len(pts) == 0 {
			continue
		}
		drawn++
		ls := lineStyle(s.Color)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
		ps := []plot.Plotter{sc}
		if len(front) > 0 {
			slices.SortFunc(front, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
			l, s2, err := plotter.NewLinePoints(front)
			if err != nil {
				return nil, err
			}
			l.LineStyle = ls
			s2.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			ps = append(ps, l, s2)
			p.Legend.Add(s.Name, l, s2)
		} else {
			p.Legend.Add(s.Name, sc)
		}
		p.Add(tagSeries(s.Name, ps...))
	}
	if drawn == 0 {
		return nil, errNoData
	}
	p.X.Max, p.Y.Max = xmax*1.1, ymax*1.2
	return p, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Capacity draws the capacity view's figures: each limit's statistic
// against the load with the capacities marked, latency against
// throughput per configuration, and the Pareto frontier of throughput per
// GPU against interactivity. A figure without data is left out and
// listed in skipped with the reason.
func Capacity(res *analysis.CapacityResult, o Options) (figs []Figure, skipped []string, err error) {
	add := figureAdder(o, &figs)
	if err := capacityCurves(res, add, &skipped); err != nil {
		return nil, nil, err
	}
	if err := capacityLatency(res, add, &skipped); err != nil {
		return nil, nil, err
	}
	if err := frontierFigure(res, add, &skipped); err != nil {
		return nil, nil, err
	}
	return figs, skipped, nil
}

// figureAdder returns an adder that draws a figure and appends it to
// figs.
func figureAdder(o Options, figs *[]Figure) adder {
	return func(name, title, caption string, w, h vg.Length, rows [][]*plot.Plot) error {
		svg, png, err := Draw(rows, w, h, o)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*figs = append(*figs, Figure{Name: name, Title: title, Caption: caption, Width: w, Height: h, SVG: svg, PNG: png})
		return nil
	}
}

// collect appends a panel, or the reason to skipped when it has no data.
func collect(panels *[]*plot.Plot, skipped *[]string, reason string, p *plot.Plot, err error) error {
	switch {
	case errors.Is(err, errNoData):
		*skipped = append(*skipped, reason)
		return nil
	case err != nil:
		return err
	}
	*panels = append(*panels, p)
	return nil
}

// capacityCurves draws one panel per limit: the statistic against the
// load, the limit, and each configuration's capacity with its interval.
func capacityCurves(res *analysis.CapacityResult, add adder, skipped *[]string) error {
	if len(res.Configs) == 0 {
		*skipped = append(*skipped, "capacity curves: no configuration")
		return nil
	}
	axis := res.Configs[0].Sweep.Axis
	xlabel := "offered request rate (requests/s)"
	if axis == analysis.AxisConcurrency {
		xlabel = "client concurrency (requests in flight)"
	}
	var panels []*plot.Plot
	for j, name := range res.Configs[0].Limits {
		unit := res.Configs[0].LimitUnits[j]
		typical := 0.0
		for _, cc := range res.Configs {
			for _, p := range cc.Points {
				typical = math.Max(typical, finiteOr(p.Stats[j].Value, 0))
			}
		}
		scale, ulabel := Scale(unit, typical)
		var lines []SweepLine
		var marks []CapacityMark
		for i, cc := range res.Configs {
			if cc.Sweep.Axis != axis {
				*skipped = append(*skipped, fmt.Sprintf("capacity curves: %s is swept by %s, not %s", cc.Name, cc.Sweep.Axis, axis))
				continue
			}
			ln := SweepLine{Name: cc.Name, Color: i}
			for _, p := range cc.Points {
				e := p.Stats[j]
				ln.Points = append(ln.Points, SweepPoint{X: p.Load, XLo: math.NaN(), XHi: math.NaN(), Y: e.Value * scale, YLo: e.Lo * scale, YHi: e.Hi * scale})
			}
			lines = append(lines, ln)
			c := cc.Capacity
			marks = append(marks, CapacityMark{Name: cc.Name + " capacity", Load: c.Load, Lo: c.Lo, Hi: c.Hi, Color: i,
				Bound: c.Status == stats.CapacityNotReached, Exceed: c.Status == stats.CapacityNeverMet})
		}
		limit := limitBound(res, j) * scale
		p, err := CapacityCurve(name, xlabel, fmt.Sprintf("%s (%s)", limitStat(name), ulabel), lines, limit, "limit", marks)
		if err := collect(&panels, skipped, "capacity curve of "+name+": no load point has the statistic", p, err); err != nil {
			return err
		}
	}
	if len(panels) == 0 {
		return nil
	}
	caption := "Each limit's statistic at every load point (bars: its interval), the limit (dotted), and each configuration's capacity (dashed) with its interval shaded; the capacity is where the first limit is crossed, interpolated between the last passing and the first failing load. The axis stops at four times the limit; points above it are off the chart."
	return add("capacity", "Capacity under the SLO", caption, vg.Length(len(panels))*panelWidth, figureHeight, [][]*plot.Plot{panels})
}

// limitStat is the statistic a limit bounds: "ttft p99" of
// "ttft:p99<=500ms", "goodput share" of a goodput limit.
func limitStat(name string) string {
	if i := strings.IndexAny(name, "<>"); i > 0 && !strings.Contains(name, "goodput") {
		return strings.Replace(name[:i], ":", " ", 1)
	}
	return "goodput share"
}

// limitBound is limit j's bound, from the options.
func limitBound(res *analysis.CapacityResult, j int) float64 {
	o := res.Options
	if j < len(o.Limits) {
		return o.Limits[j].Bound
	}
	if o.Goodput != nil {
		return o.Goodput.MinShare
	}
	return math.NaN()
}

// capacityLatency draws p50 and p99 of TTFT, TPOT and E2E against the
// output token throughput, one line per configuration through its load
// points.
func capacityLatency(res *analysis.CapacityResult, add adder, skipped *[]string) error {
	// One row of panels per throughput axis: output tokens/s, achieved
	// requests/s, and output tokens/s per GPU where the inventory gives a
	// GPU count.
	axes := []struct {
		name, label string
		x           func(p analysis.CapacityPoint) float64
	}{
		{"output token throughput", "output token throughput (tokens/s)", func(p analysis.CapacityPoint) float64 { return p.OutputTokensPerSecond }},
		{"request throughput", "achieved request throughput (requests/s)", func(p analysis.CapacityPoint) float64 { return p.RequestsPerSecond }},
		{"output tokens/s per GPU", "output token throughput per GPU (tokens/s per GPU)", func(p analysis.CapacityPoint) float64 { return p.PerGPU }},
	}
	var rows [][]*plot.Plot
	width := 0
	for _, ax := range axes {
		var panels []*plot.Plot
		for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.E2E} {
			typical := 0.0
			for _, cc := range res.Configs {
				for _, p := range cc.Points {
					typical = math.Max(typical, finiteOr(p.Latency[id][1], 0))
				}
			}
			scale, ulabel := Scale(schemas.UnitSeconds, typical)
			lines := capacityLatencyLines(res, id, scale, ax.x)
			p, err := Sweep(metricText[id].short+" vs "+ax.name, ax.label, fmt.Sprintf("%s (%s)", metricText[id].short, ulabel), lines)
			if err := collect(&panels, skipped, "latency vs "+ax.name+": no load point has "+string(id)+" and a "+ax.name, p, err); err != nil {
				return err
			}
		}
		if len(panels) > 0 {
			rows = append(rows, panels)
			width = max(width, len(panels))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	caption := "p99 (solid) and p50 (dashed) of TTFT, TPOT and E2E latency at every load point against its throughput (mean over a point's runs), one line per configuration: by row, output tokens/s, achieved requests/s, and output tokens/s per GPU (where the inventory gives a GPU count)."
	return add("capacity-latency-vs-throughput", "Latency vs throughput across the sweeps", caption, vg.Length(width)*panelWidth, vg.Length(len(rows))*figureHeight, rows)
}

// capacityLatencyLines are the p50 and p99 lines of metric id (scaled by
// scale) against the throughput x per configuration, through its load
// points in load order (the capacity view's points are in load order, one
// per load with its runs averaged): past saturation the throughput falls
// while the latency grows, and a line in throughput order would hide that
// turn. Points without a finite x are left out.
func capacityLatencyLines(res *analysis.CapacityResult, id schemas.MetricID, scale float64, x func(analysis.CapacityPoint) float64) []SweepLine {
	var lines []SweepLine
	for i, cc := range res.Configs {
		pts := slices.Clone(cc.Points)
		slices.SortStableFunc(pts, func(a, b analysis.CapacityPoint) int { return cmpFloat(a.Load, b.Load) })
		for k, pct := range []string{"p50", "p99"} {
			ln := SweepLine{Name: cc.Name + " " + pct, Dashed: pct == "p50", Color: i}
			for _, p := range pts {
				q, ok := p.Latency[id]
				if xv := x(p); !ok || math.IsNaN(xv) || math.IsInf(xv, 0) {
					continue
				}
				ln.Points = append(ln.Points, SweepPoint{X: x(p), XLo: math.NaN(), XHi: math.NaN(), Y: q[k] * scale, YLo: math.NaN(), YHi: math.NaN()})
			}
			lines = append(lines, ln)
		}
	}
	return lines
}

// frontierFigure draws the Pareto frontier of throughput per GPU against
// interactivity.
func frontierFigure(res *analysis.CapacityResult, add adder, skipped *[]string) error {
	var sets []FrontierSet
	for i, cc := range res.Configs {
		s := FrontierSet{Name: cc.Name, Color: i}
		for _, p := range cc.Points {
			s.Points = append(s.Points, plotter.XY{X: p.Interactivity, Y: p.PerGPU})
		}
		for _, p := range cc.Frontier {
			s.Frontier = append(s.Frontier, plotter.XY{X: p.X, Y: p.Y})
		}
		sets = append(sets, s)
	}
	p, err := Frontier("Throughput per GPU vs interactivity", "interactivity (output tokens/s per user, 1/median TPOT)", "output tokens/s per GPU", sets)
	var panels []*plot.Plot
	if err := collect(&panels, skipped, "Pareto frontier: no load point has both a TPOT and a throughput per GPU (the inventory's GPU count)", p, err); err != nil || len(panels) == 0 {
		return err
	}
	caption := "Every load point (rings) and each configuration's Pareto frontier (line): the points no other point of the configuration beats on both axes. Higher is better on both."
	return add("pareto-frontier", "Pareto frontier", caption, figureWidth, 6*vg.Inch, [][]*plot.Plot{{p}})
}
