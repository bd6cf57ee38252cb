package analysis

import (
	"cmp"
	"fmt"
	"maps"
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

// varyingSettings lists the load settings other than the axis, the
// system's fields (systemFields) and the labels (varyingLabels) that take
// more than one value over the runs.
func varyingSettings(runs []schemas.Run, idx []int, axis string) (out []string) {
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
	for _, f := range systemFields {
		fields = append(fields, struct {
			name string
			skip string
			get  func(r schemas.Run) string
		}{f.name, "", f.get})
	}
	defer func() { out = append(out, varyingLabels(runs, idx)...) }()
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

// systemFields are the inventory fields that make runs of different
// systems: runs differing in one are never repeats of one configuration
// (splitBySystem splits such a configuration).
var systemFields = []struct {
	name string
	get  func(r schemas.Run) string
}{
	{"GPU model", func(r schemas.Run) string { return r.SUT.GPUModel }},
	{"GPU count", func(r schemas.Run) string {
		if !r.SUT.GPUCount.OK {
			return ""
		}
		return strconv.FormatInt(r.SUT.GPUCount.V, 10)
	}},
	{"engine", func(r schemas.Run) string { return r.SUT.Engine }},
	{"engine version", func(r schemas.Run) string { return r.SUT.EngineVersion }},
	{"quantization", func(r schemas.Run) string { return r.SUT.Quantization }},
}

// systemKey is a run's value of every system field.
func systemKey(r schemas.Run) string {
	var parts []string
	for _, f := range systemFields {
		parts = append(parts, f.get(r))
	}
	return strings.Join(parts, "\x00")
}

// systemName names a system by the fields that differ between keys.
func systemName(r schemas.Run, differ []bool) string {
	var parts []string
	for k, f := range systemFields {
		if differ[k] {
			parts = append(parts, f.name+" "+cmp.Or(f.get(r), "unknown"))
		}
	}
	return strings.Join(parts, ", ")
}

// splitBySystem splits a configuration's runs (indices into runs, in
// order) by system (systemFields): a configuration grouped by tool or a
// label may pool an H100 and an L40S sweep, whose runs at one load are
// not repeats. It returns one group per system, in order of first run,
// named "CONFIG (GPU model X)" by the differing fields, and a note; one
// system gives the configuration back unchanged and no note.
func splitBySystem(config string, runs []schemas.Run, idx []int) (names []string, groups [][]int, note string) {
	var keys []string
	byKey := map[string][]int{}
	for _, i := range idx {
		k := systemKey(runs[i])
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	if len(keys) < 2 {
		return []string{config}, [][]int{idx}, ""
	}
	differ := make([]bool, len(systemFields))
	for k, f := range systemFields {
		first := f.get(runs[byKey[keys[0]][0]])
		for _, key := range keys[1:] {
			differ[k] = differ[k] || f.get(runs[byKey[key][0]]) != first
		}
	}
	var what []string
	for _, key := range keys {
		names = append(names, config+" ("+systemName(runs[byKey[key][0]], differ)+")")
		groups = append(groups, byKey[key])
		what = append(what, systemName(runs[byKey[key][0]], differ))
	}
	note = fmt.Sprintf("%s holds runs of %d systems (%s): runs at one load on different systems are not repeats, so each system is a configuration of its own; give --group-by bundle or sut:FIELD to choose the grouping",
		config, len(keys), strings.Join(what, "; "))
	return names, groups, note
}

// varyingLabels lists the labels that differ between the runs as a
// setting would: a label with several values (a missing one counts as
// "none") one of which is on runs at two or more loads. A label whose
// every value sits at one load (rate=8, a per-run session ID) follows the
// load or the run, and is not listed.
func varyingLabels(runs []schemas.Run, idx []int) []string {
	keys := map[string]bool{}
	for _, i := range idx {
		for k := range runs[i].Labels {
			keys[k] = true
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		loads := map[string]map[string]bool{}
		var vals []string
		for _, i := range idx {
			v, ok := runs[i].Labels[k]
			if !ok {
				v = "none"
			}
			if loads[v] == nil {
				loads[v] = map[string]bool{}
				vals = append(vals, v)
			}
			loads[v][validate.LoadKey(runs[i])] = true
		}
		recurs := false
		for _, ls := range loads {
			recurs = recurs || len(ls) > 1
		}
		if len(vals) > 1 && recurs {
			out = append(out, "label "+k+": "+strings.Join(vals, ", "))
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
