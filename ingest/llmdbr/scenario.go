package llmdbr

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/inferenceperf"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// A component is one serving component of the stack, in either layout.
type component struct {
	label, role, engine, version, model string
	replicas                            int64
	accel                               string
	count                               schemas.Opt[int64]
	parallelism                         string
	args                                []string
}

// scenarioV01 reads 0.1's scenario: host accelerators and their types,
// platform engines (the lists correlate 1:1), model, load.
func (r *report) scenarioV01(sc *jtree.Node) error {
	if err := r.checkObject(sc, "scenario"); err != nil {
		return err
	}
	load := sc.Get("load")
	name, _ := load.Get("name").Str()
	r.setProducer(name, "")
	r.label("br.load.type", rows.Label(load.Get("type")))
	r.label("br.description", str(sc.Get("description")))
	stage := -1
	if s, ok := load.Path("metadata", "stage").Int(); ok && s >= 0 {
		stage = int(s)
		r.label("br.stage", strconv.Itoa(stage))
	}
	if args := load.Get("args"); r.producer == "inference-perf" && (args.Has("load") || args.Has("server")) {
		r.applySettings(inferenceperf.ConfigSettings(args, stage))
	} else {
		r.scalarLabels("br.load.args.", load.Get("args"))
	}
	model := sc.Get("model")
	if m, _ := model.Get("name").Str(); m != "" && m != "unknown" {
		r.run.Model, r.run.SUT.Model = m, m
	}
	r.run.SUT.Quantization = str(model.Get("quantization"))
	if ad := model.Get("adapters").Items(); len(ad) > 0 {
		var names []string
		for _, a := range ad {
			names = append(names, rows.Label(a.Get("lora")))
		}
		r.label("br.model.adapters", strings.Join(names, ", "))
	}
	types := sc.Path("host", "type").Items()
	engines := sc.Path("platform", "engine").Items()
	var cs []component
	for i, a := range sc.Path("host", "accelerator").Items() {
		c := component{label: strconv.Itoa(i), replicas: 1, accel: str(a.Get("model")), parallelism: parallelism(a.Get("parallelism"))}
		if n, ok := a.Get("count").Int(); ok && n >= 0 {
			c.count = schemas.Some(n)
		}
		if i < len(types) {
			c.role = str(types[i])
		}
		if i < len(engines) {
			e := engines[i]
			c.engine, c.version, c.args = str(e.Get("name")), str(e.Get("version")), launchArgs(e.Get("args"))
		}
		cs = append(cs, c)
	}
	r.inventory(cs)
	return nil
}

// scenarioV02 reads 0.2's scenario: the stack components and the load.
func (r *report) scenarioV02(sc *jtree.Node) error {
	if err := r.checkObject(sc, "scenario"); err != nil {
		return err
	}
	var cs []component
	for i, c := range sc.Get("stack").Items() {
		st := c.Get("standardized")
		label := str(c.Path("metadata", "label"))
		kind := str(st.Get("kind"))
		tool := str(st.Get("tool"))
		if label == schemas.BRComponentLabel && kind == "generic" && tool == "verdict" {
			if err := r.readMeta(st.Get("verdict")); err != nil {
				return err
			}
			continue
		}
		if label == "" {
			label = strconv.Itoa(i)
		}
		if kind != "inference_engine" {
			r.label("br.stack."+label, strings.TrimSpace(tool+" "+str(st.Get("tool_version"))+" ("+kind+")"))
			continue
		}
		comp := component{label: label, role: str(st.Get("role")), engine: tool, version: str(st.Get("tool_version")),
			model: str(st.Path("model", "name")), replicas: 1, args: launchArgs(c.Path("native", "args"))}
		if n, ok := st.Get("replicas").Int(); ok && n > 0 {
			comp.replicas = n
		}
		acc := st.Get("accelerator")
		comp.accel, comp.parallelism = str(acc.Get("model")), parallelism(acc.Get("parallelism"))
		if n, ok := acc.Get("count").Int(); ok && n >= 0 {
			comp.count = schemas.Some(n)
		}
		if c.Path("native", "envars").IsObject() {
			r.skip("scenario.stack[" + label + "].native.envars (environment variables can hold secrets)")
		}
		cs = append(cs, comp)
	}
	load := sc.Get("load")
	std := load.Get("standardized")
	r.setProducer(str(std.Get("tool")), str(std.Get("tool_version")))
	r.inventory(cs)
	r.loadV02(load)
	return nil
}

// loadV02 reads scenario.load: the standardized workload and, for
// inference-perf, its native config.
func (r *report) loadV02(load *jtree.Node) {
	std := load.Get("standardized")
	stage := -1
	if s, ok := std.Get("stage").Int(); ok && s >= 0 {
		stage = int(s)
		r.label("br.stage", strconv.Itoa(stage))
	}
	for _, k := range []string{"source", "parallelism"} {
		r.label("br.load."+k, rows.Label(std.Get(k)))
	}
	for _, k := range []string{"input_seq_len", "output_seq_len"} {
		r.label("br.load."+k, seqLen(std.Get(k)))
	}
	for _, k := range []string{"prefix", "multi_turn"} {
		if n := std.Get(k); n.IsObject() {
			r.label("br.load."+k, compact(n))
		}
	}
	r.label("br.load.description", str(load.Path("metadata", "description")))
	r.label("br.load.cfg_id", str(load.Path("metadata", "cfg_id")))
	if r.producer == "inference-perf" {
		r.applySettings(inferenceperf.ConfigSettings(load.Path("native", "config"), stage))
	}
	rate, okRate := std.Get("rate_qps").Float()
	conc, okConc := std.Get("concurrency").Float()
	switch {
	case okConc && conc >= 1 && !math.IsInf(conc, 0):
		r.run.Scenario, r.run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		r.run.MaxConcurrency = schemas.Some(int64(conc))
		r.run.RequestRate = schemas.Opt[float64]{}
		if okRate {
			r.flag("br_rate_qps_with_concurrency")
			r.label("br.load.rate_qps", strconv.FormatFloat(rate, 'g', -1, 64))
			r.warn("scenario.load.standardized gives both concurrency %g and rate_qps %g; the run is read as a concurrency run and rate_qps kept as a label", conc, rate)
		}
	case okRate && rate > 0:
		r.run.RequestRate = schemas.Some(rate)
		if r.run.Scenario == schemas.ScenarioUnknown {
			r.run.Scenario = schemas.ScenarioServer
		}
	}
}

// applySettings takes what an inference-perf config says about the stage.
func (r *report) applySettings(s inferenceperf.Settings) {
	r.run.Scenario, r.run.Arrival = s.Scenario, s.Arrival
	r.run.RequestRate, r.run.MaxConcurrency, r.run.Streaming = s.Rate, s.Concurrency, s.Streaming
	r.run.Backend, r.run.Endpoint, r.run.Tokenizer = s.Backend, s.Endpoint, s.Tokenizer
	if s.Model != "" {
		r.run.Model = s.Model
		if r.run.SUT.Model == "" {
			r.run.SUT.Model = s.Model // the model the server was asked for by name
		}
	}
	r.run.SUT.Endpoint = s.BaseURL
	r.run.TokenSource = "client tokenizer (inference-perf re-tokenizes the response text)"
	if s.ServerTokens {
		r.run.TokenSource = "server_usage"
	}
	for k, v := range s.Labels {
		r.label(k, v)
	}
}

// inventory turns the serving components into the run's inventory.
func (r *report) inventory(cs []component) {
	if len(cs) == 0 {
		return
	}
	inv := &r.run.SUT
	var models, engines, versions, accels, pars []string
	total, allCounts := int64(0), true
	for _, c := range cs {
		models, engines, versions, accels = addDistinct(models, c.model), addDistinct(engines, c.engine), addDistinct(versions, c.version), addDistinct(accels, c.accel)
		p := c.parallelism
		if len(cs) > 1 {
			p = strings.TrimSpace(fmt.Sprintf("%s x%d: %s", orLabel(c.role, c.label), c.replicas, p))
		}
		pars = append(pars, p)
		if c.count.OK {
			total += c.count.V * c.replicas
		} else {
			allCounts = false
		}
	}
	if inv.Model == "" {
		inv.Model = strings.Join(models, ", ")
		if r.run.Model == "" {
			r.run.Model = inv.Model
		}
	}
	inv.Engine, inv.GPUModel = strings.Join(engines, ", "), strings.Join(accels, " + ")
	for _, v := range versions {
		if strings.ContainsAny(v, "/:") {
			inv.Image = strings.Join(addDistinct(strings.Fields(inv.Image), v), " ")
		} else {
			inv.EngineVersion = strings.Join(addDistinct(strings.Fields(inv.EngineVersion), v), " ")
		}
	}
	if allCounts {
		inv.GPUCount = schemas.Some(total)
	}
	inv.Parallelism = strings.Join(pars, "; ")
	same := true
	for _, c := range cs[1:] {
		same = same && slices.Equal(c.args, cs[0].args)
	}
	if same {
		inv.LaunchArgs = cs[0].args
		return
	}
	for _, c := range cs {
		r.label("br.stack."+c.label+".args", strings.Join(c.args, " "))
	}
	r.warn("the stack's engines run with different arguments; they are kept as br.stack.<label>.args labels, not as the inventory's launch args")
}

func orLabel(role, label string) string {
	if role != "" {
		return role
	}
	return label
}

func addDistinct(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// parallelism renders {tp, pp, dp, dp_local, ep, workers} as "tp=8 pp=1 ...".
func parallelism(n *jtree.Node) string {
	var parts []string
	for _, k := range []string{"tp", "pp", "dp", "dp_local", "ep", "workers"} {
		if v, ok := n.Get(k).Int(); ok {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		}
	}
	return strings.Join(parts, " ")
}

// launchArgs turns a native args mapping into command-line arguments;
// values of flags that look like credentials are redacted.
func launchArgs(n *jtree.Node) []string {
	var out []string
	for _, m := range n.Fields() {
		flag := m.Key
		if !strings.HasPrefix(flag, "-") {
			flag = "--" + flag
		}
		out = append(out, flag)
		switch {
		case m.Val.IsNull() || m.Val.Kind == jsonscan.True:
		case secretFlag(flag):
			out = append(out, "<redacted>")
		case m.Val.IsObject() || m.Val.Kind == jsonscan.BeginArray:
			out = append(out, compact(m.Val))
		default:
			out = append(out, rows.Label(m.Val))
		}
	}
	return out
}

func secretFlag(flag string) bool {
	f := strings.ToLower(flag)
	for _, s := range []string{"key", "token", "secret", "password", "credential"} {
		if strings.Contains(f, s) {
			return true
		}
	}
	return false
}

// seqLen renders a SequenceLength: "gaussian 1000 (sd 100, 7..4065)".
func seqLen(n *jtree.Node) string {
	if !n.IsObject() {
		return ""
	}
	s := strings.TrimSpace(str(n.Get("distribution")) + " " + rows.Label(n.Get("value")))
	var extra []string
	if sd := n.Get("std_dev"); !sd.IsNull() {
		extra = append(extra, "sd "+rows.Label(sd))
	}
	if mn, mx := n.Get("min"), n.Get("max"); !mn.IsNull() || !mx.IsNull() {
		extra = append(extra, rows.Label(mn)+".."+rows.Label(mx))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

func (r *report) scalarLabels(prefix string, n *jtree.Node) {
	for _, m := range n.Fields() {
		if t, ok := m.Val.Scalar(); ok && t != "" && !secretFlag(m.Key) {
			r.label(prefix+m.Key, t)
		}
	}
}

func str(n *jtree.Node) string {
	s, _ := n.Str()
	return s
}

// compact renders a subtree as compact JSON (for labels and for verdict's
// own record).
func compact(n *jtree.Node) string { return string(nodeJSON(n)) }

func nodeJSON(n *jtree.Node) []byte {
	if n == nil {
		return []byte("null")
	}
	switch n.Kind {
	case jsonscan.String:
		b, _ := json.Marshal(n.Text)
		return b
	case jsonscan.Number:
		if f, ok := n.Float(); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return []byte(n.Text)
		}
		b, _ := json.Marshal(n.Text)
		return b
	case jsonscan.True:
		return []byte("true")
	case jsonscan.False:
		return []byte("false")
	case jsonscan.BeginArray:
		out := []byte("[")
		for i, e := range n.Elems {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, nodeJSON(e)...)
		}
		return append(out, ']')
	case jsonscan.BeginObject:
		out := []byte("{")
		for i, m := range n.Members {
			if i > 0 {
				out = append(out, ',')
			}
			k, _ := json.Marshal(m.Key)
			out = append(append(append(out, k...), ':'), nodeJSON(m.Val)...)
		}
		return append(out, '}')
	}
	return []byte("null")
}

// readMeta reads verdict's own record (schemas.BRMeta).
func (r *report) readMeta(n *jtree.Node) error {
	var meta schemas.BRMeta
	if err := json.Unmarshal(nodeJSON(n), &meta); err != nil || meta.Schema != schemas.BRMetaSchema {
		r.warn("%d:%d: the verdict stack component is not a %s record; ignored", n.Pos.Line, n.Pos.Col, schemas.BRMetaSchema)
		return nil
	}
	r.meta = &meta
	for _, f := range meta.Flags {
		r.flag(f)
	}
	for k, v := range meta.Labels {
		r.label(k, v)
	}
	r.label("verdict.run_id", meta.RunID)
	r.label("verdict.tool", meta.Tool)
	r.label("verdict.tool_version", meta.ToolVersion)
	if meta.Validation != nil {
		r.label("verdict.validation", meta.Validation.Verdict)
	}
	return nil
}
