package html

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/render"
)

// maxRunColumns is the most runs a table shows as columns; with more, a
// table of one column per run turns to one row per run, so that a sweep
// of many runs does not run off the side of the page.
const maxRunColumns = 4

// maxRowColumns is the most value columns of one table of one row per
// run; more are split into several tables, each with the run column.
const maxRowColumns = 6

// runsAsRows turns a table of one column per run (the first column
// naming each row) into tables of one row per run. The rows become
// columns in order, grouped by kind (numbers, text) and split into
// tables of at most maxRowColumns columns.
func runsAsRows(v tableView) []tableView {
	t := v.Table
	if len(t.Columns) < 2 {
		return []tableView{v}
	}
	numeric := func(r []render.Cell) bool {
		for _, c := range r[min(1, len(r)):] {
			if sortValue(c) != "" {
				return true
			}
		}
		return false
	}
	// Consecutive rows of one kind, then each run of them split evenly.
	var kinds [][]int
	for i, r := range t.Rows {
		if len(kinds) == 0 || numeric(t.Rows[kinds[len(kinds)-1][0]]) != numeric(r) {
			kinds = append(kinds, nil)
		}
		kinds[len(kinds)-1] = append(kinds[len(kinds)-1], i)
	}
	var groups [][]int
	for _, k := range kinds {
		parts := (len(k) + maxRowColumns - 1) / maxRowColumns
		for p := range parts {
			groups = append(groups, k[p*len(k)/parts:(p+1)*len(k)/parts])
		}
	}
	if len(groups) == 0 {
		groups = [][]int{nil}
	}
	title := strings.Replace(t.Title, "one column per run", "one row per run", 1)
	var out []tableView
	for gi, g := range groups {
		nt := &render.Table{Title: title, Columns: []string{"run"}}
		if len(groups) > 1 {
			nt.Title = fmt.Sprintf("%s (%d of %d)", title, gi+1, len(groups))
		}
		for _, i := range g {
			nt.Columns = append(nt.Columns, t.Rows[i][0].Text)
		}
		for ri, name := range t.Columns[1:] {
			cells := []render.Cell{render.T(name)}
			for _, i := range g {
				c := render.T("")
				if ri+1 < len(t.Rows[i]) {
					c = t.Rows[i][ri+1]
					c.Right = sortValue(c) != ""
				}
				cells = append(cells, c)
			}
			nt.AddRow(cells...)
		}
		if gi == len(groups)-1 {
			nt.Notes = t.Notes
		}
		out = append(out, tableView{ID: v.ID + "-" + strconv.Itoa(gi+1), Table: nt, Open: v.Open, ByRun: true})
	}
	return out
}

// inventoryByRun splits the inventory of many runs: the fields every run
// shares in one table (field, value), and the fields that differ as
// tables of one row per run.
func inventoryByRun(v tableView) []tableView {
	t := v.Table
	runs := len(t.Columns) - 1
	same := &render.Table{Title: fmt.Sprintf("%s: the same in all %d runs", t.Title, runs), Columns: []string{"field", "value"}}
	differ := &render.Table{Title: t.Title + ": fields that differ between runs, one row per run", Columns: t.Columns}
	for _, r := range t.Rows {
		equal := len(r) == runs+1
		for _, c := range r[min(2, len(r)):] {
			if c.Text != r[1].Text {
				equal = false
			}
		}
		if equal && runs > 0 {
			same.AddRow(r[0], r[1])
		} else {
			differ.AddRow(r...)
		}
	}
	differ.Notes = t.Notes
	out := runsAsRows(tableView{ID: v.ID + "-differ", Table: differ, Open: v.Open})
	if len(same.Rows) > 0 {
		out = append(out, tableView{ID: v.ID + "-same", Table: same, Open: v.Open})
	}
	return out
}
