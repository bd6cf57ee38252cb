package llmdbr

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
)

// A report is the state of reading one Benchmark Report.
type report struct {
	in      *ingest.Input
	sink    ingest.Sink
	root    *jtree.Node
	version string
	run     schemas.Run
	m       rows.Metrics
	// prefix is the path of the aggregate: "metrics." (0.1) or
	// "results.request_performance.aggregate." (0.2).
	prefix string

	producer string // normalized, e.g. "inference-perf"
	native   bool   // inference-perf's own 0.2.1 writer
	mp       mapping
	meta     *schemas.BRMeta // verdict's record, when verdict wrote the report
	fromText []string        // fields read by BR's schema text
	skipped  []string        // sections not ingested
}

func newReport(in *ingest.Input, sink ingest.Sink, root *jtree.Node, version string) *report {
	id := ingest.RunID("llmd-br", in.SHA256(), 0)
	return &report{in: in, sink: sink, root: root, version: version,
		m: rows.Metrics{Sink: sink, RunID: id, Record: "report", Path: in.Path},
		run: schemas.Run{ID: id, Tool: "llmd-br", ToolVersion: version, Format: "llmd-br-v" + version,
			SourcePath: in.Path, SourceSHA256: in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
			Labels: map[string]string{"br.version": version}}}
}

func (r *report) label(k, v string) {
	if v != "" {
		r.run.Labels[k] = v
	}
}

func (r *report) flag(f string) {
	if !slices.Contains(r.run.Flags, f) {
		r.run.Flags = append(r.run.Flags, f)
	}
}

func (r *report) warn(format string, args ...any) {
	r.sink.Warn(r.in.Path + ": " + fmt.Sprintf(format, args...))
}

// setProducer fixes the mapping once the scenario has named the tool.
func (r *report) setProducer(tool, version string) {
	r.producer = normalizeTool(tool)
	r.label("br.producer", tool)
	r.label("br.producer_version", version)
	r.mp = producerMapping(r.producer, r.native)
	if r.mp.note != "" {
		r.warn("%s", r.mp.note)
	}
}

// normalizeTool maps BR's workload-generator names (base.py
// WorkloadGenerator) and their spellings to one name.
func normalizeTool(tool string) string {
	t := strings.ToLower(strings.TrimSpace(tool))
	switch t {
	case "inference-perf", "inference_perf", "inferenceperf":
		return "inference-perf"
	case "vllm-benchmark", "vllm_benchmark", "vllm":
		return "vllm-benchmark"
	case "inferencemax", "inferencex":
		return "inferencemax"
	}
	return t
}

// defOf returns the definition of a field: verdict's own record first, then
// the producer's mapping.
func (r *report) defOf(field string) (schemas.BRField, bool) {
	if r.meta != nil {
		if f, ok := r.meta.Definitions[field]; ok {
			if _, known := schemas.Lookup(f.Metric); known {
				return f, true
			}
			r.warn("verdict component: field %s names definition %q, which this verdict does not know; read by the producer's mapping", field, f.Metric)
		}
	}
	id, fromText, ok := r.mp.defFor(field)
	if !ok {
		return schemas.BRField{}, false
	}
	if fromText && !slices.Contains(r.fromText, field) {
		r.fromText = append(r.fromText, field)
	}
	return schemas.BRField{Metric: id, Percentile: r.mp.pct, Std: r.mp.std}, true
}

// statistics reads one Statistics object (units, mean, stddev, min, pN,
// max) of a field into metric rows, scaled by its units.
func (r *report) statistics(field string, n *jtree.Node, level schemas.Level) error {
	path := r.prefix + field
	if n.IsNull() {
		return nil
	}
	if !n.IsObject() {
		r.m.Reject(n, path, "expected a Statistics object (units, mean, ...), found "+n.Describe())
		return nil
	}
	def, ok := r.defOf(field)
	if !ok {
		r.m.Reject(n, path, "no definition for this field")
		return nil
	}
	units, _ := n.Get("units").Str()
	div, ok := fieldUnits[field][units]
	if !ok {
		r.m.Reject(n, path+".units", fmt.Sprintf("units %q are not allowed here (BR allows %s); the field's values are not ingested", units, unitList(fieldUnits[field])))
		return nil
	}
	valueOnly := level == schemas.LevelRun && len(n.Fields()) == 2 && n.Has("mean")
	for _, mem := range n.Fields() {
		if mem.Key == "units" {
			continue
		}
		key := path + "." + mem.Key
		stat, pct, ok := rows.StatKey(mem.Key)
		if !ok || !slices.Contains(schemas.BRStatOrder, mem.Key) {
			if mem.Key == "mode" {
				r.skip(key + " (a mode has no statistic in verdict's metrics table)")
			} else {
				r.m.Reject(mem.Val, key, "not a BR Statistics key")
			}
			continue
		}
		v, ok := r.m.Number(mem.Val, key)
		if !ok {
			continue
		}
		if stat == schemas.StatStd && v < 0 {
			r.m.Reject(mem.Val, key, "a standard deviation cannot be negative")
			continue
		}
		row := rows.Row{ID: def.Metric, Stat: stat, Value: schemas.Some(v / div), Native: key, Source: def.Source}
		switch stat {
		case schemas.StatP:
			row.Percentile, row.Method = schemas.Some(pct), def.Percentile
		case schemas.StatStd:
			row.Method = def.Std
		case schemas.StatMean:
			row.Method = "arithmetic"
			if valueOnly {
				row.Stat, row.Method = schemas.StatValue, ""
			}
		}
		if err := r.m.Add(row); err != nil {
			return err
		}
	}
	return nil
}

func unitList(g unitGroup) string {
	var out []string
	for u := range g {
		out = append(out, u)
	}
	sort.Strings(out)
	return strings.Join(out, " or ")
}

// rate reads a BR 0.1 throughput, a bare number in tokens/s or queries/s.
func (r *report) rate(field string, n *jtree.Node, path string) error {
	if n.IsNull() {
		return nil
	}
	v, ok := r.m.Number(n, path)
	if !ok {
		return nil
	}
	if v < 0 {
		r.m.Reject(n, path, "a rate cannot be negative")
		return nil
	}
	def, ok := r.defOf(field)
	if !ok {
		return nil
	}
	return r.m.Add(rows.Row{ID: def.Metric, Stat: schemas.StatValue, Value: schemas.Some(v), Native: path, Source: def.Source})
}

// requests reads the request counts shared by both layouts.
func (r *report) requests(n *jtree.Node) {
	path := r.prefix + "requests"
	count := func(key string) schemas.Opt[int64] {
		v := n.Get(key)
		if v.IsNull() {
			return schemas.Opt[int64]{}
		}
		c, ok := v.Int()
		if !ok || c < 0 {
			r.m.Reject(v, path+"."+key, "expected a non-negative integer count, found "+v.Describe())
			return schemas.Opt[int64]{}
		}
		return schemas.Some(c)
	}
	total, failed, incomplete := count("total"), count("failures"), count("incomplete")
	r.run.NumPrompts, r.run.Failed = total, failed
	if incomplete.OK {
		r.label("br.requests.incomplete", fmt.Sprint(incomplete.V))
	}
	if total.OK && failed.OK {
		done := total.V - failed.V
		if incomplete.OK {
			done -= incomplete.V
		}
		if done < 0 {
			r.m.Reject(n, path, fmt.Sprintf("failures and incomplete (%d, %d) exceed total %d", failed.V, incomplete.V, total.V))
			return
		}
		r.run.Completed = schemas.Some(done)
	}
}

func (r *report) skip(what string) { r.skipped = append(r.skipped, what) }

// emitRun reports what was read and the run.
func (r *report) emitRun() error {
	if len(r.fromText) > 0 {
		r.flag("br_definitions_from_schema_text")
		who := r.producer
		if who == "" {
			who = "an unnamed tool"
		}
		r.warn("the report comes from %s, whose definitions verdict has not checked: %s read by BR's schema descriptions", who, strings.Join(r.fromText, ", "))
	}
	if len(r.skipped) > 0 {
		r.warn("not ingested: %s", strings.Join(r.skipped, "; "))
	}
	slices.Sort(r.run.Flags)
	return r.sink.Run(&r.run)
}
