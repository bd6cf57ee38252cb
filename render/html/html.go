// Package html writes verdict's report as one self-contained HTML file:
// the report's tables (the same ones the text and Markdown renderings
// show) and its figures inlined as SVG, with the figures' fonts embedded
// as data URLs. The file loads nothing from anywhere: a Content Security
// Policy forbids every external resource and every script but the
// report's own (pageScript, allowed by its hash), which makes the tables
// sortable, filterable and switchable between statistics and lets the
// reader hide and show a figure's series (the checkboxes under it). A
// figure's data points show their series, x and y as the points' SVG
// titles (tooltips, without script).
//
// With a trend (verdict report --trend) the page has a Trend section: the
// tables of verdict trend with each series' figure (plot.Trend) above its
// table; a report of a trend alone, without bundles, has that section
// only.
//
// Every text of the report passes through html/template's contextual
// escaping. The SVG figures are inserted as markup; they come from
// render/plot, whose SVG backend escapes text, and are checked here
// against an allow-list of SVG elements and attributes before they are
// trusted.
package html

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

// Options configure the HTML report. The zero value is valid.
type Options struct {
	// Figures are inlined in order.
	Figures []Figure
	// FontCSS holds @font-face rules for the figures' fonts (see
	// plot.FontFaceCSS); empty leaves the browser to substitute fonts.
	FontCSS string
	// Notes are listed at the end (figures not drawn, and why).
	Notes []string
	// TrendFigures are the figures of the trend section, one per series
	// of rep.Trend in its order (plot.Trend's): TrendFigures[i] is drawn
	// above series i's table; one without SVG is left out.
	TrendFigures []Figure
}

// A Figure is an SVG image with its title and caption.
type Figure struct {
	Name, Title, Caption string
	SVG                  []byte
}

// csp is the report's Content Security Policy: nothing external, inline
// styles, fonts and images only as data URLs, and only the page's own
// script (by its hash; no 'unsafe-inline' for scripts).
func csp() string {
	sum := sha256.Sum256([]byte(pageScript))
	return "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
}

// Write writes the report to path atomically (a temporary file renamed
// into place).
func Write(ctx context.Context, path string, rep *analysis.Report, o Options) error {
	var buf bytes.Buffer
	if err := WriteTo(ctx, &buf, rep, o); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

type tableView struct {
	ID    string
	Table *render.Table
	Open  bool
	// ByRun marks a table of one row per run (see runsAsRows): its cells
	// wrap so that many columns fit the page.
	ByRun bool
}

type figureView struct {
	Figure
	Markup template.HTML
	// Series are the figure's series (render/plot's series groups), each
	// a checkbox under the figure.
	Series []seriesView
}

// A seriesView is one series of a figure: its number in the SVG
// (data-series), its name and colour.
type seriesView struct {
	K, Name, Color string
}

// newFigureView checks and inlines a figure's SVG.
func newFigureView(f Figure) (figureView, error) {
	m, series, err := inlineSVG(f.SVG)
	if err != nil {
		return figureView{}, fmt.Errorf("figure %s: %w", f.Name, err)
	}
	return figureView{Figure: f, Markup: m, Series: series}, nil
}

type page struct {
	Title, Version, CSP string
	Bundles             []string
	FontCSS             template.CSS
	Verdict             analysis.ReportVerdict
	Differences         []tableView
	Summary             []tableView
	Figures             []figureView
	Sections            []section
	Notes               []string
	Script              template.JS
	// Dataset is the trend's dataset ("" without a trend).
	Dataset string
	// TrendOnly: a report of a trend alone (no bundles, no runs) has
	// none of the bundles' sections.
	TrendOnly bool
}

type section struct {
	ID, Title string
	Tables    []tableView
	// Blocks follow the tables: figures with their tables.
	Blocks []block
}

// WriteTo writes the report to w.
func WriteTo(ctx context.Context, w io.Writer, rep *analysis.Report, o Options) error {
	p := page{Title: rep.Title, Version: rep.VerdictVersion, CSP: csp(), Script: template.JS(pageScript), Notes: o.Notes}
	if err := checkFontCSS(o.FontCSS); err != nil {
		return err
	}
	p.FontCSS = template.CSS(o.FontCSS)
	for _, b := range rep.Bundles {
		p.Bundles = append(p.Bundles, b.Path)
	}
	if rep.Trend != nil {
		p.Dataset = rep.Trend.Dataset
		p.TrendOnly = len(rep.Bundles) == 0 && len(rep.Runs) == 0
	}
	p.Verdict = rep.Verdict
	for i, t := range render.DifferenceTables(rep) {
		p.Differences = append(p.Differences, tableView{ID: fmt.Sprintf("differences-%d", i+1), Table: t, Open: true})
	}
	summary := tableView{ID: "summary", Table: render.SummaryTable(rep), Open: true}
	inventory := []tableView{{ID: "inventory-table", Table: render.InventoryTable(rep), Open: true}}
	p.Summary = []tableView{summary}
	if len(rep.Runs) > maxRunColumns {
		p.Summary = runsAsRows(summary)
		inventory = inventoryByRun(inventory[0])
	}
	for _, f := range o.Figures {
		v, err := newFigureView(f)
		if err != nil {
			return err
		}
		p.Figures = append(p.Figures, v)
	}
	metrics := section{ID: "metrics", Title: "Metrics"}
	for i, r := range rep.Runs {
		metrics.Tables = append(metrics.Tables, tableView{ID: fmt.Sprintf("metrics-%d", i+1), Table: render.ReportMetricsTable(rep, r)})
	}
	if !p.TrendOnly {
		p.Sections = append(p.Sections,
			section{ID: "inventory", Title: "System under test", Tables: inventory},
			metrics,
			section{ID: "validation", Title: "Validation", Tables: []tableView{{ID: "validation-table", Table: render.ValidationTable(rep), Open: true}}},
		)
	}
	if rep.Costs != nil {
		p.Sections = append(p.Sections, section{ID: "costs", Title: "Costs", Tables: []tableView{{ID: "costs-table", Table: render.CostsTable(rep), Open: true}}})
	}
	if rep.Capacity != nil {
		p.Sections = append(p.Sections, capacitySection(rep.Capacity))
	}
	if rep.Trend != nil {
		s, err := trendSection(rep.Trend, o.TrendFigures)
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, s)
	}
	defs := section{ID: "definitions", Title: "Definitions and sources", Tables: []tableView{{ID: "definitions-table", Table: render.DefinitionsTable(rep.Definitions)}}}
	for i, b := range rep.Bundles {
		t := render.SourcesTable(b.Manifest)
		t.Title = "Sources of " + b.Path
		defs.Tables = append(defs.Tables, tableView{ID: fmt.Sprintf("sources-%d", i+1), Table: t})
	}
	if !p.TrendOnly {
		p.Sections = append(p.Sections, defs)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}

// checkFontCSS accepts only what plot.FontFaceCSS writes: @font-face
// rules with data URLs, nothing that could close the style element.
func checkFontCSS(css string) error {
	if strings.Contains(css, "<") || strings.Contains(css, "url(http") || strings.Contains(css, "@import") {
		return errors.New("html: font CSS must hold only @font-face rules with data URLs")
	}
	return nil
}

// allowed SVG elements and attributes: what gonum/plot's SVG backend
// writes, and render/plot's series marks (title, data-series,
// data-color; see render/plot/interactive.go), whose values are checked
// by svgValues.
var (
	svgElements = map[string]bool{"svg": true, "g": true, "path": true, "text": true, "defs": true, "style": true,
		"rect": true, "circle": true, "line": true, "polyline": true, "polygon": true, "tspan": true, "title": true}
	svgAttrs = map[string]bool{"width": true, "height": true, "viewBox": true, "xmlns": true, "xlink": true, "transform": true,
		"d": true, "style": true, "x": true, "y": true, "dx": true, "dy": true, "font-family": true, "font-size": true,
		"fill": true, "stroke": true, "stroke-width": true, "opacity": true, "text-anchor": true, "cx": true, "cy": true, "r": true,
		"x1": true, "x2": true, "y1": true, "y2": true, "points": true, "class": true, "id": true, "stroke-dasharray": true,
		"stroke-dashoffset": true, "stroke-linecap": true, "stroke-linejoin": true, "fill-opacity": true, "stroke-opacity": true,
		"font-weight": true, "font-style": true, "font-variant": true, "data-series": true, "data-color": true}
	svgValues = map[string]*regexp.Regexp{"data-series": regexp.MustCompile(`^[0-9]{1,4}$`), "data-color": regexp.MustCompile(`^#[0-9a-f]{6}$`)}
)

// inlineSVG checks an SVG document against the allow-list and returns
// its <svg> element as markup, sized to fit the page, and its series:
// each <g class="series" data-series="K" data-color="#rrggbb"> with the
// <title> that opens it, once per K.
func inlineSVG(svg []byte) (template.HTML, []seriesView, error) {
	// CDATA would hide markup from the checks below (the decoder gives
	// it as text) and is not what the figures' backend writes.
	if bytes.Contains(svg, []byte("<![CDATA[")) {
		return "", nil, errors.New("SVG CDATA sections are not allowed")
	}
	var series []seriesView
	seen := map[string]bool{}
	d := xml.NewDecoder(bytes.NewReader(svg))
	var pending *seriesView // a series group whose title may come next
	inTitle := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, fmt.Errorf("invalid SVG: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !svgElements[t.Name.Local] {
				return "", nil, fmt.Errorf("SVG element <%s> is not allowed", t.Name.Local)
			}
			attr := map[string]string{}
			for _, a := range t.Attr {
				if !svgAttrs[a.Name.Local] || strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
					return "", nil, fmt.Errorf("SVG attribute %s is not allowed", a.Name.Local)
				}
				if strings.Contains(strings.ToLower(a.Value), "url(") && a.Name.Local != "style" {
					return "", nil, fmt.Errorf("SVG attribute %s refers to a URL", a.Name.Local)
				}
				if re := svgValues[a.Name.Local]; re != nil && !re.MatchString(a.Value) {
					return "", nil, fmt.Errorf("SVG attribute %s=%q is not allowed", a.Name.Local, a.Value)
				}
				attr[a.Name.Local] = a.Value
			}
			inTitle = t.Name.Local == "title" && pending != nil
			if inTitle {
				pending.Name = ""
			} else {
				pending = nil
			}
			if k, ok := attr["data-series"]; ok && t.Name.Local == "g" && attr["class"] == "series" && !seen[k] {
				seen[k] = true
				series = append(series, seriesView{K: k, Name: "series " + k, Color: attr["data-color"]})
				pending = &series[len(series)-1]
			}
		case xml.CharData:
			if inTitle {
				pending.Name += string(t)
			}
		case xml.EndElement:
			if inTitle {
				if pending.Name = strings.TrimSpace(pending.Name); pending.Name == "" {
					pending.Name = "series " + pending.K
				}
				inTitle, pending = false, nil
			}
		case xml.ProcInst, xml.Comment:
		case xml.Directive:
			return "", nil, errors.New("SVG directives are not allowed")
		}
	}
	for i := range series {
		if series[i].Color == "" {
			series[i].Color = "#000000"
		}
	}
	s := string(svg)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", nil, errors.New("no <svg> element")
	}
	s = s[i:]
	// Keep the viewBox; let CSS size the figure.
	s = strings.Replace(s, "<svg ", `<svg class="figure" role="img" `, 1)
	if strings.Contains(strings.ToLower(s), "<script") || strings.Contains(strings.ToLower(s), "javascript:") {
		return "", nil, errors.New("SVG holds a script")
	}
	return template.HTML(s), series, nil
}

func cellClass(c render.Cell) string {
	var cls []string
	if c.Right {
		cls = append(cls, "num")
	}
	if strings.HasPrefix(c.Text, "INCOMPLETE") {
		cls = append(cls, "incomplete")
	}
	if c.Text == "complete" {
		cls = append(cls, "complete")
	}
	return strings.Join(cls, " ")
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"grid": gridOf}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="verdict{{if .Version}} {{.Version}}{{end}}">
<title>{{.Title}}</title>
<style>
{{.FontCSS}}
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #1f2328; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.4rem; }
nav a { margin-right: 1rem; }
.meta { color: #57606a; font-size: 0.9rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.3rem 0 0.5rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #ddebf7; position: sticky; top: 0; padding: 0; }
th button.sort { font: inherit; font-weight: bold; background: none; border: 0; padding: 0.25rem 1.1rem 0.25rem 0.5rem; width: 100%; text-align: left; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button.sort::after { content: " \25B2"; }
th[aria-sort="descending"] button.sort::after { content: " \25BC"; }
.tools { font-size: 0.85rem; margin: 0.2rem 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; align-items: center; }
.tools input.filter { font: inherit; padding: 0.1rem 0.3rem; width: 16rem; }
.tools .count { color: #57606a; }
table.by-run td { overflow-wrap: anywhere; }
table.by-run td.num { white-space: normal; }
fieldset.stat-switch { border: 0; padding: 0; margin: 0; display: inline; }
fieldset.stat-switch legend { display: inline; float: left; margin-right: 0.4rem; font-weight: bold; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.incomplete { background: #ffc7ce; color: #9c0006; font-weight: bold; }
td.complete { background: #c6efce; color: #006100; }
tbody tr:nth-child(even) { background: #f6f8fa; }
.notes { font-size: 0.85rem; color: #57606a; margin: 0 0 1rem; padding-left: 1.2rem; }
figure { margin: 1.5rem 0; }
figure svg.figure { width: 100%; height: auto; max-width: 1000px; background: #fff; }
figcaption { font-size: 0.9rem; color: #57606a; max-width: 1000px; }
svg.figure g.series.off { display: none; }
svg.figure circle.pt:hover { fill-opacity: 0.55; stroke: #1f2328; stroke-width: 1; }
fieldset.series-toggle { border: 0; padding: 0; margin: 0.2rem 0 0.4rem; font-size: 0.85rem; max-width: 1000px; }
fieldset.series-toggle legend { float: left; font-weight: bold; margin-right: 0.6rem; padding: 0; }
fieldset.series-toggle label { display: inline-block; margin-right: 1rem; white-space: nowrap; cursor: pointer; }
fieldset.series-toggle .swatch { display: inline-block; width: 1.4em; height: 0.35em; vertical-align: middle; margin: 0 0.35em 0 0.15em; }
.headline { font-size: 1.1rem; font-weight: bold; }
.entry { border-left: 6px solid #8c959f; padding: 0.3rem 0.8rem; margin: 0.6rem 0; background: #f6f8fa; }
.entry .badge { font-weight: bold; padding: 0.05rem 0.4rem; border-radius: 0.3rem; background: #d0d7de; }
.v-comparable, .v-valid { border-color: #1a7f37; } .v-comparable .badge, .v-valid .badge { background: #c6efce; color: #006100; }
.v-comparable_with_warnings { border-color: #bf8700; } .v-comparable_with_warnings .badge { background: #ffeb9c; color: #7d4e00; }
.v-incomplete, .v-unavailable { border-color: #8c959f; } .v-incomplete .badge { background: #e1e4e8; }
.v-not_comparable, .v-invalid { border-color: #cf222e; } .v-not_comparable .badge, .v-invalid .badge { background: #ffc7ce; color: #9c0006; }
.reasons, .supply { font-size: 0.9rem; margin: 0.2rem 0; }
details > summary { cursor: pointer; font-weight: bold; margin: 0.6rem 0; }
details.notes > summary { font-weight: normal; color: #57606a; font-size: 0.85rem; margin: 0.2rem 0; }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="meta">Written by verdict{{if .Version}} {{.Version}}{{end}} from {{range $i, $b := .Bundles}}{{if $i}}, {{end}}<code>{{$b}}</code>{{end}}{{if .Dataset}}{{if .Bundles}} and {{end}}the history in <code>{{.Dataset}}</code>{{end}}.
Runs are in input order and are not ranked.</p>
<nav>{{if not .TrendOnly}}<a href="#verdict">Verdict</a><a href="#summary">Summary</a><a href="#figures">Figures</a>{{end}}{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}</nav>
</header>
<main>
{{if not .TrendOnly}}<section id="verdict">
<h2>Verdict</h2>
<p class="headline">{{.Verdict.Headline}}</p>
{{range .Verdict.Entries}}<div class="entry v-{{.Verdict}}">
<p class="entry-head"><strong>{{.Subject}}</strong>: <span class="badge">{{.Text}}</span></p>
{{if .Reasons}}<ul class="reasons">{{range .Reasons}}<li>{{.Line}}</li>{{end}}</ul>{{end}}
{{if .Supply}}<p class="supply-head">To complete the evidence, supply:</p><ul class="supply">{{range .Supply}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .DifferencesNote}}<p class="meta">{{.DifferencesNote}}</p>{{end}}
</div>
{{end}}{{range .Verdict.NotCompared}}<p class="meta">not compared: {{.}}</p>{{end}}
{{range .Differences}}{{template "table" .}}{{end}}
</section>
<section id="summary">
<h2>Summary</h2>
{{range .Summary}}{{template "table" .}}{{end}}
</section>
<section id="figures">
<h2>Figures</h2>
{{if not .Figures}}<p class="meta">No figures were drawn.</p>{{end}}
{{range .Figures}}{{template "figure" .}}{{end}}</section>
{{end}}{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{range .Tables}}{{if .Open}}{{template "table" .}}{{else}}<details id="{{.ID}}"><summary>{{.Table.Title}}</summary>
{{template "table" .}}</details>
{{end}}{{end}}{{range .Blocks}}<div class="block" id="{{.ID}}">
{{with .Figure}}{{template "figure" .}}{{end}}{{template "table" .Table}}</div>
{{end}}</section>
{{end}}{{if .Notes}}<section id="notes">
<h2>Notes</h2>
<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
</section>{{end}}
</main>
<script>{{.Script}}</script>
</body>
</html>
{{define "figure"}}<figure id="figure-{{.Name}}">
{{.Markup}}
{{if .Series}}<fieldset class="series-toggle" hidden><legend>Show</legend>{{range .Series}}<label><input type="checkbox" class="series" value="{{.K}}" checked><span class="swatch" style="background-color: {{.Color}}"></span>{{.Name}}</label>{{end}}</fieldset>
{{end}}<figcaption><strong>{{.Title}}.</strong> {{.Caption}}</figcaption>
</figure>
{{end}}{{define "table"}}{{with grid .}}{{if .Title}}<h3>{{.Title}}</h3>{{end}}
<div class="tbl" id="table-{{.ID}}">
{{if or .Filter .Stats}}<div class="tools">{{if .Filter}}<label>Filter rows <input type="search" class="filter" aria-label="Filter the rows of {{.Title}}" autocomplete="off"></label>
<span class="count">{{len .Rows}} of {{len .Rows}} rows</span>{{end}}
{{if .Stats}}<fieldset class="stat-switch"><legend>statistic</legend><label><input type="radio" class="stat" name="stat-{{.ID}}" value="all" checked> all</label>{{range .Stats}} <label><input type="radio" class="stat" name="stat-{{$.ID}}" value="{{.}}"> {{.}}</label>{{end}}</fieldset>{{end}}</div>
{{end}}<div class="scroll"><table class="data{{if .ByRun}} by-run{{end}}">
<thead><tr>{{range .Columns}}<th scope="col" aria-sort="none"><button type="button" class="sort" title="sort by {{.}}">{{.}}</button></th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{with .Stat}} data-stat="{{.}}"{{end}}>{{range .Cells}}<td{{with .Class}} class="{{.}}"{{end}}{{with .V}} data-v="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div></div>
{{if gt (len .Notes) 8}}<details class="notes"><summary>{{len .Notes}} notes</summary>
<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul></details>
{{else if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}{{end}}
`))
