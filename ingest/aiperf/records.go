package aiperf

import (
	"bufio"
	"bytes"
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

	sc  *jsonscan.Scanner
	br  bytes.Reader
	rc  recompute
	req schemas.Request

	rows, rejected      int64
	summaryCount        schemas.Opt[int64] // the summary's request_count, when read with one
	streamed, devLayout bool
	phaseSeen, creditNs bool
	itlChecked, itlOff  int64
	firstStart, lastEnd int64
	haveTimes           bool

	// the record being read
	vals   [nSlots]float64
	has    [nSlots]bool
	icl    []float64
	hasICL bool
	start  int64
	end    int64
	hasSt  bool
	hasEnd bool
	phase  string
	cancel bool
	errTxt string
	bad    *schemas.Rejection
	idx    int64

	distributions bool // see newRecordReader
}

// newRecordReader reads records. distributions says whether to recompute
// AIPerf's per-metric distributions at ingest: worth it when the summary is
// at hand to check against (an artifacts directory); for a lone records
// file `verdict stats` computes them from the stored rows, so ingest keeps
// only counts, sums and the span.
func newRecordReader(ctx context.Context, in *ingest.Input, sink ingest.Sink, runID string, distributions bool) *recordReader {
	r := &recordReader{ctx: ctx, in: in, sink: sink, runID: runID, sc: jsonscan.New(nil), distributions: distributions}
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

// read reads every line.
func (r *recordReader) read() error {
	rc, err := r.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	var long []byte
	var off int64
	line := 0
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, b...)
			continue
		}
		if err != nil && err != io.EOF {
			return &ingest.Error{File: r.in.Path, Line: line + 1, Err: err}
		}
		if len(long) > 0 {
			long = append(long, b...)
			b = long
		}
		if len(b) > 0 {
			line++
			if e := r.line(b, line, off); e != nil {
				return e
			}
			off += int64(len(b))
		}
		long = long[:0]
		if err == io.EOF {
			break
		}
		if line&0xfff == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
	}
	if r.rows == 0 {
		return &ingest.Error{File: r.in.Path, Err: fmt.Errorf("no records")}
	}
	return nil
}

func (r *recordReader) reject(p jsonscan.Pos, field, reason string) {
	r.rejectIn(p, field, nil, "", reason)
}

// rejectIn rejects the record for the field a+b+c; the name is built only
// for the first problem, so the hot path allocates nothing.
func (r *recordReader) rejectIn(p jsonscan.Pos, a string, b []byte, c, reason string) {
	if r.bad == nil {
		r.bad = &schemas.Rejection{Table: schemas.TableRequests, Line: p.Line, Column: p.Col,
			Record: "record " + strconv.FormatInt(r.idx, 10), Field: a + string(b) + c, Reason: reason}
	}
}

// line reads one record. Only I/O and sink failures are returned; a bad
// record is rejected.
func (r *recordReader) line(b []byte, line int, off int64) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	idx := r.rows
	r.rows++
	r.idx = idx
	r.has = [nSlots]bool{}
	r.icl, r.hasICL = r.icl[:0], false
	r.hasSt, r.hasEnd, r.phase, r.cancel, r.errTxt, r.bad = false, false, "", false, "", nil
	r.br.Reset(b)
	r.sc.Reset(&r.br, jsonscan.Pos{Off: off, Line: line, Col: 1})
	if err := r.parse(); err != nil {
		if se, ok := err.(*jsonscan.SyntaxError); ok {
			r.bad = nil
			r.reject(se.Pos, "", "malformed JSON: "+se.Msg)
		} else {
			return err
		}
	}
	if r.bad != nil {
		r.sink.Reject(*r.bad)
		r.rejected++
		return nil
	}
	return r.commit(idx)
}

// key returns an object key's text without allocating when it has no
// escapes.
func (r *recordReader) key(tok jsonscan.Token) ([]byte, error) {
	if tok.Kind != jsonscan.Key {
		// Unreachable while every value is read or skipped; a reader
		// that leaves one unread fails here with a position, not a
		// slice bounds panic.
		return nil, &jsonscan.SyntaxError{Pos: tok.Pos, Msg: "expected an object key, found " + tok.Kind.String()}
	}
	k := tok.Raw[1 : len(tok.Raw)-1]
	if bytes.IndexByte(k, '\\') < 0 {
		return k, nil
	}
	s, err := r.sc.Text(tok)
	return []byte(s), err
}

// parse reads the record's object; it returns *jsonscan.SyntaxError for
// malformed JSON.
func (r *recordReader) parse() error {
	sc := r.sc
	tok, err := sc.Next()
	if err != nil {
		return err
	}
	if tok.Kind != jsonscan.BeginObject {
		r.reject(tok.Pos, "", "expected a record object, found "+tok.Kind.String())
		return sc.Skip(tok)
	}
	for {
		k, err := sc.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := r.key(k)
		if err != nil {
			return err
		}
		v, err := sc.Next()
		if err != nil {
			return err
		}
		switch string(key) {
		case "metadata":
			err = r.metadata(v)
		case "metrics":
			err = r.metrics(v)
		case "error":
			if v.Kind != jsonscan.Null {
				n, e := jtree.Read(r.in.Path, sc, v)
				if e != nil {
					return syntaxOf(e, v.Pos)
				}
				r.errTxt = errorText(n)
			}
		default:
			err = sc.Skip(v)
		}
		if err != nil {
			return err
		}
	}
	if t, err := sc.Next(); err != io.EOF {
		if err != nil {
			return err
		}
		r.reject(t.Pos, "", "more than one JSON value on the line")
	}
	return nil
}

// syntaxOf recovers the scanner's syntax error from a jtree error.
func syntaxOf(err error, p jsonscan.Pos) error {
	if ie, ok := err.(*ingest.Error); ok {
		return &jsonscan.SyntaxError{Pos: jsonscan.Pos{Line: ie.Line, Col: ie.Column}, Msg: strings.TrimPrefix(ie.Err.Error(), "malformed JSON: ")}
	}
	return &jsonscan.SyntaxError{Pos: p, Msg: err.Error()}
}

func errorText(n *jtree.Node) string {
	if s, ok := n.Str(); ok {
		return s
	}
	code, _ := n.Get("code").Scalar()
	typ, _ := n.Get("type").Str()
	msg, _ := n.Get("message").Str()
	t := strings.TrimSpace(strings.Join([]string{code, typ}, " "))
	if msg != "" {
		if t != "" {
			t += ": "
		}
		t += msg
	}
	if t == "" {
		t = "error"
	}
	return t
}

func (r *recordReader) metadata(open jsonscan.Token) error {
	sc := r.sc
	if open.Kind != jsonscan.BeginObject {
		r.reject(open.Pos, "metadata", "expected an object, found "+open.Kind.String())
		return sc.Skip(open)
	}
	for {
		k, err := sc.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			return nil
		}
		key, err := r.key(k)
		if err != nil {
			return err
		}
		v, err := sc.Next()
		if err != nil {
			return err
		}
		switch string(key) {
		case "request_start_ns", "timestamp_ns":
			if string(key) == "timestamp_ns" {
				r.devLayout = true
			}
			if n, ok := r.epoch(v, key); ok {
				r.start, r.hasSt = n, true
			}
		case "request_end_ns":
			if n, ok := r.epoch(v, key); ok {
				r.end, r.hasEnd = n, true
			}
		case "benchmark_phase", "credit_phase":
			r.phaseSeen = true
			switch v.Kind {
			case jsonscan.String:
				switch p := strings.ToLower(string(v.Raw[1 : len(v.Raw)-1])); p {
				case "profiling":
					r.phase = schemas.PhaseProfiling
				case "warmup", "warm_up", "warm-up":
					r.phase = schemas.PhaseWarmup
				default:
					r.rejectIn(v.Pos, "metadata.", key, "", fmt.Sprintf("unknown benchmark phase %q", p))
				}
			case jsonscan.Null:
			default:
				r.rejectIn(v.Pos, "metadata.", key, "", "expected a string, found "+v.Kind.String())
			}
		case "was_cancelled":
			switch v.Kind {
			case jsonscan.True:
				r.cancel = true
			case jsonscan.False, jsonscan.Null:
			default:
				r.rejectIn(v.Pos, "metadata.", key, "", "expected true or false, found "+tokText(v))
			}
		case "credit_issued_ns":
			r.creditNs = true
		}
		// Every case above reads scalars only: a container in their place
		// (rejected there) is skipped here, so the next token is a key.
		if err := sc.Skip(v); err != nil {
			return err
		}
	}
}

// epoch reads integer nanoseconds (never through float64); null is
// absent.
func (r *recordReader) epoch(v jsonscan.Token, key []byte) (int64, bool) {
	switch v.Kind {
	case jsonscan.Null:
		return 0, false
	case jsonscan.Number:
		n, err := strconv.ParseInt(string(v.Raw), 10, 64)
		if err == nil && n >= 0 {
			return n, true
		}
	}
	r.rejectIn(v.Pos, "metadata.", key, "", "expected integer nanoseconds since the epoch, found "+tokText(v))
	return 0, false
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

// timeDiv is what a time unit divides by to give seconds; 0 when the unit
// is not a time unit.
func timeDiv(u []byte) float64 {
	switch string(u) {
	case "ms":
		return 1e3
	case "ns":
		return 1e9
	case "us", "µs":
		return 1e6
	case "s", "sec":
		return 1
	}
	return 0
}

func (r *recordReader) metrics(open jsonscan.Token) error {
	sc := r.sc
	if open.Kind != jsonscan.BeginObject {
		r.reject(open.Pos, "metrics", "expected an object, found "+open.Kind.String())
		return sc.Skip(open)
	}
	for {
		k, err := sc.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			return nil
		}
		tag, err := r.key(k)
		if err != nil {
			return err
		}
		v, err := sc.Next()
		if err != nil {
			return err
		}
		slot := slotOf(tag)
		isICL := string(tag) == "inter_chunk_latency"
		if slot < 0 && !isICL {
			if err := sc.Skip(v); err != nil {
				return err
			}
			continue
		}
		if v.Kind != jsonscan.BeginObject {
			r.rejectIn(v.Pos, "metrics.", tag, "", "expected {value, unit}, found "+v.Kind.String())
			if err := sc.Skip(v); err != nil {
				return err
			}
			continue
		}
		if err := r.metric(tag, slot, isICL); err != nil {
			return err
		}
	}
}

// metric reads one {value, unit} object of a kept tag.
func (r *recordReader) metric(tag []byte, slot int, isICL bool) error {
	sc := r.sc
	var f float64
	var fpos, upos jsonscan.Pos
	haveV, haveU := false, false
	var unit [16]byte
	var ulen int
	mark := len(r.icl)
	for {
		k, err := sc.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := r.key(k)
		if err != nil {
			return err
		}
		v, err := sc.Next()
		if err != nil {
			return err
		}
		switch string(key) {
		case "value":
			fpos = v.Pos
			switch {
			case isICL && v.Kind == jsonscan.BeginArray:
				for {
					e, err := sc.Next()
					if err != nil {
						return err
					}
					if e.Kind == jsonscan.EndArray {
						break
					}
					g, ok := r.finite(e, tag)
					if !ok {
						if err := sc.Skip(e); err != nil {
							return err
						}
						continue
					}
					r.icl = append(r.icl, g)
				}
				haveV = true
			case !isICL && v.Kind == jsonscan.Number:
				if g, ok := r.finite(v, tag); ok {
					f, haveV = g, true
				}
			case v.Kind == jsonscan.Null:
			default:
				r.rejectIn(v.Pos, "metrics.", tag, ".value", "expected a number, found "+v.Kind.String())
				if err := sc.Skip(v); err != nil {
					return err
				}
			}
		case "unit":
			upos = v.Pos
			if v.Kind == jsonscan.String && len(v.Raw)-2 <= len(unit) {
				ulen = copy(unit[:], v.Raw[1:len(v.Raw)-1])
				haveU = true
			} else {
				r.rejectIn(v.Pos, "metrics.", tag, ".unit", "expected a unit string, found "+tokText(v))
				if err := sc.Skip(v); err != nil {
					return err
				}
			}
		default:
			if err := sc.Skip(v); err != nil {
				return err
			}
		}
	}
	if !haveV {
		r.icl = r.icl[:mark]
		return nil
	}
	u := unit[:ulen]
	if isICL || isTimeSlot(slot) {
		div := timeDiv(u)
		if !haveU || div == 0 {
			r.rejectIn(upos, "metrics.", tag, ".unit", fmt.Sprintf("expected a time unit, found %q", string(u)))
			return nil
		}
		if isICL {
			for i := mark; i < len(r.icl); i++ {
				r.icl[i] /= div
			}
			r.hasICL = true
			return nil
		}
		r.vals[slot], r.has[slot] = f/div, true
		return nil
	}
	if haveU && string(u) != "tokens" {
		r.rejectIn(upos, "metrics.", tag, ".unit", fmt.Sprintf("expected tokens, found %q", string(u)))
		return nil
	}
	if f != math.Trunc(f) || f > 1<<53 {
		r.rejectIn(fpos, "metrics.", tag, ".value", "expected a whole number of tokens, found "+strconv.FormatFloat(f, 'g', -1, 64))
		return nil
	}
	r.vals[slot], r.has[slot] = f, true
	return nil
}

// finite parses a non-negative finite number of metrics.<tag>.value.
func (r *recordReader) finite(t jsonscan.Token, tag []byte) (float64, bool) {
	if t.Kind != jsonscan.Number {
		r.rejectIn(t.Pos, "metrics.", tag, ".value", "expected a number, found "+t.Kind.String())
		return 0, false
	}
	f, err := jsonscan.Float(t.Raw)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		r.rejectIn(t.Pos, "metrics.", tag, ".value", "expected a finite non-negative number, found "+tokText(t))
		return 0, false
	}
	return f, true
}

// commit turns the parsed record into a request row and adds it to the
// recomputation.
func (r *recordReader) commit(idx int64) error {
	phase := r.phase
	if phase == "" {
		phase = schemas.PhaseProfiling
	}
	req := &r.req
	*req = schemas.Request{RunID: r.runID, Index: idx, Phase: phase, Status: schemas.StatusOK}
	failed := r.errTxt != "" || r.cancel
	if failed {
		req.Status, req.Error = schemas.StatusError, r.errTxt
		if req.Error == "" {
			req.Error = "cancelled"
		}
	}
	opt := func(s int) schemas.Opt[float64] {
		if r.has[s] {
			return schemas.Some(r.vals[s])
		}
		return schemas.Opt[float64]{}
	}
	tokens := func(s int) schemas.Opt[int64] {
		if r.has[s] {
			return schemas.Some(int64(r.vals[s]))
		}
		return schemas.Opt[int64]{}
	}
	req.TTFTS, req.TTFTAnswerS, req.E2ES = opt(sTTFT), opt(sTTFO), opt(sLatency)
	req.InputTokens, req.OutputTokens, req.ReasoningTokens = tokens(sISL), tokens(sOSL), tokens(sReasoning)
	if failed && !req.InputTokens.OK {
		req.InputTokens = tokens(sErrISL)
	}
	if !req.ReasoningTokens.OK && r.has[sOSL] && r.has[sOutCount] && r.vals[sOSL] >= r.vals[sOutCount] {
		req.ReasoningTokens = schemas.Some(int64(r.vals[sOSL] - r.vals[sOutCount]))
	}
	if r.hasICL {
		req.ChunkGapsS = r.icl
	}
	var endNs int64
	hasEndNs := false
	if r.hasSt {
		req.StartS = schemas.Some(float64(r.start) / 1e9)
		if req.E2ES.OK {
			endNs, hasEndNs = r.start+int64(math.Round(req.E2ES.V*1e9)), true
		}
	}
	if !hasEndNs && r.hasEnd {
		endNs, hasEndNs = r.end, true
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
	if r.hasSt && hasEndNs {
		if !r.haveTimes || r.start < r.firstStart {
			r.firstStart = r.start
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
		if r.has[sErrISL] {
			c.sumErrISL += int64(r.vals[sErrISL])
			return c.errISL.Add(r.vals[sErrISL])
		}
		return nil
	}
	return r.add(req)
}

// add records a successful profiling record's observations the way
// AIPerf derives them.
func (r *recordReader) add(req *schemas.Request) error {
	c := &r.rc
	c.ok++
	if r.hasSt && req.E2ES.OK {
		c.minStart = min(c.minStart, r.start)
		c.maxEnd = max(c.maxEnd, r.start+int64(math.Round(req.E2ES.V*1e9)))
	}
	if r.has[sISL] {
		c.sumISL += int64(r.vals[sISL])
		c.haveISL = true
	}
	if r.has[sOSL] {
		c.sumOSL += int64(r.vals[sOSL])
		c.haveOSL = true
	}
	if r.has[sOutCount] {
		c.sumAnswer += int64(r.vals[sOutCount])
		c.haveAnswer = true
	}
	if r.has[sReasoning] {
		c.sumReason += int64(r.vals[sReasoning])
		c.haveRsn = true
	}
	if !r.distributions {
		if req.TTFTS.OK && req.E2ES.OK && r.has[sOSL] && r.vals[sOSL] >= 2 && r.has[sITL] {
			tpot := (req.E2ES.V - req.TTFTS.V) / (r.vals[sOSL] - 1)
			r.itlChecked++
			if math.Abs(r.vals[sITL]-tpot) > 1e-9*math.Max(tpot, 1e-9) {
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
		{&c.isl, r.has[sISL], r.vals[sISL]},
		{&c.osl, r.has[sOSL], r.vals[sOSL]},
		{&c.answer, r.has[sOutCount] && r.vals[sOutCount] > 0, r.vals[sOutCount]},
		{&c.reasoning, r.has[sReasoning], r.vals[sReasoning]},
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
	if req.TTFTS.OK && req.E2ES.OK && r.has[sOSL] && r.vals[sOSL] >= 2 {
		tpot := (req.E2ES.V - req.TTFTS.V) / (r.vals[sOSL] - 1)
		if err := c.tpot.Add(tpot); err != nil {
			return err
		}
		if tpot > 0 {
			if err := c.tps.Add(1 / tpot); err != nil {
				return err
			}
		}
		if r.has[sITL] {
			r.itlChecked++
			if math.Abs(r.vals[sITL]-tpot) > 1e-9*math.Max(tpot, 1e-9) {
				r.itlOff++
			}
		}
	}
	if req.E2ES.OK && req.E2ES.V > 0 && r.has[sOSL] {
		if err := c.e2eRate.Add(r.vals[sOSL] / req.E2ES.V); err != nil {
			return err
		}
	}
	if req.TTFTS.OK && req.TTFTS.V > 0 && r.has[sISL] {
		if err := c.prefill.Add(r.vals[sISL] / req.TTFTS.V); err != nil {
			return err
		}
	}
	return nil
}

// versions is what the records' layout says of the version.
func (r *recordReader) versions() versions {
	vs := anyVersion()
	switch {
	case r.devLayout:
		vs.until("0.1")
	case r.phaseSeen:
		vs.since("0.2") // the per-record export shipped in 0.2.0
	}
	if r.creditNs {
		vs.since("0.6")
	}
	return vs
}

// standaloneRun is the run of a records file read on its own.
func (r *recordReader) standaloneRun() *schemas.Run {
	c := &r.rc
	vs := r.versions()
	run := &schemas.Run{ID: r.runID, Tool: "aiperf", ToolVersion: vs.String(), Format: kindRecords,
		SourcePath: r.in.Path, SourceSHA256: r.in.SHA256, Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
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
