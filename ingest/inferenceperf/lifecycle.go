package inferenceperf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Versions, as far as the key set tells (reportgen/base.py at v0.2.0,
// v0.5.0 and main).
const (
	eraEarly  = "v0.2-v0.4 (no benchmark_time_seconds)"
	eraV050   = "v0.5.x (benchmark_time_seconds, token_count_mismatches)"
	eraMain   = "after v0.5 (prompt_tokens and output_tokens blocks)"
	flagBOS   = "inference_perf_v0.5.0_bos_per_chunk"
	flagAll   = "inference_perf_all_stages"
	flagEarly = "inference_perf_tpot_per_timestamp"
)

// A summary is one lifecycle summary being read: a stage, or all stages.
type summary struct {
	in       *ingest.Input
	sink     ingest.Sink
	info     fileInfo
	cfg      Settings
	run      schemas.Run
	m        rows.Metrics
	version  string
	reported []schemas.Metric // what the file says, for the per-request check
	skipped  []string
}

func newSummary(in *ingest.Input, sink ingest.Sink, info fileInfo, cfg Settings) *summary {
	id := ingest.RunID("inference-perf", in.SHA256(), 0)
	s := &summary{in: in, sink: sink, info: info, cfg: cfg, m: rows.Metrics{Sink: sink, RunID: id, Record: "summary", Path: in.Path},
		run: schemas.Run{ID: id, Tool: "inference-perf", Format: kindLifecycle, SourcePath: in.Path, SourceSHA256: in.SHA256(),
			Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown, Labels: map[string]string{},
			TokenSource: "client tokenizer (inference-perf re-tokenizes the response text)"}}
	return s
}

func (s *summary) flag(f string) {
	if !slices.Contains(s.run.Flags, f) {
		s.run.Flags = append(s.run.Flags, f)
	}
}

// read reads the summary object.
func (s *summary) read(root *jtree.Node) error {
	succ, fail, load := root.Get("successes"), root.Get("failures"), root.Get("load_summary")
	for _, n := range []struct {
		node *jtree.Node
		name string
	}{{succ, "successes"}, {fail, "failures"}, {load, "load_summary"}} {
		if !n.node.IsObject() {
			return jtree.ErrorAt(s.in.Path, n.node, "summary", n.name, "expected an object, found %s", n.node.Describe())
		}
	}
	s.version = eraEarly
	switch {
	case succ.Has("prompt_tokens") || succ.Has("output_tokens"):
		s.version = eraMain
	case root.Has("benchmark_time_seconds"):
		s.version = eraV050
	}
	s.run.ToolVersion = s.version
	s.settings()
	if err := s.loadSummary(load); err != nil {
		return err
	}
	if d := root.Get("benchmark_time_seconds"); !d.IsNull() {
		if v, ok := s.m.Number(d, "benchmark_time_seconds"); ok && v > 0 {
			s.run.DurationS, s.run.WindowKind = schemas.Some(v), schemas.WindowKindDispatch
		}
	}
	s.run.Completed = s.count(succ.Get("count"), "successes.count")
	s.run.Failed = s.count(fail.Get("count"), "failures.count")
	s.bosQuirk(succ)
	if err := s.successes(succ); err != nil {
		return err
	}
	if err := s.failures(fail); err != nil {
		return err
	}
	if root.Has("retries") {
		s.skipped = append(s.skipped, "retries (retry activity has no definition)")
	}
	return nil
}

// settings applies the file name and config: the stage, its rate or
// concurrency, the arrival process, the API.
func (s *summary) settings() {
	if s.info.summary || s.info.stage < 0 {
		s.run.Labels["inference_perf.stage"] = "all"
		s.flag(flagAll)
	} else {
		s.run.Labels["inference_perf.stage"] = strconv.Itoa(s.info.stage)
	}
	if s.info.adapter != "" {
		s.run.Labels["inference_perf.adapter"] = s.info.adapter
	}
	c := s.cfg
	s.run.Scenario, s.run.Arrival, s.run.Streaming = orScenario(c.Scenario), orArrival(c.Arrival), c.Streaming
	s.run.Backend, s.run.Endpoint, s.run.Model, s.run.Tokenizer = c.Backend, c.Endpoint, c.Model, c.Tokenizer
	s.run.SUT.Model, s.run.SUT.Endpoint = c.Model, c.BaseURL
	if s.info.stage >= 0 {
		s.run.RequestRate, s.run.MaxConcurrency = c.Rate, c.Concurrency
	}
	if c.ServerTokens {
		s.run.TokenSource = "server_usage"
	}
	for k, v := range c.Labels {
		s.run.Labels[k] = v
	}
}

func orScenario(v schemas.Scenario) schemas.Scenario {
	if v == "" {
		return schemas.ScenarioUnknown
	}
	return v
}

func orArrival(v schemas.Arrival) schemas.Arrival {
	if v == "" {
		return schemas.ArrivalUnknown
	}
	return v
}

func (s *summary) count(n *jtree.Node, field string) schemas.Opt[int64] {
	if n.IsNull() {
		return schemas.Opt[int64]{}
	}
	c, ok := n.Int()
	if !ok || c < 0 {
		s.m.Reject(n, field, "expected a non-negative integer count, found "+n.Describe())
		return schemas.Opt[int64]{}
	}
	return schemas.Some(c)
}

// loadSummary reads load_summary: the count sent, the schedule delay, and
// in stage files the send span and the requested and achieved rates.
func (s *summary) loadSummary(load *jtree.Node) error {
	s.run.NumPrompts = s.count(load.Get("count"), "load_summary.count")
	lin := rows.DistOptions{Method: string(stats.Linear), N: s.run.NumPrompts}
	if err := s.add(schemas.ClientQueue, load.Get("schedule_delay"), "load_summary.schedule_delay", lin); err != nil {
		return err
	}
	if err := s.m.Value(schemas.SendSpan, load.Get("send_duration"), "load_summary.send_duration", ""); err != nil {
		return err
	}
	if err := s.m.Value(schemas.AchievedSendRate, load.Get("achieved_rate"), "load_summary.achieved_rate", ""); err != nil {
		return err
	}
	if r, ok := load.Get("requested_rate").Float(); ok && r > 0 {
		s.run.RequestRate = schemas.Some(r)
		if s.run.Scenario == schemas.ScenarioUnknown {
			s.run.Scenario = schemas.ScenarioServer
		}
	}
	if c, ok := load.Get("concurrency").Int(); ok && c > 0 {
		s.run.MaxConcurrency = schemas.Some(c)
		s.run.Scenario, s.run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
	}
	return nil
}

// add writes a distribution and keeps the rows for the per-request check.
func (s *summary) add(id schemas.MetricID, n *jtree.Node, native string, o rows.DistOptions) error {
	sink := &keep{Sink: s.sink}
	m := s.m
	m.Sink = sink
	if err := m.Dist(id, n, native, o); err != nil {
		return err
	}
	s.reported = append(s.reported, sink.rows...)
	return nil
}

// keep forwards metric rows and keeps a copy.
type keep struct {
	ingest.Sink
	rows []schemas.Metric
}

func (k *keep) Metric(m *schemas.Metric) error {
	k.rows = append(k.rows, *m)
	return k.Sink.Metric(m)
}

// latencies are the successes.latency members and what they measure.
func (s *summary) latencies() map[string]schemas.MetricID {
	tpot := schemas.TPOT
	if s.version == eraEarly {
		// v0.2.0 divided by the number of recorded timestamps - 1.
		tpot = schemas.TPOTPerChunk
		s.flag(flagEarly)
	}
	return map[string]schemas.MetricID{
		"request_latency": schemas.E2E, "time_to_first_token": schemas.TTFT, "time_per_output_token": tpot,
		"normalized_time_per_output_token": schemas.TPOTInclTTFTZeroFilled, "inter_token_latency": schemas.ITLTokenChunkStamped,
	}
}

var throughputs = map[string]schemas.MetricID{
	"requests_per_sec": schemas.RequestThroughput, "input_tokens_per_sec": schemas.InputTokenThroughput,
	"output_tokens_per_sec": schemas.OutputTokenThroughput, "total_tokens_per_sec": schemas.TotalTokenThroughput,
}

func (s *summary) successes(succ *jtree.Node) error {
	lin := rows.DistOptions{Method: string(stats.Linear), N: s.run.Completed}
	lat := succ.Get("latency")
	lats := s.latencies()
	for _, mem := range lat.Fields() {
		id, ok := lats[mem.Key]
		if !ok {
			s.skipped = append(s.skipped, "successes.latency."+mem.Key)
			continue
		}
		o := lin
		if id != schemas.E2E && id != schemas.TPOTInclTTFTZeroFilled {
			o.N = schemas.Opt[int64]{} // over token gaps, or streamed requests only
		}
		if id == schemas.ITLTokenChunkStamped && slices.Contains(s.run.Flags, flagBOS) {
			o.Note = "v0.5.0: a BOS token per chunk adds 0 gaps"
		}
		if err := s.add(id, mem.Val, "successes.latency."+mem.Key, o); err != nil {
			return err
		}
	}
	for _, mem := range succ.Get("throughput").Fields() {
		id, ok := throughputs[mem.Key]
		if !ok {
			s.skipped = append(s.skipped, "successes.throughput."+mem.Key)
			continue
		}
		if err := s.m.Value(id, mem.Val, "successes.throughput."+mem.Key, ""); err != nil {
			return err
		}
	}
	osl := lin
	if slices.Contains(s.run.Flags, flagBOS) {
		osl.Note = "v0.5.0: counted with a BOS token per chunk, so inflated"
	}
	for _, d := range []struct {
		key string
		id  schemas.MetricID
		o   rows.DistOptions
	}{{"prompt_len", schemas.InputTokens, lin}, {"output_len", schemas.OutputTokens, osl}} {
		if err := s.add(d.id, succ.Get(d.key), "successes."+d.key, d.o); err != nil {
			return err
		}
	}
	if err := s.usage(succ); err != nil {
		return err
	}
	if err := s.m.Value(schemas.UsageDiscrepancyRequests, succ.Get("token_count_mismatches"), "successes.token_count_mismatches",
		"requests whose per-chunk token count differs from the server's completion_tokens"); err != nil {
		return err
	}
	for _, k := range []string{"request_size_bytes", "image", "video", "audio"} {
		if succ.Has(k) {
			s.skipped = append(s.skipped, "successes."+k+" (payload sizes and media have no definition)")
		}
	}
	return s.goodput(succ.Get("goodput_metrics"))
}

// usage reads the post-v0.5 token blocks: the server's counts where it
// reported them, with their totals.
func (s *summary) usage(succ *jtree.Node) error {
	for _, d := range []struct {
		key string
		id  schemas.MetricID
	}{{"prompt_tokens", schemas.InputTokensUsage}, {"output_tokens", schemas.OutputTokensUsage}} {
		n := succ.Get(d.key)
		if n.IsNull() {
			continue
		}
		o := rows.DistOptions{Method: string(stats.Linear), N: s.run.Completed, Ignore: []string{"cached", "uncached"},
			Note: "the server's usage count, the client's where the server gave none"}
		if err := s.add(d.id, n, "successes."+d.key, o); err != nil {
			return err
		}
		if c := n.Get("cached"); !c.IsNull() {
			s.run.Labels["inference_perf."+d.key+".cached"] = rows.Label(c)
		}
	}
	return nil
}

// goodput reads goodput_metrics (only when SLOs were configured).
func (s *summary) goodput(g *jtree.Node) error {
	if g.IsNull() {
		return nil
	}
	if err := s.m.Value(schemas.Goodput, g.Get("request_goodput"), "successes.goodput_metrics.request_goodput", ""); err != nil {
		return err
	}
	if err := s.m.Value(schemas.GoodRequests, g.Get("good_requests"), "successes.goodput_metrics.good_requests", ""); err != nil {
		return err
	}
	for _, mem := range g.Fields() {
		if mem.Key != "request_goodput" && mem.Key != "good_requests" {
			s.run.Labels["inference_perf.goodput."+mem.Key] = rows.Label(mem.Val)
		}
	}
	return nil
}

func (s *summary) failures(fail *jtree.Node) error {
	o := rows.DistOptions{Method: string(stats.Linear), N: s.run.Failed}
	if err := s.add(schemas.E2EFailed, fail.Get("request_latency"), "failures.request_latency", o); err != nil {
		return err
	}
	for _, k := range []string{"prompt_len", "prompt_tokens"} {
		if err := s.add(schemas.InputTokensFailed, fail.Get(k), "failures."+k, rows.DistOptions{Method: o.Method, N: o.N, Ignore: []string{"total", "cached", "uncached"}}); err != nil {
			return err
		}
	}
	for _, lbl := range fail.Get("by_label").Fields() {
		s.run.Labels["inference_perf.failures."+lbl.Key] = rows.Label(lbl.Val.Get("count"))
		var msgs []string
		for _, m := range lbl.Val.Get("messages").Items() {
			if t, ok := m.Get("message").Str(); ok {
				msgs = append(msgs, t)
			}
		}
		if len(msgs) > 0 {
			s.sink.Warn(fmt.Sprintf("%s: %s failures (%s): %s", s.in.Path, lbl.Key, rows.Label(lbl.Val.Get("count")), strings.Join(msgs, "; ")))
		}
	}
	return nil
}

// bosQuirk flags v0.5.0 runs whose token counts carry a BOS per chunk: the
// per-chunk count disagreed with the server's for some request, or most
// token gaps are 0.
func (s *summary) bosQuirk(succ *jtree.Node) {
	if s.version != eraV050 {
		return
	}
	mism, _ := succ.Get("token_count_mismatches").Int()
	median, ok := succ.Path("latency", "inter_token_latency", "median").Float()
	if mism > 0 || (ok && median == 0) {
		s.flag(flagBOS)
	}
}

// emit reports what was skipped and the run.
func (s *summary) emit() error {
	if len(s.skipped) > 0 {
		s.sink.Warn(fmt.Sprintf("%s: not ingested: %s", s.in.Path, strings.Join(s.skipped, "; ")))
	}
	slices.Sort(s.run.Flags)
	if len(s.run.Labels) == 0 {
		s.run.Labels = nil
	}
	return s.sink.Run(&s.run)
}
