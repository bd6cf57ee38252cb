package vllm

import (
	"fmt"
	"io"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// The first pass reads each run object's scalar members into memory and,
// for each array member, only its position and length. Arrays are read in
// a second pass, all of a run's per-request arrays in lockstep, so memory
// does not grow with the number of requests.

// A value is one member's value from the first pass.
type value struct {
	kind jsonscan.Kind // String, Number, True, False, Null, BeginArray or BeginObject
	text string        // a string's value or a number's text
	pos  jsonscan.Pos
	n    int      // arrays: element count
	obj  []member // objects: scalar members (nested containers are skipped)
}

type member struct {
	key string
	val value
}

// A record is one run object.
type record struct {
	index   int // 0-based position among the file's run objects
	pos     jsonscan.Pos
	members []member
	byKey   map[string]int // last occurrence wins, as in Python's json
	dups    []string
}

func (r *record) get(key string) (value, bool) {
	i, ok := r.byKey[key]
	if !ok {
		return value{}, false
	}
	return r.members[i].val, true
}

func (r *record) has(key string) bool { _, ok := r.byKey[key]; return ok }

// scanRecords reads the run objects of a file: one object, several
// whitespace-separated objects, or a JSON array of objects.
func scanRecords(path string, rd io.Reader, fn func(*record) error) error {
	sc := jsonscan.New(rd)
	index := 0
	for {
		tok, err := sc.Next()
		if err == io.EOF {
			if index == 0 {
				return &ingest.Error{File: path, Err: fmt.Errorf("no JSON object found")}
			}
			return nil
		}
		if err != nil {
			return syntaxErr(path, err)
		}
		switch tok.Kind {
		case jsonscan.BeginObject:
			rec, err := readRecord(path, sc, tok, index)
			if err != nil {
				return err
			}
			index++
			if err := fn(rec); err != nil {
				return err
			}
		case jsonscan.BeginArray:
			for {
				el, err := sc.Next()
				if err != nil {
					return syntaxErr(path, err)
				}
				if el.Kind == jsonscan.EndArray {
					break
				}
				if el.Kind != jsonscan.BeginObject {
					return &ingest.Error{File: path, Line: el.Pos.Line, Column: el.Pos.Col,
						Err: fmt.Errorf("expected a run object in the top-level array, found %s", el.Kind)}
				}
				rec, err := readRecord(path, sc, el, index)
				if err != nil {
					return err
				}
				index++
				if err := fn(rec); err != nil {
					return err
				}
			}
		default:
			return &ingest.Error{File: path, Line: tok.Pos.Line, Column: tok.Pos.Col,
				Err: fmt.Errorf("expected a JSON object, found %s", tok.Kind)}
		}
	}
}

func syntaxErr(path string, err error) error {
	if se, ok := err.(*jsonscan.SyntaxError); ok {
		return &ingest.Error{File: path, Line: se.Pos.Line, Column: se.Pos.Col, Err: fmt.Errorf("malformed JSON: %s", se.Msg)}
	}
	return &ingest.Error{File: path, Err: err}
}

// readRecord reads an object whose '{' was just returned.
func readRecord(path string, sc *jsonscan.Scanner, open jsonscan.Token, index int) (*record, error) {
	rec := &record{index: index, pos: open.Pos, byKey: map[string]int{}}
	for {
		tok, err := sc.Next()
		if err != nil {
			return nil, syntaxErr(path, err)
		}
		if tok.Kind == jsonscan.EndObject {
			return rec, nil
		}
		key, err := sc.Text(tok)
		if err != nil {
			return nil, syntaxErr(path, err)
		}
		v, err := readValue(path, sc, true)
		if err != nil {
			return nil, err
		}
		if _, dup := rec.byKey[key]; dup {
			rec.dups = append(rec.dups, key)
		}
		rec.byKey[key] = len(rec.members)
		rec.members = append(rec.members, member{key, v})
	}
}

// readValue reads one value: scalars in full, arrays as a position and a
// count, and (when nested is true) objects one level deep.
func readValue(path string, sc *jsonscan.Scanner, nested bool) (value, error) {
	tok, err := sc.Next()
	if err != nil {
		return value{}, syntaxErr(path, err)
	}
	v := value{kind: tok.Kind, pos: tok.Pos}
	switch tok.Kind {
	case jsonscan.String:
		if v.text, err = sc.TextCut(tok, ingest.MaxTextBytes); err != nil {
			return value{}, syntaxErr(path, err)
		}
	case jsonscan.Number:
		v.text = string(tok.Raw)
	case jsonscan.BeginArray:
		// Elements are counted without being validated: the second pass
		// reads every element of the arrays it uses and reports errors with
		// their positions then.
		if v.n, err = sc.SkipArray(); err != nil {
			return value{}, syntaxErr(path, err)
		}
	case jsonscan.BeginObject:
		if !nested {
			return v, sc.Skip(tok)
		}
		for {
			k, err := sc.Next()
			if err != nil {
				return value{}, syntaxErr(path, err)
			}
			if k.Kind == jsonscan.EndObject {
				break
			}
			key, err := sc.Text(k)
			if err != nil {
				return value{}, syntaxErr(path, err)
			}
			mv, err := readValue(path, sc, false)
			if err != nil {
				return value{}, err
			}
			v.obj = append(v.obj, member{key, mv})
		}
	}
	return v, nil
}

// A cursor reads the elements of one array from its recorded position.
type cursor struct {
	field string
	sc    *jsonscan.Scanner
	rc    io.ReadCloser
	path  string
	buf   []float64
}

func openCursor(in *ingest.Input, field string, v value) (*cursor, error) {
	rc, err := in.OpenAt(v.pos.Off)
	if err != nil {
		return nil, err
	}
	// buf starts non-nil: an empty list is an empty slice (one chunk),
	// never nil (unknown), whichever row it is on.
	c := &cursor{field: field, sc: jsonscan.NewAt(rc, v.pos), rc: rc, path: in.Path, buf: make([]float64, 0, 64)}
	tok, err := c.sc.Next()
	if err != nil || tok.Kind != jsonscan.BeginArray {
		rc.Close()
		return nil, &ingest.Error{File: in.Path, Line: v.pos.Line, Column: v.pos.Col, Field: field,
			Err: fmt.Errorf("file changed while it was read (no array at the recorded position)")}
	}
	return c, nil
}

func (c *cursor) close() {
	if c != nil {
		c.rc.Close()
	}
}

// next returns the next element's first token.
func (c *cursor) next() (jsonscan.Token, error) {
	tok, err := c.sc.Next()
	if err != nil {
		return tok, syntaxErr(c.path, err)
	}
	if tok.Kind == jsonscan.EndArray {
		return tok, &ingest.Error{File: c.path, Line: tok.Pos.Line, Column: tok.Pos.Col, Field: c.field,
			Err: fmt.Errorf("array ended early (file changed while it was read?)")}
	}
	return tok, nil
}

// floats reads a nested array of numbers into a reused slice. A non-number
// element is reported through bad (with its token) and the rest of the
// array is consumed.
func (c *cursor) floats(open jsonscan.Token) (xs []float64, bad *jsonscan.Token, err error) {
	xs = c.buf[:0]
	if open.Kind != jsonscan.BeginArray {
		b := open
		return nil, &b, c.sc.Skip(open)
	}
	if xs, ok := c.sc.Numbers(xs); ok {
		c.buf = xs
		return xs, nil, nil
	}
	for {
		tok, err := c.sc.Next()
		if err != nil {
			return nil, nil, syntaxErr(c.path, err)
		}
		if tok.Kind == jsonscan.EndArray {
			c.buf = xs
			return xs, bad, nil
		}
		if tok.Kind != jsonscan.Number {
			if bad == nil {
				b := tok
				b.Raw = nil
				bad = &b
			}
			if err := c.sc.Skip(tok); err != nil {
				return nil, nil, syntaxErr(c.path, err)
			}
			continue
		}
		f, perr := jsonscan.Float(tok.Raw)
		if perr != nil && bad == nil {
			b := tok
			b.Raw = nil
			bad = &b
		}
		xs = append(xs, f)
	}
}
