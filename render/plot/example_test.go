package plot_test

import (
	"bytes"
	"fmt"
	"image/png"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/verdict-llm/verdict/render/plot"
)

// ECDF draws two runs' TTFT on shared axes; Draw renders the figure as
// SVG and PNG. The NaN is left out and counted.
func ExampleECDF() {
	runs := []plot.Series{
		{Name: "h100", Values: []float64{0.041, 0.052, 0.047, 0.090, 0.061}},
		{Name: "l40s", Values: []float64{0.063, 0.071, 0.102, 0.088, 0.095, 0.4e-1}},
		{Name: "broken", Values: []float64{0.05, 0 / zero()}},
	}
	scale, unit := plot.Scale("s", 0.06)
	p, dropped, err := plot.ECDF("TTFT: cumulative distribution per run", "TTFT ("+unit+")", "fraction of requests", runs, scale, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, pngData, err := plot.Draw([][]*gplot.Plot{{p}}, 6*vg.Inch, 4*vg.Inch, plot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	img, _ := png.Decode(bytes.NewReader(pngData))
	fmt.Println("dropped:", dropped)
	fmt.Println("svg names the unit:", bytes.Contains(svg, []byte("TTFT (ms)")))
	fmt.Println("png:", img.Bounds().Dx(), "x", img.Bounds().Dy())
	// Output:
	// dropped: 1
	// svg names the unit: true
	// png: 576 x 384
}

func zero() float64 { return 0 }
