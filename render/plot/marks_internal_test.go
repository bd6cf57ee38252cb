package plot

import (
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
)

// TestECDFMarks: each run's line carries its p50 and p99 (type 7, as the
// tables) as glyphs drawn at those points, named once in the legend.
func TestECDFMarks(t *testing.T) {
	xs := make([]float64, 101)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	if m := ecdfMarks(xs, 1000); m[0].X != 51000 || m[0].Y != 0.5 || math.Abs(m[1].X-100000) > 1e-6 || m[1].Y != 0.99 {
		t.Fatalf("marks %v, want (51000, 0.5) and (100000, 0.99)", m)
	}
	p, _, err := ECDF("t", "x", "y", []Series{{Name: "a", Values: xs}, {Name: "b", Values: []float64{3, 1, 2}}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	c := draw.NewCanvas(&rec, figureWidth, figureHeight)
	right, below := legendSpace([][]*plot.Plot{{p}}, [][]draw.Canvas{{c}})
	drawPanel(p, c, right[0], below[0])
	data := p.DataCanvas(draw.Crop(c, 0, -right[0], below[0], 0))
	near := func(at vg.Point) bool {
		for _, a := range rec.Actions {
			var path vg.Path
			switch a := a.(type) {
			case *recorder.Fill:
				path = a.Path
			case *recorder.Stroke:
				path = a.Path
			default:
				continue
			}
			if len(path) > 6 {
				continue // a line, not a glyph
			}
			for _, pc := range path {
				if math.Hypot(float64(pc.Pos.X-at.X), float64(pc.Pos.Y-at.Y)) < 5 {
					return true
				}
			}
		}
		return false
	}
	for _, want := range []plotterXY{{51, 0.5}, {100, 0.99}, {2, 0.5}, {2.98, 0.99}} {
		at := vg.Point{X: data.X(p.X.Norm(want.x)), Y: data.Y(p.Y.Norm(want.y))}
		if !near(at) {
			t.Errorf("no glyph at (%g, %g)", want.x, want.y)
		}
	}
	var texts []string
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			texts = append(texts, fs.String)
		}
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"|p50 of each run|", "|p99 of each run|"} {
		if strings.Count(all+"|", want) != 1 {
			t.Errorf("legend lacks %q once: %s", want, all)
		}
	}
}

type plotterXY struct{ x, y float64 }

// gpuRun has two devices sampled every 30 s from t0 over 10 minutes.
func gpuRun(window bool, from, to time.Duration) *analysis.ReportRun {
	t0 := time.Date(2025, 6, 10, 10, 0, 0, 0, time.UTC)
	r := &analysis.ReportRun{Name: "r"}
	if window {
		r.Run.WindowStart, r.Run.WindowEnd = schemas.Some(t0.Add(from)), schemas.Some(t0.Add(to))
	}
	for s := 0; s <= 20; s++ {
		for d := range 2 {
			r.Samples = append(r.Samples, schemas.Sample{Device: string(rune('0' + d)), Time: t0.Add(time.Duration(s) * 30 * time.Second),
				UtilPct: schemas.Some(40 + float64(s)), MemUsedBytes: schemas.Some(int64(10) << 30), PowerW: schemas.Some(300.0)})
		}
	}
	return r
}

// TestGPUPanels: utilization on 0-100 %, the run window shaded on every
// panel, and a note in every panel when samples lie outside the window.
func TestGPUPanels(t *testing.T) {
	tests := []struct {
		name   string
		run    *analysis.ReportRun
		shaded bool
		note   string
	}{
		{"samples before and after the window", gpuRun(true, time.Minute, 9*time.Minute), true, "8 of 42 samples outside it"},
		{"window covers every sample", gpuRun(true, 0, 10*time.Minute), true, ""},
		{"samples after only", gpuRun(true, 0, 5*time.Minute), true, "20 of 42 samples outside it"},
		{"window unknown", gpuRun(false, 0, 0), false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := gpuPlots(tc.run)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 {
				t.Fatalf("%d panels", len(rows))
			}
			if u := rows[0][0]; u.Y.Min != 0 || u.Y.Max != 100 {
				t.Errorf("utilization axis %g-%g, want 0-100", u.Y.Min, u.Y.Max)
			}
			for k, row := range rows {
				var rec recorder.Canvas
				c := draw.NewCanvas(&rec, figureWidth, figureHeight)
				drawPanel(row[0], c, 0, 0)
				var texts []string
				for _, a := range rec.Actions {
					if fs, ok := a.(*recorder.FillString); ok {
						texts = append(texts, fs.String)
					}
				}
				all := "|" + strings.Join(texts, "|") + "|"
				if got := strings.Contains(all, "|run window|"); got != tc.shaded {
					t.Errorf("panel %d: run window in the legend %v, want %v", k, got, tc.shaded)
				}
				if tc.note != "" && !strings.Contains(all, "|run window|"+tc.note+"|") {
					t.Errorf("panel %d lacks the note %q: %s", k, tc.note, all)
				}
				if tc.note == "" && strings.Contains(all, "outside") {
					t.Errorf("panel %d: a note without samples outside: %s", k, all)
				}
			}
		})
	}
}
