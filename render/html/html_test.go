package html_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	stdhtml "html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

const demo = "../../testdata/demo/"

// hostileLabel would run as script if it reached the page unescaped.
const hostileLabel = `<script>alert(1)</script><img src=x onerror=alert(2)>`

// report builds the demo report, with platform b's label hostile, and
// writes it as HTML into dir.
func report(t *testing.T, dir string) (*analysis.Report, string) {
	t.Helper()
	var bundles []string
	for _, p := range []string{"a", "b"} {
		inv, err := schemas.LoadInventory(demo + "sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		label := p
		if p == "b" {
			label = hostileLabel
		}
		dest := filepath.Join(dir, "platform-"+p+".bundle")
		if _, err := ingest.ToBundle(context.Background(), []string{demo + "platform-" + p + ".json"}, dest, ingest.Options{
			Formats: all.Formats(), SUT: inv, Labels: map[string]string{"platform": label}}); err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, dest)
	}
	v, err := analysis.Validate(context.Background(), bundles, validate.Options{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.LoadReport(context.Background(), bundles, analysis.ReportOptions{Resamples: 1000,
		Quotes: []string{demo + "quote-a.yaml", demo + "quote-b.yaml"}, Validation: analysis.ValidationOf(v)})
	if err != nil {
		t.Fatal(err)
	}
	figs, skipped, err := plot.Report(rep, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	css, err := plot.FontFaceCSS()
	if err != nil {
		t.Fatal(err)
	}
	o := html.Options{FontCSS: css, Notes: skipped}
	for _, f := range figs {
		o.Figures = append(o.Figures, html.Figure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: f.SVG})
	}
	path := filepath.Join(dir, "report.html")
	if err := html.Write(context.Background(), path, rep, o); err != nil {
		t.Fatal(err)
	}
	return rep, path
}

// TestSelfContained: one script (the page's own), no external
// references, every figure inline, hostile text escaped.
func TestSelfContained(t *testing.T) {
	_, path := report(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d <script> elements, want only the page's own", n)
	}
	// No test hook in the user's file: the browser tests ask the browser.
	for _, hook := range []string{"data-figures", "data-broken-images", "documentElement.setAttribute"} {
		if strings.Contains(page, hook) {
			t.Errorf("the page holds the test hook %q", hook)
		}
	}
	if strings.Contains(page, "onerror=") && !strings.Contains(page, "onerror=alert(2)&gt;") {
		t.Error("the hostile label's attribute reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile label does not appear escaped")
	}
	for _, ref := range regexp.MustCompile(`(?i)(?:src|href)\s*=\s*"([^"#][^"]*)"`).FindAllStringSubmatch(page, -1) {
		t.Errorf("external reference %q", ref[1])
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, "http://www.w3.org/") {
		for _, m := range regexp.MustCompile(`http://[^\s"<]+`).FindAllString(page, -1) {
			if !strings.HasPrefix(m, "http://www.w3.org/") && !strings.HasPrefix(m, "http://10.0.") {
				t.Errorf("URL %q in the page", m)
			}
		}
	}
	if n := strings.Count(page, `<svg class="figure"`); n != 10 {
		t.Errorf("%d inline figures, want 10", n)
	}
	for _, want := range []string{`<section id="summary">`, "TTFT p99", "cost per 1M output tokens", "Content-Security-Policy", "@font-face", "comparable with warnings"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestVerdictFirst: the report opens with the pair's verdict, its
// reasons and the differences, before the Summary.
func TestVerdictFirst(t *testing.T) {
	_, path := report(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	_, body, _ := strings.Cut(page, "<main>")
	first := regexp.MustCompile(`<section id="([^"]+)">`).FindStringSubmatch(body)
	if first == nil || first[1] != "verdict" {
		t.Fatalf("first section = %v, want verdict", first)
	}
	verdict, _, _ := strings.Cut(body, `<section id="summary">`)
	for _, want := range []string{`class="entry v-comparable_with_warnings"`, `<span class="badge">comparable with warnings</span>`,
		"warning (V010-boundary): the quantization differs", "<h3>Differences: "} {
		if !strings.Contains(verdict, want) {
			t.Errorf("the verdict section lacks %q", want)
		}
	}
}

// TestRejectsUnsafeSVG: figures are inlined only when they hold nothing
// but drawing.
func TestRejectsUnsafeSVG(t *testing.T) {
	rep := &analysis.Report{}
	for _, bad := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><g/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><image href="http://x/y.png"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><g fill="url(http://x)"/></svg>`,
		// Series marks hold only what render/plot writes.
		`<svg xmlns="http://www.w3.org/2000/svg"><g class="series" data-series="0" data-color="red;background:url(x)"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><g class="series" data-series="'];alert(1)//" data-color="#000000"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><g data-name="x"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><title><![CDATA[<img src=x onerror=alert(1)>]]></title></svg>`,
	} {
		err := html.WriteTo(context.Background(), &bytes.Buffer{}, rep, html.Options{Figures: []html.Figure{{Name: "x", SVG: []byte(bad)}}})
		if err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if err := html.WriteTo(context.Background(), &bytes.Buffer{}, rep, html.Options{FontCSS: "</style><script>x</script>"}); err == nil {
		t.Error("accepted font CSS that closes the style element")
	}
}

// TestChromium loads the report in headless Chromium with the network
// off and fails on any problem the browser reports (a script error, a
// blocked or missing resource), a figure that did not render, or a
// broken image. The test asks the browser (selfCheck); the page carries
// no hook for it.
func TestChromium(t *testing.T) {
	_, path := report(t, t.TempDir())
	b := newBrowser(t, 1400, 1000)
	b.load(t, path)
	if c := b.selfCheck(t); c.Figures != 10 || c.Rendered != c.Figures {
		t.Errorf("%d of %d figures rendered, want 10 of 10", c.Rendered, c.Figures)
	} else if c.Broken != 0 {
		t.Errorf("%d broken images", c.Broken)
	}
	// The DOM holds the report's tables and figures, and the hostile
	// label as text.
	dom := eval[string](t, b, `document.documentElement.outerHTML`)
	for _, want := range []string{"<h3>Summary (one column per run, in input order; not ranked)</h3>", `<th scope="col" aria-sort="none"><button type="button" class="sort" title="sort by figure">figure</button></th>`,
		"Validation", "Costs", `<figure id="figure-ecdf-ttft">`, "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, `<table class="data">`); n < 6 {
		t.Errorf("%d tables in the DOM", n)
	}
	if n := eval[int](t, b, `document.querySelectorAll("script").length`); n != 1 {
		t.Errorf("%d script elements in the DOM, want the page's own", n)
	}
	for _, p := range b.Problems() {
		t.Errorf("with the network off: %s", p)
	}
}

// TestInteractiveMarkup: the tables carry what the page's script needs
// (sort buttons, numeric values, filter boxes on large tables, the
// statistic switch on tables of percentiles), and the CSP allows exactly
// the one inline script, by its hash, and no inline script otherwise.
func TestInteractiveMarkup(t *testing.T) {
	_, path := report(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no script")
	}
	sum := sha256.Sum256([]byte(m[1]))
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no CSP")
	}
	policy := stdhtml.UnescapeString(csp[1])
	if want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(policy, want) {
		t.Errorf("CSP %q lacks %q (the script's hash)", policy, want)
	}
	for _, want := range []string{"default-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("CSP %q lacks %q", policy, want)
		}
	}
	if strings.Contains(policy, "script-src 'unsafe-inline'") || strings.Contains(policy, "unsafe-eval") {
		t.Errorf("CSP %q allows inline or evaluated scripts", policy)
	}
	if regexp.MustCompile(`(?i)\son[a-z]+\s*=`).MatchString(strings.ReplaceAll(page, "onerror=alert(2)&gt;", "")) {
		t.Error("an inline event handler attribute (the CSP would block it)")
	}
	// Differences: numbers to sort by, rows marked with their statistic
	// (median is p50), the switch.
	diff, _, _ := strings.Cut(page[strings.Index(page, "<h3>Differences: "):], "</table>")
	for _, want := range []string{`<tr data-stat="p50"><td>ttft</td><td>median</td><td class="num" data-v="`,
		`<tr data-stat="p90"><td>ttft</td><td>p90</td>`, `<tr data-stat="mean"><td>ttft</td><td>mean</td>`,
		`<input type="radio" class="stat" name="stat-differences-1" value="p99">`, `<input type="search" class="filter"`,
		`<span class="count">16 of 16 rows</span>`} {
		if !strings.Contains(diff, want) {
			t.Errorf("the differences table lacks %q", want)
		}
	}
	// The Summary switches its pNN figures; validation (few rows, no
	// statistics) has neither filter nor switch.
	summary, _, _ := strings.Cut(page[strings.Index(page, `<section id="summary">`):], "</table>")
	for _, want := range []string{`<tr data-stat="p99"><td>TTFT p99</td>`, `name="stat-summary" value="p50"`} {
		if !strings.Contains(summary, want) {
			t.Errorf("the Summary lacks %q", want)
		}
	}
	validation, _, _ := strings.Cut(page[strings.Index(page, `<section id="validation">`):], "</table>")
	if strings.Contains(validation, `class="filter"`) || strings.Contains(validation, `class="stat"`) {
		t.Error("the validation table (4 rows, no statistics) has a filter or a switch")
	}
	if n := strings.Count(page, `<input type="search" class="filter"`); n < 4 {
		t.Errorf("%d filter boxes, want one per large table (at least 4)", n)
	}
	// A figure's series: groups in the SVG, hover points with titles, and
	// a checkbox each under the figure (hidden until the script runs).
	fig, _, _ := strings.Cut(page[strings.Index(page, `<figure id="figure-ecdf-ttft">`):], "</figure>")
	for _, want := range []string{`<g class="series" data-series="0" data-color="#1f77b4"><title>a (n=`,
		`<g class="series" data-series="1" data-color="#ff7f0e"><title>&lt;script&gt;alert(1)&lt;/script&gt;`,
		`<circle class="pt" cx="`, `: TTFT `, `<fieldset class="series-toggle" hidden><legend>Show</legend>`,
		`<input type="checkbox" class="series" value="1" checked><span class="swatch" style="background-color: #ff7f0e"></span>&lt;script&gt;alert(1)`} {
		if !strings.Contains(fig, want) {
			t.Errorf("the TTFT ECDF lacks %q", want)
		}
	}
	if n := strings.Count(fig, `<input type="checkbox" class="series"`); n != 2 {
		t.Errorf("the TTFT ECDF has %d series checkboxes, want 2", n)
	}
}

// TestManyRunsAsRows: with more than four runs, the Summary and the
// inventory have one row per run (the inventory's shared fields once),
// in tables of at most seven columns; long notes fold.
func TestManyRunsAsRows(t *testing.T) {
	data, err := os.ReadFile(sweepReport(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if strings.Contains(page, "one column per run") {
		t.Error("a table still has one column per run")
	}
	for _, want := range []string{"<h3>Summary (one row per run, in input order; not ranked) (1 of ",
		`<table class="data by-run">`, "System under test and provenance: the same in all 9 runs",
		"System under test and provenance: fields that differ between runs, one row per run",
		`<button type="button" class="sort" title="sort by TTFT p99">TTFT p99</button>`, `notes</summary>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Each Summary table: nine runs as rows, at most 7 columns.
	for _, m := range regexp.MustCompile(`(?s)<div class="tbl" id="table-summary-\d+">.*?</table>`).FindAllString(page, -1) {
		if n := strings.Count(m, "<th "); n > 7 || n < 2 {
			t.Errorf("a Summary table has %d columns", n)
		}
		if n := strings.Count(m, "<tr>") + strings.Count(m, "<tr "); n != 10 {
			t.Errorf("a Summary table has %d rows with its header, want 10", n)
		}
	}
}

// seriesSVG is a figure of two panels with render/plot's series marks:
// series 0 (hostile name) and 1 in both panels, each with a hover point.
const seriesSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="20pt" height="10pt" viewBox="0 0 20 10"><g transform="scale(1, -1) translate(0, -10)">
<g class="series" data-series="0" data-color="#1f77b4"><title>` + "&lt;script&gt;alert(1)&lt;/script&gt; p99" + `</title>
<path d="M1,1L4,9" style="stroke:#1F77B4"/>
<circle class="pt" cx="4" cy="9" r="4" fill="#1f77b4" fill-opacity="0"><title>&lt;script&gt;alert(1)&lt;/script&gt; p99: x 4 tokens/s, TTFT 9 ms</title></circle>
</g>
<g class="series" data-series="1" data-color="#ff7f0e"><title>b p99</title>
<path d="M1,2L4,5" style="stroke:#FF7F0E"/>
</g>
<g class="series" data-series="0" data-color="#1f77b4"><title>&lt;script&gt;alert(1)&lt;/script&gt; p99</title>
<path d="M11,1L14,9" style="stroke:#1F77B4"/>
</g>
<g class="series" data-series="1" data-color="#ff7f0e"><title>b p99</title>
<path d="M11,2L14,5" style="stroke:#FF7F0E"/>
</g>
</g>
</svg>
`

// TestFigureSeries: a figure with series marks gets one checkbox per
// series (not per panel), named and coloured as its groups, hidden until
// the page's script shows it; the marks are inlined as they are, names
// escaped. Golden: the figure.
func TestFigureSeries(t *testing.T) {
	o := html.Options{Figures: []html.Figure{{Name: "sweep", Title: "Latency vs throughput", Caption: "Two panels.", SVG: []byte(seriesSVG)}}}
	var buf bytes.Buffer
	if err := html.WriteTo(context.Background(), &buf, &analysis.Report{}, o); err != nil {
		t.Fatal(err)
	}
	fig := regexp.MustCompile(`(?s)<figure id="figure-sweep">.*?</figure>\n`).FindString(buf.String())
	if fig == "" {
		t.Fatal("no figure")
	}
	testkit.Golden(t, filepath.Join("testdata", "figure-series.html"), []byte(fig))
	if n := strings.Count(fig, `<input type="checkbox" class="series"`); n != 2 {
		t.Errorf("%d series checkboxes, want 2 (one per series, not per panel)", n)
	}
	for _, want := range []string{`<fieldset class="series-toggle" hidden>`,
		`<input type="checkbox" class="series" value="0" checked><span class="swatch" style="background-color: #1f77b4"></span>&lt;script&gt;alert(1)&lt;/script&gt; p99</label>`,
		`<input type="checkbox" class="series" value="1" checked><span class="swatch" style="background-color: #ff7f0e"></span>b p99</label>`} {
		if !strings.Contains(fig, want) {
			t.Errorf("the figure lacks %q", want)
		}
	}
	if strings.Contains(fig, "<script>") {
		t.Error("a series name reached the page unescaped")
	}
}
