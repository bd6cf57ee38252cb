package guidellm

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// recompute collects the successful requests' observations with the
// weights GuideLLM gives them.
type recompute struct {
	ids   []schemas.MetricID // definition per dist, in emit order
	dists map[schemas.MetricID]*dist
}

func newRecompute(ids ...schemas.MetricID) *recompute {
	rc := &recompute{ids: ids, dists: map[schemas.MetricID]*dist{}}
	for _, id := range ids {
		rc.dists[id] = &dist{}
	}
	return rc
}

func (rc *recompute) add(id schemas.MetricID, v, w float64) { rc.dists[id].add(v, w) }

// record fields per generation.
type recordFields struct {
	start, first, last, end *node
	prompt, output          *node
	errText                 string
}

func (r *benchReader) fields(rec *node) recordFields {
	var f recordFields
	switch r.gen {
	case gen0, genA:
		f.start, f.first, f.last, f.end = rec.get("start_time"), rec.get("first_token_time"), rec.get("last_token_time"), rec.get("end_time")
		if r.gen == gen0 {
			f.prompt, f.output = rec.get("prompt_token_count"), rec.get("output_token_count")
		} else {
			f.prompt, f.output = rec.get("prompt_tokens"), rec.get("output_tokens")
			f.errText = rec.get("error").scalar()
		}
	default:
		t := rec.at("info", "timings")
		f.start = firstNode(t.get("request_start"), rec.get("request_start_time"))
		f.first = t.get("first_token_iteration")
		f.last = t.get("last_token_iteration")
		f.end = firstNode(t.get("request_end"), rec.get("request_end_time"))
		f.prompt = firstNode(rec.get("prompt_tokens"), rec.at("input_metrics", "total_tokens"))
		f.output = firstNode(rec.get("output_tokens"), rec.at("output_metrics", "total_tokens"))
		f.errText = rec.at("info", "error").scalar()
	}
	return f
}

// A window is GuideLLM's measurement window (v0.4 and later): its
// statistics cover the requests that overlap [start, end], and the records
// outside it are the warm-up and cool-down requests
// (docs/formats/guidellm.md, "Warm-up and cool-down").
type window struct {
	start, end float64
	ok         bool
}

// measureWindow reads the benchmark's measurement window: the scheduler's
// measure_start_time and measure_end_time, else the benchmark's computed
// start_time and end_time (which GuideLLM sets to the same values). Gen A
// reports drop warm-up requests themselves and have none.
func (r *benchReader) measureWindow() window {
	if r.gen < genB {
		return window{}
	}
	sm := r.b.get("scheduler_metrics")
	s, ok1, err1 := firstNode(sm.get("measure_start_time"), r.b.get("start_time")).num()
	e, ok2, err2 := firstNode(sm.get("measure_end_time"), r.b.get("end_time")).num()
	if !ok1 || !ok2 || err1 != nil || err2 != nil || !(e >= s) || math.IsInf(s, 0) || math.IsInf(e, 0) {
		return window{}
	}
	return window{start: s, end: e, ok: true}
}

// phase places a request against the window as GuideLLM's
// GenerativeRequestsAccumulator.get_within_range does: a request counts
// when it ends at or after the window's start and starts at or before its
// end (a request without a start time: ends at or before the end). A
// request that ended before the window is warm-up, one that started (or,
// without a start, ended) after it is cool-down.
func (w window) phase(start float64, hasStart bool, end float64, hasEnd bool) string {
	switch {
	case !w.ok || !hasEnd:
		return schemas.PhaseProfiling
	case end < w.start:
		return schemas.PhaseWarmup
	case hasStart && start > w.end, !hasStart && end > w.end:
		return schemas.PhaseCooldown
	}
	return schemas.PhaseProfiling
}

// statuses are GuideLLM's request lists, in the order of request_totals.
var statuses = [3]string{"successful", "errored", "incomplete"}

// requestLists reads the benchmark's request lists; nil entries are absent
// lists. sampled is set when a list is absent although its total is not 0.
func (r *benchReader) requestLists(reqs *node, tot [3]schemas.Opt[int64]) (lists [3]*node, sampled bool, err error) {
	for i, s := range statuses {
		l := reqs.get(s)
		if l.isNull() {
			if tot[i].OK && tot[i].V > 0 {
				sampled = true
			}
			continue
		}
		if l.kind != kArray {
			return lists, false, r.errAt(l, "requests."+s, "expected a list, found %s", l.kind)
		}
		lists[i] = l
	}
	return lists, sampled, nil
}

// requestTally counts a benchmark's records as they are read.
type requestTally struct {
	index, rejected int
	measured        [3]int64 // records inside the window, per status
	rejectedBy      [3]int64 // rejected records (whose phase is unknown), per status
	warmup, cool    int
	streamed        int // records whose request_args say stream: true
	unstreamed      int // ... stream: false
}

// requests reads the per-request records of a generation A-D benchmark.
func (r *benchReader) requests(run *schemas.Run, tot [3]schemas.Opt[int64]) error {
	reqs := r.b.get("requests")
	if reqs.isNull() {
		r.flag("no_request_records")
		return nil
	}
	if reqs.kind != kObject {
		return r.errAt(reqs, "requests", "expected an object of status lists, found %s", reqs.kind)
	}
	lists, sampled, err := r.requestLists(reqs, tot)
	if err != nil {
		return err
	}
	var rc *recompute
	if r.gen == genA {
		// tpot_last_token is GuideLLM's own; tpot is verdict's, from the
		// request row (schemas.Request.TPOT), as every view computes it
		// (it has no reported counterpart, so nothing is compared).
		rc = newRecompute(schemas.TTFT, schemas.E2E, schemas.TPOTLastToken, schemas.TPOT, schemas.DecodeTimePerOutputToken, schemas.InputTokens, schemas.OutputTokens)
	} else {
		rc = newRecompute(schemas.TTFT, schemas.E2E, schemas.TPOTTokenWeighted, schemas.TPOT, schemas.TPOTInclTTFTTokenWeighted, schemas.InputTokens, schemas.OutputTokens)
	}
	origin := math.NaN()
	if v, ok, err := r.b.get("start_time").num(); err == nil && ok {
		origin = v
	}
	win := r.measureWindow()
	var t requestTally
	for si, l := range lists {
		if l == nil {
			continue
		}
		for j, rec := range l.vals {
			f := r.fields(rec)
			ok, err := r.request(run, rec, f, si, j, &t, &origin, win, rc)
			if err != nil {
				return err
			}
			if !ok {
				t.rejected++
				t.rejectedBy[si]++
			}
			t.index++
		}
	}
	sampled = r.checkTotals(lists, tot, t, win) || sampled
	r.streaming(run, t)
	if sampled {
		r.flag("requests_sampled")
	}
	if t.rejected > 0 || sampled || t.index == 0 {
		return nil
	}
	return r.emitComputed(run, rc)
}

// checkTotals compares the records in the window with request_totals and
// reports whether records are missing (GuideLLM sampled them).
func (r *benchReader) checkTotals(lists [3]*node, tot [3]schemas.Opt[int64], t requestTally, win window) bool {
	sampled := false
	for i, l := range lists {
		if l == nil || !tot[i].OK {
			continue
		}
		n := int64(len(l.vals))
		if win.ok {
			n = t.measured[i] + t.rejectedBy[i]
		}
		switch {
		case n < tot[i].V:
			sampled = true
		case n > tot[i].V:
			r.sink.Warn(fmt.Sprintf("%s: %d %s request records in the measurement window, but request_totals says %d", r.record(), n, statuses[i], tot[i].V))
		}
	}
	if t.warmup > 0 || t.cool > 0 {
		r.sink.Warn(fmt.Sprintf("%s: %d warm-up and %d cool-down request records (outside GuideLLM's measurement window) ingested with phases %q and %q and left out of the statistics, as GuideLLM leaves them out of its own",
			r.record(), t.warmup, t.cool, schemas.PhaseWarmup, schemas.PhaseCooldown))
	}
	return sampled
}

// streaming sets the run's streaming mode from the records' request_args
// (GuideLLM 0.5 records each request's body, with its "stream" flag),
// when every record that says agrees.
func (r *benchReader) streaming(run *schemas.Run, t requestTally) {
	switch {
	case t.streamed > 0 && t.unstreamed == 0:
		run.Streaming = schemas.Some(true)
	case t.unstreamed > 0 && t.streamed == 0:
		run.Streaming = schemas.Some(false)
	case t.streamed > 0:
		r.sink.Warn(fmt.Sprintf("%s: %d request records were streamed and %d were not; streaming left unknown", r.record(), t.streamed, t.unstreamed))
	}
}

// requestStream reads the stream flag of a record's request_args, a JSON
// text ({"stream": true, "body": {"stream": true, ...}}).
func requestStream(rec *node) (stream, ok bool) {
	a := rec.get("request_args")
	if a == nil {
		return false, false
	}
	text := a.str()
	if a.kind == kObject {
		if v := firstNode(a.get("stream"), a.at("body", "stream")); v != nil && (v.text == "true" || v.text == "false") {
			return v.text == "true", true
		}
		return false, false
	}
	var args struct {
		Stream *bool `json:"stream"`
		Body   struct {
			Stream *bool `json:"stream"`
		} `json:"body"`
	}
	if text == "" || json.Unmarshal([]byte(text), &args) != nil {
		return false, false
	}
	switch {
	case args.Stream != nil:
		return *args.Stream, true
	case args.Body.Stream != nil:
		return *args.Body.Stream, true
	}
	return false, false
}

// request reports one record as a request row, or rejects it.
func (r *benchReader) request(run *schemas.Run, rec *node, f recordFields, si, j int, t *requestTally, origin *float64, win window, rc *recompute) (bool, error) {
	status, index := statuses[si], t.index
	where := fmt.Sprintf("%s, %s[%d]", r.record(), status, j)
	if rec.kind != kObject {
		r.reject(schemas.TableRequests, rec, where, "", "expected a request object, found "+rec.kind.String())
		return false, nil
	}
	num := func(n *node, field string) (float64, bool, bool) {
		v, ok, err := n.num()
		if err != nil {
			r.reject(schemas.TableRequests, n, where, field, err.Error())
			return 0, false, false
		}
		if ok && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
			r.reject(schemas.TableRequests, n, where, field, "expected a finite non-negative number, found "+n.text)
			return 0, false, false
		}
		return v, ok, true
	}
	start, hasStart, ok1 := num(f.start, "start")
	first, hasFirst, ok2 := num(f.first, "first_token")
	last, hasLast, ok3 := num(f.last, "last_token")
	end, hasEnd, ok4 := num(f.end, "end")
	prompt, hasPrompt, ok5 := num(f.prompt, "prompt_tokens")
	output, hasOutput, ok6 := num(f.output, "output_tokens")
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return false, nil
	}
	switch {
	case hasStart && hasEnd && end < start:
		r.reject(schemas.TableRequests, f.end, where, "end", "the request ends before it starts")
		return false, nil
	case hasStart && hasFirst && first < start:
		r.reject(schemas.TableRequests, f.first, where, "first_token", "the first token comes before the request starts")
		return false, nil
	case hasFirst && hasLast && last < first:
		r.reject(schemas.TableRequests, f.last, where, "last_token", "the last token comes before the first")
		return false, nil
	case hasPrompt && prompt != math.Trunc(prompt), hasOutput && output != math.Trunc(output):
		r.reject(schemas.TableRequests, f.output, where, "tokens", "token counts must be whole numbers")
		return false, nil
	}
	if math.IsNaN(*origin) && hasStart {
		*origin = start
	}
	q := schemas.Request{RunID: run.ID, Index: int64(index), Phase: win.phase(start, hasStart, end, hasEnd)}
	switch q.Phase {
	case schemas.PhaseWarmup:
		t.warmup++
	case schemas.PhaseCooldown:
		t.cool++
	default:
		t.measured[si]++
	}
	if s, ok := requestStream(rec); ok && s {
		t.streamed++
	} else if ok {
		t.unstreamed++
	}
	switch status {
	case "successful":
		q.Status = schemas.StatusOK
	case "errored":
		q.Status, q.Error = schemas.StatusError, firstNonEmpty(f.errText, "errored")
	default:
		q.Status, q.Error = schemas.StatusError, "incomplete (still running when the benchmark ended)"
		if f.errText != "" {
			q.Error += ": " + f.errText
		}
	}
	if hasStart && !math.IsNaN(*origin) {
		q.StartS = schemas.Some(start - *origin)
		if hasEnd {
			q.EndS = schemas.Some(end - *origin)
		}
	}
	if hasStart && hasFirst && first > 0 {
		q.TTFTS = schemas.Some(first - start)
	}
	if hasStart && hasEnd && q.Status == schemas.StatusOK {
		q.E2ES = schemas.Some(end - start)
	}
	if hasPrompt {
		q.InputTokens = schemas.Some(int64(prompt))
	}
	if hasOutput && (q.Status == schemas.StatusOK || output > 0) {
		q.OutputTokens = schemas.Some(int64(output))
	}
	if q.Status == schemas.StatusOK && q.Phase == schemas.PhaseProfiling {
		if q.TTFTS.OK {
			rc.add(schemas.TTFT, q.TTFTS.V, 1)
		}
		if q.E2ES.OK {
			rc.add(schemas.E2E, q.E2ES.V, 1)
		}
		if hasPrompt {
			rc.add(schemas.InputTokens, prompt, 1)
		}
		if hasOutput {
			rc.add(schemas.OutputTokens, output, 1)
		}
		if hasFirst && hasLast && hasOutput {
			switch r.gen {
			case genA:
				if output > 1 {
					rc.add(schemas.TPOTLastToken, (last-first)/(output-1), 1)
				}
				if tpot := q.TPOT(); tpot.OK {
					rc.add(schemas.TPOT, tpot.V, 1)
				}
				if output > 0 {
					rc.add(schemas.DecodeTimePerOutputToken, (last-first)/output, 1)
				}
			case gen0:
				if output > 1 {
					rc.add(schemas.TPOTTokenWeighted, (last-first)/(output-1), output-1)
				}
			default:
				if output > 1 {
					rc.add(schemas.TPOTTokenWeighted, (last-first)/(output-1), output-1)
				}
				if tpot := q.TPOT(); tpot.OK {
					rc.add(schemas.TPOT, tpot.V, 1)
				}
				if output > 0 && hasStart {
					rc.add(schemas.TPOTInclTTFTTokenWeighted, (last-start)/output, output)
				}
			}
		}
	}
	return true, r.sink.Request(&q)
}

// emitComputed writes the statistics recomputed from complete per-request
// records and warns where the tool's own numbers disagree.
func (r *benchReader) emitComputed(run *schemas.Run, rc *recompute) error {
	pcts := make([]float64, len(pctKeys))
	for i, pk := range pctKeys {
		pcts[i] = pk.p
	}
	if r.gen == gen0 {
		pcts = gen0Pcts
	}
	var computed []schemas.Metric
	for _, id := range rc.ids {
		d := rc.dists[id]
		if len(d.xs) == 0 {
			continue
		}
		var s summary
		switch r.method {
		case stats.Linear:
			s = d.linear(pcts)
		case stats.NearestRankCumulativeUnmerged:
			s = d.cumulative(pcts, false)
		default:
			s = d.cumulative(pcts, true)
		}
		base := schemas.Metric{RunID: run.ID, MetricID: id, Unit: schemas.MustLookup(id).Unit, Source: schemas.SourceComputed,
			N: schemas.Some(int64(math.Round(s.count)))}
		add := func(stat, method string, pct schemas.Opt[float64], v float64) {
			m := base
			m.Stat, m.Method, m.Percentile, m.Value = stat, method, pct, schemas.Some(v)
			computed = append(computed, m)
		}
		add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, s.mean)
		add(schemas.StatMedian, string(r.method), schemas.Opt[float64]{}, s.median)
		add(schemas.StatStd, "population", schemas.Opt[float64]{}, s.std)
		add(schemas.StatMin, "", schemas.Opt[float64]{}, s.min)
		add(schemas.StatMax, "", schemas.Opt[float64]{}, s.max)
		for i, p := range pcts {
			add(schemas.StatP, string(r.method), schemas.Some(p), s.ps[i])
		}
	}
	for _, m := range computed {
		if err := r.sink.Metric(&m); err != nil {
			return err
		}
	}
	r.compare(computed)
	return nil
}

// compare warns about reported statistics that disagree with recomputed
// ones. A distribution whose reported count differs from the records'
// (GuideLLM drops requests outside its measurement window from some
// metrics) is not compared.
func (r *benchReader) compare(computed []schemas.Metric) {
	counts := map[string]schemas.Opt[int64]{}
	for _, m := range computed {
		counts[string(m.MetricID)] = m.N
	}
	skipped := map[schemas.MetricID]bool{}
	var same []schemas.Metric
	for _, rep := range r.reported {
		if n, ok := counts[string(rep.MetricID)]; ok && rep.N.OK && n.OK && rep.N.V != n.V {
			if !skipped[rep.MetricID] {
				skipped[rep.MetricID] = true
				r.sink.Warn(fmt.Sprintf("%s: %s not compared with the records: the tool counted %d, the records give %d", r.record(), rep.MetricID, rep.N.V, n.V))
			}
			continue
		}
		same = append(same, rep)
	}
	ingest.Check{Where: r.record(), From: "the request records"}.Compare(r.sink, same, computed)
}
