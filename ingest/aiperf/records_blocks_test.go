package aiperf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/schemas"
)

// withWorkers runs f with n parsing workers.
func withWorkers(n int, f func()) {
	old := recordWorkers
	recordWorkers = n
	defer func() { recordWorkers = old }()
	f()
}

// blocksInput is generated records across many blocks, with what the
// cutting must keep in place: rejected lines (bad JSON, bad values, an
// escape the fast path leaves to the general one), blank lines, a line
// longer than a block, and no newline at the end.
func blocksInput(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(20, 2))
	lines := bytes.SplitAfter(generated(t, 12000, 8), []byte("\n"))
	for i, l := range lines {
		switch {
		case i%997 == 5:
			b.Write(mutate(rng, l))
			if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
				b.WriteByte('\n')
			}
		case i%1301 == 7:
			b.WriteString("\n  \r\n")
			b.Write(l)
		case i == 6000:
			gaps := strings.Repeat("12.5, ", blockSize/5)
			fmt.Fprintf(&b, `{"metadata": {"request_start_ns": 1764669600000000000, "benchmark_phase": "profiling"}, "metrics": {"inter_chunk_latency": {"value": [%s1.0], "unit": "ms"}, "request_latency": {"value": 9.5, "unit": "ms"}, "x_request_id": "a\"b"}, "error": null}`+"\n", gaps)
		default:
			b.Write(l)
		}
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestWorkersSameBundle: the bundle from any number of parsing workers is
// byte for byte the one from a single goroutine.
func TestWorkersSameBundle(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "profile_export.jsonl")
	data := blocksInput(t)
	if len(data) < 8*blockSize {
		t.Fatalf("input of %d bytes: too few blocks", len(data))
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := func(n int) map[string][]byte {
		out := filepath.Join(dir, fmt.Sprintf("w%d", n))
		var sum ingest.Summary
		var err error
		withWorkers(n, func() {
			sum, err = ingest.ToBundle(context.Background(), []string{in}, out, ingest.Options{Formats: []ingest.Format{Format{}},
				Bundle: schemas.BundleOptions{CreatedAt: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), VerdictVersion: "test"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if c := sum.Totals(schemas.TableRequests); c.Rejected == 0 || c.Ingested < 11000 {
			t.Fatalf("%d workers: %+v", n, c)
		}
		files := map[string][]byte{}
		err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			files[strings.TrimPrefix(p, out)] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	want := bundle(1)
	for _, n := range []int{2, 5} {
		got := bundle(n)
		if len(got) != len(want) {
			t.Fatalf("%d workers: %d files, want %d", n, len(got), len(want))
		}
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%d workers: %s differs from one worker's", n, name)
			}
		}
	}
}

// TestWorkersSameRecords: rows, rejections (line, column, record),
// warnings and statistics are the same for any number of workers, read
// in reads of any size; a failed read stops at the line it cut, after
// committing every line before it.
func TestWorkersSameRecords(t *testing.T) {
	data := blocksInput(t)
	readWith := func(n int, wrap func(io.Reader) io.Reader) []byte {
		var out []byte
		withWorkers(n, func() {
			in := ingest.NewInput("profile_export.jsonl", int64(len(data)), "0", func(off int64) (io.ReadCloser, error) {
				return io.NopCloser(wrap(bytes.NewReader(data[off:]))), nil
			})
			out, _ = readInput(t, in, false)
		})
		return out
	}
	plain := func(r io.Reader) io.Reader { return r }
	want := readWith(1, plain)
	for _, c := range []struct {
		name string
		n    int
		wrap func(io.Reader) io.Reader
	}{
		{"3 workers", 3, plain},
		{"3 workers, half reads", 3, iotest.HalfReader},
		{"1 worker, data with EOF", 1, iotest.DataErrReader},
	} {
		if got := readWith(c.n, c.wrap); !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from 1 worker's", c.name)
		}
	}
	// A read that fails in the middle of line cut+1.
	cut := bytes.Index(data[3*blockSize:], []byte("\n")) + 3*blockSize + 40
	line := bytes.Count(data[:cut], []byte("\n")) + 1
	failing := func(r io.Reader) io.Reader {
		return io.MultiReader(io.LimitReader(r, int64(cut)), iotest.ErrReader(errors.New("disk gone")))
	}
	one, two := readWith(1, failing), readWith(2, failing)
	if !bytes.Equal(one, two) {
		t.Error("a failed read: 2 workers' output differs from 1 worker's")
	}
	if w := fmt.Sprintf("error: profile_export.jsonl:%d: disk gone", line); !bytes.HasSuffix(one, []byte(w)) {
		t.Errorf("a failed read ends %q, want %q", one[max(0, len(one)-80):], w)
	}
}

// failingSink fails the request after its first n.
type failingSink struct {
	ingesttest.Sink
	n int
}

var errSinkFull = errors.New("sink full")

func (s *failingSink) Request(r *schemas.Request) error {
	if s.n == 0 {
		return errSinkFull
	}
	s.n--
	return s.Sink.Request(r)
}

// TestWorkersStopEarly: a sink failure or a cancelled context ends the
// read with its error, the workers stopped, whatever is still in flight.
func TestWorkersStopEarly(t *testing.T) {
	data := generated(t, 20000, 8)
	in := ingest.NewInput("profile_export.jsonl", int64(len(data)), "0", func(off int64) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data[off:])), nil
	})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		n    int
		want error
	}{
		{"sink failure", context.Background(), 3000, errSinkFull},
		{"cancelled", cancelled, -1, context.Canceled},
	} {
		for _, n := range []int{1, 3} {
			withWorkers(n, func() {
				s := &failingSink{n: c.n}
				r := newRecordReader(c.ctx, in, s, "run", false)
				defer r.close()
				if err := r.read(); !errors.Is(err, c.want) {
					t.Errorf("%s, %d workers: %v, want %v", c.name, n, err, c.want)
				}
				if c.n >= 0 && s.R.NumRequests != c.n {
					t.Errorf("%s, %d workers: %d requests before the failure, want %d", c.name, n, s.R.NumRequests, c.n)
				}
			})
		}
	}
}
