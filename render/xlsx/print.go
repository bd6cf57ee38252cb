package xlsx

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// printSetup makes every sheet print readably: landscape, one page wide
// and as many tall as it takes (FitToWidth 1, FitToHeight 0, with
// fitToPage in the sheet's properties, ECMA-376 Part 1 §18.3.1.63 and
// §18.3.1.82), so that a wide sheet does not spill onto 100 portrait
// pages. It is called before any sheet is written, since a streamed
// sheet keeps only the page settings made before its StreamWriter opens,
// and again at the end for the other sheets.
func (b *book) printSetup(sheets []string) error {
	landscape, wide, tall, fit := "landscape", 1, 0, true
	for _, s := range sheets {
		if err := b.f.SetPageLayout(s, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &wide, FitToHeight: &tall}); err != nil {
			return fmt.Errorf("page layout of %s: %w", s, err)
		}
		if err := b.f.SetSheetProps(s, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
			return fmt.Errorf("sheet properties of %s: %w", s, err)
		}
	}
	return nil
}

// maxTitleRows is the most rows repeated on printed pages: a sheet whose
// first table starts lower (Costs, with a table per block; About) holds
// several tables, and repeating the first one's header would mislabel
// the others.
const maxTitleRows = 3

// printTitles repeats each sheet's rows down to its table header on
// every printed page (the sheet-scoped name _xlnm.Print_Titles).
func (b *book) printTitles() error {
	for _, s := range b.f.GetSheetList() {
		row, ok := b.headerRow[s]
		if !ok || row > maxTitleRows {
			continue
		}
		err := b.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: s,
			RefersTo: fmt.Sprintf("'%s'!$1:$%d", s, row)})
		if err != nil {
			return fmt.Errorf("print titles of %s: %w", s, err)
		}
	}
	return nil
}
