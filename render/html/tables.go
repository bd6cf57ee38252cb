package html

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/render"
)

// filterRows is the row count from which a table gets a filter box.
const filterRows = 10

// switchStats are the statistics the statistic switch offers, in order.
var switchStats = []string{"p50", "p90", "p99", "mean"}

// A grid is a table as the page lays it out: each cell with its class
// and its machine value for sorting, each row with its statistic for the
// statistic switch.
type grid struct {
	ID, Title string
	Columns   []string
	Rows      []gridRow
	Notes     []string
	// Filter shows a filter box (large tables).
	Filter bool
	// Stats are the choices of the statistic switch; empty hides it.
	Stats []string
	// ByRun: one row per run (see runsAsRows).
	ByRun bool
}

type gridRow struct {
	// Stat is the row's statistic normalised (p50 for median); "" when
	// the row is not one statistic of a distribution.
	Stat  string
	Cells []gridCell
}

type gridCell struct {
	Text, Class string
	// V is the cell's numeric value for sorting; "" when it has none.
	V string
}

// gridOf lays out a table.
func gridOf(v tableView) grid {
	t := v.Table
	g := grid{ID: v.ID, Title: t.Title, Columns: t.Columns, Notes: t.Notes, Filter: len(t.Rows) >= filterRows, ByRun: v.ByRun}
	statCol := -1
	for i, c := range t.Columns {
		if c == "stat" {
			statCol = i
		}
	}
	seen := map[string]bool{}
	for _, r := range t.Rows {
		row := gridRow{}
		switch {
		case statCol >= 0 && statCol < len(r):
			row.Stat = normStat(r[statCol].Text)
		case len(r) > 0:
			// A figure named like "TTFT p99" (the Summary).
			f := strings.Fields(r[0].Text)
			if len(f) > 1 {
				row.Stat = normStat(f[len(f)-1])
			}
		}
		seen[row.Stat] = true
		for _, c := range r {
			row.Cells = append(row.Cells, gridCell{Text: c.Text, Class: cellClass(c), V: sortValue(c)})
		}
		g.Rows = append(g.Rows, row)
	}
	n := 0
	for _, s := range switchStats {
		if seen[s] {
			n++
		}
	}
	if n >= 2 {
		g.Stats = switchStats
	}
	return g
}

// normStat names a distribution statistic the way the switch does:
// percentiles as pNN (median is p50), "mean"; anything else is "".
func normStat(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "median":
		return "p50"
	case "mean", "std", "stddev", "min", "max":
		return s
	}
	if len(s) > 1 && s[0] == 'p' {
		if _, err := strconv.ParseFloat(s[1:], 64); err == nil {
			return s
		}
	}
	return ""
}

// sortValue is a cell's machine value as a number for sorting: numbers
// themselves, or the Value field of a struct such as analysis.Estimate.
func sortValue(c render.Cell) string {
	v := reflect.ValueOf(c.Value)
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return ""
	}
	if v.Kind() == reflect.Struct {
		f := v.FieldByName("Value")
		if !f.IsValid() {
			return ""
		}
		v = f
	}
	var x float64
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		x = v.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x = float64(v.Uint())
	default:
		return ""
	}
	if x != x || x > 1e308 || x < -1e308 {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
