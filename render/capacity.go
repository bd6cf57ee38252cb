package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// loadUnit is the unit of a sweep's load axis, for display.
func loadUnit(axis string) string {
	if axis == analysis.AxisConcurrency {
		return ""
	}
	return schemas.UnitRequestsPerSecond
}

// capacityText is the capacity with its interval and status in words.
func capacityText(cc *analysis.ConfigCapacity) string {
	c := cc.Capacity
	u := loadUnit(cc.Sweep.Axis)
	switch c.Status {
	case stats.CapacityNeverMet:
		if len(c.Points) == 0 {
			return "no load points"
		}
		return "never met (below " + Quantity(c.FirstFail, u) + ")"
	case stats.CapacityNotReached:
		return "not reached (at least " + Quantity(c.Load, u) + ")"
	}
	s := Quantity(c.Load, u)
	if !math.IsNaN(c.Lo) || !math.IsNaN(c.Hi) {
		s = loadRange(c.Load, c.Lo, c.Hi, u)
	}
	return s
}

// loadRange writes "5.7 [5.1, 6.2] requests/s", with infinite ends in
// words.
func loadRange(v, lo, hi float64, unit string) string {
	return rangeWith(v, lo, hi, unit, "below the sweep", "above the sweep")
}

// rangeWith writes a value and its interval, infinite ends as the words
// given.
func rangeWith(v, lo, hi float64, unit, below, above string) string {
	end := func(x float64) string {
		switch {
		case math.IsInf(x, -1):
			return below
		case math.IsInf(x, 1):
			return above
		case math.IsNaN(x):
			return "?"
		}
		return Sig(x, 4)
	}
	s := Sig(v, 4) + " [" + end(lo) + ", " + end(hi) + "]"
	if unit != "" {
		s += " " + unit
	}
	return s
}

// CapacityTables renders the capacity view: a summary per configuration,
// each sweep's load points, the comparisons and the frontier.
func CapacityTables(res *analysis.CapacityResult) []*Table {
	sum := &Table{Title: "Capacity under " + sloText(res.Options),
		Columns: []string{"configuration", "axis", "capacity", "bracket", "binding limit", "cliff", "output tokens/s at capacity", "per GPU", "cost per 1M output tokens", "J/token"}}
	var notes []string
	for _, cc := range res.Configs {
		c := cc.Capacity
		bracket, binding, cliff := "", "", ""
		if c.Status == stats.CapacityBracketed {
			bracket = Sig(c.LastPass, 4) + " .. " + Sig(c.FirstFail, 4)
			binding = cc.Limits[c.Binding]
			if c.Cliff {
				cliff = "yes (" + Sig(c.Jump, 3) + "×)"
			}
		}
		cost, joules := "", ""
		if cc.Cost != nil && !math.IsNaN(cc.Cost.PerMillion.Value) {
			cost = EstimateText(cc.Cost.PerMillion, cc.Cost.Currency) + " (" + cc.Cost.Source + ")"
		}
		if cc.Energy != nil {
			joules = Sig(cc.Energy.JoulesPerToken, 4) + " (" + Sig(cc.Energy.TokensPerSecondPerKW, 4) + " tokens/s per kW)"
		}
		sum.AddRow(T(cc.Name), T(cc.Sweep.Axis), N(capacityText(cc), c.Load), T(bracket), T(binding), T(cliff),
			estimateOrDash(cc.Throughput, schemas.UnitTokensPerSecond), estimateOrDash(cc.PerGPU, schemas.UnitTokensPerSecond), T(cost), T(joules))
		notes = append(notes, configNotes(cc)...)
	}
	if res.GroupByNote != "" {
		sum.Notes = append(sum.Notes, res.GroupByNote)
	}
	sum.Notes = append(sum.Notes, intervalText(res))
	sum.Notes = append(sum.Notes, dedupe(notes)...)
	out := []*Table{sum}
	for _, cc := range res.Configs {
		out = append(out, sweepTable(cc))
	}
	if t := comparisonTable(res); t != nil {
		out = append(out, t)
	}
	if t := frontierTable(res); t != nil {
		out = append(out, t)
	}
	return out
}

func sloText(o analysis.CapacityOptions) string {
	var parts []string
	for _, l := range o.Limits {
		parts = append(parts, l.String())
	}
	if o.Goodput != nil {
		parts = append(parts, o.Goodput.String())
	}
	return strings.Join(parts, ", ")
}

// intervalText says how every capacity interval was computed (each
// configuration's own words are in its JSON interval_method).
func intervalText(res *analysis.CapacityResult) string {
	o := res.Options
	return fmt.Sprintf("[lo, hi]: %g%% intervals (--interval %s): the percentile interval of the capacities read off the sweep's bootstrap replicates, each load point resampled by %s, and two-level over the runs where a load point was repeated; %d resamples, seed %d; percentiles read with the %s method. The throughput, cost and energy at capacity carry the capacity's interval through the sweep's curve.",
		100*o.Confidence, o.Interval, o.Interval.Text(), o.Resamples, o.Seed, o.Method)
}

// configNotes are a configuration's caveats, prefixed with its name.
func configNotes(cc *analysis.ConfigCapacity) []string {
	var out []string
	add := func(s string) { out = append(out, cc.Name+": "+s) }
	if len(cc.Sweep.Varying) > 0 {
		add("settings other than the load vary: " + strings.Join(cc.Sweep.Varying, "; "))
	}
	for _, e := range cc.Sweep.Excluded {
		add("left out: " + e)
	}
	for _, n := range cc.Notes {
		add(n)
	}
	for _, w := range cc.Capacity.Warnings {
		add("warning: " + w.Error())
	}
	if cc.Cost != nil {
		for _, n := range cc.Cost.Notes {
			add("cost: " + n)
		}
	}
	if cc.Energy != nil {
		add("energy: " + cc.Energy.Scope)
	}
	return out
}

// sweepTable lists one configuration's load points.
func sweepTable(cc *analysis.ConfigCapacity) *Table {
	cols := []string{"load", "runs", "verdict"}
	cols = append(cols, cc.Limits...)
	cols = append(cols, "meets", "requests/s achieved", "output tokens/s", "per GPU", "tokens/s per user", "J/token")
	t := &Table{Title: fmt.Sprintf("Sweep of %s (%s)", cc.Name, axisWords(cc.Sweep.Axis)), Columns: cols}
	for _, p := range cc.Points {
		row := []Cell{N(Quantity(p.Load, loadUnit(cc.Sweep.Axis)), p.Load), N(strconv.Itoa(len(p.Runs)), len(p.Runs)), T(orDash(p.Verdict))}
		for j, e := range p.Stats {
			row = append(row, EstimateCell(e, cc.LimitUnits[j]))
		}
		row = append(row, T(yesNo(p.Pass)), numCell(p.RequestsPerSecond), numCell(p.OutputTokensPerSecond), numCell(p.PerGPU), numCell(p.Interactivity), numCell(p.JoulesPerToken))
		t.AddRow(row...)
		for _, f := range p.Findings {
			if strings.Contains(f, "V021") || strings.Contains(f, "V022") {
				t.Notes = append(t.Notes, "load "+Sig(p.Load, 4)+": "+f)
			}
		}
		for _, n := range p.Notes {
			t.Notes = append(t.Notes, "load "+Sig(p.Load, 4)+": "+n)
		}
	}
	for _, p := range cc.Points {
		if len(p.Runs) > 1 {
			t.Notes = append(t.Notes, fmt.Sprintf("load %s: %d runs (%s): statistics are the mean of the runs' statistics, with two-level intervals", Sig(p.Load, 4), len(p.Runs), strings.Join(p.Runs, ", ")))
		}
		for j, rv := range p.Repeats {
			unit := ""
			if j < len(cc.LimitUnits) {
				unit = cc.LimitUnits[j]
			}
			t.Notes = append(t.Notes, "load "+Sig(p.Load, 4)+": "+repeatText(rv, unit))
		}
	}
	return t
}

// repeatText is one limit's variance over a repeated load point, apart
// between and within runs, and its run plan.
func repeatText(rv analysis.RepeatVariance, unit string) string {
	sd := func(v float64) string {
		if math.IsNaN(v) {
			return "unknown"
		}
		return Quantity(math.Sqrt(v), unit)
	}
	s := fmt.Sprintf("%s over %d runs: one run's statistic varies by %s (SD) between runs and %s within a run (its %s requests' sampling)",
		rv.Limit, rv.Runs, sd(rv.BetweenVar), sd(rv.WithinVar), Sig(rv.RequestsPerRun, 4))
	p := rv.Plan
	switch {
	case math.IsNaN(p.RequestsPerRun):
		return s + "; no run plan (" + errTexts(p.Warnings)[0] + ")"
	case math.IsInf(p.RequestsPerRun, 1):
		return s + fmt.Sprintf("; a %g%% interval of ±%s (±%g%%) needs %d runs of this length: with %d runs no run length reaches it (the between-run variance alone needs %d)",
			100*p.Confidence, Quantity(p.HalfWidth, unit), 100*analysis.PlanShare, p.Runs, rv.Runs, p.MinRuns)
	}
	return s + fmt.Sprintf("; a %g%% interval of ±%s (±%g%%) needs %d runs of this length, or %d runs of %s requests",
		100*p.Confidence, Quantity(p.HalfWidth, unit), 100*analysis.PlanShare, p.Runs, rv.Runs, Sig(p.RequestsPerRun, 4))
}

func axisWords(axis string) string {
	switch axis {
	case analysis.AxisRate:
		return "offered request rate"
	case analysis.AxisConcurrency:
		return "client concurrency"
	}
	return "no load axis"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// comparisonTable gives the capacity ratios, or why there is none.
func comparisonTable(res *analysis.CapacityResult) *Table {
	if len(res.Comparisons) == 0 {
		return nil
	}
	t := &Table{Title: "Capacity ratios", Columns: []string{"A", "B", "A / B", "status", "why"}}
	for _, c := range res.Comparisons {
		ratio, status := "not compared", ""
		if r := c.Ratio; r != nil {
			ratio, status = rangeWith(r.Estimate, r.Lo, r.Hi, "", "0", "unbounded"), string(r.Status)
			if math.IsNaN(r.Lo) {
				ratio = Sig(r.Estimate, 4)
			}
		}
		t.AddRow(T(c.A), T(c.B), T(ratio), T(status), T(strings.Join(c.Why, "; ")))
	}
	t.Notes = append(t.Notes, "a ratio is given only where validation paired the two sweeps' load points and found them comparable; its interval is the percentile interval of the ratios of the two sweeps' replicate capacities")
	return t
}

// frontierTable lists the Pareto frontier over every configuration.
func frontierTable(res *analysis.CapacityResult) *Table {
	if len(res.Frontier) == 0 {
		return nil
	}
	t := &Table{Title: "Pareto frontier: output tokens/s per GPU against tokens/s per user (1/median TPOT)",
		Columns: []string{"point", "tokens/s per user", "tokens/s per GPU"}}
	for _, p := range res.Frontier {
		t.AddRow(T(p.Label), N(Sig(p.X, 4), p.X), N(Sig(p.Y, 4), p.Y))
	}
	if v := res.FrontierAt; v != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("at %s tokens/s per user: %s tokens/s per GPU (%s, from %s)", Sig(v.X, 4), Sig(v.Y, 4), v.Status, strings.Join(v.Between, " and ")))
	}
	for _, cc := range res.Configs {
		if v := cc.FrontierAt; v != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%s at %s tokens/s per user: %s tokens/s per GPU (%s)", cc.Name, Sig(v.X, 4), Sig(v.Y, 4), v.Status))
		}
	}
	t.Notes = append(t.Notes, res.Notes...)
	return t
}

// WriteCapacity writes the capacity view in format f; JSON is the
// verdict.capacity/v1 document (docs/json/capacity.schema.json).
func WriteCapacity(w io.Writer, res *analysis.CapacityResult, f Format) error {
	if f == JSON {
		return WriteJSON(w, capacityJSON(res))
	}
	return Write(w, f, CapacityTables(res))
}

// dedupe drops repeated lines, keeping the first of each.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// estimateOrDash is an estimate's cell, "-" when its value is unknown
// (the throughput per GPU without a GPU count), as numCell writes.
func estimateOrDash(e analysis.Estimate, unit string) Cell {
	if math.IsNaN(e.Value) {
		return N("-", nil)
	}
	return EstimateCell(e, unit)
}

// numCell is a number cell, "-" when unknown.
func numCell(v float64) Cell {
	if math.IsNaN(v) {
		return N("-", nil)
	}
	return N(Sig(v, 4), v)
}

// reportCapacityTables are the report's capacity section (verdict report
// --slo): the summary alone when brief, every capacity table otherwise.
func reportCapacityTables(rep *analysis.Report, brief bool) []*Table {
	if rep.Capacity == nil {
		return nil
	}
	ts := CapacityTables(rep.Capacity)
	if brief {
		return ts[:1]
	}
	return ts
}
