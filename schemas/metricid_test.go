package schemas

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMetricIDConstants checks that metricid.go declares one constant per
// registry definition and nothing else.
func TestMetricIDConstants(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "metricid.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []MetricID
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			lit := v.Values[0].(*ast.BasicLit)
			id := MetricID(strings.Trim(lit.Value, `"`))
			declared = append(declared, id)
			if def, ok := Lookup(id); !ok || def.ID != id {
				t.Errorf("constant %s = %q is not a registry ID", v.Names[0].Name, id)
			}
		}
	}
	var registry []MetricID
	for _, d := range Registry() {
		registry = append(registry, d.ID)
	}
	slices.Sort(declared)
	slices.Sort(registry)
	if !slices.Equal(declared, registry) {
		t.Errorf("metricid.go constants and the registry differ:\nconstants %v\nregistry  %v", declared, registry)
	}
}

// TestNoMetricIDLiterals type-checks every package of the module and
// reports each string literal that is used as a MetricID: code names a
// definition by its constant (schemas.TTFT), never by "ttft". Literals that
// are a tool's native key or a column name are strings, not MetricIDs, and
// pass. The packages are checked against the export data the go command
// builds, so this takes seconds, not a full source type-check.
func TestNoMetricIDLiterals(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command(goTool, "list", "-export", "-deps", "-test", "-json=ImportPath,Dir,Export,GoFiles,TestGoFiles,XTestGoFiles,ForTest,Module,ImportMap", "github.com/verdict-llm/verdict/...")
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Dir, Export, ForTest   string
		GoFiles, TestGoFiles, XTestGoFiles []string
		ImportMap                          map[string]string
		Module                             *struct{ Path string }
	}
	exports := map[string]string{}
	var mine []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Export != "" && p.ForTest == "" {
			exports[p.ImportPath] = p.Export
		}
		if p.Module != nil && p.Module.Path == "github.com/verdict-llm/verdict" && p.ForTest == "" && !strings.HasSuffix(p.ImportPath, ".test") {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(f)
	})
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 || p.ImportPath == "github.com/verdict-llm/verdict/schemas" {
			continue // schemas declares the constants from literals
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for expr, tv := range info.Types {
			lit, ok := expr.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || tv.Value == nil || tv.Value.Kind() != constant.String || constant.StringVal(tv.Value) == "" {
				continue
			}
			if n, ok := tv.Type.(*types.Named); ok && n.Obj().Name() == "MetricID" && n.Obj().Pkg().Path() == "github.com/verdict-llm/verdict/schemas" {
				t.Errorf("%s: the literal %s is used as a MetricID: use its schemas constant", fset.Position(lit.Pos()), lit.Value)
			}
		}
	}
}
