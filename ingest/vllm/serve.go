package vllm

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// runReader turns one run object into a run, its metric rows and its
// request rows.
type runReader struct {
	in   *ingest.Input
	sink ingest.Sink
	rec  *record
	run  schemas.Run
	used map[string]bool
	era  era
	// reported statistics, for comparison with recomputed ones
	reported []schemas.Metric
}

func (r *runReader) recordName() string { return fmt.Sprintf("run %d", r.rec.index) }

func (r *runReader) errAt(v value, field string, format string, args ...any) error {
	return &ingest.Error{File: r.in.Path, Line: v.pos.Line, Column: v.pos.Col, Record: r.recordName(), Field: field,
		Err: fmt.Errorf(format, args...)}
}

func (r *runReader) use(key string) (value, bool) {
	if r.used == nil {
		r.used = map[string]bool{}
	}
	r.used[key] = true
	return r.rec.get(key)
}

// num reads a numeric member; absent and null are unknown.
func (r *runReader) num(key string) (schemas.Opt[float64], error) {
	v, ok := r.use(key)
	if !ok || v.kind == jsonscan.Null {
		return schemas.Opt[float64]{}, nil
	}
	if v.kind != jsonscan.Number {
		return schemas.Opt[float64]{}, r.errAt(v, key, "expected a number, found %s", describe(v))
	}
	f, err := jsonscan.Float([]byte(v.text))
	if err != nil {
		return schemas.Opt[float64]{}, r.errAt(v, key, "bad number %q", v.text)
	}
	return schemas.Some(f), nil
}

// count reads a non-negative integer member.
func (r *runReader) count(key string) (schemas.Opt[int64], error) {
	v, ok := r.use(key)
	if !ok || v.kind == jsonscan.Null {
		return schemas.Opt[int64]{}, nil
	}
	if v.kind != jsonscan.Number {
		return schemas.Opt[int64]{}, r.errAt(v, key, "expected an integer, found %s", describe(v))
	}
	n, err := jsonscan.Int([]byte(v.text))
	if err != nil {
		return schemas.Opt[int64]{}, r.errAt(v, key, "expected an integer: %v", err)
	}
	if n < 0 {
		return schemas.Opt[int64]{}, r.errAt(v, key, "negative count %d", n)
	}
	return schemas.Some(n), nil
}

// str reads a string member; absent and null are "".
func (r *runReader) str(key string) (string, error) {
	v, ok := r.use(key)
	if !ok || v.kind == jsonscan.Null {
		return "", nil
	}
	if v.kind != jsonscan.String {
		return "", r.errAt(v, key, "expected a string, found %s", describe(v))
	}
	return v.text, nil
}

func describe(v value) string {
	switch v.kind {
	case jsonscan.String:
		return fmt.Sprintf("the string %q", truncate(v.text))
	case jsonscan.Number:
		return "the number " + v.text
	case jsonscan.BeginArray:
		return fmt.Sprintf("an array of %d elements", v.n)
	case jsonscan.BeginObject:
		return "an object"
	}
	return v.kind.String()
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// statKey matches vLLM's per-metric statistic keys.
var statKey = regexp.MustCompile(`^(mean|median|std|p(\d+(?:\.\d+)?))_(ttft|tpot|itl|e2el|client_queue_time|e2el_including_client_queue)_ms$`)

var statMetric = map[string]schemas.MetricID{
	"ttft": schemas.TTFT, "tpot": schemas.TPOT, "itl": schemas.ITLChunk, "e2el": schemas.E2E,
	"client_queue_time": schemas.ClientQueue, "e2el_including_client_queue": schemas.E2EInclClientQueue,
}

// Keys vLLM writes that verdict keeps as labels rather than as metrics or
// run fields: sampling parameters, spec-decode counters, probe and
// diffusion extras, sweep numbering. They draw no warning.
var labelKeys = map[string]bool{
	"label": true, "version": true, "best_of": true, "use_beam_search": true, "run_number": true,
	"rps_change_events": true, "spec_decode_num_drafts": true, "spec_decode_draft_tokens": true,
	"spec_decode_accepted_tokens": true, "spec_decode_per_position_acceptance_rates": true,
	"probe_completed": true, "probe_failed": true, "probe_median_e2el_ms": true, "probe_p99_e2el_ms": true,
	"probe_max_e2el_ms": true, "diffusion_committed_throughput": true, "diffusion_steps_per_canvas": true,
	"diffusion_committed_per_step": true, "diffusion_committed_tokens": true, "diffusion_denoising_steps": true,
	"diffusion_canvas_positions": true, "total_input_sequences": true, "input_sequence_throughput": true,
	"max_model_len": true, "steady_state": true,
}

// per-request array keys.
var arrayKeys = []string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times", "generated_texts", "errors"}

func (r *runReader) serve() (string, error) {
	rec := r.rec
	r.era = eraOf(rec)
	date, err := r.str("date")
	if err != nil {
		return "", err
	}
	run := schemas.Run{
		ID: ingest.RunID("vllm", r.in.SHA256(), rec.index), Tool: "vllm", Format: kindServe,
		ToolVersion: r.era.describe(date), SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(),
		SourceRecord: int64(rec.index), ToolDate: date, WindowKind: schemas.WindowKindDispatch,
		Labels: map[string]string{},
	}
	flag := func(f string) { run.Flags = append(run.Flags, f) }
	for _, k := range rec.dups {
		r.sink.Warn(fmt.Sprintf("%s: key %q appears more than once; the last value is used", r.recordName(), k))
	}

	backend, err := r.str("backend")
	if err != nil {
		return "", err
	}
	endpointType, err := r.str("endpoint_type")
	if err != nil {
		return "", err
	}
	if backend == "" {
		backend = endpointType
	}
	run.Backend = backend
	if run.Model, err = r.str("model_id"); err != nil {
		return "", err
	}
	if run.Tokenizer, err = r.str("tokenizer_id"); err != nil {
		return "", err
	}
	if run.NumPrompts, err = r.count("num_prompts"); err != nil {
		return "", err
	}
	if run.Completed, err = r.count("completed"); err != nil {
		return "", err
	}
	if run.Failed, err = r.count("failed"); err != nil {
		return "", err
	}
	if !run.Failed.OK && run.NumPrompts.OK && run.Completed.OK && run.NumPrompts.V >= run.Completed.V {
		run.Failed = schemas.Some(run.NumPrompts.V - run.Completed.V)
		flag("failed_derived_from_num_prompts")
	}
	if run.DurationS, err = r.num("duration"); err != nil {
		return "", err
	}
	if d := run.DurationS; d.OK && !(d.V >= 0 && !math.IsInf(d.V, 0)) {
		v, _ := r.rec.get("duration")
		return "", r.errAt(v, "duration", "duration must be a finite non-negative number of seconds, found %s", v.text)
	}
	noData := run.Completed.OK && run.Completed.V == 0
	if noData {
		flag("no_successful_requests")
	}

	// Arrival process.
	if err := r.arrival(&run); err != nil {
		return "", err
	}

	// Version-dependent semantics.
	tpotID := schemas.TPOT
	switch {
	case rec.has("request_inthroughput") || r.era.before("2024-03-27"):
		tpotID = schemas.TPOTInclTTFT
		flag("tpot_includes_ttft")
	case !r.era.since("2024-03-27") && rec.has("mean_tpot_ms"):
		flag("tpot_definition_uncertain")
	}
	switch {
	case r.era.before("2025-01-21"):
		run.TokenSource = "output: client tokenizer; input: client tokenizer"
		flag("e2e_ends_at_done_event")
	case r.era.since("2026-04-14"):
		run.TokenSource = "output: server usage; input: server usage"
	case r.era.since("2025-01-21"):
		run.TokenSource = "output: server usage; input: client tokenizer"
	}
	swapE2E := false
	if rec.has("mean_e2el_ms") {
		switch {
		case r.era.within("2024-08-29", "2024-11-05"):
			swapE2E = true
			flag("e2el_mean_median_swapped_corrected")
		case !r.era.since("2024-11-05") && !r.era.before("2024-08-29"):
			flag("e2el_mean_median_may_be_swapped")
		}
	}
	if r.era.within("2024-06-28", "2024-08-10") {
		flag("itl_may_include_ttft")
	}

	// Streaming: vLLM writes TTFT 0 for requests that did not stream.
	if !noData {
		if v, ok := rec.get("mean_ttft_ms"); ok && v.kind == jsonscan.Number {
			f, _ := jsonscan.Float([]byte(v.text))
			run.Streaming = schemas.Some(f > 0)
		}
	}

	// Run-level rates and statistics.
	if err := r.runMetrics(&run, tpotID, noData, swapE2E); err != nil {
		return "", err
	}

	// Labels: known label keys, --metadata strings, sweep parameters.
	for _, m := range rec.members {
		if r.used[m.key] || statKey.MatchString(m.key) || isArrayKey(m.key) || m.val.kind == jsonscan.Null {
			continue
		}
		text, warn := labelText(m.val)
		run.Labels[m.key] = text
		if !labelKeys[m.key] && warn {
			r.sink.Warn(fmt.Sprintf("%s: unknown key %q (%s) kept as a label", r.recordName(), m.key, describe(m.val)))
		}
	}

	// Per-request arrays.
	req, err := r.requests(&run, tpotID, noData)
	if err != nil {
		return "", err
	}
	if req.n > 0 {
		if !rec.has("latencies") {
			flag("e2e_derived_from_ttft_plus_itls")
		}
		if req.itlHasTTFT {
			flag("itl_includes_ttft")
		}
	}
	sort.Strings(run.Flags)
	if len(run.Labels) == 0 {
		run.Labels = nil
	}
	r.run = run
	return run.ToolVersion, r.sink.Run(&run)
}

func isArrayKey(k string) bool {
	for _, a := range arrayKeys {
		if a == k {
			return true
		}
	}
	return false
}

// labelText renders a member as a label value. Strings are the normal case
// (--metadata values are always strings); anything else is rendered as
// its JSON text and reported.
func labelText(v value) (string, bool) {
	switch v.kind {
	case jsonscan.String:
		return v.text, false
	case jsonscan.Number:
		return v.text, true
	case jsonscan.True:
		return "true", true
	case jsonscan.False:
		return "false", true
	case jsonscan.Null:
		return "", false
	case jsonscan.BeginArray:
		return fmt.Sprintf("[array of %d]", v.n), true
	case jsonscan.BeginObject:
		parts := make([]string, 0, len(v.obj))
		for _, m := range v.obj {
			t, _ := labelText(m.val)
			parts = append(parts, m.key+"="+t)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", true
}

// arrival fills the run's scenario and arrival process.
func (r *runReader) arrival(run *schemas.Run) error {
	rate, ok := r.use("request_rate")
	switch {
	case !ok || rate.kind == jsonscan.Null:
	case rate.kind == jsonscan.String && strings.EqualFold(rate.text, "inf"):
		run.RequestRate = schemas.Some(math.Inf(1))
	case rate.kind == jsonscan.Number:
		f, err := jsonscan.Float([]byte(rate.text))
		if err != nil || f <= 0 || math.IsNaN(f) {
			return r.errAt(rate, "request_rate", "expected a positive rate or \"inf\", found %s", rate.text)
		}
		run.RequestRate = schemas.Some(f)
	default:
		return r.errAt(rate, "request_rate", "expected a number or \"inf\", found %s", describe(rate))
	}
	b, err := r.num("burstiness")
	if err != nil {
		return err
	}
	run.Burstiness = b
	mc, hasMC := r.use("max_concurrency")
	switch {
	case hasMC && mc.kind == jsonscan.Null:
		run.MaxConcurrency = schemas.Some(int64(0)) // no limit
	case hasMC:
		n, err := r.count("max_concurrency")
		if err != nil {
			return err
		}
		run.MaxConcurrency = n
	case r.era.before("2024-10-18"):
		run.MaxConcurrency = schemas.Some(int64(0)) // the option did not exist yet
	}
	strategy, err := r.str("ramp_up_strategy")
	if err != nil {
		return err
	}
	if strategy != "" {
		lo, err := r.num("ramp_up_start_rps")
		if err != nil {
			return err
		}
		hi, err := r.num("ramp_up_end_rps")
		if err != nil {
			return err
		}
		run.RampUp = fmt.Sprintf("%s %s->%s req/s", strategy, fmtOpt(lo), fmtOpt(hi))
		run.Scenario, run.Arrival = schemas.ScenarioServer, schemas.ArrivalRampUp
		return nil
	}
	limited := run.MaxConcurrency.OK && run.MaxConcurrency.V > 0
	switch {
	case !run.RequestRate.OK:
		run.Scenario, run.Arrival = schemas.ScenarioUnknown, schemas.ArrivalUnknown
	case math.IsInf(run.RequestRate.V, 1) && limited:
		run.Scenario, run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		if run.MaxConcurrency.V == 1 {
			run.Scenario = schemas.ScenarioSingleStream
		}
	case math.IsInf(run.RequestRate.V, 1):
		run.Scenario, run.Arrival = schemas.ScenarioOffline, schemas.ArrivalAllAtOnce
		if !run.MaxConcurrency.OK {
			run.Scenario = schemas.ScenarioUnknown // a concurrency limit may have applied
		}
	default:
		run.Scenario = schemas.ScenarioServer
		switch {
		case !b.OK && r.era.before("2024-11-07"), b.OK && b.V == 1:
			run.Arrival = schemas.ArrivalPoisson
		case b.OK && math.IsInf(b.V, 1):
			run.Arrival = schemas.ArrivalConstant
		case b.OK:
			run.Arrival = schemas.ArrivalGamma
		default:
			run.Arrival = schemas.ArrivalUnknown
		}
	}
	return nil
}

func fmtOpt(o schemas.Opt[float64]) string {
	if !o.OK {
		return "?"
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

// rate keys: native name -> metric ID. Later names win when both appear.
var rateKeys = []struct {
	key string
	id  schemas.MetricID
}{
	{"request_inthroughput", schemas.RequestThroughput},
	{"request_throughput", schemas.RequestThroughput},
	{"request_goodput:", schemas.Goodput},
	{"request_goodput", schemas.Goodput},
	{"input_throughput", schemas.InputTokenThroughput},
	{"output_throughput", schemas.OutputTokenThroughput},
	{"total_token_throughput", schemas.TotalTokenThroughput},
	{"max_output_tokens_per_s", schemas.PeakChunkRate1s},
	{"max_concurrent_requests", schemas.PeakConcurrency1s},
	{"spec_decode_acceptance_rate", schemas.SpecDecodeAcceptanceRate},
	{"spec_decode_acceptance_length", schemas.SpecDecodeAcceptanceLength},
	{"rtfx", schemas.RTFX},
}

// runMetrics emits the run-level rates and the per-metric statistics.
func (r *runReader) runMetrics(run *schemas.Run, tpotID schemas.MetricID, noData, swapE2E bool) error {
	base := schemas.Metric{RunID: run.ID, Source: schemas.SourceReported}
	for _, rk := range rateKeys {
		v, ok := r.use(rk.key)
		if !ok {
			continue
		}
		id := rk.id
		if id == schemas.PeakConcurrency1s && r.era.since("2026-09-13") {
			id = schemas.PeakConcurrency
		}
		m := base
		m.MetricID, m.Stat, m.NativeName, m.Unit = id, schemas.StatValue, rk.key, schemas.MustLookup(id).Unit
		switch v.kind {
		case jsonscan.Null:
			m.Note = "the tool wrote null (not measured)"
		case jsonscan.Number:
			f, _ := jsonscan.Float([]byte(v.text))
			switch {
			case math.IsNaN(f) || math.IsInf(f, 0):
				m.Note = "the tool wrote " + v.text
			case f < 0:
				r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: v.pos.Line, Column: v.pos.Col,
					Record: r.recordName(), Field: rk.key, Reason: "negative rate"})
				continue
			case noData && id != schemas.SpecDecodeAcceptanceRate && id != schemas.SpecDecodeAcceptanceLength:
				m.Note = "no successful requests: the tool's 0 means no data"
			case id == schemas.RTFX && f == 0:
				m.Note = "0 for runs without audio input"
			case id == schemas.SpecDecodeAcceptanceRate:
				m.Value = schemas.Some(f / 100) // percent -> ratio
			default:
				m.Value = schemas.Some(f)
			}
		default:
			r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: v.pos.Line, Column: v.pos.Col,
				Record: r.recordName(), Field: rk.key, Reason: "expected a number, found " + describe(v)})
			continue
		}
		if err := r.emit(m); err != nil {
			return err
		}
	}
	for _, s := range []struct {
		key string
		id  schemas.MetricID
	}{{"total_input_tokens", schemas.InputTokens}, {"total_output_tokens", schemas.OutputTokens}} {
		n, err := r.count(s.key)
		if err != nil {
			return err
		}
		if !n.OK {
			continue
		}
		m := base
		m.MetricID, m.Stat, m.NativeName, m.Unit = s.id, schemas.StatSum, s.key, schemas.UnitTokens
		m.Value = schemas.Some(float64(n.V))
		m.N = run.Completed
		if noData {
			m.Value, m.Note = schemas.Opt[float64]{}, "no successful requests"
		}
		if err := r.emit(m); err != nil {
			return err
		}
	}

	// Per-metric statistics, in file order.
	e2eIdx := map[string]int{}
	var rows []schemas.Metric
	for _, mem := range r.rec.members {
		g := statKey.FindStringSubmatch(mem.key)
		if g == nil {
			continue
		}
		id := statMetric[g[3]]
		if id == schemas.TPOT {
			id = tpotID
		}
		m := base
		m.MetricID, m.NativeName, m.Unit = id, mem.key, schemas.UnitSeconds
		switch {
		case g[1] == "mean":
			m.Stat, m.Method = schemas.StatMean, "arithmetic"
		case g[1] == "median":
			m.Stat, m.Method = schemas.StatMedian, string(stats.Linear)
		case g[1] == "std":
			m.Stat, m.Method = schemas.StatStd, "population"
		default:
			p, _ := strconv.ParseFloat(g[2], 64)
			m.Stat, m.Method, m.Percentile = schemas.StatP, string(stats.Linear), schemas.Some(p)
		}
		v := mem.val
		switch v.kind {
		case jsonscan.Number:
			f, _ := jsonscan.Float([]byte(v.text))
			switch {
			case math.IsNaN(f):
				m.Note = "the tool wrote NaN (no data)"
			case math.IsInf(f, 0) || f < 0:
				r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: v.pos.Line, Column: v.pos.Col,
					Record: r.recordName(), Field: mem.key, Reason: "latency statistic must be finite and non-negative, found " + v.text})
				continue
			case noData:
				m.Note = "no successful requests: the tool's 0 means no data"
			case run.Streaming.OK && !run.Streaming.V && (id == schemas.TTFT || id == schemas.ITLChunk || id == tpotID):
				m.Note = "not streamed: the tool's value is not a streaming measurement"
			default:
				m.Value = schemas.Some(f / 1000) // ms -> s
			}
		case jsonscan.Null:
			m.Note = "the tool wrote null"
		default:
			r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: v.pos.Line, Column: v.pos.Col,
				Record: r.recordName(), Field: mem.key, Reason: "expected a number, found " + describe(v)})
			continue
		}
		if id == schemas.E2E && (m.Stat == schemas.StatMean || m.Stat == schemas.StatMedian) {
			e2eIdx[m.Stat] = len(rows)
		}
		rows = append(rows, m)
	}
	if swapE2E {
		mi, okm := e2eIdx[schemas.StatMean]
		di, okd := e2eIdx[schemas.StatMedian]
		if okm && okd {
			rows[mi].Value, rows[di].Value = rows[di].Value, rows[mi].Value
			rows[mi].Note = "the file's mean and median were swapped (vLLM bug of 2024-08-29..2024-11-04); corrected"
			rows[di].Note = rows[mi].Note
		}
	}
	for _, m := range rows {
		if err := r.emit(m); err != nil {
			return err
		}
	}
	return nil
}

func (r *runReader) emit(m schemas.Metric) error {
	if m.Source == schemas.SourceReported {
		r.reported = append(r.reported, m)
	}
	return r.sink.Metric(&m)
}
