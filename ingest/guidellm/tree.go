package guidellm

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/yamlin"
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

// MaxYAMLBytes is the largest benchmarks.yaml read: a YAML report is held
// as a node tree while it is read (GuideLLM writes the same report as
// JSON, which is streamed).
const MaxYAMLBytes = 64 << 20

// yamlTree reads a YAML document into a tree, with internal/yamlin's
// guards (size, nesting, alias expansion).
func yamlTree(path string, r io.Reader) (*node, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxYAMLBytes+1))
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	y, err := yamlin.Parse(path, data, MaxYAMLBytes)
	if err != nil {
		return nil, jtree.YAMLError(path, err)
	}
	c := &yamlConv{path: path, anchors: map[*yaml.Node]*node{}}
	return c.node(y)
}

// yamlConv converts a YAML node tree, resolving aliases to the anchored
// values (converted once and shared; yamlin bounded their expansion).
type yamlConv struct {
	path    string
	anchors map[*yaml.Node]*node
}

func (c *yamlConv) node(y *yaml.Node) (*node, error) {
	if y.Kind == yaml.AliasNode {
		y = y.Alias
	}
	if n, ok := c.anchors[y]; ok {
		return n, nil
	}
	n := &node{line: y.Line, col: y.Column}
	switch y.Kind {
	case yaml.ScalarNode:
		c.scalar(n, y)
	case yaml.MappingNode:
		n.kind = kObject
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			child, err := c.node(v)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, strings.TrimSpace(k.Value))
			n.vals = append(n.vals, child)
		}
	case yaml.SequenceNode:
		n.kind = kArray
		for _, e := range y.Content {
			child, err := c.node(e)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
	default:
		return nil, &ingest.Error{File: c.path, Line: n.line, Column: n.col, Err: fmt.Errorf("unsupported YAML node kind %d", y.Kind)}
	}
	if y.Anchor != "" {
		c.anchors[y] = n
	}
	return n, nil
}

// scalar types a YAML scalar by its resolved tag (YAML 1.2's core
// schema, as yaml.v3 resolves it; PyYAML writes the same forms).
func (c *yamlConv) scalar(n *node, y *yaml.Node) {
	k, text := jtree.YAMLScalar(y)
	switch k {
	case jsonscan.Null:
		n.kind = kNull
	case jsonscan.True, jsonscan.False:
		n.kind, n.text = kBool, text
	case jsonscan.Number:
		n.kind, n.text = kNumber, text
	default:
		n.kind, n.text = kString, text
	}
}
