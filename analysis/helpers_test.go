package analysis_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
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

// corpus returns a file of the shared real-tool corpus, skipping the test
// when the corpus is absent (failing when VERDICT_REQUIRE_CORPUS=1).
func corpus(t *testing.T, rel string) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "fixtures", rel)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("VERDICT_REQUIRE_CORPUS") == "1" {
			t.Fatalf("corpus file %s: %v", rel, err)
		}
		t.Skipf("corpus file %s not present: %v", rel, err)
	}
	return path
}
