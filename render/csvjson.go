package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SafeText neutralises spreadsheet formula injection in untrusted text
// (model names, labels, error messages, billing descriptions): text that
// starts with = + - @ tab, CR or NUL gets a leading apostrophe, as the OWASP
// guidance for CSV and spreadsheet exports asks. Numbers are never passed
// through it: they are written as numbers.
func SafeText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r\x00", rune(s[0])) {
		return "'" + s
	}
	return s
}

// machine returns a cell's machine representation for CSV.
func machine(c Cell) string {
	switch v := c.Value.(type) {
	case nil:
		return SafeText(c.Text)
	case float64:
		return formatFloat(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return SafeText(v)
	}
	return SafeText(fmt.Sprint(c.Value))
}

// formatFloat writes the shortest exact representation; non-finite values
// as inf, -inf and nan.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeCSV writes each table as a CSV block headed by a "# title" line,
// blocks separated by an empty line.
func writeCSV(w io.Writer, tables []*Table) error {
	cw := csv.NewWriter(w)
	for ti, t := range tables {
		if ti > 0 {
			cw.Write(nil)
		}
		if t.Title != "" && len(tables) > 1 {
			cw.Write([]string{"# " + SafeText(t.Title)})
		}
		cw.Write(t.Columns)
		rec := make([]string, len(t.Columns))
		for _, r := range t.Rows {
			for i := range rec {
				rec[i] = ""
				if i < len(r) {
					rec[i] = machine(r[i])
				}
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonValue returns a cell's JSON value: its machine value, else its text.
// A NaN number is null; an infinite one "inf" or "-inf", as the bundle's
// JSON writes an infinite request rate.
func jsonValue(c Cell) any {
	switch v := c.Value.(type) {
	case nil:
		return c.Text
	case float64:
		if math.IsNaN(v) {
			return nil
		}
		if math.IsInf(v, 0) {
			return formatFloat(v)
		}
	}
	return c.Value
}

// tableDoc is one table in JSON.
type tableDoc struct {
	Title   string   `json:"title"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Notes   []string `json:"notes"`
}

func tablesJSON(tables []*Table) []tableDoc {
	out := make([]tableDoc, len(tables))
	for i, t := range tables {
		out[i] = tableDoc{Title: t.Title, Columns: t.Columns, Notes: nonNil(t.Notes), Rows: make([][]any, len(t.Rows))}
		for j, r := range t.Rows {
			row := make([]any, len(r))
			for k, c := range r {
				row[k] = jsonValue(c)
			}
			out[i].Rows[j] = row
		}
	}
	return out
}

func writeTablesJSON(w io.Writer, tables []*Table) error {
	return WriteJSON(w, tablesJSON(tables))
}

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
