package genaiperf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// runState is a run being assembled from one or more files: the run row,
// the statistics reported for it, and what the layout says of the version.
type runState struct {
	run       schemas.Run
	reported  []schemas.Metric
	vs        versions
	record    string // names the run in rejections, e.g. "summary"
	osl       schemas.Opt[float64]
	oslMax    schemas.Opt[float64] // requested output tokens (output_tokens_mean)
	reqCount  schemas.Opt[int64]
	outThru   schemas.Opt[float64]
	goodput   string // the SLO specification, when known
	streamSet bool   // streaming came from the configuration
	fromCSV   bool
}

func newRunState(in *ingest.Input, index int, format string) *runState {
	return &runState{vs: anyVersion(), record: "summary", run: schemas.Run{
		ID: ingest.RunID("genai-perf", in.SHA256(), index), Tool: "genai-perf", Format: format,
		SourcePath: in.Path, SourceSHA256: in.SHA256(), SourceRecord: int64(index),
		Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown, WindowKind: schemas.WindowKindSpan,
		TokenSource: "output: client tokenizer over the answer text (reasoning not counted); input: client tokenizer, chat template not applied",
		Labels:      map[string]string{},
	}}
}

func (rs *runState) flag(f string) {
	if !slices.Contains(rs.run.Flags, f) {
		rs.run.Flags = append(rs.run.Flags, f)
	}
}

func (rs *runState) label(k, v string) {
	if v != "" {
		rs.run.Labels[k] = v
	}
}

func (rs *runState) emit(sink ingest.Sink, m *schemas.Metric) error {
	rs.reported = append(rs.reported, *m)
	return sink.Metric(m)
}

// settle decides what depends on all the evidence: the version string and
// the flags of version quirks. The metric notes that follow from the flags
// (oslNote) need it, so it runs before the metrics are emitted.
func (rs *runState) settle(sink ingest.Sink) {
	rs.run.ToolVersion = rs.vs.String()
	streaming := rs.run.Streaming
	if rs.vs.within("0.0.1", "0.0.3") {
		rs.flag("itl_per_chunk_per_token")
	}
	if streaming.OK && streaming.V {
		switch {
		case rs.vs.within("0.0.4", "0.0.12"):
			rs.flag("itl_counts_single_chunk_requests_as_zero")
		case rs.vs.overlaps("0.0.4", "0.0.12"):
			rs.flag("itl_may_count_single_chunk_requests_as_zero")
		}
	}
	// perf_analyzer#298: GenAI-Perf 0.0.8-0.0.9 (Triton 24.11-24.12)
	// reported streaming output lengths about 5x the requested ones. If the
	// tokens were miscounted, output throughput and per-request rates are
	// about 5x too large and ITL = (latency - TTFT) / (OSL - 1) about 5x
	// too small; if they were really generated, those are right and the
	// workload is not the one asked for. ITL is never too large
	// (docs/formats/genai-perf.md, "Streaming output lengths of 0.0.8-0.0.9").
	if streaming.OK && streaming.V && rs.vs.overlaps("0.0.8", "0.0.9") {
		ratio := math.NaN()
		if rs.osl.OK && rs.oslMax.OK && rs.oslMax.V > 0 {
			ratio = rs.osl.V / rs.oslMax.V
		}
		evidence := ""
		if !math.IsNaN(ratio) {
			evidence = fmt.Sprintf("; output_sequence_length mean %s is %.1fx the requested %s tokens",
				strconv.FormatFloat(rs.osl.V, 'g', -1, 64), ratio, strconv.FormatFloat(rs.oslMax.V, 'g', -1, 64))
		}
		switch {
		case rs.vs.within("0.0.8", "0.0.9") || ratio > 3:
			rs.flag("streaming_osl_inflated")
			sink.Warn(fmt.Sprintf("%s: GenAI-Perf %s streaming run: output lengths are about 5x the requested ones (perf_analyzer#298, fixed in 0.0.10)%s; if they are miscounted, output token throughput and per-request rates are about 5x too large and ITL about 5x too small; if the tokens were really generated, those are right and the workload is not the one asked for",
				rs.run.SourcePath, rs.run.ToolVersion, evidence))
		default:
			rs.flag("streaming_osl_may_be_inflated")
		}
	}
	if rs.goodput != "" || hasMetric(rs.reported, schemas.GoodputSpan) {
		rs.flag("goodput_may_mispair_slos")
	}
	slices.Sort(rs.run.Flags)
}

func hasMetric(ms []schemas.Metric, id schemas.MetricID) bool {
	for _, m := range ms {
		if m.MetricID == id {
			return true
		}
	}
	return false
}

// oslNote is the note put on metrics the output-length bug inflates.
func (rs *runState) oslNote(id schemas.MetricID) string {
	if !slices.Contains(rs.run.Flags, "streaming_osl_inflated") {
		return ""
	}
	const bug = " (GenAI-Perf 0.0.8-0.0.9 streaming output-length bug, perf_analyzer#298)"
	switch id {
	case schemas.AnswerTokens:
		return "about 5x the requested length: miscounted, or really generated (then another workload than the one asked for)" + bug
	case schemas.OutputTokenThroughputSpanAnswer, schemas.E2EOutputTokenRateAnswer, schemas.OutputTokenRatePerUserAnswer:
		return "about 5x too large if the output tokens were miscounted, right if they were really generated" + bug
	case schemas.TPOTAnswer:
		return "about 5x too small if the output tokens were miscounted (it divides by them), right if they were really generated; never too large" + bug
	}
	return ""
}

func (rs *runState) emitRun(sink ingest.Sink) error {
	slices.Sort(rs.run.Flags)
	if len(rs.run.Labels) == 0 {
		rs.run.Labels = nil
	}
	return sink.Run(&rs.run)
}

// config applies a GenAI-Perf input_config: the flat argparse dump of
// 0.0.4-0.0.12 or the nested configuration of 0.0.12 on, where None is
// written as "".
func (rs *runState) config(cfg *jtree.Node, sink ingest.Sink) {
	if !cfg.IsObject() {
		return
	}
	str := func(n *jtree.Node) string { s, _ := n.Str(); return s }
	num := func(n *jtree.Node) (float64, bool) {
		if f, ok := n.Float(); ok {
			return f, true
		}
		if s, ok := n.Str(); ok && s != "" {
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
		return 0, false
	}
	run := &rs.run
	var concurrency, rate *jtree.Node
	var streaming *jtree.Node
	if cfg.Has("perf_analyzer") || cfg.Has("model_names") || cfg.Path("endpoint").IsObject() {
		// Nested configuration (PR #308, 2025-03).
		rs.vs.since("0.0.12")
		if names := cfg.Get("model_names"); names != nil && len(names.Items()) > 0 {
			run.Model = str(names.Items()[0])
		}
		ep := cfg.Get("endpoint")
		run.Backend = backendOf(str(ep.Get("service_kind")), str(ep.Get("backend")), str(ep.Get("type")))
		run.Endpoint = firstNonEmpty(str(ep.Get("custom")), str(ep.Get("type")))
		rs.label("url", str(ep.Get("url")))
		streaming = ep.Get("streaming")
		st := cfg.Path("perf_analyzer", "stimulus")
		concurrency, rate = st.Get("concurrency"), st.Get("request_rate")
		if n := st.Get("session_concurrency"); n != nil {
			concurrency = n
			rs.label("session_concurrency", scalar(n))
		}
		if b, _ := st.Get("fixed_schedule").Bool(); b {
			rs.label("fixed_schedule", "true")
		}
		rs.label("warmup_request_count", scalar(cfg.Path("perf_analyzer", "warmup_request_count")))
		m := cfg.Path("perf_analyzer", "measurement")
		if mode := str(m.Get("mode")); mode != "" {
			rs.label("measurement", mode+" "+scalar(m.Get("num")))
			if mode == "request_count" {
				if v, ok := m.Get("num").Int(); ok && v > 0 {
					run.NumPrompts = schemas.Some(v)
				}
			}
		}
		in := cfg.Get("input")
		if f, ok := num(in.Path("output_tokens", "mean")); ok && f > 0 {
			rs.oslMax = schemas.Some(f)
			rs.label("output_tokens_mean", scalar(in.Path("output_tokens", "mean")))
		}
		rs.label("output_tokens_stddev", scalar(in.Path("output_tokens", "stddev")))
		rs.label("synthetic_input_tokens_mean", scalar(in.Path("synthetic_tokens", "mean")))
		rs.label("num_dataset_entries", scalar(in.Get("num_dataset_entries")))
		rs.label("random_seed", scalar(in.Get("random_seed")))
		rs.goodput = render(in.Get("goodput"))
		rs.label("goodput", rs.goodput)
		rs.label("extra_inputs", render(in.Get("extra")))
		run.Tokenizer = str(cfg.Path("tokenizer", "name"))
	} else {
		// Flat argparse dump (0.0.4-0.0.12).
		rs.vs.since("0.0.4")
		rs.vs.until("0.0.12")
		if cfg.Has("num_dataset_entries") {
			rs.vs.since("0.0.9")
		}
		if cfg.Has("num_prompts") {
			rs.vs.until("0.0.8")
		}
		if names := cfg.Get("model"); names != nil && len(names.Items()) > 0 {
			run.Model = str(names.Items()[0])
		}
		if run.Model == "" {
			run.Model = str(cfg.Get("formatted_model_name"))
		}
		run.Backend = backendOf(str(cfg.Get("service_kind")), str(cfg.Get("backend")), str(cfg.Get("endpoint_type")))
		run.Endpoint = firstNonEmpty(str(cfg.Get("endpoint")), str(cfg.Get("endpoint_type")))
		rs.label("url", str(cfg.Get("u")))
		streaming = cfg.Get("streaming")
		concurrency, rate = cfg.Get("concurrency"), cfg.Get("request_rate")
		if v, ok := cfg.Get("request_count").Int(); ok && v > 0 {
			run.NumPrompts = schemas.Some(v)
		}
		if f, ok := num(cfg.Get("output_tokens_mean")); ok && f > 0 { // -1 means unset
			rs.oslMax = schemas.Some(f)
			rs.label("output_tokens_mean", scalar(cfg.Get("output_tokens_mean")))
		}
		for _, k := range []string{"output_tokens_stddev", "synthetic_input_tokens_mean", "synthetic_input_tokens_stddev",
			"num_dataset_entries", "num_prompts", "random_seed", "warmup_request_count", "measurement_interval", "prompt_source"} {
			if n := cfg.Get(k); !n.IsNull() {
				rs.label(k, scalar(n))
			}
		}
		rs.goodput = render(cfg.Get("goodput"))
		rs.label("goodput", rs.goodput)
		rs.label("extra_inputs", render(cfg.Get("extra_inputs")))
		run.Tokenizer = str(cfg.Get("tokenizer"))
	}
	if b, ok := streaming.Bool(); ok {
		run.Streaming = schemas.Some(b)
		rs.streamSet = true
	}
	if c, ok := concurrency.Int(); ok && c > 0 {
		run.MaxConcurrency = schemas.Some(c)
		run.Scenario, run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		if c == 1 && !cfg.Path("perf_analyzer", "stimulus").Has("session_concurrency") {
			run.Scenario = schemas.ScenarioSingleStream
		}
	} else if r, ok := num(rate); ok && r > 0 {
		// perf_analyzer's request distribution is not recorded.
		run.RequestRate = schemas.Some(r)
		run.Scenario, run.Arrival = schemas.ScenarioServer, schemas.ArrivalUnknown
	} else if rs.run.Labels["fixed_schedule"] == "true" {
		run.Scenario, run.Arrival = schemas.ScenarioServer, schemas.ArrivalUnknown
	}
}

func scalar(n *jtree.Node) string {
	s, ok := n.Scalar()
	if !ok {
		return render(n)
	}
	return s
}

// render writes a small value as label text ("" for null, empty objects
// and empty strings).
func render(n *jtree.Node) string {
	if n.IsNull() {
		return ""
	}
	if n.IsObject() {
		parts := make([]string, 0, len(n.Fields()))
		for _, m := range n.Fields() {
			parts = append(parts, m.Key+"="+render(m.Val))
		}
		if len(parts) == 0 {
			return ""
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if s, ok := n.Scalar(); ok {
		return s
	}
	parts := make([]string, 0, len(n.Items()))
	for _, e := range n.Items() {
		parts = append(parts, render(e))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func joinNonEmpty(sep string, ss ...string) string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// backendOf names the server a run measured: GenAI-Perf's --backend
// (tensorrtllm by default) is the Triton model's backend and means
// nothing with another service kind, where the endpoint type says what
// was called (docs/formats/genai-perf.md, "Backend"): an OpenAI-compatible
// vLLM server is "openai-chat", not "openai-tensorrtllm".
func backendOf(serviceKind, backend, endpointType string) string {
	if serviceKind != "" && serviceKind != "triton" {
		backend = ""
	}
	return joinNonEmpty("-", serviceKind, firstNonEmpty(backend, endpointType))
}
