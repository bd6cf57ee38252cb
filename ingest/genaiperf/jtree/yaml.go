package jtree

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// ParseYAML reads one YAML document into the same tree Parse builds, so a
// reader of a format written as YAML or JSON (the llm-d Benchmark Report,
// inference-perf's config.yaml) walks one tree. Scalars keep the text as
// written: a quoted '0.2' is a string, an unquoted 0.2 a number whose Text
// is "0.2". Aliases are resolved to their anchored values; the tree is
// bounded by MaxNodes like a JSON one.
func ParseYAML(path string, r io.Reader) (*Node, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	body, err := YAMLDocument(path, data)
	if err != nil {
		return nil, err
	}
	y := &yamlTree{path: path, anchors: map[string]*Node{}}
	return y.node(body, 0)
}

// YAMLDocument parses data as exactly one YAML document and returns its
// body; errors are *ingest.Error values naming path. ingest/guidellm builds
// its own tree from it.
func YAMLDocument(path string, data []byte) (ast.Node, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		msg := strings.TrimSpace(err.Error())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("malformed YAML: %s", msg)}
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if body != nil {
			return nil, &ingest.Error{File: path, Err: errors.New("more than one YAML document")}
		}
		body = d.Body
	}
	if body == nil {
		return nil, &ingest.Error{File: path, Err: errors.New("empty YAML document")}
	}
	return body, nil
}

type yamlTree struct {
	path    string
	anchors map[string]*Node
	count   int
}

func (y *yamlTree) errAt(p jsonscan.Pos, format string, args ...any) error {
	return &ingest.Error{File: y.path, Line: p.Line, Column: p.Col, Err: fmt.Errorf(format, args...)}
}

func posOf(n ast.Node) jsonscan.Pos {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return jsonscan.Pos{Line: tk.Position.Line, Col: tk.Position.Column, Off: int64(tk.Position.Offset)}
	}
	return jsonscan.Pos{}
}

func (y *yamlTree) node(an ast.Node, depth int) (*Node, error) {
	p := posOf(an)
	y.count++
	if y.count > MaxNodes || depth > 256 {
		return nil, y.errAt(p, "document too large or nested too deeply")
	}
	n := &Node{Pos: p}
	switch v := an.(type) {
	case *ast.NullNode:
		n.Kind = jsonscan.Null
	case *ast.BoolNode:
		n.Kind = jsonscan.False
		if v.Value {
			n.Kind = jsonscan.True
		}
	case *ast.IntegerNode:
		n.Kind, n.Text = jsonscan.Number, fmt.Sprint(v.Value)
		if v.Token != nil {
			if _, err := strconv.ParseInt(v.Token.Value, 10, 64); err == nil {
				n.Text = v.Token.Value
			}
		}
	case *ast.FloatNode:
		n.Kind, n.Text = jsonscan.Number, strconv.FormatFloat(v.Value, 'g', -1, 64)
		if v.Token != nil {
			if _, err := strconv.ParseFloat(v.Token.Value, 64); err == nil {
				n.Text = v.Token.Value // as written, so numbers round-trip exactly
			}
		}
	case *ast.InfinityNode:
		n.Kind, n.Text = jsonscan.Number, "Infinity"
		if v.Value < 0 {
			n.Text = "-Infinity"
		}
	case *ast.NanNode:
		n.Kind, n.Text = jsonscan.Number, "NaN"
	case *ast.StringNode:
		n.Kind, n.Text = jsonscan.String, v.Value
	case *ast.LiteralNode:
		n.Kind = jsonscan.String
		if v.Value != nil {
			n.Text = v.Value.Value
		}
	case *ast.TagNode:
		if v.Value == nil {
			n.Kind = jsonscan.Null
			return n, nil
		}
		return y.node(v.Value, depth+1)
	case *ast.AnchorNode:
		if v.Value == nil {
			n.Kind = jsonscan.Null
			return n, nil
		}
		a, err := y.node(v.Value, depth+1)
		if err == nil && v.Name != nil {
			y.anchors[v.Name.String()] = a
		}
		return a, err
	case *ast.AliasNode:
		name := ""
		if v.Value != nil {
			name = v.Value.String()
		}
		a, ok := y.anchors[name]
		if !ok {
			return nil, y.errAt(p, "YAML alias *%s has no anchor before it", name)
		}
		return a, nil
	case *ast.MappingNode:
		n.Kind = jsonscan.BeginObject
		for _, mv := range v.Values {
			if err := y.member(n, mv, depth); err != nil {
				return nil, err
			}
		}
	case *ast.MappingValueNode:
		n.Kind = jsonscan.BeginObject
		if err := y.member(n, v, depth); err != nil {
			return nil, err
		}
	case *ast.SequenceNode:
		n.Kind = jsonscan.BeginArray
		for _, e := range v.Values {
			c, err := y.node(e, depth+1)
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, c)
		}
	default:
		return nil, y.errAt(p, "unsupported YAML node %s", an.Type())
	}
	return n, nil
}

func (y *yamlTree) member(n *Node, mv *ast.MappingValueNode, depth int) error {
	key := strings.TrimSpace(mv.Key.String())
	if s, ok := mv.Key.(*ast.StringNode); ok {
		key = s.Value
	}
	m := Member{Key: key, KeyPos: posOf(mv.Key), Val: &Node{Kind: jsonscan.Null, Pos: posOf(mv)}}
	if mv.Value != nil {
		v, err := y.node(mv.Value, depth+1)
		if err != nil {
			return err
		}
		m.Val = v
	}
	n.Members = append(n.Members, m)
	return nil
}
