package genaiperf

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// The raw profile_export.json is written by perf_analyzer as one line of
// compact JSON that can run to gigabytes:
//
//	{"experiments": [{"experiment": {"mode", "value"}, "requests": [{"timestamp",
//	  "request_inputs", "response_timestamps", "response_outputs"}], "window_boundaries"}],
//	 "version", "service_kind", "endpoint"}
//
// It is streamed: each request becomes a request row as soon as it is
// read, and the runs (one per experiment) are reported at the end, once
// the trailing version and service kind are known. Timestamps are
// nanoseconds since the Unix epoch, read as integers.

type rawReader struct {
	ctx  context.Context
	in   *ingest.Input
	sink ingest.Sink
	// base, when set, is the processed export's run: the first experiment
	// is the same run and its requests and recomputed statistics join it.
	base *runState

	exps                  []*rawExp
	paVersion, kind, endp string
}

// respInfo is what one perf_analyzer response carried.
type respInfo struct {
	answer, reasoning                bool
	err                              string
	prompt, completion, reasoningTok schemas.Opt[int64]
	ids                              int64 // C-API output_ids
}

type rawExp struct {
	index   int
	rs      *runState
	mode    string
	value   string
	windows int

	stream     schemas.Opt[bool] // from the first request's inputs
	model      string
	maxTokens  string
	inputKinds map[string]bool

	all, content, ok, failed int64
	minStart, maxEnd         int64 // over requests with answer content (GenAI-Perf's window)
	streamed, unstreamed     int64
	usage, ids, unparsed     int64
	rejected                 int64

	gapE2E, gapTTFT, gapTTST, ttft, itl spill.Floats

	ts      []int64
	outs    []respInfo
	frag    string
	sc      *jsonscan.Scanner // parses the responses' bodies and events (parse)
	gapsBuf []float64
}

func (e *rawExp) close() {
	for _, f := range []*spill.Floats{&e.gapE2E, &e.gapTTFT, &e.gapTTST, &e.ttft, &e.itl} {
		f.Close()
	}
}

func (r *rawReader) version() string {
	if r.paVersion == "" {
		return "unknown (raw perf_analyzer export)"
	}
	return "unknown (raw export of perf_analyzer " + r.paVersion + ")"
}

func (r *rawReader) errAt(p jsonscan.Pos, record, field, format string, args ...any) error {
	return &ingest.Error{File: r.in.Path, Line: p.Line, Column: p.Col, Record: record, Field: field, Err: fmt.Errorf(format, args...)}
}

// read streams the file. base may be nil.
func (r *rawReader) read(base *runState) error {
	r.base = base
	rc, err := r.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := jsonscan.New(rc)
	tok, err := sc.Next()
	if err != nil {
		if err == io.EOF {
			return &ingest.Error{File: r.in.Path, Err: fmt.Errorf("no JSON value found")}
		}
		return jtree.SyntaxErr(r.in.Path, err)
	}
	if tok.Kind != jsonscan.BeginObject {
		return r.errAt(tok.Pos, "", "", "expected a JSON object, found %s", tok.Kind)
	}
	sawExperiments := false
	for {
		k, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := sc.Text(k)
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		v, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		switch key {
		case "experiments":
			if v.Kind != jsonscan.BeginArray {
				return r.errAt(v.Pos, "", key, "expected an array, found %s", v.Kind)
			}
			sawExperiments = true
			for i := 0; ; i++ {
				el, err := sc.Next()
				if err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				if el.Kind == jsonscan.EndArray {
					break
				}
				if el.Kind != jsonscan.BeginObject {
					return r.errAt(el.Pos, fmt.Sprintf("experiment %d", i), "experiments", "expected an object, found %s", el.Kind)
				}
				if err := r.experiment(sc, i); err != nil {
					return err
				}
			}
		case "version", "service_kind", "endpoint":
			s := ""
			switch v.Kind {
			case jsonscan.String:
				if s, err = sc.Text(v); err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
			case jsonscan.Null:
			default:
				return r.errAt(v.Pos, "", key, "expected a string, found %s", v.Kind)
			}
			switch key {
			case "version":
				r.paVersion = s
			case "service_kind":
				r.kind = s
			default:
				r.endp = s
			}
		default:
			if err := sc.Skip(v); err != nil {
				return jtree.SyntaxErr(r.in.Path, err)
			}
			r.sink.Warn(fmt.Sprintf("%s: unknown top-level key %q ignored", r.in.Path, key))
		}
	}
	if _, err := sc.Next(); err != io.EOF {
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		return r.errAt(sc.Pos(), "", "", "more than one JSON value")
	}
	if !sawExperiments {
		return &ingest.Error{File: r.in.Path, Err: fmt.Errorf("no experiments array (not a perf_analyzer profile export)")}
	}
	return r.finish()
}

func (r *rawReader) experiment(sc *jsonscan.Scanner, index int) error {
	e := &rawExp{index: index, minStart: math.MaxInt64, maxEnd: math.MinInt64}
	defer e.close()
	if r.base != nil && index == 0 {
		e.rs = r.base
	} else {
		e.rs = newRunState(r.in, index, kindRaw)
		e.rs.record = fmt.Sprintf("experiment %d", index)
	}
	record := fmt.Sprintf("experiment %d", index)
	for {
		k, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := sc.Text(k)
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		v, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		switch key {
		case "experiment":
			n, err := jtree.Read(r.in.Path, sc, v)
			if err != nil {
				return err
			}
			e.mode, _ = n.Get("mode").Str()
			e.value, _ = n.Get("value").Scalar()
		case "requests":
			if v.Kind != jsonscan.BeginArray {
				return r.errAt(v.Pos, record, key, "expected an array, found %s", v.Kind)
			}
			for i := 0; ; i++ {
				if i&0xff == 0 {
					if err := r.ctx.Err(); err != nil {
						return err
					}
				}
				el, err := sc.Next()
				if err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				if el.Kind == jsonscan.EndArray {
					break
				}
				if err := r.request(sc, e, el, i); err != nil {
					return err
				}
			}
		case "window_boundaries":
			if v.Kind == jsonscan.BeginArray {
				n, err := sc.SkipArray()
				if err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				e.windows = n / 2
				if n > 2 {
					e.windows = n - 1
				}
			} else if err := sc.Skip(v); err != nil {
				return jtree.SyntaxErr(r.in.Path, err)
			}
		default:
			if err := sc.Skip(v); err != nil {
				return jtree.SyntaxErr(r.in.Path, err)
			}
		}
	}
	r.exps = append(r.exps, e)
	return r.closeExperiment(e)
}

// request reads one request object whose first token is open.
func (r *rawReader) request(sc *jsonscan.Scanner, e *rawExp, open jsonscan.Token, i int) error {
	e.all++
	record := fmt.Sprintf("experiment %d, request %d", e.index, i)
	var bad *schemas.Rejection
	reject := func(p jsonscan.Pos, field, reason string) {
		if bad == nil {
			bad = &schemas.Rejection{Table: schemas.TableRequests, Line: p.Line, Column: p.Col, Record: record, Field: field, Reason: reason}
		}
	}
	if open.Kind != jsonscan.BeginObject {
		reject(open.Pos, "requests", "expected a request object, found "+open.Kind.String())
		if err := sc.Skip(open); err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		r.sink.Reject(*bad)
		e.rejected++
		return nil
	}
	var t0 int64
	hasT0, hasOuts := false, false
	e.ts, e.outs, e.frag = e.ts[:0], e.outs[:0], ""
	for {
		k, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := sc.Text(k)
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		v, err := sc.Next()
		if err != nil {
			return jtree.SyntaxErr(r.in.Path, err)
		}
		switch key {
		case "timestamp":
			n, ok := epochNs(v)
			if !ok {
				reject(v.Pos, key, "expected nanoseconds since the epoch, found "+tokText(v))
			}
			t0, hasT0 = n, ok
			if err := sc.Skip(v); err != nil { // a container in its place
				return jtree.SyntaxErr(r.in.Path, err)
			}
		case "request_inputs":
			if e.inputKinds == nil {
				n, err := jtree.Read(r.in.Path, sc, v)
				if err != nil {
					return err
				}
				e.inputs(n)
			} else if err := sc.Skip(v); err != nil {
				return jtree.SyntaxErr(r.in.Path, err)
			}
		case "response_timestamps":
			if v.Kind != jsonscan.BeginArray {
				reject(v.Pos, key, "expected an array, found "+v.Kind.String())
				if err := sc.Skip(v); err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				continue
			}
			for j := 0; ; j++ {
				el, err := sc.Next()
				if err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				if el.Kind == jsonscan.EndArray {
					break
				}
				n, ok := epochNs(el)
				if !ok {
					reject(el.Pos, fmt.Sprintf("%s[%d]", key, j), "expected nanoseconds since the epoch, found "+tokText(el))
					if err := sc.Skip(el); err != nil {
						return jtree.SyntaxErr(r.in.Path, err)
					}
					continue
				}
				e.ts = append(e.ts, n)
			}
		case "response_outputs":
			if v.Kind != jsonscan.BeginArray {
				reject(v.Pos, key, "expected an array, found "+v.Kind.String())
				if err := sc.Skip(v); err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				continue
			}
			hasOuts = true
			for j := 0; ; j++ {
				el, err := sc.Next()
				if err != nil {
					return jtree.SyntaxErr(r.in.Path, err)
				}
				if el.Kind == jsonscan.EndArray {
					break
				}
				n, err := jtree.Read(r.in.Path, sc, el)
				if err != nil {
					return err
				}
				e.outs = append(e.outs, e.classify(n))
			}
		default:
			if err := sc.Skip(v); err != nil {
				return jtree.SyntaxErr(r.in.Path, err)
			}
		}
	}
	if e.frag != "" {
		e.unparsed++
	}
	if e.inputKinds == nil {
		e.inputKinds = map[string]bool{}
	}
	switch {
	case bad != nil:
	case !hasT0:
		reject(open.Pos, "timestamp", "missing")
	case hasOuts && len(e.outs) != len(e.ts):
		reject(open.Pos, "response_outputs", fmt.Sprintf("%d outputs for %d response timestamps", len(e.outs), len(e.ts)))
	default:
		for j, t := range e.ts {
			if t < t0 || (j > 0 && t < e.ts[j-1]) {
				reject(open.Pos, fmt.Sprintf("response_timestamps[%d]", j), "response timestamps must not precede the request or each other")
				break
			}
		}
	}
	if bad != nil {
		r.sink.Reject(*bad)
		e.rejected++
		return nil
	}
	return r.derive(e, i, t0, hasOuts)
}

// derive turns a request's responses into a request row and adds its
// observations to the recomputation.
func (r *rawReader) derive(e *rawExp, i int, t0 int64, hasOuts bool) error {
	var ans, out []int
	errText := ""
	req := schemas.Request{RunID: e.rs.run.ID, Index: int64(i), Phase: schemas.PhaseProfiling, StartS: schemas.Some(nsToS(t0))}
	for j := range e.ts {
		o := respInfo{answer: true} // without outputs every response counts as content
		if hasOuts {
			o = e.outs[j]
		}
		if o.answer {
			ans = append(ans, j)
		}
		if o.answer || o.reasoning {
			out = append(out, j)
		}
		if o.err != "" && errText == "" {
			errText = o.err
		}
		if o.prompt.OK {
			req.InputTokens = o.prompt
		}
		if o.completion.OK {
			req.OutputTokens = o.completion
		}
		if o.reasoningTok.OK {
			req.ReasoningTokens = o.reasoningTok
		}
		if o.ids > 0 {
			n := o.ids
			if req.OutputTokens.OK {
				n += req.OutputTokens.V
			}
			req.OutputTokens = schemas.Some(n)
		}
	}
	if req.OutputTokens.OK || req.InputTokens.OK {
		e.usage++
	}
	streamed := len(e.ts) > 1
	if e.stream.OK {
		streamed = e.stream.V
	}
	switch {
	case errText != "":
		req.Status, req.Error = schemas.StatusError, errText
	case len(out) == 0:
		req.Status, req.Error = schemas.StatusError, "no response carried content"
	default:
		req.Status = schemas.StatusOK
	}
	if req.Status == schemas.StatusOK {
		e.ok++
	} else {
		e.failed++
	}
	if len(out) > 0 {
		last := e.ts[out[len(out)-1]]
		if len(ans) > 0 {
			last = e.ts[ans[len(ans)-1]]
		}
		req.E2ES, req.EndS = schemas.Some(nsToS(last-t0)), schemas.Some(nsToS(last))
		if streamed {
			e.streamed++
			req.TTFTS = schemas.Some(nsToS(e.ts[out[0]] - t0))
			if len(ans) > 0 {
				req.TTFTAnswerS = schemas.Some(nsToS(e.ts[ans[0]] - t0))
			}
			gaps := e.gapsBuf[:0]
			for j := 1; j < len(out); j++ {
				gaps = append(gaps, nsToS(e.ts[out[j]]-e.ts[out[j-1]]))
			}
			e.gapsBuf = gaps
			req.ChunkGapsS = gaps
		} else {
			e.unstreamed++
		}
	} else if len(e.ts) > 0 {
		req.EndS = schemas.Some(nsToS(e.ts[len(e.ts)-1]))
	}
	// GenAI-Perf's own statistics are over requests with answer content.
	if len(ans) > 0 {
		e.content++
		e.minStart = min(e.minStart, t0)
		e.maxEnd = max(e.maxEnd, e.ts[ans[len(ans)-1]])
		if err := e.gapE2E.Add(nsToS(e.ts[ans[len(ans)-1]] - t0)); err != nil {
			return err
		}
		if streamed {
			if err := e.gapTTFT.Add(nsToS(e.ts[ans[0]] - t0)); err != nil {
				return err
			}
			if len(ans) > 1 {
				if err := e.gapTTST.Add(nsToS(e.ts[ans[1]] - e.ts[ans[0]])); err != nil {
					return err
				}
			}
		}
	}
	if req.Status == schemas.StatusOK && req.TTFTS.OK {
		if err := e.ttft.Add(req.TTFTS.V); err != nil {
			return err
		}
		for _, g := range req.ChunkGapsS {
			if err := e.itl.Add(g); err != nil {
				return err
			}
		}
	}
	return r.sink.Request(&req)
}

func nsToS(ns int64) float64 { return float64(ns) / 1e9 }

// epochNs reads an unsigned integer token as int64 nanoseconds.
func epochNs(t jsonscan.Token) (int64, bool) {
	if t.Kind != jsonscan.Number {
		return 0, false
	}
	v, err := strconv.ParseUint(string(t.Raw), 10, 64)
	if err != nil || v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

func tokText(t jsonscan.Token) string {
	if t.Kind == jsonscan.Number || t.Kind == jsonscan.String {
		s := string(t.Raw)
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return s
	}
	return t.Kind.String()
}

// inputs reads the first request's inputs: for OpenAI the request body
// (stream, model, max_tokens), for Triton the tensors.
func (e *rawExp) inputs(n *jtree.Node) {
	e.inputKinds = map[string]bool{}
	for _, m := range n.Fields() {
		e.inputKinds[m.Key] = true
	}
	body := n
	if p, ok := n.Get("payload").Str(); ok {
		if t, err := e.parse("payload", p); err == nil {
			body = t
		}
	}
	st := body.Get("stream")
	if st != nil && st.Kind == jsonscan.BeginArray && len(st.Items()) == 1 {
		st = st.Items()[0]
	}
	if b, ok := st.Bool(); ok {
		e.stream = schemas.Some(b)
	}
	e.model, _ = body.Get("model").Str()
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		v := body.Get(k)
		if v != nil && v.Kind == jsonscan.BeginArray && len(v.Items()) == 1 {
			v = v.Items()[0]
		}
		if s, ok := v.Scalar(); ok && s != "" {
			e.maxTokens = s
		}
	}
}

// parse reads one small JSON document (a payload, a response body, an
// event) with the experiment's scanner.
func (e *rawExp) parse(what, text string) (*jtree.Node, error) {
	if e.sc == nil {
		e.sc = jsonscan.New(nil)
	}
	return jtree.ParseUsing(e.sc, what, strings.NewReader(text))
}

// classify reads one response output.
func (e *rawExp) classify(n *jtree.Node) respInfo {
	var o respInfo
	if s, ok := n.Get("response").Str(); ok {
		t := strings.TrimLeft(s, " \r\n")
		if e.frag != "" || strings.HasPrefix(t, "data:") {
			e.sse(s, &o)
		} else if t != "" {
			if body, err := e.parse("response", t); err == nil {
				applyEvent(body, &o)
			} else {
				e.unparsed++
			}
		}
		return o
	}
	if s, ok := n.Get("text_output").Str(); ok {
		o.answer = s != ""
		return o
	}
	if ids := n.Get("output_ids"); ids != nil && ids.Kind == jsonscan.BeginArray {
		o.ids = int64(len(ids.Items()))
		o.answer = o.ids > 0
		if o.ids > 0 {
			e.ids++
		}
	}
	return o
}

// sse reads the server-sent events in one response. An event cut across
// two responses (a splintered chunk) is joined with the next one, as
// GenAI-Perf does.
func (e *rawExp) sse(text string, o *respInfo) {
	text = e.frag + text
	e.frag = ""
	events := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n")
	for k, ev := range events {
		var data strings.Builder
		for _, line := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data.WriteString(strings.TrimSpace(d))
			}
		}
		d := data.String()
		if d == "" || d == "[DONE]" {
			continue
		}
		n, err := e.parse("event", d)
		if err != nil {
			if k == len(events)-1 {
				e.frag = ev // perhaps completed by the next response
			} else {
				e.unparsed++
			}
			continue
		}
		applyEvent(n, o)
	}
}

// applyEvent reads an OpenAI response body or stream event.
func applyEvent(n *jtree.Node, o *respInfo) {
	if er := n.Get("error"); !er.IsNull() {
		if msg, ok := er.Get("message").Str(); ok {
			o.err = msg
		} else if s, ok := er.Scalar(); ok && s != "" {
			o.err = s
		} else {
			o.err = "error event"
		}
	}
	if ch := n.Get("choices"); ch != nil && len(ch.Items()) > 0 {
		c := ch.Items()[0]
		for _, part := range []*jtree.Node{c.Get("delta"), c.Get("message")} {
			if s, _ := part.Get("content").Str(); s != "" {
				o.answer = true
			}
			if s, _ := part.Get("reasoning_content").Str(); s != "" {
				o.reasoning = true
			}
			if s, _ := part.Get("reasoning").Str(); s != "" {
				o.reasoning = true
			}
		}
		if s, _ := c.Get("text").Str(); s != "" {
			o.answer = true
		}
	}
	if u := n.Get("usage"); u.IsObject() {
		if v, ok := u.Get("prompt_tokens").Int(); ok && v >= 0 {
			o.prompt = schemas.Some(v)
		}
		if v, ok := u.Get("completion_tokens").Int(); ok && v >= 0 {
			o.completion = schemas.Some(v)
		}
		if v, ok := u.Path("completion_tokens_details", "reasoning_tokens").Int(); ok && v >= 0 {
			o.reasoningTok = schemas.Some(v)
		}
	}
}

// closeExperiment fills the run from what the requests showed and emits
// the recomputed statistics.
func (r *rawReader) closeExperiment(e *rawExp) error {
	rs := e.rs
	run := &rs.run
	merged := rs != nil && r.base == rs
	rs.label("perf_analyzer_mode", strings.TrimSpace(e.mode+" "+e.value))
	rs.label("request_times", "unix epoch seconds (perf_analyzer wall clock)")
	if e.windows > 0 {
		rs.label("measurement_windows", strconv.Itoa(e.windows))
	}
	if !merged {
		run.Model = e.model
		switch e.mode {
		case "concurrency":
			if c, err := strconv.ParseInt(e.value, 10, 64); err == nil && c > 0 {
				run.MaxConcurrency = schemas.Some(c)
				run.Scenario, run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
				if c == 1 {
					run.Scenario = schemas.ScenarioSingleStream
				}
			}
		case "request_rate":
			if f, err := strconv.ParseFloat(e.value, 64); err == nil && f > 0 {
				run.RequestRate = schemas.Some(f)
				run.Scenario = schemas.ScenarioServer
			}
		}
		run.Completed, run.Failed = schemas.Some(e.ok), schemas.Some(e.failed)
		if e.maxTokens != "" {
			rs.label("max_tokens", e.maxTokens)
		}
	} else {
		if run.Completed.OK && run.Completed.V != e.content {
			r.sink.Warn(fmt.Sprintf("%s: request_count is %d, the raw export has %d requests with content", run.SourcePath, run.Completed.V, e.content))
		}
		if !run.Failed.OK {
			run.Failed = schemas.Some(e.failed)
		}
	}
	if !run.Streaming.OK {
		switch {
		case e.stream.OK:
			run.Streaming = e.stream
		case e.streamed+e.unstreamed > 0:
			run.Streaming = schemas.Some(e.streamed > 0)
			rs.flag("streaming_inferred")
		}
	} else if e.stream.OK && e.stream.V != run.Streaming.V {
		r.sink.Warn(fmt.Sprintf("%s: the configuration says streaming=%v, the requests say stream=%v", run.SourcePath, run.Streaming.V, e.stream.V))
	}
	if e.usage > 0 {
		run.TokenSource = "server usage where responses carried it (GenAI-Perf's own counts re-tokenize the answer text)"
		if e.ids > 0 {
			run.TokenSource = "token ids returned by the server"
		}
	} else if !merged {
		run.TokenSource = "unknown: GenAI-Perf counts tokens with a client tokenizer, which verdict does not run"
	}
	if e.unparsed > 0 {
		r.sink.Warn(fmt.Sprintf("%s: experiment %d: %d server-sent events could not be parsed and were taken as empty", r.in.Path, e.index, e.unparsed))
	}
	var dur float64
	if e.content > 0 {
		dur = nsToS(e.maxEnd - e.minStart)
		run.WindowStart = schemas.Some(time.Unix(0, e.minStart).UTC())
		run.WindowEnd = schemas.Some(time.Unix(0, e.maxEnd).UTC())
		if run.DurationS.OK && math.Abs(run.DurationS.V-dur) > 1e-6*dur {
			r.sink.Warn(fmt.Sprintf("%s: duration derived from the summary (%g s) differs from the raw export's span (%g s)", run.SourcePath, run.DurationS.V, dur))
		}
		run.DurationS = schemas.Some(dur)
		rs.run.Flags = slices.DeleteFunc(rs.run.Flags, func(f string) bool { return f == "duration_derived" })
	}
	if e.rejected > 0 {
		r.sink.Warn(fmt.Sprintf("%s: experiment %d: %d of %d requests were rejected; recomputed statistics cover the rest", r.in.Path, e.index, e.rejected, e.all))
	}
	return r.computed(e, dur)
}

// percentiles GenAI-Perf reports (p1, p5 and p10 from 0.0.14).
var percentiles = []float64{1, 5, 10, 25, 75, 90, 95, 99}

func (r *rawReader) computed(e *rawExp, dur float64) error {
	rs := e.rs
	base := schemas.Metric{RunID: rs.run.ID, Source: schemas.SourceComputed}
	if e.rejected > 0 {
		base.Note = fmt.Sprintf("over the ingested requests; %d rejected rows excluded", e.rejected)
	}
	var out []schemas.Metric
	for _, s := range []struct {
		id   schemas.MetricID
		note string
		f    *spill.Floats
	}{
		{schemas.E2E, "GenAI-Perf's request_latency: to the last answer chunk, over requests with answer content", &e.gapE2E},
		{schemas.TTFTAnswer, "", &e.gapTTFT},
		{schemas.TTSTAnswer, "", &e.gapTTST},
		{schemas.TTFT, "", &e.ttft},
		{schemas.ITLChunk, "gaps between responses carrying output", &e.itl},
	} {
		if s.f.Len() == 0 {
			continue
		}
		qs := []float64{0.5}
		for _, p := range percentiles {
			qs = append(qs, p/100)
		}
		vals, err := s.f.Quantiles(qs, stats.Linear)
		if err != nil {
			return err
		}
		add := func(stat, method string, p schemas.Opt[float64], v float64) {
			m := base
			m.MetricID, m.Stat, m.Method, m.Percentile, m.Value, m.N, m.Unit = s.id, stat, method, p, schemas.Some(v), schemas.Some(s.f.Len()), schemas.UnitSeconds
			if s.note != "" {
				m.Note = strings.TrimPrefix(m.Note+"; "+s.note, "; ")
			}
			out = append(out, m)
		}
		add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, s.f.Mean())
		add(schemas.StatMedian, string(stats.Linear), schemas.Opt[float64]{}, vals[0])
		add(schemas.StatStd, "population", schemas.Opt[float64]{}, s.f.StdDev(0))
		for i, p := range percentiles {
			add(schemas.StatP, string(stats.Linear), schemas.Some(p), vals[i+1])
		}
		add(schemas.StatMin, "", schemas.Opt[float64]{}, s.f.Min())
		add(schemas.StatMax, "", schemas.Opt[float64]{}, s.f.Max())
	}
	if dur > 0 {
		m := base
		m.MetricID, m.Stat, m.Unit = schemas.RequestThroughputSpanAll, schemas.StatValue, schemas.UnitRequestsPerSecond
		m.Value, m.N = schemas.Some(float64(e.all)/dur), schemas.Some(e.all)
		out = append(out, m)
	}
	for i := range out {
		if err := r.sink.Metric(&out[i]); err != nil {
			return err
		}
	}
	if r.base == rs && e.rejected == 0 {
		compare(r.sink, rs, out)
	}
	return nil
}

// agreeRel is the agreement tolerance: GenAI-Perf computes in integer
// nanoseconds and scales to milliseconds, verdict scales first; the two
// differ by float rounding only.
const agreeRel = 1e-9

// compare warns about reported statistics that disagree with recomputed
// ones.
func compare(sink ingest.Sink, rs *runState, computed []schemas.Metric) {
	ingest.Check{Where: rs.run.SourcePath, From: "the raw export", Tolerance: func(schemas.Metric) float64 { return agreeRel }}.
		Compare(sink, rs.reported, computed)
}

// finish completes the runs with what the file says after its
// experiments.
func (r *rawReader) finish() error {
	for _, e := range r.exps {
		run := &e.rs.run
		if r.paVersion != "" {
			e.rs.label("perf_analyzer_version", r.paVersion)
		}
		if run.Backend == "" {
			run.Backend = r.kind
		}
		if r.endp != "" && !strings.Contains(run.Endpoint, "/") {
			run.Endpoint = r.endp // the URL path is more precise than the endpoint type
		}
		if r.base != e.rs {
			run.ToolVersion = r.version()
			slices.Sort(run.Flags)
		}
	}
	return nil
}

// emitRuns reports the runs of a raw export read on its own.
func (r *rawReader) emitRuns() error {
	if len(r.exps) == 0 {
		return &ingest.Error{File: r.in.Path, Err: fmt.Errorf("no experiments in the export")}
	}
	for _, e := range r.exps {
		if e.rs == r.base {
			continue
		}
		if err := e.rs.emitRun(r.sink); err != nil {
			return err
		}
	}
	return nil
}
