package plot

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestTicks: 5 to 8 labelled ticks at a round step over ranges the
// figures meet, labels that read as the tick's value, an unlabelled tick
// between two labelled ones.
func TestTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 1.02}, {0, 135}, {0, 100}, {0, 967}, {36.2, 412.7}, {0, 0.0123}, {-3, 7},
		{1e-6, 3e-6}, {0, 62.3}, {12000, 12480}, {0, 1}, {0, 7.5}, {0.5, 0.51}, {-250, -20}} {
		ts := ticks{}.Ticks(r[0], r[1])
		var labelled []plot.Tick
		for _, tk := range ts {
			if tk.Value < r[0]-1e-9*(r[1]-r[0]) || tk.Value > r[1]+1e-9*(r[1]-r[0]) {
				t.Errorf("%v: tick %g outside the range", r, tk.Value)
			}
			if tk.Label != "" {
				labelled = append(labelled, tk)
				v, err := strconv.ParseFloat(tk.Label, 64)
				if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(math.Abs(tk.Value), r[1]-r[0]) {
					t.Errorf("%v: label %q of tick %g", r, tk.Label, tk.Value)
				}
			}
		}
		if n := len(labelled); n < 5 || n > 8 {
			t.Errorf("%v: %d labelled ticks %v, want 5-8", r, n, labelled)
		}
		if len(ts) < 2*len(labelled)-1 {
			t.Errorf("%v: %d ticks for %d labels: no minor ticks", r, len(ts), len(labelled))
		}
	}
}

// TestLegendOutside: every legend entry is drawn right of the data area,
// so no line or point lies under it, and within the figure.
func TestLegendOutside(t *testing.T) {
	mk := func(n int) *plot.Plot {
		var ss []Series
		for i := range n {
			ss = append(ss, Series{Name: "run " + strconv.Itoa(i) + " with a long name", Values: []float64{1, 2, 3, float64(4 + i)}})
		}
		p, _, err := ECDF("t", "x", "y", ss, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, n := range []int{1, 4, 40} {
		p := mk(n)
		var rec recorder.Canvas
		c := draw.NewCanvas(&rec, figureWidth, figureHeight)
		right, below := legendSpace([][]*plot.Plot{{p}}, [][]draw.Canvas{{c}})
		drawPanel(p, c, right[0], below[0])
		data := p.DataCanvas(draw.Crop(c, 0, -right[0], below[0], 0))
		entries := 0
		for _, a := range rec.Actions {
			fs, ok := a.(*recorder.FillString)
			if !ok || !strings.HasPrefix(fs.String, "run ") {
				continue
			}
			entries++
			if fs.Point.X < data.Max.X && fs.Point.Y > data.Min.Y {
				t.Errorf("%d runs: legend entry %q at %v, inside the data area %v", n, fs.String, fs.Point, data.Rectangle)
			}
			if fs.Point.Y < 0 || fs.Point.Y > figureHeight {
				t.Errorf("%d runs: legend entry %q at y=%v, outside the figure", n, fs.String, fs.Point.Y)
			}
		}
		if entries != n {
			t.Errorf("%d runs: %d legend entries drawn", n, entries)
		}
		if got := p.Legend.Rectangle(draw.Canvas{}).Size().X; got <= 0 {
			t.Errorf("%d runs: the plot lost its legend after drawing", n)
		}
	}
}

// TestSansSerif: every text of a figure is set in Liberation Sans.
func TestSansSerif(t *testing.T) {
	p, _, err := ECDF("title", "x label", "y label", []Series{{Name: "a", Values: []float64{1, 2}}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, figureWidth, figureHeight)
	right, below := legendSpace([][]*plot.Plot{{p}}, [][]draw.Canvas{{c}})
	drawPanel(p, c, right[0], below[0])
	n := 0
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			n++
			if fs.Font.Variant != "Sans" {
				t.Errorf("%q in %s", fs.String, fs.Font.Name())
			}
		}
	}
	if n < 8 {
		t.Errorf("%d texts drawn", n)
	}
}
