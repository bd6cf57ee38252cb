// Package fuzzseed makes seeds for the ingest fuzz tests: from a valid
// JSON document, one variant per scalar value and JSON type, with that
// value replaced by null, a boolean, a string, numbers of each sign and
// an empty array and object. A parser must take every variant without
// panicking and either refuse it with a positioned error or read it
// deterministically.
//
// It is used only by tests; when ingesttest gains the shared helper
// (issue #15) the callers switch to it.
package fuzzseed

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// replacements are the JSON types each value is replaced by.
var replacements = [][]byte{
	[]byte(`null`), []byte(`true`), []byte(`"x"`), []byte(`-1`), []byte(`1e308`), []byte(`0.5`), []byte(`[]`), []byte(`{}`),
}

// Types returns the variants of doc, at most limit values replaced (0
// means all), in document order. It returns nil when doc is not JSON.
func Types(doc []byte, limit int) [][]byte {
	sc := jsonscan.New(bytes.NewReader(doc))
	var out [][]byte
	values := 0
	for {
		tok, err := sc.Next()
		if err != nil {
			break
		}
		switch tok.Kind {
		case jsonscan.String, jsonscan.Number, jsonscan.True, jsonscan.False, jsonscan.Null:
		default:
			continue
		}
		if limit > 0 && values >= limit {
			break
		}
		values++
		start, end := tok.Pos.Off, tok.Pos.Off+int64(len(tok.Raw))
		for _, r := range replacements {
			v := make([]byte, 0, len(doc)+len(r))
			v = append(append(append(v, doc[:start]...), r...), doc[end:]...)
			out = append(out, v)
		}
	}
	return out
}

// AddFiles adds each testdata file to f's seed corpus, with its Types
// variants (at most limit values replaced per file).
func AddFiles(f *testing.F, limit int, names ...string) {
	f.Helper()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, v := range Types(data, limit) {
			f.Add(v)
		}
	}
}
