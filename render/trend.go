package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
)

// WriteTrend writes the result of `verdict trend` in format f: JSON is
// the verdict.trend/v1 document (docs/json/trend.schema.json), the
// others render TrendTables.
func WriteTrend(w io.Writer, f Format, r *analysis.TrendReport) error {
	if f == JSON {
		return WriteJSON(w, TrendJSON(r))
	}
	return Write(w, f, TrendTables(r))
}

// pctText writes a relative change as a signed percentage.
func pctText(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// changeSize is "+20.1% [+18.0%, +22.3%]".
func changeSize(c analysis.TrendChange) string {
	s := pctText(c.Relative)
	if !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) {
		s += " [" + pctText(c.Lo) + ", " + pctText(c.Hi) + "]"
	}
	return s
}

// TrendTables builds the tables of `verdict trend`: a summary of the
// series (with the gate when there is one), then per series the change
// points of each statistic, with the runs left out and why in the notes.
func TrendTables(r *analysis.TrendReport) []*Table {
	title := "Trend of " + SafeText(r.Dataset) + " (by " + SafeText(r.By) + ")"
	if r.Gate != nil {
		title += fmt.Sprintf(": gate %s since %s", gateText(r.Gate.Pass), SafeText(r.Gate.Since))
	}
	head := &Table{Title: title, Columns: []string{"series", "runs", "left out", "changes", "regressions"}}
	for _, s := range r.Series {
		changes, regs := s.Changes()
		head.AddRow(T(SafeText(s.Name)), N(strconv.Itoa(len(s.Runs)), len(s.Runs)), N(strconv.Itoa(len(s.Excluded)), len(s.Excluded)),
			N(strconv.Itoa(changes), changes), N(strconv.Itoa(regs), regs))
	}
	if g := r.Gate; g != nil {
		for _, f := range g.Failures {
			head.Notes = append(head.Notes, "gate failed: "+SafeText(f))
		}
		head.Notes = append(head.Notes, fmt.Sprintf("gate: %d series × statistic %s with runs at or after %s, Holm-corrected at %g.",
			g.Tests, plural(g.Tests, "test", "tests"), SafeText(g.Since), g.Alpha))
	}
	for _, u := range r.Unordered {
		head.Notes = append(head.Notes, "left out: "+SafeText(u.RunID)+": "+SafeText(strings.Join(u.Reasons, "; ")))
	}
	head.Notes = append(head.Notes, fmt.Sprintf("A change is an E-Divisive change point (permutation test at 5%%); a regression a change in the metric's bad direction beyond %s whose interval excludes no change (docs/trend.md).",
		strings.TrimPrefix(pctText(r.MinChange), "+")))
	out := []*Table{head}
	for _, s := range r.Series {
		t := &Table{Title: "Series " + SafeText(s.Name), Columns: []string{"statistic", "runs", "last", "change at", "size [lo, hi]", "p", "direction", "regression"}}
		for _, m := range s.Metrics {
			last := ""
			if n := len(m.Points); n > 0 {
				last = Quantity(m.Points[n-1].Value, m.Unit)
			}
			lead := []Cell{T(m.Stat.Label()), N(strconv.Itoa(len(m.Points)), len(m.Points)), N(last, m.Points[len(m.Points)-1].Value)}
			if len(m.Changes) == 0 {
				word := "no change"
				if m.Note != "" && strings.Contains(m.Note, "too few") {
					word = "too few runs"
				}
				t.AddRow(append(lead, T(word), T(""), T(""), T(""), T(""))...)
			}
			for i, c := range m.Changes {
				row := lead
				if i > 0 {
					row = []Cell{T(""), T(""), T("")}
				}
				reg := ""
				switch {
				case c.Fails:
					reg = "yes, fails the gate"
				case c.Regression:
					reg = "yes"
				}
				t.AddRow(append(row, T(SafeText(c.RunID)+" ("+SafeText(c.Order)+")"), N(changeSize(c), c.Relative), N(Sig(c.P, 2), c.P),
					T(c.Direction), T(reg))...)
			}
			if m.Note != "" {
				t.Notes = append(t.Notes, m.Stat.Label()+": "+m.Note)
			}
		}
		for _, n := range s.Notes {
			t.Notes = append(t.Notes, SafeText(n))
		}
		for _, e := range s.Excluded {
			t.Notes = append(t.Notes, "left out: "+SafeText(e.RunID)+": "+SafeText(strings.Join(e.Reasons, "; ")))
		}
		if len(s.Runs) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("runs %s (%s) to %s (%s)", SafeText(s.Runs[0].RunID), SafeText(s.Runs[0].Order),
				SafeText(s.Runs[len(s.Runs)-1].RunID), SafeText(s.Runs[len(s.Runs)-1].Order)))
		}
		out = append(out, t)
	}
	return out
}

// The verdict.trend/v1 document.
type trendDoc struct {
	Schema    string            `json:"schema"`
	Dataset   string            `json:"dataset"`
	By        string            `json:"by"`
	MinChange float64           `json:"min_change"`
	Gate      *trendGateDoc     `json:"gate"`
	Unordered []trendExcludeDoc `json:"unordered"`
	Series    []trendSeriesDoc  `json:"series"`
}

type trendGateDoc struct {
	Since    string   `json:"since"`
	Alpha    float64  `json:"alpha"`
	Tests    int      `json:"tests"`
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures"`
}

type trendExcludeDoc struct {
	RunID   string   `json:"run_id"`
	Reasons []string `json:"reasons"`
}

type trendSeriesDoc struct {
	Name     string            `json:"name"`
	Fields   map[string]string `json:"fields"`
	Runs     []trendRunDoc     `json:"runs"`
	Excluded []trendExcludeDoc `json:"excluded"`
	Metrics  []trendMetricDoc  `json:"metrics"`
	Notes    []string          `json:"notes"`
}

type trendRunDoc struct {
	RunID string `json:"run_id"`
	Order string `json:"order"`
}

type trendMetricDoc struct {
	Metric     string           `json:"metric"`
	Stat       string           `json:"stat"`
	Percentile *float64         `json:"percentile"`
	Name       string           `json:"name"`
	Unit       string           `json:"unit"`
	Direction  string           `json:"direction"`
	Points     []trendPointDoc  `json:"points"`
	Changes    []trendChangeDoc `json:"changes"`
	Note       string           `json:"note"`
}

type trendPointDoc struct {
	RunID string   `json:"run_id"`
	Order string   `json:"order"`
	Value float64  `json:"value"`
	SE    *float64 `json:"se"`
}

type trendIntervalDoc struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
}

type trendChangeDoc struct {
	Index      int              `json:"index"`
	RunID      string           `json:"run_id"`
	Order      string           `json:"order"`
	Before     float64          `json:"before"`
	After      float64          `json:"after"`
	Relative   trendIntervalDoc `json:"relative"`
	P          float64          `json:"p"`
	PHolm      *float64         `json:"p_holm"`
	Direction  string           `json:"direction"`
	Regression bool             `json:"regression"`
	InWindow   bool             `json:"in_window"`
	FailsGate  bool             `json:"fails_gate"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// TrendJSON is the verdict.trend/v1 document of a trend.
func TrendJSON(r *analysis.TrendReport) any {
	doc := trendDoc{Schema: analysis.TrendSchema, Dataset: r.Dataset, By: r.By, MinChange: r.MinChange,
		Unordered: []trendExcludeDoc{}, Series: []trendSeriesDoc{}}
	if g := r.Gate; g != nil {
		doc.Gate = &trendGateDoc{Since: g.Since, Alpha: g.Alpha, Tests: g.Tests, Pass: g.Pass, Failures: append([]string{}, g.Failures...)}
	}
	ex := func(es []analysis.TrendExcluded) []trendExcludeDoc {
		out := []trendExcludeDoc{}
		for _, e := range es {
			out = append(out, trendExcludeDoc{RunID: e.RunID, Reasons: e.Reasons})
		}
		return out
	}
	doc.Unordered = ex(r.Unordered)
	for _, s := range r.Series {
		sd := trendSeriesDoc{Name: s.Name, Fields: map[string]string{}, Runs: []trendRunDoc{}, Excluded: ex(s.Excluded),
			Metrics: []trendMetricDoc{}, Notes: append([]string{}, s.Notes...)}
		for _, f := range s.Fields {
			sd.Fields[f[0]] = f[1]
		}
		for _, ru := range s.Runs {
			sd.Runs = append(sd.Runs, trendRunDoc{RunID: ru.RunID, Order: ru.Order})
		}
		for _, m := range s.Metrics {
			md := trendMetricDoc{Metric: string(m.Stat.Metric), Stat: m.Stat.Stat, Name: m.Name, Unit: m.Unit, Direction: string(m.Direction),
				Points: []trendPointDoc{}, Changes: []trendChangeDoc{}, Note: m.Note}
			if m.Stat.Stat == "p" {
				md.Percentile = finite(m.Stat.Percentile)
			}
			for _, p := range m.Points {
				md.Points = append(md.Points, trendPointDoc{RunID: p.RunID, Order: p.Order, Value: p.Value, SE: finite(p.SE)})
			}
			for _, c := range m.Changes {
				md.Changes = append(md.Changes, trendChangeDoc{Index: c.Index, RunID: c.RunID, Order: c.Order, Before: c.Before, After: c.After,
					Relative: trendIntervalDoc{Value: c.Relative, Lo: finite(c.Lo), Hi: finite(c.Hi)}, P: c.P, PHolm: finite(c.PHolm),
					Direction: c.Direction, Regression: c.Regression, InWindow: c.InWindow, FailsGate: c.Fails})
			}
			sd.Metrics = append(sd.Metrics, md)
		}
		doc.Series = append(doc.Series, sd)
	}
	return doc
}

// TrendJUnit converts a trend to JUnit test suites: one suite per
// series, one test case per statistic. A case fails when one of its
// changes fails the gate; regressions that do not (outside the window,
// or without a gate) and other changes are listed in its system-out.
func TrendJUnit(r *analysis.TrendReport) JUnitTestSuites {
	doc := JUnitTestSuites{Name: "verdict trend", Time: "0"}
	for _, s := range r.Series {
		su := JUnitTestSuite{Name: s.Name, Time: "0", Properties: []JUnitProperty{{Name: "runs", Value: strconv.Itoa(len(s.Runs))}}}
		for _, m := range s.Metrics {
			tc := JUnitTestCase{Name: m.Stat.Label(), Classname: "verdict.trend." + s.Name, Time: "0"}
			var failing, other []string
			for _, c := range m.Changes {
				line := fmt.Sprintf("change at %s (%s): %s, p = %s, %s", c.RunID, c.Order, changeSize(c), Sig(c.P, 2), c.Direction)
				if c.Regression {
					line += ", regression"
				}
				if c.Fails {
					failing = append(failing, line)
				} else {
					other = append(other, line)
				}
			}
			if m.Note != "" {
				other = append(other, m.Note)
			}
			switch {
			case len(failing) > 0:
				tc.Failure = &JUnitFailure{Message: failing[0], Type: "regression", Text: strings.Join(failing, "\n")}
				su.Failures++
			case len(m.Changes) == 0 && strings.Contains(m.Note, "too few"):
				tc.Skipped = &JUnitSkipped{Message: m.Note}
				su.Skipped++
			}
			tc.SystemOut = strings.Join(other, "\n")
			su.Tests++
			su.Cases = append(su.Cases, tc)
		}
		doc.Tests += su.Tests
		doc.Failures += su.Failures
		doc.Skipped += su.Skipped
		doc.Suites = append(doc.Suites, su)
	}
	return doc
}

// WriteTrendJUnit writes a trend as JUnit XML.
func WriteTrendJUnit(w io.Writer, r *analysis.TrendReport) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(TrendJUnit(r)); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
