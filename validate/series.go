package validate

import (
	"fmt"
	"slices"
	"strings"
)

// SeriesOptions configure Series.
type SeriesOptions struct {
	// Vary names what may change along a series besides its order:
	// inventory fields by JSON name ("engine_version", "container_image")
	// and "label:KEY". Every other system-under-test boundary field
	// (V011's list) must agree.
	Vary []string
	// Split names run labels ("label:KEY") or inventory fields that
	// separate series besides the configuration (e.g. label:platform).
	Split []string
	// Policy sets the rules' thresholds; nil means DefaultPolicy.
	Policy *Policy
}

// A RunSeries is the runs of one configuration, for a trend: one tool
// and model at one load point (LoadKey) on one dataset, with the same
// system under test except the fields SeriesOptions.Vary names.
type RunSeries struct {
	// Name describes the configuration in words; Fields are the key's
	// known fields (name, value), in order.
	Name   string
	Fields [][2]string
	// Runs are the runs comparable with the reference, in input order;
	// the reference is one of them.
	Runs      []*RunData
	Reference *RunData
	// Excluded are the runs that the pair rules (or V020) judge not
	// comparable with the reference, with the findings that say why.
	Excluded []ExcludedRun
}

// An ExcludedRun is a run left out of its series.
type ExcludedRun struct {
	Run      *RunData
	Findings []Finding
}

// Series splits runs into series of one configuration and checks each
// run against the series' reference with the pair rules of the catalogue
// (V001-V010, the rules `verdict validate --compare` runs) and V020 (the
// tool declared the run invalid): a run with a finding whose effect is not
// comparable or invalid is excluded, with those findings. Unverified
// findings (missing evidence) and warnings do not exclude a run. The
// reference is the first run, or the last when the first leaves more than
// half of the series out. Runs are kept in input order: the caller orders
// them. Series are returned in order of first appearance.
func Series(runs []*RunData, o SeriesOptions) ([]RunSeries, error) {
	pol := DefaultPolicy.clone()
	if o.Policy != nil {
		pol = o.Policy.clone()
		if err := pol.Check(); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
	}
	known := inventoryFieldNames()
	for _, v := range append(slices.Clone(o.Vary), o.Split...) {
		if k, ok := strings.CutPrefix(v, "label:"); ok && k != "" {
			continue
		}
		if !slices.Contains(known, v) {
			return nil, fmt.Errorf("unknown field %q: use label:KEY or an inventory field (%s)", v, strings.Join(known, ", "))
		}
	}
	var rules []Rule
	for _, r := range catalogue {
		if r.Scope == ScopePair || ruleMatches(&r, "V020") {
			rules = append(rules, r)
		}
	}
	var out []RunSeries
	index := map[string]int{}
	for _, d := range runs {
		fields := seriesFields(d, o)
		var parts []string
		for _, f := range fields {
			parts = append(parts, f[0]+"="+f[1])
		}
		key := strings.Join(parts, "\x00")
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, RunSeries{Fields: knownFields(fields)})
		}
		out[i].Runs = append(out[i].Runs, d)
	}
	names := map[string]int{}
	for i := range out {
		s := &out[i]
		s.Name = seriesName(s.Fields)
		if names[s.Name]++; names[s.Name] > 1 {
			s.Name += fmt.Sprintf(" (#%d)", names[s.Name])
		}
		c := &checker{policy: pol, th: pol.Thresholds, compare: true}
		ref := s.Runs[0]
		kept, excl := judgeSeries(c, rules, s.Runs, ref)
		if last := s.Runs[len(s.Runs)-1]; len(excl) > len(s.Runs)/2 && last != ref {
			if k2, e2 := judgeSeries(c, rules, s.Runs, last); len(e2) < len(excl) {
				ref, kept, excl = last, k2, e2
			}
		}
		s.Reference = ref
		s.Runs, s.Excluded = kept, excl
	}
	return out, nil
}

// judgeSeries checks every run against ref.
func judgeSeries(c *checker, rules []Rule, runs []*RunData, ref *RunData) (kept []*RunData, excl []ExcludedRun) {
	for _, d := range runs {
		if d == ref {
			kept = append(kept, d)
			continue
		}
		var rep Report
		for i := range rules {
			r := &rules[i]
			s := subject{scope: r.Scope, runs: []*RunData{ref, d}, key: "pair " + ref.Name() + " vs " + d.Name()}
			if r.Scope == ScopeRun {
				s = subject{scope: ScopeRun, runs: []*RunData{d}, key: "run " + d.Name()}
			}
			rep.apply(c, r, s)
		}
		var why []Finding
		for _, f := range rep.Findings {
			if f.Effect == EffectNotComparable || f.Effect == EffectInvalid {
				why = append(why, f)
			}
		}
		if len(why) > 0 {
			excl = append(excl, ExcludedRun{Run: d, Findings: why})
		} else {
			kept = append(kept, d)
		}
	}
	return kept, excl
}

// seriesFields is the configuration key of a run: tool, model, load
// point, dataset and the system-under-test boundary fields not in Vary,
// then the Split fields. Unknown values are "".
func seriesFields(d *RunData, o SeriesOptions) [][2]string {
	r := d.Run
	f := [][2]string{{"tool", r.Tool}, {"tool_model", r.Model}}
	// The load point, LoadKey's parts.
	for i, p := range strings.Split(LoadKey(r), "|") {
		if p == unknown {
			p = ""
		}
		f = append(f, [2]string{loadParts[i], p})
	}
	f = append(f, [2]string{"dataset", r.SUT.Dataset}, [2]string{"dataset_sha256", r.SUT.DatasetSHA256})
	for _, name := range sutBoundaryFields {
		if slices.Contains(o.Vary, name) {
			continue
		}
		f = append(f, [2]string{name, fieldValue(d, name)})
	}
	for _, name := range o.Split {
		if k, ok := strings.CutPrefix(name, "label:"); ok {
			f = append(f, [2]string{name, r.Labels[k]})
			continue
		}
		f = append(f, [2]string{name, fieldValue(d, name)})
	}
	return f
}

// loadParts name the parts of LoadKey.
var loadParts = []string{"scenario", "arrival", "request_rate", "burstiness", "max_concurrency", "ramp_up", "streaming"}

func knownFields(fs [][2]string) [][2]string {
	var out [][2]string
	for _, f := range fs {
		if f[1] != "" {
			out = append(out, f)
		}
	}
	return out
}

// seriesName says a series' configuration in words: tool, model, the
// load point (scenario, rate or concurrency) and the GPU when known, and
// the Split fields.
func seriesName(fs [][2]string) string {
	var parts []string
	for _, f := range fs {
		switch f[0] {
		case "tool", "tool_model", "scenario", "request_rate", "gpu_model":
			parts = append(parts, f[1])
		case "model":
			if !slices.Contains(parts, f[1]) {
				parts = append(parts, f[1])
			}
		case "max_concurrency":
			if f[1] == "none" {
				continue
			}
			parts = append(parts, "concurrency "+f[1])
		default:
			if strings.HasPrefix(f[0], "label:") {
				parts = append(parts, strings.TrimPrefix(f[0], "label:")+"="+f[1])
			}
		}
	}
	if len(parts) == 0 {
		return "(unknown configuration)"
	}
	return strings.Join(parts, " · ")
}

// InventoryFieldNames lists the JSON names of the inventory's fields, the
// names SeriesOptions and --group-by sut:FIELD take.
func InventoryFieldNames() []string { return inventoryFieldNames() }
