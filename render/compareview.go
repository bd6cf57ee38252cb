package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/internal/samples"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// CompareOptions configure the comparison view.
type CompareOptions struct {
	StatsOptions
	// Alpha is the significance level of the Mann-Whitney test.
	Alpha float64
	// Validate configures the validation that decides whether the two
	// bundles may be compared at all (Compare is set by the view).
	Validate validate.Options
	// Force prints the numbers even when validation says the runs are not
	// comparable (the result still fails).
	Force bool
}

// ErrNotComparable is returned (wrapped) by Compare when validation says
// the bundles may not be compared, or its gate fails.
var ErrNotComparable = errors.New("the runs may not be compared")

// A Pair is two runs compared, old and new.
type Pair struct {
	Old, New  schemas.Run
	OldBundle string `json:"old_bundle"`
	NewBundle string `json:"new_bundle"`
	Rows      []ComparisonRow
	Notes     []string
}

// A ComparisonRow is one metric statistic compared.
type ComparisonRow struct {
	Metric     schemas.MetricID `json:"metric"`
	Stat       string           `json:"stat"`
	Unit       string           `json:"unit"`
	Comparison stats.Comparison `json:"-"`
	Old        Estimate         `json:"old"`
	New        Estimate         `json:"new"`
	DeltaPct   Estimate         `json:"delta_pct"`
	P          float64          `json:"p_value"`
	Test       string           `json:"test"`
	Verdict    string           `json:"verdict"` // "~" or "+12.5%"
	N          [2]int           `json:"n"`
}

// PairRuns pairs the runs of two bundles: the only run of each, or runs
// with the same scenario, request rate and concurrency limit.
func PairRuns(old, new []*samples.Run) (pairs [][2]*samples.Run, unpaired []string) {
	if len(old) == 1 && len(new) == 1 {
		return [][2]*samples.Run{{old[0], new[0]}}, nil
	}
	key := func(r schemas.Run) string {
		return fmt.Sprintf("%s/%s/%v/%v", r.Scenario, r.Arrival, r.RequestRate, r.MaxConcurrency)
	}
	used := map[int]bool{}
	for _, o := range old {
		found := false
		for j, n := range new {
			if !used[j] && key(o.Run) == key(n.Run) {
				pairs = append(pairs, [2]*samples.Run{o, n})
				used[j] = true
				found = true
				break
			}
		}
		if !found {
			unpaired = append(unpaired, o.Run.ID)
		}
	}
	for j, n := range new {
		if !used[j] {
			unpaired = append(unpaired, n.Run.ID)
		}
	}
	return pairs, unpaired
}

// ComputeComparison compares the runs of two bundles metric by metric.
func ComputeComparison(ctx context.Context, oldDir, newDir string, o CompareOptions) ([]Pair, []string, error) {
	load := func(dir string) ([]*samples.Run, error) {
		b, err := schemas.OpenBundle(dir)
		if err != nil {
			return nil, err
		}
		return samples.Load(ctx, b, samples.Options{Metrics: o.Metrics})
	}
	old, err := load(oldDir)
	if err != nil {
		return nil, nil, err
	}
	new, err := load(newDir)
	if err != nil {
		return nil, nil, err
	}
	runPairs, unpaired := PairRuns(old, new)
	var out []Pair
	for _, rp := range runPairs {
		p := Pair{Old: rp[0].Run, New: rp[1].Run, OldBundle: oldDir, NewBundle: newDir}
		ids := o.Metrics
		if len(ids) == 0 {
			ids = samples.Metrics
		}
		for _, side := range rp {
			if side.RequestRows == 0 {
				p.Notes = append(p.Notes, fmt.Sprintf("run %s has no per-request data: nothing can be compared with a test", side.Run.ID))
			}
		}
		for _, id := range ids {
			a, b := rp[0].Values[id], rp[1].Values[id]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			def, _ := schemas.Lookup(id)
			for _, p100 := range o.Percentiles {
				p.Rows = append(p.Rows, compareOne(id, def.Unit, a, b, p100, o))
			}
			if def.Level == schemas.LevelChunk {
				p.Notes = append(p.Notes, string(id)+": gaps within one request are not independent, so the test's p-value and the intervals are optimistic; compare per-request metrics (tpot) for a sounder answer")
			}
		}
		out = append(out, p)
	}
	return out, unpaired, nil
}

func compareOne(id schemas.MetricID, unit string, a, b []float64, p100 float64, o CompareOptions) ComparisonRow {
	co := stats.DefaultCompare
	co.Center = stats.QuantileStatistic(p100/100, o.Method)
	co.Bootstrap.Confidence, co.Bootstrap.Resamples, co.Bootstrap.Seed = o.Confidence, o.Resamples, o.Seed
	if co.Bootstrap.Confidence <= 0 {
		co.Bootstrap.Confidence = DefaultStats.Confidence
	}
	if o.Alpha > 0 {
		co.Alpha = o.Alpha
	}
	c := stats.Compare(a, b, co)
	iv := func(i stats.Interval) Estimate {
		return Estimate{Value: i.Estimate, Lo: i.Lo, Hi: i.Hi, Confidence: i.Confidence, Method: string(i.Method)}
	}
	pct := func(i stats.Interval) Estimate {
		e := iv(i)
		e.Value, e.Lo, e.Hi = 100*(e.Value-1), 100*(e.Lo-1), 100*(e.Hi-1)
		return e
	}
	r := ComparisonRow{Metric: id, Stat: "p" + strconv.FormatFloat(p100, 'g', -1, 64), Unit: unit, Comparison: c,
		Old: iv(c.Old), New: iv(c.New), DeltaPct: pct(c.Ratio), P: c.Test.P, Test: "Mann-Whitney U, two-sided", N: [2]int{len(a), len(b)}}
	if p100 == 50 {
		r.Stat = "median"
	}
	r.Verdict = "~"
	if c.Significant && !math.IsNaN(r.DeltaPct.Value) {
		r.Verdict = fmt.Sprintf("%+.2f%%", r.DeltaPct.Value)
	}
	return r
}

func pairTitle(p Pair) string {
	name := func(r schemas.Run) string {
		if pl := r.Labels["platform"]; pl != "" {
			return r.ID + " (platform " + pl + ")"
		}
		return r.ID
	}
	return "Compare " + name(p.Old) + " -> " + name(p.New)
}

// CompareTables renders comparisons benchstat-style: old and new with
// intervals, the change with its interval, the test's p-value, and "~"
// when the difference is not significant.
func CompareTables(pairs []Pair, unpaired []string, o CompareOptions) []*Table {
	var out []*Table
	for _, p := range pairs {
		t := &Table{Title: pairTitle(p), Columns: []string{"metric", "stat", "old", "new", "change", "p", "n", "verdict"}}
		for _, r := range p.Rows {
			change := "n/a"
			if !math.IsNaN(r.DeltaPct.Value) {
				change = fmt.Sprintf("%+.2f%%", r.DeltaPct.Value)
				if !math.IsNaN(r.DeltaPct.Lo) && !math.IsNaN(r.DeltaPct.Hi) {
					change += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", r.DeltaPct.Lo, r.DeltaPct.Hi)
				}
			}
			t.AddRow(T(string(r.Metric)), T(r.Stat), N(estimateText(r.Old, r.Unit), r.Old.Value), N(estimateText(r.New, r.Unit), r.New.Value),
				N(change, r.DeltaPct.Value), N(fmt.Sprintf("%.3g", r.P), r.P), T(fmt.Sprintf("%d+%d", r.N[0], r.N[1])), T(r.Verdict))
			for _, w := range r.Comparison.Warnings {
				note := "warning: " + string(r.Metric) + " " + r.Stat + ": " + w.Error()
				if !slices.Contains(t.Notes, note) {
					t.Notes = append(t.Notes, note)
				}
			}
		}
		alpha := o.Alpha
		if alpha == 0 {
			alpha = stats.DefaultCompare.Alpha
		}
		t.Notes = append(t.Notes, fmt.Sprintf("change: new/old - 1 with a %g%% bootstrap interval; p: two-sided Mann-Whitney U test of the two distributions; ~: no significant difference at alpha %g",
			100*DefaultStatsConfidence(o.Confidence), alpha))
		t.Notes = append(t.Notes, p.Notes...)
		out = append(out, t)
	}
	if len(unpaired) > 0 {
		t := &Table{Title: "Runs without a counterpart", Columns: []string{"run"}}
		for _, id := range unpaired {
			t.AddRow(T(string(id)))
		}
		t.Notes = []string{"runs are paired when each bundle has one run, or by scenario, arrival, request rate and concurrency limit"}
		out = append(out, t)
	}
	return out
}

// DefaultStatsConfidence returns c, or the default confidence when c is 0.
func DefaultStatsConfidence(c float64) float64 {
	if c <= 0 {
		return DefaultStats.Confidence
	}
	return c
}

// Compare writes the comparison of two bundles, with the validation
// verdict on top. When validation says they are not comparable it prints
// the verdict and its findings and no numbers (unless o.Force), and
// returns an error wrapping ErrNotComparable; a failed gate is returned
// the same way after the numbers.
func Compare(ctx context.Context, w io.Writer, oldDir, newDir string, o CompareOptions, f Format) error {
	vo := o.Validate
	vo.Compare = true
	report, err := validate.ValidateBundles(ctx, []string{oldDir, newDir}, vo)
	if err != nil {
		return err
	}
	refuse := report.Verdict == validate.NotComparable && !o.Force
	var pairs []Pair
	var unpaired []string
	if !refuse {
		if pairs, unpaired, err = ComputeComparison(ctx, oldDir, newDir, o); err != nil {
			return err
		}
	}
	if f == JSON {
		if err := WriteJSON(w, struct {
			Validation *validate.Report `json:"validation"`
			Refused    bool             `json:"refused"`
			Options    StatsOptionsJSON `json:"options"`
			Pairs      []Pair           `json:"pairs"`
			Unpaired   []string         `json:"unpaired"`
		}{report, refuse, o.json(), pairs, unpaired}); err != nil {
			return err
		}
	} else {
		var tables []*Table
		for _, t := range ValidateTables(report) {
			if strings.HasPrefix(t.Title, "Verdict") || strings.HasPrefix(t.Title, "Findings") {
				tables = append(tables, t)
			}
		}
		if refuse {
			tables[0].Notes = append(tables[0].Notes, "Refusing to compare: validation says these runs are not comparable (see the findings). --force prints the numbers anyway.")
		} else {
			if report.Verdict == validate.NotComparable {
				tables[0].Notes = append(tables[0].Notes, "NOT COMPARABLE: the numbers below are printed because of --force and must not be used to pick a winner.")
			}
			if report.Verdict == validate.Incomplete {
				tables[0].Notes = append(tables[0].Notes, "INCOMPLETE: evidence is missing (see the findings); the numbers below do not make either side a winner.")
			}
			tables = append(tables, CompareTables(pairs, unpaired, o)...)
		}
		if err := Write(w, f, tables); err != nil {
			return err
		}
	}
	switch {
	case report.Verdict == validate.NotComparable:
		return fmt.Errorf("%w: %s", ErrNotComparable, report.Verdict.Text())
	case !report.Pass:
		return fmt.Errorf("%w: the validation gate failed: %s", ErrNotComparable, strings.Join(report.Gate, "; "))
	}
	return nil
}
