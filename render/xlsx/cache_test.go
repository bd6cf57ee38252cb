package xlsx_test

import (
	"archive/zip"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/xlsx"
)

// TestCachedValues: every formula cell carries its value as a number
// beside the formula, so that a reader that does not calculate shows
// it; the value is what the formula computes.
func TestCachedValues(t *testing.T) {
	rep, dir := captureReport(t)
	path := writeBook(t, rep, dir, xlsx.Options{})
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheetOf := map[string]string{}
	for id, name := range f.GetSheetMap() {
		sheetOf["xl/worksheets/sheet"+strconv.Itoa(id)+".xml"] = name
	}
	cellRe := regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"([^>]*)><f>([^<]*)</f>(?:<v>([^<]*)</v>)?`)
	n := 0
	for _, zf := range zr.File {
		sheet, ok := sheetOf[zf.Name]
		if !ok {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		for _, m := range cellRe.FindAllStringSubmatch(string(data), -1) {
			n++
			ref, attrs, formula, v := m[1], m[2], m[3], m[4]
			if strings.Contains(attrs, `t="`) {
				t.Errorf("%s!%s (%s): typed %s, want a number", sheet, ref, formula, attrs)
			}
			cached, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Errorf("%s!%s (%s): cached value %q is not a number", sheet, ref, formula, v)
				continue
			}
			s, err := f.CalcCellValue(sheet, ref, excelize.Options{RawCellValue: true})
			calc, _ := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(calc-cached) > 1e-12*math.Max(1, math.Abs(calc)) {
				t.Errorf("%s!%s (%s): cached %v, computes %q (%v)", sheet, ref, formula, cached, s, err)
			}
		}
	}
	if n < 40 {
		t.Errorf("%d formula cells", n)
	}
	// The Summary's cost cell shows its number, formatted, to a reader
	// that takes the stored value.
	shown, _ := f.GetCellValue(xlsx.SheetSummary, summaryCostCell(t, f, 3))
	if !strings.HasSuffix(shown, " USD") || strings.HasPrefix(shown, " ") {
		t.Errorf("Summary cost cell shows %q", shown)
	}
}

// edited is the demo workbook with platform b's run time ten times as
// long and its GPU rate doubled, and what the Costs sheet should then
// say, computed by hand from quote-b.yaml: 1 GPU at 1.19 USD per
// GPU-hour billed per minute rounded up (minimum 1), and 200 GB of
// storage at 0.10 USD per GB-month of 730 hours, billed by the second.
type edited struct {
	path string
	want map[string]float64
	// lo and hi are cost per 1M output tokens' interval.
	lo, hi float64
}

func editDemo(t *testing.T, dir string) (*analysis.Report, edited) {
	t.Helper()
	rep := validatedDemo(t, dir)
	path := writeBook(t, rep, dir, xlsx.Options{NoRequests: true})
	c := rep.Runs[1].Cost
	q := c.Quote
	measured := q.GPU.RunSeconds.Float64()
	if q.GPU.Rate.Float64() != 1.19 || q.GPU.BillingUnitSeconds != 60 || len(q.Other) != 1 || q.Other[0].Rate.Float64() != 0.10 {
		t.Fatalf("quote-b changed: %+v", q)
	}
	rs := 10 * measured
	billed := math.Max(math.Ceil(rs/60), 1)
	gpuHours := billed * 60 / 3600
	gpu := 2 * 1.19 * gpuHours
	storageQty := 200 * rs / (730 * 3600)
	storage := 0.10 * storageQty
	total := gpu + storage
	outTok := float64(c.Window.OutputTokens) * rs / measured
	reqs := float64(c.Window.SuccessfulRequests) * rs / measured
	tp := c.Throughput.OutputTokensPerSecond
	e := edited{want: map[string]float64{
		"BILLED_UNITS_2": billed, "GPU_HOURS_2": gpuHours, "GPU_COST_2": gpu, "OTHER_LISTED_COST_2": storage,
		"TOTAL_COST_2": total, "OUTPUT_TOKENS_2": outTok, "SUCCESSFUL_REQUESTS_2": reqs,
		"COST_PER_REQUEST_2": total / reqs, "COST_PER_1M_OUTPUT_TOKENS_2": total * 1e6 / outTok,
		"COST_PER_1M_OUTPUT_TOKENS_LO_2": total / rs * 1e6 / tp.Hi, "COST_PER_1M_OUTPUT_TOKENS_HI_2": total / rs * 1e6 / tp.Lo,
	}}
	// The steady state follows the rates, not the run time: 2 x 1.19 USD
	// per GPU-hour for 1 GPU plus 0.10 USD per GB-month of 200 GB (730 h a
	// month) per hour, over the measured output token throughput.
	steady := 2*1.19 + 0.10*200/730
	e.want["STEADY_RATE_PER_HOUR_2"] = steady
	e.want["STEADY_COST_PER_1M_OUTPUT_TOKENS_2"] = steady / 3600 * 1e6 / tp.Point
	e.want["STEADY_COST_PER_1M_OUTPUT_TOKENS_LO_2"] = steady / 3600 * 1e6 / tp.Hi
	e.want["STEADY_COST_PER_1M_OUTPUT_TOKENS_HI_2"] = steady / 3600 * 1e6 / tp.Lo
	e.lo, e.hi = e.want["COST_PER_1M_OUTPUT_TOKENS_LO_2"], e.want["COST_PER_1M_OUTPUT_TOKENS_HI_2"]
	if p := e.want["COST_PER_1M_OUTPUT_TOKENS_2"]; p < e.lo || p > e.hi {
		t.Fatalf("by hand the cost per 1M output tokens %v lies outside [%v, %v]", p, e.lo, e.hi)
	}

	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, v := range map[string]float64{"RUN_SECONDS_2": rs, "GPU_RATE_2": 2 * 1.19} {
		sheet, ref := nameCell(t, f, name)
		if err := f.SetCellFloat(sheet, ref, v, -1, 64); err != nil {
			t.Fatal(err)
		}
	}
	e.path = filepath.Join(dir, "edited.xlsx")
	if err := f.SaveAs(e.path); err != nil {
		t.Fatal(err)
	}
	return rep, e
}

// TestRunSecondsEdit: with RUN_SECONDS and GPU_RATE edited, every figure
// that depends on run time follows (the storage line and the counts too),
// and the cost per 1M output tokens stays inside its interval.
func TestRunSecondsEdit(t *testing.T) {
	_, e := editDemo(t, t.TempDir())
	f, err := excelize.OpenFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, want := range e.want {
		if got := calcName(t, f, name); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, by hand %v", name, got, want)
		}
	}
}
