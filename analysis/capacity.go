package analysis

import (
	"context"
	"fmt"
	"github.com/verdict-llm/verdict/costing"
	"math"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// CapacitySchema is the "schema" value of `verdict capacity --format json`.
const CapacitySchema = "verdict.capacity/v1"

// CapacityOptions configure Capacity. Start from DefaultCapacity.
type CapacityOptions struct {
	// Limits and Goodput are the SLO (ParseCapacitySLO); at least one.
	Limits  []CapacityLimit
	Goodput *GoodputLimit
	// Method reads the percentiles.
	Method stats.Method
	// Interval is how each load point's requests are resampled; the
	// default is the circular block bootstrap, since a loaded server's
	// requests are correlated.
	Interval stats.Scheme
	// Confidence, Resamples and Seed configure the intervals.
	Confidence float64
	Resamples  int
	Seed       uint64
	// GroupBy names the configurations as validation groups them ("",
	// bundle, tool, label:KEY, sut:FIELD). "" groups by bundle, unless a
	// single bundle holds several configurations told apart by one label
	// (a vLLM multi-run file of three deployments): then by that label.
	GroupBy string
	// Axis forces the load axis (AxisRate, AxisConcurrency); "" picks it
	// per configuration.
	Axis string
	// Quotes price the capacity point: one for every configuration, or
	// one per bundle, in the bundles' order.
	Quotes []string
	// Billing are billing exports (FOCUS, AWS CUR, GCP, Azure) joined to
	// every run over its window by resource ID, as verdict cost joins
	// them: where they cost a configuration's runs, the capacity point is
	// priced at the bill's steady rate (capacityCost), else at its quote.
	Billing []string
	// Cost holds the basis, currency and exchange rates of bills and
	// quotes.
	Cost CostSettings
	// Interactivity, when positive, reads the throughput per GPU off the
	// frontiers at that many output tokens per second per user.
	Interactivity float64
	// CliffRatio flags an abrupt crossing (stats.CapacityOptions); 0 is 2.
	CliffRatio float64

	// joined is the report's join of the same Billing files (report
	// --slo --billing), reused when it joined the same windows.
	joined *ReportCosts
}

// DefaultCapacity: linear percentiles, 95% intervals of the circular
// block bootstrap from 2,000 resamples, seed 1.
var DefaultCapacity = CapacityOptions{Method: stats.Linear, Interval: stats.SchemeBlock, Confidence: 0.95, Resamples: 2000, Seed: 1}

// CapacityResult is the capacity view of a set of bundles.
type CapacityResult struct {
	Options CapacityOptions
	// GroupBy is the grouping used; GroupByNote says when it was chosen.
	GroupBy, GroupByNote string
	Configs              []*ConfigCapacity
	// Comparisons are the ratios of every two configurations' capacities,
	// given only where validation found their load points comparable.
	Comparisons []CapacityComparison
	// Frontier is the Pareto frontier of output tokens per second per GPU
	// against interactivity over every configuration's load points, and
	// FrontierAt its throughput at Options.Interactivity.
	Frontier   []stats.ParetoPoint
	FrontierAt *stats.FrontierValue
	// Verdict is validation's overall verdict over the runs.
	Verdict string
	Notes   []string
}

// ConfigCapacity is one configuration's sweep and capacity.
type ConfigCapacity struct {
	Name    string
	Bundles []string
	Sweep   Sweep
	// Limits are the SLO's limits in the order of the capacity's
	// statistics (Capacity.Points[i].Limits).
	Limits []string
	// LimitUnits are the statistics' units (seconds, or ratio for a
	// goodput share), in the same order.
	LimitUnits []string
	Points     []CapacityPoint
	Capacity   stats.Capacity
	// GPUCount is the inventory's GPU count (0 when unknown or not the
	// same for every run).
	GPUCount int
	// Throughput is the output token throughput at the capacity point
	// (interpolated between the bracketing loads), with the interval the
	// capacity's interval maps to; PerGPU divides by GPUCount.
	Throughput, PerGPU Estimate
	Cost               *CapacityCost
	Energy             *CapacityEnergy
	// Frontier is the configuration's own Pareto frontier.
	Frontier   []stats.ParetoPoint
	FrontierAt *stats.FrontierValue
	Notes      []string
}

// A CapacityPoint is one load point of a configuration, as the capacity
// view shows it.
type CapacityPoint struct {
	Load float64
	// Runs are the run names (repeats when several).
	Runs []string
	// Verdict is the worst validation verdict of the runs; Findings the
	// rule IDs and messages of their findings (warnings included).
	Verdict  string
	Findings []string
	// Stats are the limits' statistics with their intervals, in the order
	// of ConfigCapacity.Limits.
	Stats []Estimate
	Pass  bool
	// OutputTokensPerSecond is the mean over the runs of their output
	// token throughput; PerGPU divides by the GPU count.
	OutputTokensPerSecond, PerGPU float64
	// RequestsPerSecond is the mean over the runs of their achieved
	// request throughput (what the server completed, against the offered
	// Load), NaN when no run gives one.
	RequestsPerSecond float64
	// Latency holds the p50 and p99 (mean over the runs) of TTFT, TPOT and
	// E2E, for the latency-throughput curves.
	Latency map[schemas.MetricID][2]float64
	// Interactivity is output tokens per second per user, 1/median TPOT.
	Interactivity float64
	// JoulesPerToken is the GPU energy per output token (mean over the
	// runs that have energy counters), NaN without.
	JoulesPerToken float64
	// Notes are the point's caveats (energy coverage).
	Notes []string
	// Repeats, at a point of several runs, splits each limit's statistic's
	// variance into between-run and within-run parts (stats.RunsBootstrap's
	// random-effects model) with the plan for a tighter interval; one per
	// limit, in the order of ConfigCapacity.Limits; nil for one run.
	Repeats []RepeatVariance
}

// PlanShare is the interval half-width the run plan of a repeated load
// point aims at, as a share of the statistic: ±5%.
const PlanShare = 0.05

// RepeatVariance is one limit's statistic over the repeated runs of a
// load point: the variance of one run's statistic between runs (the
// server's state from run to run) and within a run (the sampling of its
// requests), and what an interval of ±PlanShare needs (stats.RunPlan:
// more runs of this length, or longer runs with this many).
type RepeatVariance struct {
	Limit          string
	Runs           int
	BetweenVar     float64
	WithinVar      float64
	RequestsPerRun float64
	Plan           stats.RunPlan
}

// CapacityComparison is the ratio of two configurations' capacities.
type CapacityComparison struct {
	A, B string
	// Comparable reports that validation paired their load points and
	// found every pair comparable (with warnings at most); Why says why
	// not, or what the warnings are.
	Comparable bool
	Why        []string
	// Ratio is A's capacity over B's; nil unless Comparable.
	Ratio *stats.CapacityRatio
}

// capRun is one run with what the capacity view reads of it.
type capRun struct {
	data    *validate.RunData
	obs     *Observations
	good    []float64 // 1 for a good request, in dispatch order (goodput SLO)
	samples []schemas.Sample
	config  string
	// cost is the run's bill join (nil without billing files).
	cost *RunCosting
}

// Capacity computes the capacity view of the bundles in dirs.
func Capacity(ctx context.Context, dirs []string, o CapacityOptions) (*CapacityResult, error) {
	if len(o.Limits) == 0 && o.Goodput == nil {
		return nil, fmt.Errorf("capacity: no SLO limits")
	}
	runs, err := loadCapacityRuns(ctx, dirs, o)
	if err != nil {
		return nil, err
	}
	res := &CapacityResult{Options: o, GroupBy: o.GroupBy}
	if res.Notes, err = joinCapacityBills(runs, o); err != nil {
		return nil, err
	}
	if res.GroupBy == "" {
		res.GroupBy = "bundle"
		if len(dirs) == 1 {
			var rs []schemas.Run
			for _, r := range runs {
				rs = append(rs, r.data.Run)
			}
			if g := autoGroupBy(rs); g != "" {
				res.GroupBy = g
				res.GroupByNote = fmt.Sprintf("runs at the same loads differ in the %s label, so they are grouped by it (--group-by %s); give --group-by to choose otherwise", strings.TrimPrefix(g, "label:"), g)
			}
		}
	}
	rep, err := capacityValidation(runs, res.GroupBy)
	if err != nil {
		return nil, err
	}
	res.Verdict = string(rep.Verdict)
	names := map[string]int{}
	for i, r := range runs {
		names[r.data.Name()] = i
	}
	all := make([]schemas.Run, len(runs))
	for i, r := range runs {
		all[i] = r.data.Run
	}
	for _, g := range rep.Groups {
		var idx []int
		for _, n := range g.Runs {
			idx = append(idx, names[n])
			runs[names[n]].config = g.Name
		}
		names, groups, note := splitBySystem(g.Name, all, idx)
		for k, name := range names {
			for _, i := range groups[k] {
				runs[i].config = name
			}
			cc := buildConfig(name, runs, groups[k], rep, dirs, o)
			if note != "" {
				cc.Notes = append([]string{note}, cc.Notes...)
			}
			res.Configs = append(res.Configs, cc)
		}
	}
	res.Comparisons = compareConfigs(res.Configs, runs, rep)
	res.frontier(o)
	return res, nil
}

// joinCapacityBills joins the billing files to the runs over their
// windows (billWindow), streaming each file through one costing.Joiner as
// verdict cost does, and sets every run's cost.Bill; it returns the files'
// notes (warnings, rejected rows).
func joinCapacityBills(runs []*capRun, o CapacityOptions) ([]string, error) {
	if len(o.Billing) == 0 {
		return nil, nil
	}
	windows := make([]costing.RunWindow, len(runs))
	for i, r := range runs {
		run := r.data.Run
		c := &RunCosting{}
		w := costing.RunWindow{RunID: run.ID, ResourceIDs: run.SUT.ResourceIDs}
		if run.Completed.OK {
			w.SuccessfulRequests = run.Completed.V
		}
		w.Start, w.End, c.WindowNote, c.WindowFromDate, c.NoWindowWhy = billWindow(run, o.Cost.TimeZone, true)
		c.Window, r.cost, windows[i] = w, c, w
	}
	if rc := o.joined; rc != nil && rc.Join != nil && slices.Equal(rc.billFiles, o.Billing) && sameJoinWindows(rc.windows, windows) {
		// The report has streamed these bills over these windows: its
		// result is this one (the joiner reads only the IDs, resources
		// and times compared), without reading the files again.
		for i := range runs {
			bill := rc.Join.Runs[i]
			bill.Run = windows[i]
			bill.Warnings = slices.Clone(bill.Warnings)
			for k, w := range bill.Warnings {
				bill.Warnings[k] = flagHint(w) // idempotent: the report's may be hinted
			}
			runs[i].cost.Bill = &bill
		}
		return rc.billNotes, nil
	}
	j := costing.NewJoiner(windows, o.Cost.join())
	var notes []string
	for _, path := range o.Billing {
		b, err := addBill(j, path)
		if err != nil {
			return nil, err
		}
		notes = append(notes, billNotes(path, b)...)
	}
	for i, rc := range j.Result().Runs {
		for k, w := range rc.Warnings {
			rc.Warnings[k] = flagHint(w)
		}
		runs[i].cost.Bill = &rc
	}
	return notes, nil
}

// sameJoinWindows reports whether two window lists join a bill alike:
// the same runs in the same order, with the same resources and times.
func sameJoinWindows(a, b []costing.RunWindow) bool {
	return slices.EqualFunc(a, b, func(x, y costing.RunWindow) bool {
		return x.RunID == y.RunID && slices.Equal(x.ResourceIDs, y.ResourceIDs) && x.Start.Equal(y.Start) && x.End.Equal(y.End)
	})
}

// loadCapacityRuns reads every run of the bundles: validation's view, the
// observations in dispatch order and the GPU samples.
func loadCapacityRuns(ctx context.Context, dirs []string, o CapacityOptions) ([]*capRun, error) {
	var out []*capRun
	for _, dir := range dirs {
		b, err := Open(dir)
		if err != nil {
			return nil, err
		}
		vd, err := validate.ReadBundle(ctx, b, dir)
		if err != nil {
			return nil, err
		}
		if len(vd) == 0 {
			return nil, fmt.Errorf("%s: the bundle holds no runs", dir)
		}
		oo := ObserveOptions{Metrics: []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk, schemas.E2E, schemas.ClientQueue, schemas.OutputTokens}}
		if o.Goodput != nil {
			oo.Goodput, oo.GoodputGaps = true, o.Goodput.SLO.ITL > 0
		}
		obs, err := Observe(ctx, b, oo)
		if err != nil {
			return nil, err
		}
		byID := map[string]*Observations{}
		for _, ob := range obs {
			byID[ob.Run.ID] = ob
		}
		var smp []schemas.Sample
		if b.HasTable(schemas.TableSamples) {
			if smp, err = b.Samples(ctx); err != nil {
				return nil, err
			}
		}
		for _, d := range vd {
			r := &capRun{data: d, obs: byID[d.Run.ID]}
			if o.Goodput != nil && r.obs != nil && len(r.obs.Requests) > 0 {
				r.good = stats.GoodSeries(r.obs.Requests, o.Goodput.SLO)
			}
			for _, s := range smp {
				if s.RunID == d.Run.ID {
					r.samples = append(r.samples, s)
				}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// capacityValidation validates the runs, grouped as the capacity view
// groups them, comparing the groups when there are several.
func capacityValidation(runs []*capRun, groupBy string) (*validate.Report, error) {
	data := make([]*validate.RunData, len(runs))
	for i, r := range runs {
		data[i] = r.data
	}
	rep, err := validate.Validate(data, validate.Options{GroupBy: groupBy})
	if err != nil || len(rep.Groups) < 2 {
		return rep, err
	}
	return validate.Validate(data, validate.Options{GroupBy: groupBy, Compare: true})
}

// statsLimits turns the SLO into the stats package's limits.
func statsLimits(o CapacityOptions) []stats.CapacityLimit {
	var out []stats.CapacityLimit
	for _, l := range o.Limits {
		def, _ := schemas.Lookup(l.Metric)
		s := stats.MeanStatistic()
		if !l.Mean {
			s = PercentileStatistic(l.Percentile, o.Method, def.Unit)
		}
		out = append(out, stats.CapacityLimit{Metric: string(l.Metric), Statistic: s, Bound: l.Bound, Strict: l.Strict})
	}
	if g := o.Goodput; g != nil {
		s := stats.MeanStatistic()
		s.Name = "share"
		out = append(out, stats.CapacityLimit{Metric: goodMetric, Statistic: s, Bound: g.MinShare, AtLeast: true})
	}
	return out
}

// goodMetric names the 0/1 series of good requests in the load points.
const goodMetric = "good_request"

// pointRun is what stats reads of one run at a load point: the values of
// each limited metric, else the tool's reported statistic.
func pointRun(r *capRun, limits []CapacityLimit, o CapacityOptions) stats.PointRun {
	pr := stats.PointRun{Values: map[string][]float64{}, Reported: map[string]float64{}}
	if r.obs != nil {
		for id, xs := range r.obs.Values {
			pr.Values[string(id)] = xs
		}
	}
	if r.good != nil {
		pr.Values[goodMetric] = r.good
	}
	sl := statsLimits(CapacityOptions{Limits: limits, Method: o.Method})
	for j, l := range limits {
		if len(pr.Values[string(l.Metric)]) > 0 {
			continue
		}
		if v, ok := reportedStat(r.data.Metrics, l, o.Method); ok {
			pr.Reported[sl[j].Key()] = v
		}
	}
	return pr
}

// reportedStat finds the tool's own figure of a limit's statistic: the
// mean, or the percentile (when the tool read it with the same method).
func reportedStat(ms []schemas.Metric, l CapacityLimit, m stats.Method) (float64, bool) {
	for _, x := range ms {
		if x.MetricID != l.Metric || !x.Value.OK || x.Source != schemas.SourceReported {
			continue
		}
		switch {
		case l.Mean && x.Stat == schemas.StatMean:
			return x.Value.V, true
		case !l.Mean && x.Stat == schemas.StatP && x.Percentile.OK && x.Percentile.V == l.Percentile && (x.Method == "" || x.Method == string(m)):
			return x.Value.V, true
		}
	}
	return 0, false
}

// buildConfig computes one configuration's sweep and capacity.
func buildConfig(name string, runs []*capRun, idx []int, rep *validate.Report, dirs []string, o CapacityOptions) *ConfigCapacity {
	all := make([]schemas.Run, len(runs))
	for i, r := range runs {
		all[i] = r.data.Run
	}
	cc := &ConfigCapacity{Name: name, Sweep: findSweep(name, all, idx, o.Axis)}
	for _, i := range idx {
		if b := runs[i].data.Bundle; !slices.Contains(cc.Bundles, b) {
			cc.Bundles = append(cc.Bundles, b)
		}
	}
	limits := statsLimits(o)
	for j, l := range limits {
		name := l.Name()
		switch {
		case j < len(o.Limits):
			name = o.Limits[j].String()
		case o.Goodput != nil:
			name = o.Goodput.String()
		}
		cc.Limits = append(cc.Limits, name)
		unit := schemas.UnitRatio
		if def, ok := schemas.Lookup(schemas.MetricID(l.Metric)); ok && l.Metric != goodMetric {
			unit = def.Unit
		}
		cc.LimitUnits = append(cc.LimitUnits, unit)
	}
	var pts []stats.LoadPoint
	for _, p := range cc.Sweep.Points {
		lp := stats.LoadPoint{Load: p.Load}
		for _, i := range p.Runs {
			lp.Runs = append(lp.Runs, pointRun(runs[i], o.Limits, o))
		}
		pts = append(pts, lp)
	}
	so := stats.SeriesOptions{Scheme: o.Interval, Bootstrap: stats.BootstrapOptions{Confidence: o.Confidence, Resamples: o.Resamples, Seed: o.Seed}}
	cc.Capacity = stats.CapacityUnderLimits(pts, stats.CapacityOptions{Limits: limits, Series: so, CliffRatio: o.CliffRatio})
	cc.GPUCount = gpuCount(runs, idx)
	for k, p := range cc.Sweep.Points {
		cp := capacityPoint(p, cc.Capacity.Points[k], runs, rep, cc.GPUCount)
		if len(p.Runs) > 1 {
			for j, iv := range cc.Capacity.Points[k].Limits {
				if iv.Runs < 2 {
					continue
				}
				cp.Repeats = append(cp.Repeats, RepeatVariance{Limit: cc.Limits[j], Runs: iv.Runs, BetweenVar: iv.BetweenVar,
					WithinVar: iv.WithinVar, RequestsPerRun: iv.RequestsPerRun, Plan: iv.Plan(PlanShare * math.Abs(iv.Estimate))})
			}
		}
		cc.Points = append(cc.Points, cp)
	}
	if len(cc.Sweep.Points) == 0 {
		cc.Notes = append(cc.Notes, "no run of this configuration has a load on the "+cmpOr(cc.Sweep.Axis, "rate or concurrency")+" axis: there is no sweep")
	}
	if len(cc.Sweep.Points) == 1 {
		cc.Notes = append(cc.Notes, "a sweep of one load point: the capacity is only bounded on one side")
	}
	cc.atCapacity(runs, dirs, o)
	return cc
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// gpuCount is the runs' common inventory GPU count, 0 when unknown or not
// common.
func gpuCount(runs []*capRun, idx []int) int {
	n := -1
	for _, i := range idx {
		g := runs[i].data.Run.SUT.GPUCount
		switch {
		case !g.OK || g.V <= 0:
			return 0
		case n >= 0 && int(g.V) != n:
			return 0
		}
		n = int(g.V)
	}
	return max(n, 0)
}

// capacityPoint gathers one load point's figures.
func capacityPoint(p SweepPoint, pc stats.PointCheck, runs []*capRun, rep *validate.Report, gpus int) CapacityPoint {
	cp := CapacityPoint{Load: p.Load, Pass: pc.Pass, Latency: map[schemas.MetricID][2]float64{}, JoulesPerToken: math.NaN()}
	worst := ""
	var tput, jpt, rps []float64
	lat := map[schemas.MetricID][][2]float64{}
	var tpotMed []float64
	for _, i := range p.Runs {
		r := runs[i]
		name := r.data.Name()
		cp.Runs = append(cp.Runs, name)
		for _, rr := range rep.Runs {
			if rr.Name == name {
				worst = worseVerdict(worst, string(rr.Verdict))
			}
		}
		for _, f := range rep.Findings {
			if f.Scope == validate.ScopeRun && slices.Contains(f.Runs, name) {
				cp.Findings = append(cp.Findings, name+": "+f.Rule+": "+f.Message)
			}
		}
		if v, ok := runThroughput(r); ok {
			tput = append(tput, v)
		}
		if v, ok := runRequestThroughput(r); ok {
			rps = append(rps, v)
		}
		for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.E2E} {
			if q, ok := runQuantiles(r, id); ok {
				lat[id] = append(lat[id], q)
				if id == schemas.TPOT {
					tpotMed = append(tpotMed, q[0])
				}
			}
		}
		switch te, ok, why := runEnergy(r); {
		case ok:
			jpt = append(jpt, te.JoulesPerToken)
			for _, w := range te.Warnings {
				cp.Notes = append(cp.Notes, name+": energy: "+w.Error())
			}
		case why != "":
			cp.Notes = append(cp.Notes, name+": no energy per token: "+why)
		}
	}
	cp.Verdict = worst
	for _, s := range pc.Limits {
		cp.Stats = append(cp.Stats, fromSeries(StatValue, 0, s))
	}
	cp.OutputTokensPerSecond = meanOr(tput)
	cp.RequestsPerSecond = meanOr(rps)
	cp.PerGPU = math.NaN()
	if gpus > 0 {
		cp.PerGPU = cp.OutputTokensPerSecond / float64(gpus)
	}
	for id, qs := range lat {
		var a, b []float64
		for _, q := range qs {
			a, b = append(a, q[0]), append(b, q[1])
		}
		cp.Latency[id] = [2]float64{meanOr(a), meanOr(b)}
	}
	cp.Interactivity = stats.Interactivity(meanOr(tpotMed))
	cp.JoulesPerToken = meanOr(jpt)
	return cp
}

// meanOr is the mean, NaN for none.
func meanOr(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Mean(xs)
}

// worseVerdict returns the worse of two run verdicts.
func worseVerdict(a, b string) string {
	rank := map[string]int{"": 0, string(validate.Valid): 1, string(validate.Incomplete): 2, string(validate.Invalid): 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
