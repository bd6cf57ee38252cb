package analysis

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/internal/units"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// CapacityCost is the cost per million output tokens at the capacity
// point: the rate of running the configuration for an hour, from its bill
// or its quote, over the throughput there.
type CapacityCost struct {
	// Source is "bill" when the billing files costed the configuration's
	// runs (the steady rate of their prorated charges), else "quote".
	Source string
	// QuoteFile is the quote priced (Source "quote"); BillFiles the
	// billing files joined (Source "bill").
	QuoteFile string
	BillFiles []string
	// BilledRuns of Runs are the configuration's runs the bill costed
	// (Source "bill"); the rate is theirs.
	BilledRuns, Runs int
	Currency         string
	// PerHour is the price of one hour of the configuration: the quote's
	// rates, or the bill's prorated charges per hour of the billed runs'
	// windows (billRate).
	PerHour float64
	// PerMillion is PerHour / 3600 * 1e6 / throughput, with the interval
	// the throughput's interval maps to (the price taken as exact).
	PerMillion Estimate
	Notes      []string
}

// CapacityEnergy is the GPU energy per output token at the capacity point,
// interpolated between the bracketing loads' counter-based figures.
type CapacityEnergy struct {
	JoulesPerToken float64
	// TokensPerSecondPerKW is 1000 / JoulesPerToken.
	TokensPerSecondPerKW float64
	// Scope says what the energy covers.
	Scope string
	Notes []string
}

// runThroughput is a run's output token throughput: the run's own figure
// (reported or computed), else output tokens over its duration.
func runThroughput(r *capRun) (float64, bool) {
	for _, m := range r.data.Metrics {
		if m.MetricID == schemas.OutputTokenThroughput && m.Stat == schemas.StatValue && m.Value.OK {
			return m.Value.V, true
		}
	}
	if tok, ok := runOutputTokens(r); ok && r.data.Run.DurationS.OK && r.data.Run.DurationS.V > 0 {
		return tok / r.data.Run.DurationS.V, true
	}
	return 0, false
}

// runRequestThroughput is a run's achieved requests per second: the
// tool's request_throughput, else the successful requests over the run's
// duration (the window the tool's throughputs divide by).
func runRequestThroughput(r *capRun) (float64, bool) {
	for _, m := range r.data.Metrics {
		if m.MetricID == schemas.RequestThroughput && m.Stat == schemas.StatValue && m.Value.OK {
			return m.Value.V, true
		}
	}
	run := r.data.Run
	if run.Completed.OK && run.DurationS.OK && run.DurationS.V > 0 {
		return float64(run.Completed.V) / run.DurationS.V, true
	}
	return 0, false
}

// runOutputTokens sums the output tokens of the successful requests, else
// takes the tool's sum.
func runOutputTokens(r *capRun) (float64, bool) {
	if r.obs != nil {
		if xs := r.obs.Values[schemas.OutputTokens]; len(xs) > 0 {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, true
		}
	}
	for _, m := range r.data.Metrics {
		if m.MetricID == schemas.OutputTokens && m.Stat == schemas.StatSum && m.Value.OK {
			return m.Value.V, true
		}
	}
	return 0, false
}

// runQuantiles is a metric's p50 and p99: from the per-request values
// (linear), else the tool's reported figures.
func runQuantiles(r *capRun, id schemas.MetricID) ([2]float64, bool) {
	if r.obs != nil {
		if xs := r.obs.Values[id]; len(xs) > 0 {
			s := slices.Sorted(slices.Values(xs))
			return [2]float64{stats.Quantile(s, 0.5, stats.Linear), stats.Quantile(s, 0.99, stats.Linear)}, true
		}
	}
	p50, ok1 := reportedStat(r.data.Metrics, CapacityLimit{Metric: id, Percentile: 50}, stats.Linear)
	if !ok1 {
		for _, m := range r.data.Metrics {
			if m.MetricID == id && m.Stat == schemas.StatMedian && m.Value.OK && m.Source == schemas.SourceReported {
				p50, ok1 = m.Value.V, true
			}
		}
	}
	p99, ok2 := reportedStat(r.data.Metrics, CapacityLimit{Metric: id, Percentile: 99}, stats.Linear)
	return [2]float64{p50, p99}, ok1 && ok2
}

// runEnergy is a run's GPU energy per output token: from its energy
// counter samples over the run window (the samples' span without one),
// else the tool's own counter-based figure (gpu_energy_per_output_token,
// or gpu_energy over the run's output tokens: vLLM's and AIPerf's, over
// the tool's energy window). why says why there is none when the run has
// samples or a figure.
func runEnergy(r *capRun) (te costing.TokenEnergy, ok bool, why string) {
	te, ok, why = samplesEnergy(r)
	if ok {
		return te, ok, why
	}
	if rte, rok, rwhy := reportedEnergy(r); rok || rwhy != "" {
		return rte, rok, rwhy
	}
	return te, ok, why
}

// reportedEnergy reads the tool's energy figures of a run.
func reportedEnergy(r *capRun) (costing.TokenEnergy, bool, string) {
	var perToken, total schemas.Opt[float64]
	for _, m := range r.data.Metrics {
		if m.Stat != schemas.StatValue || !m.Value.OK {
			continue
		}
		switch m.MetricID {
		case schemas.GPUEnergyPerOutputToken:
			perToken = m.Value
		case schemas.GPUEnergy:
			total = m.Value
		}
	}
	te := costing.TokenEnergy{JoulesPerToken: math.NaN(), TokensPerSecondPerKW: math.NaN(), Scope: "the tool's GPU energy counters over its energy window"}
	switch {
	case perToken.OK && perToken.V > 0:
		te.JoulesPerToken = perToken.V
	case total.OK:
		tok, ok := runOutputTokens(r)
		if !ok || !(tok > 0) || !(total.V > 0) {
			return te, false, "the tool's gpu_energy is known but not the output tokens it covers"
		}
		te.Joules, te.OutputTokens, te.JoulesPerToken = total.V, tok, total.V/tok
	default:
		return te, false, ""
	}
	te.TokensPerSecondPerKW = 1000 / te.JoulesPerToken
	te.Warnings = append(te.Warnings, fmt.Errorf("energy per token from the tool's own counter-based figure, over its energy window"))
	return te, true, ""
}

// samplesEnergy measures a run's energy per token from its GPU samples.
func samplesEnergy(r *capRun) (te costing.TokenEnergy, ok bool, why string) {
	var gpu []string
	var ts []time.Time
	var js []float64
	for _, s := range r.samples {
		if !s.EnergyJ.OK {
			continue
		}
		key := cmpOr(s.DeviceUUID, s.Host+":"+s.Device)
		gpu, ts, js = append(gpu, key), append(ts, s.Time), append(js, s.EnergyJ.V)
	}
	if len(js) < 2 {
		if len(r.samples) > 0 {
			return te, false, "its GPU samples carry no energy counter"
		}
		return te, false, ""
	}
	es, _ := costing.EnergySamplesFromJoules(gpu, ts, js)
	start, end := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	if w := r.data.Run; w.WindowStart.OK && w.WindowEnd.OK {
		start, end = w.WindowStart.V, w.WindowEnd.V
	}
	tok, ok := runOutputTokens(r)
	if !ok {
		return te, false, "its output tokens are unknown"
	}
	te = costing.EnergyPerToken(costing.MeasureEnergy(es, start, end, costing.EnergyOptions{}), tok)
	if math.IsNaN(te.JoulesPerToken) {
		var ws []string
		for _, w := range te.Warnings {
			ws = append(ws, w.Error())
		}
		return te, false, strings.Join(ws, "; ")
	}
	return te, true, ""
}

// interpolateAt reads the piecewise-linear curve through (loads, ys) at
// load x; NaN outside the loads or where a y is missing.
func interpolateAt(loads, ys []float64, x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || len(loads) == 0 || x < loads[0] || x > loads[len(loads)-1] {
		return math.NaN()
	}
	for i := 1; i < len(loads); i++ {
		if x <= loads[i] {
			a, b := loads[i-1], loads[i]
			if b == a {
				return ys[i]
			}
			return ys[i-1] + (x-a)/(b-a)*(ys[i]-ys[i-1])
		}
	}
	return ys[len(ys)-1]
}

// atCapacity fills the throughput, cost and energy at the capacity point.
func (cc *ConfigCapacity) atCapacity(runs []*capRun, dirs []string, o CapacityOptions) {
	c := cc.Capacity
	cc.Throughput, cc.PerGPU = pointEstimate(StatValue, 0, math.NaN()), pointEstimate(StatValue, 0, math.NaN())
	loads := make([]float64, len(cc.Points))
	tput := make([]float64, len(cc.Points))
	jpt := make([]float64, len(cc.Points))
	for i, p := range cc.Points {
		loads[i], tput[i], jpt[i] = p.Load, p.OutputTokensPerSecond, p.JoulesPerToken
	}
	switch c.Status {
	case stats.CapacityBracketed:
		v := interpolateAt(loads, tput, c.Load)
		lo, hi := interpolateAt(loads, tput, c.Lo), interpolateAt(loads, tput, c.Hi)
		cc.Throughput = Estimate{Stat: StatValue, Value: v, Lo: min(lo, hi), Hi: max(lo, hi), Confidence: c.Confidence, Method: string(stats.Percentile), Scheme: schemeOf(c.Scheme)}
		if math.IsNaN(lo) || math.IsNaN(hi) {
			cc.Throughput.Lo, cc.Throughput.Hi = math.NaN(), math.NaN()
			if !math.IsNaN(c.Lo) {
				cc.Notes = append(cc.Notes, "the capacity's interval reaches beyond the loads tried, so the throughput there has no interval")
			}
		}
	case stats.CapacityNotReached:
		cc.Throughput = pointEstimate(StatValue, 0, tput[len(tput)-1])
		cc.Notes = append(cc.Notes, "every load met the limits: the throughput at capacity is at least the highest load's")
	}
	if cc.GPUCount > 0 {
		cc.PerGPU = scaleEstimate(cc.Throughput, 1/float64(cc.GPUCount))
	} else {
		cc.Notes = append(cc.Notes, "the inventory does not give one GPU count for every run: no throughput per GPU")
	}
	cc.Cost = capacityCost(cc, runs, dirs, o)
	if j := interpolateAt(loads, jpt, c.Load); c.Status == stats.CapacityBracketed && !math.IsNaN(j) {
		cc.Energy = &CapacityEnergy{JoulesPerToken: j, TokensPerSecondPerKW: 1000 / j,
			Scope: "GPU board energy from energy-counter differences (each run's samples over its window, or the tool's own counter-based figure), no host, network, cooling or PSU losses; interpolated between the bracketing loads"}
	}
}

func schemeOf(s stats.Scheme) string {
	if s == stats.SchemeIID {
		return ""
	}
	return string(s)
}

// scaleEstimate multiplies an estimate and its interval by k > 0.
func scaleEstimate(e Estimate, k float64) Estimate {
	e.Value, e.Lo, e.Hi = e.Value*k, e.Lo*k, e.Hi*k
	return e
}

// capacityCost prices an hour of the configuration, from its bill where
// the billing files cost its runs, else from its quote, and divides by the
// throughput at the capacity point.
func capacityCost(cc *ConfigCapacity, runs []*capRun, dirs []string, o CapacityOptions) *CapacityCost {
	if len(cc.Bundles) == 0 || len(o.Billing) == 0 && len(o.Quotes) == 0 {
		return nil
	}
	var cost *CapacityCost
	var billWhy []string
	if len(o.Billing) > 0 {
		cost, billWhy = billRate(cc, runs, o)
	}
	if cost == nil && len(o.Quotes) > 0 {
		cost = quoteRate(cc, dirs, o)
	}
	if cost == nil {
		cost = &CapacityCost{Source: "bill", BillFiles: o.Billing, PerHour: math.NaN()}
	}
	cost.PerMillion = pointEstimate(StatValue, 0, math.NaN())
	cost.Notes = append(billWhy, cost.Notes...)
	if math.IsNaN(cost.PerHour) {
		return cost
	}
	perToken := cost.PerHour / 3600 * 1e6
	t := cc.Throughput
	if !(t.Value > 0) {
		cost.Notes = append(cost.Notes, "no throughput at the capacity point: no cost per token")
		return cost
	}
	cost.PerMillion = Estimate{Stat: StatValue, Value: perToken / t.Value, Lo: perToken / t.Hi, Hi: perToken / t.Lo,
		Confidence: t.Confidence, Method: t.Method, Scheme: t.Scheme}
	if !t.HasInterval() {
		cost.PerMillion.Lo, cost.PerMillion.Hi, cost.PerMillion.Method, cost.PerMillion.Confidence = math.NaN(), math.NaN(), "", 0
	}
	if cc.Capacity.Status == stats.CapacityNotReached {
		cost.Notes = append(cost.Notes, "the capacity is not reached: the cost per token at capacity is at most this")
	}
	from := cost.QuoteFile
	if cost.Source == "bill" {
		from = fmt.Sprintf("the bill's steady rate over %d of %d runs", cost.BilledRuns, cost.Runs)
	}
	cost.Notes = append(cost.Notes, fmt.Sprintf("%s %s per hour (%s) / %s output tokens/s at the capacity point",
		units.Sig(cost.PerHour, 6), cost.Currency, from, units.Sig(t.Value, 4)))
	return cost
}

// billRate is the configuration's rate per hour from its bill: each billed
// run's steady rate (costing.BillSteadyRate: its prorated charges per hour
// of its window, without one-off rows) weighted by the run's seconds,
//
//	PER_HOUR = Σ (RATE_i × SECONDS_i) / Σ SECONDS_i
//
// that is, every billed run's prorated charges over all their hours. It is
// nil, with the reasons, when the bill costs none of the runs; runs it
// does not cost, or costs in another currency, are named in the notes and
// left out.
func billRate(cc *ConfigCapacity, runs []*capRun, o CapacityOptions) (*CapacityCost, []string) {
	cost := &CapacityCost{Source: "bill", BillFiles: o.Billing}
	var why []string
	var amount, secs float64
	left := map[string]bool{}
	for _, r := range runs {
		if r.config != cc.Name || r.cost == nil {
			continue
		}
		cost.Runs++
		name := r.data.Name()
		if ok, w := r.cost.Billed(); !ok {
			why = append(why, fmt.Sprintf("bill: %s: %s", name, w))
			continue
		}
		sr := costing.BillSteadyRate(*r.cost.Bill, o.Cost.join())
		if sr == nil {
			why = append(why, fmt.Sprintf("bill: %s: no charge prorated over time (only one-off or quantity rows)", name))
			continue
		}
		if cost.Currency == "" {
			cost.Currency = sr.Currency
		}
		if sr.Currency != cost.Currency {
			why = append(why, fmt.Sprintf("bill: %s: charged in %s, not %s (give --currency and --fx to state one)", name, sr.Currency, cost.Currency))
			continue
		}
		s := r.cost.Bill.Run.Duration().Seconds()
		amount, secs = amount+sr.PerHour*s/3600, secs+s
		cost.BilledRuns++
		for _, l := range sr.Left {
			left[l] = true
		}
	}
	if cost.BilledRuns == 0 {
		if len(o.Quotes) > 0 {
			why = append(why, "the bill costs none of the configuration's runs: priced from the quote instead")
		}
		return nil, why
	}
	cost.PerHour = amount * 3600 / secs
	if len(left) > 0 {
		why = append(why, fmt.Sprintf("left out of the rate, being charged whole rather than over time: %s", strings.Join(slices.Sorted(maps.Keys(left)), ", ")))
	}
	why = append(why, fmt.Sprintf("rate: SUM(prorated allocations of %d billed runs) * 3600 / their %s s (%s)", cost.BilledRuns, units.Sig(secs, 6), strings.Join(o.Billing, ", ")))
	return cost, why
}

// quoteRate prices one hour of the configuration with its quote: the
// first quote for every configuration, or the one of its first bundle.
func quoteRate(cc *ConfigCapacity, dirs []string, o CapacityOptions) *CapacityCost {
	file := o.Quotes[0]
	if len(o.Quotes) > 1 {
		file = o.Quotes[bundleIndex(dirs, cc.Bundles[0])]
	}
	cost := &CapacityCost{Source: "quote", QuoteFile: file, PerHour: math.NaN()}
	data, err := os.ReadFile(file)
	if err != nil {
		cost.Notes = append(cost.Notes, "quote: "+err.Error())
		return cost
	}
	q, err := costing.ParseQuote(data, file)
	if err != nil {
		cost.Notes = append(cost.Notes, "quote: "+err.Error())
		return cost
	}
	start := time.Unix(0, 0).UTC()
	qc, err := q.Cost(costing.RunWindow{RunID: cc.Name, Start: start, End: start.Add(time.Hour)}, nil)
	if err != nil {
		cost.Notes = append(cost.Notes, "quote: "+err.Error())
		return cost
	}
	m, err := o.Cost.join().Convert(qc.Money())
	if err != nil {
		cost.Notes = append(cost.Notes, "quote: "+flagHint(err).Error())
		return cost
	}
	cost.Currency, cost.PerHour = m.Currency, m.Amount.Float64()
	return cost
}

// compareConfigs gives the ratio of every two configurations' capacities
// where validation found their load points comparable.
func compareConfigs(cs []*ConfigCapacity, runs []*capRun, rep *validate.Report) []CapacityComparison {
	var out []CapacityComparison
	for i := 0; i < len(cs); i++ {
		for j := i + 1; j < len(cs); j++ {
			a, b := cs[i], cs[j]
			cmp := CapacityComparison{A: a.Name, B: b.Name}
			var pairs []validate.PairResult
			for _, p := range rep.Pairs {
				if p.Groups == [2]string{a.Name, b.Name} || p.Groups == [2]string{b.Name, a.Name} {
					pairs = append(pairs, p)
				}
			}
			cmp.Comparable = len(pairs) > 0
			if len(pairs) == 0 {
				cmp.Why = append(cmp.Why, "validation paired no runs of the two")
			}
			warned := 0
			for _, p := range pairs {
				switch p.Verdict {
				case validate.Comparable:
				case validate.ComparableWithWarnings:
					warned++
				default:
					cmp.Comparable = false
					cmp.Why = append(cmp.Why, fmt.Sprintf("%s vs %s: %s%s", p.A, p.B, p.Verdict, pairReasons(rep, p, errorEffects)))
				}
			}
			if warned > 0 {
				cmp.Why = append(cmp.Why, fmt.Sprintf("%d of %d paired load points comparable with warnings%s", warned, len(pairs), pairReasons(rep, pairs[0], nil, pairs[1:]...)))
			}
			if cmp.Comparable && a.Sweep.Axis != b.Sweep.Axis {
				cmp.Comparable = false
				cmp.Why = append(cmp.Why, fmt.Sprintf("the sweeps are on different axes (%s, %s)", a.Sweep.Axis, b.Sweep.Axis))
			}
			if cmp.Comparable {
				r := stats.CapacityRatioOf(a.Capacity, b.Capacity)
				cmp.Ratio = &r
			}
			out = append(out, cmp)
		}
	}
	return out
}

// errorEffects are the effects that make a pair not comparable.
var errorEffects = []validate.Effect{validate.EffectNotComparable, validate.EffectIncomplete, validate.EffectInvalid}

// pairReasons lists the rules behind the pairs' verdicts: of the findings
// with one of the effects (any effect when effects is nil) about either
// run of a pair.
func pairReasons(rep *validate.Report, p validate.PairResult, effects []validate.Effect, more ...validate.PairResult) string {
	var why []string
	for _, q := range append([]validate.PairResult{p}, more...) {
		for _, f := range rep.Findings {
			if effects != nil && !slices.Contains(effects, f.Effect) {
				continue
			}
			if f.Effect == validate.EffectInfo {
				continue
			}
			if slices.Contains(f.Runs, q.A) || slices.Contains(f.Runs, q.B) {
				why = append(why, f.Rule)
			}
		}
	}
	slices.Sort(why)
	why = slices.Compact(why)
	if len(why) == 0 {
		return ""
	}
	return " (" + strings.Join(why, ", ") + ")"
}

// frontier builds the Pareto frontiers of throughput per GPU against
// interactivity, per configuration and over all of them.
func (res *CapacityResult) frontier(o CapacityOptions) {
	var all []stats.ParetoPoint
	missing := 0
	for _, cc := range res.Configs {
		var pts []stats.ParetoPoint
		for _, p := range cc.Points {
			if math.IsNaN(p.PerGPU) || math.IsNaN(p.Interactivity) {
				missing++
				continue
			}
			pts = append(pts, stats.ParetoPoint{X: p.Interactivity, Y: p.PerGPU, Label: cc.Name + " @ " + units.Sig(p.Load, 4)})
		}
		cc.Frontier = stats.ParetoFrontier(pts)
		if o.Interactivity > 0 && len(cc.Frontier) > 0 {
			v := stats.ThroughputAt(cc.Frontier, o.Interactivity)
			cc.FrontierAt = &v
		}
		all = append(all, pts...)
	}
	res.Frontier = stats.ParetoFrontier(all)
	if o.Interactivity > 0 && len(res.Frontier) > 0 {
		v := stats.ThroughputAt(res.Frontier, o.Interactivity)
		res.FrontierAt = &v
	}
	if missing > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d load points lack a TPOT or a throughput per GPU (the inventory's GPU count) and are not on the frontiers", missing))
	}
}
