package render

import (
	"bytes"
	"encoding/csv"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
)

// TestCSVOneTable: several tables are one rectangular CSV with a table
// column, no comment lines, and estimates keep their intervals.
func TestCSVOneTable(t *testing.T) {
	est := analysis.Estimate{Stat: analysis.StatValue, Value: 2, Lo: 1.5, Hi: 2.5, Confidence: 0.95}
	noIv := analysis.Estimate{Stat: analysis.StatValue, Value: 3, Lo: math.NaN(), Hi: math.NaN()}
	a := &Table{Title: "A", Columns: []string{"metric", "value"}}
	a.AddRow(T("ttft"), EstimateCell(est, "s"))
	a.AddRow(T("=cmd"), EstimateCell(noIv, "s"))
	b := &Table{Title: "# B", Columns: []string{"metric", "note"}}
	b.AddRow(T("tpot"), T("x"))
	var buf bytes.Buffer
	if err := Write(&buf, CSV, []*Table{a, b}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll() // fails on rows of another width
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"table", "metric", "value", "value_lo", "value_hi", "note"},
		{"A", "ttft", "2", "1.5", "2.5", ""},
		{"A", "'=cmd", "3", "", "", ""},
		{"# B", "tpot", "", "", "", "x"},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got %q\nwant %q", recs, want)
	}
	buf.Reset()
	if err := Write(&buf, CSV, []*Table{a}); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\n"); first != "metric,value,value_lo,value_hi" {
		t.Errorf("one table's header = %q", first)
	}
}
