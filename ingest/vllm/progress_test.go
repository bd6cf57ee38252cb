package vllm_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
)

// passes is a fake ingest.PassProgress: it records each file's bytes and
// each second pass's items.
type passes struct {
	mu     sync.Mutex
	bytes  map[string]int64
	passes []*pass
}

type pass struct {
	what         string
	total, count int64
	ended        int // calls with -1
	afterEnd     bool
}

func (p *passes) File(name string, size int64) func(int64) {
	return func(n int64) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if n > 0 {
			p.bytes[filepath.Base(name)] += n
		}
	}
}

func (p *passes) Pass(name, what string, total int64) func(int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := &pass{what: filepath.Base(name) + ": " + what, total: total}
	p.passes = append(p.passes, ps)
	return func(n int64) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case n < 0:
			ps.ended++
		case ps.ended > 0:
			ps.afterEnd = true
		default:
			ps.count += n
		}
	}
}

// TestPassProgress: the per-request arrays, read after the file's bytes,
// report their rows: one pass per run with arrays, counting every row,
// ended once.
func TestPassProgress(t *testing.T) {
	tests := []struct {
		file  string
		want  []string // the passes, in order
		total []int64
	}{
		{"serve_detailed.json", []string{"serve_detailed.json: requests of run 0"}, []int64{24}},
		{"serve_2024-02_first.json", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := &passes{bytes: map[string]int64{}}
			path := filepath.Join("testdata", tc.file)
			if _, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: all.Formats(), Progress: p}); err != nil {
				t.Fatal(err)
			}
			if p.bytes[tc.file] == 0 {
				t.Errorf("no bytes reported: %v", p.bytes)
			}
			if len(p.passes) != len(tc.want) {
				t.Fatalf("%d passes, want %d", len(p.passes), len(tc.want))
			}
			for i, ps := range p.passes {
				if ps.what != tc.want[i] || ps.total != tc.total[i] || ps.count != ps.total || ps.ended != 1 || ps.afterEnd {
					t.Errorf("pass %d: %+v, want %q of %d rows, all counted, ended once", i, *ps, tc.want[i], tc.total[i])
				}
			}
		})
	}
}
