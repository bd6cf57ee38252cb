package genaiperf

import (
	"fmt"
	"math"
	"sort"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// A summary is a profile_export_genai_perf.json: the main run and, for
// multi-turn runs, one run per session.
type summary struct {
	main     *runState
	sessions []*runState
}

func (s *summary) emitRuns(sink ingest.Sink) error {
	if err := s.main.emitRun(sink); err != nil {
		return err
	}
	for _, rs := range s.sessions {
		if err := rs.emitRun(sink); err != nil {
			return err
		}
	}
	return nil
}

// target is what a metric block maps to.
type target struct {
	id  schemas.MetricID
	avg string // the statistic "avg" is
}

// summaryTarget maps a processed-export key to its definition under the
// versions vs.
func summaryTarget(key string, vs versions) (target, bool) {
	switch key {
	case "request_throughput":
		return target{schemas.RequestThroughputSpanAll, schemas.StatValue}, true
	case "request_goodput":
		return target{schemas.GoodputSpan, schemas.StatValue}, true
	case "request_latency":
		return target{schemas.E2E, schemas.StatMean}, true
	case "time_to_first_token":
		return target{schemas.TTFTAnswer, schemas.StatMean}, true
	case "time_to_second_token":
		return target{schemas.TTSTAnswer, schemas.StatMean}, true
	case "inter_token_latency":
		if vs.within("0.0.1", "0.0.3") {
			return target{schemas.ITLChunkPerToken, schemas.StatMean}, true
		}
		return target{schemas.TPOTAnswer, schemas.StatMean}, true
	case "output_token_throughput":
		return target{schemas.OutputTokenThroughputSpanAnswer, schemas.StatValue}, true
	case "output_token_throughput_per_user":
		return target{schemas.OutputTokenRatePerUserAnswer, schemas.StatMean}, true
	case "output_token_throughput_per_request":
		return target{schemas.E2EOutputTokenRateAnswer, schemas.StatMean}, true
	case "output_sequence_length", "num_output_token":
		return target{schemas.AnswerTokens, schemas.StatMean}, true
	case "input_sequence_length", "num_input_token":
		return target{schemas.InputTokens, schemas.StatMean}, true
	}
	return target{}, false
}

// streamingOnly are the metrics a non-streaming run cannot measure.
var streamingOnly = map[schemas.MetricID]bool{schemas.TTFTAnswer: true, schemas.TTSTAnswer: true, schemas.TPOTAnswer: true,
	schemas.ITLChunkPerToken: true, schemas.OutputTokenRatePerUserAnswer: true}

var timeKeys = []string{"request_latency", "time_to_first_token", "time_to_second_token", "inter_token_latency"}

// layout narrows the version from the document's keys and units.
func (rs *runState) layout(root *jtree.Node) {
	for _, k := range timeKeys {
		switch u, _ := root.Path(k, "unit").Str(); u {
		case "ns":
			rs.vs.since("0.0.3") // the JSON export appeared in 0.0.3
			rs.vs.until("0.0.3")
		case "ms":
			rs.vs.since("0.0.4")
		}
	}
	if root.Has("num_output_token") || root.Has("num_input_token") {
		rs.vs.since("0.0.3")
		rs.vs.until("0.0.3")
	}
	if root.Has("output_sequence_length") || root.Has("input_sequence_length") {
		rs.vs.since("0.0.4")
	}
	if root.Has("request_goodput") {
		rs.vs.since("0.0.6")
	}
	if root.Has("time_to_second_token") || root.Has("request_count") {
		rs.vs.since("0.0.10")
	} else if u, _ := root.Path("request_latency", "unit").Str(); u == "ms" {
		rs.vs.until("0.0.9") // request_count is written whenever a request had content
	}
	if root.Has("sessions") {
		rs.vs.since("0.0.11")
	}
	if root.Has("output_token_throughput_per_request") {
		rs.vs.until("0.0.12")
	}
	if root.Has("output_token_throughput_per_user") {
		rs.vs.since("0.0.13")
	}
	if lat := root.Get("request_latency"); lat.Has("p25") {
		if lat.Has("p1") {
			rs.vs.since("0.0.14")
		} else {
			rs.vs.until("0.0.13")
		}
	}
}

// readSummary reads a profile_export_genai_perf.json.
func readSummary(in *ingest.Input, sink ingest.Sink) (*summary, error) {
	root, err := jtree.ParseObject(in, sink)
	if err != nil {
		return nil, err
	}
	return summaryFrom(in, root, sink)
}

func summaryFrom(in *ingest.Input, root *jtree.Node, sink ingest.Sink) (*summary, error) {
	rs := newRunState(in, 0, kindSummary)
	rs.layout(root)
	rs.config(root.Get("input_config"), sink)
	if !root.Has("input_config") {
		sink.Warn(fmt.Sprintf("%s: no input_config; streaming and load are inferred from the metrics present", in.Path))
	}
	if err := rs.scalars(in.Path, root); err != nil {
		return nil, err
	}
	if !rs.streamSet {
		rs.inferStreaming(root)
	}
	if root.Has("request_goodput") && rs.goodput == "" {
		rs.goodput = "(not recorded)"
	}
	rs.settle(sink)
	if err := rs.blocks(in.Path, root, sink); err != nil {
		return nil, err
	}
	if t := root.Get("telemetry_stats"); t.IsObject() {
		gpus := map[string]bool{}
		for _, m := range t.Fields() {
			for _, g := range m.Val.Fields() {
				if g.Val.IsObject() {
					gpus[g.Key] = true
				}
			}
		}
		sink.Warn(fmt.Sprintf("%s: telemetry_stats (summaries of %d GPU metrics on %d GPUs over the whole perf_analyzer run) are not ingested: the samples table holds per-sample readings, which GenAI-Perf does not export",
			in.Path, len(t.Fields()), len(gpus)))
	}
	s := &summary{main: rs}
	if sess := root.Get("sessions"); sess.IsObject() {
		for i, m := range sess.Fields() {
			sr := newRunState(in, 1+i, kindSummary)
			sr.record = "session " + m.Key
			base := rs.run
			sr.run.Model, sr.run.Backend, sr.run.Endpoint, sr.run.Tokenizer = base.Model, base.Backend, base.Endpoint, base.Tokenizer
			sr.run.Streaming, sr.run.Scenario, sr.run.Arrival, sr.run.MaxConcurrency = base.Streaming, base.Scenario, base.Arrival, base.MaxConcurrency
			sr.run.Labels["session_id"] = m.Key
			sr.run.Labels["session_of"] = base.ID
			sr.vs, sr.run.Flags, sr.streamSet = rs.vs, append([]string(nil), rs.run.Flags...), true
			sr.run.ToolVersion = rs.run.ToolVersion
			if !m.Val.IsObject() {
				return nil, jtree.ErrorAt(in.Path, m.Val, sr.record, "sessions."+m.Key, "expected an object of metric blocks, found %s", m.Val.Describe())
			}
			if err := sr.scalars(in.Path, m.Val); err != nil {
				return nil, err
			}
			if err := sr.blocks(in.Path, m.Val, sink); err != nil {
				return nil, err
			}
			s.sessions = append(s.sessions, sr)
		}
	}
	return s, nil
}

// scalars reads the values that become run fields rather than metric rows.
func (rs *runState) scalars(path string, root *jtree.Node) error {
	if rc := root.Get("request_count"); rc != nil {
		v := rc.Get("avg")
		f, ok := v.Float()
		if !ok || f < 0 || f != math.Trunc(f) {
			if !v.IsNull() {
				return jtree.ErrorAt(path, v, rs.record, "request_count.avg", "expected a non-negative whole number, found %s", v.Describe())
			}
		} else {
			rs.reqCount = schemas.Some(int64(f))
			rs.run.Completed = rs.reqCount
		}
	}
	if f, ok := root.Path("output_sequence_length", "avg").Float(); ok {
		rs.osl = schemas.Some(f)
	} else if f, ok := root.Path("num_output_token", "avg").Float(); ok {
		rs.osl = schemas.Some(f)
	}
	if f, ok := root.Path("output_token_throughput", "avg").Float(); ok && f > 0 {
		rs.outThru = schemas.Some(f)
	}
	// GenAI-Perf does not write its benchmark duration; OSL mean x request
	// count / output throughput recovers it exactly (0.0.10+).
	if rs.reqCount.OK && rs.osl.OK && rs.outThru.OK && rs.reqCount.V > 0 {
		rs.run.DurationS = schemas.Some(rs.osl.V * float64(rs.reqCount.V) / rs.outThru.V)
		rs.flag("duration_derived")
	}
	return nil
}

// inferStreaming decides streaming from the metrics when the configuration
// does not say: streaming-only metrics mean it streamed; a TTFT block equal
// to the latency block means one response per request.
func (rs *runState) inferStreaming(root *jtree.Node) {
	if root.Has("inter_token_latency") || root.Has("time_to_second_token") || root.Has("output_token_throughput_per_user") {
		rs.run.Streaming = schemas.Some(true)
		rs.flag("streaming_inferred")
		return
	}
	ttft, lat := root.Get("time_to_first_token"), root.Get("request_latency")
	if ttft.IsObject() && lat.IsObject() && sameBlock(ttft, lat) {
		rs.run.Streaming = schemas.Some(false)
		rs.flag("streaming_inferred")
	}
}

func sameBlock(a, b *jtree.Node) bool {
	if len(a.Fields()) != len(b.Fields()) {
		return false
	}
	for _, m := range a.Fields() {
		o := b.Get(m.Key)
		if o == nil || o.Kind != m.Val.Kind || o.Text != m.Val.Text {
			return false
		}
	}
	return true
}

// blocks emits the metric blocks of an object (the document or a session).
func (rs *runState) blocks(path string, root *jtree.Node, sink ingest.Sink) error {
	notStreamed := rs.run.Streaming.OK && !rs.run.Streaming.V
	seen := map[string]bool{}
	for _, m := range root.Fields() {
		if seen[m.Key] {
			continue
		}
		seen[m.Key] = true
		b := root.Get(m.Key) // the last occurrence, as Python reads it
		switch m.Key {
		case "input_config", "sessions", "telemetry_stats", "request_count":
			continue
		}
		t, ok := summaryTarget(m.Key, rs.vs)
		if !ok {
			if b.IsObject() && b.Has("unit") {
				jtree.RejectBlock(sink, b, rs.record, m.Key, "no verdict definition for GenAI-Perf metric "+m.Key)
			} else {
				sink.Warn(fmt.Sprintf("%s: %s: unknown key %q (%s) ignored", path, rs.record, m.Key, b.Describe()))
			}
			continue
		}
		if !b.IsObject() {
			if b.IsNull() {
				continue
			}
			return jtree.ErrorAt(path, b, rs.record, m.Key, "expected a metric block, found %s", b.Describe())
		}
		def := schemas.MustLookup(t.id)
		unit, _ := b.Get("unit").Str()
		sc, ok := jtree.UnitScale(unit)
		if !ok || !jtree.Fits(sc.Unit, def.Unit) {
			jtree.RejectBlock(sink, b, rs.record, m.Key, fmt.Sprintf("unit %q does not fit %s (%s)", unit, t.id, def.Unit))
			continue
		}
		spec := jtree.Spec{RunID: rs.run.ID, MetricID: t.id, Native: m.Key, Div: sc.Div, AvgStat: t.avg,
			Record: rs.record, Note: rs.oslNote(t.id)}
		if t.id == schemas.AnswerTokens || t.id == schemas.InputTokens || t.id == schemas.E2E || t.id == schemas.E2EOutputTokenRateAnswer {
			spec.N = rs.reqCount
		}
		if notStreamed && streamingOnly[t.id] {
			spec.NotMeasured = "not measured: the run did not stream (GenAI-Perf writes the request latency here)"
		}
		unknown, err := jtree.Emit(sink, b, spec, func(x *schemas.Metric) error { return rs.emit(sink, x) })
		if err != nil {
			return err
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			sink.Warn(fmt.Sprintf("%s: %s: %s: unknown statistics %v ignored", path, rs.record, m.Key, unknown))
		}
	}
	return nil
}
