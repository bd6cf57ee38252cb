package jtree

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/yamlin"
)

// MaxYAMLBytes is the largest YAML document ParseYAML reads: it is held as
// a node tree while it is read.
const MaxYAMLBytes = 64 << 20

// ParseYAML reads one YAML document into the same tree Parse builds, so a
// reader of a format written as YAML or JSON (the llm-d Benchmark Report,
// inference-perf's config.yaml) walks one tree. Scalars keep the text as
// written: a quoted '0.2' is a string, an unquoted 0.2 a number whose Text
// is "0.2". Aliases are resolved to their anchored values. The document is
// read with internal/yamlin's guards (size, nesting, alias expansion), and
// the tree is bounded by MaxNodes like a JSON one.
func ParseYAML(path string, r io.Reader) (*Node, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxYAMLBytes+1))
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	body, err := yamlin.Parse(path, data, MaxYAMLBytes)
	if err != nil {
		return nil, YAMLError(path, err)
	}
	y := &yamlTree{path: path, anchors: map[*yaml.Node]*Node{}}
	return y.node(body)
}

// YAMLError turns an internal/yamlin error into an *ingest.Error.
func YAMLError(path string, err error) error {
	var ye *yamlin.Error
	if errors.As(err, &ye) {
		return &ingest.Error{File: path, Line: ye.Line, Column: ye.Column, Err: fmt.Errorf("malformed YAML: %s", ye.Msg)}
	}
	return &ingest.Error{File: path, Err: err}
}

type yamlTree struct {
	path    string
	anchors map[*yaml.Node]*Node
	count   int
}

func (y *yamlTree) node(yn *yaml.Node) (*Node, error) {
	if yn.Kind == yaml.AliasNode {
		yn = yn.Alias
	}
	if n, ok := y.anchors[yn]; ok {
		return n, nil
	}
	p := jsonscan.Pos{Line: yn.Line, Col: yn.Column}
	if y.count++; y.count > MaxNodes {
		return nil, &ingest.Error{File: y.path, Line: p.Line, Column: p.Col, Err: fmt.Errorf("document too large (over %d values)", MaxNodes)}
	}
	n := &Node{Pos: p}
	switch yn.Kind {
	case yaml.ScalarNode:
		yamlScalar(n, yn)
	case yaml.MappingNode:
		n.Kind = jsonscan.BeginObject
		for i := 0; i+1 < len(yn.Content); i += 2 {
			k, v := yn.Content[i], yn.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			c, err := y.node(v)
			if err != nil {
				return nil, err
			}
			n.Members = append(n.Members, Member{Key: strings.TrimSpace(k.Value), KeyPos: jsonscan.Pos{Line: k.Line, Col: k.Column}, Val: c})
		}
	case yaml.SequenceNode:
		n.Kind = jsonscan.BeginArray
		for _, e := range yn.Content {
			c, err := y.node(e)
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, c)
		}
	default:
		return nil, &ingest.Error{File: y.path, Line: p.Line, Column: p.Col, Err: fmt.Errorf("unsupported YAML node kind %d", yn.Kind)}
	}
	if yn.Anchor != "" {
		y.anchors[yn] = n
	}
	return n, nil
}

// yamlScalar types a scalar by its resolved tag (see YAMLScalar).
func yamlScalar(n *Node, yn *yaml.Node) { n.Kind, n.Text = YAMLScalar(yn) }

// YAMLScalar types a YAML scalar by its resolved tag (YAML 1.2's core
// schema, as yaml.v3 resolves it): Null, True, False, Number (the text as
// written, except integers in another base and .inf/.nan, which become
// decimal, Infinity and NaN) or String. ingest/guidellm's tree uses it too.
func YAMLScalar(yn *yaml.Node) (jsonscan.Kind, string) {
	switch yn.ShortTag() {
	case "!!null":
		return jsonscan.Null, ""
	case "!!bool":
		if b := strings.ToLower(yn.Value); b == "true" || b == "yes" || b == "on" {
			return jsonscan.True, "true"
		}
		return jsonscan.False, "false"
	case "!!int":
		if _, err := strconv.ParseInt(yn.Value, 10, 64); err != nil {
			if v, err := strconv.ParseInt(strings.ReplaceAll(yn.Value, "_", ""), 0, 64); err == nil {
				return jsonscan.Number, strconv.FormatInt(v, 10) // 0x1F, 0o17, 1_000
			}
		}
		return jsonscan.Number, yn.Value
	case "!!float":
		switch strings.ToLower(yn.Value) {
		case ".inf", "+.inf":
			return jsonscan.Number, "Infinity"
		case "-.inf":
			return jsonscan.Number, "-Infinity"
		case ".nan":
			return jsonscan.Number, "NaN"
		}
		return jsonscan.Number, yn.Value
	}
	return jsonscan.String, yn.Value
}
