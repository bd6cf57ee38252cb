package analysis_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// ingestBundle ingests files into dir/name, in order.
func ingestBundle(t testing.TB, dir, name string, labels map[string]string, sut schemas.Inventory, files ...string) string {
	t.Helper()
	dest := filepath.Join(dir, name)
	_, err := ingest.ToBundle(context.Background(), files, dest, ingest.Options{Formats: all.Formats(), Labels: labels, SUT: sut,
		Bundle: schemas.BundleOptions{VerdictVersion: "test", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	return dest
}

const demo = "../testdata/demo/"

// demoBundles ingests the two demo platforms, as `make demo` does.
func demoBundles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"a", "b"} {
		inv, err := schemas.LoadInventory(demo + "sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ingestBundle(t, dir, "platform-"+p+".bundle", map[string]string{"platform": p}, inv, demo+"platform-"+p+".json"))
	}
	return out
}

// corpus returns a file of the shared real-tool corpus ("tool/name"),
// skipping the test when it is absent (failing when
// VERDICT_REQUIRE_CORPUS=1).
func corpus(t *testing.T, rel string) string {
	t.Helper()
	tool, name, _ := strings.Cut(rel, "/")
	return testkit.CorpusFile(t, tool, name)
}
