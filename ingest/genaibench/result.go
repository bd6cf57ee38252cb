package genaibench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/inferenceperf"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// metadata is what experiment_metadata.json says about every run.
type metadata struct {
	version, backend, model, tokenizer, task, timeUnit string
	sut                                                schemas.Inventory
	warmup, cooldown                                   float64
	labels                                             map[string]string
}

func readMetadata(root *jtree.Node) *metadata {
	str := func(k string) string {
		s, _ := root.Get(k).Str()
		if s == "None" {
			return ""
		}
		return s
	}
	m := &metadata{version: str("benchmark_version"), backend: str("api_backend"), model: str("api_model_name"),
		tokenizer: str("server_model_tokenizer"), task: str("task"), timeUnit: str("metrics_time_unit"), labels: map[string]string{}}
	m.sut = schemas.Inventory{Model: m.model, Engine: str("server_engine"), EngineVersion: str("server_version"), GPUModel: str("server_gpu_type")}
	if c, ok := root.Get("server_gpu_count").Int(); ok && c > 0 {
		m.sut.GPUCount = schemas.Some(c)
	}
	for _, k := range []string{"model", "dataset_path", "max_time_per_run_s", "max_requests_per_run", "character_token_ratio", "iteration_type"} {
		if v := rows.Label(root.Get(k)); v != "" && v != "None" {
			m.labels["genai_bench."+k] = v
		}
	}
	// The command line can carry credentials: only these settings are
	// taken from it.
	args := strings.Fields(str("cmd"))
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--api-base":
			m.sut.Endpoint = inferenceperf.StripCredentials(args[i+1])
		case "--warmup-ratio":
			m.warmup, _ = strconv.ParseFloat(args[i+1], 64)
		case "--cooldown-ratio":
			m.cooldown, _ = strconv.ParseFloat(args[i+1], 64)
		case "--execution-engine":
			m.labels["genai_bench.execution_engine"] = args[i+1]
		}
	}
	return m
}

// fields are genai-bench's per-request metrics and what they measure; time
// is set for the four it scales to milliseconds (time_units.py). An empty
// id is a field that is checked but not stored: total_tokens is input +
// output, output_throughput equals output_inference_speed.
type field struct {
	key  string
	id   schemas.MetricID
	time bool
}

var fields = []field{
	{"ttft", schemas.TTFT, true}, {"tpot", schemas.TPOT, true}, {"e2e_latency", schemas.E2E, true},
	{"output_latency", schemas.DecodeSpan, true}, {"output_inference_speed", schemas.OutputTokenRatePerUser, false},
	{"num_input_tokens", schemas.InputTokens, false}, {"num_output_tokens", schemas.OutputTokens, false},
	{"num_reasoning_tokens", schemas.ReasoningTokens, false}, {"input_throughput", schemas.PrefillRatePerUser, false},
	{"total_tokens", "", false}, {"output_throughput", "", false},
}

// genai-bench's percentiles (aggregated_metrics_collector.py).
var percentiles = []float64{25, 50, 75, 90, 95, 99}

// A result is one result file being read.
type result struct {
	in   *ingest.Input
	sink ingest.Sink
	meta *metadata
	run  schemas.Run
	m    rows.Metrics
	div  float64 // time unit to seconds: divide by it
	agg  *jtree.Node
	// values per field of the requests kept for the statistics, in order
	values   map[string][]float64
	reported map[string]float64 // "field.stat" -> the file's value, in storage units
	n        int                // requests in the file
	okCount  int64
	skipped  []string
}

func readResult(in *ingest.Input, sink ingest.Sink, meta *metadata) (*result, error) {
	root, err := jtree.ParseObject(in, sink)
	if err != nil {
		return nil, err
	}
	id := ingest.RunID("genai-bench", in.SHA256(), 0)
	r := &result{in: in, sink: sink, meta: meta, m: rows.Metrics{Sink: sink, RunID: id, Record: "aggregated_metrics", Path: in.Path},
		values: map[string][]float64{}, reported: map[string]float64{}, agg: root.Get("aggregated_metrics"),
		run: schemas.Run{ID: id, Tool: "genai-bench", ToolVersion: "unknown (no experiment_metadata.json)", Format: kindResult,
			SourcePath: in.Path, SourceSHA256: in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
			Labels: map[string]string{}, TokenSource: "server_usage (client tokenizer where the server gave none)"}}
	if !r.agg.IsObject() {
		return nil, jtree.ErrorAt(in.Path, r.agg, "", "aggregated_metrics", "expected an object, found %s", r.agg.Describe())
	}
	if err := r.timeUnit(root.Get("_time_unit")); err != nil {
		return nil, err
	}
	r.settings()
	if err := r.requests(root.Get("individual_request_metrics")); err != nil {
		return nil, err
	}
	if err := r.aggregated(); err != nil {
		return nil, err
	}
	return r, r.recompute()
}

func (r *result) timeUnit(n *jtree.Node) error {
	unit, _ := n.Str()
	if unit == "" && r.meta != nil {
		unit = r.meta.timeUnit
	}
	switch unit {
	case "", "s":
		r.div = 1
	case "ms":
		r.div = 1000
	default:
		return jtree.ErrorAt(r.in.Path, n, "", "_time_unit", "unknown time unit %q (genai-bench writes s or ms)", unit)
	}
	return nil
}

// settings applies the metadata and the run's identifying members.
func (r *result) settings() {
	run := &r.run
	if m := r.meta; m != nil {
		if m.version != "" {
			run.ToolVersion = m.version
		}
		run.Backend, run.Model, run.Tokenizer, run.Endpoint, run.SUT = m.backend, m.model, m.tokenizer, m.task, m.sut
		for k, v := range m.labels {
			run.Labels[k] = v
		}
	}
	a := r.agg
	if s, ok := a.Get("scenario").Str(); ok {
		run.Labels["genai_bench.scenario"] = s
	}
	typ, _ := a.Get("iteration_type").Str()
	if c, ok := a.Get("num_concurrency").Int(); ok && c > 0 && typ != "batch_size" {
		run.Scenario, run.Arrival, run.MaxConcurrency = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop, schemas.Some(c)
	}
	if b, ok := a.Get("batch_size").Int(); ok && b > 0 {
		run.Labels["genai_bench.batch_size"] = strconv.FormatInt(b, 10)
	}
	if d, ok := a.Get("run_duration").Float(); ok && d > 0 && !math.IsInf(d, 0) {
		run.DurationS = schemas.Some(d)
	}
	for _, mem := range a.Get("error_codes_frequency").Fields() {
		run.Labels["genai_bench.error_code."+mem.Key] = rows.Label(mem.Val)
	}
}

// requests reads individual_request_metrics into rows, and keeps the
// values genai-bench aggregates: no error, not trimmed, not null.
func (r *result) requests(list *jtree.Node) error {
	if list.IsNull() {
		r.sink.Warn(r.in.Path + ": no individual_request_metrics: the statistics cannot be recomputed")
		return nil
	}
	items := list.Items()
	if list.Kind != jsonscan.BeginArray {
		return jtree.ErrorAt(r.in.Path, list, "", "individual_request_metrics", "expected an array, found %s", list.Describe())
	}
	r.n = len(items)
	warm, cool := 0, 0
	if r.meta != nil {
		warm, cool = int(float64(r.n)*r.meta.warmup), int(float64(r.n)*r.meta.cooldown)
	}
	for i, n := range items {
		if err := r.request(i, n, i >= warm && i < r.n-cool); err != nil {
			return err
		}
	}
	if warm+cool > 0 {
		r.run.Labels["genai_bench.trimmed"] = fmt.Sprintf("first %d and last %d of %d requests", warm, cool, r.n)
	}
	return nil
}

func (r *result) request(i int, n *jtree.Node, kept bool) error {
	record := "request " + strconv.Itoa(i)
	reject := func(p *jtree.Node, field, reason string) {
		rej := schemas.Rejection{Table: schemas.TableRequests, Record: record, Field: field, Reason: reason, Line: p.Pos.Line, Column: p.Pos.Col}
		r.sink.Reject(rej)
	}
	if !n.IsObject() {
		reject(n, "", "expected a request object, found "+n.Describe())
		return nil
	}
	vals := map[string]float64{}
	for _, f := range fields {
		v := n.Get(f.key)
		if v.IsNull() {
			continue
		}
		x, ok := v.Float()
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			reject(v, f.key, "expected a finite non-negative number, found "+v.Describe())
			return nil
		}
		if f.time {
			x /= r.div
		}
		vals[f.key] = x
	}
	req := schemas.Request{RunID: r.run.ID, Index: int64(i), Status: schemas.StatusOK, Phase: schemas.PhaseProfiling}
	if !kept {
		req.Phase = schemas.PhaseWarmup // warm-up or cool-down: out of the statistics
	}
	if code := n.Get("error_code"); !code.IsNull() {
		msg, _ := n.Get("error_message").Str()
		req.Status, req.Error = schemas.StatusError, strings.TrimSpace(rows.Label(code)+": "+msg)
	} else {
		r.okCount++
	}
	if v, ok := vals["ttft"]; ok {
		req.TTFTS = schemas.Some(v)
	}
	if v, ok := vals["e2e_latency"]; ok {
		req.E2ES = schemas.Some(v)
	}
	if v, ok := vals["num_input_tokens"]; ok && v == math.Trunc(v) {
		req.InputTokens = schemas.Some(int64(v))
	}
	if v, ok := vals["num_output_tokens"]; ok && v == math.Trunc(v) {
		req.OutputTokens = schemas.Some(int64(v))
	}
	if req.Status == schemas.StatusOK && kept {
		for k, v := range vals {
			r.values[k] = append(r.values[k], v)
		}
	}
	return r.sink.Request(&req)
}

// aggregated reads aggregated_metrics: the statistics and the run totals.
func (r *result) aggregated() error {
	a := r.agg
	count := func(key string) schemas.Opt[int64] {
		v := a.Get(key)
		c, ok := v.Int()
		if !v.IsNull() && (!ok || c < 0) {
			r.m.Reject(v, "aggregated_metrics."+key, "expected a non-negative count, found "+v.Describe())
			return schemas.Opt[int64]{}
		}
		if !ok {
			return schemas.Opt[int64]{}
		}
		return schemas.Some(c)
	}
	r.run.NumPrompts, r.run.Completed, r.run.Failed = count("num_requests"), count("num_completed_requests"), count("num_error_requests")
	if t := count("total_arrivals"); t.OK {
		r.run.Labels["genai_bench.total_arrivals"] = strconv.FormatInt(t.V, 10)
	}
	for _, rt := range []struct {
		key string
		id  schemas.MetricID
	}{{"requests_per_second", schemas.RequestThroughputRun}, {"mean_input_throughput_tokens_per_s", schemas.InputTokenThroughputRun},
		{"mean_output_throughput_tokens_per_s", schemas.OutputTokenThroughputRun}, {"mean_total_tokens_throughput_tokens_per_s", schemas.TotalTokenThroughputRun},
		{"arrival_requests_per_second", schemas.ArrivalRateRun}, {"error_rate", schemas.ErrorRate}} {
		if v, ok := a.Get(rt.key).Float(); ok {
			r.reported[rt.key] = v
		}
		if err := r.m.Value(rt.id, a.Get(rt.key), "aggregated_metrics."+rt.key, ""); err != nil {
			return err
		}
	}
	if a.Has("mean_total_chars_per_hour") {
		r.skipped = append(r.skipped, "aggregated_metrics.mean_total_chars_per_hour (tokens/s x an assumed characters-per-token ratio x 3600)")
	}
	st := a.Get("stats")
	o := rows.DistOptions{Method: string(stats.Linear), Std: "population"}
	for _, f := range fields {
		n := st.Get(f.key)
		if n.IsNull() {
			continue
		}
		div := 1.0
		if f.time {
			div = r.div
		}
		for _, mem := range n.Fields() {
			if v, ok := mem.Val.Float(); ok {
				r.reported[f.key+"."+mem.Key] = v / div
			}
		}
		if f.id == "" {
			continue
		}
		o.Div = div
		if err := r.m.Dist(f.id, n, "aggregated_metrics.stats."+f.key, o); err != nil {
			return err
		}
	}
	for _, mem := range st.Fields() {
		if !slices.ContainsFunc(fields, func(f field) bool { return f.key == mem.Key }) {
			r.skipped = append(r.skipped, "aggregated_metrics.stats."+mem.Key)
		}
	}
	return nil
}
