package xlsx

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// Column widths come from the cells, as a reader shows them: a number
// is measured in its number format (a column too narrow for a number
// shows ###), text up to a cap (longer text wraps or is cut at the next
// cell), a header at least its longest word, with the header row as
// tall as its wrapped headings need. Titles and notes are left out: they
// run on into the empty cells to their right.
const (
	// charScale and charPad turn characters into column width units
	// (the width of a digit of the default font, ECMA-376 Part 1
	// §18.3.1.13), with room for a bold or wider substitute font
	// (LibreOffice draws Calibri with DejaVu Sans where Carlito is
	// missing) and the cell's margins.
	charScale = 1.2
	charPad   = 2
	// textCap is the widest a column grows for text; headerCap for a
	// heading, which wraps.
	textCap   = 60
	headerCap = 14
	minWidth  = 6
	// lineHeight is a wrapped heading's line in points.
	lineHeight = 15
)

// fitWidths sets every column's width of sheets from its cells.
func (b *book) fitWidths(sheets []string) error {
	skip := map[int]bool{}
	for _, k := range []string{"title", "note", "title" + qp, "note" + qp} {
		if id, ok := b.styles[k]; ok {
			skip[id] = true
		}
	}
	wrapIDs := map[int]bool{}
	for _, k := range []string{"wrap", "wrap" + qp, "incomplete", "incomplete" + qp} {
		if id, ok := b.styles[k]; ok {
			wrapIDs[id] = true
		}
	}
	for _, sheet := range sheets {
		rows, err := b.f.GetRows(sheet)
		if err != nil {
			return err
		}
		headers := map[int]bool{}
		for _, r := range b.headerRows[sheet] {
			headers[r] = true
		}
		// A width set by the sheet's writer caps wrapped text.
		ncols := 0
		for _, r := range rows {
			ncols = max(ncols, len(r))
		}
		caps := make([]float64, ncols)
		for c := range caps {
			caps[c] = textCap * charScale
			if w, ok := b.colWidth[sheet][c+1]; ok {
				caps[c] = w
			}
		}
		width := make([]float64, ncols)
		var heads []struct { // wrapped cells
			row, col int
			text     string
		}
		for i, r := range rows {
			for j, v := range r {
				if v == "" {
					continue
				}
				ref := cell(j+1, i+1)
				id, err := b.f.GetCellStyle(sheet, ref)
				if err != nil {
					return err
				}
				if skip[id] {
					continue
				}
				n := float64(utf8.RuneCountInString(v))
				typ, _ := b.f.GetCellType(sheet, ref)
				switch {
				case headers[i+1]:
					heads = append(heads, struct {
						row, col int
						text     string
					}{i + 1, j, v})
					n = math.Max(math.Min(n, headerCap), longestWord(v))
				case typ == excelize.CellTypeNumber || typ == excelize.CellTypeUnset && isNumberText(v):
					// never capped: a number that does not fit shows ###
				case wrapIDs[id]:
					n = math.Min(n, caps[j]/charScale)
					heads = append(heads, struct {
						row, col int
						text     string
					}{i + 1, j, v})
				default:
					n = math.Min(n, textCap)
				}
				width[j] = math.Max(width[j], n)
			}
		}
		for j, n := range width {
			if n == 0 {
				continue
			}
			name, _ := excelize.ColumnNumberToName(j + 1)
			w := math.Max(minWidth, math.Ceil(n*charScale+charPad))
			if err := b.f.SetColWidth(sheet, name, name, w); err != nil {
				return err
			}
			width[j] = w
		}
		// Rows of wrapped text, headings among them, as tall as their
		// lines.
		lines := map[int]int{}
		for _, h := range heads {
			lines[h.row] = max(lines[h.row], wrapLines(h.text, int((width[h.col]-charPad)/charScale)))
		}
		for r, n := range lines {
			if n < 2 && !headers[r] {
				continue
			}
			if err := b.f.SetRowHeight(sheet, r, float64(min(n, 27)*lineHeight+3)); err != nil {
				return err
			}
		}
	}
	return nil
}

// isNumberText reports a cell text that is a number as excelize formats
// it (a cell of unset type with a value is numeric).
func isNumberText(s string) bool {
	return s != "" && strings.IndexFunc(s[:1], func(r rune) bool { return r >= '0' && r <= '9' || r == '-' }) == 0
}

func longestWord(s string) float64 {
	n := 0
	for _, w := range strings.Fields(s) {
		n = max(n, utf8.RuneCountInString(w))
	}
	return float64(n)
}

// wrapLines is how many lines s takes wrapped at width characters, word
// by word.
func wrapLines(s string, width int) int {
	width = max(width, 1)
	lines, cur := 1, 0
	for _, w := range strings.Fields(s) {
		n := utf8.RuneCountInString(w)
		switch {
		case cur == 0:
			cur = n
		case cur+1+n <= width:
			cur += 1 + n
		default:
			lines++
			cur = n
		}
	}
	return lines
}
