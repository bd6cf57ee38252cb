package vllm

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
)

// detailedJSON writes a vllm bench serve result of n requests whose itls
// hold, at some rows, a string, a nested array, a negative gap, a scalar
// in place of a list and an empty list; tail ends the itls array (a
// syntax error when it is not "]").
func detailedJSON(n int, badItls string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"date": "20261101-080000", "backend": "openai", "model_id": "org/m", "num_prompts": ` + fmt.Sprint(n) +
		`, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 8, "duration": 100.0, "completed": ` + fmt.Sprint(n) + `, "failed": 0`)
	arr := func(key string, f func(i int) string) {
		fmt.Fprintf(&b, ",\n %q: [", key)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f(i))
		}
		b.WriteString("]")
	}
	arr("input_lens", func(i int) string { return fmt.Sprint(100 + i%7) })
	arr("output_lens", func(i int) string { return fmt.Sprint(3 + i%4) })
	arr("ttfts", func(i int) string { return fmt.Sprintf("%g", 0.05+float64(i%13)*0.001) })
	arr("itls", func(i int) string {
		switch {
		case badItls != "" && i == n-3:
			return badItls
		case i%997 == 5:
			return `[0.01, "x", 0.02]`
		case i%1499 == 7:
			return `[[0.01], 0.02]`
		case i%2003 == 11:
			return `[0.01, -0.5]`
		case i%3001 == 13:
			return `0.01`
		case i%5 == 0:
			return `[]`
		}
		gaps := make([]string, 2+i%4)
		for k := range gaps {
			gaps[k] = fmt.Sprintf("%g", 0.01+float64((i+k)%9)*0.0001)
		}
		return "[" + strings.Join(gaps, ", ") + "]"
	})
	arr("errors", func(i int) string {
		if i%700 == 3 {
			return `"boom"`
		}
		return `""`
	})
	b.WriteString("}\n")
	return b.Bytes()
}

// TestGapReaderMatchesCursor: with the itls read ahead on their own
// goroutine, the rows, rejections (with their positions), warnings,
// recomputed metrics and errors are those of the cursor read in line.
func TestGapReaderMatchesCursor(t *testing.T) {
	defer func(v bool) { gapReadAhead = v }(gapReadAhead)
	n := 3*gapBatchRows + 17
	for _, tc := range []struct{ name, bad string }{
		{"rejected elements", ""},
		{"syntax error", "[0.01, 0.02"},
		{"truncated number", "[0.01, 1e]"},
	} {
		path := filepath.Join(t.TempDir(), "serve.json")
		if err := os.WriteFile(path, detailedJSON(n, tc.bad), 0o644); err != nil {
			t.Fatal(err)
		}
		var dumps [2][]byte
		var errs [2]string
		for i, ahead := range []bool{false, true} {
			gapReadAhead = ahead
			r, err := ingesttest.ReadFile(t, Format{}, path)
			if err != nil {
				errs[i] = err.Error()
				continue
			}
			if len(r.Rejections) < 10 || len(r.Requests) < n-100 {
				t.Fatalf("%s: %d rejections, %d requests: the fixture does not exercise the reader", tc.name, len(r.Rejections), len(r.Requests))
			}
			dumps[i] = ingesttest.Dump(t, r)
		}
		if errs[0] != errs[1] || !bytes.Equal(dumps[0], dumps[1]) {
			t.Errorf("%s: read ahead differs from in line:\nerrors %q / %q; dumps equal: %v", tc.name, errs[0], errs[1], bytes.Equal(dumps[0], dumps[1]))
		}
		if tc.bad != "" && errs[0] == "" {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
