// Package yamlin reads the YAML files verdict is given (--sut, --quote,
// --policy and GuideLLM's benchmarks.yaml) with guards that no hostile
// file gets past: a size limit before parsing, a nesting limit, a bound
// on how far aliases may expand a document, and a parser panic turned
// into an input error. Every error is an *Error naming the file, line and
// column.
//
// It is built on go.yaml.in/yaml/v3 (the YAML organisation's maintained
// yaml.v3), chosen over github.com/goccy/go-yaml with guards (issue 15):
// on a 100 KB document of nested flow sequences goccy's parser allocated
// 3.8 GB over 17 s before its own depth check answered, where yaml.v3
// stops at 10,000 levels after 5 MB and 30 ms; yaml.v3 refuses
// excessive alias expansion while decoding, keeps every node's line and
// column, and reads `other: !t 0` (a nil-pointer panic in goccy, its
// issues 735 and 909) as a type error.
package yamlin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limits of every document.
const (
	// MaxBytes is the largest configuration file (--sut, --quote,
	// --policy) read; readers of larger documents pass their own limit.
	MaxBytes = 4 << 20
	// MaxDepth is the deepest nesting accepted, aliases expanded; it
	// matches the JSON readers' (internal/jsonscan).
	MaxDepth = 1000
	// MaxAliasValues is how many values aliases may add to a document
	// beyond the number it holds itself: aliases may double a document,
	// or add this many values to a small one, and no more.
	MaxAliasValues = 100_000
)

// An Error is a problem with a YAML input; Line and Column are 0 when
// unknown.
type Error struct {
	File         string
	Line, Column int
	Msg          string
	Err          error // the underlying error, when there is one
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrEmpty is wrapped by the error of a document with no content.
var ErrEmpty = errors.New("empty YAML document")

// Parse reads the single YAML document of data (name is used in errors)
// into its node tree, refusing a file over maxBytes (0: MaxBytes), more
// than one document, nesting deeper than MaxDepth and aliases that
// expand beyond MaxAliasValues. The returned node is the document's
// content (a mapping, sequence or scalar); aliases in it are left as
// alias nodes, and expanding them stays within the limits checked.
func Parse(name string, data []byte, maxBytes int64) (n *yaml.Node, err error) {
	if maxBytes <= 0 {
		maxBytes = MaxBytes
	}
	if int64(len(data)) > maxBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d bytes; refusing to parse it", maxBytes)}
	}
	defer recoverInto(name, &err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, &Error{File: name, Msg: ErrEmpty.Error(), Err: ErrEmpty}
		}
		return nil, convert(name, err, nil)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, convert(name, err, nil)
		}
		return nil, &Error{File: name, Line: extra.Line, Column: extra.Column, Msg: "more than one YAML document"}
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, &Error{File: name, Msg: ErrEmpty.Error(), Err: ErrEmpty}
		}
		n = doc.Content[0]
	} else {
		n = &doc
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, &Error{File: name, Line: n.Line, Column: n.Column, Msg: ErrEmpty.Error(), Err: ErrEmpty}
	}
	c := checker{name: name, memo: map[*yaml.Node]extent{}, active: map[*yaml.Node]bool{}}
	own := countOwn(n)
	c.limit = own + max(own, MaxAliasValues)
	if _, err := c.extent(n, 1); err != nil {
		return nil, err
	}
	return n, nil
}

// Decode parses data as Parse does and decodes it into v strictly: a key
// that v has no field for, a duplicated key or a value of the wrong type
// is an *Error at its line and column. Custom unmarshalers
// (yaml.Unmarshaler) see the value's node, with its position.
func Decode(name string, data []byte, v any) (err error) {
	doc, err := Parse(name, data, MaxBytes)
	if err != nil {
		return err
	}
	defer recoverInto(name, &err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return convert(name, err, doc)
	}
	return nil
}

func recoverInto(name string, err *error) {
	if r := recover(); r != nil {
		*err = &Error{File: name, Msg: fmt.Sprintf("the YAML parser failed on this input (%v)", r)}
	}
}

var (
	lineRe    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownRe = regexp.MustCompile(`^field (\S+) not found in type `)
	quotedRe  = regexp.MustCompile("`([^`]*)`")
)

// convert turns a yaml.v3 error into an *Error, finding the column of the
// offending key or value in doc where the message names a line only.
func convert(name string, err error, doc *yaml.Node) error {
	var pe interface{ Position() (int, int) }
	if errors.As(err, &pe) { // a custom unmarshaler's own positioned error
		l, c := pe.Position()
		return &Error{File: name, Line: l, Column: c, Msg: err.Error(), Err: err}
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	e := &Error{File: name, Msg: strings.TrimPrefix(msg, "yaml: "), Err: err}
	if g := lineRe.FindStringSubmatch(msg); g != nil {
		e.Line, _ = strconv.Atoi(g[1])
		e.Msg = g[2]
		want := ""
		if u := unknownRe.FindStringSubmatch(g[2]); u != nil {
			e.Msg = fmt.Sprintf("unknown field %q", u[1])
			want = u[1]
		} else if q := quotedRe.FindStringSubmatch(g[2]); q != nil {
			want = q[1] // the value a type error quotes
		}
		e.Column = columnAt(doc, e.Line, want)
	}
	return e
}

// columnAt is the column of the first node on line (whose value is want,
// when want is set), or 0.
func columnAt(n *yaml.Node, line int, want string) int {
	if n == nil {
		return 0
	}
	if n.Line == line && (want == "" || n.Value == want) && n.Kind != yaml.AliasNode {
		return n.Column
	}
	for _, c := range n.Content {
		if col := columnAt(c, line, want); col > 0 {
			return col
		}
	}
	return 0
}

// countOwn counts the nodes of a tree, not following aliases.
func countOwn(n *yaml.Node) int64 {
	k := int64(1)
	for _, c := range n.Content {
		k += countOwn(c)
	}
	return k
}

// extent is a subtree's size and height with its aliases expanded.
type extent struct{ size, height int64 }

type checker struct {
	name   string
	limit  int64
	memo   map[*yaml.Node]extent // anchored nodes already measured
	active map[*yaml.Node]bool   // anchored nodes being measured
}

// extent measures n at depth (1 for the document's content), refusing
// nesting beyond MaxDepth, expansion beyond the limit and an alias inside
// its own anchor.
func (c *checker) extent(n *yaml.Node, depth int64) (extent, error) {
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return extent{}, &Error{File: c.name, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("alias *%s has no anchor", n.Value)}
		}
		if c.active[t] {
			return extent{}, &Error{File: c.name, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("alias *%s refers to the value it is inside", n.Value)}
		}
		x, err := c.extent(t, depth)
		if err != nil {
			return extent{}, err
		}
		return x, nil
	}
	if n.Anchor != "" {
		if x, ok := c.memo[n]; ok {
			if depth-1+x.height > MaxDepth {
				return extent{}, c.tooDeep(n)
			}
			return x, nil
		}
		c.active[n] = true
		defer delete(c.active, n)
	}
	if depth > MaxDepth {
		return extent{}, c.tooDeep(n)
	}
	x := extent{size: 1, height: 1}
	for _, ch := range n.Content {
		cx, err := c.extent(ch, depth+1)
		if err != nil {
			return extent{}, err
		}
		x.size += cx.size
		x.height = max(x.height, cx.height+1)
		if x.size > c.limit {
			return extent{}, &Error{File: c.name, Line: ch.Line, Column: ch.Column,
				Msg: fmt.Sprintf("aliases expand the document beyond %d values; refusing it (an alias bomb?)", c.limit)}
		}
	}
	if depth-1+x.height > MaxDepth {
		return extent{}, c.tooDeep(n)
	}
	if n.Anchor != "" {
		c.memo[n] = x
	}
	return x, nil
}

func (c *checker) tooDeep(n *yaml.Node) error {
	return &Error{File: c.name, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
}

// Find returns the node at a path of the form "$", "$.gpu.rate" or
// "$.other[2].name" below root (a document's content), following
// aliases, or nil.
func Find(root *yaml.Node, path string) *yaml.Node {
	path = strings.TrimPrefix(path, "$")
	n := root
	for path != "" && n != nil {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil
		}
		switch path[0] {
		case '.':
			end := strings.IndexAny(path[1:], ".[")
			if end < 0 {
				end = len(path) - 1
			}
			key := path[1 : 1+end]
			path = path[1+end:]
			var next *yaml.Node
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == key {
						next = n.Content[i+1]
					}
				}
			}
			n = next
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return nil
			}
			i, err := strconv.Atoi(path[1:end])
			path = path[end+1:]
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
	}
	return n
}
