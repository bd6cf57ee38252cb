package inferenceperf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// defaultPercentiles are inference-perf's (config/reportgen/config.py).
var defaultPercentiles = []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9}

// A requestReader streams per_request_lifecycle_metrics.json: a JSON array
// of {start_time, end_time, request, response, info, error}, one element
// in memory at a time. The request and response bodies are not kept.
type requestReader struct {
	ctx   context.Context
	in    *ingest.Input
	sink  ingest.Sink
	runID string

	n, ok, failed int64
	checked       int     // reported statistics compared with the recomputed ones
	first, last   float64 // min start, max end over all requests
	// series recomputed with inference-perf's conventions, spilled to a
	// temporary file past a million values each (the token gaps of 1M
	// requests would otherwise hold 120 MB); close removes the files
	e2e, ttft, tpot, ntpot, itl, isl, osl spill.Floats
	inTok, outTok                         float64
}

func newRequestReader(ctx context.Context, in *ingest.Input, sink ingest.Sink, runID string) *requestReader {
	return &requestReader{ctx: ctx, in: in, sink: sink, runID: runID, first: math.Inf(1), last: math.Inf(-1)}
}

func (r *requestReader) read() error {
	rc, err := r.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := jsonscan.New(rc)
	tok, err := sc.Next()
	if err != nil {
		return jtree.SyntaxErr(r.in.Path, err)
	}
	if tok.Kind != jsonscan.BeginArray {
		return &ingest.Error{File: r.in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Err: errors.New("expected a JSON array of request records")}
	}
	if err := jtree.Elements(r.ctx, r.in.Path, sc, r.in.OpenAt, r.record); err != nil {
		return err
	}
	if _, err := sc.Next(); err != io.EOF {
		return &ingest.Error{File: r.in.Path, Err: errors.New("data after the array of request records")}
	}
	if r.n == 0 {
		return &ingest.Error{File: r.in.Path, Err: errors.New("no request records")}
	}
	return nil
}

func (r *requestReader) reject(n *jtree.Node, i int64, field, reason string) {
	rej := schemas.Rejection{Table: schemas.TableRequests, Record: "request " + strconv.FormatInt(i, 10), Field: field, Reason: reason}
	if n != nil {
		rej.Line, rej.Column = n.Pos.Line, n.Pos.Col
	}
	r.sink.Reject(rej)
}

// times reads an array of perf_counter seconds.
func times(n *jtree.Node) ([]float64, bool) {
	if n.IsNull() {
		return nil, true
	}
	var out []float64
	for _, e := range n.Items() {
		v, ok := e.Float()
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		out = append(out, v)
	}
	return out, n.Kind == jsonscan.BeginArray
}

// record reads one request: a row, or a rejection.
func (r *requestReader) record(i int64, n *jtree.Node) error {
	if !n.IsObject() {
		r.reject(n, i, "", "expected a request object, found "+n.Describe())
		return nil
	}
	start, ok1 := n.Get("start_time").Float()
	end, ok2 := n.Get("end_time").Float()
	if !ok1 || !ok2 || math.IsNaN(start) || math.IsNaN(end) || math.IsInf(start, 0) || math.IsInf(end, 0) || end < start {
		r.reject(n, i, "start_time/end_time", "expected perf_counter seconds with end_time >= start_time")
		return nil
	}
	info := n.Get("info")
	resp := info.Get("response_metrics")
	chunks, okC := times(resp.Get("chunk_times"))
	tokTimes, okT := times(resp.Get("output_token_times"))
	if !okC || !okT {
		r.reject(resp, i, "info.response_metrics", "chunk_times and output_token_times must be arrays of numbers")
		return nil
	}
	in := info.Path("request_metrics", "text", "input_tokens")
	if in.IsNull() {
		in = info.Get("input_tokens")
	}
	inTok, okIn := in.Int()
	outTok, okOut := resp.Get("output_tokens").Int()
	if (!in.IsNull() && (!okIn || inTok < 0)) || (!resp.Get("output_tokens").IsNull() && (!okOut || outTok < 0)) {
		r.reject(info, i, "input_tokens/output_tokens", "token counts must be non-negative integers")
		return nil
	}
	req := schemas.Request{RunID: r.runID, Index: i, Status: schemas.StatusOK, Phase: schemas.PhaseProfiling,
		StartS: schemas.Some(start), EndS: schemas.Some(end)}
	if okIn {
		req.InputTokens = schemas.Some(inTok)
	}
	if okOut {
		req.OutputTokens = schemas.Some(outTok)
	}
	for j := 1; j < len(chunks); j++ {
		req.ChunkGapsS = append(req.ChunkGapsS, chunks[j]-chunks[j-1])
	}
	r.n++
	r.first, r.last = min(r.first, start), max(r.last, end)
	if e := n.Get("error"); !e.IsNull() {
		req.Status, req.ChunkGapsS = schemas.StatusError, nil
		typ, _ := e.Get("error_type").Str()
		msg, _ := e.Get("error_msg").Str()
		req.Error = typ + ": " + msg
		r.failed++
		return r.sink.Request(&req)
	}
	r.ok++
	req.E2ES = schemas.Some(end - start)
	if err := r.success(&req, end-start, tokTimes, okIn, inTok, okOut, outTok); err != nil {
		return &ingest.Error{File: r.in.Path, Err: err}
	}
	return r.sink.Request(&req)
}

// success adds a successful request to the recomputed series, with the
// formulas of reportgen/base.py (compute_request_latency_metrics).
func (r *requestReader) success(req *schemas.Request, lat float64, tt []float64, okIn bool, in int64, okOut bool, out int64) error {
	err := r.e2e.Add(lat)
	if okIn {
		err, r.inTok = errors.Join(err, r.isl.Add(float64(in))), r.inTok+float64(in)
	}
	if !okOut {
		return err
	}
	err, r.outTok = errors.Join(err, r.osl.Add(float64(out))), r.outTok+float64(out)
	nt := 0.0
	if out > 0 {
		nt = lat / float64(out)
	}
	err = errors.Join(err, r.ntpot.Add(nt))
	if len(tt) > 1 {
		t := tt[0] - req.StartS.V
		req.TTFTS = schemas.Some(t)
		err = errors.Join(err, r.ttft.Add(t))
		if out > 1 {
			err = errors.Join(err, r.tpot.Add((tt[len(tt)-1]-tt[0])/float64(out-1)))
		}
		for j := 1; j < len(tt) && err == nil; j++ {
			err = r.itl.Add(tt[j] - tt[j-1])
		}
	}
	return err
}

// close removes the series' temporary files.
func (r *requestReader) close() {
	for _, f := range r.series() {
		f.f.Close()
	}
}

// series are the recomputed series with their metrics, in the order
// their statistics are written.
func (r *requestReader) series() []struct {
	id schemas.MetricID
	f  *spill.Floats
} {
	return []struct {
		id schemas.MetricID
		f  *spill.Floats
	}{{schemas.E2E, &r.e2e}, {schemas.TTFT, &r.ttft}, {schemas.TPOT, &r.tpot}, {schemas.TPOTInclTTFTZeroFilled, &r.ntpot},
		{schemas.ITLTokenChunkStamped, &r.itl}, {schemas.InputTokens, &r.isl}, {schemas.OutputTokens, &r.osl}}
}

// readRequestsAlone reads a per-request file without its summary: a run of
// its own, with the statistics computed from it.
func readRequestsAlone(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rr := newRequestReader(ctx, in, sink, ingest.RunID("inference-perf", in.SHA256(), 0))
	defer rr.close()
	if err := rr.read(); err != nil {
		return err
	}
	if err := rr.emitComputed(nil); err != nil {
		return err
	}
	return sink.Run(rr.standaloneRun())
}

// standaloneRun is the run of a per-request file read on its own: all the
// stages it holds.
func (r *requestReader) standaloneRun() *schemas.Run {
	run := &schemas.Run{ID: r.runID, Tool: "inference-perf", ToolVersion: "any (per-request lifecycle file)", Format: kindRequests,
		SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
		NumPrompts: schemas.Some(r.n), Completed: schemas.Some(r.ok), Failed: schemas.Some(r.failed),
		Labels: map[string]string{"inference_perf.stage": "all"}, Flags: []string{flagAll},
		TokenSource: "client tokenizer (inference-perf re-tokenizes the response text)"}
	if w := r.last - r.first; w > 0 {
		run.DurationS, run.WindowKind = schemas.Some(w), schemas.WindowKindDispatch
	}
	return run
}

// emitComputed writes the recomputed statistics and, when reported holds
// the summary's own rows, warns about each that disagrees.
func (r *requestReader) emitComputed(reported []schemas.Metric) error {
	var computed []schemas.Metric
	add := func(id schemas.MetricID, stat string, p schemas.Opt[float64], v float64, n int) error {
		m := schemas.Metric{RunID: r.runID, MetricID: id, Stat: stat, Percentile: p, Value: schemas.Some(v), Unit: schemas.MustLookup(id).Unit,
			Source: schemas.SourceComputed, N: schemas.Some(int64(n))}
		switch stat {
		case schemas.StatP, schemas.StatMedian:
			m.Method = string(stats.Linear)
		case schemas.StatMean:
			m.Method = "arithmetic"
		}
		computed = append(computed, m)
		return r.sink.Metric(&m)
	}
	ps := make([]float64, len(defaultPercentiles))
	for k, p := range defaultPercentiles {
		ps[k] = p / 100
	}
	for _, s := range r.series() {
		n := int(s.f.Len())
		if n == 0 {
			continue
		}
		mean := s.f.Mean() // before Quantiles sorts the values: numpy sums them unsorted
		qs, err := s.f.Quantiles(ps, stats.Linear)
		if err != nil {
			return &ingest.Error{File: r.in.Path, Err: err}
		}
		for _, st := range []struct {
			stat string
			v    float64
		}{{schemas.StatMean, mean}, {schemas.StatMin, s.f.Min()}, {schemas.StatMax, s.f.Max()}} {
			if err := add(s.id, st.stat, schemas.Opt[float64]{}, st.v, n); err != nil {
				return err
			}
		}
		for k, p := range defaultPercentiles {
			stat, pct := schemas.StatP, schemas.Some(p)
			if p == 50 {
				stat, pct = schemas.StatMedian, schemas.Opt[float64]{}
			}
			if err := add(s.id, stat, pct, qs[k], n); err != nil {
				return err
			}
		}
	}
	if w := r.last - r.first; w > 0 && r.ok > 0 {
		for _, t := range []struct {
			id schemas.MetricID
			v  float64
		}{{schemas.RequestThroughput, float64(r.ok)}, {schemas.InputTokenThroughput, r.inTok}, {schemas.OutputTokenThroughput, r.outTok},
			{schemas.TotalTokenThroughput, r.inTok + r.outTok}} {
			if err := add(t.id, schemas.StatValue, schemas.Opt[float64]{}, t.v/w, int(r.ok)); err != nil {
				return err
			}
		}
	}
	r.compare(reported, computed)
	return nil
}

// compare warns about each reported statistic the requests do not give.
func (r *requestReader) compare(reported, computed []schemas.Metric) {
	idx := map[string]float64{}
	for _, m := range computed {
		idx[m.Key()[:len(m.Key())-len(m.Source)]] = m.Value.V
	}
	for _, m := range reported {
		k := m.Key()[:len(m.Key())-len(m.Source)]
		v, ok := idx[k]
		if !ok || !m.Value.OK {
			continue
		}
		r.checked++
		if d := math.Abs(v - m.Value.V); d > 1e-9*math.Max(1, math.Abs(m.Value.V)) {
			r.sink.Warn(fmt.Sprintf("%s: %s is %v in the summary but %v recomputed from the requests", r.in.Path, m.NativeName, m.Value.V, v))
		}
	}
}
