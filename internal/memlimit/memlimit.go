// Package memlimit keeps the Go runtime's soft memory limit right for data
// that a command holds on purpose.
//
// The verdict command sets a soft limit (runtime/debug.SetMemoryLimit) so
// that garbage does not grow the process: per-request data stream and
// spill, so what is live stays small, and the limit makes the collector
// run before the heap doubles. Some steps, though, hold a known amount of
// data by design, such as every observation of a run while its bootstrap
// intervals are resampled (8 bytes per value, 15M chunk gaps for a
// 1M-request run). Under a fixed limit those steps leave the collector no
// room: it runs again and again over the same live data (111-155 cycles
// for verdict stats on 1M requests, 1.6 s instead of 1.1 s). Hold raises
// the limit by the bytes held for as long as they are held, so the limit
// keeps bounding garbage, not the data the command means to keep.
//
// Nothing changes unless Manage was called: a library caller's own limit,
// or GOMEMLIMIT, is left alone.
package memlimit

import (
	"runtime/debug"
	"sync"
)

var (
	mu      sync.Mutex
	managed bool
	base    int64
	held    int64
)

// Manage sets the soft limit to limit bytes and lets Hold raise it. The
// verdict command calls it once at start, unless GOMEMLIMIT is set.
func Manage(limit int64) {
	mu.Lock()
	defer mu.Unlock()
	managed, base, held = true, limit, 0
	debug.SetMemoryLimit(limit)
}

// Hold raises the soft limit by n bytes until release is called (once;
// later calls do nothing). It does nothing unless Manage was called, or
// when n <= 0.
func Hold(n int64) (release func()) {
	mu.Lock()
	defer mu.Unlock()
	if !managed || n <= 0 {
		return func() {}
	}
	held += n
	debug.SetMemoryLimit(base + held)
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			held -= n
			debug.SetMemoryLimit(base + held)
		})
	}
}

// Limit is the soft limit Manage and Hold have set, and whether Manage
// was called.
func Limit() (int64, bool) {
	mu.Lock()
	defer mu.Unlock()
	return base + held, managed
}
