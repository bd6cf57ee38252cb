package main

import (
	"path/filepath"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// rows adds a bar counting rows towards total and returns the function
// that reports the rows done so far (done completes the bar), and one that
// ends the bar whatever happened, so that wait never blocks.
func (p *progress) rows(name string, total int64) (update func(int, bool), finish func()) {
	return p.steps(name, "rows", total)
}

// steps is rows counting other units.
func (p *progress) steps(name, unit string, total int64) (update func(int, bool), finish func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := p.p.AddBar(total,
		mpb.PrependDecorators(decor.Name(name+" "), decor.CountersNoUnit("%d / %d "+unit)),
		mpb.AppendDecorators(decor.Percentage()))
	update = func(n int, done bool) {
		bar.SetCurrent(int64(n))
		if done {
			bar.SetTotal(-1, true)
		}
	}
	finish = func() {
		if !bar.Completed() {
			bar.Abort(false)
		}
	}
	return update, finish
}

// statsBars implements analysis.StatsProgress: a bar per bundle during
// the report's statistics phase (bootstrap intervals per run and metric).
type statsBars struct {
	p    *progress
	ends []func()
}

func (s *statsBars) Stats(bundle string, steps int) func(int, bool) {
	update, end := s.p.steps("statistics of "+filepath.Base(bundle), "run metrics", int64(steps))
	s.ends = append(s.ends, end)
	return update
}

// finish ends every bar, whatever happened, and waits for the bars to be
// drawn.
func (s *statsBars) finish() {
	for _, end := range s.ends {
		end()
	}
	s.p.wait()
}
