package br

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// A Member is one key of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JSON object that keeps its keys in order, so that reports
// are byte-stable and read in BR's own order.
type Object []Member

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Get returns a member's value, or nil.
func (o Object) Get(key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// loadSources are the values BR's LoadSource enum allows.
var loadSources = map[string]bool{"random": true, "sampled": true, "unknown": true}

// scenario fills scenario: verdict's component, the serving engine when
// the inventory says enough, and the load when the input length is known.
func (b *builder) scenario() Object {
	stack := []any{b.verdictComponent()}
	if c, ok := b.engineComponent(); ok {
		stack = append([]any{c}, stack...)
	}
	out := Object{{"stack", stack}}
	if l, ok := b.load(); ok {
		out = append(out, Member{"load", l})
	}
	return out
}

func (b *builder) verdictComponent() Object {
	inv := map[string]string{}
	for _, f := range b.r.Run.SUT.Fields() {
		if f[1] != "" {
			inv[f[0]] = f[1]
		}
	}
	if len(inv) > 0 {
		b.meta.Inventory = inv
	}
	tv := b.meta.VerdictVersion
	if tv == "" {
		tv = "unknown"
	}
	return Object{
		{"metadata", Object{{"schema_version", "0.0.1"}, {"label", schemas.BRComponentLabel}, {"cfg_id", cfgID(b.meta.Definitions)},
			{"description", "verdict's record of this report: the definition behind each field, version flags and the validation verdict"}}},
		{"standardized", Object{{"kind", "generic"}, {"tool", "verdict"}, {"tool_version", tv}, {"verdict", b.meta}}},
		{"native", Object{}},
	}
}

// engineComponent writes the inventory as an inference_engine component,
// which BR allows only with engine, model, accelerator and its count known.
func (b *builder) engineComponent() (Object, bool) {
	inv := b.r.Run.SUT
	if inv.Engine == "" || inv.Model == "" || inv.GPUModel == "" || !inv.GPUCount.OK || strings.Contains(inv.Parallelism, ";") {
		if inv.Engine != "" || inv.GPUModel != "" {
			b.note("scenario.stack: the inventory lacks what BR's inference_engine requires (engine, model, accelerator model and count, one component); it is kept in verdict's record")
		}
		return nil, false
	}
	version := inv.EngineVersion
	if version == "" {
		version = inv.Image
	}
	args := Object{}
	for i := 0; i < len(inv.LaunchArgs); i++ {
		a := inv.LaunchArgs[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		var v any
		if i+1 < len(inv.LaunchArgs) && !strings.HasPrefix(inv.LaunchArgs[i+1], "-") {
			v = inv.LaunchArgs[i+1]
			i++
		}
		args = append(args, Member{a, v})
	}
	return Object{
		{"metadata", Object{{"schema_version", "0.0.1"}, {"label", "engine-0"}, {"cfg_id", cfgID(inv.LaunchArgs)}}},
		{"standardized", Object{{"kind", "inference_engine"}, {"tool", inv.Engine}, {"tool_version", version}, {"role", "replica"},
			{"replicas", 1}, {"model", Object{{"name", inv.Model}}},
			{"accelerator", Object{{"model", inv.GPUModel}, {"count", inv.GPUCount.V}, {"parallelism", parseParallelism(inv.Parallelism)}}}}},
		{"native", Object{{"args", args}}},
	}, true
}

// parseParallelism reads "tp=8 pp=1" back into BR's parallelism object.
func parseParallelism(s string) Object {
	out := Object{}
	for _, kv := range strings.Fields(s) {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			continue
		}
		switch k {
		case "tp", "dp", "dp_local", "workers":
			out = append(out, Member{k, n})
		case "ep", "pp":
			if n >= 1 {
				out = append(out, Member{k, n})
			}
		}
	}
	return out
}

// load fills scenario.load. BR requires the input sequence length; it is
// written as the observed mean with distribution "other" (the tool's
// requested distribution is not known), so without an input length there
// is no load section.
func (b *builder) load() (Object, bool) {
	isl, ok := b.mean[schemas.BRInputLength]
	if !ok {
		return nil, false
	}
	run := b.r.Run
	tool, version := run.Tool, run.ToolVersion
	if p := run.Labels["br.producer"]; p != "" {
		tool, version = p, run.Labels["br.producer_version"]
	}
	source := run.Labels["br.load.source"]
	if !loadSources[source] {
		source = "unknown"
	}
	std := Object{{"tool", tool}, {"tool_version", version}, {"source", source},
		{"input_seq_len", Object{{"distribution", "other"}, {"value", isl}}}}
	if osl, ok := b.mean[schemas.BROutputLength]; ok {
		std = append(std, Member{"output_seq_len", Object{{"distribution", "other"}, {"value", osl}}})
	}
	if s, err := strconv.Atoi(run.Labels["br.stage"]); err == nil && s >= 0 {
		std = append(std, Member{"stage", s})
	}
	if r := run.RequestRate; r.OK && r.V > 0 && !math.IsInf(r.V, 0) {
		std = append(std, Member{"rate_qps", r.V})
	}
	if c := run.MaxConcurrency; c.OK && c.V >= 1 {
		std = append(std, Member{"concurrency", c.V})
	}
	return Object{
		{"metadata", Object{{"schema_version", "0.0.1"}, {"cfg_id", cfgID(std)}}},
		{"standardized", std},
		{"native", Object{}},
	}, true
}
