package xlsx_test

import (
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/render/xlsx"
)

// TestPrintSetup: every sheet, the streamed Requests sheet included,
// prints landscape, one page wide, and the sheets with a table on top
// repeat its header rows on every page.
func TestPrintSetup(t *testing.T) {
	dir := t.TempDir()
	rep := validatedDemo(t, dir)
	f, err := excelize.OpenFile(writeBook(t, rep, dir, xlsx.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	titles := map[string]string{}
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm.Print_Titles" {
			titles[d.Scope] = d.RefersTo
		}
	}
	for _, s := range f.GetSheetList() {
		pl, err := f.GetPageLayout(s)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			pl.FitToHeight == nil || *pl.FitToHeight != 0 {
			t.Errorf("%s: page layout %s, want landscape, fit to 1 page wide by any number tall", s, layoutText(pl))
		}
		pr, err := f.GetSheetProps(s)
		if err != nil || pr.FitToPage == nil || !*pr.FitToPage {
			t.Errorf("%s: fitToPage not set (%v)", s, err)
		}
	}
	for s, want := range map[string]string{xlsx.SheetVerdict: "'Verdict'!$1:$3", xlsx.SheetSummary: "'Summary'!$1:$2",
		xlsx.SheetMetrics: "'Metrics'!$1:$2", xlsx.SheetRequests: "'Requests'!$1:$1"} {
		if titles[s] != want {
			t.Errorf("%s: print titles %q, want %q", s, titles[s], want)
		}
	}
	if _, ok := titles[xlsx.SheetCosts]; ok {
		t.Error("the Costs sheet repeats one block's header on every page")
	}
}

func layoutText(pl excelize.PageLayoutOptions) string {
	s := "orientation "
	if pl.Orientation != nil {
		s += *pl.Orientation
	}
	if pl.FitToWidth != nil {
		s += " width " + string(rune('0'+*pl.FitToWidth))
	}
	if pl.FitToHeight != nil {
		s += " height " + string(rune('0'+*pl.FitToHeight))
	}
	return s
}
