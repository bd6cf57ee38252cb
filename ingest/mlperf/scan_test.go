package mlperf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzScanDetail checks the detail log's line accounting: from the first
// :::MLLOG line on, every non-blank line is read into an entry or
// rejected, exactly once.
func FuzzScanDetail(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "server_token_detail.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(":::MLLOG {\"key\": \"a\", \"value\": \"x\"y\", \"time_ms\": 1}\r\n\n:::ENDPTS {\"key\": \"b\", \"value\": [1,2]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := scanDetail(context.Background(), "fuzz.txt", bytes.NewReader(data))
		if err != nil {
			return
		}
		want, started := 0, false
		for _, line := range bytes.Split(data, []byte("\n")) {
			text := bytes.TrimLeft(bytes.TrimRight(line, "\r\n"), " \t\ufeff")
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			if bytes.HasPrefix(text, []byte(markerMLLOG)) || bytes.HasPrefix(text, []byte(markerENDPTS)) {
				started = true
			}
			if started {
				want++
			}
		}
		if got := len(d.entries) + len(d.rejected); got != want || d.lines != want {
			t.Fatalf("%d lines, %d entries + %d rejected (counted %d)", want, len(d.entries), len(d.rejected), d.lines)
		}
		seen := map[int]bool{}
		for _, e := range d.entries {
			seen[e.line] = true
		}
		for _, r := range d.rejected {
			if seen[r.Line] {
				t.Fatalf("line %d both read and rejected", r.Line)
			}
			seen[r.Line] = true
		}
	})
}
