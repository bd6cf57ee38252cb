package aiperf

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// profile_export.jsonl holds one record per request:
//
//	{"metadata": {"request_start_ns", "request_end_ns", "benchmark_phase", ...},
//	 "metrics": {"<tag>": {"value": number | [numbers], "unit": "ms"}}, "error": null | {...}}
//
// Lines are read one at a time with one reused scanner, so a malformed
// line costs one rejected row and memory does not grow with the file.
// Values are in display units (ms); each is converted by its own unit.

// slots of the per-record metrics verdict keeps.
const (
	sTTFT = iota
	sTTFO
	sLatency
	sITL
	sISL
	sOSL
	sOutCount
	sReasoning
	sErrISL
	nSlots
)

// slotOf maps a tag to a slot; -1 for tags verdict does not keep per
// request (they are functions of the kept ones, or extras).
func slotOf(tag []byte) int {
	switch string(tag) {
	case "time_to_first_token", "ttft":
		return sTTFT
	case "time_to_first_output_token":
		return sTTFO
	case "request_latency":
		return sLatency
	case "inter_token_latency":
		return sITL
	case "input_sequence_length":
		return sISL
	case "output_sequence_length":
		return sOSL
	case "output_token_count":
		return sOutCount
	case "reasoning_token_count":
		return sReasoning
	case "error_isl":
		return sErrISL
	}
	return -1
}

var slotTags = [nSlots]string{"time_to_first_token", "time_to_first_output_token", "request_latency", "inter_token_latency",
	"input_sequence_length", "output_sequence_length", "output_token_count", "reasoning_token_count", "error_isl"}

func isTimeSlot(s int) bool { return s <= sITL }

// spillLimit keeps each recomputed sample's in-memory part small: there
// are fifteen of them.
const spillLimit = 1 << 18

// recompute holds the observations AIPerf aggregates, over successful
// profiling records.
type recompute struct {
	ttft, ttfo, ttst, itl, e2e, tpot, tps, isl, osl, answer, reasoning, e2eRate, prefill, errISL spill.Floats

	ok, failed, warmup                    int64
	minStart, maxEnd                      int64
	sumISL, sumOSL, sumAnswer, sumReason  int64
	sumErrISL                             int64
	haveISL, haveOSL, haveAnswer, haveRsn bool
}

func (c *recompute) all() []*spill.Floats {
	return []*spill.Floats{&c.ttft, &c.ttfo, &c.ttst, &c.itl, &c.e2e, &c.tpot, &c.tps, &c.isl, &c.osl, &c.answer,
		&c.reasoning, &c.e2eRate, &c.prefill, &c.errISL}
}

type recordReader struct {
	ctx   context.Context
	in    *ingest.Input
	sink  ingest.Sink
	runID string

	rc  recompute
	req schemas.Request

	rows, rejected      int64
	summaryCount        schemas.Opt[int64] // the summary's request_count, when read with one
	streamed            bool
	itlChecked, itlOff  int64
	firstStart, lastEnd int64
	haveTimes           bool
	lay                 layout // of every line
	fastLines           int64  // lines the fast path read
	general             bool   // tests: the general path only

	distributions bool // see newRecordReader
}

// newRecordReader reads records. distributions says whether to recompute
// AIPerf's per-metric distributions at ingest: worth it when the summary is
// at hand to check against (an artifacts directory); for a lone records
// file `verdict stats` computes them from the stored rows, so ingest keeps
// only counts, sums and the span.
func newRecordReader(ctx context.Context, in *ingest.Input, sink ingest.Sink, runID string, distributions bool) *recordReader {
	r := &recordReader{ctx: ctx, in: in, sink: sink, runID: runID, distributions: distributions}
	r.rc.minStart, r.rc.maxEnd = math.MaxInt64, math.MinInt64
	for _, f := range r.rc.all() {
		f.MemLimit = spillLimit
	}
	return r
}

func (r *recordReader) close() {
	for _, f := range r.rc.all() {
		f.Close()
	}
}

// read reads every line: in parallel blocks (see records_blocks.go), or
// on this goroutine alone with one worker.
func (r *recordReader) read() error {
	rc, err := r.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := &blockReader{path: r.in.Path, r: rc}
	newParser := func() *blockParser {
		lp := newLineParser(r.in.Path)
		lp.general = r.general
		return &blockParser{lp}
	}
	if n := workers(); n > 1 {
		p := startPipeline(br, newParser, n)
		defer p.stop()
		for blk := p.next(); blk != nil; blk = p.next() {
			err := r.commitBlock(blk)
			p.release(blk)
			if err != nil {
				return err
			}
		}
	} else {
		bp, blk := newParser(), newBlock()
		for br.fill(blk) {
			bp.parse(blk)
			if err := r.commitBlock(blk); err != nil {
				return err
			}
		}
	}
	if r.rows == 0 {
		return &ingest.Error{File: r.in.Path, Err: fmt.Errorf("no records")}
	}
	return nil
}

// commitBlock commits a parsed block's records in order.
func (r *recordReader) commitBlock(blk *block) error {
	r.lay.or(blk.lay)
	r.fastLines += blk.fast
	for i := range blk.recs {
		if err := r.commit(&blk.recs[i]); err != nil {
			return err
		}
	}
	if blk.err != nil {
		return blk.err
	}
	return r.ctx.Err()
}

// commit turns a parsed record into a request row, or its rejection, and
// adds it to the recomputation. Records are committed in input order,
// which gives them their index.
func (r *recordReader) commit(rec *record) error {
	idx := r.rows
	r.rows++
	if rec.bad != nil {
		rej := *rec.bad
		rej.Record = "record " + strconv.FormatInt(idx, 10)
		r.sink.Reject(rej)
		r.rejected++
		return nil
	}
	phase := rec.phase
	if phase == "" {
		phase = schemas.PhaseProfiling
	}
	req := &r.req
	*req = schemas.Request{RunID: r.runID, Index: idx, Phase: phase, Status: schemas.StatusOK}
	failed := rec.errTxt != "" || rec.cancel
	if failed {
		req.Status, req.Error = schemas.StatusError, rec.errTxt
		if req.Error == "" {
			req.Error = "cancelled"
		}
	}
	opt := func(s int) schemas.Opt[float64] {
		if rec.has[s] {
			return schemas.Some(rec.vals[s])
		}
		return schemas.Opt[float64]{}
	}
	tokens := func(s int) schemas.Opt[int64] {
		if rec.has[s] {
			return schemas.Some(int64(rec.vals[s]))
		}
		return schemas.Opt[int64]{}
	}
	req.TTFTS, req.TTFTAnswerS, req.E2ES = opt(sTTFT), opt(sTTFO), opt(sLatency)
	req.InputTokens, req.OutputTokens, req.ReasoningTokens = tokens(sISL), tokens(sOSL), tokens(sReasoning)
	if failed && !req.InputTokens.OK {
		req.InputTokens = tokens(sErrISL)
	}
	if !req.ReasoningTokens.OK && rec.has[sOSL] && rec.has[sOutCount] && rec.vals[sOSL] >= rec.vals[sOutCount] {
		req.ReasoningTokens = schemas.Some(int64(rec.vals[sOSL] - rec.vals[sOutCount]))
	}
	if rec.hasICL {
		req.ChunkGapsS = rec.gaps
	}
	var endNs int64
	hasEndNs := false
	if rec.hasSt {
		req.StartS = schemas.Some(float64(rec.start) / 1e9)
		if req.E2ES.OK {
			endNs, hasEndNs = rec.start+int64(math.Round(req.E2ES.V*1e9)), true
		}
	}
	if !hasEndNs && rec.hasEnd {
		endNs, hasEndNs = rec.end, true
	}
	if hasEndNs {
		req.EndS = schemas.Some(float64(endNs) / 1e9)
	}
	if req.TTFTS.OK {
		r.streamed = true
	}
	if err := r.sink.Request(req); err != nil {
		return err
	}
	if rec.hasSt && hasEndNs {
		if !r.haveTimes || rec.start < r.firstStart {
			r.firstStart = rec.start
		}
		if !r.haveTimes || endNs > r.lastEnd {
			r.lastEnd = endNs
		}
		r.haveTimes = true
	}
	c := &r.rc
	switch {
	case phase == schemas.PhaseWarmup:
		c.warmup++
		return nil
	case failed:
		c.failed++
		if rec.has[sErrISL] {
			c.sumErrISL += int64(rec.vals[sErrISL])
			return c.errISL.Add(rec.vals[sErrISL])
		}
		return nil
	}
	return r.add(req, rec)
}

// add records a successful profiling record's observations the way
// AIPerf derives them.
func (r *recordReader) add(req *schemas.Request, rec *record) error {
	c := &r.rc
	c.ok++
	if rec.hasSt && req.E2ES.OK {
		c.minStart = min(c.minStart, rec.start)
		c.maxEnd = max(c.maxEnd, rec.start+int64(math.Round(req.E2ES.V*1e9)))
	}
	if rec.has[sISL] {
		c.sumISL += int64(rec.vals[sISL])
		c.haveISL = true
	}
	if rec.has[sOSL] {
		c.sumOSL += int64(rec.vals[sOSL])
		c.haveOSL = true
	}
	if rec.has[sOutCount] {
		c.sumAnswer += int64(rec.vals[sOutCount])
		c.haveAnswer = true
	}
	if rec.has[sReasoning] {
		c.sumReason += int64(rec.vals[sReasoning])
		c.haveRsn = true
	}
	if !r.distributions {
		if req.TTFTS.OK && req.E2ES.OK && rec.has[sOSL] && rec.vals[sOSL] >= 2 && rec.has[sITL] {
			tpot := (req.E2ES.V - req.TTFTS.V) / (rec.vals[sOSL] - 1)
			r.itlChecked++
			if math.Abs(rec.vals[sITL]-tpot) > 1e-9*math.Max(tpot, 1e-9) {
				r.itlOff++
			}
		}
		return nil
	}
	adds := []struct {
		f  *spill.Floats
		ok bool
		v  float64
	}{
		{&c.ttft, req.TTFTS.OK, req.TTFTS.V},
		{&c.ttfo, req.TTFTAnswerS.OK, req.TTFTAnswerS.V},
		{&c.e2e, req.E2ES.OK, req.E2ES.V},
		{&c.isl, rec.has[sISL], rec.vals[sISL]},
		{&c.osl, rec.has[sOSL], rec.vals[sOSL]},
		{&c.answer, rec.has[sOutCount] && rec.vals[sOutCount] > 0, rec.vals[sOutCount]},
		{&c.reasoning, rec.has[sReasoning], rec.vals[sReasoning]},
	}
	for _, a := range adds {
		if a.ok {
			if err := a.f.Add(a.v); err != nil {
				return err
			}
		}
	}
	if len(req.ChunkGapsS) > 0 {
		if err := c.ttst.Add(req.ChunkGapsS[0]); err != nil {
			return err
		}
		for _, g := range req.ChunkGapsS {
			if err := c.itl.Add(g); err != nil {
				return err
			}
		}
	}
	if req.TTFTS.OK && req.E2ES.OK && rec.has[sOSL] && rec.vals[sOSL] >= 2 {
		tpot := (req.E2ES.V - req.TTFTS.V) / (rec.vals[sOSL] - 1)
		if err := c.tpot.Add(tpot); err != nil {
			return err
		}
		if tpot > 0 {
			if err := c.tps.Add(1 / tpot); err != nil {
				return err
			}
		}
		if rec.has[sITL] {
			r.itlChecked++
			if math.Abs(rec.vals[sITL]-tpot) > 1e-9*math.Max(tpot, 1e-9) {
				r.itlOff++
			}
		}
	}
	if req.E2ES.OK && req.E2ES.V > 0 && rec.has[sOSL] {
		if err := c.e2eRate.Add(rec.vals[sOSL] / req.E2ES.V); err != nil {
			return err
		}
	}
	if req.TTFTS.OK && req.TTFTS.V > 0 && rec.has[sISL] {
		if err := c.prefill.Add(rec.vals[sISL] / req.TTFTS.V); err != nil {
			return err
		}
	}
	return nil
}

// versions is what the records' layout says of the version.
func (r *recordReader) versions() versions {
	vs := anyVersion()
	switch {
	case r.lay.dev:
		vs.until("0.1")
	case r.lay.phase:
		vs.since("0.2") // the per-record export shipped in 0.2.0
	}
	if r.lay.credit {
		vs.since("0.6")
	}
	return vs
}

// standaloneRun is the run of a records file read on its own.
func (r *recordReader) standaloneRun() *schemas.Run {
	c := &r.rc
	vs := r.versions()
	run := &schemas.Run{ID: r.runID, Tool: "aiperf", ToolVersion: vs.String(), Format: kindRecords,
		SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
		Completed: schemas.Some(c.ok), Failed: schemas.Some(c.failed), WindowKind: schemas.WindowKindSpan,
		TokenSource: "client tokenizer (reasoning_content counted as output; chat template not applied)",
		Labels:      map[string]string{"request_times": "unix epoch seconds (AIPerf wall clock, request_start_ns)"},
		Streaming:   schemas.Some(r.streamed)}
	run.Flags = append(run.Flags, "streaming_inferred")
	if c.ok > 0 && c.maxEnd > c.minStart {
		run.DurationS = schemas.Some(float64(c.maxEnd-c.minStart) / 1e9)
		run.WindowStart = schemas.Some(time.Unix(0, c.minStart).UTC())
		run.WindowEnd = schemas.Some(time.Unix(0, c.maxEnd).UTC())
		run.Flags = append(run.Flags, "duration_recomputed")
	}
	if c.warmup > 0 {
		run.Labels["warmup_records"] = strconv.FormatInt(c.warmup, 10)
	}
	if c.haveRsn && c.sumReason > 0 {
		run.Flags = append(run.Flags, "reasoning_counted_as_output")
	}
	slices.Sort(run.Flags)
	return run
}

// percentiles AIPerf reports (p10 from 0.2).
var percentiles = []float64{1, 5, 10, 25, 75, 90, 95, 99}

// emitComputed writes the statistics recomputed from the records and,
// when the summary's reported statistics are given, warns where they
// disagree.
func (r *recordReader) emitComputed(reported []schemas.Metric) error {
	defer r.close()
	c := &r.rc
	if r.itlOff > 0 {
		r.sink.Warn(fmt.Sprintf("%s: %d of %d records' inter_token_latency differs from (request_latency - time_to_first_token) / (output_sequence_length - 1)",
			r.in.Path, r.itlOff, r.itlChecked))
	}
	if r.rejected > 0 {
		r.sink.Warn(fmt.Sprintf("%s: %d of %d records were rejected; recomputed statistics cover the rest", r.in.Path, r.rejected, r.rows))
	}
	if c.warmup > 0 {
		r.sink.Warn(fmt.Sprintf("%s: %d warm-up records ingested with phase %q and left out of the recomputed statistics", r.in.Path, c.warmup, schemas.PhaseWarmup))
	}
	base := schemas.Metric{RunID: r.runID, Source: schemas.SourceComputed}
	if r.rejected > 0 {
		base.Note = fmt.Sprintf("over the ingested records; %d rejected rows excluded", r.rejected)
	}
	var out []schemas.Metric
	for _, s := range []struct {
		id schemas.MetricID
		f  *spill.Floats
	}{
		{schemas.TTFT, &c.ttft}, {schemas.TTFTAnswer, &c.ttfo}, {schemas.TTST, &c.ttst}, {schemas.ITLChunk, &c.itl}, {schemas.TPOT, &c.tpot},
		{schemas.OutputTokenRatePerUser, &c.tps}, {schemas.E2E, &c.e2e}, {schemas.InputTokens, &c.isl}, {schemas.OutputTokens, &c.osl},
		{schemas.AnswerTokens, &c.answer}, {schemas.ReasoningTokens, &c.reasoning}, {schemas.E2EOutputTokenRate, &c.e2eRate},
		{schemas.PrefillRatePerUser, &c.prefill}, {schemas.InputTokensFailed, &c.errISL},
	} {
		ms, err := distribution(base, s.id, s.f)
		if err != nil {
			return err
		}
		out = append(out, ms...)
	}
	value := func(id schemas.MetricID, stat string, v float64, n int64) {
		m := base
		m.MetricID, m.Stat, m.Unit, m.Value, m.N = id, stat, schemas.MustLookup(id).Unit, schemas.Some(v), schemas.Some(n)
		out = append(out, m)
	}
	if c.haveISL {
		value(schemas.InputTokens, schemas.StatSum, float64(c.sumISL), c.ok)
	}
	if c.haveOSL {
		value(schemas.OutputTokens, schemas.StatSum, float64(c.sumOSL), c.ok)
	}
	if c.haveAnswer {
		value(schemas.AnswerTokens, schemas.StatSum, float64(c.sumAnswer), c.ok)
	}
	if c.haveRsn {
		value(schemas.ReasoningTokens, schemas.StatSum, float64(c.sumReason), c.ok)
	}
	if c.errISL.Len() > 0 {
		value(schemas.InputTokensFailed, schemas.StatSum, float64(c.sumErrISL), c.failed)
	}
	if c.ok > 0 && c.maxEnd > c.minStart {
		d := float64(c.maxEnd-c.minStart) / 1e9
		value(schemas.RequestThroughputSpan, schemas.StatValue, float64(c.ok)/d, c.ok)
		if c.haveOSL {
			value(schemas.OutputTokenThroughputSpan, schemas.StatValue, float64(c.sumOSL)/d, c.ok)
		}
		if c.haveISL && c.haveOSL {
			value(schemas.TotalTokenThroughputSpan, schemas.StatValue, float64(c.sumISL+c.sumOSL)/d, c.ok)
		}
	}
	for i := range out {
		if err := r.sink.Metric(&out[i]); err != nil {
			return err
		}
	}
	if reported != nil && r.rejected == 0 {
		r.check(reported, out)
	}
	return nil
}

// distribution computes the statistics AIPerf reports for one metric.
func distribution(base schemas.Metric, id schemas.MetricID, f *spill.Floats) ([]schemas.Metric, error) {
	if f.Len() == 0 {
		return nil, nil
	}
	qs := []float64{0.5}
	for _, p := range percentiles {
		qs = append(qs, p/100)
	}
	vals, err := f.Quantiles(qs, stats.Linear)
	if err != nil {
		return nil, err
	}
	unit := schemas.MustLookup(id).Unit
	var out []schemas.Metric
	add := func(stat, method string, p schemas.Opt[float64], v float64) {
		m := base
		m.MetricID, m.Stat, m.Method, m.Percentile, m.Value, m.N, m.Unit = id, stat, method, p, schemas.Some(v), schemas.Some(f.Len()), unit
		out = append(out, m)
	}
	add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, f.Mean())
	add(schemas.StatMedian, string(stats.Linear), schemas.Opt[float64]{}, vals[0])
	add(schemas.StatStd, "population", schemas.Opt[float64]{}, f.StdDev(0))
	for i, p := range percentiles {
		add(schemas.StatP, string(stats.Linear), schemas.Some(p), vals[i+1])
	}
	add(schemas.StatMin, "", schemas.Opt[float64]{}, f.Min())
	add(schemas.StatMax, "", schemas.Opt[float64]{}, f.Max())
	return out, nil
}

// Agreement tolerance: the records hold display values (ms) printed at
// full precision, so recomputation differs from AIPerf's nanosecond
// arithmetic by float rounding only; request-level throughputs carry the
// sub-nanosecond rounding of end times.
const (
	agreeRel     = 1e-9
	agreeRelRate = 1e-6
)

// check compares reported statistics with those recomputed from the
// records; a summary that counts more requests than the records hold (a
// trimmed records file) is the cause of the disagreements it finds.
func (r *recordReader) check(reported, computed []schemas.Metric) {
	c := ingest.Check{Where: r.in.Path, From: "the records", Tolerance: func(m schemas.Metric) float64 {
		if schemas.MustLookup(m.MetricID).Level == schemas.LevelRun {
			return agreeRelRate
		}
		return agreeRel
	}}
	if n := r.summaryCount; n.OK && n.V != r.rc.ok {
		c.Cause = fmt.Sprintf("the records hold %d of the %d successful requests the summary counts, so their statistics are of another population", r.rc.ok, n.V)
	}
	c.Compare(r.sink, reported, computed)
}
