package jsonscan

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
)

// SkipArray looks at eight bytes at a time ("SIMD within a register";
// H. S. Warren, Hacker's Delight, 2nd ed., section 6-1): each word is compared with
// the bytes that matter (quotes, brackets, braces, newlines; inside a
// string, quotes, backslashes and newlines) by the exact zero-byte test
// below, and a word without any of them is passed over at once, its
// commas counted by a population count. Only those bytes, and the last
// few bytes of a buffer, are handled one at a time.

const (
	ones  = 0x0101010101010101
	lo7   = 0x7F7F7F7F7F7F7F7F
	highs = 0x8080808080808080
	caseB = 0x2020202020202020 // bit 5 of every byte: '[' 0x5B and '{' 0x7B differ only there, as do ']' and '}'
)

// zeroBytes sets the high bit of each byte of v that is zero, and no
// other bit. Unlike the shorter (v-ones)&^v&highs, no borrow runs from
// one byte into the next, so every mark is exact and can be counted.
func zeroBytes(v uint64) uint64 { return ^(((v & lo7) + lo7) | v | lo7) }

// bytesEq marks the bytes of w equal to c.
func bytesEq(w uint64, c byte) uint64 { return zeroBytes(w ^ (ones * uint64(c))) }

// SkipArray skips the rest of an array whose '[' was the last token and
// returns its number of elements. It is several times faster than reading
// the elements with Next because it only tracks nesting, strings and
// commas: the elements themselves are not validated, so callers must read
// them properly later (or not rely on them). Line counting stays exact.
func (s *Scanner) SkipArray() (int, error) {
	if len(s.stack) == 0 || s.stack[len(s.stack)-1] != '[' || s.state != stArrFirst {
		return 0, errors.New("jsonscan: SkipArray must follow a '[' token")
	}
	return s.skip(']', nil)
}

// SkipValue skips the rest of the object or array whose '{' or '[' was
// the last token, as SkipArray does (nesting and strings are tracked, the
// members and elements are not validated), and appends the value's text,
// from that bracket to the one that closes it, to out.
func (s *Scanner) SkipValue(out []byte) ([]byte, error) {
	closer := byte(0)
	if n := len(s.stack); n > 0 {
		switch {
		case s.stack[n-1] == '[' && s.state == stArrFirst:
			closer = ']'
		case s.stack[n-1] == '{' && s.state == stObjFirstKey:
			closer = '}'
		}
	}
	if closer == 0 {
		return out, errors.New("jsonscan: SkipValue must follow a '[' or '{' token")
	}
	out = append(out, s.stack[len(s.stack)-1])
	_, err := s.skip(closer, &out)
	return out, err
}

// skip is SkipArray and SkipValue: it reads to the closer of the open
// container, appending what it reads to *out when out is not nil, and
// counts the container's elements (meaningful for arrays only).
func (s *Scanner) skip(closer byte, out *[]byte) (int, error) {
	depth := 0        // nesting below the array
	commas := 0       // commas at the array's own level
	nonEmpty := false // something other than whitespace at the array's level
	inString, esc := false, false
	for {
		if s.i >= len(s.buf) && !s.fill(s.i) {
			if s.rerr != nil {
				return 0, s.rerr
			}
			return 0, &SyntaxError{Pos: s.posAt(s.i), Msg: "unterminated array: " + ErrUnexpectedEOF.Error()}
		}
		b, start := s.buf, s.i
		for i := s.i; i < len(b); i++ {
			if !esc && i+8 <= len(b) {
				w := binary.LittleEndian.Uint64(b[i:])
				var m uint64 // the bytes to handle one at a time
				if inString {
					m = bytesEq(w, '"') | bytesEq(w, '\\') | bytesEq(w, '\n')
				} else {
					f := w &^ caseB
					m = bytesEq(w, '"') | bytesEq(w, '\n') | bytesEq(f, '[') | bytesEq(f, ']')
					if depth == 0 {
						before := ^uint64(0) // the bytes before the first marked one
						if m != 0 {
							before = m&-m - 1
						}
						comma := bytesEq(w, ',')
						commas += bits.OnesCount64(comma & before)
						if !nonEmpty {
							blank := bytesEq(w, ' ') | bytesEq(w, '\t') | bytesEq(w, '\r') | comma
							nonEmpty = ^blank&highs&before != 0
						}
					}
				}
				if m == 0 {
					i += 7
					continue
				}
				i += bits.TrailingZeros64(m) >> 3
			}
			c := b[i]
			if inString {
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inString = false
				case c == '\n':
					s.line++
					s.lineStart = s.base + int64(i) + 1
				}
				continue
			}
			switch c {
			case '\n':
				s.line++
				s.lineStart = s.base + int64(i) + 1
			case ' ', '\t', '\r':
			case '"':
				inString = true
				if depth == 0 {
					nonEmpty = true
				}
			case ',':
				if depth == 0 {
					commas++
				}
			case '[', '{':
				depth++
				nonEmpty = true
				if depth+len(s.stack) > MaxDepth {
					return 0, &SyntaxError{Pos: s.posAt(i), Msg: ErrTooDeep.Error()}
				}
			case ']', '}':
				if depth > 0 {
					depth--
					continue
				}
				if c != closer {
					if closer == ']' {
						return 0, s.errorf(i, "unbalanced '}' in array")
					}
					return 0, s.errorf(i, "unbalanced ']' in object")
				}
				if out != nil {
					*out = append(*out, b[start:i+1]...)
				}
				s.i = i + 1
				s.stack = s.stack[:len(s.stack)-1]
				s.afterValue()
				if !nonEmpty {
					return 0, nil
				}
				return commas + 1, nil
			default:
				if depth == 0 {
					nonEmpty = true
				}
			}
		}
		if out != nil {
			*out = append(*out, b[start:]...)
		}
		s.i = len(b)
	}
}

// NewInArrays returns a scanner that reads r as if depth arrays had been
// opened before at (the '[' of each read, nothing after them), so that a
// value read again from the middle of a document nests, and is refused
// past MaxDepth, as it is where it stands.
func NewInArrays(r io.Reader, at Pos, depth int) *Scanner {
	s := NewAt(r, at)
	for range depth {
		s.stack = append(s.stack, '[')
	}
	if depth > 0 {
		s.state = stArrFirst
	}
	return s
}
