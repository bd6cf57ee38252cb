package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
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
	case analysis.Estimate:
		return formatFloat(v.Value)
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

// writeCSV writes the tables as one rectangular CSV, without comment
// lines: one table as it is; several under one header, the union of
// their columns, with a first column "table" holding each row's table
// title (cells of another table's columns are empty). A column that
// holds an estimate gets its interval in two more columns, NAME_lo and
// NAME_hi, right after it (empty without an interval).
func writeCSV(w io.Writer, tables []*Table) error {
	type col struct {
		name     string
		interval bool
	}
	var cols []col
	index := map[string]int{}
	for _, t := range tables {
		for i, c := range t.Columns {
			if _, ok := index[c]; !ok {
				index[c] = len(cols)
				cols = append(cols, col{name: c})
			}
			for _, r := range t.Rows {
				if i < len(r) {
					if _, ok := r[i].Value.(analysis.Estimate); ok {
						cols[index[c]].interval = true
					}
				}
			}
		}
	}
	many := len(tables) > 1
	var header []string
	pos := make([]int, len(cols)) // each column's first field
	if many {
		header = append(header, "table")
	}
	for i, c := range cols {
		pos[i] = len(header)
		header = append(header, c.name)
		if c.interval {
			header = append(header, c.name+"_lo", c.name+"_hi")
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(header)
	rec := make([]string, len(header))
	for _, t := range tables {
		for _, r := range t.Rows {
			clear(rec)
			if many {
				rec[0] = SafeText(t.Title)
			}
			for i, c := range t.Columns {
				if i >= len(r) {
					continue
				}
				k := index[c]
				rec[pos[k]] = machine(r[i])
				if e, ok := r[i].Value.(analysis.Estimate); ok && cols[k].interval && e.HasInterval() {
					rec[pos[k]+1], rec[pos[k]+2] = formatFloat(e.Lo), formatFloat(e.Hi)
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
