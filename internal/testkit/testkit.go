// Package testkit holds the two helpers every test package of verdict
// shares: golden files, rewritten with the -update flag, and the locator of
// the real-tool corpus.
//
// The corpus is the collection of real outputs of the tools verdict reads
// (fixtures/<tool>/, each with a SOURCES.md), kept outside the repository
// because those files are not ours to redistribute. Tests read it in place
// and never copy it. A clone without it skips those tests with a message;
// CI sets VERDICT_REQUIRE_CORPUS=1 so that they fail instead.
//
// testkit registers the -update flag: a test package that imports it (or
// ingest/ingesttest, which does) must not register its own.
package testkit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Update is the -update flag: golden files are rewritten instead of
// compared.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Environment variables that steer the corpus locator.
const (
	// EnvRequireCorpus, set to 1, turns a missing corpus into a test
	// failure instead of a skip (.ci/run sets it).
	EnvRequireCorpus = "VERDICT_REQUIRE_CORPUS"
	// EnvCorpus names the corpus's fixtures directory when it is not
	// shared/fixtures in the directory that holds the clone.
	EnvCorpus = "VERDICT_CORPUS"
)

// Golden compares got with the file at path (relative to the test's
// working directory, normally the package directory), or writes got there
// with -update. On a mismatch it writes path.got beside it (gitignored) and
// reports the difference.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	GoldenFunc(t, path, got, bytes.Equal)
}

// GoldenFunc is Golden with a comparison of its own, for outputs that may
// legitimately differ in detail (rendered images, say): equal reports
// whether got matches the golden bytes want.
func GoldenFunc(t testing.TB, path string, got []byte, equal func(got, want []byte) bool) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	if err := os.WriteFile(path+".got", got, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Errorf("%s differs from the golden file; got is in %s.got (go test -update rewrites the golden file)%s",
		path, path, diff(path, path+".got"))
}

// diff returns a unified diff of two text files, at most 4 KiB of it, or ""
// when diff(1) is not available or the files are not text.
func diff(a, b string) string {
	if _, err := exec.LookPath("diff"); err != nil {
		return ""
	}
	out, _ := exec.Command("diff", "-u", a, b).Output()
	if len(out) == 0 || bytes.Contains(out, []byte("Binary files")) {
		return ""
	}
	if len(out) > 4096 {
		out = append(out[:4096:4096], "\n[diff truncated]"...)
	}
	return ":\n" + string(out)
}

// RepoRoot returns the repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/testkit/testkit.go
}

// CorpusRoot returns the corpus's fixtures directory: $VERDICT_CORPUS, or
// shared/fixtures in the directory that holds the clone. It does not check
// that the directory exists.
func CorpusRoot() string {
	if dir := os.Getenv(EnvCorpus); dir != "" {
		return dir
	}
	return filepath.Join(filepath.Dir(RepoRoot()), "shared", "fixtures")
}

// RequireCorpus reports whether VERDICT_REQUIRE_CORPUS=1 is set.
func RequireCorpus() bool { return os.Getenv(EnvRequireCorpus) == "1" }

// Corpus returns the corpus directory of one tool (CorpusRoot()/tool). When
// it is absent the test is skipped with a message saying so, or fails when
// VERDICT_REQUIRE_CORPUS=1.
func Corpus(t testing.TB, tool string) string {
	t.Helper()
	dir := filepath.Join(CorpusRoot(), tool)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		NoCorpus(t, "the real-tool corpus for %s is not at %s (set %s to its fixtures directory)", tool, dir, EnvCorpus)
	}
	return dir
}

// CorpusFile returns the path of one file of a tool's corpus, skipping or
// failing as Corpus does when the file is absent.
func CorpusFile(t testing.TB, tool, name string) string {
	t.Helper()
	path := filepath.Join(Corpus(t, tool), name)
	if _, err := os.Stat(path); err != nil {
		NoCorpus(t, "corpus file %s is missing: %v", path, err)
	}
	return path
}

// NoCorpus ends a test that cannot find the corpus data it needs: it skips
// with the message, or fails with it when VERDICT_REQUIRE_CORPUS=1.
func NoCorpus(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if RequireCorpus() {
		t.Fatalf("%s; %s=1 requires the corpus", msg, EnvRequireCorpus)
	}
	t.Skip(msg)
}
