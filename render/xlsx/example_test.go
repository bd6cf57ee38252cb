package xlsx_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
)

// Write writes a report's workbook. Text from input files, here a model
// name that a spreadsheet would run as a formula, is stored as text, as
// given, in a cell with the quotePrefix style.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "xlsx-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	rep := &analysis.Report{Title: "example", Runs: []*analysis.ReportRun{{
		Platform: "a", Name: "a",
		Run: schemas.Run{ID: "run-1", SUT: schemas.Inventory{Model: `=HYPERLINK("http://x","y")`, GPUModel: "H100"}},
	}}}
	path := filepath.Join(dir, "report.xlsx")
	if err := xlsx.Write(context.Background(), path, rep, xlsx.Options{NoRequests: true}); err != nil {
		fmt.Println(err)
		return
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	model, _ := f.GetCellValue(xlsx.SheetSummary, "D3")
	formula, _ := f.GetCellFormula(xlsx.SheetSummary, "D3")
	fmt.Println(f.GetSheetList())
	fmt.Printf("model %s, formula %q\n", model, formula)
	// Output:
	// [Verdict Summary Runs Metrics Validation Charts About]
	// model =HYPERLINK("http://x","y"), formula ""
}
