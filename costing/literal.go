package costing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads the structured cells billing CSVs embed: JSON objects
// (FOCUS Tags, Azure Tags with or without their braces) and lists of
// records written either as JSON or as Python literals (GCP exports
// flattened by pandas write credits as
// [{'name': 'FreeTrial', 'amount': -5e-06, 'full_name': None}]).

// numLit is a number kept as its text, so that credit amounts stay exact.
type numLit string

// maxLiteralDepth bounds nesting in embedded literals.
const maxLiteralDepth = 16

var errLiteral = errors.New("costing: malformed embedded literal")

// parseLiteral reads one JSON or Python literal: lists, dicts, strings in
// single or double quotes, numbers (as numLit), None/null, True/False/true/false.
func parseLiteral(s string) (any, error) {
	p := litParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("%w: trailing text at byte %d", errLiteral, p.i)
	}
	return v, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *litParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errLiteral, what, p.i)
}

func (p *litParser) value(depth int) (any, error) {
	if depth > maxLiteralDepth {
		return nil, p.fail("nested too deeply")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '[' || c == '(':
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		p.i++
		var list []any
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == closer {
				p.i++
				return list, nil
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == closer {
				p.i++
				return list, nil
			}
			return nil, p.fail("expected , or " + string(closer))
		}
	case c == '{':
		p.i++
		m := map[string]any{}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			k, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, p.fail("dict key is not a string")
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.fail("expected :")
			}
			p.i++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[ks] = v
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			return nil, p.fail("expected , or }")
		}
	case c == '"' || c == '\'':
		return p.str(c)
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		j := p.i
		for p.i < len(p.s) && strings.IndexByte("+-.eE0123456789", p.s[p.i]) >= 0 {
			p.i++
		}
		return numLit(p.s[j:p.i]), nil
	default:
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z') {
			p.i++
		}
		switch p.s[j:p.i] {
		case "None", "null":
			return nil, nil
		case "True", "true":
			return true, nil
		case "False", "false":
			return false, nil
		}
		p.i = j
		return nil, p.fail("unexpected character")
	}
}

func (p *litParser) str(q byte) (string, error) {
	p.i++
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return sb.String(), nil
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", p.fail("unterminated escape")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'x', 'u':
				n := 2
				if e == 'u' {
					n = 4
				}
				if p.i+n > len(p.s) {
					return "", p.fail("short escape")
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil {
					return "", p.fail("bad escape")
				}
				p.i += n
				sb.WriteRune(rune(r))
			default: // \\, \', \", \/ and anything else: the character itself
				sb.WriteByte(e)
			}
		default:
			_, size := utf8.DecodeRuneInString(p.s[p.i:])
			sb.WriteString(p.s[p.i : p.i+size])
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

// scalarText writes a literal scalar as tag text: strings as they are,
// numbers and booleans as written, null as "", and anything nested as JSON.
func scalarText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case numLit:
		return string(v)
	case json.Number:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	default:
		b, err := json.Marshal(plain(v))
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
}

// plain turns numLit into json.Number so that nested values marshal.
func plain(v any) any {
	switch v := v.(type) {
	case numLit:
		return json.Number(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plain(e)
		}
		return out
	}
	return v
}

// parseTagObject reads a tag object. FOCUS and Azure MCA write JSON
// objects; Azure EA leaves off the braces ("k": "v","k2": "v2"), so text
// that does not start with "{" is wrapped before parsing. Single-quoted
// Python dicts are accepted too.
func parseTagObject(s string) (map[string]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if s[0] != '{' {
		s = "{" + s + "}"
	}
	if tags, ok := flatObject(s); ok {
		return tags, nil
	}
	v, err := parseLiteral(s)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errLiteral
	}
	if len(m) == 0 {
		return nil, nil
	}
	tags := make(map[string]string, len(m))
	for k, v := range m {
		tags[k] = scalarText(v)
	}
	return tags, nil
}

// parseRecordList reads a list of records (GCP credits, labels), JSON or
// Python literal. An empty cell or "[]" is an empty list.
func parseRecordList(s string) ([]map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "[]" {
		return nil, nil
	}
	v, err := parseLiteral(s)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a list", errLiteral)
	}
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: list element is not a record", errLiteral)
		}
		out = append(out, m)
	}
	return out, nil
}

// parseKeyValueList reads GCP labels, [{'key': k, 'value': v}, …], into
// tags. Records without a key are skipped.
func parseKeyValueList(s string, into map[string]string) (map[string]string, error) {
	recs, err := parseRecordList(s)
	if err != nil {
		return into, err
	}
	for _, r := range recs {
		k, ok := r["key"].(string)
		if !ok {
			continue
		}
		if into == nil {
			into = make(map[string]string, len(recs))
		}
		into[k] = scalarText(r["value"])
	}
	return into, nil
}

// flatObject is parseTagObject's fast path for the common case, a JSON
// object of double-quoted strings without escapes: the map's strings are
// substrings of s, so only the map is allocated. Anything else (escapes,
// numbers, nesting, single quotes) reports false and takes the general
// parser.
func flatObject(s string) (map[string]string, bool) {
	i := 1
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	str := func() (string, bool) {
		if i >= len(s) || s[i] != '"' {
			return "", false
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				return "", false
			}
			j++
		}
		if j >= len(s) {
			return "", false
		}
		v := s[i+1 : j]
		i = j + 1
		return v, true
	}
	var m map[string]string
	skip()
	if i < len(s) && s[i] == '}' {
		i++
		skip()
		return nil, i == len(s)
	}
	for {
		skip()
		k, ok := str()
		if !ok {
			return nil, false
		}
		skip()
		if i >= len(s) || s[i] != ':' {
			return nil, false
		}
		i++
		skip()
		v, ok := str()
		if !ok {
			return nil, false
		}
		if m == nil {
			m = make(map[string]string, 4)
		}
		if _, dup := m[k]; dup {
			return nil, false // let the general parser decide (last wins there too)
		}
		m[k] = v
		skip()
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i < len(s) && s[i] == '}' {
			i++
			skip()
			return m, i == len(s)
		}
		return nil, false
	}
}
