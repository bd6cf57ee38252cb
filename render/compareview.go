package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

func comparisonTitle(p analysis.Pair) string {
	name := func(r schemas.Run) string {
		if pl := r.Labels["platform"]; pl != "" {
			return r.ID + " (platform " + pl + ")"
		}
		return r.ID
	}
	return "Compare " + name(p.Old) + " -> " + name(p.New)
}

// testText is a row's test in the table: "U" for the Mann-Whitney U test,
// "CI" for an interval test.
func testText(t stats.SignificanceTest) string {
	switch t {
	case stats.MannWhitneyTest:
		return "U"
	case stats.RatioIntervalTest:
		return "CI ratio"
	case stats.DeltaIntervalTest:
		return "CI delta"
	}
	return string(t)
}

// changeText is "+12.50% [+3.10%, +21.00%]", or the absolute change when
// the old value is 0.
func changeText(r analysis.ComparisonRow) string {
	if math.IsNaN(r.Change.Value) || math.IsInf(r.Change.Value, 0) {
		if math.IsNaN(r.Delta.Value) {
			return "n/a"
		}
		return EstimateText(r.Delta, r.Unit)
	}
	s := fmt.Sprintf("%+.2f%%", r.Change.Value)
	if r.Change.HasInterval() {
		s += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", r.Change.Lo, r.Change.Hi)
	}
	return s
}

// compareColumns head a table of ComparisonRows.
var compareColumns = []string{"metric", "stat", "old", "new", "change", "test", "p", "n", "verdict"}

// addCompareRow adds one compared statistic, its warnings as notes.
func addCompareRow(t *Table, r analysis.ComparisonRow) {
	pv := T("")
	if !math.IsNaN(r.P) {
		pv = N(fmt.Sprintf("%.3g", r.P), r.P)
	}
	t.AddRow(T(string(r.Metric)), T(r.Stat), EstimateCell(r.Old, r.Unit), EstimateCell(r.New, r.Unit),
		N(changeText(r), r.Change), T(testText(r.Test)), pv, T(fmt.Sprintf("%d+%d", r.N[0], r.N[1])), T(r.Verdict))
	for _, w := range r.Warnings {
		note := "warning: " + string(r.Metric) + " " + r.Stat + ": " + w
		if !slices.Contains(t.Notes, note) {
			t.Notes = append(t.Notes, note)
		}
	}
}

// compareNotes explain a table of ComparisonRows: the change's interval,
// each row's test and "~".
// With the i.i.d. scheme ("" or iid) the notes say the requests are
// treated as independent; a dependent scheme names its resampling, and
// the median is then judged by its interval too (the U test assumes
// independence; stats.CompareOptions.Scheme).
func compareNotes(alpha, conf float64, resamples int, seed uint64, scheme stats.Scheme) []string {
	if alpha == 0 {
		alpha = stats.DefaultCompare.Alpha
	}
	if conf <= 0 {
		conf = analysis.DefaultStats.Confidence
	}
	if scheme != "" && scheme != stats.SchemeIID {
		return []string{
			fmt.Sprintf("change: new/old - 1 with a %g%% interval (--interval %s: %s; the two runs resampled independently, %d resamples, seed %d); old and new carry the intervals verdict stats --interval %s gives each run", 100*conf, scheme, scheme.Text(), resamples, seed, scheme),
			fmt.Sprintf("test: each row, the median too, is judged by its %g%% interval: CI ratio = the interval of new/old excludes 1 (CI delta: of new - old excludes 0, when the old value is 0); the Mann-Whitney U test assumes independent requests, so it decides nothing here", 100*conf),
			"~: no significant difference by the row's test, whatever the point estimates say"}
	}
	return []string{
		fmt.Sprintf("change: new/old - 1 with a %g%% bootstrap interval (BCa, %d resamples, seed %d), which treats each run's requests as independent (i.i.d.; --interval block, stationary or ess keeps neighbouring requests together); old and new carry the intervals verdict stats gives each run", 100*conf, resamples, seed),
		fmt.Sprintf("test: each row is judged by a test of its own statistic: U = two-sided Mann-Whitney U test of the two distributions (the median, as benchstat does; p is its p-value, significant below alpha %g); CI ratio = the %g%% interval of new/old excludes 1 (every other percentile; CI delta: of new - old excludes 0, when the old value is 0)", alpha, 100*conf),
		"~: no significant difference by the row's test, whatever the point estimates say"}
}

// CompareTables renders comparisons benchstat-style: old and new with
// intervals, the change with its interval, the test that judged the row
// (with its p-value for the U test), and "~" when the difference is not
// significant.
func CompareTables(c *analysis.Comparison) []*Table {
	o := c.Options
	var out []*Table
	for _, p := range c.Pairs {
		t := &Table{Title: comparisonTitle(p), Columns: compareColumns}
		for _, r := range p.Rows {
			addCompareRow(t, r)
		}
		t.Notes = append(t.Notes, compareNotes(o.Alpha, o.Confidence, o.Resamples, o.Seed, o.Interval)...)
		t.Notes = append(t.Notes, p.Notes...)
		out = append(out, t)
	}
	if len(c.Unpaired) > 0 {
		t := &Table{Title: "Runs without a counterpart", Columns: []string{"run"}}
		for _, id := range c.Unpaired {
			t.AddRow(T(id))
		}
		t.Notes = []string{"runs are paired as validation pairs them: when each bundle has one run, or by load point (scenario, arrival, request rate, burstiness, concurrency limit, ramp-up, streaming), then in order"}
		out = append(out, t)
	}
	return out
}

// WriteComparison writes the comparison with the validation verdict on
// top: when validation refused the comparison, the verdict and its
// findings and no numbers. JSON is the verdict.compare/v1 document.
func WriteComparison(w io.Writer, c *analysis.Comparison, f Format) error {
	if f == JSON {
		return WriteJSON(w, compareJSON(c))
	}
	report := c.Validation
	var tables []*Table
	for _, t := range ValidateTables(report) {
		if strings.HasPrefix(t.Title, "Verdict") || strings.HasPrefix(t.Title, "Findings") {
			tables = append(tables, t)
		}
	}
	switch {
	case c.Refused:
		tables[0].Notes = append(tables[0].Notes, "Refusing to compare: validation says these runs are not comparable (see the findings). --force prints the numbers anyway.")
	default:
		if report.Verdict == validate.NotComparable {
			tables[0].Notes = append(tables[0].Notes, "NOT COMPARABLE: the numbers below are printed because of --force and must not be used to pick a winner.")
		}
		if report.Verdict == validate.Incomplete {
			tables[0].Notes = append(tables[0].Notes, "INCOMPLETE: evidence is missing (see the findings); the numbers below do not make either side a winner.")
		}
		tables = append(tables, CompareTables(c)...)
	}
	return Write(w, f, tables)
}

type compareDoc struct {
	Schema     string           `json:"schema"`
	OldBundle  string           `json:"old_bundle"`
	NewBundle  string           `json:"new_bundle"`
	Validation *validate.Report `json:"validation"`
	Refused    bool             `json:"refused"`
	Options    compareOptsDoc   `json:"options"`
	Pairs      []pairDoc        `json:"pairs"`
	Unpaired   []string         `json:"unpaired"`
}

type compareOptsDoc struct {
	statsOptionsDoc
	Alpha float64 `json:"alpha"`
	Force bool    `json:"force"`
}

type pairDoc struct {
	Old   schemas.Run `json:"old_run"`
	New   schemas.Run `json:"new_run"`
	Rows  []rowDoc    `json:"rows"`
	Notes []string    `json:"notes"`
}

type rowDoc struct {
	Metric      schemas.MetricID       `json:"metric"`
	Stat        string                 `json:"stat"`
	Percentile  float64                `json:"percentile"`
	Unit        string                 `json:"unit"`
	Old         analysis.Estimate      `json:"old"`
	New         analysis.Estimate      `json:"new"`
	ChangePct   analysis.Estimate      `json:"change_pct"`
	Delta       analysis.Estimate      `json:"delta"`
	Test        stats.SignificanceTest `json:"test"`
	P           jsonFloat              `json:"p_value"`
	Significant bool                   `json:"significant"`
	Verdict     string                 `json:"verdict"`
	N           [2]int                 `json:"n"`
	Warnings    []string               `json:"warnings"`
}

func compareJSON(c *analysis.Comparison) compareDoc {
	alpha := c.Options.Alpha
	if alpha == 0 {
		alpha = stats.DefaultCompare.Alpha
	}
	d := compareDoc{Schema: analysis.CompareSchema, OldBundle: c.OldBundle, NewBundle: c.NewBundle, Validation: c.Validation, Refused: c.Refused,
		Options: compareOptsDoc{optionsDoc(c.Options.StatsOptions), alpha, c.Options.Force}, Pairs: []pairDoc{}, Unpaired: nonNil(c.Unpaired)}
	for _, p := range c.Pairs {
		d.Pairs = append(d.Pairs, pairDoc{Old: p.Old, New: p.New, Rows: rowDocs(p.Rows), Notes: nonNil(p.Notes)})
	}
	return d
}

func rowDocs(rows []analysis.ComparisonRow) []rowDoc {
	out := []rowDoc{}
	for _, r := range rows {
		out = append(out, rowDoc{Metric: r.Metric, Stat: r.Stat, Percentile: r.Percentile, Unit: r.Unit, Old: r.Old, New: r.New,
			ChangePct: r.Change, Delta: r.Delta, Test: r.Test, P: jsonFloat(r.P), Significant: r.Significant, Verdict: r.Verdict,
			N: r.N, Warnings: nonNil(r.Warnings)})
	}
	return out
}
