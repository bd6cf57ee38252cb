package validate

import (
	"fmt"
	"math"
	"slices"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Steady state (V021) and over-saturation (V022). Both read a run's
// successful requests over time (RequestStats.Timeline).

// steadySeries returns the latency series the steady-state rules follow,
// TTFT where every request has one and E2E otherwise, with its name; nil
// when neither is complete.
func steadySeries(tl *Timeline) ([]float64, string) {
	complete := func(v []float64) bool {
		return !slices.ContainsFunc(v, math.IsNaN)
	}
	switch {
	case complete(tl.TTFT):
		return tl.TTFT, "ttft"
	case complete(tl.E2E):
		return tl.E2E, "e2e"
	}
	return nil, ""
}

// steadyTimeline returns a run's timeline when the steady-state rules can
// read it, or why not.
func steadyTimeline(c *checker, d *RunData) (*Timeline, []float64, string, string) {
	rs := completeRequests(d)
	if rs == nil || rs.Timeline == nil {
		return nil, nil, "", "no per-request rows (or only a sample of them)"
	}
	tl := rs.Timeline
	if tl.Len() < c.th.SteadyMinRequests {
		return nil, nil, "", fmt.Sprintf("%d successful requests; the steady-state rules need %d", tl.Len(), c.th.SteadyMinRequests)
	}
	ys, metric := steadySeries(tl)
	if ys == nil {
		return nil, nil, "", "TTFT and E2E are not known for every request"
	}
	return tl, ys, metric, ""
}

func checkSteadyState(c *checker, s subject) outcome {
	d := s.runs[0]
	_, ys, metric, why := steadyTimeline(c, d)
	if why != "" {
		return skipped(why)
	}
	m := stats.MSER5(ys)
	var o outcome
	up := upper(metric)
	if !m.Steady {
		f := s.finding(fmt.Sprintf("the run never reached a steady state: MSER-5 on %s in dispatch order is still falling at the middle of the run (request %d of %d), so the start-up transient lasts at least half the run and its percentiles depend on how long it ran%s",
			up, m.Truncate, len(ys), compareNote(c)))
		f.Metric, f.Fields, f.Values = metric, []string{"MSER-5 truncation", "requests"}, []string{fmt.Sprint(m.Truncate), fmt.Sprint(len(ys))}
		o.add(f)
		return o
	}
	if m.Truncate == 0 {
		o.note(fmt.Sprintf("MSER-5 on %s truncates nothing: no warm-up transient", up))
		return o
	}
	full, rest := summary(ys), summary(ys[m.Truncate:])
	dMean, dP99 := full.mean/rest.mean-1, full.p99/rest.p99-1
	if math.Abs(dMean) > c.th.TransientTolerance || math.Abs(dP99) > c.th.TransientTolerance {
		f := s.finding(fmt.Sprintf("a start-up transient: MSER-5 on %s drops the first %d of %d requests; without them the mean %s is %s instead of %s and the p99 %s instead of %s (policy tolerance %s), so the run's statistics include start-up effects%s",
			up, m.Truncate, len(ys), up, quantity(rest.mean, schemas.UnitSeconds), quantity(full.mean, schemas.UnitSeconds),
			quantity(rest.p99, schemas.UnitSeconds), quantity(full.p99, schemas.UnitSeconds), percent(c.th.TransientTolerance), compareNote(c)))
		f.Metric = metric
		f.Fields = []string{"MSER-5 truncation", "mean " + metric, "mean after", "p99 " + metric, "p99 after"}
		f.Values = []string{fmt.Sprint(m.Truncate), quantity(full.mean, schemas.UnitSeconds), quantity(rest.mean, schemas.UnitSeconds),
			quantity(full.p99, schemas.UnitSeconds), quantity(rest.p99, schemas.UnitSeconds)}
		o.add(f)
		return o
	}
	o.note(fmt.Sprintf("MSER-5 on %s drops the first %d requests; mean and p99 move by %s and %s, within %s", up, m.Truncate, percent(math.Abs(dMean)), percent(math.Abs(dP99)), percent(c.th.TransientTolerance)))
	return o
}

// compareNote adds what a non-steady run means for a comparison.
func compareNote(c *checker) string {
	if c.compare {
		return "; a comparison with this run depends on the two runs' durations"
	}
	return ""
}

type latencySummary struct{ mean, p99 float64 }

func summary(xs []float64) latencySummary {
	sorted := slices.Sorted(slices.Values(xs))
	return latencySummary{mean: stats.Mean(xs), p99: stats.Quantile(sorted, 0.99, stats.Linear)}
}

func upper(metric string) string {
	switch metric {
	case "ttft":
		return "TTFT"
	case "e2e":
		return "E2E latency"
	}
	return metric
}

// The over-saturation test follows GuideLLM's detector
// (guidellm/scheduler/constraints/saturation.py): a least-squares slope of
// TTFT against the time since the start, tested with the effective sample
// size min(n, seconds spanned), a 95% t interval and a relative margin of
// error below 2, and, where end times give it, the same test on the number
// of requests in flight at each start. GuideLLM applies it online over a
// sliding window and requires TTFT above 2.5 s for half the window; after
// the fact the steady part of the run (after the MSER-5 truncation, or the
// whole run when that part is shorter than the minimum duration) is tested, and instead of GuideLLM's absolute 2.5 s the fitted rise over
// the run must reach a share of the median (saturation_min_rise).

func checkOverSaturation(c *checker, s subject) outcome {
	d := s.runs[0]
	tl, ys, metric, why := steadyTimeline(c, d)
	if why != "" {
		return skipped(why)
	}
	if tl.Start == nil || slices.ContainsFunc(tl.Start, math.IsNaN) {
		return skipped("request start times are not known for every request")
	}
	// Test the steady part; a run that never settled, or whose steady
	// part is too short to test, is tested whole.
	cut := 0
	if m := stats.MSER5(ys); m.Steady && tl.Start[len(ys)-1]-tl.Start[m.Truncate] >= c.th.SaturationMinDuration {
		cut = m.Truncate
	}
	x := elapsed(tl.Start[cut:])
	span := x[len(x)-1]
	if span < c.th.SaturationMinDuration {
		return skipped(fmt.Sprintf("the run's steady part spans %s; the test needs %s", quantity(span, schemas.UnitSeconds), quantity(c.th.SaturationMinDuration, schemas.UnitSeconds)))
	}
	var o outcome
	series := []struct {
		name string
		ys   []float64
	}{{metric, ys[cut:]}}
	if q := tl.Queue[cut:]; !slices.ContainsFunc(q, math.IsNaN) {
		series = append(series, struct {
			name string
			ys   []float64
		}{"client_queue", q})
	}
	conc := concurrencyTrend(c, tl, cut, x)
	for _, sr := range series {
		tr := stats.SlopeTest(x, sr.ys, min(float64(len(x)), span), 0.95, c.th.SaturationMOE)
		med := stats.Median(slices.Sorted(slices.Values(sr.ys)))
		rise := tr.Slope * span
		if !tr.Rising || !(rise >= c.th.SaturationMinRise*med) {
			o.note(fmt.Sprintf("%s does not rise through the run (slope %s/s, relative margin of error %s)", sr.name, sig(tr.Slope), sig(tr.MarginOfError)))
			continue
		}
		f := s.finding(fmt.Sprintf("%s rises through the run: the least-squares slope is %s/s (relative margin of error %s, below GuideLLM's %s), %s over %s against a median of %s; %s, so its percentiles grow with the run's length%s",
			sr.name, quantity(tr.Slope, schemas.UnitSeconds), sig(tr.MarginOfError), sig(c.th.SaturationMOE),
			quantity(rise, schemas.UnitSeconds), quantity(span, schemas.UnitSeconds), quantity(med, schemas.UnitSeconds), conc.verdict(), compareNote(c)))
		f.Metric = sr.name
		f.Fields = []string{"slope (s/s)", "margin of error", "rise over the run", "median"}
		f.Values = []string{sig(tr.Slope), sig(tr.MarginOfError), quantity(rise, schemas.UnitSeconds), quantity(med, schemas.UnitSeconds)}
		o.add(f)
	}
	return o
}

// elapsed returns the times since the first.
func elapsed(ts []float64) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = t - ts[0]
	}
	return out
}

// concTrend is the in-flight test's outcome.
type concTrend struct {
	known, rising bool
	slope         float64
}

func (ct concTrend) verdict() string {
	switch {
	case !ct.known:
		return "the server is falling behind the offered load (end times are unknown, so concurrency could not be checked)"
	case ct.rising:
		return fmt.Sprintf("the requests in flight rise too (%s per second): the server is over-saturated, as GuideLLM's detector defines it", sig(ct.slope))
	}
	return "the requests in flight do not rise, so this is a drift (thermal throttling, cache growth) rather than a queue building up"
}

// concurrencyTrend tests the number of requests in flight at each start,
// with the same materiality as the latency (a rise of saturation_min_rise
// times the median over the run).
func concurrencyTrend(c *checker, tl *Timeline, cut int, x []float64) concTrend {
	if slices.ContainsFunc(tl.End, math.IsNaN) {
		return concTrend{}
	}
	inflight := stats.InFlight(tl.Start, tl.End)[cut:]
	span := x[len(x)-1]
	tr := stats.SlopeTest(x, inflight, min(float64(len(x)), span), 0.95, c.th.SaturationMOE)
	med := stats.Median(slices.Sorted(slices.Values(inflight)))
	return concTrend{known: true, rising: tr.Rising && tr.Slope*span >= c.th.SaturationMinRise*med, slope: tr.Slope}
}
