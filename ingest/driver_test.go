package ingest_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/schemas"
)

var formats = []ingest.Format{vllm.Format{}}

func testdata(name string) string { return filepath.Join("vllm", "testdata", name) }

// TestToBundle ingests hand-written files and checks the bundle's
// accounting: every row read is ingested or rejected.
func TestToBundle(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out")
	sut := schemas.Inventory{GPUModel: "H100", GPUCount: schemas.Some(int64(1))}
	sum, err := ingest.ToBundle(context.Background(),
		[]string{testdata("serve_detailed.json"), testdata("serve_bad_rows.json"), testdata("append_result.json")}, dest,
		ingest.Options{Formats: formats, SUT: sut, Labels: map[string]string{"platform": "a", "deployment": "override"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Manifest.Sources) != 3 {
		t.Fatalf("%d sources", len(sum.Manifest.Sources))
	}
	for _, s := range sum.Manifest.Sources {
		if s.SHA256 == "" || s.Format != "vllm-serve" || s.Tool != "vllm" || s.ToolVersion == "" {
			t.Errorf("source %+v", s)
		}
		for table, c := range s.Counts {
			if c.Read != c.Ingested+c.Rejected {
				t.Errorf("%s %s: %+v does not add up", s.Path, table, c)
			}
		}
	}
	bad := sum.Manifest.Sources[1]
	if c := bad.Counts[schemas.TableRequests]; c.Read != 4 || c.Rejected != 2 || c.Reasons["negative value -0.1"] != 1 {
		t.Errorf("bad rows: %+v", c)
	}
	if c := sum.Manifest.Sources[0].Counts[schemas.TableMetrics]; c.Computed == 0 {
		t.Errorf("no computed metrics counted: %+v", c)
	}
	if !strings.Contains(strings.Join(sum.Manifest.Sources[0].Warnings, "\n"), `label deployment="demo" from the file replaced by --label deployment="override"`) {
		t.Errorf("warnings %q", sum.Manifest.Sources[0].Warnings)
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if r.Labels["platform"] != "a" || r.SUT.GPUModel != "H100" {
			t.Errorf("run %s: labels %v, SUT %+v", r.ID, r.Labels, r.SUT)
		}
	}
	var n int
	if err := b.Requests(context.Background(), func(*schemas.Request) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := int(sum.Totals(schemas.TableRequests).Ingested); n != want || n != 24+2 {
		t.Errorf("%d request rows in the bundle, manifest says %d", n, want)
	}
}

// TestFileErrors: a problem with any input writes no bundle at all.
func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("latency was fine\n"), 0o644)
	cases := []struct {
		name  string
		paths []string
		opts  ingest.Options
		want  string
	}{
		{"empty", []string{empty}, ingest.Options{}, "empty.json: empty file"},
		{"directory", []string{dir}, ingest.Options{}, "is a directory, not a result file"},
		{"missing", []string{filepath.Join(dir, "nope.json")}, ingest.Options{}, "nope.json: no such file or directory"},
		{"unknown content", []string{text}, ingest.Options{}, "format not recognised from its content"},
		{"unknown format", []string{text}, ingest.Options{Format: "jmeter"}, `unknown format "jmeter" (known: vllm)`},
		{"truncated", []string{testdata("serve_detailed.json"), testdata("truncated.json")}, ingest.Options{}, "truncated.json:2:53: malformed JSON"},
		{"strict", []string{testdata("serve_bad_rows.json")}, ingest.Options{Strict: true}, "4 rows rejected (--strict): first: line 2, column 75"},
		{"twice", []string{testdata("append_result.json"), testdata("append_result.json")}, ingest.Options{}, "the same file given twice?"},
		{"forced on a directory", []string{dir}, ingest.Options{Format: "vllm"}, "no vllm bench sweep runs (run=<i>.json) in this directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			dest := filepath.Join(out, "bundle")
			c.opts.Formats = formats
			_, err := ingest.ToBundle(context.Background(), c.paths, dest, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a failed ingest left %v", entries)
			}
		})
	}
	var ie *ingest.Error
	_, err := ingest.ToBundle(context.Background(), []string{empty}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: formats})
	if !errors.As(err, &ie) || ie.File != empty {
		t.Errorf("not an *ingest.Error naming the file: %v", err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	_, err := ingest.ToBundle(ctx, []string{testdata("serve_detailed.json")}, filepath.Join(out, "b"), ingest.Options{Formats: formats})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a cancelled ingest left %v", entries)
	}
}

func TestCutText(t *testing.T) {
	if s := ingest.CutText("short"); s != "short" {
		t.Error(s)
	}
	long := strings.Repeat("é", ingest.MaxTextBytes) // 2 bytes each
	got := ingest.CutText(long)
	if !strings.HasSuffix(got, fmt.Sprintf("... [cut: %d bytes]", len(long))) || !utf8.ValidString(got) || len(got) > ingest.MaxTextBytes+40 {
		t.Errorf("%d bytes, valid %v, tail %q", len(got), utf8.ValidString(got), got[len(got)-30:])
	}
}

// farFormat reads any file as one run whose window starts in 2999.
type farFormat struct{}

func (farFormat) Name() string              { return "far" }
func (farFormat) Description() string       { return "test: a run dated 2999" }
func (farFormat) Detect(string, []byte) int { return 100 }
func (farFormat) Read(_ context.Context, _ *ingest.Input, s ingest.Sink) error {
	s.Describe("far", "far", "1")
	return s.Run(&schemas.Run{ID: "far-run", Tool: "far",
		WindowStart: schemas.Some(time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)),
		WindowEnd:   schemas.Some(time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))})
}

// TestRunTimeOutOfRange: a run's window outside the years a bundle's
// nanosecond timestamps hold is left unset, with a warning naming the run
// and the field, instead of overflowing into another date.
func TestRunTimeOutOfRange(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "far.json")
	if err := os.WriteFile(in, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ToBundle(context.Background(), []string{in}, filepath.Join(dir, "out"), ingest.Options{Formats: []ingest.Format{farFormat{}}})
	if err != nil {
		t.Fatal(err)
	}
	warn := strings.Join(sum.Manifest.Sources[0].Warnings, "\n")
	if !strings.Contains(warn, "run far-run: window_start 2999-01-01T00:00:00Z is outside the years a bundle's timestamps hold (1677 to 2262); left unset") {
		t.Errorf("warnings %q", warn)
	}
	b, err := schemas.OpenBundle(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := runs[0]; r.WindowStart.OK || !r.WindowEnd.OK {
		t.Errorf("window %+v .. %+v", r.WindowStart, r.WindowEnd)
	}
}

// TestSourceHash: the hash computed alongside the reading is the file's
// SHA-256, in the manifest, in each run's source_sha256 and in the run
// IDs derived from it, for a file given alone.
func TestSourceHash(t *testing.T) {
	src := testdata("serve_detailed.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x", sha256.Sum256(data))
	sum, err := ingest.ToBundle(context.Background(), []string{src}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: formats})
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Manifest.Sources[0].SHA256; got != want {
		t.Errorf("manifest SHA-256 %s, want %s", got, want)
	}
	b, err := schemas.OpenBundle(sum.Dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(context.Background())
	if err != nil || len(runs) == 0 {
		t.Fatal(runs, err)
	}
	for i, r := range runs {
		if r.SourceSHA256 != want || r.ID != ingest.RunID("vllm", want, int(r.SourceRecord)) {
			t.Errorf("run %d: ID %s, source SHA-256 %s; want %s", i, r.ID, r.SourceSHA256, want)
		}
	}
}
