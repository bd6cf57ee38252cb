// Package ingesttest helps test ingest formats: it runs a Format over a
// file or bytes and collects everything it reports, and renders it for
// golden files. Golden files and the real-tool corpus are testkit's.
package ingesttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// Result is everything a Format reported.
type Result struct {
	Runs       []schemas.Run
	Requests   []schemas.Request // copies, including ChunkGapsS
	Metrics    []schemas.Metric
	Samples    []schemas.Sample
	Rejections []schemas.Rejection
	Warnings   []string
	Format     string
	Tool       string
	Version    string
	// Requests is left empty when KeepRequests is false in ReadFile; the
	// count is always kept.
	NumRequests int
}

// Sink implements ingest.Sink by collecting.
type Sink struct {
	R            Result
	KeepRequests bool
}

func (s *Sink) Run(r *schemas.Run) error { s.R.Runs = append(s.R.Runs, *r); return nil }
func (s *Sink) Request(r *schemas.Request) error {
	s.R.NumRequests++
	if s.KeepRequests {
		c := *r
		c.ChunkGapsS = slices.Clone(r.ChunkGapsS)
		s.R.Requests = append(s.R.Requests, c)
	}
	return nil
}
func (s *Sink) Metric(m *schemas.Metric) error { s.R.Metrics = append(s.R.Metrics, *m); return nil }
func (s *Sink) Sample(x *schemas.Sample) error { s.R.Samples = append(s.R.Samples, *x); return nil }
func (s *Sink) Reject(rej schemas.Rejection)   { s.R.Rejections = append(s.R.Rejections, rej) }
func (s *Sink) Warn(msg string)                { s.R.Warnings = append(s.R.Warnings, msg) }
func (s *Sink) Describe(format, tool, version string) {
	s.R.Format, s.R.Tool, s.R.Version = format, tool, version
}

// ReadFile runs f over the file at path, keeping request rows.
func ReadFile(t testing.TB, f ingest.Format, path string) (*Result, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return read(f, path, data, true)
}

// ReadBytes runs f over data as if it were a file called name.
func ReadBytes(f ingest.Format, name string, data []byte) (*Result, error) {
	return read(f, name, data, true)
}

func read(f ingest.Format, name string, data []byte, keep bool) (*Result, error) {
	sum := sha256.Sum256(data)
	in := ingest.NewInput(name, int64(len(data)), hex.EncodeToString(sum[:]),
		func(off int64) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data[off:])), nil
		})
	s := &Sink{KeepRequests: keep}
	err := f.Read(context.Background(), in, s)
	return &s.R, err
}

// Metric returns the first metric row matching run, id, stat, percentile
// (ignored when < 0) and source.
func (r *Result) Metric(run string, id schemas.MetricID, stat string, pct float64, source string) (schemas.Metric, bool) {
	for _, m := range r.Metrics {
		if m.RunID == run && m.MetricID == id && m.Stat == stat && m.Source == source &&
			(pct < 0 || (m.Percentile.OK && m.Percentile.V == pct)) {
			return m, true
		}
	}
	return schemas.Metric{}, false
}

// SharedDir returns the corpus directory of a tool, skipping the test when
// it is absent (failing with VERDICT_REQUIRE_CORPUS=1).
//
// Deprecated: use testkit.Corpus, which this calls.
func SharedDir(t testing.TB, tool string) string {
	t.Helper()
	return testkit.Corpus(t, tool)
}

// Update is the -update flag (testkit's): it rewrites the golden files
// instead of comparing with them.
//
// Deprecated: use testkit.Update.
var Update = testkit.Update

// Golden compares got with testdata/golden/name, the ingest packages' place
// for golden files, through testkit.Golden (which -update rewrites and
// which leaves name.got beside a mismatch).
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// Dump renders everything a Format reported deterministically, for
// golden files: source paths are reduced to their base names and
// "testdata/" is dropped from warnings, so goldens do not depend on where
// the tests run.
func Dump(t testing.TB, r *Result) []byte {
	t.Helper()
	v := struct {
		Format, Tool, Version string
		Runs                  []schemas.Run
		Requests              []schemas.Request `json:",omitempty"`
		Metrics               []schemas.Metric
		Samples               []schemas.Sample `json:",omitempty"`
		Rejections            []schemas.Rejection
		Warnings              []string
	}{r.Format, r.Tool, r.Version, slices.Clone(r.Runs), r.Requests, r.Metrics, r.Samples, r.Rejections, slices.Clone(r.Warnings)}
	for i := range v.Runs {
		v.Runs[i].SourcePath = filepath.Base(v.Runs[i].SourcePath)
		if fs := v.Runs[i].SourceFiles; fs != nil {
			v.Runs[i].SourceFiles = make([]string, len(fs))
			for j, f := range fs {
				v.Runs[i].SourceFiles[j] = filepath.Base(f)
			}
		}
	}
	for i, w := range v.Warnings {
		v.Warnings[i] = strings.ReplaceAll(w, "testdata/", "")
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// ReadTwice is the common part of the ingest fuzz tests: it reads data
// twice with f and fails the test unless both reads agree, and unless a
// failure is an *ingest.Error (a file-level error with its position). It
// returns the result, or nil when the input was rightly refused.
func ReadTwice(t testing.TB, f ingest.Format, name string, data []byte) *Result {
	t.Helper()
	r1, err1 := ReadBytes(f, name, data)
	r2, err2 := ReadBytes(f, name, data)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("nondeterministic: %v vs %v", err1, err2)
	}
	CheckInSync(t, data, r1, err1)
	if err1 != nil {
		var ie *ingest.Error
		if !errors.As(err1, &ie) {
			t.Fatalf("error is not an *ingest.Error: %v", err1)
		}
		return nil
	}
	if !bytes.Equal(Dump(t, r1), Dump(t, r2)) {
		t.Fatal("nondeterministic output")
	}
	return r1
}

// CheckInSync fails the test when a reader calls well-formed JSON
// malformed, in its error or in a rejection: the sign of a reader that
// left a wrong-typed value unread and lost its place in the token stream
// (issue 15). data is well-formed when jsonscan reads all of it.
func CheckInSync(t testing.TB, data []byte, r *Result, err error) {
	t.Helper()
	sc := jsonscan.New(bytes.NewReader(data))
	for {
		_, serr := sc.Next()
		if serr == io.EOF {
			break
		}
		if serr != nil {
			return // not well-formed: anything may be said of it
		}
	}
	if err != nil && strings.Contains(err.Error(), "malformed JSON") {
		t.Fatalf("well-formed JSON called malformed: %v", err)
	}
	if r == nil {
		return
	}
	for _, rej := range r.Rejections {
		if strings.Contains(rej.Reason, "malformed JSON") {
			t.Fatalf("well-formed JSON called malformed: %v", rej)
		}
	}
}

// CheckDetect runs f's Detect over every file of the shared corpus: the
// tool's own files must score at least least, every other tool's file 0;
// and over the package's own testdata fixtures, which must score at least
// least too. The corpus part skips (or fails) as testkit.Corpus does.
func CheckDetect(t *testing.T, f ingest.Format, tool string, least int, fixtures []string) {
	t.Helper()
	for _, name := range fixtures {
		head, _ := os.ReadFile(filepath.Join("testdata", name))
		if got := f.Detect(name, head[:min(len(head), ingest.HeadSize)]); got < least {
			t.Errorf("Detect(%s) = %d, want at least %d", name, got, least)
		}
	}
	root := filepath.Dir(testkit.Corpus(t, tool))
	files, _ := filepath.Glob(filepath.Join(root, "*", "*"))
	for _, path := range files {
		if filepath.Base(path) == "SOURCES.md" {
			continue
		}
		head, _ := os.ReadFile(path)
		got := f.Detect(path, head[:min(len(head), ingest.HeadSize)])
		mine := filepath.Base(filepath.Dir(path)) == tool
		if mine && got < least || !mine && got != 0 {
			t.Errorf("Detect(%s) = %d", path, got)
		}
	}
}

// TypeVariants are the values TypeSeeds puts in place of each value: one
// of every JSON type, and the numbers and shapes that break readers most
// often (a negative, an overflow, Python's NaN, empty and non-empty
// containers).
var TypeVariants = []string{`null`, `true`, `-1`, `1e999`, `NaN`, `"x"`, `[]`, `[1]`, `{}`, `{"a":[1]}`}

// TypeSeeds returns copies of doc in which the value of one field at a
// time is replaced by each of TypeVariants, for the seed corpus of a
// reader's fuzz test: a reader that leaves a wrong-typed value unread, or
// trusts a field's type, fails on one of them. A field is a path of
// member names and array positions with the positions collapsed
// (benchmarks[].requests[].ttft), so a file of a thousand records gives
// the seeds of one; each field's first occurrence is replaced, containers
// included. doc is one JSON value, a sequence of them (JSON lines), or
// lines with a non-JSON prefix before their JSON (":::MLLOG {...}"), whose
// lines are then told apart by their first member's value. At most
// maxFields fields are replaced (0: 400).
func TypeSeeds(doc []byte, maxFields int) [][]byte {
	if maxFields <= 0 {
		maxFields = 400
	}
	spans := valueSpans(doc, maxFields)
	out := make([][]byte, 0, len(spans)*len(TypeVariants))
	for _, sp := range spans {
		for _, v := range TypeVariants {
			if string(doc[sp[0]:sp[1]]) == v {
				continue
			}
			b := make([]byte, 0, len(doc)-(sp[1]-sp[0])+len(v))
			b = append(append(append(b, doc[:sp[0]]...), v...), doc[sp[1]:]...)
			out = append(out, b)
		}
	}
	return out
}

// AddTypeSeeds adds TypeSeeds of each doc to f's seed corpus. Every
// `go test` runs them all; while fuzzing (-test.fuzz), where the fuzzer
// first runs every seed for its baseline coverage, every seed up to
// fuzzSeeds per doc is added, spread over the document, so that fuzzing
// starts within seconds.
func AddTypeSeeds(f *testing.F, maxFields int, docs ...[]byte) {
	fuzzing := false
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		fuzzing = true
	}
	for _, d := range docs {
		seeds := TypeSeeds(d, maxFields)
		step := 1
		if fuzzing && len(seeds) > fuzzSeeds {
			step = (len(seeds) + fuzzSeeds - 1) / fuzzSeeds
		}
		for i := 0; i < len(seeds); i += step {
			f.Add(seeds[i])
		}
	}
}

const fuzzSeeds = 150

// valueSpans lists the byte spans [start, end) of the first occurrence
// of each field of doc, up to max.
func valueSpans(doc []byte, max int) [][2]int {
	seen := map[string]bool{}
	if spans, ok := jsonSpans(doc, 0, "", seen, max); ok {
		return spans
	}
	var out [][2]int
	off := 0
	for line := range bytes.Lines(doc) {
		if i := bytes.IndexAny(line, "{["); i >= 0 && len(out) < max {
			spans, _ := jsonSpans(line[i:], off+i, firstValue(line[i:]), seen, max-len(out))
			out = append(out, spans...)
		}
		off += len(line)
	}
	return out
}

// firstValue is the text of the first scalar of a line's JSON (an MLLOG
// line's key), which tells apart lines of one shape but different
// meaning.
func firstValue(b []byte) string {
	sc := jsonscan.New(bytes.NewReader(b))
	for {
		tok, err := sc.Next()
		if err != nil {
			return ""
		}
		if tok.Kind != jsonscan.Key && tok.Kind.IsValue() && tok.Kind != jsonscan.BeginObject && tok.Kind != jsonscan.BeginArray {
			return string(tok.Raw)
		}
	}
}

// jsonSpans scans doc as JSON; ok is false when it is not JSON from its
// first byte.
func jsonSpans(doc []byte, base int, prefix string, seen map[string]bool, max int) (spans [][2]int, ok bool) {
	sc := jsonscan.New(bytes.NewReader(doc))
	type open struct {
		start int
		path  string
	}
	var opens []open
	key := ""
	path := func() string {
		if len(opens) == 0 {
			return prefix
		}
		top := opens[len(opens)-1]
		if key == "" {
			return top.path + "[]"
		}
		return top.path + "." + key
	}
	add := func(p string, sp [2]int) {
		if len(opens) > 0 && !seen[p] && len(spans) < max {
			seen[p] = true
			spans = append(spans, sp)
		}
	}
	for {
		tok, err := sc.Next()
		if err == io.EOF {
			return spans, true
		}
		if err != nil {
			return spans, len(spans) > 0
		}
		start := int(tok.Pos.Off)
		switch tok.Kind {
		case jsonscan.Key:
			key, _ = sc.Text(tok)
			if key == "" {
				key = `""`
			}
		case jsonscan.BeginObject, jsonscan.BeginArray:
			opens = append(opens, open{start, path()})
			key = ""
		case jsonscan.EndObject, jsonscan.EndArray:
			o := opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			add(o.path, [2]int{base + o.start, base + start + 1})
			key = ""
		default:
			add(path(), [2]int{base + start, base + start + len(tok.Raw)})
		}
	}
}

// AddTypeSeedFiles adds each testdata file to f's seed corpus with its
// TypeSeeds (at most maxFields fields replaced per file; 0: 400).
func AddTypeSeedFiles(f *testing.F, maxFields int, names ...string) {
	f.Helper()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		AddTypeSeeds(f, maxFields, data)
	}
}
