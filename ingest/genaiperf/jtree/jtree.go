// Package jtree reads small JSON documents (the summary files of
// GenAI-Perf and AIPerf, one SSE event, one telemetry line) into a tree
// whose every node keeps its line and column, so that a reader can name
// the position of any value it rejects. It is built on internal/jsonscan
// and so accepts Python's NaN and Infinity.
//
// It is shared by ingest/genaiperf and ingest/aiperf, whose summary files
// have one lineage (AIPerf 0.2 adopted GenAI-Perf's layout). Large inputs
// (per-request exports) are streamed with jsonscan directly, or, when
// they are arrays of records, read a record at a time on every core by
// Elements (inference-perf's per-request file).
package jtree

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// A Node is one JSON value.
type Node struct {
	Kind    jsonscan.Kind // String, Number, True, False, Null, BeginObject or BeginArray
	Text    string        // a string's value or a number's text
	Pos     jsonscan.Pos
	Members []Member // objects, in file order
	Elems   []*Node  // arrays
}

// A Member is one object member.
type Member struct {
	Key    string
	KeyPos jsonscan.Pos
	Val    *Node
}

// MaxNodes bounds the size of a tree; a document with more values is
// refused rather than read into memory.
const MaxNodes = 4 << 20

// Parse reads exactly one JSON value from r. Errors are *ingest.Error
// values naming path and the position.
func Parse(path string, r io.Reader) (*Node, error) {
	return ParseUsing(jsonscan.New(nil), path, r)
}

// ParseUsing is Parse with the caller's scanner, reset to read r, for a
// reader that parses many small documents (a stream's events, one per
// response): a new scanner allocates and clears a 64 KiB buffer, a reset
// one keeps its own.
func ParseUsing(sc *jsonscan.Scanner, path string, r io.Reader) (*Node, error) {
	sc.Reset(r, jsonscan.Pos{})
	tok, err := sc.Next()
	if err == io.EOF {
		return nil, &ingest.Error{File: path, Err: errors.New("no JSON value found")}
	}
	if err != nil {
		return nil, SyntaxErr(path, err)
	}
	n, err := Read(path, sc, tok)
	if err != nil {
		return nil, err
	}
	if tok, err := sc.Next(); err != io.EOF {
		if err != nil {
			return nil, SyntaxErr(path, err)
		}
		return nil, &ingest.Error{File: path, Line: tok.Pos.Line, Column: tok.Pos.Col,
			Err: errors.New("more than one JSON value (expected a single document)")}
	}
	return n, nil
}

// Read reads the value that tok (just returned by sc) starts.
func Read(path string, sc *jsonscan.Scanner, tok jsonscan.Token) (*Node, error) {
	t := treeReader{path: path, sc: sc}
	return t.read(tok)
}

// A treeReader reads one tree. Its nodes are allocated in slabs, and each
// container's members or elements are gathered on a stack shared by the
// whole tree and copied out once at the right length, so that a record
// of forty values costs a few allocations, not a hundred.
type treeReader struct {
	path    string
	sc      *jsonscan.Scanner
	count   int
	slab    []Node
	members []Member
	elems   []*Node
}

func (t *treeReader) node(tok jsonscan.Token) *Node {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]Node, 0, min(64, 1+t.count/2))
	}
	t.slab = append(t.slab, Node{Kind: tok.Kind, Pos: tok.Pos})
	return &t.slab[len(t.slab)-1]
}

func (t *treeReader) read(tok jsonscan.Token) (*Node, error) {
	path, sc := t.path, t.sc
	t.count++
	if t.count > MaxNodes {
		return nil, &ingest.Error{File: path, Line: tok.Pos.Line, Column: tok.Pos.Col,
			Err: fmt.Errorf("document too large (over %d values) for a summary file", MaxNodes)}
	}
	n := t.node(tok)
	switch tok.Kind {
	case jsonscan.String:
		s, err := sc.Text(tok)
		if err != nil {
			return nil, SyntaxErr(path, err)
		}
		n.Text = s
	case jsonscan.Number:
		n.Text = string(tok.Raw)
	case jsonscan.True, jsonscan.False, jsonscan.Null:
	case jsonscan.BeginObject:
		base := len(t.members)
		for {
			k, err := sc.Next()
			if err != nil {
				return nil, SyntaxErr(path, err)
			}
			if k.Kind == jsonscan.EndObject {
				if len(t.members) > base {
					n.Members = slices.Clone(t.members[base:])
				}
				t.members = t.members[:base]
				return n, nil
			}
			key, err := sc.Text(k)
			if err != nil {
				return nil, SyntaxErr(path, err)
			}
			vt, err := sc.Next()
			if err != nil {
				return nil, SyntaxErr(path, err)
			}
			v, err := t.read(vt)
			if err != nil {
				return nil, err
			}
			t.members = append(t.members, Member{Key: key, KeyPos: k.Pos, Val: v})
		}
	case jsonscan.BeginArray:
		base := len(t.elems)
		for {
			et, err := sc.Next()
			if err != nil {
				return nil, SyntaxErr(path, err)
			}
			if et.Kind == jsonscan.EndArray {
				if len(t.elems) > base {
					n.Elems = slices.Clone(t.elems[base:])
				}
				t.elems = t.elems[:base]
				return n, nil
			}
			e, err := t.read(et)
			if err != nil {
				return nil, err
			}
			t.elems = append(t.elems, e)
		}
	default:
		return nil, &ingest.Error{File: path, Line: tok.Pos.Line, Column: tok.Pos.Col, Err: fmt.Errorf("unexpected %s", tok.Kind)}
	}
	return n, nil
}

// SyntaxErr turns a jsonscan error into an *ingest.Error.
func SyntaxErr(path string, err error) error {
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return &ingest.Error{File: path, Line: se.Pos.Line, Column: se.Pos.Col, Err: fmt.Errorf("malformed JSON: %s", se.Msg)}
	}
	var ie *ingest.Error
	if errors.As(err, &ie) {
		return err
	}
	return &ingest.Error{File: path, Err: err}
}

// Get returns the value of key in an object (the last one when the key is
// repeated, as Python's json does), or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != jsonscan.BeginObject {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Val
		}
	}
	return nil
}

// Path follows keys through nested objects.
func (n *Node) Path(keys ...string) *Node {
	for _, k := range keys {
		n = n.Get(k)
	}
	return n
}

// Has reports whether an object has key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// IsObject reports whether n is an object.
func (n *Node) IsObject() bool { return n != nil && n.Kind == jsonscan.BeginObject }

// IsNull reports whether n is absent or null.
func (n *Node) IsNull() bool { return n == nil || n.Kind == jsonscan.Null }

// Dups lists the keys of an object that appear more than once.
func (n *Node) Dups() []string {
	if !n.IsObject() {
		return nil
	}
	seen := map[string]int{}
	var out []string
	for _, m := range n.Members {
		seen[m.Key]++
		if seen[m.Key] == 2 {
			out = append(out, m.Key)
		}
	}
	return out
}

// Float returns a number's value.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != jsonscan.Number {
		return 0, false
	}
	f, err := jsonscan.Float([]byte(n.Text))
	return f, err == nil
}

// Int returns an integral number's value; epoch nanoseconds are parsed
// as integers, never through float64.
func (n *Node) Int() (int64, bool) {
	if n == nil || n.Kind != jsonscan.Number {
		return 0, false
	}
	if v, err := strconv.ParseInt(n.Text, 10, 64); err == nil {
		return v, true
	}
	v, err := jsonscan.Int([]byte(n.Text))
	return v, err == nil
}

// Str returns a string's value.
func (n *Node) Str() (string, bool) {
	if n == nil || n.Kind != jsonscan.String {
		return "", false
	}
	return n.Text, true
}

// Bool returns a boolean's value.
func (n *Node) Bool() (bool, bool) {
	if n == nil {
		return false, false
	}
	switch n.Kind {
	case jsonscan.True:
		return true, true
	case jsonscan.False:
		return false, true
	}
	return false, false
}

// Describe names a node's kind and value for error messages.
func (n *Node) Describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case jsonscan.String:
		s := n.Text
		if len(s) > 60 {
			s = s[:60] + "..."
		}
		return fmt.Sprintf("the string %q", s)
	case jsonscan.Number:
		return "the number " + n.Text
	case jsonscan.BeginArray:
		return fmt.Sprintf("an array of %d elements", len(n.Elems))
	case jsonscan.BeginObject:
		return "an object"
	}
	return n.Kind.String()
}

// Scalar renders a scalar (or a short array of scalars) as label text;
// ok is false for objects and long arrays.
func (n *Node) Scalar() (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Kind {
	case jsonscan.String, jsonscan.Number:
		return n.Text, true
	case jsonscan.True:
		return "true", true
	case jsonscan.False:
		return "false", true
	case jsonscan.Null:
		return "", true
	case jsonscan.BeginArray:
		if len(n.Elems) > 16 {
			return "", false
		}
		s := "["
		for i, e := range n.Elems {
			t, ok := e.Scalar()
			if !ok {
				return "", false
			}
			if i > 0 {
				s += ", "
			}
			s += t
		}
		return s + "]", true
	}
	return "", false
}

// Items returns an array's elements (nil for anything else, nil included).
func (n *Node) Items() []*Node {
	if n == nil || n.Kind != jsonscan.BeginArray {
		return nil
	}
	return n.Elems
}

// Fields returns an object's members (nil for anything else, nil
// included).
func (n *Node) Fields() []Member {
	if n == nil || n.Kind != jsonscan.BeginObject {
		return nil
	}
	return n.Members
}

// ParseObject reads a whole input that must hold one JSON object, and
// warns through sink about keys that appear twice (the last value wins,
// as in Python).
func ParseObject(in *ingest.Input, sink ingest.Sink) (*Node, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	root, err := Parse(in.Path, rc)
	if err != nil {
		return nil, err
	}
	if !root.IsObject() {
		return nil, ErrorAt(in.Path, root, "", "", "expected a JSON object, found %s", root.Describe())
	}
	for _, k := range root.Dups() {
		sink.Warn(fmt.Sprintf("%s: key %q appears more than once; the last value is used", in.Path, k))
	}
	return root, nil
}
