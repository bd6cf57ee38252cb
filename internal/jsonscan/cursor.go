package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// A Cursor reads one JSON value held whole in memory (a line of JSONL)
// several times faster than a Scanner: it keeps no state machine, no
// container stack and no positions, and returns slices of the input.
//
// It accepts a subset of what a Scanner accepts, with the same meaning:
// strings without escapes, nesting up to CursorDepth. Anything else (a
// syntax error, an escape, deeper nesting) makes the method that meets it
// return false, and the caller reads the same bytes again with a Scanner,
// which says what is wrong and where. A caller that does so for every
// false gets exactly what a Scanner alone would give it, faster on the
// inputs the Cursor understands; ingest/aiperf reads records this way.
type Cursor struct {
	b     []byte
	i     int
	depth int
}

// CursorDepth is the deepest nesting a Cursor reads; deeper input is left
// to the Scanner (which allows MaxDepth).
const CursorDepth = 64

// Reset makes c read b from its start.
func (c *Cursor) Reset(b []byte) { *c = Cursor{b: b} }

// ws skips whitespace as Scanner.skipSpace does and returns the next
// byte, 0 at the end.
func (c *Cursor) ws() byte {
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; ch {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return ch
		}
	}
	return 0
}

// Peek returns the kind of the next value from its first byte: BeginObject,
// BeginArray, String, or Number for any literal (true, false and null
// included: read it with Literal); Invalid for anything else.
func (c *Cursor) Peek() Kind {
	switch ch := c.ws(); {
	case ch == '{':
		return BeginObject
	case ch == '[':
		return BeginArray
	case ch == '"':
		return String
	case ch != 0 && isLiteralByte(ch):
		return Number
	}
	return Invalid
}

// Begin reads the '{' or '[' (open) that starts the next value.
func (c *Cursor) Begin(open byte) bool {
	if c.ws() != open || c.depth >= CursorDepth {
		return false
	}
	c.i++
	c.depth++
	return true
}

// Member reads the next member name of an object whose '{' was read, and
// the ':' after it; first says no member has been read yet. At the
// closing '}' it returns done.
func (c *Cursor) Member(first bool) (key []byte, done, ok bool) {
	ch := c.ws()
	switch {
	case ch == '}':
		c.i++
		c.depth--
		return nil, true, true
	case !first && ch == ',':
		c.i++
		ch = c.ws()
	case !first:
		return nil, false, false
	}
	if ch != '"' {
		return nil, false, false
	}
	key, ok = c.str()
	if !ok || c.ws() != ':' {
		return nil, false, false
	}
	c.i++
	return key, false, true
}

// Elem moves to the next element of an array whose '[' was read; first
// says no element has been read yet. At the closing ']' it returns done.
func (c *Cursor) Elem(first bool) (done, ok bool) {
	ch := c.ws()
	switch {
	case ch == ']':
		c.i++
		c.depth--
		return true, true
	case !first && ch == ',':
		c.i++
		if c.ws() == ']' { // a trailing comma
			return false, false
		}
	case !first:
		return false, false
	}
	return false, true
}

// String reads a string value and returns its body.
func (c *Cursor) String() ([]byte, bool) {
	if c.ws() != '"' {
		return nil, false
	}
	return c.str()
}

// str reads the string starting at c.i; one with an escape is refused.
func (c *Cursor) str() ([]byte, bool) {
	body := c.b[c.i+1:]
	q := stringEnd(body)
	if q < 0 {
		return nil, false
	}
	c.i += q + 2
	return body[:q], true
}

// stringEnd returns the index of the quote that ends a string body
// without escapes, or -1 if the body has a backslash first or no quote.
// Keys and units are short: their first 32 bytes are read a word at a
// time (skip.go), which costs less than two calls of bytes.IndexByte;
// the rest of a longer string is left to IndexByte's vector loop.
func stringEnd(body []byte) int {
	q := 0
	for ; q+8 <= len(body) && q < 32; q += 8 {
		w := binary.LittleEndian.Uint64(body[q:])
		if m := bytesEq(w, '"') | bytesEq(w, '\\'); m != 0 {
			q += bits.TrailingZeros64(m) >> 3
			if body[q] != '"' {
				return -1
			}
			return q
		}
	}
	if q < 32 { // fewer than eight bytes left
		for ; q < len(body); q++ {
			switch body[q] {
			case '"':
				return q
			case '\\':
				return -1
			}
		}
		return -1
	}
	e := bytes.IndexByte(body[q:], '"')
	if e < 0 || bytes.IndexByte(body[q:q+e], '\\') >= 0 {
		return -1
	}
	return q + e
}

// Literal reads a number or a bare word and returns its text and kind
// (Number, True, False or Null), as Scanner.lexLiteral does.
func (c *Cursor) Literal() ([]byte, Kind, bool) {
	c.ws()
	j := c.i
	for j < len(c.b) && isLiteralByte(c.b[j]) {
		j++
	}
	raw := c.b[c.i:j]
	k := literalKind(raw)
	if k == Invalid {
		return nil, Invalid, false
	}
	c.i = j
	return raw, k, true
}

// Object reads an object: for each member it calls member with the key,
// the cursor at the member's value, which member must read. It returns
// false on a syntax error or as soon as member does.
func (c *Cursor) Object(member func(key []byte) bool) bool {
	if !c.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := c.Member(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !member(key) {
			return false
		}
	}
}

// Skip reads the next value, whatever it is, without keeping it.
func (c *Cursor) Skip() bool {
	switch c.Peek() {
	case BeginObject:
		return c.Object(func([]byte) bool { return c.Skip() })
	case BeginArray:
		if !c.Begin('[') {
			return false
		}
		for first := true; ; first = false {
			done, ok := c.Elem(first)
			if !ok {
				return false
			}
			if done {
				return true
			}
			if !c.Skip() {
				return false
			}
		}
	case String:
		_, ok := c.str()
		return ok
	case Number:
		_, _, ok := c.Literal()
		return ok
	}
	return false
}

// End reports whether only whitespace is left.
func (c *Cursor) End() bool { return c.ws() == 0 && c.i == len(c.b) }
