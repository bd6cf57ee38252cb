package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Capacity: the largest load (request rate or concurrency) of a sweep at
// which every limit holds, interpolated between the last passing and the
// first failing load point, with a bootstrap interval. It generalises
// MaxRateUnderLimits (which reads the highest passing rate and brackets
// it with each run's percentile intervals) to any statistic, floors as
// well as ceilings, repeated runs per load point and the dependent
// resampling schemes of SeriesOptions, and it carries the sampling error
// of every load point into the capacity itself.

// A CapacityLimit bounds one statistic of one metric at every load point.
type CapacityLimit struct {
	// Metric names the values in LoadPoint.Runs.
	Metric string
	// Statistic is computed per run: QuantileStatistic(0.99, Linear) for a
	// p99, MeanStatistic() for a mean or, over a 0/1 series of requests
	// meeting per-request limits (GoodSeries), a goodput share.
	Statistic Statistic
	// Bound is the limit, in the values' unit; it must be positive.
	Bound float64
	// AtLeast makes Bound a floor (a goodput share, a throughput); by
	// default it is a ceiling (a latency).
	AtLeast bool
	// Strict excludes equality with Bound.
	Strict bool
}

// Name is "ttft p99 <= 2" and the like, for reports.
func (l CapacityLimit) Name() string {
	op := "<="
	switch {
	case l.AtLeast && l.Strict:
		op = ">"
	case l.AtLeast:
		op = ">="
	case l.Strict:
		op = "<"
	}
	return fmt.Sprintf("%s %s %s %g", l.Metric, l.Statistic.Name, op, l.Bound)
}

// within reports whether v meets the limit; NaN never does.
func (l CapacityLimit) within(v float64) bool {
	switch {
	case l.AtLeast && l.Strict:
		return v > l.Bound
	case l.AtLeast:
		return v >= l.Bound
	case l.Strict:
		return v < l.Bound
	}
	return v <= l.Bound
}

// CapacityLimitOf is the CapacityLimit of a MaxRateUnderLimits limit.
func CapacityLimitOf(l LatencyLimit) CapacityLimit {
	return CapacityLimit{Metric: l.Metric, Statistic: QuantileStatistic(l.P, l.Method), Bound: l.Limit, Strict: l.Strict}
}

// GoodSeries returns 1 for each request that succeeded and meets every
// limit of slo (as ComputeGoodput counts it: an unknown measurement is not
// good) and 0 otherwise, in the requests' order: its mean is the goodput
// share.
func GoodSeries(reqs []Request, slo SLO) []float64 {
	out := make([]float64, len(reqs))
	for i, r := range reqs {
		if r.Success && slo.meets(r) == met {
			out[i] = 1
		}
	}
	return out
}

// Key names the limit's statistic in PointRun.Reported: "ttft p99".
func (l CapacityLimit) Key() string { return l.Metric + " " + l.Statistic.Name }

// A LoadPoint is one load of a sweep and its runs.
type LoadPoint struct {
	// Load is the offered request rate or the concurrency; say which when
	// reporting.
	Load float64
	// Runs are the repeats at this load.
	Runs []PointRun
}

// A PointRun is one run at a load point.
type PointRun struct {
	// Values maps a metric to the run's per-request values in dispatch
	// order.
	Values map[string][]float64
	// Reported holds statistics the tool reported, by CapacityLimit.Key,
	// for runs without per-request values of a limit's metric. They carry
	// no sampling information: with repeats the interval comes from their
	// spread, without, there is none.
	Reported map[string]float64
}

// CapacityOptions configure [CapacityUnderLimits].
type CapacityOptions struct {
	// Limits must all hold at a load point for it to pass; at least one.
	Limits []CapacityLimit
	// Series says how each point's statistics are resampled; its seed is
	// combined with the point's position and the limit's index.
	Series SeriesOptions
	// CliffRatio flags a cliff when the binding statistic grows by at
	// least this factor (falls, for a floor) between the last passing and
	// the first failing point; 0 means 2.
	CliffRatio float64
}

// A CapacityStatus says how far a sweep answers the question.
type CapacityStatus string

const (
	// CapacityBracketed: a passing point is followed by a failing one;
	// the capacity is interpolated between them.
	CapacityBracketed CapacityStatus = "bracketed"
	// CapacityNotReached: every point passes; the capacity is at least
	// the highest load tried.
	CapacityNotReached CapacityStatus = "not_reached"
	// CapacityNeverMet: the lowest load already fails; the capacity is
	// below it (or there is none).
	CapacityNeverMet CapacityStatus = "never_met"
)

// A PointCheck is the verdict on one load point.
type PointCheck struct {
	Load float64
	// Limits holds each limit's statistic with its interval, in the order
	// of CapacityOptions.Limits.
	Limits []SeriesInterval
	// Pass reports that every estimate meets its limit.
	Pass bool
}

// A Reversal is a statistic moving against the load: a latency that falls
// (or a floor statistic that rises) from one load point to the next by
// more than the sampling error explains.
type Reversal struct {
	Limit    int     // index into CapacityOptions.Limits
	From, To float64 // the two loads
	// Share is the share of bootstrap replicates in which the statistic
	// moved against the load; a reversal is reported when it is at least
	// (1+Confidence)/2.
	Share float64
}

// Capacity is the largest load of a sweep meeting every limit.
type Capacity struct {
	Status CapacityStatus
	// Load is the capacity: the interpolated crossing when bracketed, the
	// highest load tried when not reached (a lower bound), NaN when never
	// met.
	Load float64
	// LastPass and FirstFail bracket the crossing (NaN where absent).
	LastPass, FirstFail float64
	// Binding is the index of the limit crossed first (-1 unless
	// bracketed).
	Binding int
	// Lo and Hi bound Load at Confidence: the percentile interval of the
	// capacities of the bootstrap replicates, each replicate reading the
	// sweep anew from its resampled statistics. A replicate in which the
	// lowest load already fails counts as below every load (-Inf) and one
	// in which every load passes as above every load (+Inf), so Lo = -Inf
	// says the interval reaches below the lowest load tried and Hi = +Inf
	// that it reaches above the highest.
	Lo, Hi     float64
	Confidence float64
	Resamples  int
	// Scheme is how requests were resampled, and Method says it in words
	// (see SeriesInterval.Describe).
	Scheme Scheme
	Method string
	// NeverMetShare and NotReachedShare are the shares of replicates in
	// which the lowest load fails, or no load fails.
	NeverMetShare, NotReachedShare float64
	// Cliff reports that the binding statistic changed by at least
	// CliffRatio across the bracket, Jump by how much: the crossing is
	// abrupt and its interpolation a guess within the bracket.
	Cliff bool
	Jump  float64
	// NonMonotone reports a point passing above a failing one; Reversals
	// lists statistics moving against the load.
	NonMonotone bool
	Reversals   []Reversal
	// Points holds every load point's verdict, sorted by load.
	Points []PointCheck
	// Warnings explain the status, cliffs, reversals and the intervals'
	// own caveats.
	Warnings []error

	reps  []float64 // replicate capacities, for CapacityRatio
	exact []float64 // loads with a statistic but no replicates
}

// CapacityUnderLimits finds the capacity of a sweep. Points are sorted by
// load (equal loads keep their order; give repeats of one load as Runs of
// one point instead). At each point each limit's statistic is estimated,
// over its runs, by RunsBootstrap (the mean of the runs' statistics) with
// the chosen scheme, and the point passes when every estimate meets its
// limit. The capacity is read from the leading run of passing points, as
// MLPerf reads its server scenario: a point passing above a failing one
// does not raise it (see NonMonotone). Between the last passing point a
// and the first failing point b each limit failing at b is interpolated
// linearly in load, v(L) = v_a + (L - L_a)(v_b - v_a)/(L_b - L_a), and the
// capacity is the smallest load at which one of them reaches its bound.
//
// The interval resamples each point independently (each limit on its
// own: the limits' statistics are not resampled jointly, which matters
// only when two limits bind at once). A point without values for a
// limit fails it, with a warning. CapacityUnderLimits panics without
// limits, on a bound that is not positive, or on invalid options.
func CapacityUnderLimits(points []LoadPoint, o CapacityOptions) Capacity {
	if len(o.Limits) == 0 {
		panic("stats: CapacityUnderLimits without limits")
	}
	for _, l := range o.Limits {
		if !(l.Bound > 0) || math.IsInf(l.Bound, 0) {
			panic(fmt.Sprintf("stats: capacity limit %s: bound %v", l.Metric, l.Bound))
		}
	}
	if o.CliffRatio == 0 {
		o.CliffRatio = 2
	}
	so := o.Series.withDefaults()
	pts := slices.Clone(points)
	slices.SortStableFunc(pts, func(a, b LoadPoint) int { return cmp.Compare(a.Load, b.Load) })
	c := Capacity{Load: math.NaN(), LastPass: math.NaN(), FirstFail: math.NaN(), Binding: -1,
		Lo: math.NaN(), Hi: math.NaN(), Confidence: so.Bootstrap.Confidence, Resamples: so.Bootstrap.Resamples,
		Scheme: so.Scheme, Jump: math.NaN()}
	if len(pts) == 0 {
		c.Status = CapacityNeverMet
		c.Warnings = append(c.Warnings, fmt.Errorf("capacity: no load points"))
		return c
	}
	sw := sweepReader{loads: make([]float64, len(pts)), limits: o.Limits}
	est := make([][]float64, len(pts))
	reps := make([][][]float64, len(pts))
	for i, p := range pts {
		sw.loads[i] = p.Load
		est[i] = make([]float64, len(o.Limits))
		reps[i] = make([][]float64, len(o.Limits))
		pc := PointCheck{Load: p.Load, Pass: true}
		for j, l := range o.Limits {
			iv, r := c.pointLimit(p, l, so, i, j)
			est[i][j], reps[i][j] = iv.Estimate, r
			pc.Pass = pc.Pass && l.within(iv.Estimate)
			pc.Limits = append(pc.Limits, iv)
		}
		c.Points = append(c.Points, pc)
	}
	c.Method = capacityMethod(so, pts)
	rd := sw.read(func(i, j int) float64 { return est[i][j] })
	c.setStatus(rd, sw, est, o.CliffRatio)
	c.interval(sw, est, reps, so.Bootstrap.Resamples)
	c.reversals(sw, reps)
	return c
}

// pointLimit estimates one limit's statistic at one point, with its
// replicates (nil when there are no values).
func (c *Capacity) pointLimit(p LoadPoint, l CapacityLimit, so SeriesOptions, i, j int) (SeriesInterval, []float64) {
	var runs []runInput
	for _, r := range p.Runs {
		v, ok := r.Reported[l.Key()]
		runs = append(runs, runInput{values: r.Values[l.Metric], reported: v, hasValue: ok})
	}
	ro := so
	ro.Bootstrap.Seed = mixSeed(so.Bootstrap.Seed, uint64(i), uint64(j))
	iv, reps := runsReplicates(runs, l.Statistic, ro, true)
	switch {
	case math.IsNaN(iv.Estimate):
		c.Warnings = append(c.Warnings, fmt.Errorf("load %g: no %s values; the point fails %s", p.Load, l.Metric, l.Name()))
	case reps == nil:
		c.exact = append(c.exact, p.Load)
	}
	for _, w := range iv.Warnings {
		c.Warnings = append(c.Warnings, fmt.Errorf("load %g: %w", p.Load, w))
	}
	return iv, reps
}

// capacityMethod says in words how the capacity's interval was computed.
func capacityMethod(so SeriesOptions, pts []LoadPoint) string {
	var within string
	switch so.Scheme {
	case SchemeIID:
		within = "i.i.d. bootstrap of requests"
	case SchemeBlock, SchemeStationary:
		kind := "circular block bootstrap"
		if so.Scheme == SchemeStationary {
			kind = "stationary bootstrap"
		}
		if so.BlockLength > 0 {
			within = fmt.Sprintf("%s (block %.3g requests)", kind, so.BlockLength)
		} else {
			within = kind + " (Politis-White block length per load point)"
		}
	case SchemeESS:
		within = "i.i.d. bootstrap of the effective sample size per load point"
	}
	repeated := 0
	for _, p := range pts {
		if len(p.Runs) > 1 {
			repeated++
		}
	}
	m := "percentile interval of the capacities of the sweep's bootstrap replicates; " + within + " within each load point"
	switch {
	case repeated == 1:
		m += ", two-level over the runs of the repeated load point"
	case repeated > 1:
		m += fmt.Sprintf(", two-level over the runs of the %d repeated load points", repeated)
	}
	return m
}

// sweepReader reads a sweep's statistics.
type sweepReader struct {
	loads  []float64
	limits []CapacityLimit
}

// reading is one reading of a sweep.
type reading struct {
	status  CapacityStatus
	load    float64 // the capacity; -Inf never met, +Inf not reached (for replicates)
	last    int     // last point of the leading passing run, -1 if none
	binding int
	ok      bool // the crossing could be interpolated
}

func (sw sweepReader) pass(v func(i, j int) float64, i int) bool {
	for j, l := range sw.limits {
		if !l.within(v(i, j)) {
			return false
		}
	}
	return true
}

func (sw sweepReader) read(v func(i, j int) float64) reading {
	last := -1
	for last+1 < len(sw.loads) && sw.pass(v, last+1) {
		last++
	}
	switch {
	case last < 0:
		return reading{status: CapacityNeverMet, load: math.Inf(-1), last: -1, binding: -1}
	case last == len(sw.loads)-1:
		return reading{status: CapacityNotReached, load: math.Inf(1), last: last, binding: -1}
	}
	a, b := last, last+1
	va, vb := make([]float64, len(sw.limits)), make([]float64, len(sw.limits))
	fails := make([]bool, len(sw.limits))
	bounds := make([]float64, len(sw.limits))
	for j, l := range sw.limits {
		va[j], vb[j], bounds[j] = v(a, j), v(b, j), l.Bound
		fails[j] = !l.within(vb[j])
	}
	load, binding := crossLoad(sw.loads[a], sw.loads[b], va, vb, bounds, fails)
	r := reading{status: CapacityBracketed, load: load, last: last, binding: binding, ok: !math.IsNaN(load)}
	if !r.ok {
		r.load = sw.loads[a]
	}
	return r
}

// crossLoad interpolates, between load la (every limit within) and lb
// (the limits marked failing are not), the smallest load at which a
// failing limit's linearly interpolated value reaches its bound. It
// returns NaN if a failing limit's value is NaN at either end.
func crossLoad(la, lb float64, va, vb, bounds []float64, fails []bool) (float64, int) {
	best, binding := math.Inf(1), -1
	for j := range bounds {
		if !fails[j] {
			continue
		}
		if math.IsNaN(va[j]) || math.IsNaN(vb[j]) {
			return math.NaN(), j
		}
		f := 0.0
		if d := vb[j] - va[j]; d != 0 && !math.IsInf(d, 0) {
			f = min(1, max(0, (bounds[j]-va[j])/d))
		}
		if f < best {
			best, binding = f, j
		}
	}
	if binding < 0 {
		return math.NaN(), -1
	}
	return la + best*(lb-la), binding
}

// setStatus records the estimate's reading, the bracket, the cliff check
// and the warnings.
func (c *Capacity) setStatus(rd reading, sw sweepReader, est [][]float64, cliffRatio float64) {
	c.Status = rd.status
	loads := sw.loads
	switch rd.status {
	case CapacityNeverMet:
		c.FirstFail = loads[0]
		c.Warnings = append(c.Warnings, fmt.Errorf("capacity: the lowest load, %g, already fails; the capacity is below it", loads[0]))
	case CapacityNotReached:
		c.Load, c.LastPass = loads[len(loads)-1], loads[len(loads)-1]
		c.Warnings = append(c.Warnings, fmt.Errorf("capacity: every load meets the limits; %g is only a lower bound, the sweep does not reach the limit", c.Load))
	default:
		c.Load, c.LastPass, c.FirstFail, c.Binding = rd.load, loads[rd.last], loads[rd.last+1], rd.binding
		if !rd.ok {
			c.Warnings = append(c.Warnings, fmt.Errorf("capacity: the crossing between %g and %g cannot be interpolated (a statistic is missing); the capacity is taken as %g", c.LastPass, c.FirstFail, c.LastPass))
		} else {
			l := sw.limits[rd.binding]
			a, b := est[rd.last][rd.binding], est[rd.last+1][rd.binding]
			c.Jump = b / a
			if l.AtLeast {
				c.Jump = a / b
			}
			if c.Jump >= cliffRatio {
				c.Cliff = true
				c.Warnings = append(c.Warnings, fmt.Errorf("capacity: %s changes %.3g-fold between loads %g and %g: the limit is crossed abruptly (a cliff), so the interpolated %.4g is a guess within that bracket; add load points between them",
					l.Name(), c.Jump, c.LastPass, c.FirstFail, c.Load))
			}
		}
	}
	if rd.last+1 < len(loads) {
		var above []string
		for i := rd.last + 1; i < len(loads); i++ {
			if sw.pass(func(i, j int) float64 { return est[i][j] }, i) {
				above = append(above, fmt.Sprint(loads[i]))
			}
		}
		if len(above) > 0 {
			c.NonMonotone = true
			c.Warnings = append(c.Warnings, fmt.Errorf("capacity: loads %v meet the limits above a failing load %g; the sweep is not monotone (noise, too short runs, or an unstable server); the capacity stops at the first failure",
				above, loads[rd.last+1]))
		}
	}
}

// interval reads the capacity of every replicate.
func (c *Capacity) interval(sw sweepReader, est [][]float64, reps [][][]float64, b int) {
	c.reps = make([]float64, b)
	var never, reached int
	for k := range b {
		rd := sw.read(func(i, j int) float64 {
			if reps[i][j] == nil {
				return est[i][j] // NaN when missing
			}
			return reps[i][j][k]
		})
		c.reps[k] = rd.load
		switch rd.status {
		case CapacityNeverMet:
			never++
		case CapacityNotReached:
			reached++
		}
	}
	c.NeverMetShare, c.NotReachedShare = float64(never)/float64(b), float64(reached)/float64(b)
	if len(c.exact) > 0 {
		c.reps = nil
		c.Warnings = append(c.Warnings, fmt.Errorf("capacity: no interval: at loads %v a statistic is known only as reported, without per-request values or repeats to resample", slices.Compact(c.exact)))
		return
	}
	c.Lo, c.Hi = percentileInterval(c.reps, c.Confidence)
}

// percentileInterval returns the (1-conf)/2 and (1+conf)/2 quantiles
// (Linear) of values that may hold infinities, which absorb any
// interpolation they take part in.
func percentileInterval(values []float64, conf float64) (lo, hi float64) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	q := func(p float64) float64 {
		h := p * float64(len(sorted)-1)
		i := int(math.Floor(h))
		if i+1 >= len(sorted) {
			return sorted[len(sorted)-1]
		}
		a, b := sorted[i], sorted[i+1]
		switch {
		case math.IsInf(a, 0) && h == float64(i):
			return a
		case math.IsInf(a, -1) || math.IsInf(b, -1):
			return math.Inf(-1)
		case math.IsInf(a, 1) || math.IsInf(b, 1):
			return math.Inf(1)
		}
		return lerp(a, b, h-float64(i))
	}
	return q((1 - conf) / 2), q((1 + conf) / 2)
}

// reversals reports statistics moving against the load.
func (c *Capacity) reversals(sw sweepReader, reps [][][]float64) {
	level := (1 + c.Confidence) / 2
	for j, l := range sw.limits {
		for i := 0; i+1 < len(sw.loads); i++ {
			a, b := reps[i][j], reps[i+1][j]
			if a == nil || b == nil || sw.loads[i] == sw.loads[i+1] {
				continue
			}
			against := 0
			for k := range a {
				if (!l.AtLeast && b[k] < a[k]) || (l.AtLeast && b[k] > a[k]) {
					against++
				}
			}
			share := float64(against) / float64(len(a))
			if share >= level {
				c.Reversals = append(c.Reversals, Reversal{Limit: j, From: sw.loads[i], To: sw.loads[i+1], Share: share})
				dir := "falls"
				if l.AtLeast {
					dir = "rises"
				}
				c.Warnings = append(c.Warnings, fmt.Errorf("capacity: %s %s from load %g (%.4g) to %g (%.4g) in %.1f%% of the replicates: more than sampling error; the load points may not be comparable (another workload, a restart, a warm cache)",
					l.Metric+" "+l.Statistic.Name, dir, sw.loads[i], c.Points[i].Limits[j].Estimate, sw.loads[i+1], c.Points[i+1].Limits[j].Estimate, 100*share))
			}
		}
	}
}
