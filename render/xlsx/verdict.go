package xlsx

import (
	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

// SheetVerdict is the first sheet: the verdict on top.
const SheetVerdict = "Verdict"

// verdict writes the verdict on top (analysis.ReportVerdict, the model
// every report output words first): per compared pair, or per run when
// nothing was compared, its verdict in plain words, one row per reason
// and one per thing to supply; then the differences of each comparable
// pair. Runs are never ranked.
func (b *book) verdict() error {
	const sheet = SheetVerdict
	rep := b.rep
	v := rep.Verdict
	if err := b.setText(sheet, 1, 1, render.VerdictTitle+": "+v.Headline, "title"); err != nil {
		return err
	}
	const hdr = 3
	if err := b.header(sheet, "", hdr, []string{"pair", "verdict", "what", "detail"}); err != nil {
		return err
	}
	row := hdr + 1
	vt := render.VerdictTable(rep)
	for _, r := range vt.Rows {
		word := r[1].Text
		for i, c := range r {
			st := ""
			if i == 1 {
				st = verdictStyle(word)
			}
			if i == 3 {
				st = "wrap"
			}
			if err := b.setText(sheet, i+1, row, c.Text, st); err != nil {
				return err
			}
		}
		row++
	}
	var err error
	if row, err = b.notes(sheet, row, append([]string{""}, vt.Notes...)); err != nil {
		return err
	}
	for _, t := range render.DifferenceTables(rep) {
		row++
		if row, err = b.table(sheet, row+1, t); err != nil {
			return err
		}
	}
	if err := b.widths(sheet, 22, 24, 10, 110); err != nil {
		return err
	}
	return b.freeze(sheet, 1, hdr+1)
}

// verdictStyle colours a verdict in words: green when the pair may be
// compared, amber with warnings, red otherwise.
func verdictStyle(words string) string {
	switch words {
	case analysis.VerdictWords(analysis.VerdictComparable), analysis.VerdictValid:
		return "complete"
	case analysis.VerdictWords(analysis.VerdictComparableWithWarnings):
		return "warning"
	}
	return "incomplete"
}

// table writes a render.Table with its title above the header row at
// row (the title takes row-1) and its notes under it, returning the
// next free row. Cells are written as their display text.
func (b *book) table(sheet string, row int, t *render.Table) (int, error) {
	if err := b.header(sheet, t.Title, row, t.Columns); err != nil {
		return row, err
	}
	row++
	for _, r := range t.Rows {
		for i, c := range r {
			if err := b.setText(sheet, i+1, row, c.Text, ""); err != nil {
				return row, err
			}
		}
		row++
	}
	return b.notes(sheet, row, t.Notes)
}
