package vllm

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// requestSummary is what the per-request pass found.
type requestSummary struct {
	n          int  // requests in the arrays
	itlHasTTFT bool // the first chunk gap equals the TTFT (vLLM 2024-06-28..08-09)
}

// recompute collects the per-request observations vLLM's calculate_metrics
// aggregates, over successful requests only.
type recompute struct {
	ttft, tpot, itl, e2e spill.Floats
	ok                   int64
	inTok, outTok        int64
}

func (c *recompute) close() {
	c.ttft.Close()
	c.tpot.Close()
	c.itl.Close()
	c.e2e.Close()
}

// requests reads the per-request arrays in lockstep, writes one request
// row per index (or a rejection), and emits recomputed statistics.
func (r *runReader) requests(run *schemas.Run, tpotID schemas.MetricID, noData bool) (requestSummary, error) {
	var sum requestSummary
	present := map[string]value{}
	n := -1
	var first string
	for _, k := range arrayKeys {
		v, ok := r.use(k)
		if !ok {
			continue
		}
		if v.kind != jsonscan.BeginArray {
			return sum, r.errAt(v, k, "expected an array, found %s", describe(v))
		}
		present[k] = v
		if n < 0 {
			n, first = v.n, k
		} else if v.n != n {
			return sum, r.errAt(v, k, "has %d elements but %s has %d; per-request arrays must be index-aligned", v.n, first, n)
		}
	}
	if n <= 0 {
		return sum, nil
	}
	sum.n = n
	if run.NumPrompts.OK && int64(n) != run.NumPrompts.V {
		r.sink.Warn(fmt.Sprintf("%s: per-request arrays hold %d requests, num_prompts is %d", r.recordName(), n, run.NumPrompts.V))
	}

	curs := map[string]*cursor{}
	defer func() {
		for _, c := range curs {
			c.close()
		}
	}()
	for k, v := range present {
		c, err := openCursor(r.in, k, v)
		if err != nil {
			return sum, err
		}
		curs[k] = c
	}

	var rc recompute
	defer rc.close()
	var errText string
	itlMatches, itlChecked := 0, 0
	req := schemas.Request{RunID: run.ID, Phase: schemas.PhaseProfiling}
	streamedAny, unstreamedAny := false, false
	rejected := 0

	for i := 0; i < n; i++ {
		req = schemas.Request{RunID: run.ID, Index: int64(i), Phase: schemas.PhaseProfiling}
		var bad *schemas.Rejection
		reject := func(tok jsonscan.Token, field, reason string) {
			if bad == nil {
				bad = &schemas.Rejection{Table: schemas.TableRequests, Line: tok.Pos.Line, Column: tok.Pos.Col,
					Record: fmt.Sprintf("%s, request %d", r.recordName(), i), Field: fmt.Sprintf("%s[%d]", field, i), Reason: reason}
			}
		}
		// num reads one numeric element; a missing or malformed one
		// rejects the row.
		num := func(key string, nonNeg bool) (float64, bool, error) {
			c := curs[key]
			if c == nil {
				return 0, false, nil
			}
			tok, err := c.next()
			if err != nil {
				return 0, false, err
			}
			if tok.Kind != jsonscan.Number {
				reject(tok, key, "expected a number, found "+tok.Kind.String())
				return 0, false, c.sc.Skip(tok)
			}
			f, perr := jsonscan.Float(tok.Raw)
			switch {
			case perr != nil:
				reject(tok, key, "bad number")
			case math.IsNaN(f) || math.IsInf(f, 0):
				reject(tok, key, "non-finite value "+string(tok.Raw))
			case nonNeg && f < 0:
				reject(tok, key, "negative value "+string(tok.Raw))
			default:
				return f, true, nil
			}
			return 0, false, nil
		}
		integer := func(key string) (int64, bool, error) {
			f, ok, err := num(key, true)
			if err != nil || !ok {
				return 0, false, err
			}
			if f != math.Trunc(f) || f > 1<<53 {
				c := curs[key]
				reject(jsonscan.Token{Pos: c.sc.Pos()}, key, "expected an integer token count, found "+strconv.FormatFloat(f, 'g', -1, 64))
				return 0, false, nil
			}
			return int64(f), true, nil
		}

		inLen, hasIn, err := integer("input_lens")
		if err != nil {
			return sum, err
		}
		outLen, hasOut, err := integer("output_lens")
		if err != nil {
			return sum, err
		}
		ttft, hasTTFT, err := num("ttfts", true)
		if err != nil {
			return sum, err
		}
		var gaps []float64
		hasGaps := false
		if c := curs["itls"]; c != nil {
			tok, err := c.next()
			if err != nil {
				return sum, err
			}
			xs, badTok, err := c.floats(tok)
			if err != nil {
				return sum, err
			}
			switch {
			case badTok != nil:
				reject(*badTok, "itls", "expected a list of numbers")
			default:
				hasGaps = true
				for _, g := range xs {
					if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
						reject(tok, "itls", "chunk gap must be finite and non-negative, found "+strconv.FormatFloat(g, 'g', -1, 64))
						hasGaps = false
						break
					}
				}
				gaps = xs
			}
		}
		lat, hasLat, err := num("latencies", true)
		if err != nil {
			return sum, err
		}
		start, hasStart, err := num("start_times", false)
		if err != nil {
			return sum, err
		}
		queue, hasQueue, err := num("queue_times", true)
		if err != nil {
			return sum, err
		}
		if c := curs["generated_texts"]; c != nil {
			tok, err := c.next()
			if err != nil {
				return sum, err
			}
			if err := c.sc.Skip(tok); err != nil {
				return sum, syntaxErr(r.in.Path, err)
			}
		}
		status := schemas.StatusUnknown
		errText = ""
		if c := curs["errors"]; c != nil {
			tok, err := c.next()
			if err != nil {
				return sum, err
			}
			switch tok.Kind {
			case jsonscan.String:
				if errText, err = c.sc.Text(tok); err != nil {
					return sum, syntaxErr(r.in.Path, err)
				}
				status = schemas.StatusOK
				if errText != "" {
					status = schemas.StatusError
				}
			case jsonscan.Null:
				status = schemas.StatusOK
			default:
				reject(tok, "errors", "expected a string, found "+tok.Kind.String())
				if err := c.sc.Skip(tok); err != nil {
					return sum, syntaxErr(r.in.Path, err)
				}
			}
		} else if run.Completed.OK && run.Completed.V == int64(n) {
			status = schemas.StatusOK // every request succeeded
		}

		if bad != nil {
			r.sink.Reject(*bad)
			rejected++
			continue
		}
		req.Status, req.Error = status, errText
		if hasIn {
			req.InputTokens = schemas.Some(inLen)
		}
		ok := status == schemas.StatusOK
		if hasStart {
			req.StartS = schemas.Some(start)
		}
		if hasQueue {
			req.QueueS = schemas.Some(queue)
		}
		if hasGaps {
			req.ChunkGapsS = gaps
		}
		// A failed request carries vLLM's defaults (0, 0.0, []): no data.
		if ok {
			if hasOut {
				req.OutputTokens = schemas.Some(outLen)
			}
			switch {
			case hasTTFT && ttft > 0:
				req.TTFTS = schemas.Some(ttft)
				streamedAny = true
			case hasTTFT:
				unstreamedAny = true
			}
			switch {
			case hasLat:
				req.E2ES = schemas.Some(lat)
			case req.TTFTS.OK && hasGaps:
				// Without latencies, E2E = TTFT + the chunk gaps: exact up
				// to the microseconds between vLLM's two clock reads.
				e := ttft
				for _, g := range gaps {
					e += g
				}
				req.E2ES = schemas.Some(e)
			}
			if req.StartS.OK && req.E2ES.OK {
				req.EndS = schemas.Some(start + req.E2ES.V)
			}
			if hasGaps && len(gaps) > 0 && req.TTFTS.OK {
				itlChecked++
				if math.Abs(gaps[0]-ttft) <= 1e-9*math.Max(1, ttft) {
					itlMatches++
				}
			}
			if err := rc.add(&req, hasGaps); err != nil {
				return sum, err
			}
		} else {
			if hasOut && outLen > 0 {
				req.OutputTokens = schemas.Some(outLen) // partial output before the failure
			}
			if hasTTFT && ttft > 0 {
				req.TTFTS = schemas.Some(ttft)
			}
			if hasLat && lat > 0 {
				req.E2ES = schemas.Some(lat)
			}
		}
		if err := r.sink.Request(&req); err != nil {
			return sum, err
		}
	}
	for k, c := range curs {
		tok, err := c.sc.Next()
		if err != nil {
			return sum, syntaxErr(r.in.Path, err)
		}
		if tok.Kind != jsonscan.EndArray {
			return sum, &ingest.Error{File: r.in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Field: k,
				Err: fmt.Errorf("more elements than counted (file changed while it was read?)")}
		}
	}
	sum.itlHasTTFT = itlChecked > 0 && itlMatches*2 > itlChecked
	if !run.Streaming.OK && (streamedAny || unstreamedAny) {
		run.Streaming = schemas.Some(streamedAny)
	}
	switch {
	case rejected > 0:
		r.sink.Warn(fmt.Sprintf("%s: %d of %d request rows were rejected; statistics recomputed from the %d ingested rows may differ from the tool's", r.recordName(), rejected, n, n-rejected))
	case run.Completed.OK && rc.ok != run.Completed.V:
		r.sink.Warn(fmt.Sprintf("%s: %d requests succeeded in the per-request arrays, completed says %d", r.recordName(), rc.ok, run.Completed.V))
	}
	if noData || rc.ok == 0 {
		return sum, nil
	}
	return sum, r.emitComputed(run, tpotID, &rc, rejected)
}

// add records a successful request's observations.
func (c *recompute) add(req *schemas.Request, hasGaps bool) error {
	c.ok++
	if req.InputTokens.OK {
		c.inTok += req.InputTokens.V
	}
	if req.OutputTokens.OK {
		c.outTok += req.OutputTokens.V
	}
	if req.TTFTS.OK {
		if err := c.ttft.Add(req.TTFTS.V); err != nil {
			return err
		}
		if tpot := req.TPOT(); tpot.OK {
			if err := c.tpot.Add(tpot.V); err != nil {
				return err
			}
		}
	}
	if req.E2ES.OK {
		if err := c.e2e.Add(req.E2ES.V); err != nil {
			return err
		}
	}
	if hasGaps {
		for _, g := range req.ChunkGapsS {
			if err := c.itl.Add(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitComputed writes statistics recomputed from the arrays, with the
// same percentiles the tool reported (and p90, p99), and warns where the
// tool's own numbers disagree.
func (r *runReader) emitComputed(run *schemas.Run, tpotID schemas.MetricID, rc *recompute, rejected int) error {
	reportedPs := map[schemas.MetricID][]float64{}
	for _, m := range r.reported {
		if m.Stat == schemas.StatP {
			reportedPs[m.MetricID] = append(reportedPs[m.MetricID], m.Percentile.V)
		}
	}
	base := schemas.Metric{RunID: run.ID, Source: schemas.SourceComputed, Unit: schemas.UnitSeconds}
	if rejected > 0 {
		base.Note = fmt.Sprintf("over the ingested requests; %d rejected rows excluded", rejected)
	}
	var computed []schemas.Metric
	for _, s := range []struct {
		id schemas.MetricID
		f  *spill.Floats
	}{{schemas.TTFT, &rc.ttft}, {tpotID, &rc.tpot}, {schemas.ITLChunk, &rc.itl}, {schemas.E2E, &rc.e2e}} {
		if s.f.Len() == 0 {
			continue
		}
		n := schemas.Some(s.f.Len())
		add := func(stat, method string, p schemas.Opt[float64], v float64) {
			m := base
			m.MetricID, m.Stat, m.Method, m.Percentile, m.Value, m.N = s.id, stat, method, p, schemas.Some(v), n
			computed = append(computed, m)
		}
		ps := append([]float64{90, 99}, reportedPs[s.id]...)
		slices.Sort(ps)
		ps = slices.Compact(ps)
		qs := make([]float64, 0, len(ps)+1)
		qs = append(qs, 0.5)
		for _, p := range ps {
			qs = append(qs, p/100)
		}
		vals, err := s.f.Quantiles(qs, stats.Linear)
		if err != nil {
			return err
		}
		add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, s.f.Mean())
		add(schemas.StatMedian, string(stats.Linear), schemas.Opt[float64]{}, vals[0])
		add(schemas.StatStd, "population", schemas.Opt[float64]{}, s.f.StdDev(0))
		for i, p := range ps {
			add(schemas.StatP, string(stats.Linear), schemas.Some(p), vals[i+1])
		}
		add(schemas.StatMin, "", schemas.Opt[float64]{}, s.f.Min())
		add(schemas.StatMax, "", schemas.Opt[float64]{}, s.f.Max())
	}
	if d := run.DurationS; d.OK && d.V > 0 {
		rate := func(id schemas.MetricID, v float64) {
			m := base
			m.MetricID, m.Stat, m.Unit, m.Value, m.N = id, schemas.StatValue, schemas.MustLookup(id).Unit, schemas.Some(v/d.V), schemas.Some(rc.ok)
			computed = append(computed, m)
		}
		rate(schemas.RequestThroughput, float64(rc.ok))
		rate(schemas.OutputTokenThroughput, float64(rc.outTok))
		if r.rec.has("total_token_throughput") {
			rate(schemas.TotalTokenThroughput, float64(rc.inTok+rc.outTok))
		}
	}
	for _, m := range computed {
		if err := r.sink.Metric(&m); err != nil {
			return err
		}
	}
	if rejected == 0 {
		r.compare(computed, !r.rec.has("latencies"))
	}
	return nil
}

// Tolerance of the agreement check. vLLM's own numbers differ from a
// recomputation only by float noise, except that without the latencies
// array E2E (and so TPOT) is rebuilt as TTFT + chunk gaps, which is off by
// the microseconds between two perf_counter() reads (vllm.md section 7.13).
const (
	agreeRel        = 1e-6
	agreeRelDerived = 1e-4
)

// compare warns about reported statistics that disagree with recomputed
// ones.
func (r *runReader) compare(computed []schemas.Metric, derivedE2E bool) {
	ingest.Check{Where: r.recordName(), From: "the per-request arrays", Tolerance: func(m schemas.Metric) float64 {
		if derivedE2E && (m.MetricID == schemas.E2E || m.MetricID == schemas.TPOT || m.MetricID == schemas.TPOTInclTTFT) {
			return agreeRelDerived
		}
		return agreeRel
	}}.Compare(r.sink, r.reported, computed)
}
