package xlsx_test

import (
	"archive/zip"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/render/xlsx"
)

// TestCharts: every chart's value axis starts at zero, its series has
// error bars from the Summary's intervals (plus = high - estimate,
// minus = estimate - low), and its title says what it shows.
func TestCharts(t *testing.T) {
	dir := t.TempDir()
	rep := validatedDemo(t, dir)
	path := writeBook(t, rep, dir, xlsx.Options{NoRequests: true})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	barRe := regexp.MustCompile(`<errBars>.*?<plus><numRef><f>([^<]+)</f>.*?<minus><numRef><f>([^<]+)</f>.*?</errBars><cat>.*?<val><numRef><f>([^<]+)</f>`)
	titleRe := regexp.MustCompile(`<a:t>([^<]+)</a:t>`)
	charts := 0
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/charts/chart") {
			continue
		}
		charts++
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		x := string(data)
		valAx := x[strings.Index(x, "<valAx>"):]
		if !strings.Contains(valAx[:strings.Index(valAx, "</scaling>")], `<min val="0">`) {
			t.Errorf("%s: the value axis does not start at zero", zf.Name)
		}
		if m := titleRe.FindStringSubmatch(x); m == nil || !strings.Contains(m[1], " by run (input order, not ranked; bars: interval)") {
			t.Errorf("%s: title %v", zf.Name, m)
		}
		m := barRe.FindStringSubmatch(x)
		if m == nil {
			t.Errorf("%s: no error bars", zf.Name)
			continue
		}
		plus, minus, values := cells(t, m[1]), cells(t, m[2]), cells(t, m[3])
		for i := range values {
			est := calcRef(t, f, values[i])
			lo, hi := calcRef(t, f, shift(values[i], 1)), calcRef(t, f, shift(values[i], 2))
			p, mi := calcRef(t, f, plus[i]), calcRef(t, f, minus[i])
			if !(lo <= est && est <= hi) || math.Abs(p-(hi-est)) > 1e-9*hi || math.Abs(mi-(est-lo)) > 1e-9*hi {
				t.Errorf("%s run %d: %v [%v, %v], error bars +%v -%v", zf.Name, i+1, est, lo, hi, p, mi)
			}
		}
	}
	if charts != 4 {
		t.Errorf("%d charts, want 4 (TTFT, TPOT, throughput, cost)", charts)
	}
}

// cells expands Sheet!$A$3:$A$4 into Sheet!A3, Sheet!A4.
func cells(t *testing.T, rng string) []string {
	t.Helper()
	sheet, r, _ := strings.Cut(strings.ReplaceAll(rng, "$", ""), "!")
	from, to, _ := strings.Cut(r, ":")
	c1, r1, err1 := excelize.CellNameToCoordinates(from)
	_, r2, err2 := excelize.CellNameToCoordinates(to)
	if err1 != nil || err2 != nil {
		t.Fatalf("range %q", rng)
	}
	var out []string
	for row := r1; row <= r2; row++ {
		c, _ := excelize.CoordinatesToCellName(c1, row)
		out = append(out, sheet+"!"+c)
	}
	return out
}

// shift moves Sheet!A3 right by n columns.
func shift(ref string, n int) string {
	sheet, c, _ := strings.Cut(ref, "!")
	col, row, _ := excelize.CellNameToCoordinates(c)
	s, _ := excelize.CoordinatesToCellName(col+n, row)
	return sheet + "!" + s
}

func calcRef(t *testing.T, f *excelize.File, ref string) float64 {
	t.Helper()
	sheet, c, _ := strings.Cut(ref, "!")
	s, err := f.CalcCellValue(sheet, c, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s = %q", ref, s)
	}
	return v
}
