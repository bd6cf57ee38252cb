package jtree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// dump writes a tree with every node's kind, text and position.
func dump(b *strings.Builder, n *Node) {
	fmt.Fprintf(b, "%v@%s:%q", n.Kind, n.Pos, n.Text)
	for _, m := range n.Members {
		fmt.Fprintf(b, " %q@%s=", m.Key, m.KeyPos)
		dump(b, m.Val)
	}
	for _, e := range n.Elems {
		b.WriteByte(' ')
		dump(b, e)
	}
	b.WriteByte(';')
}

// readAll runs Elements over doc, an array and one value after it, and
// returns every call of each, the error, and the token after the array.
func readAll(t *testing.T, doc []byte, workers int, oneByte bool, failAt int64) string {
	t.Helper()
	defer func(w, b int) { elementWorkers, batchBytes = w, b }(elementWorkers, batchBytes)
	elementWorkers, batchBytes = workers, 200
	var r io.Reader = bytes.NewReader(doc)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	sc := jsonscan.New(r)
	var out strings.Builder
	tok, err := sc.Next()
	if err != nil || tok.Kind != jsonscan.BeginArray {
		return fmt.Sprintf("not an array: %v", err)
	}
	openAt := func(off int64) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(doc[off:])), nil
	}
	err = Elements(context.Background(), "f.json", sc, openAt, func(i int64, n *Node) error {
		if i == failAt {
			return errors.New("sink failed")
		}
		fmt.Fprintf(&out, "%d ", i)
		dump(&out, n)
		out.WriteByte('\n')
		return nil
	})
	fmt.Fprintf(&out, "error: %v\n", err)
	if err == nil {
		tok, err := sc.Next()
		fmt.Fprintf(&out, "after: %v %q %s %v\n", tok.Kind, tok.Raw, tok.Pos, err)
	}
	return out.String()
}

// records writes an inference-perf-like array: objects with nested
// objects, arrays of times, strings with escapes, nulls, and scalars.
func records(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "%d", r.IntN(100))
		case 1:
			b.WriteString(`"a \"string\" element"`)
		case 2:
			b.WriteString("[1, [2, {\"x\": null}], []]")
		default:
			fmt.Fprintf(&b, "  {\n    \"start_time\": %g,\n    \"end_time\": %g,\n    \"request\": \"{\\\"prompt\\\": \\\"x]}\\\"}\",\n", r.Float64(), 1+r.Float64())
			b.WriteString("    \"info\": {\"response_metrics\": {\"output_tokens\": 4, \"chunk_times\": [")
			for k := range r.IntN(6) {
				if k > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%g", r.Float64())
			}
			b.WriteString("]}, \"labels\": {}},\n    \"error\": null\n  }")
		}
	}
	b.WriteString("\n]\n7")
	return b.Bytes()
}

// mutate damages doc at a few places.
func mutate(r *rand.Rand, doc []byte) []byte {
	d := bytes.Clone(doc)
	for range 1 + r.IntN(3) {
		i := r.IntN(len(d))
		const set = "{}[]\",:\\ 0an\n"
		c := set[r.IntN(len(set))]
		switch r.IntN(3) {
		case 0:
			d[i] = c
		case 1:
			d = append(d[:i], d[i+1:]...)
		default:
			d = append(d[:i], append([]byte{c}, d[i:]...)...)
		}
	}
	return d
}

// TestElementsSameAsSerial: with 2 and 5 workers and batches of a few
// elements, each sees the same elements, trees and positions as from the
// serial loop, and the same error, on valid arrays and on damaged ones
// (syntax errors inside elements, between them, texts cut short), read
// whole and one byte at a time, and with each failing part way.
func TestElementsSameAsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	damaged := 0
	for k := range 600 {
		doc := records(r, 1+r.IntN(60))
		if k%3 > 0 {
			doc = mutate(r, doc)
		}
		failAt := int64(-1)
		if k%10 == 9 {
			failAt = int64(r.IntN(20))
		}
		oneByte := k%5 == 4
		want := readAll(t, doc, 1, oneByte, failAt)
		if !strings.Contains(want, "error: <nil>") {
			damaged++
		}
		for _, w := range []int{2, 5} {
			if got := readAll(t, doc, w, oneByte, failAt); got != want {
				t.Fatalf("%d workers on %q:\n got %s\nwant %s", w, doc, got, want)
			}
		}
	}
	if damaged < 200 {
		t.Errorf("only %d of 600 inputs ended in an error: the mutations do not test the error paths", damaged)
	}
}

// TestElementsStop: a failing each and a cancelled context end the read
// with their error, and the pipeline's goroutines are gone afterwards.
func TestElementsStop(t *testing.T) {
	defer func(w, b int) { elementWorkers, batchBytes = w, b }(elementWorkers, batchBytes)
	elementWorkers, batchBytes = 3, 100
	doc := records(rand.New(rand.NewPCG(1, 1)), 20_000)
	before := runtime.NumGoroutine()
	for _, c := range []struct {
		name   string
		cancel bool
		fail   int64
	}{{"sink", false, 3000}, {"context", true, -1}} {
		ctx, cancel := context.WithCancel(context.Background())
		sc := jsonscan.New(bytes.NewReader(doc))
		sc.Next()
		n := int64(0)
		err := Elements(ctx, "f.json", sc, nil, func(i int64, _ *Node) error {
			n++
			if i == c.fail {
				return errors.New("sink failed")
			}
			if c.cancel && i == 5000 {
				cancel()
			}
			return nil
		})
		cancel()
		if c.cancel && !errors.Is(err, context.Canceled) || !c.cancel && (err == nil || err.Error() != "sink failed") {
			t.Errorf("%s: %v after %d elements", c.name, err, n)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines left (were %d)", g, before)
	}
}

func FuzzElements(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 4 {
		f.Add(records(r, 6))
	}
	f.Add([]byte(`[{"a": [1, {"b": "}"}]}, 2, "x", [[]], {"c": nul}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if want, got := readAll(t, doc, 1, false, -1), readAll(t, doc, 3, false, -1); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", doc, got, want)
		}
	})
}
