package xlsx_test

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/schemas"
)

type fixedRows []analysis.RequestRow

func (f fixedRows) Requests(ctx context.Context, fn func(*analysis.RequestRow) error) error {
	for i := range f {
		if err := fn(&f[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestRowXMLMatchesStreamWriter writes hostile text and awkward numbers
// through the Requests sheet's own row writer and, for reference, the
// same values through excelize's StreamWriter.SetRow (the sheet's former
// writer), and reads both back with excelize: every cell shows the same
// text, holds the same number (to Excel's 15 digits), and risky text has
// the quotePrefix style in both (and +Inf here).
func TestRowXMLMatchesStreamWriter(t *testing.T) {
	texts := []string{"plain", "=1+1", "@SUM(1)", "-2", "+x", "\tlead tab", " padded ", "a\nb", "a\r\nb", `<&>"'`,
		"_x0041_ literal", "ctl\x01char", "bad \xff utf8", "emoji 🚀 ü", "", strings.Repeat("é", 20000)}
	floats := []float64{0, math.Copysign(0, -1), 1e-7, 0.1 + 0.2, 123456.789012345678, 1e20, -3.5, 2.5e-300, math.NaN(), math.Inf(1)}
	run := &analysis.ReportRun{Name: "run =cmd", Run: schemas.Run{ID: "r"}}
	var rows fixedRows
	for i := range max(len(texts), len(floats)) {
		q := &schemas.Request{RunID: texts[i%len(texts)], Index: int64(i), Status: texts[(i+1)%len(texts)], Phase: texts[(i+2)%len(texts)],
			Error: texts[(i+3)%len(texts)], StartS: schemas.Some(floats[i%len(floats)]), TTFTS: schemas.Some(floats[(i+1)%len(floats)]),
			InputTokens: schemas.Some(int64(i) * 1e12)}
		if i%3 == 0 {
			q.EndS = schemas.Some(floats[(i+2)%len(floats)])
		}
		rows = append(rows, analysis.RequestRow{Run: run, Request: q, MaxChunkGap: schemas.Some(floats[(i+3)%len(floats)])})
	}
	rep, dir := captureReport(t)
	path := filepath.Join(dir, "rows.xlsx")
	if err := xlsx.Write(context.Background(), path, rep, xlsx.Options{Requests: rows}); err != nil {
		t.Fatal(err)
	}
	got, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	quoted := quotePrefixXfs(t, path)

	// The reference: the same cells through StreamWriter.SetRow.
	ref := excelize.NewFile()
	defer ref.Close()
	qstyle, _ := ref.NewStyle(&excelize.Style{Protection: &excelize.Protection{}})
	sw, _ := ref.NewStreamWriter("Sheet1")
	text := func(s string) any {
		if s == "" {
			return nil
		}
		if xlsxRisky(s) {
			return excelize.Cell{StyleID: qstyle, Value: s}
		}
		return s
	}
	opt := func(o schemas.Opt[float64], scale float64) any {
		if !o.OK {
			return nil
		}
		return o.V * scale
	}
	for i, r := range rows {
		vals := make([]any, 18)
		vals[0], vals[1], vals[2], vals[3], vals[4] = text(run.Name), text(r.RunID), r.Index, text(r.Status), text(r.Phase)
		vals[5], vals[6], vals[8], vals[16], vals[17] = opt(r.StartS, 1), opt(r.EndS, 1), opt(r.TTFTS, 1e3), opt(r.MaxChunkGap, 1e3), text(r.Error)
		vals[12] = r.InputTokens.V
		if err := sw.SetRow("A"+strconv.Itoa(i+2), vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		for col := 1; col <= 18; col++ {
			c, _ := excelize.CoordinatesToCellName(col, i+2)
			g, _ := got.GetCellValue(xlsx.SheetRequests, c, excelize.Options{RawCellValue: true})
			w, _ := ref.GetCellValue("Sheet1", c, excelize.Options{RawCellValue: true})
			gt, _ := got.GetCellType(xlsx.SheetRequests, c)
			wt, _ := ref.GetCellType("Sheet1", c)
			gf, gerr := strconv.ParseFloat(g, 64)
			wf, werr := strconv.ParseFloat(w, 64)
			sameNumber := gerr == nil && werr == nil && (gf == wf || math.Abs(gf-wf) <= 1e-14*math.Abs(wf))
			if (g != w && !sameNumber) || gt != wt {
				t.Errorf("%s: %q (type %v), StreamWriter gives %q (type %v)", c, abbrev(g), gt, abbrev(w), wt)
			}
			gs, _ := got.GetCellStyle(xlsx.SheetRequests, c)
			ws, _ := ref.GetCellStyle("Sheet1", c)
			// +Inf and -Inf, text for excelize too, are quoted here.
			if want := ws == qstyle || gt == excelize.CellTypeInlineString && xlsxRisky(g); quoted[gs] != want {
				t.Errorf("%s (%q): quotePrefix %v, want %v", c, abbrev(g), quoted[gs], want)
			}
		}
	}
}

// xlsxRisky is the package's rule for text that needs quotePrefix: the
// text render.SafeText would change.
func xlsxRisky(s string) bool { return render.SafeText(s) != s }

func abbrev(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
