package aiperf

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// target is the definition a tag maps to, and the statistic its "avg" is.
type target struct {
	id  schemas.MetricID
	avg string
}

var (
	mean  = schemas.StatMean
	value = schemas.StatValue
	sum   = schemas.StatSum
)

// tags maps AIPerf metric tags (every version) to definitions.
var tags = map[string]target{
	"request_latency":                  {schemas.E2E, mean},
	"time_to_first_token":              {schemas.TTFT, mean},
	"ttft":                             {schemas.TTFT, mean},
	"time_to_first_output_token":       {schemas.TTFTAnswer, mean},
	"time_to_second_token":             {schemas.TTST, mean},
	"ttst":                             {schemas.TTST, mean},
	"inter_token_latency":              {schemas.TPOT, mean},
	"inter_chunk_latency":              {schemas.ITLChunk, mean},
	"output_token_throughput_per_user": {schemas.OutputTokenRatePerUser, mean},
	"output_sequence_length":           {schemas.OutputTokens, mean},
	"input_sequence_length":            {schemas.InputTokens, mean},
	"output_token_count":               {schemas.AnswerTokens, mean},
	"reasoning_token_count":            {schemas.ReasoningTokens, mean},
	"request_throughput":               {schemas.RequestThroughputSpan, value},
	"output_token_throughput":          {schemas.OutputTokenThroughputSpan, value},
	"total_token_throughput":           {schemas.TotalTokenThroughputSpan, value},
	"goodput":                          {schemas.GoodputSpan, value},
	"good_request_count":               {schemas.GoodRequests, value},
	"prefill_throughput":               {schemas.PrefillRatePerUser, mean},
	"prefill_throughput_per_user":      {schemas.PrefillRatePerUser, mean},
	"e2e_output_token_throughput":      {schemas.E2EOutputTokenRate, mean},
	"total_isl":                        {schemas.InputTokens, sum},
	"total_osl":                        {schemas.OutputTokens, sum},
	"total_output_tokens":              {schemas.AnswerTokens, sum},
	"total_reasoning_tokens":           {schemas.ReasoningTokens, sum},
	"error_isl":                        {schemas.InputTokensFailed, mean},
	"total_error_isl":                  {schemas.InputTokensFailed, sum},
	"usage_prompt_tokens":              {schemas.InputTokensUsage, mean},
	"usage_completion_tokens":          {schemas.OutputTokensUsage, mean},
	"usage_total_tokens":               {schemas.TotalTokensUsage, mean},
	"total_usage_prompt_tokens":        {schemas.InputTokensUsage, sum},
	"total_usage_completion_tokens":    {schemas.OutputTokensUsage, sum},
	"total_usage_total_tokens":         {schemas.TotalTokensUsage, sum},
	"usage_prompt_tokens_diff_pct":     {schemas.InputTokensUsageDiff, mean},
	"usage_completion_tokens_diff_pct": {schemas.OutputTokensUsageDiff, mean},
	"usage_discrepancy_count":          {schemas.UsageDiscrepancyRequests, value},
}

// runTags become run fields, not metric rows.
var runTags = map[string]bool{"request_count": true, "error_request_count": true, "benchmark_duration": true,
	"min_request_timestamp": true, "max_response_timestamp": true}

// notBlocks are top-level keys that are not metric blocks.
var notBlocks = map[string]bool{"input_config": true, "was_cancelled": true, "error_summary": true, "start_time": true,
	"end_time": true, "telemetry_data": true, "schema_version": true, "aiperf_version": true, "benchmark_id": true,
	"records": true, "run_info": true, "warmup_metrics": true, "timeslice_index": true}

// A summaryRun is a run assembled from a summary (or one timeslice).
type summaryRun struct {
	run       schemas.Run
	reported  []schemas.Metric
	vs        versions
	record    string
	streamSet bool
	path      string
	reasoning bool
}

func newSummaryRun(in *ingest.Input, index int, format string) *summaryRun {
	return &summaryRun{vs: anyVersion(), record: "summary", path: in.Path, run: schemas.Run{
		ID: ingest.RunID("aiperf", in.SHA256(), index), Tool: "aiperf", Format: format,
		SourcePath: in.Path, SourceSHA256: in.SHA256(), SourceRecord: int64(index),
		Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown, WindowKind: schemas.WindowKindSpan,
		TokenSource: "client tokenizer (reasoning_content counted as output; chat template not applied)",
		Labels:      map[string]string{},
	}}
}

func (s *summaryRun) flag(f string) {
	if !slices.Contains(s.run.Flags, f) {
		s.run.Flags = append(s.run.Flags, f)
	}
}

func (s *summaryRun) label(k, v string) {
	if v != "" {
		s.run.Labels[k] = v
	}
}

func (s *summaryRun) emitRun(sink ingest.Sink) error {
	slices.Sort(s.run.Flags)
	if len(s.run.Labels) == 0 {
		s.run.Labels = nil
	}
	return sink.Run(&s.run)
}

func readSummaryFile(in *ingest.Input, kind string, sink ingest.Sink) (*summaryRun, error) {
	if kind == kindCSV {
		return readCSV(in, sink)
	}
	root, err := jtree.ParseObject(in, sink)
	if err != nil {
		return nil, err
	}
	return summaryFromJSON(in, root, sink)
}

func summaryFromJSON(in *ingest.Input, root *jtree.Node, sink ingest.Sink) (*summaryRun, error) {
	s := newSummaryRun(in, 0, kindSummary)
	blocks := root
	if rec := root.Get("records"); rec.IsObject() {
		blocks = rec // 0.1.x
		s.vs.until("0.1")
	} else {
		s.vs.since("0.2") // PR #343: GenAI-Perf's layout
	}
	if v, ok := root.Get("schema_version").Str(); ok {
		s.vs.since("0.4")
		s.label("schema_version", v)
	} else if blocks == root {
		s.vs.until("0.3")
	}
	if v, ok := root.Get("aiperf_version").Str(); ok {
		s.vs.exactVersion(v)
	}
	s.label("benchmark_id", scalar(root.Get("benchmark_id")))
	s.layout(blocks)
	s.config(root.Get("input_config"))
	if ri := root.Get("run_info"); ri.IsObject() {
		for _, m := range ri.Fields() {
			if t, ok := m.Val.Scalar(); ok && t != "" {
				s.label("run_info."+m.Key, t)
			}
		}
	}
	if err := s.scalars(blocks); err != nil {
		return nil, err
	}
	if err := s.meta(root, sink); err != nil {
		return nil, err
	}
	if !s.streamSet {
		s.inferStreaming(blocks)
	}
	s.run.ToolVersion = s.vs.String()
	if err := s.blocks(blocks, sink); err != nil {
		return nil, err
	}
	if root.Has("warmup_metrics") {
		sink.Warn(fmt.Sprintf("%s: warmup_metrics (the warm-up phase's own statistics) are not ingested; the run's metrics are the profiling phase's", in.Path))
	}
	return s, nil
}

// layout narrows the version from the tags present.
func (s *summaryRun) layout(blocks *jtree.Node) {
	if blocks.Has("prefill_throughput") {
		s.vs.until("0.3", "prefill_throughput")
	}
	if blocks.Has("prefill_throughput_per_user") {
		s.vs.since("0.4", "prefill_throughput_per_user")
	}
	if blocks.Has("total_token_throughput") {
		s.vs.since("0.4", "total_token_throughput")
	}
	if blocks.Has("e2e_output_token_throughput") {
		s.vs.since("0.7", "e2e_output_token_throughput")
	}
	if blocks.Has("time_to_first_output_token") {
		s.vs.since("0.2", "time_to_first_output_token")
	}
	if lat := blocks.Get("request_latency"); lat.Has("p1") {
		if lat.Has("p10") {
			s.vs.since("0.2", "request_latency's p10")
		} else {
			s.vs.until("0.1", "request_latency without p10")
		}
	}
}

// meta reads the non-metric members: cancellation, errors, times,
// telemetry.
func (s *summaryRun) meta(root *jtree.Node, sink ingest.Sink) error {
	if b, _ := root.Get("was_cancelled").Bool(); b {
		s.flag("run_cancelled")
		sink.Warn(fmt.Sprintf("%s: the run was cancelled (was_cancelled: true); its statistics cover part of the load", s.path))
	}
	if st, ok := root.Get("start_time").Str(); ok {
		s.run.ToolDate = st
		s.vs.dated(st)
		s.label("start_time_local", st)
	}
	if et, ok := root.Get("end_time").Str(); ok {
		s.label("end_time_local", et)
	}
	if es := root.Get("error_summary"); es != nil {
		var parts []string
		var total int64
		for _, e := range es.Items() {
			d := e.Get("error_details")
			code, _ := d.Get("code").Scalar()
			typ, _ := d.Get("type").Str()
			msg, _ := d.Get("message").Str()
			n, _ := e.Get("count").Int()
			total += n
			parts = append(parts, fmt.Sprintf("%d x %s", n, strings.TrimSpace(strings.Join([]string{code, typ + ":", msg}, " "))))
		}
		if len(parts) > 0 {
			s.label("error_summary", strings.Join(parts, "; "))
			sink.Warn(fmt.Sprintf("%s: %d failed requests: %s", s.path, total, strings.Join(parts, "; ")))
			if !s.run.Failed.OK {
				s.run.Failed = schemas.Some(total)
			}
		} else if es.Kind == jsonscan.BeginArray && !s.run.Failed.OK {
			s.run.Failed = schemas.Some(int64(0)) // AIPerf leaves error_request_count out when it is 0
		}
	}
	if t := root.Get("telemetry_data"); t.IsObject() {
		s.vs.since("0.2")
		gpus := 0
		for _, ep := range t.Path("endpoints").Fields() {
			gpus += len(ep.Val.Get("gpus").Fields())
		}
		sink.Warn(fmt.Sprintf("%s: telemetry_data (per-GPU summaries over %d GPU endpoints) is not ingested: the samples table takes the per-sample gpu_telemetry_export.jsonl, and energy_consumption is a cumulative counter whose average means nothing", s.path, gpus))
		return s.telemetryEnergy(t, sink)
	}
	return nil
}

// scalars reads the tags that are run fields.
func (s *summaryRun) scalars(blocks *jtree.Node) error {
	avg := func(tag string) (*jtree.Node, float64, bool) {
		n := blocks.Path(tag, "avg")
		f, ok := n.Float()
		return n, f, ok
	}
	count := func(tag string) (schemas.Opt[int64], error) {
		n, f, ok := avg(tag)
		if !ok {
			if n.IsNull() {
				return schemas.Opt[int64]{}, nil
			}
			return schemas.Opt[int64]{}, jtree.ErrorAt(s.path, n, s.record, tag+".avg", "expected a number, found %s", n.Describe())
		}
		if f < 0 || f != math.Trunc(f) {
			return schemas.Opt[int64]{}, jtree.ErrorAt(s.path, n, s.record, tag+".avg", "expected a non-negative whole number, found %s", n.Text)
		}
		return schemas.Some(int64(f)), nil
	}
	var err error
	if s.run.Completed, err = count("request_count"); err != nil {
		return err
	}
	if s.run.Failed, err = count("error_request_count"); err != nil {
		return err
	}
	if n, f, ok := avg("benchmark_duration"); ok {
		unit, _ := blocks.Path("benchmark_duration", "unit").Str()
		sc, known := jtree.UnitScale(unit)
		if !known || sc.Unit != schemas.UnitSeconds || f < 0 || math.IsInf(f, 0) {
			return jtree.ErrorAt(s.path, n, s.record, "benchmark_duration", "expected a duration, found %s %s", n.Text, unit)
		}
		s.run.DurationS = schemas.Some(f / sc.Div)
	}
	// Written as float64 nanoseconds in 0.2.x: the last ~8 bits are lost.
	for _, tag := range []string{"min_request_timestamp", "max_response_timestamp"} {
		if _, f, ok := avg(tag); ok && f > 0 && f < math.MaxInt64 {
			t := schemas.Some(time.Unix(0, int64(f)).UTC())
			if tag == "min_request_timestamp" {
				s.run.WindowStart = t
			} else {
				s.run.WindowEnd = t
			}
			s.flag("window_times_rounded_by_float64")
		}
	}
	if f, ok := blocks.Path("reasoning_token_count", "avg").Float(); ok && f > 0 {
		s.reasoning = true
	}
	if f, ok := blocks.Path("total_reasoning_tokens", "avg").Float(); ok && f > 0 {
		s.reasoning = true
	}
	if s.reasoning {
		s.flag("reasoning_counted_as_output")
	}
	return nil
}

// inferStreaming: AIPerf computes TTFT only for streaming runs.
func (s *summaryRun) inferStreaming(blocks *jtree.Node) {
	for _, t := range []string{"time_to_first_token", "ttft", "inter_chunk_latency", "time_to_first_output_token"} {
		if b := blocks.Get(t); b.IsObject() {
			s.run.Streaming = schemas.Some(true)
			s.flag("streaming_inferred")
			return
		}
	}
}

// blocks emits every metric block of an object.
func (s *summaryRun) blocks(root *jtree.Node, sink ingest.Sink) error {
	seen := map[string]bool{}
	var unknownStats, httpTrace []string
	for _, m := range root.Fields() {
		if seen[m.Key] {
			continue
		}
		seen[m.Key] = true
		b := root.Get(m.Key)
		if notBlocks[m.Key] || runTags[m.Key] || b.IsNull() {
			continue
		}
		if strings.HasPrefix(m.Key, "http_req_") {
			// Valid rows of --export-http-trace: transport phases (pool
			// wait, DNS, connect, send, wait, receive) no definition covers.
			httpTrace = append(httpTrace, m.Key)
			continue
		}
		t, ok := tags[m.Key]
		if !ok {
			if b.IsObject() && (b.Has("unit") || b.Has("avg")) {
				jtree.RejectBlock(sink, b, s.record, m.Key, "no verdict definition for AIPerf metric "+m.Key)
			} else {
				sink.Warn(fmt.Sprintf("%s: %s: unknown key %q (%s) ignored", s.path, s.record, m.Key, b.Describe()))
			}
			continue
		}
		if !b.IsObject() {
			return jtree.ErrorAt(s.path, b, s.record, m.Key, "expected a metric block, found %s", b.Describe())
		}
		def := schemas.MustLookup(t.id)
		unit, _ := b.Get("unit").Str()
		sc, ok := jtree.UnitScale(unit)
		if !ok || !jtree.Fits(sc.Unit, def.Unit) {
			jtree.RejectBlock(sink, b, s.record, m.Key, fmt.Sprintf("unit %q does not fit %s (%s)", unit, t.id, def.Unit))
			continue
		}
		spec := jtree.Spec{RunID: s.run.ID, MetricID: t.id, Native: m.Key, Div: sc.Div, AvgStat: t.avg, Record: s.record}
		if m.Key == "output_token_count" {
			spec.Note = "over requests with at least one answer token"
		}
		unknown, err := jtree.Emit(sink, b, spec, func(x *schemas.Metric) error {
			s.reported = append(s.reported, *x)
			return sink.Metric(x)
		})
		if err != nil {
			return err
		}
		unknownStats = append(unknownStats, unknown...)
	}
	if len(httpTrace) > 0 {
		sink.Warn(fmt.Sprintf("%s: %s: %d HTTP trace metrics (%s) are not ingested: they time transport phases (connection pool, DNS, connect, send, wait for the first byte, receive) that no verdict definition covers",
			s.path, s.record, len(httpTrace), strings.Join(httpTrace, ", ")))
	}
	if len(unknownStats) > 0 {
		sort.Strings(unknownStats)
		unknownStats = slices.Compact(unknownStats)
		sink.Warn(fmt.Sprintf("%s: %s: statistics %v are not ingested (no verdict meaning: adjusted percentiles count failures as +Inf)", s.path, s.record, unknownStats))
	}
	return nil
}

func scalar(n *jtree.Node) string {
	if n.IsNull() {
		return ""
	}
	if t, ok := n.Scalar(); ok {
		return t
	}
	return ""
}

// config applies an AIPerf input_config: the 0.1-0.6 shape (endpoint,
// input, loadgen, cli_command) or the 0.8 shape (models, endpoint,
// datasets, phases, artifacts). Only options the user set are written;
// the rest take the version's defaults.
func (s *summaryRun) config(cfg *jtree.Node) {
	if !cfg.IsObject() {
		return
	}
	run := &s.run
	str := func(n *jtree.Node) string { v, _ := n.Str(); return v }
	ep := cfg.Get("endpoint")
	if names := ep.Get("model_names"); names != nil && len(names.Items()) > 0 {
		run.Model = str(names.Items()[0])
	}
	if items := cfg.Path("models", "items"); items != nil && len(items.Items()) > 0 {
		run.Model = str(items.Items()[0].Get("name"))
		s.vs.since("0.7", "input_config.models.items")
	}
	run.Backend = str(ep.Get("type"))
	run.Endpoint = str(ep.Get("custom_endpoint"))
	url := str(ep.Get("url"))
	if urls := ep.Get("urls"); urls != nil && len(urls.Items()) > 0 {
		url = str(urls.Items()[0])
	}
	s.label("url", url)
	if b, ok := ep.Get("streaming").Bool(); ok {
		run.Streaming = schemas.Some(b)
		s.streamSet = true
	}
	if b, _ := ep.Get("use_server_token_count").Bool(); b {
		run.TokenSource = "server usage (--use-server-token-count)"
		s.flag("server_token_counts")
	}
	run.Tokenizer = str(cfg.Path("tokenizer", "name"))
	in := cfg.Get("input")
	s.label("output_tokens_mean", scalar(in.Path("prompt", "output_tokens", "mean")))
	s.label("input_tokens_mean", scalar(in.Path("prompt", "input_tokens", "mean")))
	s.label("random_seed", scalar(firstNode(in.Get("random_seed"), cfg.Get("random_seed"))))
	s.label("goodput", render(in.Get("goodput")))
	s.label("extra_inputs", render(in.Get("extra")))
	lg := cfg.Get("loadgen")
	conc, rate := lg.Get("concurrency"), lg.Get("request_rate")
	mode := str(lg.Get("request_rate_mode"))
	if mode != "" {
		s.vs.until("0.3", "loadgen.request_rate_mode")
	}
	if m := str(lg.Get("arrival_pattern")); m != "" {
		mode = m
		s.vs.since("0.4", "loadgen.arrival_pattern")
	}
	if n, ok := lg.Get("request_count").Int(); ok && n > 0 {
		run.NumPrompts = schemas.Some(n)
	}
	for _, k := range []string{"warmup_request_count", "benchmark_duration", "benchmark_grace_period", "request_cancellation_rate"} {
		s.label(k, scalar(lg.Get(k)))
	}
	// 0.8: phases.
	for _, ph := range cfg.Get("phases").Items() {
		name := str(ph.Get("name"))
		if name != "" && name != "profiling" {
			s.label("phase."+name, render(ph))
			continue
		}
		s.vs.since("0.7")
		if c := ph.Get("concurrency"); c != nil {
			conc = c
		}
		if r := ph.Get("rate"); r != nil {
			rate = r
		} else if r := ph.Get("request_rate"); r != nil {
			rate = r
		}
		if n, ok := ph.Get("requests").Int(); ok && n > 0 {
			run.NumPrompts = schemas.Some(n)
		}
		if t := str(ph.Get("type")); t != "" && mode == "" {
			mode = t
		}
	}
	cli := str(cfg.Get("cli_command"))
	if cli == "" {
		cli = str(cfg.Path("artifacts", "cli_command"))
	}
	s.label("cli_command", cli)
	args := splitCommand(cli)
	if !s.streamSet && cli != "" {
		run.Streaming = schemas.Some(slices.Contains(args, "--streaming"))
		s.streamSet = true
	}
	if conc == nil {
		if v := argValue(args, "--concurrency"); v != "" {
			conc = &jtree.Node{Kind: jsonscan.Number, Text: v}
		}
	}
	if rate == nil {
		if v := argValue(args, "--request-rate"); v != "" {
			rate = &jtree.Node{Kind: jsonscan.Number, Text: v}
		}
	}
	if run.Tokenizer == "" {
		run.Tokenizer = argValue(args, "--tokenizer")
	}
	if run.Model == "" {
		run.Model = firstNonEmpty(argValue(args, "--model"), argValue(args, "-m"))
	}
	s.arrival(conc, rate, mode)
}

// arrival sets the scenario from the load options.
func (s *summaryRun) arrival(conc, rate *jtree.Node, mode string) {
	run := &s.run
	c, hasC := conc.Int()
	r, hasR := rate.Float()
	if s, ok := rate.Str(); ok {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			r, hasR = f, true
		}
	}
	if hasC && c > 0 {
		run.MaxConcurrency = schemas.Some(c)
	}
	switch {
	case hasR && r > 0:
		run.RequestRate = schemas.Some(r)
		run.Scenario = schemas.ScenarioServer
		switch mode {
		case "", "poisson":
			run.Arrival = schemas.ArrivalPoisson // AIPerf's default
		case "constant":
			run.Arrival = schemas.ArrivalConstant
		case "gamma":
			run.Arrival = schemas.ArrivalGamma
		default:
			run.Arrival = schemas.ArrivalUnknown
		}
		s.label("arrival_pattern", mode)
	case hasC && c > 0:
		run.Scenario, run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		if c == 1 {
			run.Scenario = schemas.ScenarioSingleStream
		}
	}
}

// splitCommand splits a shell command line, honouring quotes.
func splitCommand(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func argValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstNode(ns ...*jtree.Node) *jtree.Node {
	for _, n := range ns {
		if !n.IsNull() {
			return n
		}
	}
	return nil
}

// render writes a small value as label text.
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
	if t, ok := n.Scalar(); ok {
		return t
	}
	parts := make([]string, 0, len(n.Items()))
	for _, e := range n.Items() {
		parts = append(parts, render(e))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
