package aiperf

import (
	"math"
	"strconv"

	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// The fast path reads a record with a jsonscan.Cursor: keys matched in
// place, skipped values not materialised, numbers parsed where they lie.
// It accepts only records that the general path (records_parse.go) would
// ingest without a rejection, and gives exactly what that path gives for
// them: the same values through the same functions (jsonscan.Float,
// strconv.ParseInt, timeDiv), decided in the same order. Anything else
// (a rejection of any kind, an error object, an escape, a syntax error)
// returns false and the general path reads the line from its start, so
// rejections keep their wording and positions. FuzzFastPath checks that
// both paths agree on every input.
//
// SIMD JSON libraries were measured against it (issue 20) on 200,000
// generated records (147 MB, 8 chunks), one goroutine, CPU seconds,
// median of 3: this reader 0.46 s, validation and commit into a sink that
// keeps nothing included; bytedance/sonic v1.15.5 Unmarshal of each line
// into a struct of the kept fields 0.77 s; minio/simdjson-go v0.4.5
// ParseND over 1 MiB blocks with the same fields looked up 1.10 s.
// Neither gives positions for rejections, so neither is used.

// fastReader reads one line's record on the fast path.
type fastReader struct {
	c    jsonscan.Cursor
	rec  *record
	gaps []float64 // the parser's gaps, appended to
	lay  layout    // what this line's keys say; the parser's only on success
}

// read reads line b into rec, appending gaps to gaps (kept in f.gaps,
// grown or not, whatever the outcome).
func (f *fastReader) read(b []byte, rec *record, gaps []float64) bool {
	f.c.Reset(b)
	f.rec, f.gaps, f.lay = rec, gaps, layout{}
	c := &f.c
	return c.Object(func(key []byte) bool {
		switch string(key) {
		case "metadata":
			return f.metadata()
		case "metrics":
			return f.metrics()
		case "error":
			_, k, ok := c.Literal()
			return ok && k == jsonscan.Null
		}
		return c.Skip()
	}) && c.End()
}

func (f *fastReader) metadata() bool {
	c, rec := &f.c, f.rec
	return c.Object(func(key []byte) bool {
		ok := true
		switch string(key) {
		case "request_start_ns", "timestamp_ns":
			if string(key) == "timestamp_ns" {
				f.lay.dev = true
			}
			var n int64
			var has bool
			if n, has, ok = f.epoch(); has {
				rec.start, rec.hasSt = n, true
			}
		case "request_end_ns":
			var n int64
			var has bool
			if n, has, ok = f.epoch(); has {
				rec.end, rec.hasEnd = n, true
			}
		case "benchmark_phase", "credit_phase":
			f.lay.phase = true
			ok = f.phase()
		case "was_cancelled":
			var k jsonscan.Kind
			_, k, ok = c.Literal()
			switch k {
			case jsonscan.True:
				rec.cancel = true
			case jsonscan.False, jsonscan.Null:
			default:
				ok = false
			}
		case "credit_issued_ns":
			f.lay.credit = true
			ok = c.Skip()
		default:
			ok = c.Skip()
		}
		return ok
	})
}

// epoch reads integer nanoseconds as recordReader.epoch does; null is
// absent (has false).
func (f *fastReader) epoch() (n int64, has, ok bool) {
	raw, k, ok := f.c.Literal()
	switch {
	case !ok:
		return 0, false, false
	case k == jsonscan.Null:
		return 0, false, true
	case k != jsonscan.Number:
		return 0, false, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, true, err == nil && n >= 0
}

// phase reads benchmark_phase; one the general path would not match in
// ASCII is left to it.
func (f *fastReader) phase() bool {
	if f.c.Peek() != jsonscan.String {
		_, k, ok := f.c.Literal()
		return ok && k == jsonscan.Null
	}
	s, ok := f.c.String()
	switch {
	case !ok:
		return false
	case asciiFold(s, "profiling"):
		f.rec.phase = schemas.PhaseProfiling
	case asciiFold(s, "warmup"), asciiFold(s, "warm_up"), asciiFold(s, "warm-up"):
		f.rec.phase = schemas.PhaseWarmup
	default:
		return false
	}
	return true
}

// asciiFold reports whether b, with ASCII upper case lowered, is lower.
func asciiFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func (f *fastReader) metrics() bool {
	c := &f.c
	return c.Object(func(tag []byte) bool {
		slot := slotOf(tag)
		if isICL := string(tag) == "inter_chunk_latency"; slot >= 0 || isICL {
			return f.metric(slot, isICL)
		}
		return c.Skip()
	})
}

// metric reads one {value, unit} object of a kept tag, deciding as
// lineParser.metric does.
func (f *fastReader) metric(slot int, isICL bool) bool {
	c, rec := &f.c, f.rec
	var v float64
	var unit []byte
	haveV, haveU := false, false
	mark := len(f.gaps)
	if !c.Object(func(key []byte) bool {
		ok := true
		switch string(key) {
		case "value":
			var got bool
			if isICL && c.Peek() == jsonscan.BeginArray {
				ok = f.gapArray()
				haveV = haveV || ok
				break
			}
			if v, got, ok = f.scalar(v, isICL); got {
				haveV = true
			}
		case "unit":
			unit, ok = c.String()
			ok = ok && len(unit) <= 16
			haveU = true
		default:
			ok = c.Skip()
		}
		return ok
	}) {
		return false
	}
	if !haveV {
		f.gaps = f.gaps[:mark]
		return true
	}
	if isICL || isTimeSlot(slot) {
		div := timeDiv(unit)
		if !haveU || div == 0 {
			return false
		}
		if isICL {
			for i := mark; i < len(f.gaps); i++ {
				f.gaps[i] /= div
			}
			rec.hasICL = true
			return true
		}
		rec.vals[slot], rec.has[slot] = v/div, true
		return true
	}
	if haveU && string(unit) != "tokens" || v != math.Trunc(v) || v > 1<<53 {
		return false
	}
	rec.vals[slot], rec.has[slot] = v, true
	return true
}

// scalar reads a metric's value that is not an array of gaps: a number
// (got), or null (the value v unchanged, as the general path leaves it).
func (f *fastReader) scalar(v float64, isICL bool) (float64, bool, bool) {
	raw, k, ok := f.c.Literal()
	switch {
	case !ok:
		return v, false, false
	case k == jsonscan.Null:
		return v, false, true
	case k != jsonscan.Number || isICL:
		return v, false, false
	}
	g, ok := finiteValue(raw)
	if !ok {
		return v, false, false
	}
	return g, true, true
}

// gapArray reads inter_chunk_latency's array of gaps.
func (f *fastReader) gapArray() bool {
	c := &f.c
	c.Begin('[')
	for first := true; ; first = false {
		done, ok := c.Elem(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		raw, k, ok := c.Literal()
		if !ok || k != jsonscan.Number {
			return false
		}
		g, ok := finiteValue(raw)
		if !ok {
			return false
		}
		f.gaps = append(f.gaps, g)
	}
}

// finiteValue parses a non-negative finite number as lineParser.finite
// accepts it.
func finiteValue(raw []byte) (float64, bool) {
	g, err := jsonscan.Float(raw)
	return g, err == nil && !math.IsNaN(g) && !math.IsInf(g, 0) && g >= 0
}
