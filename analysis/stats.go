package analysis

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// StatsSchema is the "schema" value of `verdict stats --format json`.
const StatsSchema = "verdict.stats/v1"

// StatsOptions configure ComputeStats. The zero value is not valid; start
// from DefaultStats.
type StatsOptions struct {
	EstimateOptions
	// Metrics are definition IDs; empty means every metric with data.
	Metrics []schemas.MetricID
	// Selection says which request rows are observations.
	Selection Selection
	// SLO, when HasSLO, adds goodput.
	SLO    stats.SLO
	HasSLO bool
	// MemLimit bounds the values of one series held in memory without
	// intervals (see ObserveOptions); 0 is the default.
	MemLimit int
}

// DefaultStats are the statistics view's defaults: p50, p90 and p99 read
// with numpy's linear method, 95 % BCa intervals from 10,000 resamples,
// seed 1.
var DefaultStats = StatsOptions{EstimateOptions: EstimateOptions{
	Percentiles: []float64{50, 90, 99},
	Method:      stats.Linear,
	Confidence:  0.95,
	Resamples:   10000,
	Seed:        1,
}}

// StatsResult is the statistics view of a set of bundles.
type StatsResult struct {
	Options StatsOptions
	Runs    []RunStats
}

// RunStats is the statistics view of one run.
type RunStats struct {
	Bundle  string
	Run     schemas.Run
	Metrics []MetricStats
	// Reported holds the tool's own statistics when the run has no
	// per-request data, so nothing can be recomputed.
	Reported []schemas.Metric
	Goodput  *stats.Goodput
	Notes    []string
}

// ComputeStats computes the statistics view of every run of the bundles.
func ComputeStats(ctx context.Context, dirs []string, o StatsOptions) (*StatsResult, error) {
	res := &StatsResult{Options: o}
	for _, dir := range dirs {
		rs, err := bundleStats(ctx, dir, o)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, rs...)
	}
	return res, nil
}

func bundleStats(ctx context.Context, dir string, o StatsOptions) ([]RunStats, error) {
	b, err := Open(dir)
	if err != nil {
		return nil, err
	}
	// Without intervals nothing is resampled, so the observations are
	// held with bounded memory (spilled to disk past a million values).
	runs, err := Observe(ctx, b, ObserveOptions{Selection: o.Selection, Metrics: o.Metrics, Goodput: o.HasSLO,
		GoodputGaps: o.SLO.ITL > 0, Bounded: o.Confidence <= 0, MemLimit: o.MemLimit})
	if err != nil {
		return nil, err
	}
	defer closeAll(runs)
	var reported []schemas.Metric
	if slices.ContainsFunc(runs, func(r *Observations) bool { return r.RequestRows == 0 }) {
		if reported, err = b.Metrics(ctx); err != nil {
			return nil, err
		}
	}
	var out []RunStats
	for _, r := range runs {
		rs := RunStats{Bundle: dir, Run: r.Run}
		if r.RequestRows == 0 {
			for _, m := range reported {
				if m.RunID == r.Run.ID && m.Source == schemas.SourceReported && m.Dimension == "" && (len(o.Metrics) == 0 || slices.Contains(o.Metrics, m.MetricID)) {
					rs.Reported = append(rs.Reported, m)
				}
			}
			rs.Notes = append(rs.Notes, "no per-request data: only the tool's own statistics are shown, and no interval can be computed")
			out = append(out, rs)
			continue
		}
		if err := rs.addMetrics(r, o); err != nil {
			return nil, err
		}
		if o.HasSLO {
			if !r.Run.DurationS.OK {
				rs.Notes = append(rs.Notes, "goodput rate: the run's duration is unknown")
			}
			g := stats.ComputeGoodput(r.Requests, o.SLO, r.Run.DurationS.V)
			rs.Goodput = &g
		}
		out = append(out, rs)
	}
	return out, nil
}

// addMetrics computes every metric of o (or with data) of one run. A
// metric whose series is too large for its percentile method is left out
// with a note; the others are computed.
func (rs *RunStats) addMetrics(r *Observations, o StatsOptions) error {
	ids := o.Metrics
	if len(ids) == 0 {
		ids = ObservedMetrics
	}
	type result struct {
		m   MetricStats
		ok  bool
		err error
	}
	res := make([]result, len(ids))
	eachParallel(len(ids), func(i int) int { return r.Len(ids[i]) }, func(i int) {
		id := ids[i]
		if f := r.Series[id]; f != nil && f.Len() > 0 {
			res[i].m, res[i].err = BoundedEstimate(id, f, o.EstimateOptions)
			res[i].ok = true
		} else if xs := r.Values[id]; len(xs) > 0 {
			res[i].m, res[i].ok = MetricEstimate(id, xs, o.EstimateOptions), true
		}
	})
	for i, x := range res {
		switch {
		case !x.ok:
			continue
		case needsMemory(x.err):
			rs.Notes = append(rs.Notes, fmt.Sprintf("%s left out: %v; use --method nearest_rank_cumulative_unmerged (GuideLLM v0.2-v0.3, exact at any size) or intervals (--ci above 0) to hold the series in memory", ids[i], x.err))
			continue
		case x.err != nil:
			return x.err
		}
		rs.Metrics = append(rs.Metrics, x.m)
	}
	return nil
}

// eachParallel calls fn(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines, the largest jobs (by size) first so that the longest one
// starts at once, and returns when every call has. The metrics of a run
// are independent (each bootstraps with the same seed whatever the
// order), so computing them side by side gives the same figures as one by
// one; on a 1M-request run the 15M chunk gaps take one core while the
// other metrics share the rest.
func eachParallel(n int, size func(int) int, fn func(int)) {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				fn(idx[k])
			}
		})
	}
	wg.Wait()
}

// ParseSLO reads "ttft=200ms,tpot=50ms,itl=100ms,e2e=10s".
func ParseSLO(s string) (stats.SLO, error) {
	var slo stats.SLO
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return slo, fmt.Errorf("SLO %q: want name=duration, e.g. ttft=200ms", part)
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return slo, fmt.Errorf("SLO %s: %q is not a positive duration like 200ms", k, v)
		}
		sec := d.Seconds()
		switch strings.ToLower(k) {
		case "ttft":
			slo.TTFT = sec
		case "tpot":
			slo.TPOT = sec
		case "itl":
			slo.ITL = sec
		case "e2e", "e2el":
			slo.E2E = sec
		default:
			return slo, fmt.Errorf("SLO %q: unknown limit (use ttft, tpot, itl, e2e)", k)
		}
	}
	return slo, nil
}
