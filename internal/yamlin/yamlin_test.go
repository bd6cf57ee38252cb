package yamlin

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bomb is a "billion laughs" document of about size bytes: each level
// is a sequence of aliases of the level before, so a few lines stand for
// billions of values.
func bomb(size int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

type quoteLike struct {
	Provider string `yaml:"provider"`
	Other    []struct {
		Name string `yaml:"name"`
	} `yaml:"other"`
}

// TestHostile: the inputs of issue 15 are refused with positioned input
// errors, quickly and in little memory.
func TestHostile(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"tag", "other: !t 0\na:", "q.yaml:1:8: cannot unmarshal !t `0`"},
		{"flow-deep", strings.Repeat("[", 50_000) + strings.Repeat("]", 50_000), "q.yaml: exceeded max depth of 10000"},
		{"block-deep", strings.Repeat("- ", 50_000) + "1\n", "q.yaml: exceeded max depth of 10000"},
		{"deep-1001", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "q.yaml:1:1001: nesting deeper than 1000 levels"},
		{"bomb", bomb(49_600), "aliases expand the document beyond"},
		{"self", "a: &a [1, *a]\n", "q.yaml:1:11: alias *a refers to the value it is inside"},
		{"unknown", "provider: p\nother:\n  - name: x\n    nmae: y\n", `q.yaml:4:5: unknown field "nmae"`},
		{"dup", "provider: p\nprovider: q\n", `q.yaml:2:1: mapping key "provider" already defined at line 1`},
		{"two", "provider: p\n---\nprovider: q\n", "q.yaml:2:1: more than one YAML document"},
		{"empty", "# nothing\n", "q.yaml: empty YAML document"},
		{"syntax", "provider: [p\n", "q.yaml:1: did not find expected ',' or ']'"},
		{"big", strings.Repeat("#", MaxBytes+1), "larger than 4194304 bytes"},
	}
	for _, c := range cases {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		var q quoteLike
		err := Decode("q.yaml", []byte(c.data), &q)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		var ye *Error
		if !errors.As(err, &ye) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if d, mb := time.Since(start), (after.TotalAlloc-before.TotalAlloc)>>20; d > 2*time.Second || mb > 64 {
			t.Errorf("%s: %v and %d MB allocated", c.name, d, mb)
		}
	}
}

// TestAliasesWithinBounds: ordinary aliases (a block reused a few
// times) are expanded as YAML says.
func TestAliasesWithinBounds(t *testing.T) {
	var v struct {
		A map[string]int `yaml:"a"`
		B map[string]int `yaml:"b"`
		C []int          `yaml:"c"`
	}
	if err := Decode("ok.yaml", []byte("a: &x {p: 1, q: 2}\nb: *x\nc: [1000 levels of nothing]\n"), &v); err == nil {
		t.Error("a string read as an int")
	}
	if err := Decode("ok.yaml", []byte("a: &x {p: 1, q: 2}\nb: *x\nc: [1, 2]\n"), &v); err != nil || v.B["q"] != 2 {
		t.Errorf("%v %+v", err, v)
	}
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	if _, err := Parse("ok.yaml", []byte(deep), 0); err != nil {
		t.Errorf("1000 levels: %v", err)
	}
	// an alias placed deep counts its anchor's height
	if _, err := Parse("a.yaml", []byte("x: &x "+strings.Repeat("[", 600)+strings.Repeat("]", 600)+"\ny: "+strings.Repeat("[", 500)+"*x"+strings.Repeat("]", 500)), 0); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("deep through an alias: %v", err)
	}
}

func TestFind(t *testing.T) {
	n, err := Parse("f.yaml", []byte("gpu:\n  rate: 1\nother:\n  - {name: a}\n  - name: b\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for path, line := range map[string]int{"$": 1, "$.gpu.rate": 2, "$.other[1].name": 5, "$.other[0]": 4} {
		if f := Find(n, path); f == nil || f.Line != line {
			t.Errorf("%s: %+v", path, f)
		}
	}
	if Find(n, "$.nope.x") != nil || Find(n, "$.other[7]") != nil {
		t.Error("found what is not there")
	}
}

// FuzzParse: any input is parsed or refused with an *Error, never a
// panic, and never past the limits.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"other: !t 0\na:", bomb(2000), "a: &a [1, *a]\n", "provider: p\nother: [{name: x}]\n", "{a: [b, {c: d}]}", "- &x 1\n- *x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var q quoteLike
		if err := Decode("f.yaml", data, &q); err != nil {
			var ye *Error
			if !errors.As(err, &ye) {
				t.Fatalf("not an *Error: %v", err)
			}
		}
		var v any
		_ = Decode("f.yaml", data, &v)
	})
}
