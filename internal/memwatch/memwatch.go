// Package memwatch samples the Go runtime's memory while a benchmark runs,
// so that benchmarks can report peak memory beside time and allocations.
package memwatch

import (
	"runtime/metrics"
	"sync"
	"time"
)

// Peak is the largest memory seen while watching.
type Peak struct {
	HeapMiB   float64 // live and unswept heap objects
	MappedMiB float64 // all memory the Go runtime mapped: the closest in-process figure to resident memory
}

// Start samples every 5 ms until the returned function is called, which
// returns the peaks.
func Start() (stop func() Peak) {
	var mu sync.Mutex
	var heap, total uint64
	done := make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			heap = max(heap, s[0].Value.Uint64())
			total = max(total, s[1].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() Peak {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return Peak{HeapMiB: float64(heap) / (1 << 20), MappedMiB: float64(total) / (1 << 20)}
	}
}
