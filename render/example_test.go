package render_test

import (
	"os"

	"github.com/verdict-llm/verdict/render"
)

// A view builds tables once; each renderer writes them.
func ExampleWrite() {
	t := &render.Table{Title: "TTFT", Columns: []string{"run", "p99"}}
	t.AddRow(render.T("a"), render.N(render.Quantity(0.0422, "s"), 0.0422))
	t.AddRow(render.T("b"), render.N(render.Quantity(0.105, "s"), 0.105))
	render.Write(os.Stdout, render.Text, []*render.Table{t})
	render.Write(os.Stdout, render.CSV, []*render.Table{t})
	// Output:
	// TTFT
	// run      p99
	// ---  -------
	// a    42.2 ms
	// b     105 ms
	// run,p99
	// a,0.0422
	// b,0.105
}
