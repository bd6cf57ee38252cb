package main

import (
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// rows adds a bar counting rows towards total and returns the function
// that reports the rows done so far (done completes the bar), and one that
// ends the bar whatever happened, so that wait never blocks.
func (p *progress) rows(name string, total int64) (update func(int, bool), finish func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := p.p.AddBar(total,
		mpb.PrependDecorators(decor.Name(name+" "), decor.CountersNoUnit("%d / %d rows")),
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
