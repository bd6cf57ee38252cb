package guidellm

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// A GuideLLM report is nested several levels deep and changes shape from
// release to release, so each benchmark is read into a small tree that
// keeps every value's position, from JSON or from YAML alike.

type kind uint8

const (
	kNull kind = iota
	kObject
	kArray
	kString
	kNumber
	kBool
)

func (k kind) String() string {
	return [...]string{"null", "an object", "an array", "a string", "a number", "a boolean"}[k]
}

// A node is one value.
type node struct {
	kind      kind
	text      string // string value, number text, "true"/"false"
	line, col int
	keys      []string
	vals      []*node // object member values, or array elements
}

// get returns an object member (the last, when a key repeats, as Python's
// json does) or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

// at follows a path of member names.
func (n *node) at(path ...string) *node {
	for _, k := range path {
		n = n.get(k)
	}
	return n
}

func (n *node) has(key string) bool { return n.get(key) != nil }

// isNull reports a missing or null value.
func (n *node) isNull() bool { return n == nil || n.kind == kNull }

// str returns a string value, or "" for anything else.
func (n *node) str() string {
	if n == nil || n.kind != kString {
		return ""
	}
	return n.text
}

// scalar returns a scalar's text for a label.
func (n *node) scalar() string {
	switch {
	case n == nil || n.kind == kNull:
		return ""
	case n.kind == kArray:
		parts := make([]string, 0, len(n.vals))
		for _, v := range n.vals {
			parts = append(parts, v.scalar())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case n.kind == kObject:
		return fmt.Sprintf("{object of %d}", len(n.keys))
	}
	return n.text
}

// num returns a number value. ok is false for a missing or null value;
// err is set for anything that is not a number.
func (n *node) num() (v float64, ok bool, err error) {
	if n.isNull() {
		return 0, false, nil
	}
	if n.kind != kNumber {
		return 0, false, fmt.Errorf("expected a number, found %s", n.kind)
	}
	f, perr := parseNumber(n.text)
	if perr != nil {
		return 0, false, fmt.Errorf("bad number %q", n.text)
	}
	return f, true, nil
}

// numOr returns a number or def when the value is missing or not a number.
func (n *node) numOr(def float64) float64 {
	if v, ok, err := n.num(); ok && err == nil {
		return v
	}
	return def
}

func parseNumber(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "nan", ".nan":
		return math.NaN(), nil
	case "infinity", ".inf", "+.inf":
		return math.Inf(1), nil
	case "-infinity", "-.inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// keyCache interns object keys: a report repeats the same few dozen keys
// in every request record.
type keyCache map[string]string

func (c keyCache) key(raw []byte) (string, error) {
	b, err := jsonscan.Unquote(raw, nil)
	if err != nil {
		return "", err
	}
	if k, ok := c[string(b)]; ok {
		return k, nil
	}
	k := string(b)
	if len(c) < 4096 {
		c[k] = k
	}
	return k, nil
}

// jsonTree reads one value whose first token was just returned.
func jsonTree(sc *jsonscan.Scanner, tok jsonscan.Token, keys keyCache) (*node, error) {
	n := &node{line: tok.Pos.Line, col: tok.Pos.Col}
	var err error
	switch tok.Kind {
	case jsonscan.Null:
		n.kind = kNull
	case jsonscan.True, jsonscan.False:
		n.kind, n.text = kBool, tok.Kind.String()
	case jsonscan.Number:
		n.kind, n.text = kNumber, string(tok.Raw)
	case jsonscan.String:
		n.kind = kString
		if n.text, err = sc.Text(tok); err != nil {
			return nil, err
		}
	case jsonscan.BeginObject:
		n.kind = kObject
		for {
			k, err := sc.Next()
			if err != nil {
				return nil, err
			}
			if k.Kind == jsonscan.EndObject {
				break
			}
			key, err := keys.key(k.Raw)
			if err != nil {
				return nil, err
			}
			v, err := sc.Next()
			if err != nil {
				return nil, err
			}
			child, err := jsonTree(sc, v, keys)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, child)
		}
	case jsonscan.BeginArray:
		n.kind = kArray
		for {
			v, err := sc.Next()
			if err != nil {
				return nil, err
			}
			if v.Kind == jsonscan.EndArray {
				break
			}
			child, err := jsonTree(sc, v, keys)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
	default:
		return nil, fmt.Errorf("unexpected %s", tok.Kind)
	}
	return n, nil
}

// yamlTree reads a YAML document into a tree.
func yamlTree(path string, r io.Reader) (*node, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	body, err := jtree.YAMLDocument(path, data)
	if err != nil {
		return nil, err
	}
	c := &yamlConv{path: path, anchors: map[string]*node{}}
	return c.node(body, 0)
}

// yamlConv converts a YAML AST, resolving aliases to the anchored values.
type yamlConv struct {
	path    string
	anchors map[string]*node
}

func (c *yamlConv) node(y ast.Node, depth int) (*node, error) {
	path := c.path
	if depth > 200 {
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("YAML nested too deeply")}
	}
	n := &node{}
	if tk := y.GetToken(); tk != nil && tk.Position != nil {
		n.line, n.col = tk.Position.Line, tk.Position.Column
	}
	switch v := y.(type) {
	case *ast.NullNode:
		n.kind = kNull
	case *ast.BoolNode:
		n.kind, n.text = kBool, strconv.FormatBool(v.Value)
	case *ast.IntegerNode:
		n.kind, n.text = kNumber, fmt.Sprint(v.Value)
	case *ast.FloatNode:
		n.kind, n.text = kNumber, strconv.FormatFloat(v.Value, 'g', -1, 64)
		if v.Token != nil {
			if _, err := strconv.ParseFloat(v.Token.Value, 64); err == nil {
				n.text = v.Token.Value // the text as written, for exact round trips
			}
		}
	case *ast.InfinityNode:
		n.kind, n.text = kNumber, "Infinity"
		if v.Value < 0 {
			n.text = "-Infinity"
		}
	case *ast.NanNode:
		n.kind, n.text = kNumber, "NaN"
	case *ast.StringNode:
		n.kind, n.text = kString, v.Value
	case *ast.LiteralNode:
		n.kind = kString
		if v.Value != nil {
			n.text = v.Value.Value
		}
	case *ast.TagNode:
		if v.Value == nil {
			n.kind = kNull
			return n, nil
		}
		return c.node(v.Value, depth+1)
	case *ast.AnchorNode:
		if v.Value == nil {
			n.kind = kNull
			return n, nil
		}
		a, err := c.node(v.Value, depth+1)
		if err != nil {
			return nil, err
		}
		if v.Name != nil {
			c.anchors[v.Name.String()] = a
		}
		return a, nil
	case *ast.AliasNode:
		name := ""
		if v.Value != nil {
			name = v.Value.String()
		}
		a, ok := c.anchors[name]
		if !ok {
			return nil, &ingest.Error{File: path, Line: n.line, Column: n.col, Err: fmt.Errorf("YAML alias *%s has no anchor before it", name)}
		}
		return a, nil
	case *ast.MappingNode:
		n.kind = kObject
		for _, mv := range v.Values {
			if err := c.member(n, mv, depth); err != nil {
				return nil, err
			}
		}
	case *ast.MappingValueNode:
		n.kind = kObject
		if err := c.member(n, v, depth); err != nil {
			return nil, err
		}
	case *ast.SequenceNode:
		n.kind = kArray
		for _, e := range v.Values {
			child, err := c.node(e, depth+1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
	default:
		return nil, &ingest.Error{File: path, Line: n.line, Column: n.col, Err: fmt.Errorf("unsupported YAML node %s", y.Type())}
	}
	return n, nil
}

func (c *yamlConv) member(n *node, mv *ast.MappingValueNode, depth int) error {
	var key string
	switch k := mv.Key.(type) {
	case *ast.StringNode:
		key = k.Value
	default:
		key = strings.TrimSpace(mv.Key.String())
	}
	var child *node
	if mv.Value == nil {
		child = &node{kind: kNull}
	} else {
		var err error
		if child, err = c.node(mv.Value, depth+1); err != nil {
			return err
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, child)
	return nil
}
