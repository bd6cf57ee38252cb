package plot_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gplot "gonum.org/v1/plot"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
)

// golden compares got with testdata/name through equal (testkit.GoldenFunc).
func golden(t *testing.T, name string, got []byte, equal func(got, want []byte) bool) {
	t.Helper()
	testkit.GoldenFunc(t, filepath.Join("testdata", name), got, equal)
}

// series draws n values from a log-normal latency distribution.
func series(seed uint64, n int, median float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = median * math.Exp(0.4*rng.NormFloat64())
	}
	return xs
}

func est(v, lo, hi float64) analysis.Estimate {
	return analysis.Estimate{Value: v, Lo: lo, Hi: hi, Confidence: 0.95}
}

// syntheticReport is a sweep of two platforms at three rates each, with
// per-request series, GPU samples on one run, and quoted costs.
func syntheticReport() *analysis.Report {
	rep := &analysis.Report{Costs: &analysis.ReportCosts{}}
	start := time.Date(2025, 6, 10, 10, 0, 0, 0, time.UTC)
	for pi, pl := range []string{"h100", "l40s"} {
		for k, rate := range []float64{2, 4, 8} {
			slow := 1 + float64(pi)
			r := &analysis.ReportRun{Platform: pl, Name: pl + " @" + render.Sig(rate, 3), Run: schemas.Run{ID: pl + "-" + render.Sig(rate, 3), RequestRate: schemas.Some(rate)},
				Series: map[schemas.MetricID][]float64{}}
			seed := uint64(10*pi + k)
			r.Series[schemas.TTFT] = sortedCopy(series(seed, 120, 0.04*slow*(1+float64(k)/2)))
			r.Series[schemas.TPOT] = sortedCopy(series(seed+100, 120, 0.010*slow))
			r.Series[schemas.ITLChunk] = sortedCopy(series(seed+200, 240, 0.010*slow))
			r.Series[schemas.E2E] = sortedCopy(series(seed+300, 120, 1.2*slow))
			tput := 100 * rate / slow
			add := func(key string, metric schemas.MetricID, p float64, e analysis.Estimate) {
				spec := analysis.HeadlineSpec{Key: key, Label: key, Metric: metric, P: p}
				r.Headlines = append(r.Headlines, analysis.Headline{HeadlineSpec: spec, Unit: schemas.MustLookup(metric).Unit, Est: e, Known: true, From: "requests"})
			}
			add("output_token_throughput", schemas.OutputTokenThroughput, 0, est(tput, 0.95*tput, 1.04*tput))
			for _, m := range []schemas.MetricID{schemas.TTFT, schemas.TPOT} {
				xs := r.Series[m]
				p50, p99 := xs[len(xs)/2], xs[len(xs)*99/100]
				add(string(m)+"_p50", m, 50, est(p50, 0.97*p50, 1.03*p50))
				add(string(m)+"_p99", m, 99, est(p99, 0.9*p99, 1.2*p99))
			}
			cost := 2.49 / 3600 * 600 * 1e6 / (tput * 600)
			r.Cost = &analysis.RunCosting{UnitsSource: "quote", QuoteUnits: []costing.UnitCost{{Metric: costing.CostPer1MOutputTokens, Currency: "USD",
				Value: cost, Lo: cost / 1.04, Hi: cost / 0.95}}}
			if pi == 0 && k == 2 {
				r.Run.WindowStart, r.Run.WindowEnd = schemas.Some(start.Add(time.Minute)), schemas.Some(start.Add(9*time.Minute))
				for s := 0; s <= 20; s++ {
					at := start.Add(time.Duration(s) * 30 * time.Second)
					busy := s >= 2 && s <= 18
					for d := range 2 {
						u, w := 2.0, 70.0
						if busy {
							u, w = 80+float64(5*d+s%3), 450+float64(20*d+s%5)
						}
						r.Samples = append(r.Samples, schemas.Sample{RunID: r.Run.ID, Device: string(rune('0' + d)), DeviceName: "H100",
							Time: at, UtilPct: schemas.Some(u), MemUsedBytes: schemas.Some(int64(50+d) << 30), PowerW: schemas.Some(w)})
					}
				}
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	return rep
}

func sortedCopy(xs []float64) []float64 {
	out := append([]float64(nil), xs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// labels are axis labels each figure must show.
var labels = map[string]string{
	"ecdf-ttft": "TTFT (ms)", "hist-ttft": "share of requests per bin", "ecdf-tpot": "TPOT (ms)", "hist-tpot": "TPOT (ms)",
	"ecdf-itl": "fraction of chunk gaps", "hist-itl": "ITL (per chunk) (ms)", "ecdf-e2e": "E2E latency (s)", "hist-e2e": "E2E latency (s)",
	"latency-vs-throughput": "output token throughput (tokens/s)", "gpu-3-h100-8": "power (W)",
	"cost-per-1m-output-tokens": "cost per 1M output tokens (USD)",
}

// TestReportFigures: every figure is drawn, byte for byte the same on a
// second run, and matches its golden SVG.
func TestReportFigures(t *testing.T) {
	rep := syntheticReport()
	figs, skipped, err := plot.Report(rep, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	want := "ecdf-ttft hist-ttft ecdf-tpot hist-tpot ecdf-itl hist-itl ecdf-e2e hist-e2e latency-vs-throughput gpu-3-h100-8 cost-per-1m-output-tokens"
	if strings.Join(names, " ") != want {
		t.Errorf("figures %v, want %s", names, want)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	again, _, err := plot.Report(rep, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range figs {
		if !bytes.Equal(f.SVG, again[i].SVG) || !bytes.Equal(f.PNG, again[i].PNG) {
			t.Errorf("%s: output differs between two runs", f.Name)
		}
		golden(t, f.Name+".svg", f.SVG, bytes.Equal)
		// Every figure names its quantity with a unit.
		if want := labels[f.Name]; !bytes.Contains(f.SVG, []byte(want)) {
			t.Errorf("%s: SVG lacks %q", f.Name, want)
		}
	}
	// PNGs are compared approximately (rasterisation may differ in the
	// last bits between platforms).
	for _, f := range figs {
		if f.Name != "ecdf-ttft" && f.Name != "latency-vs-throughput" {
			continue
		}
		golden(t, f.Name+".png", f.PNG, func(got, want []byte) bool { return pngNear(t, got, want, 0.01) })
	}
	gpu := figs[9]
	for _, s := range []string{"run window", "utilization (%)", "memory used (GiB)", "power (W)", "GPU 0 (H100)", "GPU 1 (H100)",
		"8 of 42 samples outside it"} {
		if !bytes.Contains(gpu.SVG, []byte(s)) {
			t.Errorf("GPU figure lacks %q", s)
		}
	}
	if !strings.Contains(gpu.Caption, "8 of 42 samples outside the run window (4 before, 4 after)") {
		t.Errorf("GPU caption: %s", gpu.Caption)
	}
}

// TestPNG checks a PNG's size and that the runs' colours are drawn.
func TestPNG(t *testing.T) {
	figs, _, err := plot.Report(syntheticReport(), plot.Options{DPI: 96})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(figs[0].PNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 9*96 || b.Dy() != int(5.5*96) {
		t.Errorf("ECDF is %v, want 864×528", b)
	}
	// Tableau blue and orange (the first two runs) appear.
	seen := map[color.RGBA]int{}
	blue, orange := color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}
	eachPixel(img, func(c color.RGBA) { seen[c]++ })
	if seen[blue] < 50 || seen[orange] < 50 {
		t.Errorf("run colours: blue %d px, orange %d px", seen[blue], seen[orange])
	}
	if white := seen[color.RGBA{255, 255, 255, 255}]; white < 864*528/2 {
		t.Errorf("background: %d white px", white)
	}
}

// pngNear reports whether two PNGs have the same size and differ in at
// most a share tol of their pixels (in the manner of gonum's cmpimg,
// which this module cannot import: it needs a PDF reader go.mod lacks).
func pngNear(t *testing.T, got, want []byte, tol float64) bool {
	a, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	b, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds() != b.Bounds() {
		return false
	}
	diff, n := 0, 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			n++
			if a.At(x, y) != b.At(x, y) {
				diff++
			}
		}
	}
	return float64(diff) <= tol*float64(n)
}

func eachPixel(img image.Image, fn func(color.RGBA)) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			fn(color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)})
		}
	}
}

// TestNonFinite: NaN and infinite values, which gonum/plot refuses, are
// left out and counted.
func TestNonFinite(t *testing.T) {
	s := []plot.Series{{Name: "a", Values: []float64{0.1, math.NaN(), 0.2, math.Inf(1), 0.3}}, {Name: "b", Values: []float64{math.NaN()}}}
	p, dropped, err := plot.ECDF("t", "x", "y", s, 1, 0)
	if err != nil || p == nil || dropped != 3 {
		t.Fatalf("ECDF: %v, dropped %d", err, dropped)
	}
	if _, dropped, err := plot.Histogram("t", "x", "y", s, 1, 10); err != nil || dropped != 3 {
		t.Fatalf("Histogram: %v, dropped %d", err, dropped)
	}
	if _, _, err := plot.ECDF("t", "x", "y", s[1:], 1, 0); err == nil {
		t.Error("an ECDF of no finite values should fail")
	}
	b, err := plot.Bars("t", "y", []plot.Bar{{Label: "a", Value: 1, Lo: math.NaN(), Hi: math.NaN()}, {Label: "b", Value: math.Inf(1)}})
	if err != nil || b == nil {
		t.Fatal(err)
	}
	sw, err := plot.Sweep("t", "x", "y", []plot.SweepLine{{Name: "a", Points: []plot.SweepPoint{{X: 1, XLo: math.NaN(), XHi: math.NaN(), Y: 2, YLo: math.Inf(-1), YHi: 3}}}})
	if err != nil || sw == nil {
		t.Fatal(err)
	}
}

// TestEscapedLabels: run names become SVG text, escaped.
func TestEscapedLabels(t *testing.T) {
	p, _, err := plot.ECDF("t", "x", "y", []plot.Series{{Name: `</text><script>alert(1)</script>`, Values: []float64{1, 2}}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	svg, _, err := plot.Draw([][]*gplot.Plot{{p}}, 300, 200, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte("<script")) || !bytes.Contains(svg, []byte("&lt;script&gt;")) {
		t.Errorf("label not escaped: %s", svg)
	}
}

func TestFileStem(t *testing.T) {
	for in, want := range map[string]string{"h100 @8": "h100-8", "../../etc/passwd": "etc-passwd", "": "run", "Plat A / vllm-9e31": "plat-a-vllm-9e31"} {
		if got := plot.FileStem(in); got != want {
			t.Errorf("FileStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFontFaceCSS(t *testing.T) {
	css, err := plot.FontFaceCSS()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(css, "@font-face") || !strings.Contains(css, "data:font/ttf") || strings.Contains(css, "<") {
		t.Errorf("font CSS: %.200s", css)
	}
}
