package aiperf

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// The general path: a record read token by token with a jsonscan.Scanner,
// which accepts every record and says where a malformed one goes wrong.
// The fast path (records_fast.go) reads the records it fully understands
// without it and leaves every other line to this one.

// layout is what the records' keys say of the AIPerf version (see
// recordReader.versions): true once any line, ingested or rejected, has
// the key.
type layout struct {
	dev    bool // metadata.timestamp_ns: 0.1's developer layout
	phase  bool // metadata.benchmark_phase or credit_phase
	credit bool // metadata.credit_issued_ns
}

func (l *layout) or(o layout) {
	l.dev, l.phase, l.credit = l.dev || o.dev, l.phase || o.phase, l.credit || o.credit
}

// record is one parsed line: what commit turns into a request row.
type record struct {
	line          int
	vals          [nSlots]float64
	has           [nSlots]bool
	gaps          []float64 // inter_chunk_latency in seconds, when hasICL
	hasICL        bool
	start, end    int64
	hasSt, hasEnd bool
	phase         string
	cancel        bool
	errTxt        string
	bad           *schemas.Rejection // the first problem, if any; Record unset
}

// setGaps points rec at the gaps its line appended to gaps from lo on.
func (rec *record) setGaps(gaps []float64, lo int) {
	if rec.hasICL {
		rec.gaps = gaps[lo:len(gaps):len(gaps)]
	}
}

// lineParser reads lines into records; each parsing goroutine has its own.
type lineParser struct {
	path      string
	sc        *jsonscan.Scanner
	br        bytes.Reader
	fast      fastReader
	rec       *record   // the record being read
	gaps      []float64 // the gaps of the records read since the caller emptied it
	lay       layout
	general   bool  // tests: the general path only
	fastLines int64 // lines the fast path read
}

func newLineParser(path string) *lineParser {
	return &lineParser{path: path, sc: jsonscan.New(nil)}
}

func (lp *lineParser) reject(p jsonscan.Pos, field, reason string) {
	lp.rejectIn(p, field, nil, "", reason)
}

// rejectIn rejects the record for the field a+b+c; the name is built only
// for the first problem, so the hot path allocates nothing. commit names
// the record, whose index is known in input order only.
func (lp *lineParser) rejectIn(p jsonscan.Pos, a string, b []byte, c, reason string) {
	if lp.rec.bad == nil {
		lp.rec.bad = &schemas.Rejection{Table: schemas.TableRequests, Line: p.Line, Column: p.Col,
			Field: a + string(b) + c, Reason: reason}
	}
}

// line reads one non-blank line into rec. Only failures that are not
// the record's (none today: the line is in memory) are returned; a bad
// record is rec.bad. Gaps are appended to lp.gaps, which the caller
// empties when it is done with the records that point into it.
func (lp *lineParser) line(b []byte, line int, off int64, rec *record) error {
	*rec = record{line: line}
	lp.rec = rec
	lo := len(lp.gaps)
	if !lp.general {
		if lp.fast.read(b, rec, lp.gaps) {
			lp.gaps = lp.fast.gaps
			lp.lay.or(lp.fast.lay)
			lp.fastLines++
			rec.setGaps(lp.gaps, lo)
			return nil
		}
		lp.gaps = lp.fast.gaps[:lo] // its appends undone, its growth kept
		*rec = record{line: line}
	}
	lp.br.Reset(b)
	lp.sc.Reset(&lp.br, jsonscan.Pos{Off: off, Line: line, Col: 1})
	if err := lp.parse(); err != nil {
		se, ok := err.(*jsonscan.SyntaxError)
		if !ok {
			return err
		}
		rec.bad = nil
		lp.reject(se.Pos, "", "malformed JSON: "+se.Msg)
	}
	rec.setGaps(lp.gaps, lo)
	return nil
}

// key returns an object key's text without allocating when it has no
// escapes.
func (lp *lineParser) key(tok jsonscan.Token) ([]byte, error) {
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
	s, err := lp.sc.Text(tok)
	return []byte(s), err
}

// parse reads the record's object; it returns *jsonscan.SyntaxError for
// malformed JSON.
func (lp *lineParser) parse() error {
	sc := lp.sc
	tok, err := sc.Next()
	if err != nil {
		return err
	}
	if tok.Kind != jsonscan.BeginObject {
		lp.reject(tok.Pos, "", "expected a record object, found "+tok.Kind.String())
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
		key, err := lp.key(k)
		if err != nil {
			return err
		}
		v, err := sc.Next()
		if err != nil {
			return err
		}
		switch string(key) {
		case "metadata":
			err = lp.metadata(v)
		case "metrics":
			err = lp.metrics(v)
		case "error":
			if v.Kind != jsonscan.Null {
				n, e := jtree.Read(lp.path, sc, v)
				if e != nil {
					return syntaxOf(e, v.Pos)
				}
				lp.rec.errTxt = errorText(n)
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
		lp.reject(t.Pos, "", "more than one JSON value on the line")
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

func (lp *lineParser) metadata(open jsonscan.Token) error {
	sc := lp.sc
	if open.Kind != jsonscan.BeginObject {
		lp.reject(open.Pos, "metadata", "expected an object, found "+open.Kind.String())
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
		key, err := lp.key(k)
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
				lp.lay.dev = true
			}
			if n, ok := lp.epoch(v, key); ok {
				lp.rec.start, lp.rec.hasSt = n, true
			}
		case "request_end_ns":
			if n, ok := lp.epoch(v, key); ok {
				lp.rec.end, lp.rec.hasEnd = n, true
			}
		case "benchmark_phase", "credit_phase":
			lp.lay.phase = true
			switch v.Kind {
			case jsonscan.String:
				switch p := strings.ToLower(string(v.Raw[1 : len(v.Raw)-1])); p {
				case "profiling":
					lp.rec.phase = schemas.PhaseProfiling
				case "warmup", "warm_up", "warm-up":
					lp.rec.phase = schemas.PhaseWarmup
				default:
					lp.rejectIn(v.Pos, "metadata.", key, "", fmt.Sprintf("unknown benchmark phase %q", p))
				}
			case jsonscan.Null:
			default:
				lp.rejectIn(v.Pos, "metadata.", key, "", "expected a string, found "+v.Kind.String())
			}
		case "was_cancelled":
			switch v.Kind {
			case jsonscan.True:
				lp.rec.cancel = true
			case jsonscan.False, jsonscan.Null:
			default:
				lp.rejectIn(v.Pos, "metadata.", key, "", "expected true or false, found "+tokText(v))
			}
		case "credit_issued_ns":
			lp.lay.credit = true
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
func (lp *lineParser) epoch(v jsonscan.Token, key []byte) (int64, bool) {
	switch v.Kind {
	case jsonscan.Null:
		return 0, false
	case jsonscan.Number:
		n, err := strconv.ParseInt(string(v.Raw), 10, 64)
		if err == nil && n >= 0 {
			return n, true
		}
	}
	lp.rejectIn(v.Pos, "metadata.", key, "", "expected integer nanoseconds since the epoch, found "+tokText(v))
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

func (lp *lineParser) metrics(open jsonscan.Token) error {
	sc := lp.sc
	if open.Kind != jsonscan.BeginObject {
		lp.reject(open.Pos, "metrics", "expected an object, found "+open.Kind.String())
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
		tag, err := lp.key(k)
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
			lp.rejectIn(v.Pos, "metrics.", tag, "", "expected {value, unit}, found "+v.Kind.String())
			if err := sc.Skip(v); err != nil {
				return err
			}
			continue
		}
		if err := lp.metric(tag, slot, isICL); err != nil {
			return err
		}
	}
}

// metric reads one {value, unit} object of a kept tag.
func (lp *lineParser) metric(tag []byte, slot int, isICL bool) error {
	sc := lp.sc
	var f float64
	var fpos, upos jsonscan.Pos
	haveV, haveU := false, false
	var unit [16]byte
	var ulen int
	mark := len(lp.gaps)
	for {
		k, err := sc.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := lp.key(k)
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
					g, ok := lp.finite(e, tag)
					if !ok {
						if err := sc.Skip(e); err != nil {
							return err
						}
						continue
					}
					lp.gaps = append(lp.gaps, g)
				}
				haveV = true
			case !isICL && v.Kind == jsonscan.Number:
				if g, ok := lp.finite(v, tag); ok {
					f, haveV = g, true
				}
			case v.Kind == jsonscan.Null:
			default:
				lp.rejectIn(v.Pos, "metrics.", tag, ".value", "expected a number, found "+v.Kind.String())
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
				lp.rejectIn(v.Pos, "metrics.", tag, ".unit", "expected a unit string, found "+tokText(v))
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
		lp.gaps = lp.gaps[:mark]
		return nil
	}
	u := unit[:ulen]
	if isICL || isTimeSlot(slot) {
		div := timeDiv(u)
		if !haveU || div == 0 {
			lp.rejectIn(upos, "metrics.", tag, ".unit", fmt.Sprintf("expected a time unit, found %q", string(u)))
			return nil
		}
		if isICL {
			for i := mark; i < len(lp.gaps); i++ {
				lp.gaps[i] /= div
			}
			lp.rec.hasICL = true
			return nil
		}
		lp.rec.vals[slot], lp.rec.has[slot] = f/div, true
		return nil
	}
	if haveU && string(u) != "tokens" {
		lp.rejectIn(upos, "metrics.", tag, ".unit", fmt.Sprintf("expected tokens, found %q", string(u)))
		return nil
	}
	if f != math.Trunc(f) || f > 1<<53 {
		lp.rejectIn(fpos, "metrics.", tag, ".value", "expected a whole number of tokens, found "+strconv.FormatFloat(f, 'g', -1, 64))
		return nil
	}
	lp.rec.vals[slot], lp.rec.has[slot] = f, true
	return nil
}

// finite parses a non-negative finite number of metrics.<tag>.value.
func (lp *lineParser) finite(t jsonscan.Token, tag []byte) (float64, bool) {
	if t.Kind != jsonscan.Number {
		lp.rejectIn(t.Pos, "metrics.", tag, ".value", "expected a number, found "+t.Kind.String())
		return 0, false
	}
	f, err := jsonscan.Float(t.Raw)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		lp.rejectIn(t.Pos, "metrics.", tag, ".value", "expected a finite non-negative number, found "+tokText(t))
		return 0, false
	}
	return f, true
}
