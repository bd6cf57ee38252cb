// Package jsonscan is a streaming JSON tokenizer for the result files that
// benchmark tools write. It exists because those files break the rules that
// encoding/json enforces and need things encoding/json does not give:
//
//   - Python's json.dump writes bare NaN, Infinity and -Infinity; they are
//     accepted here as numbers.
//   - Files hold several top-level values (newline-separated objects from
//     --append-result, JSONL); the scanner reads a sequence of values.
//   - Errors must name a line and column, and a caller must be able to
//     restart the scan at a byte offset it recorded earlier (to read
//     index-aligned arrays of one object in lockstep with bounded memory).
//   - Per-request data run to gigabytes: tokens are returned without
//     allocation, as slices of the scanner's buffer.
//
// The API is modelled on bufio.Scanner: a Scanner retains ownership of the
// bytes it returns; Token.Raw is valid only until the next call to Next.
package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind uint8

const (
	Invalid Kind = iota
	BeginObject
	EndObject
	BeginArray
	EndArray
	Key    // an object member name; Raw is the quoted text
	String // a string value; Raw is the quoted text
	Number // a number, or one of NaN, Infinity, -Infinity
	True
	False
	Null
)

var kindNames = [...]string{"invalid", "{", "}", "[", "]", "key", "string", "number", "true", "false", "null"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// IsValue reports whether a token of kind k starts a value.
func (k Kind) IsValue() bool {
	return k == BeginObject || k == BeginArray || (k >= String && k <= Null)
}

// A Token is one lexical element. Raw holds its bytes as they appear in the
// input (strings with their quotes and escapes) and is valid until the next
// call to Next.
type Token struct {
	Kind Kind
	Raw  []byte
	Pos  Pos // where the token starts
}

// Pos is a position in the input: a byte offset from the start of the
// stream and a 1-based line and column (column counted in bytes).
type Pos struct {
	Off  int64
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// A SyntaxError is malformed JSON at a position.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
}

// Unwrap lets errors.Is find ErrTooDeep.
func (e *SyntaxError) Unwrap() error {
	if e.Msg == ErrTooDeep.Error() {
		return ErrTooDeep
	}
	return nil
}

// ErrUnexpectedEOF is wrapped by the SyntaxError of a truncated value.
var ErrUnexpectedEOF = errors.New("unexpected end of input (truncated file?)")

// MaxDepth is the deepest nesting of objects and arrays a Scanner accepts.
// No benchmark tool's output comes near it (the deepest, GuideLLM's
// reports, nest about a dozen levels); the limit exists so that the
// recursive tree builders above the scanner (ingest/genaiperf/jtree,
// ingest/guidellm) can never run out of stack on a hostile input, and
// so that a document of nothing but brackets is refused at once.
const MaxDepth = 1000

// ErrTooDeep is the message of the SyntaxError for nesting deeper than
// MaxDepth; test for it with errors.Is(err, ErrTooDeep).
var ErrTooDeep = fmt.Errorf("nesting deeper than %d levels", MaxDepth)

// parser states: what may come next.
const (
	stValue       = iota // a value (top level: a value or EOF)
	stObjFirstKey        // a key or '}'
	stObjColon           // ':'
	stObjValue           // a value after ':'
	stObjNext            // ',' or '}'
	stObjKey             // a key after ','
	stArrFirst           // a value or ']'
	stArrNext            // ',' or ']'
	stArrValue           // a value after ','
)

const minRead = 64 << 10

// Scanner reads tokens from a stream.
type Scanner struct {
	r         io.Reader
	buf       []byte
	i         int   // next unread byte in buf
	base      int64 // stream offset of buf[0]
	line      int
	lineStart int64 // stream offset of the first byte of the current line
	eof       bool
	rerr      error

	state int
	stack []byte // '{' or '[' per open container
	str   []byte // scratch for unescaped strings
}

// New returns a Scanner reading r from its start.
func New(r io.Reader) *Scanner { return NewAt(r, Pos{Line: 1, Col: 1}) }

// NewAt returns a Scanner for r whose first byte sits at position at of a
// larger stream (the caller has already positioned r there, for example
// with an io.SectionReader). Positions in tokens and errors are reported in
// the larger stream's terms. The scanner starts outside any container.
func NewAt(r io.Reader, at Pos) *Scanner {
	if at.Line == 0 {
		at.Line = 1
	}
	if at.Col == 0 {
		at.Col = 1
	}
	return &Scanner{r: r, base: at.Off, line: at.Line, lineStart: at.Off - int64(at.Col-1)}
}

// Reset makes s read r as NewAt(r, at) would, keeping its buffers, so that
// a caller scanning many small values (one per line of a log) does not
// allocate a buffer per value.
func (s *Scanner) Reset(r io.Reader, at Pos) {
	buf, stack, str := s.buf[:0], s.stack[:0], s.str[:0]
	*s = *NewAt(r, at)
	s.buf, s.stack, s.str = buf, stack, str
}

// Depth is the number of containers open after the last token.
func (s *Scanner) Depth() int { return len(s.stack) }

// Pos is the position of the next unread byte.
func (s *Scanner) Pos() Pos { return s.posAt(s.i) }

func (s *Scanner) posAt(i int) Pos {
	off := s.base + int64(i)
	return Pos{Off: off, Line: s.line, Col: int(off-s.lineStart) + 1}
}

func (s *Scanner) errorf(i int, format string, args ...any) error {
	return &SyntaxError{Pos: s.posAt(i), Msg: fmt.Sprintf(format, args...)}
}

// fill reads more input, keeping buf[s.i:] (and buf[keep:] when keep < s.i).
// It returns false at end of input.
func (s *Scanner) fill(keep int) bool {
	if s.eof {
		return false
	}
	if keep > s.i {
		keep = s.i
	}
	// Drop consumed bytes.
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.base += int64(keep)
		s.i -= keep
	}
	if cap(s.buf)-len(s.buf) < minRead/2 {
		nb := make([]byte, len(s.buf), max(2*cap(s.buf), len(s.buf)+minRead))
		copy(nb, s.buf)
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// skipSpace advances past whitespace, counting lines. It returns false at
// end of input.
func (s *Scanner) skipSpace() bool {
	for {
		for s.i < len(s.buf) {
			switch c := s.buf[s.i]; c {
			case ' ', '\t', '\r':
				s.i++
			case '\n':
				s.i++
				s.line++
				s.lineStart = s.base + int64(s.i)
			default:
				return true
			}
		}
		if !s.fill(s.i) {
			return false
		}
	}
}

// Next returns the next token. At the end of a well-formed input it returns
// io.EOF; malformed input gives a *SyntaxError, read failures the reader's
// error.
func (s *Scanner) Next() (Token, error) {
	for {
		if !s.skipSpace() {
			if s.rerr != nil {
				return Token{}, s.rerr
			}
			if len(s.stack) == 0 && s.state == stValue {
				return Token{}, io.EOF
			}
			return Token{}, &SyntaxError{Pos: s.posAt(s.i), Msg: ErrUnexpectedEOF.Error()}
		}
		c := s.buf[s.i]
		switch s.state {
		case stObjColon:
			if c != ':' {
				return Token{}, s.errorf(s.i, "expected ':' after object key, found %s", quoteByte(c))
			}
			s.i++
			s.state = stObjValue
			continue
		case stObjNext:
			switch c {
			case ',':
				s.i++
				s.state = stObjKey
				continue
			case '}':
				return s.closeContainer('{', EndObject)
			}
			return Token{}, s.errorf(s.i, "expected ',' or '}' after object member, found %s", quoteByte(c))
		case stArrNext:
			switch c {
			case ',':
				s.i++
				s.state = stArrValue
				continue
			case ']':
				return s.closeContainer('[', EndArray)
			}
			return Token{}, s.errorf(s.i, "expected ',' or ']' after array element, found %s", quoteByte(c))
		case stObjFirstKey, stObjKey:
			if c == '}' && s.state == stObjFirstKey {
				return s.closeContainer('{', EndObject)
			}
			if c != '"' {
				return Token{}, s.errorf(s.i, "expected object key string, found %s", quoteByte(c))
			}
			tok, err := s.lexString(Key)
			if err != nil {
				return tok, err
			}
			s.state = stObjColon
			return tok, nil
		case stArrFirst:
			if c == ']' {
				return s.closeContainer('[', EndArray)
			}
		case stArrValue:
			s.state = stArrFirst
			if c == ']' {
				return Token{}, s.errorf(s.i, "trailing comma before ']'")
			}
		}
		return s.value(c)
	}
}

// afterValue sets the state that follows a complete value.
func (s *Scanner) afterValue() {
	if len(s.stack) == 0 {
		s.state = stValue
		return
	}
	if s.stack[len(s.stack)-1] == '{' {
		s.state = stObjNext
	} else {
		s.state = stArrNext
	}
}

func (s *Scanner) closeContainer(open byte, k Kind) (Token, error) {
	if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
		return Token{}, s.errorf(s.i, "unbalanced %s", quoteByte(s.buf[s.i]))
	}
	tok := Token{Kind: k, Raw: s.buf[s.i : s.i+1], Pos: s.posAt(s.i)}
	s.i++
	s.stack = s.stack[:len(s.stack)-1]
	s.afterValue()
	return tok, nil
}

func (s *Scanner) value(c byte) (Token, error) {
	switch c {
	case '{', '[':
		if len(s.stack) >= MaxDepth {
			return Token{}, &SyntaxError{Pos: s.posAt(s.i), Msg: ErrTooDeep.Error()}
		}
	}
	switch c {
	case '{':
		tok := Token{Kind: BeginObject, Raw: s.buf[s.i : s.i+1], Pos: s.posAt(s.i)}
		s.i++
		s.stack = append(s.stack, '{')
		s.state = stObjFirstKey
		return tok, nil
	case '[':
		tok := Token{Kind: BeginArray, Raw: s.buf[s.i : s.i+1], Pos: s.posAt(s.i)}
		s.i++
		s.stack = append(s.stack, '[')
		s.state = stArrFirst
		return tok, nil
	case '"':
		tok, err := s.lexString(String)
		if err == nil {
			s.afterValue()
		}
		return tok, err
	case '}', ']':
		return Token{}, s.errorf(s.i, "unexpected %s", quoteByte(c))
	case ',', ':':
		return Token{}, s.errorf(s.i, "unexpected %s, expected a value", quoteByte(c))
	}
	tok, err := s.lexLiteral()
	if err == nil {
		s.afterValue()
	}
	return tok, err
}

// lexString reads a quoted string starting at s.i, checking its escapes.
// rawNewlines counts the newlines of a string token (JSON forbids them
// there, but the scanner and Unquote accept them, as Python's json does
// with strict=False), so that the lines and columns after it are true,
// as SkipArray's are.
func (s *Scanner) rawNewlines(start int, raw []byte) {
	s.line += bytes.Count(raw, []byte{'\n'})
	s.lineStart = s.base + int64(start+bytes.LastIndexByte(raw, '\n')) + 1
}

func (s *Scanner) lexString(k Kind) (Token, error) {
	start := s.i
	j := start + 1 // first unexamined byte of the string body
	for {
		q := bytes.IndexByte(s.buf[j:], '"')
		limit := len(s.buf)
		if q >= 0 {
			limit = j + q
		}
		// Step over the escapes before the quote (or the end of the buffer).
		more := false
		for {
			b := bytes.IndexByte(s.buf[j:limit], '\\')
			if b < 0 {
				j = limit
				break
			}
			e := j + b
			next, err := s.escape(e)
			if err != nil {
				return Token{}, err
			}
			if next < 0 { // the escape continues past the buffer
				j = e
				more = true
				break
			}
			j = next
			if j > limit { // the escape swallowed the quote we found
				break
			}
		}
		if !more && q >= 0 && j == limit {
			end := j + 1
			tok := Token{Kind: k, Raw: s.buf[start:end], Pos: s.posAt(start)}
			s.i = end
			if bytes.IndexByte(tok.Raw, '\n') >= 0 {
				s.rawNewlines(start, tok.Raw)
			}
			return tok, nil
		}
		if !more && q >= 0 {
			continue // look for the next quote after the escape
		}
		if !s.fillKeeping(&start, &j) {
			return Token{}, &SyntaxError{Pos: s.posAt(start), Msg: "unterminated string: " + ErrUnexpectedEOF.Error()}
		}
	}
}

// escape checks the escape sequence whose backslash is at s.buf[e]. It
// returns the index after it, or -1 when the buffer ends inside it.
func (s *Scanner) escape(e int) (int, error) {
	if e+1 >= len(s.buf) {
		return -1, nil
	}
	switch s.buf[e+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return e + 2, nil
	case 'u':
		if e+6 > len(s.buf) {
			return -1, nil
		}
		if _, n := hex4(s.buf[e+2 : e+6]); n < 0 {
			return 0, s.errorf(e, "invalid \\u escape %q", s.buf[e:e+6])
		}
		return e + 6, nil
	}
	return 0, s.errorf(e, "invalid escape %q", s.buf[e:e+2])
}

// fillKeeping reads more input keeping bytes from *start on, and shifts the
// indexes *start and *j by the amount the buffer moved.
func (s *Scanner) fillKeeping(start, j *int) bool {
	oldBase := s.base
	s.i = *start
	ok := s.fill(*start)
	shift := int(s.base - oldBase)
	*start -= shift
	*j -= shift
	return ok
}

func isLiteralByte(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case c == '-', c == '+', c == '.':
		return true
	}
	return false
}

// lexLiteral reads a number or a bare word (true, false, null, NaN,
// Infinity, -Infinity).
func (s *Scanner) lexLiteral() (Token, error) {
	start := s.i
	j := start
	for {
		for j < len(s.buf) && isLiteralByte(s.buf[j]) {
			j++
		}
		if j < len(s.buf) || !s.fillKeeping(&start, &j) {
			break
		}
	}
	raw := s.buf[start:j]
	if len(raw) == 0 {
		return Token{}, s.errorf(start, "unexpected %s, expected a value", quoteByte(s.buf[start]))
	}
	k := literalKind(raw)
	if k == Invalid {
		return Token{}, s.errorf(start, "invalid literal %q", truncate(raw))
	}
	s.i = j
	return Token{Kind: k, Raw: raw, Pos: s.posAt(start)}, nil
}

// literalKind is the kind of a bare literal (true, false, null, a number,
// or NaN and the infinities Python's json writes), Invalid for anything
// else; the Scanner and the Cursor both decide by it.
func literalKind(raw []byte) Kind {
	switch string(raw) {
	case "true":
		return True
	case "false":
		return False
	case "null":
		return Null
	case "NaN", "Infinity", "-Infinity":
		return Number
	}
	if validNumber(raw) {
		return Number
	}
	return Invalid
}

// validNumber checks the JSON number grammar.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(b)
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// Skip skips the rest of the value that tok starts. For a scalar it does
// nothing; for '{' or '[' it reads to the matching close.
func (s *Scanner) Skip(tok Token) error {
	if tok.Kind != BeginObject && tok.Kind != BeginArray {
		return nil
	}
	depth := len(s.stack) - 1
	for len(s.stack) > depth {
		if _, err := s.Next(); err != nil {
			if err == io.EOF {
				err = &SyntaxError{Pos: s.Pos(), Msg: ErrUnexpectedEOF.Error()}
			}
			return err
		}
	}
	return nil
}

// Float parses a Number token. NaN, Infinity and -Infinity give the
// corresponding IEEE values.
func Float(raw []byte) (float64, error) {
	switch string(raw) {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	if f, ok := exactFloat(raw); ok {
		return f, nil
	}
	return parseFloat(raw)
}

// Int parses a Number token as an int64; a number with a fraction or an
// exponent is accepted only when its value is integral.
func Int(raw []byte) (int64, error) {
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s is not an integer", truncate(raw))
	}
	return int64(f), nil
}

// Unquote returns the value of a String or Key token. It appends to dst
// (which may be nil) only when the string has escapes; otherwise it returns
// a slice of raw without copying.
func Unquote(raw []byte, dst []byte) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, errors.New("not a quoted string")
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, nil
	}
	dst = dst[:0]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(body) {
			return nil, errors.New("truncated escape")
		}
		switch body[i] {
		case '"', '\\', '/':
			dst = append(dst, body[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(body[i+1:])
			if n < 0 {
				return nil, errors.New("invalid \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A surrogate pair is two escapes; a lone surrogate becomes U+FFFD.
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					if r2, n2 := hex4(body[i+3:]); n2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							dst = utf8.AppendRune(dst, dec)
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return nil, fmt.Errorf("invalid escape \\%c", body[i])
		}
	}
	return dst, nil
}

func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, -1
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, -1
		}
	}
	return r, 4
}

// Text returns the value of a String or Key token as a Go string.
func (s *Scanner) Text(tok Token) (string, error) {
	b, err := Unquote(tok.Raw, s.str)
	if err != nil {
		return "", &SyntaxError{Pos: tok.Pos, Msg: "bad string: " + err.Error()}
	}
	if len(b) > 0 && &b[0] != &tok.Raw[1] {
		s.str = b // keep the grown scratch buffer
	}
	return string(b), nil
}

// TextCut is Text for values that become labels or notes: a string
// longer than max bytes is cut at a character boundary and told so
// ("... [cut: 104857600 bytes]"), and the cut string is the only copy
// made, however long the value.
func (s *Scanner) TextCut(tok Token, max int) (string, error) {
	if len(tok.Raw)-2 <= max {
		return s.Text(tok)
	}
	head := tok.Raw[:max+1] // the quote and max bytes of the body
	if i := bytes.LastIndexByte(head, '\\'); i >= len(head)-6 {
		head = head[:i] // do not cut an escape in two
	}
	b, err := Unquote(append(head[:len(head):len(head)], '"'), nil)
	if err != nil {
		return "", &SyntaxError{Pos: tok.Pos, Msg: "bad string: " + err.Error()}
	}
	for i := 0; i < 3 && len(b) > 0; i++ { // a character cut in two
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return fmt.Sprintf("%s... [cut: %d bytes]", b, len(tok.Raw)-2), nil
}
