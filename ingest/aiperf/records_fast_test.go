package aiperf

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/gen"
)

// readRecords reads data as a records file, with the fast path or with
// the general path alone, and renders all it reported (rows, rejections,
// warnings, the recomputed statistics, the run, the error) for
// comparison; fast is the number of lines the fast path read.
func readRecords(t testing.TB, data []byte, general bool) (out []byte, fast int64) {
	t.Helper()
	return readInput(t, ingest.NewInput("profile_export.jsonl", int64(len(data)), "0", func(off int64) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data[off:])), nil
	}), general)
}

// readInput is readRecords of an Input.
func readInput(t testing.TB, in *ingest.Input, general bool) (out []byte, fast int64) {
	t.Helper()
	s := &ingesttest.Sink{KeepRequests: true}
	r := newRecordReader(context.Background(), in, s, "run", true)
	r.general = general
	err := r.read()
	if err == nil {
		err = r.emitComputed(nil)
		if err == nil {
			err = s.Run(r.standaloneRun())
		}
	} else {
		r.close()
	}
	out = ingesttest.Dump(t, &s.R)
	if err != nil {
		out = append(out, "\nerror: "+err.Error()...)
	}
	return out, r.fastLines
}

// checkAgree fails unless both paths report the same for data; it
// returns the lines the fast path read.
func checkAgree(t testing.TB, data []byte) int64 {
	t.Helper()
	fast, n := readRecords(t, data, false)
	general, _ := readRecords(t, data, true)
	if !bytes.Equal(fast, general) {
		fl, gl := strings.Split(string(fast), "\n"), strings.Split(string(general), "\n")
		for i := 0; i < min(len(fl), len(gl)); i++ {
			if fl[i] != gl[i] {
				t.Fatalf("input %q\nfast and general paths differ at output line %d:\nfast:    %s\ngeneral: %s", truncateForLog(data), i+1, fl[i], gl[i])
			}
		}
		t.Fatalf("input %q\nfast and general paths differ in length: %d and %d lines", truncateForLog(data), len(fl), len(gl))
	}
	return n
}

func truncateForLog(b []byte) []byte {
	if len(b) > 2000 {
		return b[:2000]
	}
	return b
}

func generated(t testing.TB, n, chunks int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gen.AIPerfRecords(&b, gen.AIPerfOptions{Records: n, Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFastPathReads: the records AIPerf writes take the fast path; the
// cancelled ones (an error object) and the bad ones do not.
func TestFastPathReads(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "artifacts", "demo-8b-openai-chat-concurrency4", "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile(filepath.Join("testdata", "records_bad.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		fast int64
	}{
		{"generated", generated(t, 1000, 8), 990}, // every 100th is cancelled
		{"demo artifacts", real, int64(bytes.Count(real, []byte(`"error": null`)))},
		{"records_bad.jsonl", bad, 2}, // lines 1 and 12 are good
		{"escaped key", []byte(`{"metadata": {"request_start_ns": 1}, "metrics": {"request_l\u0061tency": {"value": 1, "unit": "ms"}}, "error": null}` + "\n"), 0},
		{"blank lines", []byte("\n \n{\"metrics\": {}}\n\r\n"), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n := checkAgree(t, c.data); n != c.fast {
				t.Errorf("the fast path read %d lines, want %d", n, c.fast)
			}
		})
	}
}

// mutations are what TestFastPathAgrees does to a record: bytes JSON and
// the records give meaning to, and values of every type.
var mutationBytes = []byte(`{}[]":,.-+eE0123456789 \tnNtfaIx\`)

func mutate(rng *rand.Rand, line []byte) []byte {
	out := bytes.Clone(line)
	for range 1 + rng.IntN(2) {
		if len(out) == 0 {
			break
		}
		i := rng.IntN(len(out))
		switch rng.IntN(5) {
		case 0: // delete a byte
			out = append(out[:i], out[i+1:]...)
		case 1: // insert one
			out = append(out[:i], append([]byte{mutationBytes[rng.IntN(len(mutationBytes))]}, out[i:]...)...)
		case 2: // replace one
			out[i] = mutationBytes[rng.IntN(len(mutationBytes))]
		case 3: // replace a value with one of another type
			j := i + bytes.IndexAny(out[i:], ",}]")
			if j < i {
				break
			}
			v := ingesttest.TypeVariants[rng.IntN(len(ingesttest.TypeVariants))]
			k := bytes.LastIndexByte(out[:i], ':')
			if k < 0 {
				break
			}
			out = append(out[:k+1], append([]byte(" "+v), out[j:]...)...)
		case 4: // a different number
			nums := []string{"-0", "0", "1e3", "1.5E-2", "9007199254740993", "123456789012345678901234", "NaN", "-Infinity", "0.1", "-7", "1e400"}
			j := bytes.IndexAny(out[i:], "0123456789")
			if j < 0 {
				break
			}
			j += i
			e := j
			for e < len(out) && bytes.IndexByte([]byte("0123456789.eE+-"), out[e]) >= 0 {
				e++
			}
			out = append(out[:j], append([]byte(nums[rng.IntN(len(nums))]), out[e:]...)...)
		}
	}
	return out
}

// TestFastPathAgrees: on generated records, the demo records and the bad
// records, each mutated many ways, the fast path and the general path
// give the same rows, the same rejections (line, column, field, reason),
// the same warnings and statistics.
func TestFastPathAgrees(t *testing.T) {
	var seeds [][]byte
	for line := range bytes.Lines(generated(t, 200, 3)) {
		seeds = append(seeds, line)
	}
	for _, name := range []string{filepath.Join("testdata", "artifacts", "demo-8b-openai-chat-concurrency4", "profile_export.jsonl"), filepath.Join("testdata", "records_bad.jsonl")} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			seeds = append(seeds, line)
		}
	}
	rng := rand.New(rand.NewPCG(20, 1))
	rounds := 40
	if testing.Short() {
		rounds = 5
	}
	var fast, lines int64
	for round := range rounds {
		var file bytes.Buffer
		for i, s := range seeds {
			if (i+round)%3 == 0 {
				file.Write(s) // a good line between bad ones
			} else {
				file.Write(mutate(rng, s))
			}
			if file.Len() > 0 && file.Bytes()[file.Len()-1] != '\n' {
				file.WriteByte('\n')
			}
		}
		lines += int64(len(seeds))
		fast += checkAgree(t, file.Bytes())
	}
	if fast == 0 || fast == lines {
		t.Fatalf("the fast path read %d of %d lines: the test exercises one path only", fast, lines)
	}
	// Every field of a record replaced by every JSON type.
	for _, s := range seeds[:3] {
		for _, v := range ingesttest.TypeSeeds(s, 0) {
			checkAgree(t, v)
		}
	}
}

// FuzzFastPath: the fast path and the general path agree on every input.
func FuzzFastPath(f *testing.F) {
	for line := range bytes.Lines(generated(f, 3, 2)) {
		f.Add(line)
	}
	for _, name := range []string{filepath.Join("testdata", "artifacts", "demo-8b-openai-chat-concurrency4", "profile_export.jsonl"), filepath.Join("testdata", "records_bad.jsonl")} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		first, _, _ := bytes.Cut(data, []byte("\n"))
		ingesttest.AddTypeSeeds(f, 0, first)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgree(t, data) })
}
