package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// chunkInfo is what timing and accounting need from one streamed chunk,
// or from a whole non-streamed response.
type chunkInfo struct {
	// choices is the length of the choices array (0 when absent or null).
	choices int
	// answer and reasoning: some choice carries non-empty answer content
	// (text, delta.content, message.content) or reasoning content
	// (reasoning_content or reasoning, in delta or message).
	answer, reasoning bool
	// Usage counts; -1 when not given.
	prompt, completion, reasoningTokens int64
	// hasError: an "error" member that is not null; errMsg its message.
	hasError bool
	errMsg   string
}

// maxDepth is encoding/json's nesting limit, kept so that the two agree.
const maxDepth = 10000

var errSyntax = errors.New("invalid JSON")

// decodeChunk parses a chunk's JSON. It is a fast path for the one object
// decoded per streamed chunk: it accepts and rejects exactly what
// json.Unmarshal into the OpenAI chunk shape would (same syntax, same type
// rules, same case-insensitive member names, last duplicate wins; a fuzz
// test holds it to that) and allocates only for escaped member names and
// error messages.
func decodeChunk(data []byte, ci *chunkInfo) error {
	*ci = chunkInfo{prompt: -1, completion: -1, reasoningTokens: -1}
	d := jdec{b: data}
	d.ws()
	if d.null() {
		return d.end()
	}
	if !d.peek('{') {
		if err := d.skip(); err != nil {
			return err
		}
		return fmt.Errorf("a chunk must be a JSON object")
	}
	if err := d.top(ci); err != nil {
		return err
	}
	return d.end()
}

// jdec walks JSON held in memory.
type jdec struct {
	b     []byte
	i     int
	depth int
}

func (d *jdec) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s: %w", d.i, fmt.Sprintf(format, args...), errSyntax)
}

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jdec) peek(c byte) bool { return d.i < len(d.b) && d.b[d.i] == c }

func (d *jdec) end() error {
	d.ws()
	if d.i != len(d.b) {
		return d.errorf("data after the value")
	}
	return nil
}

// null consumes a null literal if one is next.
func (d *jdec) null() bool {
	if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// open consumes c ('{' or '[') and counts the depth.
func (d *jdec) open(c byte) error {
	if !d.peek(c) {
		return d.errorf("expected %q", c)
	}
	d.i++
	d.depth++
	if d.depth > maxDepth {
		return d.errorf("exceeded max depth")
	}
	return nil
}

// member advances to the next member of an object: it returns the raw
// (still escaped) name, or more=false after the closing brace.
func (d *jdec) member(first *bool) (name []byte, more bool, err error) {
	d.ws()
	if d.i >= len(d.b) {
		return nil, false, d.errorf("unexpected end")
	}
	if *first {
		*first = false
		if d.b[d.i] == '}' {
			d.i++
			d.depth--
			return nil, false, nil
		}
	} else {
		switch d.b[d.i] {
		case '}':
			d.i++
			d.depth--
			return nil, false, nil
		case ',':
			d.i++
			d.ws()
		default:
			return nil, false, d.errorf("expected , or }")
		}
	}
	name, err = d.str()
	if err != nil {
		return nil, false, err
	}
	d.ws()
	if !d.peek(':') {
		return nil, false, d.errorf("expected :")
	}
	d.i++
	d.ws()
	return name, true, nil
}

// element advances to the next element of an array; more=false after the
// closing bracket.
func (d *jdec) element(first *bool) (more bool, err error) {
	d.ws()
	if d.i >= len(d.b) {
		return false, d.errorf("unexpected end")
	}
	if *first {
		*first = false
		if d.b[d.i] == ']' {
			d.i++
			d.depth--
			return false, nil
		}
		return true, nil
	}
	switch d.b[d.i] {
	case ']':
		d.i++
		d.depth--
		return false, nil
	case ',':
		d.i++
		d.ws()
		return true, nil
	}
	return false, d.errorf("expected , or ]")
}

// str consumes a string and returns its raw content between the quotes.
func (d *jdec) str() ([]byte, error) {
	if !d.peek('"') {
		return nil, d.errorf("expected a string")
	}
	start := d.i + 1
	for i := start; i < len(d.b); i++ {
		switch c := d.b[i]; {
		case c == '"':
			d.i = i + 1
			return d.b[start:i], nil
		case c < 0x20:
			d.i = i
			return nil, d.errorf("control character in string")
		case c == '\\':
			i++
			if i >= len(d.b) {
				break
			}
			switch d.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d.b) {
					d.i = i
					return nil, d.errorf("short \\u escape")
				}
				for _, h := range d.b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						d.i = i
						return nil, d.errorf("bad \\u escape")
					}
				}
				i += 4
			default:
				d.i = i
				return nil, d.errorf("bad escape")
			}
		}
	}
	d.i = len(d.b)
	return nil, d.errorf("unterminated string")
}

// number consumes a number and returns it.
func (d *jdec) number() ([]byte, error) {
	start, i := d.i, d.i
	digits := func() int {
		n := 0
		for i < len(d.b) && d.b[i] >= '0' && d.b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d.b) && d.b[i] == '-' {
		i++
	}
	switch {
	case i < len(d.b) && d.b[i] == '0':
		i++
	case digits() == 0:
		d.i = i
		return nil, d.errorf("bad number")
	}
	if i < len(d.b) && d.b[i] == '.' {
		i++
		if digits() == 0 {
			d.i = i
			return nil, d.errorf("bad number")
		}
	}
	if i < len(d.b) && (d.b[i] == 'e' || d.b[i] == 'E') {
		i++
		if i < len(d.b) && (d.b[i] == '+' || d.b[i] == '-') {
			i++
		}
		if digits() == 0 {
			d.i = i
			return nil, d.errorf("bad number")
		}
	}
	d.i = i
	return d.b[start:i], nil
}

// skip consumes and validates any value.
func (d *jdec) skip() error {
	if d.i >= len(d.b) {
		return d.errorf("unexpected end")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		if err := d.open('{'); err != nil {
			return err
		}
		for first := true; ; {
			_, more, err := d.member(&first)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	case c == '[':
		if err := d.open('['); err != nil {
			return err
		}
		for first := true; ; {
			more, err := d.element(&first)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	case c == '"':
		_, err := d.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := d.number()
		return err
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(d.b[d.i:], []byte(lit)) {
			d.i += len(lit)
			return nil
		}
	}
	return d.errorf("unexpected character %q", d.b[d.i])
}

// typeError consumes the value (it must still be valid JSON, as
// encoding/json checks syntax first) and reports a type mismatch.
func (d *jdec) typeError(what string) error {
	if err := d.skip(); err != nil {
		return err
	}
	return fmt.Errorf("%s: wrong JSON type", what)
}

// is reports whether a raw member name equals name as encoding/json
// matches them: after unescaping, case-insensitively (bytes.EqualFold).
func is(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return bytes.EqualFold(raw, []byte(name))
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return false
	}
	return bytes.EqualFold([]byte(s), []byte(name))
}

// unquote returns the text of a raw string as encoding/json decodes it
// (each invalid UTF-8 byte becomes U+FFFD). Only error messages take this
// path.
func unquote(raw []byte) string {
	var s string
	json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s)
	return s
}

// optString reads a string or null into a *string-like state: set is
// whether it is non-null, nonEmpty whether it has text.
func (d *jdec) optString(what string) (nonEmpty bool, err error) {
	if d.null() {
		return false, nil
	}
	if !d.peek('"') {
		return false, d.typeError(what)
	}
	raw, err := d.str()
	return len(raw) > 0, err
}

// optInt reads an integer or null (-1) as json.Unmarshal into *int64.
func (d *jdec) optInt(what string) (int64, error) {
	if d.null() {
		return -1, nil
	}
	if d.i >= len(d.b) {
		return 0, d.errorf("unexpected end")
	}
	if c := d.b[d.i]; !(c == '-' || c >= '0' && c <= '9') {
		return 0, d.typeError(what)
	}
	raw, err := d.number()
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(string(raw), 10, 64)
	if perr != nil {
		return 0, fmt.Errorf("%s: %s is not an int64", what, raw)
	}
	return v, nil
}

// top reads the chunk object.
func (d *jdec) top(ci *chunkInfo) error {
	return d.object(func(name []byte) error {
		switch {
		case is(name, "choices"):
			return d.choices(ci)
		case is(name, "usage"):
			return d.usage(ci)
		case is(name, "error"):
			return d.apiError(ci)
		}
		return d.skip()
	})
}

// content is the state of a delta or message object.
type content struct{ answer, reasoning, reasoningAlt bool }

func (d *jdec) choices(ci *chunkInfo) error {
	ci.choices, ci.answer, ci.reasoning = 0, false, false
	if d.null() {
		return nil
	}
	if !d.peek('[') {
		return d.typeError("choices")
	}
	if err := d.open('['); err != nil {
		return err
	}
	var typeErr error
	for first := true; ; {
		more, err := d.element(&first)
		if err != nil {
			return err
		}
		if !more {
			return typeErr
		}
		ci.choices++
		if d.null() {
			continue
		}
		if !d.peek('{') {
			if err := d.typeError("choices[]"); !errors.Is(err, errSyntax) {
				typeErr = cmp(typeErr, err)
				continue
			} else {
				return err
			}
		}
		ans, rsn, err := d.choice()
		if err != nil && errors.Is(err, errSyntax) {
			return err
		}
		typeErr = cmp(typeErr, err)
		ci.answer = ci.answer || ans
		ci.reasoning = ci.reasoning || rsn
	}
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// choice reads one element of choices.
func (d *jdec) choice() (answer, reasoning bool, err error) {
	var text bool
	var delta, msg content
	err = d.object(func(name []byte) (err error) {
		switch {
		case is(name, "text"):
			text, err = d.optString("text")
			return err
		case is(name, "delta"):
			return d.content(&delta)
		case is(name, "message"):
			return d.content(&msg)
		}
		return d.skip()
	})
	if errors.Is(err, errSyntax) {
		return false, false, err
	}
	answer = text || delta.answer || msg.answer
	reasoning = delta.reasoning || delta.reasoningAlt || msg.reasoning || msg.reasoningAlt
	return answer, reasoning, err
}

// content reads a delta or message object into c, merging into what an
// earlier duplicate member set (null resets it), as encoding/json decodes
// into an existing pointer.
func (d *jdec) content(c *content) error {
	if d.null() {
		*c = content{}
		return nil
	}
	if !d.peek('{') {
		return d.typeError("delta")
	}
	return d.object(func(name []byte) (err error) {
		switch {
		case is(name, "content"):
			c.answer, err = d.optString("content")
		case is(name, "reasoning_content"):
			c.reasoning, err = d.optString("reasoning_content")
		case is(name, "reasoning"):
			c.reasoningAlt, err = d.optString("reasoning")
		default:
			err = d.skip()
		}
		return err
	})
}

func (d *jdec) usage(ci *chunkInfo) error {
	if d.null() {
		ci.prompt, ci.completion, ci.reasoningTokens = -1, -1, -1
		return nil
	}
	if !d.peek('{') {
		return d.typeError("usage")
	}
	return d.object(func(name []byte) error {
		switch {
		case is(name, "prompt_tokens"):
			return d.intInto(&ci.prompt, "prompt_tokens")
		case is(name, "completion_tokens"):
			return d.intInto(&ci.completion, "completion_tokens")
		case is(name, "completion_tokens_details"):
			return d.details(ci)
		}
		return d.skip()
	})
}

func (d *jdec) details(ci *chunkInfo) error {
	if d.null() {
		ci.reasoningTokens = -1
		return nil
	}
	if !d.peek('{') {
		return d.typeError("completion_tokens_details")
	}
	return d.object(func(name []byte) error {
		if is(name, "reasoning_tokens") {
			return d.intInto(&ci.reasoningTokens, "reasoning_tokens")
		}
		return d.skip()
	})
}

// object walks the members of the object that starts next, calling field
// for each. As in encoding/json, a type mismatch does not stop the walk:
// the syntax of the rest is still checked and the first mismatch is
// returned at the end; a syntax error stops it at once.
func (d *jdec) object(field func(name []byte) error) error {
	if err := d.open('{'); err != nil {
		return err
	}
	var typeErr error
	for first := true; ; {
		name, more, err := d.member(&first)
		if err != nil {
			return err
		}
		if !more {
			return typeErr
		}
		if err := field(name); err != nil {
			if errors.Is(err, errSyntax) {
				return err
			}
			typeErr = cmp(typeErr, err)
		}
	}
}

// intInto reads an optional integer member into *dst (left as is when the
// value is not an int64).
func (d *jdec) intInto(dst *int64, what string) error {
	v, err := d.optInt(what)
	if err == nil {
		*dst = v
	}
	return err
}

// apiError reads the "error" member: a string, or an object whose
// "message" is a string (null keeps an earlier message).
func (d *jdec) apiError(ci *chunkInfo) error {
	switch {
	case d.null():
		ci.hasError, ci.errMsg = false, ""
		return nil
	case d.peek('"'):
		raw, err := d.str()
		if err != nil {
			return err
		}
		ci.hasError, ci.errMsg = true, unquote(raw)
		return nil
	case !d.peek('{'):
		return d.typeError("error")
	}
	if err := d.open('{'); err != nil {
		return err
	}
	if !ci.hasError {
		ci.errMsg = ""
	}
	ci.hasError = true
	var typeErr error
	for first := true; ; {
		name, more, err := d.member(&first)
		if err != nil {
			return err
		}
		if !more {
			return typeErr
		}
		switch {
		case is(name, "message"), is(name, "type"):
			msg := is(name, "message")
			switch {
			case d.null():
			case d.peek('"'):
				raw, err2 := d.str()
				if err2 != nil {
					return err2
				}
				if msg {
					ci.errMsg = unquote(raw)
				}
			default:
				err = d.typeError("error.message")
			}
		default:
			err = d.skip()
		}
		if err != nil {
			if errors.Is(err, errSyntax) {
				return err
			}
			typeErr = cmp(typeErr, err)
		}
	}
}
