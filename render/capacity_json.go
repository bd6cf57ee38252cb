package render

import (
	"math"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// The verdict.capacity/v1 document (docs/json/capacity.schema.json).

type capacityDoc struct {
	Schema         string              `json:"schema"`
	Options        capacityOptionsDoc  `json:"options"`
	GroupBy        string              `json:"group_by"`
	GroupByNote    string              `json:"group_by_note"`
	Verdict        string              `json:"verdict"`
	Configurations []configCapacityDoc `json:"configurations"`
	Comparisons    []comparisonDoc     `json:"comparisons"`
	Frontier       []frontierPointDoc  `json:"frontier"`
	FrontierAt     *frontierValueDoc   `json:"frontier_at"`
	Notes          []string            `json:"notes"`
}

type capacityOptionsDoc struct {
	SLO           []string     `json:"slo"`
	Method        stats.Method `json:"method"`
	Interval      stats.Scheme `json:"interval"`
	Confidence    float64      `json:"confidence"`
	Resamples     int          `json:"resamples"`
	Seed          uint64       `json:"seed"`
	Axis          string       `json:"axis"`
	Interactivity jsonFloat    `json:"interactivity"`
}

type configCapacityDoc struct {
	Name            string               `json:"name"`
	Bundles         []string             `json:"bundles"`
	Axis            string               `json:"axis"`
	Varying         []string             `json:"varying"`
	Excluded        []string             `json:"excluded"`
	Limits          []string             `json:"limits"`
	LimitUnits      []string             `json:"limit_units"`
	Status          stats.CapacityStatus `json:"status"`
	Capacity        jsonFloat            `json:"capacity"`
	Lo              jsonFloat            `json:"lo"`
	Hi              jsonFloat            `json:"hi"`
	LoBelowSweep    bool                 `json:"lo_below_sweep"`
	HiAboveSweep    bool                 `json:"hi_above_sweep"`
	Confidence      float64              `json:"confidence"`
	IntervalMethod  string               `json:"interval_method"`
	Resampling      stats.Scheme         `json:"resampling"`
	LastPass        jsonFloat            `json:"last_pass"`
	FirstFail       jsonFloat            `json:"first_fail"`
	BindingLimit    string               `json:"binding_limit"`
	Cliff           bool                 `json:"cliff"`
	Jump            jsonFloat            `json:"jump"`
	NonMonotone     bool                 `json:"non_monotone"`
	Reversals       []reversalDoc        `json:"reversals"`
	NeverMetShare   jsonFloat            `json:"never_met_share"`
	NotReachedShare jsonFloat            `json:"not_reached_share"`
	GPUCount        int                  `json:"gpu_count"`
	Throughput      analysis.Estimate    `json:"throughput"`
	PerGPU          *analysis.Estimate   `json:"throughput_per_gpu"`
	Cost            *capacityCostDoc     `json:"cost"`
	Energy          *capacityEnergyDoc   `json:"energy"`
	Points          []capacityPointDoc   `json:"points"`
	Frontier        []frontierPointDoc   `json:"frontier"`
	FrontierAt      *frontierValueDoc    `json:"frontier_at"`
	Notes           []string             `json:"notes"`
	Warnings        []string             `json:"warnings"`
}

type reversalDoc struct {
	Limit string    `json:"limit"`
	From  float64   `json:"from"`
	To    float64   `json:"to"`
	Share jsonFloat `json:"share"`
}

type capacityCostDoc struct {
	Source     string            `json:"source"`
	Quote      string            `json:"quote"`
	Billing    []string          `json:"billing"`
	BilledRuns int               `json:"billed_runs"`
	Runs       int               `json:"runs"`
	Currency   string            `json:"currency"`
	PerHour    jsonFloat         `json:"per_hour"`
	PerMillion analysis.Estimate `json:"per_million_output_tokens"`
	Notes      []string          `json:"notes"`
}

type capacityEnergyDoc struct {
	JoulesPerToken       jsonFloat `json:"joules_per_token"`
	TokensPerSecondPerKW jsonFloat `json:"tokens_per_second_per_kw"`
	Scope                string    `json:"scope"`
}

type capacityPointDoc struct {
	Load           float64               `json:"load"`
	Runs           []string              `json:"runs"`
	Verdict        string                `json:"verdict"`
	Findings       []string              `json:"findings"`
	Stats          []analysis.Estimate   `json:"stats"`
	Meets          bool                  `json:"meets"`
	RequestsPS     jsonFloat             `json:"requests_per_second"`
	OutputTokensPS jsonFloat             `json:"output_tokens_per_second"`
	PerGPU         jsonFloat             `json:"output_tokens_per_second_per_gpu"`
	Latency        map[string]latencyDoc `json:"latency"`
	Interactivity  jsonFloat             `json:"tokens_per_second_per_user"`
	JoulesPerToken jsonFloat             `json:"joules_per_token"`
	Notes          []string              `json:"notes"`
	Repeats        []repeatDoc           `json:"repeats"`
}

// repeatDoc is analysis.RepeatVariance: variances in the limit's unit
// squared, the plan for a ±analysis.PlanShare interval.
type repeatDoc struct {
	Limit          string    `json:"limit"`
	Runs           int       `json:"runs"`
	BetweenVar     jsonFloat `json:"between_run_variance"`
	WithinVar      jsonFloat `json:"within_run_variance"`
	RequestsPerRun jsonFloat `json:"requests_per_run"`
	Plan           planDoc   `json:"plan"`
}

type planDoc struct {
	HalfWidth      jsonFloat `json:"half_width"`
	Confidence     float64   `json:"confidence"`
	Runs           int       `json:"runs"`
	RequestsPerRun jsonFloat `json:"requests_per_run"`
	MinRuns        int       `json:"min_runs"`
	Warnings       []string  `json:"warnings"`
}

type latencyDoc struct {
	P50 jsonFloat `json:"p50"`
	P99 jsonFloat `json:"p99"`
}

type comparisonDoc struct {
	A          string    `json:"a"`
	B          string    `json:"b"`
	Comparable bool      `json:"comparable"`
	Why        []string  `json:"why"`
	Ratio      *ratioDoc `json:"ratio"`
}

type ratioDoc struct {
	Status     stats.CapacityRatioStatus `json:"status"`
	Estimate   jsonFloat                 `json:"estimate"`
	Lo         jsonFloat                 `json:"lo"`
	Hi         jsonFloat                 `json:"hi"`
	Confidence float64                   `json:"confidence"`
	Method     string                    `json:"interval_method"`
	Warnings   []string                  `json:"warnings"`
}

type frontierPointDoc struct {
	Label              string    `json:"label"`
	TokensPerUser      jsonFloat `json:"tokens_per_second_per_user"`
	TokensPerGPUSecond jsonFloat `json:"tokens_per_second_per_gpu"`
}

type frontierValueDoc struct {
	TokensPerUser      jsonFloat `json:"tokens_per_second_per_user"`
	TokensPerGPUSecond jsonFloat `json:"tokens_per_second_per_gpu"`
	Status             string    `json:"status"`
	Between            []string  `json:"between"`
}

func capacityJSON(res *analysis.CapacityResult) capacityDoc {
	o := res.Options
	d := capacityDoc{Schema: analysis.CapacitySchema, GroupBy: res.GroupBy, GroupByNote: res.GroupByNote, Verdict: res.Verdict,
		Options: capacityOptionsDoc{Method: o.Method, Interval: o.Interval, Confidence: o.Confidence, Resamples: o.Resamples,
			Seed: o.Seed, Axis: o.Axis, Interactivity: jsonFloat(o.Interactivity)},
		Configurations: []configCapacityDoc{}, Comparisons: []comparisonDoc{}, Frontier: frontierDoc(res.Frontier),
		FrontierAt: frontierAtDoc(res.FrontierAt), Notes: nonNil(res.Notes)}
	for _, l := range o.Limits {
		d.Options.SLO = append(d.Options.SLO, l.String())
	}
	if o.Goodput != nil {
		d.Options.SLO = append(d.Options.SLO, o.Goodput.String())
	}
	d.Options.SLO = nonNil(d.Options.SLO)
	for _, cc := range res.Configs {
		d.Configurations = append(d.Configurations, configDoc(cc))
	}
	for _, c := range res.Comparisons {
		cd := comparisonDoc{A: c.A, B: c.B, Comparable: c.Comparable, Why: nonNil(c.Why)}
		if r := c.Ratio; r != nil {
			cd.Ratio = &ratioDoc{Status: r.Status, Estimate: jsonFloat(r.Estimate), Lo: jsonFloat(r.Lo), Hi: jsonFloat(r.Hi),
				Confidence: r.Confidence, Method: r.Method, Warnings: nonNil(errTexts(r.Warnings))}
		}
		d.Comparisons = append(d.Comparisons, cd)
	}
	return d
}

func configDoc(cc *analysis.ConfigCapacity) configCapacityDoc {
	c := cc.Capacity
	cd := configCapacityDoc{Name: cc.Name, Bundles: nonNil(cc.Bundles), Axis: cc.Sweep.Axis, Varying: nonNil(cc.Sweep.Varying),
		Excluded: nonNil(cc.Sweep.Excluded), Limits: nonNil(cc.Limits), LimitUnits: nonNil(cc.LimitUnits), Status: c.Status,
		Capacity: jsonFloat(c.Load), Lo: jsonFloat(c.Lo), Hi: jsonFloat(c.Hi), LoBelowSweep: c.Lo < 0 && isInf(c.Lo), HiAboveSweep: isInf(c.Hi) && c.Hi > 0,
		Confidence: c.Confidence, IntervalMethod: c.Method, Resampling: c.Scheme,
		LastPass: jsonFloat(c.LastPass), FirstFail: jsonFloat(c.FirstFail), Cliff: c.Cliff, Jump: jsonFloat(c.Jump),
		NonMonotone: c.NonMonotone, Reversals: []reversalDoc{}, NeverMetShare: jsonFloat(c.NeverMetShare),
		NotReachedShare: jsonFloat(c.NotReachedShare), GPUCount: cc.GPUCount, Throughput: cc.Throughput, PerGPU: knownEstimate(cc.PerGPU),
		Points: []capacityPointDoc{}, Frontier: frontierDoc(cc.Frontier), FrontierAt: frontierAtDoc(cc.FrontierAt),
		Notes: nonNil(cc.Notes), Warnings: nonNil(errTexts(c.Warnings))}
	if c.Binding >= 0 && c.Binding < len(cc.Limits) {
		cd.BindingLimit = cc.Limits[c.Binding]
	}
	for _, r := range c.Reversals {
		cd.Reversals = append(cd.Reversals, reversalDoc{Limit: cc.Limits[r.Limit], From: r.From, To: r.To, Share: jsonFloat(r.Share)})
	}
	if x := cc.Cost; x != nil {
		cd.Cost = &capacityCostDoc{Source: x.Source, Quote: x.QuoteFile, Billing: nonNil(x.BillFiles), BilledRuns: x.BilledRuns, Runs: x.Runs, Currency: x.Currency, PerHour: jsonFloat(x.PerHour), PerMillion: x.PerMillion, Notes: nonNil(x.Notes)}
	}
	if e := cc.Energy; e != nil {
		cd.Energy = &capacityEnergyDoc{JoulesPerToken: jsonFloat(e.JoulesPerToken), TokensPerSecondPerKW: jsonFloat(e.TokensPerSecondPerKW), Scope: e.Scope}
	}
	for _, p := range cc.Points {
		pd := capacityPointDoc{Load: p.Load, Runs: nonNil(p.Runs), Verdict: p.Verdict, Findings: nonNil(p.Findings), Stats: nonNil(p.Stats),
			Meets: p.Pass, RequestsPS: jsonFloat(p.RequestsPerSecond), OutputTokensPS: jsonFloat(p.OutputTokensPerSecond), PerGPU: jsonFloat(p.PerGPU),
			Latency: map[string]latencyDoc{}, Interactivity: jsonFloat(p.Interactivity), JoulesPerToken: jsonFloat(p.JoulesPerToken),
			Notes: nonNil(p.Notes), Repeats: []repeatDoc{}}
		for _, rv := range p.Repeats {
			pl := rv.Plan
			pd.Repeats = append(pd.Repeats, repeatDoc{Limit: rv.Limit, Runs: rv.Runs, BetweenVar: jsonFloat(rv.BetweenVar),
				WithinVar: jsonFloat(rv.WithinVar), RequestsPerRun: jsonFloat(rv.RequestsPerRun),
				Plan: planDoc{HalfWidth: jsonFloat(pl.HalfWidth), Confidence: pl.Confidence, Runs: pl.Runs,
					RequestsPerRun: jsonFloat(pl.RequestsPerRun), MinRuns: pl.MinRuns, Warnings: nonNil(errTexts(pl.Warnings))}})
		}
		for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.E2E} {
			if q, ok := p.Latency[id]; ok {
				pd.Latency[string(id)] = latencyDoc{P50: jsonFloat(q[0]), P99: jsonFloat(q[1])}
			}
		}
		cd.Points = append(cd.Points, pd)
	}
	return cd
}

func isInf(v float64) bool { return v > 1e308 || v < -1e308 }

func frontierDoc(ps []stats.ParetoPoint) []frontierPointDoc {
	out := []frontierPointDoc{}
	for _, p := range ps {
		out = append(out, frontierPointDoc{Label: p.Label, TokensPerUser: jsonFloat(p.X), TokensPerGPUSecond: jsonFloat(p.Y)})
	}
	return out
}

func frontierAtDoc(v *stats.FrontierValue) *frontierValueDoc {
	if v == nil {
		return nil
	}
	return &frontierValueDoc{TokensPerUser: jsonFloat(v.X), TokensPerGPUSecond: jsonFloat(v.Y), Status: string(v.Status), Between: nonNil(v.Between)}
}

// knownEstimate is e, or nil (JSON null) when its value is unknown, as
// the throughput per GPU is without a GPU count.
func knownEstimate(e analysis.Estimate) *analysis.Estimate {
	if math.IsNaN(e.Value) {
		return nil
	}
	return &e
}
