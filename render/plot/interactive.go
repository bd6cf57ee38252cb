package plot

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/verdict-llm/verdict/render"
)

// Series in the SVG figures.
//
// Each figure's SVG marks its named series so that a page can hide them
// and a reader can hover over their points: the elements one series drew
// are grouped as
//
//	<g class="series" data-series="K" data-color="#rrggbb"><title>NAME</title>…</g>
//
// (K numbers the figure's series names in order of first appearance, so
// that a name shared by several panels is one series), and inside the
// group each of up to maxHover of its data points is a transparent
//
//	<circle class="pt" cx="…" cy="…" r="4" fill="#rrggbb" fill-opacity="0"><title>NAME: X, Y</title></circle>
//
// whose title states the point's series, x and y with the axes' units (a
// browser shows it as a tooltip, with or without script). The PNG is
// unchanged.
//
// How: a series' plotters are wrapped by tagSeries. Drawn on a
// markCanvas (Draw's SVG canvas), the wrapper writes marker texts before
// and after the series and one per point at its canvas position; the
// SVG's token stream is then rewritten, markers becoming the group's
// tags and the circles. A marker is a text element whose whole content is
// "vdm<nonce>:<kind><number>", with a random nonce per drawing: text of
// the figure (a series name) cannot forge one, since it cannot know the
// nonce, and the output holds no trace of it, so the SVG stays
// deterministic. When the markers are not where a group can be made (all
// at the top level of the plotting area, a series' own elements between
// its begin and end), they are dropped and the figure has no series
// marks.

// maxHover bounds a series' hover points; longer series (an ECDF line,
// GPU samples) get evenly spaced points, the first and last included.
const maxHover = 100

// tagSeries groups plotters as one series named name (its legend text):
// drawn on a markCanvas they are marked, anywhere else they draw as
// they would without it. The hover points are those of the first
// plotter with points (plotter.XYer).
func tagSeries(name string, ps ...plot.Plotter) plot.Plotter {
	return &seriesPlotter{name: name, ps: ps}
}

type seriesPlotter struct {
	name string
	ps   []plot.Plotter
}

// Plot implements plot.Plotter.
func (s *seriesPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	m, ok := markCanvasOf(c.Canvas)
	if !ok {
		for _, q := range s.ps {
			q.Plot(c, p)
		}
		return
	}
	k := m.series(s.name, seriesColor(s.ps))
	face := font.DefaultCache.Lookup(p.Legend.TextStyle.Font, p.Legend.TextStyle.Font.Size)
	mark := func(kind byte, n int) {
		c.FillString(face, vg.Point{}, m.marker(kind, n))
	}
	mark('b', k)
	for _, q := range s.ps {
		q.Plot(c, p)
	}
	if xy := firstXYer(s.ps); xy != nil {
		trX, trY := p.Transforms(&c)
		xname, xunit := splitLabel(p.X.Label.Text)
		yname, yunit := splitLabel(p.Y.Label.Text)
		for _, i := range evenly(xy.Len(), maxHover) {
			x, y := xy.XY(i)
			if !isFinite(x) || !isFinite(y) {
				continue
			}
			pt := vg.Point{X: trX(x), Y: trY(y)}
			if !c.Contains(pt) {
				continue
			}
			text := s.name + ": " + axisValue(xname, xunit, x) + ", " + axisValue(yname, yunit, y)
			m.points = append(m.points, hoverPoint{series: k, at: pt, text: text})
			mark('p', len(m.points)-1)
		}
	}
	mark('e', k)
}

// markCanvasOf finds the markCanvas under c (gonum/plot's canvases nest
// draw.Canvas values).
func markCanvasOf(c vg.Canvas) (*markCanvas, bool) {
	for {
		switch t := c.(type) {
		case *markCanvas:
			return t, true
		case draw.Canvas:
			c = t.Canvas
		case *draw.Canvas:
			c = t.Canvas
		default:
			return nil, false
		}
	}
}

// DataRange implements plot.DataRanger: the union of the plotters'.
func (s *seriesPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, q := range s.ps {
		if d, ok := q.(plot.DataRanger); ok {
			a, b, c, e := d.DataRange()
			xmin, xmax, ymin, ymax = math.Min(xmin, a), math.Max(xmax, b), math.Min(ymin, c), math.Max(ymax, e)
		}
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer: the plotters' glyph boxes.
func (s *seriesPlotter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for _, q := range s.ps {
		if g, ok := q.(plot.GlyphBoxer); ok {
			out = append(out, g.GlyphBoxes(p)...)
		}
	}
	return out
}

func firstXYer(ps []plot.Plotter) plotter.XYer {
	for _, q := range ps {
		if xy, ok := q.(plotter.XYer); ok {
			return xy
		}
	}
	return nil
}

// seriesColor is the colour of the first plotter that has one, as
// #rrggbb (opacity dropped); black when none has.
func seriesColor(ps []plot.Plotter) string {
	for _, q := range ps {
		var c color.Color
		switch q := q.(type) {
		case *plotter.Line:
			c = q.LineStyle.Color
		case *plotter.Scatter:
			c = q.GlyphStyle.Color
		case *plotter.Polygon:
			c = q.Color
		case *plotter.BarChart:
			c = q.Color
		}
		if c != nil {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
		}
	}
	return "#000000"
}

// evenly returns up to max indices of [0, n), evenly spaced, the first
// and last included.
func evenly(n, max int) []int {
	if n <= max {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, max)
	for k := range max {
		i := int(math.Round(float64(k) * float64(n-1) / float64(max-1)))
		if len(out) == 0 || out[len(out)-1] != i {
			out = append(out, i)
		}
	}
	return out
}

// splitLabel splits an axis label "TTFT (ms)" into its quantity and
// unit; a label without a unit in parentheses is all quantity.
func splitLabel(label string) (name, unit string) {
	if strings.HasSuffix(label, ")") {
		if i := strings.LastIndex(label, " ("); i > 0 {
			return label[:i], label[i+2 : len(label)-1]
		}
	}
	return label, ""
}

// axisValue is "TTFT 41.2 ms": the quantity, the value to four
// significant digits and the unit.
func axisValue(name, unit string, v float64) string {
	s := render.Sig(v, 4)
	if unit != "" {
		s += " " + unit
	}
	if name != "" {
		s = name + " " + s
	}
	return s
}

type hoverPoint struct {
	series int
	at     vg.Point
	text   string
}

// A markCanvas is the SVG canvas that series draw their markers on.
type markCanvas struct {
	*vgsvg.Canvas
	nonce  string
	names  []string
	colors []string
	index  map[string]int
	points []hoverPoint
}

func newMarkCanvas(c *vgsvg.Canvas) *markCanvas {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand.Read does not fail (its documentation)
	}
	return &markCanvas{Canvas: c, nonce: hex.EncodeToString(b[:]), index: map[string]int{}}
}

// series numbers a series name, in order of first appearance.
func (m *markCanvas) series(name, color string) int {
	if k, ok := m.index[name]; ok {
		return k
	}
	m.index[name] = len(m.names)
	m.names = append(m.names, name)
	m.colors = append(m.colors, color)
	return len(m.names) - 1
}

func (m *markCanvas) marker(kind byte, n int) string {
	return "vdm" + m.nonce + ":" + string(kind) + strconv.Itoa(n)
}

// parseMarker reads the text of a text element as one of m's markers.
func (m *markCanvas) parseMarker(text string) (kind byte, n int, ok bool) {
	rest, ok := strings.CutPrefix(text, "vdm"+m.nonce+":")
	if !ok || len(rest) < 2 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(rest[1:])
	if err != nil || n < 0 || strconv.Itoa(n) != rest[1:] {
		return 0, 0, false
	}
	switch kind = rest[0]; kind {
	case 'b', 'e':
		ok = n < len(m.names)
	case 'p':
		ok = n < len(m.points)
	default:
		ok = false
	}
	return kind, n, ok
}

// A span is one marker's text element in the SVG, from its "<text" to
// its "</text>" and the line end after it.
type span struct {
	start, end int
	kind       byte
	n          int
}

// seriesDepth is where the plotters draw: inside <svg> and vgsvg's
// group that moves the origin to the bottom left.
const seriesDepth = 2

// rewrite turns the markers of svg, drawn on m, into series groups and
// hover circles, or drops them all when they are not where groups can be
// made (see the Series comment above).
func (m *markCanvas) rewrite(svg []byte) ([]byte, error) {
	var spans []span
	ok := true
	open, openMin := -1, 0 // the open series, and the least depth since its begin
	d := xml.NewDecoder(bytes.NewReader(svg))
	depth := 0
	textStart, textDepth, textPlain := -1, 0, false
	var text []byte
	for {
		off := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("plot: the SVG does not parse: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "text" && textStart < 0 {
				textStart, textDepth, textPlain, text = off, depth, true, text[:0]
			} else if textStart >= 0 {
				textPlain = false
			}
			depth++
		case xml.CharData:
			if textStart >= 0 {
				text = append(text, t...)
			}
		case xml.EndElement:
			depth--
			if open >= 0 {
				openMin = min(openMin, depth)
			}
			if t.Name.Local != "text" || textStart < 0 || depth != textDepth {
				break
			}
			start := textStart
			textStart = -1
			kind, n, isMarker := m.parseMarker(string(text))
			if !textPlain || !isMarker {
				break
			}
			end := int(d.InputOffset())
			if end < len(svg) && svg[end] == '\n' {
				end++
			}
			spans = append(spans, span{start: start, end: end, kind: kind, n: n})
			if textDepth != seriesDepth {
				ok = false
			}
			switch kind {
			case 'b':
				if open >= 0 {
					ok = false
				}
				open, openMin = n, depth
			case 'e':
				if open != n || openMin < depth {
					ok = false
				}
				open = -1
			case 'p':
				if open < 0 || m.points[n].series != open {
					ok = false
				}
			}
		default:
			if textStart >= 0 {
				textPlain = false
			}
		}
	}
	if open >= 0 {
		ok = false
	}
	var out bytes.Buffer
	out.Grow(len(svg))
	last := 0
	for _, s := range spans {
		out.Write(svg[last:s.start])
		last = s.end
		if !ok {
			continue
		}
		switch s.kind {
		case 'b':
			fmt.Fprintf(&out, "<g class=\"series\" data-series=\"%d\" data-color=\"%s\"><title>%s</title>\n", s.n, m.colors[s.n], xmlText(m.names[s.n]))
		case 'e':
			out.WriteString("</g>\n")
		case 'p':
			pt := m.points[s.n]
			fmt.Fprintf(&out, "<circle class=\"pt\" cx=\"%.5g\" cy=\"%.5g\" r=\"4\" fill=\"%s\" fill-opacity=\"0\"><title>%s</title></circle>\n",
				pt.at.X.Points(), pt.at.Y.Points(), m.colors[pt.series], xmlText(pt.text))
		}
	}
	out.Write(svg[last:])
	return out.Bytes(), nil
}

// xmlText escapes s as XML character data, invalid characters replaced.
func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
