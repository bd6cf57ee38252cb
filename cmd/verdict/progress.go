package main

import (
	"context"
	"io"
	"path/filepath"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows one bar per input file on a terminal; newProgress returns
// nil when stderr is not a terminal, so nothing is printed to pipes or CI
// logs.
type progress struct {
	p  *mpb.Progress
	mu sync.Mutex
}

func newProgress(ctx context.Context, stderr io.Writer) *progress {
	if !isTerminal(stderr) {
		return nil
	}
	return &progress{p: mpb.NewWithContext(ctx, mpb.WithOutput(stderr), mpb.WithWidth(40))}
}

// File implements ingest.Progress.
func (p *progress) File(name string, size int64) func(int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := p.p.AddBar(size,
		mpb.PrependDecorators(decor.Name(filepath.Base(name)+" "), decor.CountersKibiByte("% .1f / % .1f")),
		mpb.AppendDecorators(decor.Percentage()))
	return counter(bar)
}

// Pass implements ingest.PassProgress: a bar counting the items of a
// second pass over a file (a vLLM file's per-request arrays, read after
// its bytes).
func (p *progress) Pass(name, what string, total int64) func(int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := p.p.AddBar(total,
		mpb.PrependDecorators(decor.Name(filepath.Base(name)+" "+what+" "), decor.CountersNoUnit("%d / %d")),
		mpb.AppendDecorators(decor.Percentage()))
	return counter(bar)
}

// counter advances bar by n; a negative n completes it.
func counter(bar *mpb.Bar) func(int64) {
	return func(n int64) {
		if n < 0 {
			bar.SetTotal(-1, true)
			return
		}
		bar.IncrInt64(n)
	}
}

func (p *progress) wait() { p.p.Wait() }
