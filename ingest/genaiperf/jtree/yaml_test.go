package jtree_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// TestParseYAML checks the YAML tree: kinds, text as written, positions,
// aliases, and the errors.
func TestParseYAML(t *testing.T) {
	doc := "version: '0.2'\nn: 0.10\nbig: 12345678901234567890\ninf: .inf\nlist:\n  - &a {k: v}\n  - *a\nnull_: ~\nflag: true\n"
	n, err := jtree.ParseYAML("t.yaml", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if v := n.Get("version"); v.Kind != jsonscan.String || v.Text != "0.2" || v.Pos.Line != 1 || v.Pos.Col != 10 {
		t.Errorf("version %+v", v)
	}
	if v := n.Get("n"); v.Kind != jsonscan.Number || v.Text != "0.10" {
		t.Errorf("number kept as written: %+v", v)
	}
	if f, ok := n.Get("inf").Float(); !ok || f < 1e308 {
		t.Errorf(".inf read as %v", f)
	}
	items := n.Get("list").Items()
	if len(items) != 2 || items[1].Get("k").Text != "v" {
		t.Errorf("alias: %+v", items)
	}
	if !n.Get("null_").IsNull() {
		t.Error("~ is null")
	}
	if b, ok := n.Get("flag").Bool(); !ok || !b {
		t.Error("bool")
	}
	for in, want := range map[string]string{
		"a: [1, 2\n":        "malformed YAML",
		"":                  "empty YAML document",
		"a: 1\n---\nb: 2\n": "more than one YAML document",
		"a: *nope\n":        "t.yaml: malformed YAML: unknown anchor 'nope' referenced",
	} {
		_, err := jtree.ParseYAML("t.yaml", strings.NewReader(in))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}
