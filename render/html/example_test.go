package html_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/schemas"
)

// WriteTo writes a self-contained page: the report's tables, escaped, and
// a Content Security Policy that forbids anything external.
func ExampleWriteTo() {
	rep := &analysis.Report{Title: "example", Runs: []*analysis.ReportRun{{
		Platform: "<b>a</b>", Name: "<b>a</b>", Run: schemas.Run{ID: "run-1"},
	}}}
	var b bytes.Buffer
	if err := html.WriteTo(context.Background(), &b, rep, html.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	page := b.String()
	fmt.Println(strings.Contains(page, `http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`))
	fmt.Println(strings.Contains(page, "&lt;b&gt;a&lt;/b&gt;"), strings.Contains(page, "<b>a</b>"))
	// Output:
	// true
	// true false
}
