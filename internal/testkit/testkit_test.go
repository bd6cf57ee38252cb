package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records what a helper reports. Fatal and
// Skip end the helper's goroutine, as the real ones do.
type recorder struct {
	testing.TB
	errors  []string
	fatal   string
	skipped string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.fatal = fmt.Sprint(a...); r.stop() }
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...); r.stop() }
func (r *recorder) Skip(a ...any)             { r.skipped = fmt.Sprint(a...); r.stop() }
func (r *recorder) stop()                     { panic(r) }

// run calls f with a fresh recorder and returns what it recorded.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != r {
				panic(v)
			}
		}()
		f(r)
	}()
	return r
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")

	// Missing golden file: a fatal error that says how to create it.
	if r := run(t, func(tb testing.TB) { Golden(tb, path, []byte("a\n")) }); !strings.Contains(r.fatal, "-update creates it") {
		t.Fatalf("missing golden: %+v", r)
	}

	// -update writes it, creating the directory.
	*Update = true
	r := run(t, func(tb testing.TB) { Golden(tb, path, []byte("a\nb\n")) })
	*Update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" || r.fatal != "" || len(r.errors) != 0 {
		t.Fatalf("update: %q %v %+v", b, err, r)
	}

	// Equal: no report, no .got file.
	if r := run(t, func(tb testing.TB) { Golden(tb, path, []byte("a\nb\n")) }); len(r.errors) != 0 || r.fatal != "" {
		t.Fatalf("equal: %+v", r)
	}
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Fatalf(".got written for an equal result: %v", err)
	}

	// Different: one error naming the file, the .got file holds got, and the
	// diff shows the changed line.
	r = run(t, func(tb testing.TB) { Golden(tb, path, []byte("a\nc\n")) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], path+".got") {
		t.Fatalf("different: %+v", r)
	}
	if b, _ := os.ReadFile(path + ".got"); string(b) != "a\nc\n" {
		t.Fatalf(".got holds %q", b)
	}
	if _, err := os.Stat("/usr/bin/diff"); err == nil && !strings.Contains(r.errors[0], "+c") {
		t.Errorf("no diff in %q", r.errors[0])
	}

	// A later match removes the stale .got.
	run(t, func(tb testing.TB) { Golden(tb, path, []byte("a\nb\n")) })
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Fatalf("stale .got kept: %v", err)
	}

	// GoldenFunc uses its comparison.
	loose := func(got, want []byte) bool { return strings.EqualFold(string(got), string(want)) }
	if r := run(t, func(tb testing.TB) { GoldenFunc(tb, path, []byte("A\nB\n"), loose) }); len(r.errors) != 0 {
		t.Fatalf("GoldenFunc: %+v", r)
	}
}

func TestCorpus(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "vllm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vllm", "a.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvCorpus, dir)

	for _, require := range []string{"", "1"} {
		t.Run("require="+require, func(t *testing.T) {
			t.Setenv(EnvRequireCorpus, require)
			var got string
			if r := run(t, func(tb testing.TB) { got = Corpus(tb, "vllm") }); got != filepath.Join(dir, "vllm") || r.skipped != "" || r.fatal != "" {
				t.Errorf("present: %q %+v", got, r)
			}
			if r := run(t, func(tb testing.TB) { got = CorpusFile(tb, "vllm", "a.json") }); got != filepath.Join(dir, "vllm", "a.json") || r.skipped != "" || r.fatal != "" {
				t.Errorf("present file: %q %+v", got, r)
			}
			for name, f := range map[string]func(testing.TB){
				"tool": func(tb testing.TB) { Corpus(tb, "nosuchtool") },
				"file": func(tb testing.TB) { CorpusFile(tb, "vllm", "missing.json") },
			} {
				r := run(t, f)
				if require == "1" {
					if r.fatal == "" || r.skipped != "" || !strings.Contains(r.fatal, EnvRequireCorpus) {
						t.Errorf("%s absent, required: %+v", name, r)
					}
				} else if r.skipped == "" || r.fatal != "" {
					t.Errorf("%s absent, not required: %+v", name, r)
				}
			}
		})
	}
}

func TestCorpusRootDefault(t *testing.T) {
	t.Setenv(EnvCorpus, "")
	root := RepoRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s holds no go.mod: %v", root, err)
	}
	if want := filepath.Join(filepath.Dir(root), "shared", "fixtures"); CorpusRoot() != want {
		t.Errorf("CorpusRoot() = %s, want %s", CorpusRoot(), want)
	}
}
