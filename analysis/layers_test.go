package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayers holds the data flow of the README's "Layers, as built":
// render (and its sub-packages) formats finished models and cmd/verdict
// maps flags to one call of this package, so neither opens, writes,
// validates, joins or pairs anything itself. The test reads their
// non-test sources and fails on a call of a function that does.
func TestLayers(t *testing.T) {
	forbidden := map[string][]string{
		"schemas":  {"OpenBundle", "CreateBundle", "WriteCosts", "Export", "ScanDataset", "CheckDataset", "Compact"},
		"validate": {"Validate", "ValidateBundles", "ReadBundle", "PairRuns"},
		"costing":  {"Join", "NewJoiner", "ReadAll", "NewReader"},
	}
	for _, root := range []string{"../render", "../cmd/verdict"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok {
						for _, name := range forbidden[x.Name] {
							if n.Sel.Name == name {
								t.Errorf("%s calls %s.%s: that is the application layer's job (package analysis)", path, x.Name, name)
							}
						}
					}
				case *ast.FuncDecl:
					if strings.Contains(n.Name.Name, "PairRuns") || strings.Contains(n.Name.Name, "pairRuns") {
						t.Errorf("%s declares %s: runs are paired in one place, analysis.PairRuns", path, n.Name.Name)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
