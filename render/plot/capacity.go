package plot

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
		p.Y.Max = math.Max(p.Y.Max, limit*1.15)
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
		p.Add(sc)
		if len(front) > 0 {
			slices.SortFunc(front, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
			l, s2, err := plotter.NewLinePoints(front)
			if err != nil {
				return nil, err
			}
			l.LineStyle = ls
			s2.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(l, s2)
			p.Legend.Add(s.Name, l, s2)
		} else {
			p.Legend.Add(s.Name, sc)
		}
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
