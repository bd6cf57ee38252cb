package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// The report view gathers what `verdict report` shows about a set of
// bundles: every run with its inventory, its metrics with their
// definitions, the headline figures with bootstrap intervals, validation,
// costs and the per-run series the plots draw. It is computed once by
// LoadReport; the text, Markdown and JSON tables (render.ReportTables),
// the workbook (render/xlsx), the plots (render/plot) and the HTML report
// (render/html) all read the same Report, so every output shows the same
// figures, and those are the figures the statistics view computes
// (MetricEstimate) for the same run, statistic and seed.
//
// The report never ranks: runs keep the order of the bundles given and of
// the runs within each bundle, and a run whose evidence is incomplete is
// marked as such rather than left out or placed last.

// ReportOptions configure LoadReport. The zero value is valid: 95 % BCa
// intervals from 10,000 resamples with seed 1 (DefaultStats), no costs and
// no validation.
type ReportOptions struct {
	// Title heads the report; "" means "verdict report".
	Title string
	// Progress, when set, is told how the statistics phase goes (the
	// bootstrap intervals of every run's per-request metrics, the slow
	// part of a report of large runs).
	Progress StatsProgress
	// VerdictVersion is written in the report's provenance.
	VerdictVersion string
	// Confidence, Resamples and Seed configure the bootstrap intervals;
	// zero values take DefaultStats'. A negative Confidence turns
	// intervals off.
	Confidence float64
	Resamples  int
	Seed       uint64
	// Interval is how the run figures' and the differences' intervals
	// resample requests (--interval): "" or stats.SchemeIID as verdict
	// stats and compare by default, or a scheme that keeps neighbouring
	// requests together (block, stationary, ess). The capacity section
	// has its own (Capacity.Interval).
	Interval stats.Scheme
	// Billing are billing exports (FOCUS, AWS CUR, GCP, Azure) joined to
	// the runs by resource ID and window.
	Billing []string
	// Quotes are quote YAML files: one prices every run, or one per
	// bundle prices that bundle's runs (in the order of the bundles).
	Quotes []string
	// Validation is the validation result to show; nil means validation
	// was not available, and the report says so, with ValidationNote
	// (why: "not asked for", or the validator's error) when given.
	Validation     *ReportValidation
	ValidationNote string
	// ValidateWith, when set, validates the runs alongside the reading of
	// their requests (validation reads the bundles too, so on two cores
	// the two overlap) and gives Validation, or on failure
	// ValidationNote "the validator failed: ERR".
	ValidateWith func(context.Context) (*ReportValidation, error)
	// Capacity, when set, adds the capacity section (verdict report
	// --slo): Capacity over the same bundles, priced with Quotes.
	Capacity *CapacityOptions
	// Cost chooses the bills' basis, the currency and exchange rates.
	Cost CostSettings
	// TrendDataset, when set, adds the trend section (verdict report
	// --trend): Trend over that dataset with TrendOptions (without a
	// gate: Since is ignored). The report may then have no bundles.
	TrendDataset string
	Trend        TrendOptions
}

// ReportValidation is what validation concluded, as the report shows it.
// It is a seam: the validate package (or anything else) fills it, and the
// renderers only read it.
type ReportValidation struct {
	// Verdict is the overall verdict (e.g. "valid", "incomplete",
	// "invalid") and Pass the gate.
	Verdict string
	Pass    bool
	// Runs holds each run's own verdict.
	Runs []ReportRunVerdict
	// Findings are every finding, in the validator's order.
	Findings []ReportFinding
	// Notes are shown under the findings (policy, skipped checks).
	Notes []string
	// Pairs are the compared pairs (empty when one configuration was
	// validated on its own), and NotCompared the runs left without a
	// counterpart, with why.
	Pairs       []ReportPairVerdict
	NotCompared []string
}

// ReportRunVerdict is one run's verdict; Bundle is the bundle path as
// given to LoadReport, Name the validator's name for the run (the one
// findings list in Runs).
type ReportRunVerdict struct {
	Bundle, RunID, Verdict string
	Name                   string
}

// ReportPairVerdict is one compared pair: A the old run, B the new, the
// pair's verdict word (validate.Verdict: comparable,
// comparable_with_warnings, incomplete, not_comparable) and gate.
type ReportPairVerdict struct {
	A, B    ReportRunVerdict
	Verdict string
	Pass    bool
}

// ReportFinding is one validation finding with its evidence.
type ReportFinding struct {
	Severity   string
	Unverified bool
	Effect     string
	Rule       string
	Subject    string
	Runs       []string
	Metric     string
	Fields     []string
	Values     []string
	Message    string
}

// ValidationUnavailable begins the report's text when no validation
// result was given.
const ValidationUnavailable = "validation not available"

// ValidationText says why validation is not available (empty when it is).
func (rep *Report) ValidationText() string {
	if rep.Validation != nil {
		return ""
	}
	why := rep.ValidationNote
	if why == "" {
		why = "no validation result was given to the report"
	}
	return ValidationUnavailable + ": " + why + "; run `verdict validate` on the bundles"
}

// ReportSchema is the "schema" value of `verdict report --format json`.
const ReportSchema = "verdict.report/v1"

// A Report is the content of `verdict report`.
type Report struct {
	Title          string
	VerdictVersion string
	Bundles        []ReportBundle
	Runs           []*ReportRun
	// Validation is nil when validation was not available
	// (ValidationText says why).
	Validation     *ReportValidation
	ValidationNote string
	Costs          *ReportCosts
	// Intervals describes the bootstrap (confidence, resamples, seed).
	Confidence float64
	Resamples  int
	Seed       uint64
	// Definitions holds the definition of every metric shown.
	Definitions map[schemas.MetricID]schemas.MetricDef
	// Capacity is the capacity section; nil without --slo.
	Capacity *CapacityResult
	// Trend is the trend section; nil without --trend.
	Trend *TrendReport
	Notes []string
	// Verdict is the answer on top: per compared pair, whether it may be
	// compared, why, and what to supply (see ReportVerdict).
	Verdict ReportVerdict
}

// ReportBundle is one input bundle.
type ReportBundle struct {
	Path     string
	Manifest schemas.Manifest
}

// A ReportRun is one run with everything the report shows about it.
type ReportRun struct {
	Bundle string
	// Platform is the run's "platform" label, else the bundle's base name
	// without ".bundle"; Name is Platform, qualified with the run ID when
	// a platform has several runs. Both are untrusted text (from labels
	// and file names).
	Platform, Name string
	Run            schemas.Run
	Metrics        []schemas.Metric
	// RequestRows is the number of request rows of the run (0: the tool
	// wrote no per-request data).
	RequestRows int
	// Series holds the sorted observations of ttft, tpot, itl_chunk and
	// e2e over successful profiling requests, for plots; for a series too
	// large to hold, SeriesN gives its size and Series evenly spaced
	// quantiles of it.
	Series  map[schemas.MetricID][]float64
	SeriesN map[schemas.MetricID]int
	// ordered holds Series in dispatch order, kept only when the
	// intervals resample neighbouring requests together.
	ordered map[schemas.MetricID][]float64
	// Stats holds mean and percentiles with intervals per metric of
	// Series, computed from the per-request data.
	Stats map[schemas.MetricID]MetricStats
	// Throughput holds the run-level rates with intervals, keyed by
	// definition ID.
	Throughput map[schemas.MetricID]Estimate
	// Headlines are the Summary's figures, in HeadlineSpecs order.
	Headlines []Headline
	// Samples are the run's GPU telemetry samples.
	Samples []schemas.Sample
	// Cost is nil when neither billing nor a quote was given.
	Cost *RunCosting
	// Verdict is the run's validation verdict; "" when not available.
	Verdict string
	// Incomplete lists what is missing for a complete result; empty when
	// the result is complete.
	Incomplete []string
	// Notes are caveats about the run's figures (interval warnings).
	Notes []string

	// tokens sums the input and output tokens of successful profiling
	// requests (when the run has per-request token counts).
	tokensIn, tokensOut int64
	tokensKnown         bool
}

// Complete reports whether the run has every piece of evidence the
// Summary needs.
func (r *ReportRun) Complete() bool { return len(r.Incomplete) == 0 }

// Status is "complete" or "INCOMPLETE: reasons".
func (r *ReportRun) Status() string {
	if r.Complete() {
		return "complete"
	}
	return "INCOMPLETE: " + strings.Join(r.Incomplete, "; ")
}

// A HeadlineSpec names one figure of the Summary.
type HeadlineSpec struct {
	Key    string           // column key, e.g. "ttft_p99"
	Label  string           // e.g. "TTFT p99"
	Metric schemas.MetricID // definition ID
	P      float64          // percentile 0-100; 0 for a run-level rate
}

// HeadlineSpecs are the Summary's figures, in column order.
var HeadlineSpecs = []HeadlineSpec{
	{"request_throughput", "Request throughput", schemas.RequestThroughput, 0},
	{"output_token_throughput", "Output token throughput", schemas.OutputTokenThroughput, 0},
	{"ttft_p50", "TTFT p50", schemas.TTFT, 50},
	{"ttft_p99", "TTFT p99", schemas.TTFT, 99},
	{"tpot_p50", "TPOT p50", schemas.TPOT, 50},
	{"tpot_p99", "TPOT p99", schemas.TPOT, 99},
	{"itl_p99", "ITL p99", schemas.ITLChunk, 99},
	{"e2e_p50", "E2E p50", schemas.E2E, 50},
	{"e2e_p99", "E2E p99", schemas.E2E, 99},
}

// A Headline is one Summary figure of one run.
type Headline struct {
	HeadlineSpec
	Unit string
	// Est holds the value and interval; Lo and Hi are NaN without an
	// interval. Known is false when the value is unknown.
	Est   Estimate
	Known bool
	// From is "requests" (computed from per-request data) or "reported"
	// (the tool's own figure, without an interval).
	From string
}

// SeriesMetrics are the per-request metrics the report plots and
// summarises, in display order.
var SeriesMetrics = []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk, schemas.E2E}

// reportPercentiles are the percentiles the Metrics tables show.
var reportPercentiles = []float64{50, 90, 99}

// seriesGrid is the number of quantiles that stand for a series held on
// disk in the plots (its exact ECDF at that resolution).
const seriesGrid = 2001

// A StatsProgress is told about LoadReport's statistics phase. Stats is
// called once per bundle, after its requests are read, with the number
// of steps (one per run and per-request metric); the function it returns
// is called after each step with the steps done so far, done true at the
// last, which may come early when the report fails.
type StatsProgress interface {
	Stats(bundle string, steps int) func(n int, done bool)
}

// LoadReport reads the bundles and computes the report.
func LoadReport(ctx context.Context, dirs []string, o ReportOptions) (*Report, error) {
	if o.Title == "" {
		o.Title = "verdict report"
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultStats.Confidence
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultStats.Resamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultStats.Seed
	}
	if len(o.Quotes) > 1 && len(o.Quotes) != len(dirs) {
		return nil, fmt.Errorf("%d quotes for %d bundles: give one quote for every run, or one per bundle in bundle order", len(o.Quotes), len(dirs))
	}
	rep := &Report{Title: o.Title, VerdictVersion: o.VerdictVersion, Validation: o.Validation, ValidationNote: o.ValidationNote,
		Confidence: o.Confidence, Resamples: o.Resamples, Seed: o.Seed, Definitions: map[schemas.MetricID]schemas.MetricDef{}}
	if o.ValidateWith != nil {
		validated := make(chan struct{})
		go func() {
			defer close(validated)
			v, err := o.ValidateWith(ctx)
			if err != nil {
				rep.ValidationNote = "the validator failed: " + err.Error()
				return
			}
			rep.Validation = v
		}()
		// Nothing reads the validation before the runs are read; an
		// early return waits for it too, so no work outlives the call.
		wait := sync.OnceFunc(func() { <-validated })
		defer wait()
		if err := loadReportRuns(ctx, rep, dirs, o); err != nil {
			return nil, err
		}
		wait()
	} else if err := loadReportRuns(ctx, rep, dirs, o); err != nil {
		return nil, err
	}
	nameRuns(rep.Runs)
	for _, r := range rep.Runs {
		for _, m := range r.Metrics {
			rep.addDefinition(m.MetricID)
		}
		for _, id := range SeriesMetrics {
			if _, ok := r.Stats[id]; ok {
				rep.addDefinition(id)
			}
		}
	}
	if len(o.Billing) > 0 || len(o.Quotes) > 0 {
		costs, err := loadCosts(rep, dirs, o)
		if err != nil {
			return nil, err
		}
		rep.Costs = costs
	}
	for _, r := range rep.Runs {
		r.headlines()
		r.judge(rep, o)
	}
	rep.Verdict = rep.buildVerdict(o)
	if o.Confidence > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("[lo, hi] are %g %% confidence intervals over the successful requests of the profiling phase, of the run figures and of the differences (--interval %s): %s; %d resamples, seed %d; percentiles are read with the linear method (numpy's default).",
			100*o.Confidence, cmp.Or(o.Interval, stats.SchemeIID), cmp.Or(o.Interval, stats.SchemeIID).Text(), o.Resamples, o.Seed))
	}
	rep.Notes = append(rep.Notes, "Runs are listed in the order the bundles were given and are not ranked. An INCOMPLETE run lacks evidence for at least one figure: compare it with care.")
	if o.Capacity != nil {
		co := *o.Capacity
		co.Quotes, co.Billing, co.Cost, co.joined = o.Quotes, o.Billing, o.Cost, rep.Costs
		c, err := Capacity(ctx, dirs, co)
		if err != nil {
			return nil, fmt.Errorf("capacity: %w", err)
		}
		rep.Capacity = c
	}
	if o.TrendDataset != "" {
		to := o.Trend
		to.Since = ""
		tr, err := Trend(ctx, o.TrendDataset, to)
		if err != nil {
			return nil, fmt.Errorf("trend: %w", err)
		}
		rep.Trend = tr
	}
	return rep, nil
}

func (rep *Report) addDefinition(id schemas.MetricID) {
	if _, ok := rep.Definitions[id]; ok {
		return
	}
	if def, ok := schemas.Lookup(id); ok {
		rep.Definitions[id] = def
	}
}

// platformOf is the run's "platform" label, else the bundle's name.
func platformOf(dir string, r schemas.Run) string {
	if p := r.Labels["platform"]; p != "" {
		return p
	}
	return strings.TrimSuffix(filepath.Base(filepath.Clean(dir)), ".bundle")
}

// nameRuns gives each run a display name: its platform, with the run ID
// when the platform has several runs.
func nameRuns(runs []*ReportRun) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Platform]++
	}
	for _, r := range runs {
		r.Name = r.Platform
		if count[r.Platform] > 1 {
			r.Name += " / " + r.Run.ID
		}
	}
}

func (r *ReportRun) note(s string) {
	if !slices.Contains(r.Notes, s) {
		r.Notes = append(r.Notes, s)
	}
}

// estimateOptions are the statistics view's options for the report's
// intervals.
// dependent reports whether a scheme resamples neighbouring requests
// together, and so reads a series in dispatch order.
func dependent(sc stats.Scheme) bool { return sc != "" && sc != stats.SchemeIID }

// loadReportRuns reads every run of the bundles with its metrics, samples
// and statistics into rep.
func loadReportRuns(ctx context.Context, rep *Report, dirs []string, o ReportOptions) error {
	for _, dir := range dirs {
		b, err := Open(dir)
		if err != nil {
			return err
		}
		rep.Bundles = append(rep.Bundles, ReportBundle{Path: dir, Manifest: b.Manifest})
		// Series are held with bounded memory: in memory up to about a
		// million values (with bootstrap intervals), on disk beyond (exact
		// percentiles, no intervals).
		runs, err := Observe(ctx, b, ObserveOptions{Metrics: []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk, schemas.E2E, schemas.InputTokens, schemas.OutputTokens}, Bounded: true})
		if err != nil {
			for _, r := range runs {
				r.Close()
			}
			return err
		}
		metrics, err := b.Metrics(ctx)
		if err != nil {
			return err
		}
		smp, err := b.Samples(ctx)
		if err != nil {
			return err
		}
		step := func(int) {}
		if o.Progress != nil && len(runs) > 0 {
			total := len(runs) * len(SeriesMetrics)
			update := o.Progress.Stats(dir, total)
			done := 0
			step = func(n int) {
				done += n
				update(done, done >= total)
			}
			defer func() {
				if done < total {
					update(done, true)
				}
			}()
		}
		for _, sr := range runs {
			r := &ReportRun{Bundle: dir, Run: sr.Run, RequestRows: sr.RequestRows, Platform: platformOf(dir, sr.Run),
				Series: map[schemas.MetricID][]float64{}, SeriesN: map[schemas.MetricID]int{}, ordered: map[schemas.MetricID][]float64{}, Stats: map[schemas.MetricID]MetricStats{}, Throughput: map[schemas.MetricID]Estimate{}}
			for _, m := range metrics {
				if m.RunID == r.Run.ID && m.Dimension == "" {
					r.Metrics = append(r.Metrics, m)
				}
			}
			for _, s := range smp {
				if s.RunID == r.Run.ID || (s.RunID == "" && len(runs) == 1) {
					r.Samples = append(r.Samples, s)
				}
			}
			err := r.computeStats(sr, o, step)
			sr.Close()
			if err != nil {
				return err
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	return nil
}

func (o ReportOptions) estimateOptions() EstimateOptions {
	eo := DefaultStats.EstimateOptions
	eo.Percentiles, eo.Method, eo.Confidence, eo.Resamples, eo.Seed = reportPercentiles, stats.Linear, o.Confidence, o.Resamples, o.Seed
	eo.Interval = o.Interval
	if eo.Confidence < 0 {
		eo.Confidence = 0
	}
	return eo
}

// computeStats fills Series, Stats and Throughput from the per-request
// observations, with the statistics view's own computations: bootstrap
// intervals for series held in memory (Student's t for large means),
// exact percentiles without intervals for series spilled to disk.
// computeStats computes the run's statistics, calling step(1) after each
// of SeriesMetrics (the progress of the statistics phase).
func (r *ReportRun) computeStats(sr *Observations, o ReportOptions, step func(int)) error {
	so := o.estimateOptions()
	// The metrics are computed side by side (eachParallel), then kept in
	// SeriesMetrics' order.
	type result struct {
		ms       MetricStats
		xs, qs   []float64
		ordered  []float64
		inMemory bool
		err      error
	}
	res := make([]result, len(SeriesMetrics))
	var mu sync.Mutex
	eachParallel(len(SeriesMetrics), func(i int) int { return sr.Len(SeriesMetrics[i]) }, func(i int) {
		defer func() { mu.Lock(); step(1); mu.Unlock() }()
		id, x := SeriesMetrics[i], &res[i]
		f := sr.Series[id]
		if f == nil || f.Len() == 0 {
			return
		}
		x.xs, x.inMemory = f.Values()
		if x.inMemory && dependent(so.Interval) {
			// The differences resample the series in dispatch order.
			x.ordered = slices.Clone(x.xs)
		}
		if x.ms, x.err = BoundedEstimate(id, f, so); x.err != nil || x.inMemory { // sorts xs when in memory
			return
		}
		grid := make([]float64, seriesGrid)
		for k := range grid {
			grid[k] = float64(k) / float64(seriesGrid-1)
		}
		x.qs, x.err = f.Quantiles(grid, stats.Linear)
	})
	for i, id := range SeriesMetrics {
		x := res[i]
		if x.err != nil {
			return x.err
		}
		f := sr.Series[id]
		if f == nil || f.Len() == 0 {
			continue
		}
		if x.ordered != nil {
			r.ordered[id] = x.ordered
		}
		if x.inMemory {
			r.Series[id] = x.xs
		} else {
			r.Series[id] = x.qs
			r.SeriesN[id] = int(f.Len())
			r.note(fmt.Sprintf("%s: the plots draw %d quantiles of its %d values", id, seriesGrid, f.Len()))
		}
		for _, w := range x.ms.Warnings {
			r.note(string(id) + ": " + w)
		}
		r.Stats[id] = x.ms
		if id == schemas.ITLChunk && so.Confidence > 0 && r.SeriesN[id] == 0 {
			r.note("ITL intervals resample chunk gaps as if independent; gaps of one request are correlated, so the true intervals are wider")
		}
	}
	out, in := sr.Series[schemas.OutputTokens], sr.Series[schemas.InputTokens]
	if out != nil && out.Len() > 0 {
		r.tokensOut = int64(math.Round(out.Mean() * float64(out.Len())))
		if in != nil && in.Len() == out.Len() {
			r.tokensIn = int64(math.Round(in.Mean() * float64(in.Len())))
			r.tokensKnown = true
		}
	}
	// Rates over the run's window are scaled means: with N profiling
	// requests over D seconds, Σx/D = (N/D) × mean(x), where x is a
	// request's contribution (1 or its tokens when it succeeded, 0 when
	// it failed). The window is taken as fixed.
	run := r.Run
	if !run.DurationS.OK || run.DurationS.V <= 0 || !run.Completed.OK || sr.RequestRows == 0 {
		return nil
	}
	failed := int64(0)
	if run.Failed.OK {
		failed = run.Failed.V
	}
	n := run.Completed.V + failed
	if n <= 1 {
		return nil
	}
	scale := float64(n) / run.DurationS.V
	// rate sets a throughput from the successful requests' contributions
	// (nil: each contributes 1).
	rate := func(id schemas.MetricID, ok *spill.Floats) {
		okN := run.Completed.V
		sum, sumSq := float64(okN), float64(okN)
		if ok != nil {
			if ok.Len() != okN {
				r.note(fmt.Sprintf("%s: no interval: %d successful requests carry the count, the run says %d", id, ok.Len(), okN))
				return
			}
			m, sd := ok.Mean(), ok.StdDev(0)
			sum, sumSq = m*float64(okN), (sd*sd+m*m)*float64(okN)
		}
		mean := sum / float64(n)
		e := pointEstimate(StatValue, 0, mean*scale)
		bo := so.Bootstrap()
		var iv stats.Interval
		switch {
		case so.Confidence <= 0:
			r.Throughput[id] = e
			return
		case stats.IntervalMethodFor(stats.MeanStatistic(), int(n), bo) == stats.StudentT:
			// The moments are enough: nothing is held per request.
			v := (sumSq/float64(n) - mean*mean) * float64(n) / float64(n-1)
			iv = stats.StudentTInterval(mean, math.Sqrt(math.Max(v, 0)), int(n), so.Confidence)
		default:
			xs := make([]float64, n)
			if ok == nil {
				for i := range okN {
					xs[i] = 1
				}
			} else {
				vals, _ := ok.Values() // at most stats.MaxMeanBootstrap values: in memory
				copy(xs, vals)
			}
			iv = stats.Estimate(xs, stats.MeanStatistic(), bo)
		}
		e.Lo, e.Hi, e.Confidence, e.Method = iv.Lo*scale, iv.Hi*scale, iv.Confidence, string(iv.Method)
		for _, w := range iv.Warnings {
			r.note(string(id) + ": " + w.Error())
		}
		r.Throughput[id] = e
	}
	rate(schemas.RequestThroughput, nil)
	if out == nil || out.Len() == 0 {
		return nil
	}
	rate(schemas.OutputTokenThroughput, out)
	outV, ok1 := out.Values()
	var inV []float64
	ok2 := false
	if in != nil {
		inV, ok2 = in.Values()
	}
	if r.tokensKnown && ok1 && ok2 && len(outV) == len(inV) {
		// Both series are in dispatch order (nothing sorted them), so
		// they pair up request by request.
		tot := &spill.Floats{}
		defer tot.Close()
		for i := range outV {
			if err := tot.Add(outV[i] + inV[i]); err != nil {
				return err
			}
		}
		rate(schemas.TotalTokenThroughput, tot)
	}
	return nil
}

// metricValue finds a run-level value in the metrics table: verdict's
// computed row first, else the tool's.
func (r *ReportRun) metricValue(id schemas.MetricID, stat string, pct float64) (schemas.Metric, bool) {
	var found schemas.Metric
	ok := false
	for _, m := range r.Metrics {
		if m.MetricID != id || !m.Value.OK {
			continue
		}
		if stat == schemas.StatP {
			if m.Stat != schemas.StatP || !m.Percentile.OK || m.Percentile.V != pct {
				if !(pct == 50 && m.Stat == schemas.StatMedian) {
					continue
				}
			}
		} else if m.Stat != stat {
			continue
		}
		if m.Source == schemas.SourceComputed {
			return m, true
		}
		if !ok {
			found, ok = m, true
		}
	}
	return found, ok
}

// headlines fills Headlines from Stats and Throughput, falling back to
// the metrics table.
func (r *ReportRun) headlines() {
	r.Headlines = r.Headlines[:0]
	for _, spec := range HeadlineSpecs {
		stat := StatP
		if spec.P == 0 {
			stat = StatValue
		}
		h := Headline{HeadlineSpec: spec, Unit: schemas.MustLookup(spec.Metric).Unit, Est: pointEstimate(stat, spec.P, math.NaN())}
		if spec.P == 0 {
			if e, ok := r.Throughput[spec.Metric]; ok {
				h.Est, h.Known, h.From = e, true, "requests"
				// Prefer the metrics table's point value (the tool's or
				// verdict's own computation) when present; the interval
				// is the bootstrap's.
				if m, ok := r.metricValue(spec.Metric, schemas.StatValue, 0); ok {
					h.Est.Value = m.Value.V
				}
			} else if m, ok := r.metricValue(spec.Metric, schemas.StatValue, 0); ok {
				h.Est.Value, h.Known, h.From = m.Value.V, true, m.Source
			}
		} else if ms, ok := r.Stats[spec.Metric]; ok {
			for _, q := range ms.Quantiles {
				if q.Percentile == spec.P {
					h.Est, h.Known, h.From = q, true, "requests"
				}
			}
		} else if m, ok := r.metricValue(spec.Metric, schemas.StatP, spec.P); ok {
			h.Est.Value, h.Known, h.From = m.Value.V, true, m.Source
		}
		r.Headlines = append(r.Headlines, h)
	}
}

// Headline returns the headline with the given key.
func (r *ReportRun) Headline(key string) (Headline, bool) {
	for _, h := range r.Headlines {
		if h.Key == key {
			return h, true
		}
	}
	return Headline{}, false
}

// judge fills Verdict and Incomplete.
func (r *ReportRun) judge(rep *Report, o ReportOptions) {
	r.Incomplete = nil
	if r.RequestRows == 0 {
		r.Incomplete = append(r.Incomplete, "no per-request data (figures are the tool's, without intervals)")
	}
	var unknown []string
	for _, h := range r.Headlines {
		if !h.Known {
			unknown = append(unknown, h.Label)
		}
	}
	if len(unknown) > 0 {
		r.Incomplete = append(r.Incomplete, strings.Join(unknown, ", ")+" unknown")
	}
	run := r.Run
	if run.NumPrompts.OK && run.Completed.OK {
		done := run.Completed.V
		if run.Failed.OK {
			done += run.Failed.V
		}
		if done < run.NumPrompts.V {
			r.Incomplete = append(r.Incomplete, fmt.Sprintf("%d of %d requested prompts not accounted for", run.NumPrompts.V-done, run.NumPrompts.V))
		}
	}
	if run.SUT.GPUModel == "" || run.SUT.Model == "" {
		r.Incomplete = append(r.Incomplete, "system under test unknown (no inventory: GPU or model missing)")
	}
	if c := r.Cost; c != nil && rep.Costs != nil && c.UnitsSource == "" {
		r.Incomplete = append(r.Incomplete, "cost unknown ("+c.Why()+")")
	}
	if v := rep.Validation; v != nil {
		for _, rv := range v.Runs {
			if rv.Bundle == r.Bundle && rv.RunID == r.Run.ID {
				r.Verdict = rv.Verdict
			}
		}
		if r.Verdict == "" {
			r.Verdict = v.Verdict
		}
		switch r.Verdict {
		case "valid", "comparable", "comparable with warnings", "comparable_with_warnings":
		default:
			r.Incomplete = append(r.Incomplete, "validation verdict "+r.Verdict)
		}
	}
}

// MetricInterval returns the interval of a metrics-table row, when the
// report computed one for it: for verdict's computed means and
// percentiles of the per-request series and its computed rates.
func (r *ReportRun) MetricInterval(m schemas.Metric) (Estimate, bool) {
	if m.Source != schemas.SourceComputed || !m.Value.OK {
		return Estimate{}, false
	}
	if e, ok := r.Throughput[m.MetricID]; ok && m.Stat == schemas.StatValue {
		return e, !math.IsNaN(e.Lo)
	}
	ms, ok := r.Stats[m.MetricID]
	if !ok {
		return Estimate{}, false
	}
	var e Estimate
	switch {
	case m.Stat == schemas.StatMean:
		e = ms.Mean
	case m.Stat == schemas.StatMedian || m.Stat == schemas.StatP:
		p := 50.0
		if m.Stat == schemas.StatP {
			if !m.Percentile.OK {
				return Estimate{}, false
			}
			p = m.Percentile.V
		}
		q, ok := ms.Quantile(p)
		if !ok {
			return Estimate{}, false
		}
		e = q
	default:
		return Estimate{}, false
	}
	// The interval belongs to the row only when the row is the same
	// estimate (same data, same method).
	if math.IsNaN(e.Lo) || math.Abs(e.Value-m.Value.V) > 1e-9*math.Max(1, math.Abs(e.Value)) {
		return Estimate{}, false
	}
	return e, true
}
