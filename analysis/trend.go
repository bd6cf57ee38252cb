package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// TrendSchema is the "schema" value of `verdict trend --format json`.
const TrendSchema = "verdict.trend/v1"

// ErrTrendInput marks errors of Trend's options or input (a bad --by,
// an unknown metric, a --since that matches nothing): usage errors.
var ErrTrendInput = errors.New("trend input")

// TrendOptions configure Trend. The zero value orders runs by their start
// time and looks at the default statistics (DefaultTrendMetrics).
type TrendOptions struct {
	// By orders the runs of a series: "created" (the run's start: its
	// window start, else the tool's own timestamp) or "label:KEY" (the
	// label's values in natural order: v0.9 < v0.10).
	By string
	// Metrics are the statistics looked at, as ParseTrendMetric reads
	// them ("ttft:p99", "tpot", "output_token_throughput"); nil means
	// DefaultTrendMetrics, of which the runs' missing ones are skipped.
	Metrics []TrendStat
	// MinChange is the smallest relative change that is a regression
	// (0.02 when zero).
	MinChange float64
	// Since, when set, is where the gate's window starts: a run ID, a
	// label value (with By label:KEY) or a date (2006-01-02 or RFC 3339).
	Since string
	// Alpha is the level of the gate after Holm's correction (0.05).
	Alpha float64
	// Vary and Split are validate.SeriesOptions'.
	Vary, Split []string
	// ChangePoint configures stats.EDivisive; with Since set its
	// permutations are raised so that Holm's correction over the gated
	// tests can reach Alpha (docs/trend.md).
	ChangePoint stats.ChangePointOptions
}

// A TrendStat is one statistic of one metric: p50 (Percentile 50), a mean
// or a run's single value.
type TrendStat struct {
	Metric     schemas.MetricID
	Stat       string // schemas.StatP, StatMean or StatValue
	Percentile float64
}

// Label is the statistic as the command line writes it: "ttft:p99".
func (s TrendStat) Label() string {
	return string(s.Metric) + ":" + s.statLabel()
}

func (s TrendStat) statLabel() string {
	if s.Stat == schemas.StatP {
		return "p" + strconv.FormatFloat(s.Percentile, 'g', -1, 64)
	}
	return s.Stat
}

// DefaultTrendMetrics are the statistics a trend looks at by default.
var DefaultTrendMetrics = []TrendStat{
	{schemas.TTFT, schemas.StatP, 50}, {schemas.TTFT, schemas.StatP, 99},
	{schemas.TPOT, schemas.StatP, 50}, {schemas.TPOT, schemas.StatP, 99},
	{schemas.E2E, schemas.StatP, 50}, {schemas.E2E, schemas.StatP, 99},
	{schemas.OutputTokenThroughput, schemas.StatValue, 0},
	{schemas.Goodput, schemas.StatValue, 0},
}

// ParseTrendMetric reads a --metric value: METRIC[:STAT] with STAT one of
// pN (p50, p99, p99.9), mean, median or value. Without STAT a per-request
// metric gives p50 and p99 and a run-level one its value.
func ParseTrendMetric(s string) ([]TrendStat, error) {
	id, st, hasStat := strings.Cut(strings.TrimSpace(s), ":")
	def, ok := schemas.Lookup(schemas.MetricID(id))
	if !ok {
		return nil, fmt.Errorf("%w: --metric %q: unknown metric %q (verdict schema lists them)", ErrTrendInput, s, id)
	}
	if !hasStat {
		if def.Level == schemas.LevelRun {
			return []TrendStat{{def.ID, schemas.StatValue, 0}}, nil
		}
		return []TrendStat{{def.ID, schemas.StatP, 50}, {def.ID, schemas.StatP, 99}}, nil
	}
	switch {
	case st == schemas.StatMean || st == schemas.StatValue:
		return []TrendStat{{def.ID, st, 0}}, nil
	case st == schemas.StatMedian:
		return []TrendStat{{def.ID, schemas.StatP, 50}}, nil
	case strings.HasPrefix(st, "p"):
		p, err := strconv.ParseFloat(st[1:], 64)
		if err == nil && p > 0 && p < 100 {
			return []TrendStat{{def.ID, schemas.StatP, p}}, nil
		}
	}
	return nil, fmt.Errorf("%w: --metric %q: unknown statistic %q (use pN, mean, median or value)", ErrTrendInput, s, st)
}

// TrendReport is the result of Trend.
type TrendReport struct {
	Dataset   string
	By        string
	MinChange float64
	Series    []TrendSeries
	// Unordered are runs left out because they have no ordering value.
	Unordered []TrendExcluded
	// Gate is set when TrendOptions.Since is.
	Gate *TrendGate
}

// A TrendSeries is one configuration's runs in order.
type TrendSeries struct {
	Name   string
	Fields [][2]string // the configuration's known fields
	Runs   []TrendRun
	// Excluded are runs validation judged not comparable with the series.
	Excluded []TrendExcluded
	Metrics  []TrendMetric
	Notes    []string
}

// Changes counts the series' change points over all its statistics, and
// how many of them are regressions.
func (s TrendSeries) Changes() (changes, regressions int) {
	for _, m := range s.Metrics {
		for _, c := range m.Changes {
			changes++
			if c.Regression {
				regressions++
			}
		}
	}
	return changes, regressions
}

// A TrendRun is one run of a series: its ID and ordering value.
type TrendRun struct {
	RunID, Order string
}

// A TrendExcluded is a run left out, with the reasons.
type TrendExcluded struct {
	RunID   string
	Reasons []string
}

// A TrendMetric is one statistic over a series' runs.
type TrendMetric struct {
	Stat      TrendStat
	Name      string // the registry's name
	Unit      string
	Direction schemas.Direction
	Points    []TrendPoint
	Changes   []TrendChange
	// Note says why no change is claimed (too few runs), when so.
	Note string
}

// A TrendPoint is one run's value with its standard error (NaN when the
// metrics rows do not give one).
type TrendPoint struct {
	RunID, Order string
	Value, SE    float64
}

// A TrendChange is one change point of a statistic.
type TrendChange struct {
	// Index is the position in Points of the first run after the change.
	Index        int
	RunID, Order string
	Before       float64
	After        float64
	// Relative is After/Before - 1 with its interval [Lo, Hi] (NaN when
	// unknown).
	Relative, Lo, Hi float64
	P                float64
	// Direction is "good", "bad" or "none" (the metric has none).
	Direction  string
	Regression bool
	// InWindow: the change's first run is at or after the gate's Since;
	// PHolm its Holm-adjusted p-value (NaN outside the window); Fails:
	// a regression that fails the gate.
	InWindow bool
	PHolm    float64
	Fails    bool
}

// TrendGate is the gate's result.
type TrendGate struct {
	Since string
	Alpha float64
	// Tests is the number of series × statistic tests in the window.
	Tests    int
	Pass     bool
	Failures []string
}

// trendRun is a scanned run with its order.
type trendRun struct {
	d     *validate.RunData
	order string
	at    time.Time
}

// Trend reads the runs and metrics tables of a dataset (schemas.
// ScanDataset: only the columns a trend needs), groups the runs into
// series of one configuration with validate.Series, orders them, and
// looks for change points in each statistic with stats.EDivisive, using
// each run's own standard error where its metrics rows give one.
// docs/trend.md explains the method. Errors wrapping ErrTrendInput are
// the caller's: bad options.
func Trend(ctx context.Context, dir string, o TrendOptions) (*TrendReport, error) {
	t, err := newTrendBuilder(dir, o)
	if err != nil {
		return nil, err
	}
	if err := t.readRuns(ctx); err != nil {
		return nil, err
	}
	series, err := t.series()
	if err != nil {
		return nil, err
	}
	if t.o.Since != "" {
		if t.since, err = resolveSince(t.o.Since, t.by, t.runs); err != nil {
			return nil, err
		}
	}
	jobs := t.tests(series)
	changes := parallel(jobs, func(j trendJob) []TrendChange { return t.detect(j, t.o.ChangePoint) })
	if t.since != nil {
		t.retestWindow(jobs, changes)
	}
	for k, j := range jobs {
		t.rep.Series[j.s].Metrics[j.m].Changes = changes[k]
	}
	if t.since != nil {
		t.rep.Gate = trendGate(t.rep, jobs2tests(t.rep, t.inWindow, t.runs), t.o)
		t.rep.Gate.Since = t.o.Since
	}
	return t.rep, nil
}

// trendBuilder holds one Trend call's state: the options with their
// defaults, the dataset's runs in order and the report being filled.
type trendBuilder struct {
	dir      string
	o        TrendOptions
	by, key  string
	specs    []TrendStat
	explicit bool // the metrics were asked for (o.Metrics), not the defaults
	minSize  int
	rep      *TrendReport
	runs     []trendRun
	byData   map[*validate.RunData]trendRun
	since    *trendRun // the gate window's first run, when o.Since is set
}

// A trendJob is one change-point test: a series' values of one statistic
// with their standard errors and runs, at rep.Series[s].Metrics[m].
type trendJob struct {
	s, m int
	xs   []float64
	se   []float64
	runs []trendRun
}

func newTrendBuilder(dir string, o TrendOptions) (*trendBuilder, error) {
	by, key, err := parseTrendBy(o.By)
	if err != nil {
		return nil, err
	}
	if o.MinChange == 0 {
		o.MinChange = 0.02
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	t := &trendBuilder{dir: dir, o: o, by: by, key: key, specs: o.Metrics, explicit: o.Metrics != nil}
	if !t.explicit {
		t.specs = DefaultTrendMetrics
	}
	t.minSize = o.ChangePoint.MinSize
	if t.minSize < 2 {
		t.minSize = stats.DefaultChangePoint.MinSize
	}
	if err := checkDatasetPath(dir); err != nil {
		return nil, err
	}
	t.rep = &TrendReport{Dataset: dir, By: cmp.Or(o.By, "created"), MinChange: o.MinChange}
	return t, nil
}

// readRuns reads every run with its metric rows (the pair rules judge
// definitions over all of them: schemas.ScanMetricColumns) and orders
// the runs by the ordering key; runs without one are listed as unordered.
func (t *trendBuilder) readRuns(ctx context.Context) error {
	scanned, err := schemas.ScanDataset(ctx, t.dir, schemas.ScanOptions{})
	if err != nil {
		return err
	}
	if len(scanned) == 0 {
		if !schemas.IsDataset(t.dir) {
			return fmt.Errorf("%w: %s is not a dataset: it has no runs table (table=%s/) and no %s; verdict export --dataset writes one", ErrTrendInput, t.dir, schemas.TableRuns, schemas.DatasetFile)
		}
		return fmt.Errorf("%w: %s holds no runs", ErrTrendInput, t.dir)
	}
	for i := range scanned {
		d := &validate.RunData{Bundle: t.dir, Run: scanned[i].Run, Metrics: scanned[i].Metrics}
		tr := trendRun{d: d}
		if at, ok := runTime(d.Run); ok {
			tr.at = at
		}
		switch t.by {
		case "created":
			if tr.at.IsZero() {
				t.rep.Unordered = append(t.rep.Unordered, TrendExcluded{RunID: d.Run.ID, Reasons: []string{"no start time (window_start or the tool's date)"}})
				continue
			}
			tr.order = tr.at.UTC().Format(time.RFC3339)
		case "label":
			v, ok := d.Run.Labels[t.key]
			if !ok {
				t.rep.Unordered = append(t.rep.Unordered, TrendExcluded{RunID: d.Run.ID, Reasons: []string{"no label " + t.key}})
				continue
			}
			tr.order = v
		}
		t.runs = append(t.runs, tr)
	}
	slices.SortStableFunc(t.runs, t.less)
	t.byData = map[*validate.RunData]trendRun{}
	for _, r := range t.runs {
		t.byData[r.d] = r
	}
	return nil
}

// less orders runs by the ordering key (labels in natural order), then
// start time, then run ID.
func (t *trendBuilder) less(a, b trendRun) int {
	c := 0
	if t.by == "label" {
		c = NaturalCompare(a.order, b.order)
	}
	if c == 0 {
		c = a.at.Compare(b.at)
	}
	return cmp.Or(c, strings.Compare(a.d.Run.ID, b.d.Run.ID))
}

func (t *trendBuilder) inWindow(r trendRun) bool { return t.since != nil && t.less(r, *t.since) >= 0 }

// series splits the ordered runs into series of one configuration
// (validate.Series); the ordering label, when there is one, may vary.
func (t *trendBuilder) series() ([]validate.RunSeries, error) {
	data := make([]*validate.RunData, len(t.runs))
	for i, r := range t.runs {
		data[i] = r.d
	}
	vary := slices.Clone(t.o.Vary)
	if t.by == "label" {
		vary = append(vary, "label:"+t.key)
		if slices.Contains(validate.InventoryFieldNames(), t.key) {
			vary = append(vary, t.key)
		}
	}
	series, err := validate.Series(data, validate.SeriesOptions{Vary: vary, Split: t.o.Split})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTrendInput, err)
	}
	return series, nil
}

// tests fills rep.Series, one per series with its runs, exclusions and
// statistics, and returns the change-point tests of the statistics with
// enough values.
func (t *trendBuilder) tests(series []validate.RunSeries) []trendJob {
	var jobs []trendJob
	for si, s := range series {
		ts := TrendSeries{Name: s.Name, Fields: s.Fields}
		for _, d := range s.Runs {
			ts.Runs = append(ts.Runs, TrendRun{RunID: d.Run.ID, Order: t.byData[d].order})
		}
		for _, e := range s.Excluded {
			var why []string
			for _, f := range e.Findings {
				why = append(why, f.Rule+": "+f.Message)
			}
			ts.Excluded = append(ts.Excluded, TrendExcluded{RunID: e.Run.Run.ID, Reasons: why})
		}
		if len(s.Runs) < 2*t.minSize {
			ts.Notes = append(ts.Notes, fmt.Sprintf("%d comparable %s: too few to look for a change (at least %d: segments of at least %d runs); no change is claimed",
				len(s.Runs), plural(len(s.Runs), "run", "runs"), 2*t.minSize, t.minSize))
		}
		for _, spec := range t.specs {
			tm, j, ok := t.metric(s, spec)
			if !ok {
				if t.explicit {
					ts.Notes = append(ts.Notes, spec.Label()+": no run of the series has it")
				}
				continue
			}
			if j != nil {
				j.s, j.m = si, len(ts.Metrics)
				jobs = append(jobs, *j)
			}
			ts.Metrics = append(ts.Metrics, tm)
		}
		t.rep.Series = append(t.rep.Series, ts)
	}
	return jobs
}

// metric is one statistic of a series: its points, and its test when it
// has enough values (ok is false when no run has the statistic).
func (t *trendBuilder) metric(s validate.RunSeries, spec TrendStat) (TrendMetric, *trendJob, bool) {
	def, _ := schemas.Lookup(spec.Metric)
	tm := TrendMetric{Stat: spec, Name: def.Name, Unit: def.Unit, Direction: def.Direction}
	var j trendJob
	missing := 0
	for _, d := range s.Runs {
		v, e, ok := runStatistic(d.Metrics, spec)
		if !ok {
			missing++
			continue
		}
		r := t.byData[d]
		tm.Points = append(tm.Points, TrendPoint{RunID: d.Run.ID, Order: r.order, Value: v, SE: e})
		j.xs, j.se, j.runs = append(j.xs, v), append(j.se, e), append(j.runs, r)
	}
	if len(tm.Points) == 0 {
		return tm, nil, false
	}
	if missing > 0 {
		tm.Note = fmt.Sprintf("%d %s without it left out", missing, plural(missing, "run", "runs"))
	}
	if len(j.xs) < 2*t.minSize {
		tm.Note = strings.TrimPrefix(tm.Note+"; ", "; ") + fmt.Sprintf("%d %s: too few to look for a change", len(j.xs), plural(len(j.xs), "value", "values"))
		return tm, nil, true
	}
	return tm, &j, true
}

// detect runs E-Divisive on one test and judges each change.
func (t *trendBuilder) detect(j trendJob, cp stats.ChangePointOptions) []TrendChange {
	tm := &t.rep.Series[j.s].Metrics[j.m]
	se := j.se
	if !slices.ContainsFunc(se, func(v float64) bool { return v > 0 }) {
		se = nil
	}
	var out []TrendChange
	for _, c := range stats.EDivisive(j.xs, se, cp) {
		r := j.runs[c.Index]
		tc := TrendChange{Index: c.Index, RunID: r.d.Run.ID, Order: r.order, Before: c.Before, After: c.After,
			Relative: c.Relative, Lo: c.Lo, Hi: c.Hi, P: c.P, PHolm: math.NaN(), InWindow: t.inWindow(r)}
		tc.Direction, tc.Regression = judgeChange(c, tm.Direction, t.o.MinChange)
		out = append(out, tc)
	}
	return out
}

// retestWindow runs the tests with a regression in the gate's window
// again with more permutations. The smallest permutation p-value is
// 1/(R+1): with m tests Holm can reach Alpha only when m/(R+1) is below
// it, so R is raised until m/(R+1) is half of Alpha, at most
// MaxGatePermutations (docs/trend.md, section 3).
func (t *trendBuilder) retestWindow(jobs []trendJob, changes [][]TrendChange) {
	cp := t.o.ChangePoint
	m := 0
	var again []int
	for k, j := range jobs {
		if !t.inWindow(j.runs[len(j.runs)-1]) {
			continue
		}
		m++
		if slices.ContainsFunc(changes[k], func(c TrendChange) bool { return c.InWindow && c.Regression }) {
			again = append(again, k)
		}
	}
	hi := cp
	hi.Permutations = min(MaxGatePermutations, max(int(math.Ceil(2*float64(m)/t.o.Alpha))-1, cp.Permutations, stats.DefaultChangePoint.Permutations))
	redo := make([]trendJob, len(again))
	for i, k := range again {
		redo[i] = jobs[k]
	}
	for i, cs := range parallel(redo, func(j trendJob) []TrendChange { return t.detect(j, hi) }) {
		changes[again[i]] = cs
	}
}

// checkDatasetPath says what a path that cannot be a dataset is instead:
// missing, a file, or a bundle (which verdict export --dataset appends
// to a dataset).
func checkDatasetPath(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s: no such dataset (verdict export --dataset DATASET BUNDLE writes one)", ErrTrendInput, dir)
	case err != nil:
		return fmt.Errorf("%w: %v", ErrTrendInput, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is a file, not a dataset (a directory written by verdict export --dataset)", ErrTrendInput, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, schemas.ManifestFile)); err == nil {
		return fmt.Errorf("%w: %s is a bundle, not a dataset: verdict export --dataset DATASET %s appends its runs to one", ErrTrendInput, dir, dir)
	}
	return nil
}

// MaxGatePermutations caps the permutations of a gated test: its
// smallest p-value is 1/10,000.
const MaxGatePermutations = 9999

// parallel maps fn over xs on every CPU, results in order.
func parallel[T, R any](xs []T, fn func(T) R) []R {
	out := make([]R, len(xs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(xs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fn(xs[i])
			}
		}()
	}
	for i := range xs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// gateTest is one series × statistic tested in the window: the index of
// its regression with the smallest p-value (-1: none, p = 1).
type gateTest struct {
	s, m, c int
	p       float64
}

func jobs2tests(rep *TrendReport, inWindow func(trendRun) bool, runs []trendRun) []gateTest {
	last := map[string]trendRun{}
	for _, r := range runs {
		last[r.d.Run.ID] = r
	}
	var tests []gateTest
	for si := range rep.Series {
		for mi := range rep.Series[si].Metrics {
			tm := &rep.Series[si].Metrics[mi]
			if tm.Note != "" && strings.Contains(tm.Note, "too few") {
				continue
			}
			if n := len(tm.Points); n == 0 || !inWindow(last[tm.Points[n-1].RunID]) {
				continue
			}
			t := gateTest{s: si, m: mi, c: -1, p: 1}
			for ci, c := range tm.Changes {
				if c.InWindow && c.Regression && c.P < t.p {
					t.c, t.p = ci, c.P
				}
			}
			tests = append(tests, t)
		}
	}
	return tests
}

// trendGate applies Holm's step-down correction over the tests.
func trendGate(rep *TrendReport, tests []gateTest, o TrendOptions) *TrendGate {
	g := &TrendGate{Alpha: o.Alpha, Tests: len(tests), Pass: true}
	order := make([]int, len(tests))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tests[a].p, tests[b].p) })
	adj := 0.0
	m := len(tests)
	for k, i := range order {
		adj = max(adj, min(1, float64(m-k)*tests[i].p))
		t := tests[i]
		if t.c < 0 {
			continue
		}
		s := &rep.Series[t.s]
		tm := &s.Metrics[t.m]
		c := &tm.Changes[t.c]
		c.PHolm = adj
		if adj < o.Alpha {
			c.Fails = true
			g.Pass = false
			g.Failures = append(g.Failures, fmt.Sprintf("%s: %s %s by %.1f%% from run %s (%s), p = %.3g (Holm %.3g)",
				s.Name, tm.Stat.Label(), map[bool]string{true: "rose", false: "fell"}[c.Relative > 0], 100*math.Abs(c.Relative), c.RunID, c.Order, c.P, adj))
		}
	}
	return g
}

// judgeChange says whether a change is good or bad for the metric, and
// whether it is a regression: bad, beyond minChange, and with an interval
// that excludes no change (when the interval is known).
func judgeChange(c stats.ChangePoint, dir schemas.Direction, minChange float64) (string, bool) {
	var bad bool
	switch dir {
	case schemas.LowerIsBetter:
		bad = c.Relative > 0
	case schemas.HigherIsBetter:
		bad = c.Relative < 0
	default:
		return "none", false
	}
	word := "good"
	if bad {
		word = "bad"
	}
	if !bad || math.Abs(c.Relative) < minChange {
		return word, false
	}
	if !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) && c.Lo <= 0 && c.Hi >= 0 {
		return word, false
	}
	return word, true
}

func parseTrendBy(s string) (kind, key string, err error) {
	switch {
	case s == "" || s == "created":
		return "created", "", nil
	case strings.HasPrefix(s, "label:") && len(s) > len("label:"):
		return "label", s[len("label:"):], nil
	}
	return "", "", fmt.Errorf("%w: unknown --by %q: use created or label:KEY", ErrTrendInput, s)
}

// resolveSince finds where the gate's window starts: the run with that
// ID, else (by label) that label value, else that date.
func resolveSince(s, by string, runs []trendRun) (*trendRun, error) {
	for i := range runs {
		if runs[i].d.Run.ID == s {
			r := runs[i]
			return &r, nil
		}
	}
	if by == "label" {
		return &trendRun{order: s, d: &validate.RunData{}}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &trendRun{at: t, order: t.UTC().Format(time.RFC3339), d: &validate.RunData{}}, nil
		}
	}
	return nil, fmt.Errorf("%w: --since %q is neither a run ID of the dataset nor a date (2006-01-02 or RFC 3339)", ErrTrendInput, s)
}

// runTime is a run's start: its window start, else the tool's own date.
func runTime(r schemas.Run) (time.Time, bool) {
	if r.WindowStart.OK {
		return r.WindowStart.V, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "20060102-150405"} {
		if t, err := time.Parse(layout, r.ToolDate); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// runStatistic is a run's value of the statistic with its standard error
// from the metrics rows alone (docs/trend.md, section 2): for a mean
// std/sqrt(n); for a percentile the sparsity estimate from the stored
// neighbouring percentiles; NaN otherwise. Reported rows are preferred
// to computed ones.
func runStatistic(ms []schemas.Metric, s TrendStat) (value, se float64, ok bool) {
	for _, src := range []string{schemas.SourceReported, schemas.SourceComputed} {
		var rows []schemas.Metric
		for _, m := range ms {
			if m.MetricID == s.Metric && m.Source == src && m.Value.OK && !math.IsNaN(m.Value.V) && !math.IsInf(m.Value.V, 0) {
				rows = append(rows, m)
			}
		}
		for _, m := range rows {
			match := false
			switch s.Stat {
			case schemas.StatP:
				match = (m.Stat == schemas.StatP && m.Percentile.OK && m.Percentile.V == s.Percentile) ||
					(s.Percentile == 50 && m.Stat == schemas.StatMedian)
			default:
				match = m.Stat == s.Stat
			}
			if !match {
				continue
			}
			return m.Value.V, standardError(rows, m, s), true
		}
	}
	return 0, 0, false
}

func standardError(rows []schemas.Metric, m schemas.Metric, s TrendStat) float64 {
	n := float64(m.N.V)
	if !m.N.OK || n < 2 {
		return math.NaN()
	}
	switch s.Stat {
	case schemas.StatMean:
		for _, r := range rows {
			if r.Stat == schemas.StatStd && r.Value.V >= 0 {
				return r.Value.V / math.Sqrt(n)
			}
		}
	case schemas.StatP:
		lo, hi := math.Inf(-1), math.Inf(1)
		var qlo, qhi float64
		for _, r := range rows {
			if r.Stat != schemas.StatP || !r.Percentile.OK {
				continue
			}
			p := r.Percentile.V
			if p < s.Percentile && p > lo {
				lo, qlo = p, r.Value.V
			}
			if p > s.Percentile && p < hi {
				hi, qhi = p, r.Value.V
			}
		}
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || qhi < qlo {
			return math.NaN()
		}
		p := s.Percentile / 100
		return math.Sqrt(p*(1-p)/n) * (qhi - qlo) / ((hi - lo) / 100)
	}
	return math.NaN()
}

// NaturalCompare orders strings with their digit runs compared as numbers:
// "v0.9" < "v0.10" < "v1.0".
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
