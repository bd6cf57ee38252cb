// Package render turns verdict's results into tables and documents for
// people and programs: aligned text for terminals, Markdown for CI step
// summaries and reviews, CSV and JSON for scripts, and (in subpackages)
// plots, Excel workbooks and HTML reports.
//
// render formats finished models from package analysis (StatsResult,
// Comparison, Report, ShowData, CostResult, CapacityResult) and validate's Report; it never
// opens, validates, joins or writes a bundle, and computes nothing: every
// number arrives computed. The text renderers share one table model, like
// x/perf's benchtab: a view (show, schema, validate, stats, ...) builds
// []*Table, and each renderer writes any table, with the display text
// chosen once per cell, so every output format shows the same figures.
package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A Table is a titled grid of cells with notes.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]Cell
	// Notes are printed under the table (definitions, caveats).
	Notes []string
}

// A Cell is one value. Text is what people see; Value, when set, is the
// machine value (JSON and CSV write it instead of Text).
type Cell struct {
	Text  string
	Value any
	// Right aligns the cell in text output (numbers).
	Right bool
}

// T is a text cell.
func T(s string) Cell { return Cell{Text: s} }

// N is a numeric cell with its display text and machine value.
func N(text string, v any) Cell { return Cell{Text: text, Value: v, Right: true} }

// AddRow appends a row.
func (t *Table) AddRow(cells ...Cell) { t.Rows = append(t.Rows, cells) }

// Format names an output format of the text renderers.
type Format string

const (
	Text     Format = "table"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
)

// Formats lists the text formats, for flag help.
var Formats = []Format{Text, JSON, CSV, Markdown}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	if s == "text" || s == "md" {
		if s == "text" {
			return Text, nil
		}
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (use one of table, json, csv, markdown)", s)
}

// Write renders tables in format f (JSON is handled by the views, which
// write structured documents; here it writes the tables as JSON arrays).
func Write(w io.Writer, f Format, tables []*Table) error {
	switch f {
	case Text:
		return writeText(w, tables)
	case Markdown:
		return writeMarkdown(w, tables)
	case CSV:
		return writeCSV(w, tables)
	case JSON:
		return writeTablesJSON(w, tables)
	}
	return fmt.Errorf("render: unknown format %q", f)
}

func width(s string) int { return utf8.RuneCountInString(s) }

func writeText(w io.Writer, tables []*Table) error {
	var b strings.Builder
	for ti, t := range tables {
		if ti > 0 {
			b.WriteString("\n")
		}
		if t.Title != "" {
			b.WriteString(t.Title + "\n")
		}
		widths := make([]int, len(t.Columns))
		for i, c := range t.Columns {
			widths[i] = width(c)
		}
		for _, r := range t.Rows {
			for i, c := range r {
				if i < len(widths) && width(c.Text) > widths[i] {
					widths[i] = width(c.Text)
				}
			}
		}
		line := func(cells []Cell) {
			var lb strings.Builder
			for i := range widths {
				var c Cell
				if i < len(cells) {
					c = cells[i]
				}
				pad := strings.Repeat(" ", widths[i]-width(c.Text))
				if i > 0 {
					lb.WriteString("  ")
				}
				if c.Right {
					lb.WriteString(pad + c.Text)
				} else {
					lb.WriteString(c.Text + pad)
				}
			}
			b.WriteString(strings.TrimRight(lb.String(), " ") + "\n")
		}
		if len(t.Columns) > 0 {
			hdr := make([]Cell, len(t.Columns))
			for i, c := range t.Columns {
				hdr[i] = T(c)
				// Numeric columns get right-aligned headings.
				if len(t.Rows) > 0 && i < len(t.Rows[0]) {
					hdr[i].Right = t.Rows[0][i].Right
				}
			}
			line(hdr)
			sep := make([]Cell, len(t.Columns))
			for i := range sep {
				sep[i] = T(strings.Repeat("-", widths[i]))
			}
			line(sep)
		}
		for _, r := range t.Rows {
			line(r)
		}
		for _, n := range t.Notes {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape makes untrusted text (model names, labels, file names,
// resource IDs) literal text in GitHub Flavored Markdown, within a table
// cell or a line, escaping only where a character could start markup, so
// that ordinary text stays readable as written:
//
//   - line breaks of any kind (a bare carriage return ends a row for
//     cmark-gfm) and tabs become spaces, other control characters U+FFFD;
//   - \ ` * ~ | < and $ (code, emphasis, strikethrough, cells, raw HTML
//     and autolinks, math) are always backslash-escaped; _ where it could
//     open or close emphasis (at a word's edge); ] before ( [ or : (links,
//     images, references, footnotes); & before a letter or # (entities);
//     the colon of "://" and the dot of "www." (extended autolinks);
//   - an e-mail address, which no escape stops from becoming a link,
//     gets a zero-width space after its "@".
//
// The text reads the same once rendered; render/markdown_test.go checks
// this with cmark-gfm.
func mdEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	at := func(i int) byte {
		if i >= 0 && i < len(s) {
			return s[i]
		}
		return ' '
	}
	word := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i, r := range s {
		esc := false
		switch {
		case r == '\r' || r == '\n' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			b.WriteByte(' ')
			continue
		case r < 0x20 || r == 0x7f:
			b.WriteRune('\uFFFD')
			continue
		case r == '@':
			b.WriteString("@\u200b")
			continue
		case strings.ContainsRune("\\`*~|<$", r):
			esc = true
		case r == '_':
			esc = !word(at(i-1)) || !word(at(i+1))
		case r == ']':
			esc = strings.IndexByte("([:", at(i+1)) >= 0
		case r == '&':
			c := at(i + 1)
			esc = c == '#' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		case r == ':':
			esc = at(i+1) == '/' && at(i+2) == '/'
		case r == '.':
			esc = i >= 3 && strings.EqualFold(s[i-3:i], "www")
		}
		if esc {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdLine is mdEscape for text that starts a line outside a table (a
// title, a note): a leading character that would start a heading, list,
// quote, rule or code block is escaped too.
func mdLine(s string) string {
	e := mdEscape(strings.TrimLeft(s, " \t"))
	if e == "" {
		return e
	}
	switch e[0] {
	case '-', '+', '=', '>', '#', '[':
		return `\` + e
	}
	if j := strings.IndexFunc(e, func(r rune) bool { return r < '0' || r > '9' }); j > 0 && (e[j] == '.' || e[j] == ')') {
		return e[:j] + `\` + e[j:]
	}
	return e
}

// MarkdownText is text from input made literal in Markdown, at the start
// of a line (see mdEscape).
func MarkdownText(s string) string { return mdLine(s) }

func writeMarkdown(w io.Writer, tables []*Table) error {
	var b strings.Builder
	for ti, t := range tables {
		if ti > 0 {
			b.WriteString("\n")
		}
		if t.Title != "" {
			b.WriteString("### " + mdLine(t.Title) + "\n\n")
		}
		if len(t.Columns) > 0 {
			b.WriteString("|")
			for _, c := range t.Columns {
				b.WriteString(" " + mdEscape(c) + " |")
			}
			b.WriteString("\n|")
			for i := range t.Columns {
				align := "---"
				if len(t.Rows) > 0 && i < len(t.Rows[0]) && t.Rows[0][i].Right {
					align = "--:"
				}
				b.WriteString(" " + align + " |")
			}
			b.WriteString("\n")
			for _, r := range t.Rows {
				b.WriteString("|")
				for i := range t.Columns {
					text := ""
					if i < len(r) {
						text = r[i].Text
					}
					b.WriteString(" " + mdEscape(text) + " |")
				}
				b.WriteString("\n")
			}
		}
		if len(t.Notes) > 0 {
			b.WriteString("\n")
			for _, n := range t.Notes {
				b.WriteString(mdLine(n) + "  \n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
