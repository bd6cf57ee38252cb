package guidellm

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// gen is a report schema generation.
type gen int

const (
	gen0 gen = iota // v0.1.x
	genA            // v0.2.0-v0.3.x
	genB            // v0.4.x
	genC            // v0.5-v0.6 (metadata.version 1)
	genD            // v0.7+ (metadata.version 2)
)

var genNames = [...]string{"v0.1 (gen 0)", "v0.2-v0.3 (gen A)", "v0.4 (gen B)", "v0.5-v0.6 (gen C)", "v0.7+ (gen D)"}

// GuideLLM's percentile keys and the percentiles they name.
var pctKeys = []struct {
	key string
	p   float64
}{{"p001", 0.1}, {"p01", 1}, {"p05", 5}, {"p10", 10}, {"p25", 25}, {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}}

// A benchReader turns one benchmark into a run, its metric rows and its
// request rows.
type benchReader struct {
	in    *ingest.Input
	sink  ingest.Sink
	top   *node // the report's members other than benchmarks
	b     *node
	index int

	gen      gen
	method   stats.Method
	reported []schemas.Metric
	flags    []string
}

func (r *benchReader) record() string { return fmt.Sprintf("benchmark %d", r.index) }

func (r *benchReader) errAt(n *node, field, format string, args ...any) error {
	e := &ingest.Error{File: r.in.Path, Record: r.record(), Field: field, Err: fmt.Errorf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.line, n.col
	}
	return e
}

func (r *benchReader) reject(table string, n *node, record, field, reason string) {
	rej := schemas.Rejection{Table: table, Record: record, Field: field, Reason: reason}
	if n != nil {
		rej.Line, rej.Column = n.line, n.col
	}
	r.sink.Reject(rej)
}

func (r *benchReader) flag(f string) {
	if !slices.Contains(r.flags, f) {
		r.flags = append(r.flags, f)
	}
}

// read reports the benchmark and returns the tool version it was written by.
func (r *benchReader) read() (string, error) {
	b := r.b
	if b.kind != kObject {
		return "", r.errAt(b, "", "expected a benchmark object, found %s", b.kind)
	}
	switch {
	case b.has("mode") && b.has("results"):
		r.gen = gen0
	case b.has("config") && (b.has("scheduler_state") || b.has("scheduler_metrics") || b.has("metrics")):
		switch v := r.top.at("metadata", "version").numOr(0); {
		case v == 1:
			r.gen = genC
		case v >= 2:
			r.gen = genD
		default:
			r.gen = genB
		}
	case b.has("args") || b.has("run_stats"):
		r.gen = genA
	default:
		return "", r.errAt(b, "", "not a GuideLLM benchmark (no mode/results, config or args/run_stats)")
	}
	switch r.gen {
	case gen0:
		r.method = stats.Linear
	case genA:
		// v0.2-v0.3 do not merge equal values (objects/statistics.py,
		// from_distribution_function); v0.4 on do (schemas/statistics.py).
		r.method = stats.NearestRankCumulativeUnmerged
	default:
		r.method = stats.NearestRankCumulative
	}
	version := ""
	switch r.gen {
	case gen0:
		version = "GuideLLM v0.1.x (report schema of that era)"
	case genA:
		version = "GuideLLM v0.2.0-v0.3.x (report schema of that era)"
	case genB:
		version = "GuideLLM v0.4.x (report without metadata)"
	default:
		v := r.top.at("metadata", "guidellm_version").str()
		if v == "" {
			v = "unknown"
		}
		version = fmt.Sprintf("GuideLLM %s (report schema version %s)", v, r.top.at("metadata", "version").scalar())
	}
	run := schemas.Run{
		ID: ingest.RunID("guidellm", r.in.SHA256(), r.index), Tool: "guidellm", ToolVersion: version, Format: "guidellm",
		SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(), SourceRecord: int64(r.index),
		Labels: map[string]string{"guidellm_schema": genNames[r.gen]},
	}
	var err error
	if r.gen == gen0 {
		err = r.readGen0(&run)
	} else {
		err = r.readModern(&run)
	}
	if err != nil {
		return "", err
	}
	slices.Sort(r.flags)
	run.Flags = r.flags
	for k, v := range run.Labels {
		if v == "" {
			delete(run.Labels, k)
		}
	}
	return version, r.sink.Run(&run)
}

// strategy sets the scenario and arrival of a rate type.
func strategy(run *schemas.Run, typ string, rate, streams, maxConc *node) {
	run.Labels["strategy"] = typ
	switch typ {
	case "synchronous":
		run.Scenario, run.Arrival, run.MaxConcurrency = schemas.ScenarioSingleStream, schemas.ArrivalClosedLoop, schemas.Some(int64(1))
	case "concurrent":
		run.Scenario, run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		if s := streams.numOr(0); s > 0 {
			run.MaxConcurrency = schemas.Some(int64(s))
		}
	case "throughput":
		if m := maxConc.numOr(0); m > 0 {
			run.Scenario, run.Arrival, run.MaxConcurrency = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop, schemas.Some(int64(m))
		} else {
			run.Scenario, run.Arrival, run.MaxConcurrency = schemas.ScenarioOffline, schemas.ArrivalAllAtOnce, schemas.Some(int64(0))
			run.RequestRate = schemas.Some(math.Inf(1))
		}
	case "constant", "poisson":
		run.Scenario, run.Arrival = schemas.ScenarioServer, schemas.ArrivalConstant
		if typ == "poisson" {
			run.Arrival = schemas.ArrivalPoisson
		}
		if v := rate.numOr(0); v > 0 {
			run.RequestRate = schemas.Some(v)
		}
		if m := maxConc.numOr(0); m > 0 {
			run.MaxConcurrency = schemas.Some(int64(m))
		}
	default: // trace replays recorded timestamps; unknown types
		run.Scenario, run.Arrival = schemas.ScenarioUnknown, schemas.ArrivalUnknown
		if typ == "trace" {
			run.Scenario = schemas.ScenarioServer
		}
	}
}

func unixTime(n *node) schemas.Opt[time.Time] {
	v, ok, err := n.num()
	if !ok || err != nil || !(v > 0) || math.IsInf(v, 0) {
		return schemas.Opt[time.Time]{}
	}
	t, ok := schemas.UnixSeconds(v)
	if !ok {
		return schemas.Opt[time.Time]{}
	}
	return schemas.Some(t)
}

// readModern reads a benchmark of generations A to D.
func (r *benchReader) readModern(run *schemas.Run) error {
	b, top := r.b, r.top
	var cfg *node
	if r.gen == genA {
		cfg = b.get("args")
	} else {
		cfg = b.get("config")
	}
	st := cfg.get("strategy")
	typ := st.get("type_").str()
	if typ == "" {
		typ = st.get("type").str()
	}
	strategy(run, typ, st.get("rate"), st.get("streams"), st.get("max_concurrency"))
	prof := cfg.get("profile")
	run.Labels["profile"] = prof.get("type_").str()
	if r.gen == genA {
		run.Labels["strategy_index"] = cfg.get("strategy_index").scalar()
		run.Labels["guidellm_benchmark_id"] = b.get("id_").str()
		run.Labels["guidellm_run_id"] = b.get("run_id").str()
		run.Labels["max_number"] = cfg.get("max_number").scalar()
		run.Labels["max_duration"] = cfg.get("max_duration").scalar()
		w := b.get("worker")
		run.Model, run.Backend = w.get("backend_model").str(), w.get("backend_type").str()
		run.Labels["target"] = w.get("backend_target").str()
		run.Tokenizer = b.at("request_loader", "processor").str()
		run.Labels["data"] = b.at("request_loader", "data").scalar()
		run.Labels["sample_requests"] = b.get("request_samples").scalar()
	} else {
		run.Labels["run_index"] = cfg.get("run_index").scalar()
		run.Labels["guidellm_benchmark_id"] = cfg.get("id_").str()
		run.Labels["guidellm_run_id"] = cfg.get("run_id").str()
		run.Model = firstStr(cfg.at("backend", "model"), top.at("args", "model"), top.at("config", "spec", "backend", "model"))
		run.Backend = firstStr(top.at("args", "backend"), top.at("config", "spec", "backend", "type_"), cfg.at("backend", "type_"))
		run.Labels["target"] = firstStr(cfg.at("backend", "target"), top.at("args", "target"), top.at("config", "spec", "backend", "target"))
		run.Endpoint = firstStr(top.at("args", "request_format"), top.at("config", "spec", "backend", "request_format"))
		run.Tokenizer = firstStr(top.at("args", "processor"), top.at("config", "spec", "data", "processor"))
		run.Labels["data"] = firstNonEmpty(cfg.at("requests", "data").scalar(), top.at("args", "data").scalar())
		sample := cfg.get("sample_requests")
		if r.gen == genD || sample == nil {
			sample = firstNode(cfg.get("sample_size"), sample)
		}
		run.Labels["sample_requests"] = sample.scalar()
		if c := cfg.get("constraints"); c != nil && c.kind == kObject {
			run.Labels["constraints"] = strings.Join(c.keys, ", ")
		}
		prefer := firstNode(cfg.get("prefer_response_metrics"), top.at("args", "prefer_response_metrics"))
		if prefer != nil && prefer.text == "true" {
			run.TokenSource = "server usage when the response reports it (prefer_response_metrics), else GuideLLM's own count"
		}
		for i, k := range top.at("config", "metadata", "labels").keysOrNil() {
			run.Labels["label "+k] = top.at("config", "metadata", "labels").vals[i].scalar()
		}
	}
	if run.Labels["profile"] == "sweep" {
		run.Labels["sweep_size"] = prof.get("sweep_size").scalar()
	}

	// Request totals.
	totals := b.get("request_totals")
	if r.gen != genA {
		totals = b.at("metrics", "request_totals")
	}
	var tot [3]schemas.Opt[int64] // successful, errored, incomplete
	for i, k := range []string{"successful", "errored", "incomplete"} {
		v, ok, err := totals.get(k).num()
		if err != nil || (ok && (v < 0 || v != math.Trunc(v))) {
			return r.errAt(totals.get(k), "request_totals."+k, "expected a non-negative integer")
		}
		if ok {
			tot[i] = schemas.Some(int64(v))
		}
	}
	run.Completed, run.Failed = tot[0], tot[1]
	if tot[2].OK {
		run.Labels["incomplete_requests"] = strconv.FormatInt(tot[2].V, 10)
	}
	if tot[0].OK && tot[1].OK && tot[2].OK {
		run.NumPrompts = schemas.Some(tot[0].V + tot[1].V + tot[2].V)
	}
	if tot[0].OK && tot[0].V == 0 {
		r.flag("no_successful_requests")
	}
	if d, ok, err := b.get("duration").num(); err == nil && ok && d >= 0 && !math.IsInf(d, 0) {
		run.DurationS = schemas.Some(d)
	}
	run.WindowStart, run.WindowEnd = unixTime(b.get("start_time")), unixTime(b.get("end_time"))
	if run.WindowStart.OK {
		run.Labels["window"] = "GuideLLM measurement window (after warm-up, before cool-down)"
	}
	if r.gen >= genB {
		if w := b.get("warmup_duration").numOr(0); w > 0 {
			run.Labels["warmup_duration_s"] = b.get("warmup_duration").scalar()
		}
		if c := b.get("cooldown_duration").numOr(0); c > 0 {
			run.Labels["cooldown_duration_s"] = b.get("cooldown_duration").scalar()
		}
	}

	if err := r.metrics(run); err != nil {
		return err
	}
	return r.requests(run, tot)
}

func (n *node) keysOrNil() []string {
	if n == nil || n.kind != kObject {
		return nil
	}
	return n.keys
}

func firstNode(ns ...*node) *node {
	for _, n := range ns {
		if !n.isNull() {
			return n
		}
	}
	return nil
}

func firstStr(ns ...*node) string {
	for _, n := range ns {
		if s := n.str(); s != "" {
			return s
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

// A distMap says which definition a GuideLLM distribution reports.
type distMap struct {
	key   string
	id    schemas.MetricID
	scale float64 // to the definition's unit
}

// distributions of latencies and token counts, per generation.
func (r *benchReader) distMaps() []distMap {
	if r.gen == genA {
		return []distMap{
			{"request_latency", schemas.E2E, 1}, {"time_to_first_token_ms", schemas.TTFT, 1e-3},
			{"inter_token_latency_ms", schemas.TPOTLastToken, 1e-3}, {"time_per_output_token_ms", schemas.DecodeTimePerOutputToken, 1e-3},
			{"prompt_token_count", schemas.InputTokens, 1}, {"output_token_count", schemas.OutputTokens, 1},
		}
	}
	return []distMap{
		{"request_latency", schemas.E2E, 1}, {"time_to_first_token_ms", schemas.TTFT, 1e-3}, {"time_to_first_output_token_ms", schemas.TTFTAnswer, 1e-3},
		{"inter_token_latency_ms", schemas.TPOTTokenWeighted, 1e-3}, {"time_per_output_token_ms", schemas.TPOTInclTTFTTokenWeighted, 1e-3},
		{"prompt_token_count", schemas.InputTokens, 1}, {"output_token_count", schemas.OutputTokens, 1},
	}
}

// rateMaps are distributions of which only the mean (an aggregate rate) is
// stored.
func (r *benchReader) rateMaps() []distMap {
	if r.gen == genA {
		return []distMap{{"requests_per_second", schemas.RequestThroughputSpan, 1},
			{"output_tokens_per_second", schemas.OutputTokenThroughputSpan, 1}, {"tokens_per_second", schemas.TotalTokenThroughputSpan, 1}}
	}
	return []distMap{{"requests_per_second", schemas.RequestThroughputMeasured, 1},
		{"output_tokens_per_second", schemas.OutputTokenThroughputTokenEvents, 1}, {"tokens_per_second", schemas.TotalTokenThroughputTokenEvents, 1}}
}

func (r *benchReader) emit(m schemas.Metric) error {
	if m.Source == schemas.SourceReported {
		r.reported = append(r.reported, m)
	}
	return r.sink.Metric(&m)
}

// value reads a statistic, rejecting a non-number or a negative latency.
func (r *benchReader) value(n *node, field string, nonNeg bool) (float64, bool) {
	v, ok, err := n.num()
	if err != nil {
		r.reject(schemas.TableMetrics, n, r.record(), field, err.Error())
		return 0, false
	}
	if !ok {
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.reject(schemas.TableMetrics, n, r.record(), field, "non-finite value "+n.text)
		return 0, false
	}
	if nonNeg && v < 0 {
		r.reject(schemas.TableMetrics, n, r.record(), field, "negative value "+n.text)
		return 0, false
	}
	return v, true
}

// metrics reads the benchmark's distribution summaries.
func (r *benchReader) metrics(run *schemas.Run) error {
	ms := r.b.get("metrics")
	if ms == nil {
		return nil
	}
	if ms.kind != kObject {
		return r.errAt(ms, "metrics", "expected an object, found %s", ms.kind)
	}
	base := schemas.Metric{RunID: run.ID, Source: schemas.SourceReported}
	for _, dm := range r.distMaps() {
		d := ms.at(dm.key, "successful")
		if d == nil || d.kind != kObject {
			continue
		}
		field := "metrics." + dm.key + ".successful"
		cnt, ok := r.value(d.get("count"), field+".count", true)
		if !ok || cnt == 0 {
			continue // no data
		}
		def := schemas.MustLookup(dm.id)
		m := base
		m.MetricID, m.Unit, m.N = dm.id, def.Unit, schemas.Some(int64(math.Round(cnt)))
		add := func(stat, method, key string, pct float64) error {
			n := d.get(key)
			if pct > 0 {
				n = d.at("percentiles", key)
			}
			f := field + "." + key
			if pct > 0 {
				f = field + ".percentiles." + key
			}
			v, ok := r.value(n, f, true)
			if !ok {
				return nil
			}
			row := m
			row.Stat, row.Method, row.Value = stat, method, schemas.Some(v*dm.scale)
			row.NativeName = dm.key + ".successful." + key
			if pct > 0 {
				row.Percentile = schemas.Some(pct)
				row.NativeName = dm.key + ".successful.percentiles." + key
			}
			return r.emit(row)
		}
		for _, s := range []struct{ stat, method, key string }{
			{schemas.StatMean, "arithmetic", "mean"}, {schemas.StatMedian, string(r.method), "median"},
			{schemas.StatStd, "population", "std_dev"}, {schemas.StatMin, "", "min"}, {schemas.StatMax, "", "max"},
		} {
			if err := add(s.stat, s.method, s.key, 0); err != nil {
				return err
			}
		}
		for _, pk := range pctKeys {
			if err := add(schemas.StatP, string(r.method), pk.key, pk.p); err != nil {
				return err
			}
		}
		if def.Unit == schemas.UnitTokens {
			if err := add(schemas.StatSum, "", "total_sum", 0); err != nil {
				return err
			}
		}
	}
	for _, dm := range r.rateMaps() {
		d := ms.at(dm.key, "successful")
		if d == nil {
			continue
		}
		field := "metrics." + dm.key + ".successful.mean"
		v, ok := r.value(d.get("mean"), field, true)
		if !ok || d.get("count").numOr(0) == 0 {
			continue
		}
		m := base
		m.MetricID, m.Stat, m.Unit, m.Value, m.NativeName = dm.id, schemas.StatValue, schemas.MustLookup(dm.id).Unit, schemas.Some(v), dm.key+".successful.mean"
		if r.gen == genA {
			m.Note = "mean of GuideLLM's rate distribution: the amount at the last event is not counted"
		}
		if err := r.emit(m); err != nil {
			return err
		}
	}
	if d := ms.at("request_concurrency", "successful"); d != nil && d.get("count").numOr(0) > 0 {
		for _, s := range []struct{ stat, key, method string }{{schemas.StatMean, "mean", "time-weighted"}, {schemas.StatMax, "max", ""}} {
			v, ok := r.value(d.get(s.key), "metrics.request_concurrency.successful."+s.key, true)
			if !ok {
				continue
			}
			m := base
			m.MetricID, m.Stat, m.Method, m.Unit, m.Value, m.NativeName = schemas.ConcurrencyInFlight, s.stat, s.method, schemas.UnitRequests, schemas.Some(v), "request_concurrency.successful."+s.key
			if err := r.emit(m); err != nil {
				return err
			}
		}
	}
	return nil
}
