// Package xlsx writes verdict's report as an Excel workbook for
// procurement reviews, with excelize.
//
// The workbook has these sheets:
//
//   - Verdict: the verdict on top (analysis.ReportVerdict): per compared
//     pair, comparable / comparable with warnings / incomplete / not
//     comparable in plain words, one row per reason and per thing to
//     supply, then the differences of each comparable pair.
//   - Summary: one row per run, in input order and never ranked: the
//     headline figures with units and interval bounds as numbers, cost per
//     1M output tokens (a live formula on the Costs sheet), the validation
//     verdict, and a status that marks incomplete results.
//   - Runs: provenance and the full system-under-test inventory side by
//     side, unknowns shown as "unknown".
//   - Metrics: every metric row with its definition, method, source and
//     interval.
//   - Validation: every finding, or why validation is not available.
//   - Costs: quote lines and bill allocations as live formulas over named
//     inputs (GPU_COST = GPU_RATE * GPU_HOURS, TOTAL_COST = GPU_COST +
//     OTHER_LISTED_COST, and the unit costs), next to the figures verdict
//     computed, so that a reviewer can change a rate and see every total
//     move. The workbook asks for a full recalculation on load.
//   - Charts: native Excel charts of the Summary, value axes from zero,
//     the intervals as error bars.
//   - Plots: the report's figures as pictures.
//   - Trend (verdict report --trend): the series of a dataset's history
//     with their change points, figures and runs (trend.go).
//   - Requests: per-request rows, streamed, capped at Excel's row limit
//     (the sheet says so when it is reached).
//   - About: how to read the workbook, the defined names, and sources.
//
// Text from input files never becomes a formula: it is written as a
// string cell, which no reader evaluates, and text that begins with
// = + - @ tab CR or NUL (render.SafeText's set) also gets the quotePrefix
// cell style (ECMA-376 Part 1 §18.8.45), so that editing the cell keeps
// it text, without an apostrophe in the text itself. Formulas are built
// only from constants and the cell references this package generates.
package xlsx

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	_ "image/png" // AddPictureFromBytes decodes the plots

	"github.com/klauspost/compress/flate"
	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
)

// Excel's limits.
const (
	// MaxRows is the number of rows of a worksheet.
	MaxRows = 1_048_576
)

// Sheet names.
const (
	SheetSummary    = "Summary"
	SheetRuns       = "Runs"
	SheetMetrics    = "Metrics"
	SheetValidation = "Validation"
	SheetCosts      = "Costs"
	SheetCharts     = "Charts"
	SheetPlots      = "Plots"
	SheetRequests   = "Requests"
	SheetAbout      = "About"
)

// Options configure the workbook. The zero value is valid.
type Options struct {
	// Pictures are embedded on the Plots sheet, in order.
	Pictures []Picture
	// Requests streams the rows of the Requests sheet
	// (analysis.RequestRows reads them from the report's bundles, row by
	// row, so memory stays flat); nil, or NoRequests, leaves the sheet
	// out. The workbook never opens a bundle itself.
	Requests   analysis.RequestSource
	NoRequests bool
	// MaxRequestRows caps the request rows written; 0 means as many as
	// fit under Excel's row limit (the header and a closing note take two
	// rows).
	MaxRequestRows int
	// Progress, when set, is called with the number of request rows
	// written so far every 10,000 rows, and once with done set at the end.
	Progress func(rows int, done bool)
	// Notes are added to the About sheet (for example figures that were
	// not drawn, and why).
	Notes []string
	// TrendPictures are the trend's figures, one per series of
	// rep.Trend in its order (plot.Trend's); one without PNG is left out.
	TrendPictures []Picture
}

// A Picture is a PNG image with its title.
type Picture struct {
	Name, Title, Caption string
	PNG                  []byte
}

// Write writes the workbook to path atomically: to a temporary file in
// the same directory, renamed into place once complete.
func Write(ctx context.Context, path string, rep *analysis.Report, o Options) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := WriteTo(ctx, tmp, rep, o); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	return nil
}

// WriteTo writes the workbook to w.
func WriteTo(ctx context.Context, w io.Writer, rep *analysis.Report, o Options) error {
	b, err := newBook(rep, o)
	if err != nil {
		return err
	}
	defer b.f.Close()
	defer func() {
		if b.requestRows != nil {
			b.requestRows.Close()
			os.Remove(b.requestRows.Name())
		}
	}()
	if err := b.build(ctx); err != nil {
		return err
	}
	// excelize assembles the zip in memory before copying it to w, which
	// would hold the whole workbook (70 MB for a million request rows);
	// a zip writer of our own streams it to w instead, and excelize's
	// buffer stays empty.
	bw := bufio.NewWriterSize(w, 1<<20)
	zw := zip.NewWriter(bw)
	zw.RegisterCompressor(zip.Deflate, fastDeflate)
	pf := &partFilter{zw: zw, b: b}
	for id, name := range b.f.GetSheetMap() {
		if name == SheetRequests {
			pf.skip = fmt.Sprintf("xl/worksheets/sheet%d.xml", id) // excelize's part name (NewSheet)
		}
	}
	b.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return pf })
	if _, err := b.f.WriteTo(io.Discard); err != nil {
		return err
	}
	return bw.Flush()
}

// deflateLevel is the workbook's zip compression: klauspost/compress's
// level 1, chosen for speed (issue 20 measured compression at 36% of the
// report's CPU at the standard library's default level).
const deflateLevel = flate.BestSpeed

// fastDeflate compresses the workbook's parts at deflateLevel, in blocks
// on every core (parallelDeflate).
func fastDeflate(w io.Writer) (io.WriteCloser, error) {
	return newParallelDeflate(w, deflateLevel), nil
}

// book is a workbook being written.
type book struct {
	f      *excelize.File
	rep    *analysis.Report
	o      Options
	styles map[string]int
	// costNames maps a run to its defined-name suffix and cost source,
	// filled by the Costs sheet and read by the Summary.
	costNames map[*analysis.ReportRun]costRef
	// steadyNames holds the runs with a steady-state cost block (true:
	// with its interval); see steadyLines.
	steadyNames map[*analysis.ReportRun]bool
	names       []excelize.DefinedName
	about       []string
	// errBars are the charts' error bars, added as the charts are zipped.
	errBars []errBar
	// formulas are the formula cells written, for their cached values.
	formulas []formulaCell
	// quoteXfs are the style IDs that get quotePrefix.
	quoteXfs map[int]bool
	// headerRow is each sheet's first table header row, repeated on
	// every printed page.
	headerRow map[string]int
	// colWidth are the widths the sheets' writers set.
	colWidth map[string]map[int]float64
	// headerRows are every table header row of each sheet.
	headerRows map[string][]int
	// requestRows holds the Requests sheet's rows (rowXML) until the
	// sheet's part is written (rowSplice).
	requestRows *os.File
}

// costRef says which defined names hold a run's unit costs.
type costRef struct {
	prefix string // "" for the quote, "BILL_" for the bill
	suffix string // "_3"
	hasLo  bool   // COST_PER_1M_OUTPUT_TOKENS_LO exists
}

func newBook(rep *analysis.Report, o Options) (*book, error) {
	f := excelize.NewFile()
	b := &book{f: f, rep: rep, o: o, styles: map[string]int{}, costNames: map[*analysis.ReportRun]costRef{}, steadyNames: map[*analysis.ReportRun]bool{},
		headerRow: map[string]int{}, headerRows: map[string][]int{}, colWidth: map[string]map[int]float64{}, quoteXfs: map[int]bool{}}
	return b, nil
}

func (b *book) build(ctx context.Context) error {
	f := b.f
	sheets := []string{SheetVerdict, SheetSummary, SheetRuns, SheetMetrics, SheetValidation}
	if b.rep.Costs != nil {
		sheets = append(sheets, SheetCosts)
	}
	if b.rep.Capacity != nil {
		sheets = append(sheets, SheetCapacity)
	}
	sheets = append(sheets, SheetCharts)
	if len(b.o.Pictures) > 0 {
		sheets = append(sheets, SheetPlots)
	}
	if b.rep.Trend != nil {
		sheets = append(sheets, SheetTrend)
	}
	if b.hasRequests() {
		sheets = append(sheets, SheetRequests)
	}
	sheets = append(sheets, SheetAbout)
	if b.trendOnly() {
		sheets = []string{SheetTrend, SheetAbout}
	}
	if err := f.SetSheetName("Sheet1", sheets[0]); err != nil {
		return err
	}
	for _, s := range sheets[1:] {
		if _, err := f.NewSheet(s); err != nil {
			return err
		}
	}
	if err := b.printSetup(sheets); err != nil {
		return err
	}
	// Costs first: the Summary's cost cells refer to its names.
	steps := []func() error{}
	if b.rep.Costs != nil {
		steps = append(steps, b.costs)
	}
	steps = append(steps, b.verdict, b.summary, b.runs, b.metrics, b.validation, b.charts)
	if b.rep.Capacity != nil {
		steps = append(steps, b.capacity)
	}
	if len(b.o.Pictures) > 0 {
		steps = append(steps, b.plots)
	}
	if b.rep.Trend != nil {
		steps = append(steps, b.trend)
	}
	if b.trendOnly() {
		steps = []func() error{b.trend}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if b.hasRequests() {
		if err := b.requests(ctx); err != nil {
			return err
		}
	}
	for i := range b.names {
		if err := f.SetDefinedName(&b.names[i]); err != nil {
			return fmt.Errorf("defined name %s: %w", b.names[i].Name, err)
		}
	}
	if err := b.aboutSheet(); err != nil {
		return err
	}
	// The sheets written in memory: all but the streamed one, which keeps
	// its widths and page settings from before its rows.
	again := slices.DeleteFunc(slices.Clone(sheets), func(s string) bool { return s == SheetRequests })
	if err := b.cacheValues(again); err != nil {
		return err
	}
	// Again after writing (AutoFilter resets the sheet properties).
	if err := b.printSetup(again); err != nil {
		return err
	}
	if err := b.printTitles(); err != nil {
		return err
	}
	full := true
	if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &full}); err != nil {
		return err
	}
	f.SetActiveSheet(0)
	return nil
}

// hasRequests reports whether the workbook has a Requests sheet.
func (b *book) hasRequests() bool { return b.o.Requests != nil && !b.o.NoRequests && !b.trendOnly() }

// risky reports text a spreadsheet would take for a formula when typed:
// render.SafeText's set. Such a cell gets the quotePrefix style.
func risky(s string) bool { return render.SafeText(s) != s }

// qp is the suffix of a style key that adds quotePrefix.
const qp = "+qp"

// textStyle is the style key of a text cell: style, with quotePrefix
// when the text is risky.
func textStyle(s, style string) string {
	if risky(s) {
		return style + qp
	}
	return style
}

// cell returns the A1 name of (col, row), both 1-based.
func cell(col, row int) string {
	c, err := excelize.CoordinatesToCellName(col, row)
	if err != nil {
		panic(err) // programmer error: coordinates out of range
	}
	return c
}

// abs returns an absolute reference Sheet!$A$1.
func abs(sheet string, col, row int) string {
	c, _ := excelize.ColumnNumberToName(col)
	return fmt.Sprintf("%s!$%s$%d", sheet, c, row)
}

// style returns a style ID for a named style, creating it once.
func (b *book) style(key string) int {
	if id, ok := b.styles[key]; ok {
		return id
	}
	s := &excelize.Style{}
	base, quote := strings.CutSuffix(key, qp)
	if quote {
		// excelize has no quotePrefix in its Style: the variant is made
		// distinct with an explicit (default) lock, so that NewStyle
		// does not return the base style's ID, and the attribute is
		// added to its xf when the workbook is written (addQuotePrefix).
		s.Protection = &excelize.Protection{Locked: true}
		key = base
	}
	switch {
	case key == "":
	case key == "title":
		s.Font = &excelize.Font{Bold: true, Size: 14}
	case key == "header":
		s.Font = &excelize.Font{Bold: true}
		s.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}
		s.Border = []excelize.Border{{Type: "bottom", Color: "8EA9C1", Style: 1}}
		s.Alignment = &excelize.Alignment{WrapText: true, Vertical: "top"}
	case key == "note":
		s.Font = &excelize.Font{Italic: true, Color: "595959"}
	case key == "bold":
		s.Font = &excelize.Font{Bold: true}
	case key == "wrap":
		s.Alignment = &excelize.Alignment{WrapText: true, Vertical: "top"}
	case key == "incomplete":
		s.Font = &excelize.Font{Bold: true, Color: "9C0006"}
		s.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFC7CE"}}
		s.Alignment = &excelize.Alignment{WrapText: true, Vertical: "top"}
	case key == "warning":
		s.Font = &excelize.Font{Bold: true, Color: "7F6000"}
		s.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFEB9C"}}
	case key == "complete":
		s.Font = &excelize.Font{Color: "006100"}
		s.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"C6EFCE"}}
	case strings.HasPrefix(key, "num:"):
		nf := key[len("num:"):]
		s.CustomNumFmt = &nf
	case strings.HasPrefix(key, "input:"):
		nf := key[len("input:"):]
		s.CustomNumFmt = &nf
		s.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFF2CC"}}
		s.Border = []excelize.Border{{Type: "bottom", Color: "BF9000", Style: 1}}
	case strings.HasPrefix(key, "total:"):
		nf := key[len("total:"):]
		s.CustomNumFmt = &nf
		s.Font = &excelize.Font{Bold: true}
		s.Border = []excelize.Border{{Type: "top", Color: "000000", Style: 1}}
	default:
		panic("xlsx: unknown style " + key)
	}
	id, err := b.f.NewStyle(s)
	if err != nil {
		panic(fmt.Sprintf("xlsx: style %s: %v", key, err)) // only constant formats reach here
	}
	if quote {
		key += qp
		b.quoteXfs[id] = true
	}
	b.styles[key] = id
	return id
}

// numFmt is the number format of a display unit: the value followed by
// its unit, so that every number carries its unit.
func numFmt(unit string) string {
	switch unit {
	case "", "count":
		return "#,##0"
	case "ms":
		return `#,##0.00" ms"`
	case "µs":
		return `#,##0.0" µs"`
	case "s":
		return `#,##0.000" s"`
	case schemas.UnitTokens:
		return `#,##0" tokens"`
	case schemas.UnitRequestsPerSecond:
		return `#,##0.000" req/s"`
	case schemas.UnitTokensPerSecond:
		return `#,##0.0" tokens/s"`
	case "%":
		return `0.0" %"`
	case "W":
		return `#,##0.0" W"`
	case "GiB":
		return `#,##0.00" GiB"`
	case "GPU-hours", "hours":
		return `#,##0.000000" h"`
	case "float":
		return "General"
	}
	if isCurrency(unit) {
		return `#,##0.00####" ` + unit + `"`
	}
	return "General"
}

// isCurrency reports an ISO 4217-shaped code (three upper-case letters),
// the only currency text allowed into a number format.
func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// displayScale returns the factor and unit a stored value is shown in on
// the sheets: durations in ms when the typical value is under a second.
func displayScale(unit string, typical float64) (float64, string) {
	if unit == schemas.UnitSeconds {
		if typical < 1 {
			return 1e3, "ms"
		}
		return 1, "s"
	}
	if unit == schemas.UnitRatio {
		return 100, "%"
	}
	return 1, unit
}

// widths sets column widths from 1. They are where wrapped text wraps;
// fitWidths narrows or widens each column to its cells.
func (b *book) widths(sheet string, ws ...float64) error {
	if b.colWidth[sheet] == nil {
		b.colWidth[sheet] = map[int]float64{}
	}
	for i, w := range ws {
		b.colWidth[sheet][i+1] = w
		c, _ := excelize.ColumnNumberToName(i + 1)
		if err := b.f.SetColWidth(sheet, c, c, w); err != nil {
			return err
		}
	}
	return nil
}

// freeze freezes the rows above row and the columns left of col.
func (b *book) freeze(sheet string, col, row int) error {
	return b.f.SetPanes(sheet, &excelize.Panes{Freeze: true, XSplit: col - 1, YSplit: row - 1,
		TopLeftCell: cell(col, row), ActivePane: "bottomRight"})
}

// header writes a header row and title row above it.
func (b *book) header(sheet, title string, row int, cols []string) error {
	if title != "" {
		if err := b.f.SetCellStr(sheet, cell(1, row-1), title); err != nil {
			return err
		}
		if err := b.f.SetCellStyle(sheet, cell(1, row-1), cell(1, row-1), b.style("title")); err != nil {
			return err
		}
	}
	if _, ok := b.headerRow[sheet]; !ok {
		b.headerRow[sheet] = row
	}
	b.headerRows[sheet] = append(b.headerRows[sheet], row)
	for i, c := range cols {
		if err := b.setText(sheet, i+1, row, c, "header"); err != nil {
			return err
		}
	}
	return nil
}

// setText writes a text cell with an optional style (and quotePrefix
// when the text is risky).
func (b *book) setText(sheet string, col, row int, s string, style string) error {
	ref := cell(col, row)
	if err := b.f.SetCellStr(sheet, ref, s); err != nil {
		return err
	}
	if style = textStyle(s, style); style != "" {
		return b.f.SetCellStyle(sheet, ref, ref, b.style(style))
	}
	return nil
}

// setNum writes a number with a number-format style (none when NaN or
// infinite: such cells are left empty).
func (b *book) setNum(sheet string, col, row int, v float64, style string) error {
	if v != v || v > 1e308 || v < -1e308 {
		return nil
	}
	ref := cell(col, row)
	if err := b.f.SetCellFloat(sheet, ref, v, -1, 64); err != nil {
		return err
	}
	if style != "" {
		return b.f.SetCellStyle(sheet, ref, ref, b.style(style))
	}
	return nil
}

// setFormula writes a formula built from constants and generated
// references (never from input text).
func (b *book) setFormula(sheet string, col, row int, formula, style string) error {
	ref := cell(col, row)
	if err := b.f.SetCellFormula(sheet, ref, formula); err != nil {
		return err
	}
	b.formulas = append(b.formulas, formulaCell{sheet, ref, formula})
	if style != "" {
		return b.f.SetCellStyle(sheet, ref, ref, b.style(style))
	}
	return nil
}

// notes writes lines of notes from row, returning the next free row.
func (b *book) notes(sheet string, row int, lines []string) (int, error) {
	for _, n := range lines {
		if err := b.setText(sheet, 1, row, n, "note"); err != nil {
			return row, err
		}
		row++
	}
	return row, nil
}

// name records a workbook-level defined name for an absolute reference.
func (b *book) name(n, sheet string, col, row int, comment string) {
	b.names = append(b.names, excelize.DefinedName{Name: n, RefersTo: abs(sheet, col, row), Comment: comment})
}
