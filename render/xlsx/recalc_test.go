package xlsx_test

import (
	"math"
	"os"
	"strconv"
	"testing"
)

// TestLibreOfficeRecalc: LibreOffice, recalculating on load, computes
// from the edited RUN_SECONDS and GPU_RATE the totals, counts and unit
// costs worked out by hand, on the Costs sheet and in the Summary, with
// the cost per 1M output tokens inside its recalculated interval.
func TestLibreOfficeRecalc(t *testing.T) {
	soffice := lookPath("soffice", "libreoffice")
	if soffice == "" {
		if os.Getenv("VERDICT_REQUIRE_CLIENTS") != "" {
			t.Fatal("LibreOffice is not installed, and VERDICT_REQUIRE_CLIENTS says it must be")
		}
		t.Skip("LibreOffice is not installed (apt-get install libreoffice-calc); .ci/run installs it")
	}
	dir := t.TempDir()
	_, e := editDemo(t, dir)
	csvs := convertCSV(t, soffice, e.path, dir)
	got := map[string]string{}
	for _, r := range csvs["Costs"] {
		if len(r) > 1 {
			got[r[0]] = r[1]
		}
	}
	num := func(what, s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: not a number: %q", what, s)
		}
		return v
	}
	for name, want := range e.want {
		if v := num(name, got[name]); math.Abs(v-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("LibreOffice: %s = %v, by hand %v", name, v, want)
		}
	}
	sum := csvs["Summary"]
	col := map[string]int{}
	for i, h := range sum[1] {
		col[h] = i
	}
	b := sum[3]
	if b[0] != "b" {
		t.Fatalf("Summary row 4 is %q", b[0])
	}
	p := num("summary cost", b[col["cost per 1M output tokens"]])
	lo, hi := num("summary low", b[col["cost per 1M output tokens low"]]), num("summary high", b[col["cost per 1M output tokens high"]])
	if want := e.want["COST_PER_1M_OUTPUT_TOKENS_2"]; math.Abs(p-want) > 1e-9 || math.Abs(lo-e.lo) > 1e-9 || math.Abs(hi-e.hi) > 1e-9 {
		t.Errorf("Summary: %v [%v, %v], by hand %v [%v, %v]", p, lo, hi, want, e.lo, e.hi)
	}
	if p < lo || p > hi {
		t.Errorf("Summary: cost per 1M output tokens %v outside its interval [%v, %v]", p, lo, hi)
	}
	steady := num("summary steady", b[col["steady-state cost per 1M output tokens"]])
	if want := e.want["STEADY_COST_PER_1M_OUTPUT_TOKENS_2"]; math.Abs(steady-want) > 1e-9 {
		t.Errorf("Summary: steady-state cost %v, by hand %v", steady, want)
	}
	if total := num("summary total", b[col["total cost"]]); math.Abs(total-e.want["TOTAL_COST_2"]) > 1e-9 {
		t.Errorf("Summary total %v, by hand %v", total, e.want["TOTAL_COST_2"])
	}
}
