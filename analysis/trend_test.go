package analysis_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/schemas"
)

// levels returns n values of v.
func levels(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func history(t *testing.T, runs ...[]gen.HistoryRun) string {
	t.Helper()
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if err := gen.History(context.Background(), ds, dir, slices.Concat(runs...), 0); err != nil {
		t.Fatal(err)
	}
	return ds
}

func metricOf(t *testing.T, s analysis.TrendSeries, label string) analysis.TrendMetric {
	t.Helper()
	for _, m := range s.Metrics {
		if m.Stat.Label() == label {
			return m
		}
	}
	t.Fatalf("series %s has no %s", s.Name, label)
	return analysis.TrendMetric{}
}

func TestTrendKnownSeries(t *testing.T) {
	ctx := context.Background()
	step := slices.Concat(levels(10, 1), levels(10, 1.2))
	twoSteps := slices.Concat(levels(8, 1), levels(8, 1.25), levels(8, 0.9))
	var drift []float64
	for i := range 24 {
		drift = append(drift, 1+0.015*float64(i))
	}
	ds := history(t,
		gen.HistoryRuns("step", 0, step, 0.01, 1),
		gen.HistoryRuns("two", 1, twoSteps, 0.01, 2),
		gen.HistoryRuns("drift", 2, drift, 0.01, 3),
		gen.HistoryRuns("noise", 3, levels(20, 1), 0.02, 4),
		gen.HistoryRuns("few", 4, levels(4, 1), 0.01, 5),
	)
	rep, err := analysis.Trend(ctx, ds, analysis.TrendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 5 {
		t.Fatalf("%d series, want 5", len(rep.Series))
	}
	byPrefix := map[string]analysis.TrendSeries{}
	for _, s := range rep.Series {
		byPrefix[strings.Split(s.Runs[0].RunID, "-")[0]] = s
	}
	// One step: one change at run 10, a regression of about 20% for
	// TTFT, a fall of about 1/6 for throughput (higher is better).
	s := byPrefix["step"]
	ttft := metricOf(t, s, "ttft:p99")
	if len(ttft.Changes) != 1 || ttft.Changes[0].Index != 10 || ttft.Changes[0].RunID != "step-0010" {
		t.Fatalf("step: changes %+v", ttft.Changes)
	}
	c := ttft.Changes[0]
	if math.Abs(c.Relative-0.2) > 0.03 || !(c.Lo < c.Relative && c.Relative < c.Hi) || c.Direction != "bad" || !c.Regression || c.P >= 0.05 {
		t.Errorf("step change %+v", c)
	}
	if ttft.Points[0].SE <= 0 || math.IsNaN(ttft.Points[0].SE) {
		t.Errorf("no per-run standard error from the neighbouring percentiles: %+v", ttft.Points[0])
	}
	thr := metricOf(t, s, "output_token_throughput:value")
	if len(thr.Changes) != 1 || thr.Changes[0].Direction != "bad" || !thr.Changes[0].Regression || math.Abs(thr.Changes[0].Relative+1.0/6) > 0.03 {
		t.Errorf("step throughput %+v", thr.Changes)
	}
	// Two steps: at 8 and 16, the second an improvement.
	tw := metricOf(t, byPrefix["two"], "ttft:p50").Changes
	if len(tw) != 2 || tw[0].Index != 8 || tw[1].Index != 16 || tw[0].Direction != "bad" || tw[1].Direction != "good" || tw[1].Regression {
		t.Errorf("two steps %+v", tw)
	}
	// A slow drift: found, and every change is a rise.
	dr := metricOf(t, byPrefix["drift"], "e2e:p99").Changes
	if len(dr) == 0 {
		t.Error("drift: no change found")
	}
	for _, c := range dr {
		if c.Direction != "bad" {
			t.Errorf("drift change %+v", c)
		}
	}
	// Pure noise: no change claimed in any statistic.
	for _, m := range byPrefix["noise"].Metrics {
		if len(m.Changes) != 0 {
			t.Errorf("noise %s: %+v", m.Stat.Label(), m.Changes)
		}
	}
	// Too few runs: said plainly.
	few := byPrefix["few"]
	if len(few.Notes) == 0 || !strings.Contains(few.Notes[0], "too few") {
		t.Errorf("few: notes %v", few.Notes)
	}
	for _, m := range few.Metrics {
		if len(m.Changes) != 0 || !strings.Contains(m.Note, "too few") {
			t.Errorf("few %s: %+v", m.Stat.Label(), m)
		}
	}
}

func TestTrendExcludesIncomparable(t *testing.T) {
	runs := gen.HistoryRuns("r", 0, levels(8, 1), 0.01, 1)
	runs[3].Method = "nearest_rank" // V005: another percentile method
	rep, err := analysis.Trend(context.Background(), history(t, runs), analysis.TrendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 1 {
		t.Fatalf("%d series", len(rep.Series))
	}
	s := rep.Series[0]
	if len(s.Runs) != 7 || len(s.Excluded) != 1 || s.Excluded[0].RunID != "r-0003" || !strings.Contains(strings.Join(s.Excluded[0].Reasons, " "), "V005") {
		t.Fatalf("runs %d, excluded %+v", len(s.Runs), s.Excluded)
	}
}

func TestTrendByLabel(t *testing.T) {
	// Label order is natural: v0.9 < v0.10; the runs' start times are
	// reversed, so ordering by created finds the step elsewhere.
	runs := gen.HistoryRuns("r", 0, slices.Concat(levels(6, 1), levels(6, 1.3)), 0.01, 1)
	for i := range runs {
		runs[i].Start = runs[len(runs)-1-i].Start
	}
	ds := history(t, runs)
	rep, err := analysis.Trend(context.Background(), ds, analysis.TrendOptions{By: "label:engine_version", Since: "v0.6"})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Series[0]
	if s.Runs[9].Order != "v0.9" || s.Runs[10].Order != "v0.10" {
		t.Fatalf("order %+v", s.Runs)
	}
	c := metricOf(t, s, "ttft:p99").Changes
	if len(c) != 1 || c[0].Order != "v0.6" || !c[0].InWindow || !c[0].Fails {
		t.Fatalf("changes %+v", c)
	}
	if rep.Gate == nil || rep.Gate.Pass || rep.Gate.Tests == 0 || len(rep.Gate.Failures) == 0 {
		t.Fatalf("gate %+v", rep.Gate)
	}
	// Since after the change: the gate passes.
	rep, err = analysis.Trend(context.Background(), ds, analysis.TrendOptions{By: "label:engine_version", Since: "v0.8"})
	if err != nil || !rep.Gate.Pass {
		t.Fatalf("gate %+v %v", rep.Gate, err)
	}
}

func TestTrendInputErrors(t *testing.T) {
	ds := history(t, gen.HistoryRuns("r", 0, levels(6, 1), 0.01, 1))
	for _, o := range []analysis.TrendOptions{{By: "size"}, {Since: "not-a-run"}} {
		if _, err := analysis.Trend(context.Background(), ds, o); !errors.Is(err, analysis.ErrTrendInput) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := analysis.ParseTrendMetric("no_such_metric"); !errors.Is(err, analysis.ErrTrendInput) {
		t.Error(err)
	}
	got, err := analysis.ParseTrendMetric(string(schemas.TTFT) + ":p99.9")
	if err != nil || len(got) != 1 || got[0].Percentile != 99.9 {
		t.Errorf("%+v %v", got, err)
	}
}

func TestNaturalCompare(t *testing.T) {
	in := []string{"v0.10", "v0.9", "v1.0", "v0.9.1", "v0.09a", "b", "a"}
	slices.SortFunc(in, analysis.NaturalCompare)
	want := []string{"a", "b", "v0.9", "v0.9.1", "v0.09a", "v0.10", "v1.0"}
	if !slices.Equal(in, want) {
		t.Errorf("%v, want %v", in, want)
	}
}

// A history of 12 nightly runs whose p99 TTFT rises by 20% at run 8:
// Trend finds the change, its size and its direction.
func ExampleTrend() {
	dir, _ := os.MkdirTemp("", "trend-example")
	defer os.RemoveAll(dir)
	ds := filepath.Join(dir, "ds")
	runs := gen.HistoryRuns("nightly", 0, slices.Concat(levels(8, 1), levels(4, 1.2)), 0.01, 1)
	if err := gen.History(context.Background(), ds, dir, runs, 0); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := analysis.Trend(context.Background(), ds, analysis.TrendOptions{
		Metrics: []analysis.TrendStat{{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range rep.Series {
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				fmt.Printf("%s: change at %s, %+.0f%% [%+.0f%%, %+.0f%%], %s, regression %v\n",
					m.Stat.Label(), c.RunID, 100*c.Relative, 100*c.Lo, 100*c.Hi, c.Direction, c.Regression)
			}
		}
	}
	// Output:
	// ttft:p99: change at nightly-0008, +20% [+18%, +22%], bad, regression true
}

// TestReportTrend: LoadReport with TrendDataset computes the trend of
// verdict trend over the dataset (without a gate), with or without
// bundles; a path that is not a dataset is an ErrTrendInput saying what
// the path is.
func TestReportTrend(t *testing.T) {
	ctx := context.Background()
	ds := history(t, gen.HistoryRuns("step", 0, slices.Concat(levels(8, 1), levels(8, 1.2)), 0.01, 1))
	o := analysis.TrendOptions{Metrics: []analysis.TrendStat{{Metric: schemas.TTFT, Stat: schemas.StatP, Percentile: 99}}}
	want, err := analysis.Trend(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Since = "step-0004" // ignored: the report has no gate
	rep, err := analysis.LoadReport(ctx, nil, analysis.ReportOptions{TrendDataset: ds, Trend: o})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trend == nil || rep.Trend.Gate != nil || len(rep.Runs) != 0 {
		t.Fatalf("trend %+v, %d runs", rep.Trend, len(rep.Runs))
	}
	got, exp := rep.Trend.Series[0].Metrics[0].Changes, want.Series[0].Metrics[0].Changes
	if len(got) != 1 || len(exp) != 1 || got[0].RunID != exp[0].RunID || got[0].Relative != exp[0].Relative || !got[0].Regression {
		t.Errorf("report's changes %+v, trend's %+v", got, exp)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "h.bundle")
	if err := gen.HistoryBundle(bundle, gen.HistoryRuns("b", 0, levels(2, 1), 0.01, 1)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{filepath.Join(dir, "nowhere"): "no such dataset", file: "is a file, not a dataset",
		bundle: "is a bundle, not a dataset", dir: "is not a dataset: it has no runs table"} {
		_, err := analysis.LoadReport(ctx, nil, analysis.ReportOptions{TrendDataset: path})
		if !errors.Is(err, analysis.ErrTrendInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want ErrTrendInput saying %q", path, err, want)
		}
	}
}
