package vllm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

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
	present, n, err := r.arrays()
	if err != nil || n <= 0 {
		return sum, err
	}
	sum.n = n
	if run.NumPrompts.OK && int64(n) != run.NumPrompts.V {
		r.sink.Warn(fmt.Sprintf("%s: per-request arrays hold %d requests, num_prompts is %d", r.recordName(), n, run.NumPrompts.V))
	}
	a := &arrayReader{r: r, run: run, n: n, curs: map[string]*cursor{}}
	defer a.close()
	for k, v := range present {
		c, err := openCursor(r.in, k, v)
		if err != nil {
			return sum, err
		}
		a.curs[k] = c
	}
	if c := a.curs["itls"]; c != nil && gapReadAhead && n >= gapBatchRows {
		a.gaps = startGapReader(c, n)
	}
	// The arrays are the second pass over the file: its bytes were
	// counted by the first, so the rows are counted here.
	tick := r.in.Pass("requests of "+r.recordName(), int64(n))
	defer tick(-1)
	const every = 4096 // rows per progress update
	for i := 0; i < n; i++ {
		if err := a.row(i); err != nil {
			return sum, err
		}
		if (i+1)%every == 0 {
			tick(every)
		}
	}
	tick(int64(n % every))
	if err := a.end(); err != nil {
		return sum, err
	}
	sum.itlHasTTFT = a.itlChecked > 0 && a.itlMatches*2 > a.itlChecked
	if !run.Streaming.OK && (a.streamedAny || a.unstreamedAny) {
		run.Streaming = schemas.Some(a.streamedAny)
	}
	switch {
	case a.rejected > 0:
		r.sink.Warn(fmt.Sprintf("%s: %d of %d request rows were rejected; statistics recomputed from the %d ingested rows may differ from the tool's", r.recordName(), a.rejected, n, n-a.rejected))
	case run.Completed.OK && a.rc.ok != run.Completed.V:
		r.sink.Warn(fmt.Sprintf("%s: %d requests succeeded in the per-request arrays, completed says %d", r.recordName(), a.rc.ok, run.Completed.V))
	}
	if noData || a.rc.ok == 0 {
		return sum, nil
	}
	return sum, r.emitComputed(run, tpotID, &a.rc, a.rejected)
}

// arrays finds the run's per-request arrays and their common length (-1
// when there are none).
func (r *runReader) arrays() (map[string]value, int, error) {
	present := map[string]value{}
	n := -1
	var first string
	for _, k := range arrayKeys {
		v, ok := r.use(k)
		if !ok {
			continue
		}
		if v.kind != jsonscan.BeginArray {
			return nil, 0, r.errAt(v, k, "expected an array, found %s", describe(v))
		}
		present[k] = v
		if n < 0 {
			n, first = v.n, k
		} else if v.n != n {
			return nil, 0, r.errAt(v, k, "has %d elements but %s has %d; per-request arrays must be index-aligned", v.n, first, n)
		}
	}
	return present, n, nil
}

// An arrayReader reads one run's per-request arrays, one index at a time.
type arrayReader struct {
	r    *runReader
	run  *schemas.Run
	n    int
	curs map[string]*cursor
	gaps *gapReader // the itls cursor, read ahead (nil: none, or read in line)
	rc   recompute

	i   int                // the index being read
	bad *schemas.Rejection // the first problem of the row

	itlMatches, itlChecked     int
	streamedAny, unstreamedAny bool
	rejected                   int
}

func (a *arrayReader) close() {
	if a.gaps != nil {
		a.gaps.stop()
	}
	for _, c := range a.curs {
		c.close()
	}
	a.rc.close()
}

// reject records the row's first problem.
func (a *arrayReader) reject(tok jsonscan.Token, field, reason string) {
	if a.bad == nil {
		a.bad = &schemas.Rejection{Table: schemas.TableRequests, Line: tok.Pos.Line, Column: tok.Pos.Col,
			Record: fmt.Sprintf("%s, request %d", a.r.recordName(), a.i), Field: fmt.Sprintf("%s[%d]", field, a.i), Reason: reason}
	}
}

// num reads one numeric element; a missing or malformed one rejects the
// row.
func (a *arrayReader) num(key string, nonNeg bool) (float64, bool, error) {
	c := a.curs[key]
	if c == nil {
		return 0, false, nil
	}
	tok, err := c.next()
	if err != nil {
		return 0, false, err
	}
	if tok.Kind != jsonscan.Number {
		a.reject(tok, key, "expected a number, found "+tok.Kind.String())
		return 0, false, c.sc.Skip(tok)
	}
	f, perr := jsonscan.Float(tok.Raw)
	switch {
	case perr != nil:
		a.reject(tok, key, "bad number")
	case math.IsNaN(f) || math.IsInf(f, 0):
		a.reject(tok, key, "non-finite value "+string(tok.Raw))
	case nonNeg && f < 0:
		a.reject(tok, key, "negative value "+string(tok.Raw))
	default:
		return f, true, nil
	}
	return 0, false, nil
}

func (a *arrayReader) integer(key string) (int64, bool, error) {
	f, ok, err := a.num(key, true)
	if err != nil || !ok {
		return 0, false, err
	}
	if f != math.Trunc(f) || f > 1<<53 {
		c := a.curs[key]
		a.reject(jsonscan.Token{Pos: c.sc.Pos()}, key, "expected an integer token count, found "+strconv.FormatFloat(f, 'g', -1, 64))
		return 0, false, nil
	}
	return int64(f), true, nil
}

// chunkGaps reads one request's chunk gaps.
func (a *arrayReader) chunkGaps() ([]float64, bool, error) {
	c := a.curs["itls"]
	if c == nil {
		return nil, false, nil
	}
	var tok jsonscan.Token
	var xs []float64
	var badTok *jsonscan.Token
	var err error
	if a.gaps != nil {
		tok, xs, badTok, err = a.gaps.next()
	} else {
		if tok, err = c.next(); err != nil {
			return nil, false, err
		}
		xs, badTok, err = c.floats(tok)
	}
	if err != nil {
		return nil, false, err
	}
	if badTok != nil {
		a.reject(*badTok, "itls", "expected a list of numbers")
		return nil, false, nil
	}
	for _, g := range xs {
		if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
			a.reject(tok, "itls", "chunk gap must be finite and non-negative, found "+strconv.FormatFloat(g, 'g', -1, 64))
			return xs, false, nil
		}
	}
	return xs, true, nil
}

// skipText steps over one generated text.
func (a *arrayReader) skipText() error {
	c := a.curs["generated_texts"]
	if c == nil {
		return nil
	}
	tok, err := c.next()
	if err != nil {
		return err
	}
	if err := c.sc.Skip(tok); err != nil {
		return syntaxErr(a.r.in.Path, err)
	}
	return nil
}

// status reads one request's error text: "" is success.
func (a *arrayReader) status() (string, string, error) {
	c := a.curs["errors"]
	if c == nil {
		if a.run.Completed.OK && a.run.Completed.V == int64(a.n) {
			return schemas.StatusOK, "", nil // every request succeeded
		}
		return schemas.StatusUnknown, "", nil
	}
	tok, err := c.next()
	if err != nil {
		return "", "", err
	}
	switch tok.Kind {
	case jsonscan.String:
		text, err := c.sc.Text(tok)
		if err != nil {
			return "", "", syntaxErr(a.r.in.Path, err)
		}
		if text != "" {
			return schemas.StatusError, text, nil
		}
		return schemas.StatusOK, "", nil
	case jsonscan.Null:
		return schemas.StatusOK, "", nil
	}
	a.reject(tok, "errors", "expected a string, found "+tok.Kind.String())
	if err := c.sc.Skip(tok); err != nil {
		return "", "", syntaxErr(a.r.in.Path, err)
	}
	return schemas.StatusUnknown, "", nil
}

// rowValues are one index's elements.
type rowValues struct {
	inLen, outLen             int64
	ttft, lat, start, queue   float64
	gaps                      []float64
	hasIn, hasOut, hasTTFT    bool
	hasGaps, hasLat, hasStart bool
	hasQueue                  bool
	status, errText           string
}

// read reads index i of every array.
func (a *arrayReader) read() (rowValues, error) {
	var v rowValues
	var err error
	if v.inLen, v.hasIn, err = a.integer("input_lens"); err != nil {
		return v, err
	}
	if v.outLen, v.hasOut, err = a.integer("output_lens"); err != nil {
		return v, err
	}
	if v.ttft, v.hasTTFT, err = a.num("ttfts", true); err != nil {
		return v, err
	}
	if v.gaps, v.hasGaps, err = a.chunkGaps(); err != nil {
		return v, err
	}
	if v.lat, v.hasLat, err = a.num("latencies", true); err != nil {
		return v, err
	}
	if v.start, v.hasStart, err = a.num("start_times", false); err != nil {
		return v, err
	}
	if v.queue, v.hasQueue, err = a.num("queue_times", true); err != nil {
		return v, err
	}
	if err := a.skipText(); err != nil {
		return v, err
	}
	v.status, v.errText, err = a.status()
	return v, err
}

// row reads index i and reports it as a request row or a rejection.
func (a *arrayReader) row(i int) error {
	a.i, a.bad = i, nil
	v, err := a.read()
	if err != nil {
		return err
	}
	if a.bad != nil {
		a.r.sink.Reject(*a.bad)
		a.rejected++
		return nil
	}
	req := schemas.Request{RunID: a.run.ID, Index: int64(i), Phase: schemas.PhaseProfiling, Status: v.status, Error: v.errText}
	if v.hasIn {
		req.InputTokens = schemas.Some(v.inLen)
	}
	if v.hasStart {
		req.StartS = schemas.Some(v.start)
	}
	if v.hasQueue {
		req.QueueS = schemas.Some(v.queue)
	}
	if v.hasGaps {
		req.ChunkGapsS = v.gaps
	}
	if v.status == schemas.StatusOK {
		if err := a.succeeded(&req, v); err != nil {
			return err
		}
	} else {
		// A failed request carries vLLM's defaults (0, 0.0, []): no data.
		if v.hasOut && v.outLen > 0 {
			req.OutputTokens = schemas.Some(v.outLen) // partial output before the failure
		}
		if v.hasTTFT && v.ttft > 0 {
			req.TTFTS = schemas.Some(v.ttft)
		}
		if v.hasLat && v.lat > 0 {
			req.E2ES = schemas.Some(v.lat)
		}
	}
	return a.r.sink.Request(&req)
}

// succeeded fills a successful request's latencies and records its
// observations.
func (a *arrayReader) succeeded(req *schemas.Request, v rowValues) error {
	if v.hasOut {
		req.OutputTokens = schemas.Some(v.outLen)
	}
	switch {
	case v.hasTTFT && v.ttft > 0:
		req.TTFTS = schemas.Some(v.ttft)
		a.streamedAny = true
	case v.hasTTFT:
		a.unstreamedAny = true
	}
	switch {
	case v.hasLat:
		req.E2ES = schemas.Some(v.lat)
	case req.TTFTS.OK && v.hasGaps:
		// Without latencies, E2E = TTFT + the chunk gaps: exact up to the
		// microseconds between vLLM's two clock reads.
		e := v.ttft
		for _, g := range v.gaps {
			e += g
		}
		req.E2ES = schemas.Some(e)
	}
	if req.StartS.OK && req.E2ES.OK {
		req.EndS = schemas.Some(v.start + req.E2ES.V)
	}
	if v.hasGaps && len(v.gaps) > 0 && req.TTFTS.OK {
		a.itlChecked++
		if math.Abs(v.gaps[0]-v.ttft) <= 1e-9*math.Max(1, v.ttft) {
			a.itlMatches++
		}
	}
	return a.rc.add(req, v.hasGaps)
}

// end checks that every array ends where it was counted to.
func (a *arrayReader) end() error {
	if a.gaps != nil {
		a.gaps.wait() // it has read its n elements: the cursor is free
	}
	for k, c := range a.curs {
		tok, err := c.sc.Next()
		if err != nil {
			return syntaxErr(a.r.in.Path, err)
		}
		if tok.Kind != jsonscan.EndArray {
			return &ingest.Error{File: a.r.in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Field: k,
				Err: fmt.Errorf("more elements than counted (file changed while it was read?)")}
		}
	}
	return nil
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
		return c.itl.AddAll(req.ChunkGapsS)
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
	series := []struct {
		id schemas.MetricID
		f  *spill.Floats
	}{{schemas.TTFT, &rc.ttft}, {tpotID, &rc.tpot}, {schemas.ITLChunk, &rc.itl}, {schemas.E2E, &rc.e2e}}
	// Each series' quantiles (a sort, or a selection over the spilled
	// chunk gaps) are independent: they are read at once, on every core.
	pss := make([][]float64, len(series))
	valss := make([][]float64, len(series))
	errs := make([]error, len(series))
	var wg sync.WaitGroup
	for i, s := range series {
		if s.f.Len() == 0 {
			continue
		}
		ps := append([]float64{90, 99}, reportedPs[s.id]...)
		slices.Sort(ps)
		pss[i] = slices.Compact(ps)
		qs := make([]float64, 0, len(pss[i])+1)
		qs = append(qs, 0.5)
		for _, p := range pss[i] {
			qs = append(qs, p/100)
		}
		wg.Go(func() { valss[i], errs[i] = s.f.Quantiles(qs, stats.Linear) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, s := range series {
		if s.f.Len() == 0 {
			continue
		}
		n := schemas.Some(s.f.Len())
		add := func(stat, method string, p schemas.Opt[float64], v float64) {
			m := base
			m.MetricID, m.Stat, m.Method, m.Percentile, m.Value, m.N = s.id, stat, method, p, schemas.Some(v), n
			computed = append(computed, m)
		}
		ps, vals := pss[i], valss[i]
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
