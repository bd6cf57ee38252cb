package render

import (
	"fmt"

	"github.com/verdict-llm/verdict/analysis"
)

// VerdictTitle heads the verdict table, the first table of every report
// output.
const VerdictTitle = "Verdict"

// VerdictTable is the verdict on top (analysis.ReportVerdict): one block
// of rows per compared pair (or, with nothing compared, per run): its
// verdict in words, then each reason and each thing to supply on a line
// of its own.
func VerdictTable(rep *analysis.Report) *Table {
	v := rep.Verdict
	t := &Table{Title: VerdictTitle + ": " + v.Headline, Columns: []string{"subject", "verdict", "what", "detail"}}
	for _, e := range v.Entries {
		t.AddRow(T(e.Subject), T(e.Text), T("verdict"), T(verdictSummary(e)))
		for _, r := range e.Reasons {
			t.AddRow(T(e.Subject), T(e.Text), T("reason"), T(r.Line()))
		}
		for _, s := range e.Supply {
			t.AddRow(T(e.Subject), T(e.Text), T("to supply"), T(s))
		}
	}
	for _, n := range v.NotCompared {
		t.Notes = append(t.Notes, "not compared: "+n)
	}
	t.Notes = append(t.Notes, "Runs are never ranked. Differences are shown only for comparable pairs, each with its interval and the test that judged it.")
	return t
}

// verdictSummary is the entry's verdict line: what the words mean for the
// reader.
func verdictSummary(e analysis.VerdictEntry) string {
	n := len(e.Reasons)
	why := fmt.Sprintf("%d %s", n, plural(n, "reason", "reasons"))
	switch e.Verdict {
	case analysis.VerdictComparable:
		return "may be compared; no caveat found"
	case analysis.VerdictComparableWithWarnings:
		return "may be compared, with the caveats below (" + why + ")"
	case analysis.VerdictIncomplete:
		return "evidence is missing to decide (" + why + "); supply what is listed below"
	case analysis.VerdictNotComparable:
		return "must not be compared (" + why + ")"
	case analysis.VerdictValid:
		return "the run is valid on its own"
	case analysis.VerdictInvalid:
		return "the run is invalid (" + why + ")"
	}
	if len(e.Supply) > 0 {
		return "no verdict: " + e.Supply[0]
	}
	return "no verdict"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// DifferenceTables are the differences of each comparable pair (B
// against A), with intervals and each row's test; a pair that is not
// comparable gets none.
func DifferenceTables(rep *analysis.Report) []*Table {
	var out []*Table
	for _, e := range rep.Verdict.Entries {
		if !e.Pair || len(e.Differences) == 0 {
			continue
		}
		t := &Table{Title: "Differences: " + e.B.Name + " against " + e.A.Name + " (" + e.Text + "; not a ranking)", Columns: compareColumns}
		for _, r := range e.Differences {
			addCompareRow(t, r)
		}
		t.Notes = append(t.Notes, "old is "+e.A.Name+", new is "+e.B.Name)
		t.Notes = append(t.Notes, compareNotes(0, rep.Confidence, rep.Resamples, rep.Seed, "")...)
		if e.DifferencesNote != "" {
			t.Notes = append(t.Notes, e.DifferencesNote)
		}
		out = append(out, t)
	}
	return out
}

// verdictDoc is Report.Verdict in JSON (verdict.report/v1's "verdict").
type verdictDoc struct {
	Available   bool              `json:"available"`
	Headline    string            `json:"headline"`
	Entries     []verdictEntryDoc `json:"entries"`
	NotCompared []string          `json:"not_compared"`
}

type verdictEntryDoc struct {
	Pair            bool               `json:"pair"`
	Subject         string             `json:"subject"`
	A               verdictRunDoc      `json:"a"`
	B               *verdictRunDoc     `json:"b,omitempty"`
	Verdict         string             `json:"verdict"`
	Text            string             `json:"text"`
	Pass            bool               `json:"pass"`
	Reasons         []verdictReasonDoc `json:"reasons"`
	Supply          []string           `json:"supply"`
	Differences     []rowDoc           `json:"differences"`
	DifferencesNote string             `json:"differences_note,omitempty"`
}

type verdictRunDoc struct {
	Name   string `json:"name"`
	RunID  string `json:"run_id"`
	Bundle string `json:"bundle"`
}

type verdictReasonDoc struct {
	Effect string `json:"effect"`
	Rule   string `json:"rule,omitempty"`
	Text   string `json:"text"`
}

func verdictJSON(v analysis.ReportVerdict) verdictDoc {
	d := verdictDoc{Available: v.Available, Headline: v.Headline, Entries: []verdictEntryDoc{}, NotCompared: nonNil(v.NotCompared)}
	for _, e := range v.Entries {
		ed := verdictEntryDoc{Pair: e.Pair, Subject: e.Subject, A: verdictRunDoc{e.A.Name, e.A.RunID, e.A.Bundle}, Verdict: e.Verdict,
			Text: e.Text, Pass: e.Pass, Reasons: []verdictReasonDoc{}, Supply: nonNil(e.Supply), Differences: rowDocs(e.Differences),
			DifferencesNote: e.DifferencesNote}
		if e.Pair {
			ed.B = &verdictRunDoc{e.B.Name, e.B.RunID, e.B.Bundle}
		}
		for _, r := range e.Reasons {
			ed.Reasons = append(ed.Reasons, verdictReasonDoc{r.Effect, r.Rule, r.Text})
		}
		d.Entries = append(d.Entries, ed)
	}
	return d
}
