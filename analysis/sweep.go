package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// Sweeps. Runs of one configuration at several load points form a sweep,
// whatever tool wrote them: a vLLM multi-run file or `bench sweep`
// directory, the benchmarks of one GuideLLM report, AIPerf or genai-bench
// concurrency folders ingested into one bundle, a capture with a --rate
// list. The configuration is validation's group (--group-by: a bundle by
// default); within it, runs are placed on a load axis (the offered request
// rate, or the client concurrency) and runs at the same load are repeats.

// Load axes.
const (
	AxisRate        = "rate"        // offered requests per second
	AxisConcurrency = "concurrency" // requests in flight (client limit)
)

// A SweepPoint is one load of a sweep and the runs made at it.
type SweepPoint struct {
	Load float64
	// Runs are indices into the analysis's runs, in input order; more
	// than one are repeats.
	Runs []int
}

// A Sweep is one configuration's runs on a load axis.
type Sweep struct {
	Config string
	// Axis is AxisRate or AxisConcurrency; "" when no run has a load.
	Axis   string
	Points []SweepPoint
	// Varying names the settings other than the load that differ between
	// the sweep's runs, with their values; a sweep should vary the load
	// alone.
	Varying []string
	// Excluded lists the runs not on the axis, and why.
	Excluded []string
}

// AxisUnit is the unit of the load axis.
func (s Sweep) AxisUnit() string {
	if s.Axis == AxisConcurrency {
		return "requests in flight"
	}
	return schemas.UnitRequestsPerSecond
}

// rateOf is a run's finite offered rate.
func rateOf(r schemas.Run) (float64, bool) {
	v := r.RequestRate
	return v.V, v.OK && v.V > 0 && !math.IsInf(v.V, 0)
}

// concurrencyOf is a run's client concurrency: the limit, or 1 for a
// single stream.
func concurrencyOf(r schemas.Run) (float64, bool) {
	if r.MaxConcurrency.OK && r.MaxConcurrency.V > 0 {
		return float64(r.MaxConcurrency.V), true
	}
	if r.Scenario == schemas.ScenarioSingleStream {
		return 1, true
	}
	return 0, false
}

// findSweep places a configuration's runs on a load axis: axis when given,
// else the one on which the runs take more distinct loads (the rate on a
// tie). Runs without a load on that axis are excluded, with the reason.
func findSweep(config string, runs []schemas.Run, idx []int, axis string) Sweep {
	sw := Sweep{Config: config}
	if axis == "" {
		axis = chooseAxis(runs, idx)
	}
	sw.Axis = axis
	byLoad := map[float64][]int{}
	for _, i := range idx {
		r := runs[i]
		load, ok := rateOf(r)
		if axis == AxisConcurrency {
			load, ok = concurrencyOf(r)
		}
		if !ok || axis == "" {
			sw.Excluded = append(sw.Excluded, fmt.Sprintf("%s: %s", r.ID, offAxis(r, axis)))
			continue
		}
		byLoad[load] = append(byLoad[load], i)
	}
	for load, is := range byLoad {
		sw.Points = append(sw.Points, SweepPoint{Load: load, Runs: is})
	}
	slices.SortFunc(sw.Points, func(a, b SweepPoint) int { return cmp.Compare(a.Load, b.Load) })
	var on []int
	for _, p := range sw.Points {
		on = append(on, p.Runs...)
	}
	sw.Varying = varyingSettings(runs, on, axis)
	return sw
}

func chooseAxis(runs []schemas.Run, idx []int) string {
	rates, concs := map[float64]bool{}, map[float64]bool{}
	for _, i := range idx {
		if v, ok := rateOf(runs[i]); ok {
			rates[v] = true
		}
		if v, ok := concurrencyOf(runs[i]); ok {
			concs[v] = true
		}
	}
	switch {
	case len(rates) == 0 && len(concs) == 0:
		return ""
	case len(concs) > len(rates):
		return AxisConcurrency
	}
	return AxisRate
}

// offAxis says why a run has no load on the axis.
func offAxis(r schemas.Run, axis string) string {
	switch {
	case axis == "":
		return "neither a finite request rate nor a concurrency limit is recorded"
	case axis == AxisRate && r.RequestRate.OK && math.IsInf(r.RequestRate.V, 1):
		return "every request released at once (rate inf): a max-throughput run, not a point of the rate axis"
	case axis == AxisRate:
		return "no finite request rate is recorded (the sweep's axis is the rate)"
	}
	return "no concurrency limit is recorded (the sweep's axis is the concurrency)"
}

// varyingSettings lists the load settings other than the axis that take
// more than one value over the runs.
func varyingSettings(runs []schemas.Run, idx []int, axis string) []string {
	fields := []struct {
		name string
		skip string
		get  func(r schemas.Run) string
	}{
		{"scenario", "", func(r schemas.Run) string {
			if axis == AxisConcurrency && r.Scenario == schemas.ScenarioSingleStream {
				return string(schemas.ScenarioConcurrency) // one request in flight
			}
			return string(r.Scenario)
		}},
		{"arrival", "", func(r schemas.Run) string { return string(r.Arrival) }},
		{"request rate", AxisRate, func(r schemas.Run) string { return optText(r.RequestRate) }},
		{"burstiness", "", func(r schemas.Run) string { return optText(r.Burstiness) }},
		{"concurrency limit", AxisConcurrency, func(r schemas.Run) string {
			if !r.MaxConcurrency.OK {
				return "unknown"
			}
			return strconv.FormatInt(r.MaxConcurrency.V, 10)
		}},
		{"ramp-up", "", func(r schemas.Run) string { return r.RampUp }},
		{"streaming", "", func(r schemas.Run) string {
			if !r.Streaming.OK {
				return "unknown"
			}
			return strconv.FormatBool(r.Streaming.V)
		}},
	}
	var out []string
	for _, f := range fields {
		if f.skip == axis {
			continue
		}
		seen := map[string]bool{}
		var vals []string
		for _, i := range idx {
			v := f.get(runs[i])
			if !seen[v] {
				seen[v] = true
				vals = append(vals, cmp.Or(v, "none"))
			}
		}
		if len(vals) > 1 {
			out = append(out, f.name+": "+strings.Join(vals, ", "))
		}
	}
	return out
}

func optText(o schemas.Opt[float64]) string {
	if !o.OK {
		return "unknown"
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

// autoGroupBy finds a label that splits runs made at the same loads into
// configurations: one taking several values, each value on at least two
// runs (so not a per-run ID or timestamp), with runs of different values
// at one load and no load repeated within a value. It returns
// "label:KEY", or "" when no label (or more than one) does.
func autoGroupBy(runs []schemas.Run) string {
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r.Labels {
			keys[k] = true
		}
	}
	var found []string
	for k := range keys {
		if splitsConfigurations(runs, k) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return "label:" + found[0]
}

func splitsConfigurations(runs []schemas.Run, key string) bool {
	count := map[string]int{}
	loads := map[string]map[string]bool{} // value -> load keys
	valuesAt := map[string]map[string]bool{}
	for _, r := range runs {
		v, ok := r.Labels[key]
		if !ok {
			return false
		}
		count[v]++
		lk := validate.LoadKey(r)
		if loads[v] == nil {
			loads[v] = map[string]bool{}
		}
		if loads[v][lk] {
			return false // a repeat within one value: not a configuration label
		}
		loads[v][lk] = true
		if valuesAt[lk] == nil {
			valuesAt[lk] = map[string]bool{}
		}
		valuesAt[lk][v] = true
	}
	if len(count) < 2 {
		return false
	}
	for _, c := range count {
		if c < 2 {
			return false
		}
	}
	for _, vs := range valuesAt {
		if len(vs) > 1 {
			return true
		}
	}
	return false
}
