package xlsx

import (
	"fmt"
	"math"
	"strconv"

	"github.com/xuri/excelize/v2"
)

// A formulaCell is a formula the workbook holds.
type formulaCell struct {
	sheet, ref, formula string
}

// cacheValues stores each formula's value in its cell beside the formula
// (the cell's <v>, ECMA-376 Part 1 §18.3.1.96), so that a reader that
// does not calculate (a viewer, a script reading the file) shows the
// numbers; Excel and LibreOffice recalculate on load anyway
// (FullCalcOnLoad). The values are excelize's own evaluation of the
// formulas.
//
// excelize v2.11.1 has no call that sets a formula cell's value: every
// value setter removes the formula, and SetCellFormula keeps the value
// but types the cell as a string result (t="str"). So each value is
// written first and the formula after it, and the workbook's zip writer
// drops t="str" from formula cells (partFilter): every formula this
// package writes is numeric.
//
// Between the two the cells hold plain numbers, which is when the column
// widths are measured (fitWidths): excelize formats a number by its
// cell's number format, as a reader will show it.
func (b *book) cacheValues(sheets []string) error {
	vals := make([]float64, len(b.formulas))
	for i, fc := range b.formulas {
		vals[i] = math.NaN()
		s, err := b.f.CalcCellValue(fc.sheet, fc.ref, excelize.Options{RawCellValue: true})
		if err != nil {
			continue // an error value (#DIV/0!): no cached value
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) {
			vals[i] = v
		}
	}
	for i, fc := range b.formulas {
		if math.IsNaN(vals[i]) {
			continue
		}
		if err := b.f.SetCellFloat(fc.sheet, fc.ref, vals[i], -1, 64); err != nil {
			return err
		}
	}
	if err := b.fitWidths(sheets); err != nil {
		return err
	}
	for _, fc := range b.formulas {
		if err := b.f.SetCellFormula(fc.sheet, fc.ref, fc.formula); err != nil {
			return fmt.Errorf("formula %s!%s: %w", fc.sheet, fc.ref, err)
		}
	}
	return nil
}
