package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// p99Ramp returns 2000 values (i+1)/2000*s whose Linear p99 is exactly
// p99: h = 0.99*1999 = 1979.01, so the p99 is (1980 + 0.01)/2000*s.
func p99Ramp(p99 float64) []float64 { return ramp(p99 / 0.990005) }

func point(load float64, m map[string][]float64) LoadPoint {
	return LoadPoint{Load: load, Runs: []PointRun{{Values: m}}}
}

var capLimits = []CapacityLimit{
	{Metric: "ttft", Statistic: QuantileStatistic(0.99, Linear), Bound: 1},
	{Metric: "tpot", Statistic: QuantileStatistic(0.99, Linear), Bound: 0.05},
}

// handSweep: TTFT p99 0.5, 0.8, 1.4, 3.0 s and TPOT p99 20, 30, 60, 90 ms
// at loads 1, 2, 4, 8 (deliberately out of order).
func handSweep() []LoadPoint {
	ttft := map[float64]float64{1: 0.5, 2: 0.8, 4: 1.4, 8: 3.0}
	tpot := map[float64]float64{1: 0.02, 2: 0.03, 4: 0.06, 8: 0.09}
	var pts []LoadPoint
	for _, l := range []float64{4, 1, 8, 2} {
		pts = append(pts, point(l, map[string][]float64{"ttft": p99Ramp(ttft[l]), "tpot": p99Ramp(tpot[l])}))
	}
	return pts
}

// TestCapacityHand works the sweep above by hand. Loads 1 and 2 pass both
// limits, 4 fails both: the bracket is [2, 4]. TTFT reaches 1 s at
// 2 + (1-0.8)/(1.4-0.8)*2 = 2.6667, TPOT reaches 50 ms at
// 2 + (0.05-0.03)/(0.06-0.03)*2 = 3.3333, so TTFT binds and the capacity
// is 8/3. TTFT grows 1.75-fold across the bracket: no cliff at ratio 2.
func TestCapacityHand(t *testing.T) {
	o := CapacityOptions{Limits: capLimits, Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 2000, Seed: 1}}}
	c := CapacityUnderLimits(handSweep(), o)
	if c.Status != CapacityBracketed || c.LastPass != 2 || c.FirstFail != 4 || c.Binding != 0 {
		t.Fatalf("%+v", c)
	}
	if !close(c.Load, 8.0/3, 1e-12) {
		t.Errorf("capacity %.15g, want 8/3", c.Load)
	}
	if c.Cliff || !close(c.Jump, 1.75, 1e-12) || c.NonMonotone || len(c.Reversals) != 0 {
		t.Errorf("cliff %v jump %v nonmonotone %v reversals %v", c.Cliff, c.Jump, c.NonMonotone, c.Reversals)
	}
	if !(c.Lo < c.Load && c.Load < c.Hi) || c.Lo < 2 || c.Hi > 4 {
		t.Errorf("interval [%v, %v] around %v", c.Lo, c.Hi, c.Load)
	}
	if got := []float64{c.Points[0].Load, c.Points[1].Load, c.Points[2].Load, c.Points[3].Load}; !slices.Equal(got, []float64{1, 2, 4, 8}) {
		t.Errorf("points not sorted: %v", got)
	}
	if !close(c.Points[1].Limits[0].Estimate, 0.8, 1e-12) || c.Points[2].Pass || !c.Points[1].Pass {
		t.Errorf("point checks: %+v", c.Points)
	}
	if c.Method != "percentile interval of the capacities of the sweep's bootstrap replicates; i.i.d. bootstrap of requests within each load point" {
		t.Errorf("method %q", c.Method)
	}
}

// TestCapacityIntervalBruteForce checks the capacity interval against a
// plain bootstrap written out here: each load point's requests are
// resampled value by value, the p99 read with Quantile, the sweep read
// with the interpolation formula, and the capacities' 2.5% and 97.5%
// quantiles taken. CapacityUnderLimits draws order statistics instead of
// whole resamples (orderstat.go), so the two agree within Monte Carlo
// error, not to the bit.
func TestCapacityIntervalBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	loads := []float64{1, 2, 3, 4}
	scale := []float64{0.3, 0.6, 1.1, 1.6} // exponential latencies; p99 = 4.6 scale
	var pts []LoadPoint
	data := make([][]float64, len(loads))
	for i, l := range loads {
		data[i] = make([]float64, 1200)
		for k := range data[i] {
			data[i][k] = scale[i] * r.ExpFloat64()
		}
		pts = append(pts, point(l, map[string][]float64{"e2e": data[i]}))
	}
	lim := CapacityLimit{Metric: "e2e", Statistic: QuantileStatistic(0.99, Linear), Bound: 4}
	c := CapacityUnderLimits(pts, CapacityOptions{Limits: []CapacityLimit{lim}, Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 3000, Seed: 3}}})
	if c.Status != CapacityBracketed {
		t.Fatalf("%+v", c)
	}
	const B = 2000
	caps := make([]float64, B)
	buf := make([]float64, 1200)
	for b := range caps {
		p99 := make([]float64, len(loads))
		for i := range loads {
			for k := range buf {
				buf[k] = data[i][r.IntN(len(buf))]
			}
			slices.Sort(buf)
			p99[i] = Quantile(buf, 0.99, Linear)
		}
		last := -1
		for last+1 < len(loads) && p99[last+1] <= 4 {
			last++
		}
		switch {
		case last < 0:
			caps[b] = math.Inf(-1)
		case last == len(loads)-1:
			caps[b] = math.Inf(1)
		default:
			caps[b] = loads[last] + (4-p99[last])/(p99[last+1]-p99[last])*(loads[last+1]-loads[last])
		}
	}
	lo, hi := percentileInterval(caps, 0.95)
	width := hi - lo
	t.Logf("capacity %.4f: [%.4f, %.4f]; brute force [%.4f, %.4f]", c.Load, c.Lo, c.Hi, lo, hi)
	if math.Abs(c.Lo-lo) > 0.1*width || math.Abs(c.Hi-hi) > 0.1*width {
		t.Errorf("interval [%v, %v], brute force [%v, %v]", c.Lo, c.Hi, lo, hi)
	}
}

func TestCapacityStatuses(t *testing.T) {
	o := CapacityOptions{Limits: capLimits[:1], Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 500}}}
	sweepOf := func(p99 ...float64) []LoadPoint {
		var pts []LoadPoint
		for i, v := range p99 {
			pts = append(pts, point(float64(i+1), map[string][]float64{"ttft": p99Ramp(v)}))
		}
		return pts
	}
	c := CapacityUnderLimits(sweepOf(0.2, 0.5), o)
	if c.Status != CapacityNotReached || c.Load != 2 || !math.IsInf(c.Hi, 1) || !hasWarning(c.Warnings, "lower bound") {
		t.Errorf("not reached: %+v", c)
	}
	c = CapacityUnderLimits(sweepOf(1.5, 2), o)
	if c.Status != CapacityNeverMet || !math.IsNaN(c.Load) || !math.IsInf(c.Lo, -1) || c.NeverMetShare != 1 || !hasWarning(c.Warnings, "already fails") {
		t.Errorf("never met: %+v", c)
	}
	// 1 passes, 2 fails, 3 passes: non-monotone, and the TTFT p99 falls
	// from 1.5 to 0.7 s far beyond its sampling error: a reversal.
	c = CapacityUnderLimits(sweepOf(0.5, 1.5, 0.7, 2), o)
	if c.Status != CapacityBracketed || c.FirstFail != 2 || !c.NonMonotone || len(c.Reversals) != 1 || c.Reversals[0].From != 2 {
		t.Errorf("non-monotone: %+v", c)
	}
	// 0.9 to 5 s: a cliff.
	c = CapacityUnderLimits(sweepOf(0.5, 0.9, 5), o)
	if !c.Cliff || !close(c.Jump, 5/0.9, 1e-12) || !hasWarning(c.Warnings, "cliff") {
		t.Errorf("cliff: %+v", c)
	}
	// A point without values fails the limit.
	pts := sweepOf(0.5, 0.6)
	pts = append(pts, point(3, map[string][]float64{"other": {1}}))
	c = CapacityUnderLimits(pts, o)
	if c.Status != CapacityBracketed || c.FirstFail != 3 || c.Load != 2 || !hasWarning(c.Warnings, "no ttft values") {
		t.Errorf("missing: %+v", c)
	}
}

// TestCapacityGoodput uses a floor: at least 90% of requests meet the
// per-request SLO TTFT <= 1 s. The good shares are 1, 0.95, 0.8 at loads
// 1, 2, 3, so the share reaches 0.9 at 2 + (0.9-0.95)/(0.8-0.95) = 2.3333.
func TestCapacityGoodput(t *testing.T) {
	share := []float64{1, 0.95, 0.8}
	var pts []LoadPoint
	for i, s := range share {
		reqs := make([]Request, 1000)
		for k := range reqs {
			ttft := 0.5
			if float64(k) >= s*1000 {
				ttft = 2
			}
			reqs[k] = Request{Success: true, TTFT: ttft, E2E: ttft + 1, TPOT: 1.0 / 9}
		}
		pts = append(pts, point(float64(i+1), map[string][]float64{"good": GoodSeries(reqs, SLO{TTFT: 1})}))
	}
	lim := CapacityLimit{Metric: "good", Statistic: MeanStatistic(), Bound: 0.9, AtLeast: true}
	c := CapacityUnderLimits(pts, CapacityOptions{Limits: []CapacityLimit{lim}, Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 1000}}})
	if c.Status != CapacityBracketed || !close(c.Load, 2+1.0/3, 1e-12) || lim.Name() != "good mean >= 0.9" {
		t.Errorf("%+v", c)
	}
	if !close(c.Jump, 0.95/0.8, 1e-12) {
		t.Errorf("jump %v", c.Jump)
	}
}

// TestCapacityRepeats: a load point run three times uses the two-level
// bootstrap, and its statistic is the mean of the runs' p99s.
func TestCapacityRepeats(t *testing.T) {
	pts := []LoadPoint{
		{Load: 1, Runs: []PointRun{{Values: map[string][]float64{"ttft": p99Ramp(0.4)}}, {Values: map[string][]float64{"ttft": p99Ramp(0.6)}}, {Values: map[string][]float64{"ttft": p99Ramp(0.5)}}}},
		{Load: 2, Runs: []PointRun{{Values: map[string][]float64{"ttft": p99Ramp(1.4)}}, {Values: map[string][]float64{"ttft": p99Ramp(1.6)}}}},
	}
	c := CapacityUnderLimits(pts, CapacityOptions{Limits: capLimits[:1], Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 1000}}})
	if iv := c.Points[0].Limits[0]; iv.Runs != 3 || !close(iv.Estimate, 0.5, 1e-12) || !(iv.BetweenVar > 0) {
		t.Errorf("repeats: %+v", iv)
	}
	// 0.5 to 1.5: the crossing is at 1.5.
	if !close(c.Load, 1.5, 1e-12) || !hasWarning(c.Warnings, "3 runs") {
		t.Errorf("%+v", c)
	}
	if want := "two-level over the runs of the 2 repeated load points"; !strings.Contains(c.Method, want) {
		t.Errorf("method %q", c.Method)
	}
}

// TestCapacityReported: runs without per-request values carry the
// statistic their tool reported. One run per load gives the capacity
// without an interval; three repeats give an interval from their spread
// alone (the two-level bootstrap with no within-run part).
func TestCapacityReported(t *testing.T) {
	key := capLimits[0].Key()
	if key != "ttft p99" {
		t.Fatalf("key %q", key)
	}
	one := func(load, v float64) LoadPoint {
		return LoadPoint{Load: load, Runs: []PointRun{{Reported: map[string]float64{key: v}}}}
	}
	o := CapacityOptions{Limits: capLimits[:1], Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 1000}}}
	c := CapacityUnderLimits([]LoadPoint{one(10, 0.5), one(30, 1.5)}, o)
	// 10 + (1-0.5)/(1.5-0.5)*20 = 20.
	if c.Status != CapacityBracketed || c.Load != 20 || !math.IsNaN(c.Lo) || !hasWarning(c.Warnings, "no interval") {
		t.Errorf("single runs: %+v", c)
	}
	rep := func(load float64, vs ...float64) LoadPoint {
		p := LoadPoint{Load: load}
		for _, v := range vs {
			p.Runs = append(p.Runs, PointRun{Reported: map[string]float64{key: v}})
		}
		return p
	}
	c = CapacityUnderLimits([]LoadPoint{rep(10, 0.4, 0.5, 0.6), rep(30, 1.4, 1.5, 1.6)}, o)
	iv := c.Points[0].Limits[0]
	if c.Load != 20 || !(c.Lo < 20 && 20 < c.Hi) || iv.Runs != 3 || !close(iv.BetweenVar, 0.01, 1e-12) || iv.WithinVar != 0 {
		t.Errorf("repeats: %+v; point %+v", c, iv)
	}
	// The replicates' standard error is the run means' sd/sqrt(R) =
	// 0.1/sqrt(3), up to the bootstrap's discreteness over 3 runs.
	if math.Abs(iv.StdErr/(0.1/math.Sqrt(3))-1) > 0.1 {
		t.Errorf("standard error %v, want about %v", iv.StdErr, 0.1/math.Sqrt(3))
	}
}

// TestCapacityRatio: platform B reaches the same statistics at twice the
// load, so its capacity is twice A's, 16/3, and the ratio B/A is 2.
func TestCapacityRatio(t *testing.T) {
	o := CapacityOptions{Limits: capLimits, Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 2000, Seed: 1}}}
	a := CapacityUnderLimits(handSweep(), o)
	bp := handSweep()
	for i := range bp {
		bp[i].Load *= 2
	}
	o.Series.Bootstrap.Seed = 2
	b := CapacityUnderLimits(bp, o)
	r := CapacityRatioOf(b, a)
	if r.Status != RatioEstimate || !close(r.Estimate, 2, 1e-12) || !(r.Lo < 2 && 2 < r.Hi) {
		t.Errorf("%+v", r)
	}
	// Against a sweep that never fails, the ratio is an upper bound.
	nr := CapacityUnderLimits([]LoadPoint{point(1, map[string][]float64{"ttft": p99Ramp(0.1), "tpot": p99Ramp(0.01)})}, o)
	if r := CapacityRatioOf(a, nr); r.Status != RatioUpperBound || !close(r.Estimate, 8.0/3, 1e-12) || r.Lo != 0 {
		t.Errorf("upper bound: %+v", r)
	}
}

// BenchmarkCapacity10x100k is the target: the capacity interval of
// a 10-point sweep of 100,000 requests each, with 2,000 resamples, for two
// p99 limits.
func BenchmarkCapacity10x100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var pts []LoadPoint
	for i := range 10 {
		load := float64(i + 1)
		ttft := ar1(r, 100_000, 0.5)
		tpot := ar1(r, 100_000, 0.5)
		for k := range ttft {
			ttft[k] = (0.1 + 0.02*load*load) * math.Exp(0.3*ttft[k])
			tpot[k] = (0.01 + 0.001*load) * math.Exp(0.2*tpot[k])
		}
		pts = append(pts, point(load, map[string][]float64{"ttft": ttft, "tpot": tpot}))
	}
	lims := []CapacityLimit{
		{Metric: "ttft", Statistic: QuantileStatistic(0.99, Linear), Bound: 2},
		{Metric: "tpot", Statistic: QuantileStatistic(0.99, Linear), Bound: 0.02},
	}
	for _, sc := range []Scheme{SchemeIID, SchemeBlock, SchemeStationary, SchemeESS} {
		b.Run(string(sc), func(b *testing.B) {
			o := CapacityOptions{Limits: lims, Series: SeriesOptions{Scheme: sc, Bootstrap: BootstrapOptions{Resamples: 2000}}}
			for b.Loop() {
				c := CapacityUnderLimits(pts, o)
				if c.Status != CapacityBracketed {
					b.Fatalf("%+v", c.Status)
				}
			}
		})
	}
}
