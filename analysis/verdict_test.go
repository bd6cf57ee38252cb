package analysis_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// reportWithValidation validates the bundles as verdict report does and
// loads the report.
func reportWithValidation(t *testing.T, dirs []string) *analysis.Report {
	t.Helper()
	return reportWithInterval(t, dirs, "")
}

// reportWithInterval is reportWithValidation with --interval.
func reportWithInterval(t *testing.T, dirs []string, interval stats.Scheme) *analysis.Report {
	t.Helper()
	ctx := context.Background()
	v, err := analysis.Validate(ctx, dirs, validate.Options{Compare: len(dirs) > 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.LoadReport(ctx, dirs, analysis.ReportOptions{Validation: analysis.ValidationOf(v), Resamples: 2000, Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestVerdictDemoPair: the demo's pair is comparable with warnings, the
// reasons name the runs as the report does, and the differences are the
// numbers verdict compare gives for the same options and seed.
func TestVerdictDemoPair(t *testing.T) {
	dirs := demoBundles(t, t.TempDir())
	rep := reportWithValidation(t, dirs)
	v := rep.Verdict
	if !v.Available || len(v.Entries) != 1 {
		t.Fatalf("verdict = %+v", v)
	}
	e := v.Entries[0]
	if !e.Pair || e.Subject != "a vs b" || e.Verdict != analysis.VerdictComparableWithWarnings || e.Text != "comparable with warnings" || !e.Pass {
		t.Fatalf("entry = %+v", e)
	}
	if !strings.Contains(v.Headline, "a vs b is comparable with warnings") {
		t.Errorf("headline = %q", v.Headline)
	}
	var rules []string
	for _, r := range e.Reasons {
		if strings.Contains(r.Text, "\n") {
			t.Errorf("reason on several lines: %q", r.Text)
		}
		rules = append(rules, r.Rule)
		if r.Rule == "V017-sample-size" && !strings.HasPrefix(r.Text, "a: ") && !strings.HasPrefix(r.Text, "b: ") {
			t.Errorf("a run's reason does not name the run as the report does: %q", r.Text)
		}
	}
	if strings.Join(rules, ",") != "V010-boundary,V010-boundary,V017-sample-size,V017-sample-size" {
		t.Errorf("rules = %v", rules)
	}
	if len(e.Supply) != 0 {
		t.Errorf("supply = %v, want nothing (the evidence is complete)", e.Supply)
	}
	// 4 series x (mean, p50, p90, p99).
	if len(e.Differences) != 16 {
		t.Fatalf("%d differences", len(e.Differences))
	}
	sameDifferences(t, dirs, e.Differences, "")
	if !strings.Contains(rep.Notes[0], "(--interval iid): bootstrap of independent requests (BCa)") {
		t.Errorf("the report does not say how its intervals resample: %q", rep.Notes[0])
	}
	// --interval block resamples blocks of each run's requests in
	// dispatch order, in the run figures and the differences alike.
	blk := reportWithInterval(t, dirs, stats.SchemeBlock)
	d := blk.Verdict.Entries[0].Differences
	if len(d) != 16 || d[0].Old.Scheme != string(stats.SchemeBlock) || d[0].Delta.Scheme != string(stats.SchemeBlock) {
		t.Fatalf("block differences: %+v", d)
	}
	sameDifferences(t, dirs, d, stats.SchemeBlock)
	if p99, _ := blk.Runs[0].Stats[schemas.TPOT].Quantile(99); p99.Scheme != string(stats.SchemeBlock) {
		t.Errorf("block run figures: %+v", p99)
	}
	if !strings.Contains(blk.Notes[0], "(--interval block): circular block bootstrap") {
		t.Errorf("the report does not say how its intervals resample: %q", blk.Notes[0])
	}
	if !strings.Contains(e.DifferencesNote, "itl_chunk") {
		t.Errorf("differences note = %q", e.DifferencesNote)
	}
}

// sameDifferences checks a report's differences against verdict compare's
// rows for the same options, seed and interval scheme.
func sameDifferences(t *testing.T, dirs []string, diffs []analysis.ComparisonRow, interval stats.Scheme) {
	t.Helper()
	co := analysis.CompareOptions{StatsOptions: analysis.DefaultStats, Mean: true}
	co.Percentiles, co.Resamples, co.Interval = []float64{50, 90, 99}, 2000, interval
	c, err := analysis.Compare(context.Background(), dirs[0], dirs[1], co)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]analysis.ComparisonRow{}
	for _, r := range c.Pairs[0].Rows {
		want[string(r.Metric)+" "+r.Stat] = r
	}
	for _, r := range diffs {
		w, ok := want[string(r.Metric)+" "+r.Stat]
		if !ok {
			t.Errorf("%s %s: not in verdict compare", r.Metric, r.Stat)
			continue
		}
		near := func(a, b float64) bool { return a == b || (a-b)*(a-b) < 1e-18*(a*a+b*b) }
		if !near(r.Change.Value, w.Change.Value) || !near(r.Change.Lo, w.Change.Lo) || !near(r.Change.Hi, w.Change.Hi) || r.Test != w.Test || r.Verdict != w.Verdict ||
			!near(r.Old.Lo, w.Old.Lo) || !near(r.New.Hi, w.New.Hi) || r.Old.Scheme != w.Old.Scheme {
			t.Errorf("--interval %q: %s %s: report %+v %+v, compare %+v %+v", interval, r.Metric, r.Stat, r.Old, r.Change, w.Old, w.Change)
		}
	}
}

// TestVerdictIncomplete: without inventories the pair's evidence is
// incomplete, no differences are shown, and Supply says what to give.
func TestVerdictIncomplete(t *testing.T) {
	dir := t.TempDir()
	a := ingestBundle(t, dir, "a.bundle", map[string]string{"platform": "a"}, schemas.Inventory{}, demo+"platform-a.json")
	b := ingestBundle(t, dir, "b.bundle", map[string]string{"platform": "b"}, schemas.Inventory{}, demo+"platform-b.json")
	rep := reportWithValidation(t, []string{a, b})
	e := rep.Verdict.Entries[0]
	if e.Comparable() || len(e.Differences) != 0 || !strings.HasPrefix(e.DifferencesNote, "no differences are shown") {
		t.Fatalf("entry = %+v", e)
	}
	if e.Verdict != analysis.VerdictIncomplete && e.Verdict != analysis.VerdictNotComparable {
		t.Errorf("verdict = %s", e.Verdict)
	}
	all := strings.Join(e.Supply, "\n")
	for _, want := range []string{"--sut", "dataset.name, dataset.sha256", "gpu.model"} {
		if !strings.Contains(all, want) {
			t.Errorf("supply lacks %q:\n%s", want, all)
		}
	}
}

// TestVerdictUnavailable: without validation every run says so and how
// to get it; with one bundle, each run's own verdict.
func TestVerdictUnavailable(t *testing.T) {
	dirs := demoBundles(t, t.TempDir())
	rep, err := analysis.LoadReport(context.Background(), dirs[:1], analysis.ReportOptions{Resamples: 500, ValidationNote: "--no-validate was given"})
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Verdict
	if v.Available || len(v.Entries) != 1 || v.Entries[0].Verdict != analysis.VerdictUnavailable || !strings.Contains(v.Headline, "--no-validate") {
		t.Fatalf("verdict = %+v", v)
	}
	rep = reportWithValidation(t, dirs[:1])
	v = rep.Verdict
	if len(v.Entries) != 1 || v.Entries[0].Pair || v.Entries[0].Verdict != analysis.VerdictValid || !strings.HasPrefix(v.Headline, "Nothing compared") {
		t.Fatalf("verdict = %+v", v)
	}
}

// TestReportValidateWith: validation given as a function runs alongside
// the reading of the runs and ends as if it had been given: its result
// is the report's validation, its failure the report's note.
func TestReportValidateWith(t *testing.T) {
	ctx := context.Background()
	dirs := demoBundles(t, t.TempDir())
	want := reportWithValidation(t, dirs)
	got, err := analysis.LoadReport(ctx, dirs, analysis.ReportOptions{Resamples: 2000, ValidateWith: func(ctx context.Context) (*analysis.ReportValidation, error) {
		v, err := analysis.Validate(ctx, dirs, validate.Options{Compare: true})
		if err != nil {
			return nil, err
		}
		return analysis.ValidationOf(v), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Validation == nil || got.Verdict.Headline != want.Verdict.Headline || len(got.Verdict.Entries[0].Differences) != len(want.Verdict.Entries[0].Differences) {
		t.Errorf("verdict %q, want %q", got.Verdict.Headline, want.Verdict.Headline)
	}
	failed, err := analysis.LoadReport(ctx, dirs, analysis.ReportOptions{Resamples: 200, ValidateWith: func(context.Context) (*analysis.ReportValidation, error) {
		return nil, errors.New("policy engine down")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if failed.Validation != nil || failed.ValidationNote != "the validator failed: policy engine down" || !strings.Contains(failed.ValidationText(), "policy engine down") {
		t.Errorf("validation %v, note %q", failed.Validation, failed.ValidationNote)
	}
}
