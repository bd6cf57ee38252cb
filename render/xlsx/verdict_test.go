package xlsx_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/validate"
)

// validatedDemo is the demo report with validation (a vs b, comparable
// with warnings).
func validatedDemo(t *testing.T, dir string) *analysis.Report {
	t.Helper()
	bundles := demoBundles(t, dir)
	v, err := analysis.Validate(context.Background(), bundles, validate.Options{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.LoadReport(context.Background(), bundles, analysis.ReportOptions{Resamples: 1000,
		Quotes: []string{demo + "quote-a.yaml", demo + "quote-b.yaml"}, Validation: analysis.ValidationOf(v)})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestVerdictSheet: the first sheet is the verdict on top, per pair in
// words, one row per reason and per thing to supply.
func TestVerdictSheet(t *testing.T) {
	tests := []struct {
		name     string
		validate bool
		want     []string // words the sheet must hold in column B or D
		what     string   // a row kind that must appear in column C
	}{
		{"validated", true, []string{"comparable with warnings", "warning (V010-boundary): the quantization differs"}, "reason"},
		{"not validated", false, []string{"validation not available", "run `verdict validate` on the bundles"}, "to supply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var rep *analysis.Report
			if tc.validate {
				rep = validatedDemo(t, dir)
			} else {
				var err error
				rep, err = analysis.LoadReport(context.Background(), demoBundles(t, dir), analysis.ReportOptions{Resamples: 200})
				if err != nil {
					t.Fatal(err)
				}
			}
			f, err := excelize.OpenFile(writeBook(t, rep, dir, xlsx.Options{NoRequests: true}))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if s := f.GetSheetList(); s[0] != xlsx.SheetVerdict || f.GetActiveSheetIndex() != 0 {
				t.Fatalf("first sheet %q (active %d), want Verdict", s[0], f.GetActiveSheetIndex())
			}
			rows, err := f.GetRows(xlsx.SheetVerdict)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rows[0][0], rep.Verdict.Headline) {
				t.Errorf("A1 %q lacks the headline %q", rows[0][0], rep.Verdict.Headline)
			}
			var all []string
			whats := map[string]int{}
			for _, r := range rows[3:] {
				if len(r) >= 4 {
					all = append(all, r[1], r[3])
					whats[r[2]]++
				}
			}
			joined := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("the Verdict sheet lacks %q", w)
				}
			}
			e := rep.Verdict.Entries[0]
			if whats["verdict"] != len(rep.Verdict.Entries) || whats[tc.what] == 0 || whats["reason"] != len(e.Reasons) && len(rep.Verdict.Entries) == 1 {
				t.Errorf("row kinds %v for %d entries, %d reasons", whats, len(rep.Verdict.Entries), len(e.Reasons))
			}
			text := strings.Join(flatten(rows), "\n")
			if !strings.Contains(text, "Runs are never ranked") {
				t.Error("the Verdict sheet does not say runs are never ranked")
			}
			if got := strings.Contains(text, "Differences: b against a"); got != tc.validate {
				t.Errorf("differences shown: %v, want %v (only for a comparable pair)", got, tc.validate)
			}
		})
	}
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}
