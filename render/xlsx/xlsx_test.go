package xlsx_test

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
)

// captureReport is the report of a capture-like bundle (timestamped
// window, hostile model name) with demo bundles beside it, costed from a
// FOCUS bill and a quote.
func captureReport(t *testing.T) (*analysis.Report, string) {
	t.Helper()
	dir := t.TempDir()
	capture := filepath.Join(dir, "capture.bundle")
	captureBundle(t, capture)
	bundles := append([]string{capture}, demoBundles(t, dir)...)
	bill := writeFile(t, dir, "focus.csv", focusBill)
	quote := writeFile(t, dir, "quote.yaml", quoteYAML)
	rep, err := analysis.LoadReport(context.Background(), bundles, analysis.ReportOptions{VerdictVersion: "test", Resamples: 2000,
		Billing: []string{bill}, Quotes: []string{quote}})
	if err != nil {
		t.Fatal(err)
	}
	return rep, dir
}

// writeBook writes rep with its figures and returns the path.
func writeBook(t *testing.T, rep *analysis.Report, dir string, o xlsx.Options) string {
	t.Helper()
	figs, _, err := plot.Report(rep, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		o.Pictures = append(o.Pictures, xlsx.Picture{Name: f.Name, Title: f.Title, Caption: f.Caption, PNG: f.PNG})
	}
	if o.Requests == nil {
		o.Requests = analysis.RequestRows(rep)
	}
	path := filepath.Join(dir, "report.xlsx")
	if err := xlsx.Write(context.Background(), path, rep, o); err != nil {
		t.Fatal(err)
	}
	return path
}

// nameCell returns the sheet and cell a defined name refers to.
func nameCell(t *testing.T, f *excelize.File, name string) (string, string) {
	t.Helper()
	for _, d := range f.GetDefinedName() {
		if d.Name == name {
			sheet, ref, _ := strings.Cut(d.RefersTo, "!")
			return sheet, strings.ReplaceAll(ref, "$", "")
		}
	}
	t.Fatalf("no defined name %s", name)
	return "", ""
}

func calcName(t *testing.T, f *excelize.File, name string) float64 {
	t.Helper()
	sheet, ref := nameCell(t, f, name)
	s, err := f.CalcCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s = %q: %v", name, s, err)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestFormulasLive: the Costs sheet's totals are formulas that compute
// verdict's figures, and follow a changed rate.
func TestFormulasLive(t *testing.T) {
	rep, dir := captureReport(t)
	f, err := excelize.OpenFile(writeBook(t, rep, dir, xlsx.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, r := range rep.Runs {
		s := "_" + strconv.Itoa(i+1)
		q := r.Cost.Quote
		if q == nil {
			t.Fatalf("%s: no quote cost: %s", r.Name, r.Cost.QuoteErr)
		}
		for name, want := range map[string]float64{"GPU_COST": q.GPUCost.Float64(), "OTHER_LISTED_COST": q.OtherListedCost.Float64(),
			"TOTAL_COST": q.TotalCost.Float64(), "GPU_HOURS": q.GPU.Quantity.Float64()} {
			if got := calcName(t, f, name+s); !near(got, want) {
				t.Errorf("%s%s = %v, verdict computed %v", name, s, got, want)
			}
		}
		for _, u := range r.Cost.QuoteUnits {
			name := map[string]string{costing.CostPer1MOutputTokens: "COST_PER_1M_OUTPUT_TOKENS", costing.CostPerSuccessfulRequest: "COST_PER_REQUEST"}[u.Metric]
			if name == "" || math.IsNaN(u.Value) {
				continue
			}
			if got := calcName(t, f, name+s); !near(got, u.Value) {
				t.Errorf("%s%s = %v, verdict computed %v", name, s, got, u.Value)
			}
			if u.Metric == costing.CostPer1MOutputTokens && !math.IsNaN(u.Lo) {
				if lo, hi := calcName(t, f, name+"_LO"+s), calcName(t, f, name+"_HI"+s); !near(lo, u.Lo) || !near(hi, u.Hi) {
					t.Errorf("%s interval [%v, %v], verdict [%v, %v]", name, lo, hi, u.Lo, u.Hi)
				}
			}
		}
	}
	// The capture run is billed: two prorated hourly rows, 30 and 15
	// minutes of 98.32.
	c := rep.Runs[0].Cost
	if c.UnitsSource != "bill" || c.Bill.Total == nil {
		t.Fatalf("capture run: source %q, bill %+v", c.UnitsSource, c.Bill)
	}
	if got := calcName(t, f, "BILL_TOTAL_COST_1"); !near(got, 73.74) || !near(c.Bill.Total.Amount.Float64(), 73.74) {
		t.Errorf("bill total %v (verdict %v), want 73.74", got, c.Bill.Total.Amount)
	}
	// The Summary's cost cell is a formula over the source's names.
	fs, err := f.GetCellFormula(xlsx.SheetSummary, summaryCostCell(t, f, 3))
	if err != nil || fs != "BILL_COST_PER_1M_OUTPUT_TOKENS_1" {
		t.Errorf("Summary cost formula %q (%v)", fs, err)
	}

	// A reviewer doubles the GPU rate of the first demo platform: its
	// GPU cost and total follow.
	sheet, ref := nameCell(t, f, "GPU_RATE_2")
	q := rep.Runs[1].Cost.Quote
	if err := f.SetCellFloat(sheet, ref, 2*q.GPU.Rate.Float64(), -1, 64); err != nil {
		t.Fatal(err)
	}
	wantTotal := 2*q.GPUCost.Float64() + q.OtherListedCost.Float64()
	if got := calcName(t, f, "TOTAL_COST_2"); !near(got, wantTotal) {
		t.Errorf("after doubling the rate TOTAL_COST_2 = %v, want %v", got, wantTotal)
	}
}

// summaryCostCell finds the Summary's cost column in a row.
func summaryCostCell(t *testing.T, f *excelize.File, row int) string {
	t.Helper()
	hdr, err := f.GetRows(xlsx.SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hdr[1] {
		if h == "cost per 1M output tokens" {
			c, _ := excelize.CoordinatesToCellName(i+1, row)
			return c
		}
	}
	t.Fatal("no cost column in the Summary")
	return ""
}

// formulaOK matches the formulas this package may write: names,
// references, numbers, arithmetic and a few functions, never a string.
var formulaOK = regexp.MustCompile(`^([A-Z][A-Z0-9_]*|(Summary!)?\$?[A-Z]{1,3}\$?[0-9]+|[0-9.]+|[-+*/(),:]|SUM\(|MAX\(|CEILING\(|FLOOR\(|ROUND\()+$`)

// TestNoFormulaInjection: a hostile model name and label end up as text
// as given (no apostrophe) with the quotePrefix style, never as a formula; every formula in the
// workbook is one the package generates.
func TestNoFormulaInjection(t *testing.T) {
	rep, dir := captureReport(t)
	path := writeBook(t, rep, dir, xlsx.Options{})
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	formula := regexp.MustCompile(`<f>([^<]*)</f>`)
	var texts strings.Builder
	nformulas := 0
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/worksheets/sheet") && zf.Name != "xl/sharedStrings.xml" {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range formula.FindAllStringSubmatch(string(data), -1) {
			nformulas++
			if strings.Contains(m[1], "HYPERLINK") || !formulaOK.MatchString(m[1]) {
				t.Errorf("%s: unexpected formula %q", zf.Name, m[1])
			}
		}
		texts.Write(data)
	}
	if nformulas < 20 {
		t.Errorf("only %d formulas: the Costs sheet should be live", nformulas)
	}
	all := texts.String()
	for _, want := range []string{`=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)`, `@SUM(1+1)`, `-1 upstream reset`} {
		if !strings.Contains(all, want) && !strings.Contains(all, strings.ReplaceAll(want, "&#34;", "&quot;")) {
			t.Errorf("workbook lacks the text %s", want)
		}
	}
	if strings.Contains(all, "&#39;=") || strings.Contains(all, "'=") || strings.Contains(all, "&#39;@") {
		t.Error("the workbook stores an apostrophe in front of text")
	}

	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	quoted := quotePrefixXfs(t, path)
	// Summary row 3 is the capture run: its model cell is text, as
	// given, with the quotePrefix style.
	for _, c := range []struct{ sheet, ref, want string }{
		{xlsx.SheetSummary, "D3", hostile},
		{xlsx.SheetSummary, "A3", "@SUM(1+1)"},
	} {
		v, _ := f.GetCellValue(c.sheet, c.ref)
		typ, _ := f.GetCellType(c.sheet, c.ref)
		if v != c.want || typ == excelize.CellTypeFormula {
			t.Errorf("%s!%s: %q (type %v), want the text %q", c.sheet, c.ref, v, typ, c.want)
		}
		if fs, _ := f.GetCellFormula(c.sheet, c.ref); fs != "" {
			t.Errorf("%s!%s has formula %q", c.sheet, c.ref, fs)
		}
		if id, _ := f.GetCellStyle(c.sheet, c.ref); !quoted[id] {
			t.Errorf("%s!%s: style %d lacks quotePrefix", c.sheet, c.ref, id)
		}
	}
	// Plain text does not get it.
	if id, _ := f.GetCellStyle(xlsx.SheetSummary, "C3"); quoted[id] {
		t.Errorf("Summary!C3 (%s) has quotePrefix", rep.Runs[0].Run.ID)
	}
}

// quotePrefixXfs reads the style IDs (cellXfs indexes) that carry
// quotePrefix="1" from a workbook's style sheet.
func quotePrefixXfs(t *testing.T, path string) map[int]bool {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open("xl/styles.xml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	xfs := regexp.MustCompile(`(?s)<cellXfs[^>]*>(.*?)</cellXfs>`).FindSubmatch(data)
	if xfs == nil {
		t.Fatal("no cellXfs")
	}
	out := map[int]bool{}
	for i, m := range regexp.MustCompile(`<xf\b[^>]*>`).FindAll(xfs[1], -1) {
		if strings.Contains(string(m), `quotePrefix="1"`) {
			out[i] = true
		}
	}
	return out
}

// TestQuotePrefix: launch arguments that begin with '-' are stored as
// given, without an apostrophe, in a cell whose style has quotePrefix.
func TestQuotePrefix(t *testing.T) {
	dir := t.TempDir()
	rep := validatedDemo(t, dir)
	path := writeBook(t, rep, dir, xlsx.Options{NoRequests: true})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	quoted := quotePrefixXfs(t, path)
	rows, err := f.GetRows(xlsx.SheetRuns)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, r := range rows {
		for j, v := range r {
			if !strings.HasPrefix(v, "--max-num-seqs 256") && !strings.HasPrefix(v, "'--max-num-seqs") {
				continue
			}
			found++
			ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
			if id, _ := f.GetCellStyle(xlsx.SheetRuns, ref); v[0] == '\'' || !quoted[id] {
				t.Errorf("Runs!%s = %q, style %d (quotePrefix %v): want the text as given, with quotePrefix", ref, v, id, quoted[id])
			}
		}
	}
	if found == 0 {
		t.Fatal("the Runs sheet has no '--max-num-seqs 256' launch arguments")
	}
}

// TestRequestsCap: the Requests sheet stops at its cap and says how many
// requests it left out.
func TestRequestsCap(t *testing.T) {
	rep, dir := captureReport(t)
	path := filepath.Join(dir, "capped.xlsx")
	if err := xlsx.Write(context.Background(), path, rep, xlsx.Options{Requests: analysis.RequestRows(rep), MaxRequestRows: 100}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(xlsx.SheetRequests)
	if err != nil {
		t.Fatal(err)
	}
	total := 400 + 240 + 240
	if len(rows) != 1+100+1 || rows[0][0] != "run" {
		t.Fatalf("%d rows, header %q", len(rows), rows[0])
	}
	if note := rows[len(rows)-1][0]; !strings.Contains(note, fmt.Sprintf("%d more requests are not shown", total-100)) {
		t.Errorf("closing note %q", note)
	}
	// TTFT in ms and the hostile error text as text.
	if rows[1][8] == "" || rows[8][17] != "-1 upstream reset" {
		t.Errorf("row 2 TTFT %q; row 9 error %q", rows[1][8], rows[8][17])
	}
	about, _ := f.GetRows(xlsx.SheetAbout)
	found := false
	for _, r := range about {
		if len(r) > 0 && strings.Contains(r[0], "more requests are not shown") {
			found = true
		}
	}
	if !found {
		t.Error("the About sheet does not mention the cap")
	}
}

// TestSheets checks the demo workbook's sheets, frozen headers and
// Summary against the report.
func TestSheets(t *testing.T) {
	dir := t.TempDir()
	rep, err := analysis.LoadReport(context.Background(), demoBundles(t, dir), analysis.ReportOptions{Resamples: 1000,
		Quotes: []string{demo + "quote-a.yaml", demo + "quote-b.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(writeBook(t, rep, dir, xlsx.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{"Verdict", "Summary", "Runs", "Metrics", "Validation", "Costs", "Charts", "Plots", "Requests", "About"}
	if got := f.GetSheetList(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sheets %v, want %v", got, want)
	}
	for _, s := range []string{"Summary", "Runs", "Metrics", "Requests"} {
		p, err := f.GetPanes(s)
		if err != nil || !p.Freeze {
			t.Errorf("%s: header not frozen (%v)", s, err)
		}
	}
	rows, _ := f.GetRows(xlsx.SheetSummary)
	if rows[2][0] != "a" || rows[3][0] != "b" || rows[2][len(rows[1])-1] != "complete" {
		t.Errorf("Summary rows %q / %q", rows[2], rows[3])
	}
	// TTFT p99 in ms with its unit in the number format.
	col := -1
	for i, h := range rows[1] {
		if h == "TTFT p99 (ms)" {
			col = i + 1
		}
	}
	ref, _ := excelize.CoordinatesToCellName(col, 3)
	raw, _ := f.GetCellValue(xlsx.SheetSummary, ref, excelize.Options{RawCellValue: true})
	shown, _ := f.GetCellValue(xlsx.SheetSummary, ref)
	h, _ := rep.Runs[0].Headline("ttft_p99")
	if v, _ := strconv.ParseFloat(raw, 64); !near(v, h.Est.Value*1e3) || !strings.HasSuffix(shown, " ms") {
		t.Errorf("TTFT p99 cell %s shown %q, want %v ms", raw, shown, h.Est.Value*1e3)
	}
	req, _ := f.GetRows(xlsx.SheetRequests)
	if len(req) != 1+480 {
		t.Errorf("%d request rows, want 480", len(req)-1)
	}
	pics, err := f.GetPictureCells(xlsx.SheetPlots)
	if err != nil || len(pics) < 10 {
		t.Errorf("%d pictures on the Plots sheet (%v)", len(pics), err)
	}
	if v, _ := f.GetCellValue(xlsx.SheetValidation, "A2"); !strings.Contains(v, "validation not available") {
		t.Errorf("Validation sheet: %q", v)
	}
}

// TestLibreOffice opens the workbook in LibreOffice, which recalculates
// every formula on load, exports each sheet to CSV, and checks that the
// formulas give the totals verdict computed, that a changed rate moves
// them, and that a hostile model name arrives as plain text.
func TestLibreOffice(t *testing.T) {
	soffice := lookPath("soffice", "libreoffice")
	if soffice == "" {
		if os.Getenv("VERDICT_REQUIRE_CLIENTS") != "" {
			t.Fatal("LibreOffice is not installed, and VERDICT_REQUIRE_CLIENTS says it must be")
		}
		t.Skip("LibreOffice is not installed (apt-get install libreoffice-calc); .ci/run installs it")
	}
	rep, dir := captureReport(t)
	path := writeBook(t, rep, dir, xlsx.Options{})
	// A second copy with the first demo platform's GPU rate doubled.
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sheet, ref := nameCell(t, f, "GPU_RATE_2")
	q := rep.Runs[1].Cost.Quote
	f.SetCellFloat(sheet, ref, 2*q.GPU.Rate.Float64(), -1, 64)
	changed := filepath.Join(dir, "changed.xlsx")
	if err := f.SaveAs(changed); err != nil {
		t.Fatal(err)
	}
	f.Close()

	costs := func(book string) map[string][]string {
		csvs := convertCSV(t, soffice, book, dir)
		out := map[string][]string{}
		for _, r := range csvs["Costs"] {
			if len(r) > 1 {
				out[r[0]] = r
			}
		}
		out["#summary-model"] = csvs["Summary"][2][3:4]
		return out
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("not a number: %q", s)
		}
		return v
	}
	lo := costs(path)
	for i, r := range rep.Runs {
		s := "_" + strconv.Itoa(i+1)
		c := r.Cost
		checks := map[string]float64{"TOTAL_COST" + s: c.Quote.TotalCost.Float64(), "GPU_COST" + s: c.Quote.GPUCost.Float64()}
		if u, ok := c.Unit(costing.CostPer1MOutputTokens); ok && c.UnitsSource == "quote" {
			checks["COST_PER_1M_OUTPUT_TOKENS"+s] = u.Value
		}
		if c.Bill != nil && c.Bill.Total != nil {
			checks["BILL_TOTAL_COST"+s] = c.Bill.Total.Amount.Float64()
		}
		for name, want := range checks {
			row, ok := lo[name]
			if !ok {
				t.Errorf("LibreOffice's Costs sheet has no %s", name)
				continue
			}
			// Column B is LibreOffice's result, column E verdict's figure.
			if got := num(row[1]); math.Abs(got-want) > 1e-9*math.Max(1, want) || math.Abs(num(row[4])-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s: LibreOffice %s, verdict's cell %s, verdict computed %v", name, row[1], row[4], want)
			}
		}
	}
	if got := lo["#summary-model"][0]; got != hostile {
		t.Errorf("LibreOffice shows the hostile model as %q, want the text %s", got, hostile)
	}
	ch := costs(changed)
	want := 2*q.GPUCost.Float64() + q.OtherListedCost.Float64()
	if got := num(ch["TOTAL_COST_2"][1]); math.Abs(got-want) > 1e-9 {
		t.Errorf("after doubling GPU_RATE_2, LibreOffice computes TOTAL_COST_2 = %v, want %v", got, want)
	}
}

func lookPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// convertCSV converts every sheet of book to CSV with LibreOffice
// (computed values, not formatted text) and reads them by sheet name.
func convertCSV(t *testing.T, soffice, book, dir string) map[string][][]string {
	t.Helper()
	out, err := os.MkdirTemp(dir, "lo-")
	if err != nil {
		t.Fatal(err)
	}
	profile := loProfile(t, dir)
	// Filter options: comma, double quote, UTF-8, from line 1, default
	// cell format, language, no quoting of text, detect numbers, values
	// rather than formatted text, no formulas, keep spaces, every sheet.
	filter := "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"
	cmd := exec.Command(soffice, "--headless", "--norestore", "-env:UserInstallation=file://"+profile, "--convert-to", filter, "--outdir", out, book)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	done := make(chan struct{})
	var msg []byte
	go func() { msg, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("LibreOffice did not finish in 3 minutes: %s", msg)
	}
	if err != nil {
		t.Fatalf("LibreOffice: %v: %s", err, msg)
	}
	stem := strings.TrimSuffix(filepath.Base(book), ".xlsx")
	sheets := map[string][][]string{}
	for _, s := range []string{"Summary", "Costs"} {
		data, err := os.ReadFile(filepath.Join(out, stem+"-"+s+".csv"))
		if err != nil {
			t.Fatalf("%v (LibreOffice said: %s)", err, msg)
		}
		r := csv.NewReader(strings.NewReader(string(data)))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		sheets[s] = recs
	}
	return sheets
}

// loProfile makes a LibreOffice user profile that recalculates every
// formula of an xlsx file on load (Tools > Options > Calc > Formula >
// Recalculation on file load: Always; OOXMLRecalcMode 0). By default
// LibreOffice shows the values stored in formula cells, as the workbook
// now has them, and would not show what its formulas compute after an
// edit made outside it.
func loProfile(t *testing.T, dir string) string {
	t.Helper()
	profile := filepath.Join(dir, "lo-profile")
	if err := os.MkdirAll(filepath.Join(profile, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	const xcu = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`
	writeFile(t, filepath.Join(profile, "user"), "registrymodifications.xcu", xcu)
	return profile
}

// TestWriteAtomic: a failed write leaves no file behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	rep := &analysis.Report{Runs: []*analysis.ReportRun{{Name: "x", Run: schemas.Run{ID: "x"}}}}
	bad := xlsx.Options{Pictures: []xlsx.Picture{{Name: "broken", PNG: []byte("not a png")}}}
	if err := xlsx.Write(context.Background(), filepath.Join(dir, "r.xlsx"), rep, bad); err == nil {
		t.Fatal("a broken picture should fail the write")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
