package analysis_test

import (
	"context"
	"math"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/memlimit"
	"github.com/verdict-llm/verdict/schemas"
)

// TestObserveHoldsMemory: under the command's managed soft limit, an
// unbounded Observe raises the limit by the bytes of the values it holds
// (8 per value, from the footers) until the last run is closed; a
// bounded one, whose series spill, leaves it alone.
func TestObserveHoldsMemory(t *testing.T) {
	dir := demoBundles(t, t.TempDir())[0]
	const base = 1 << 30
	memlimit.Manage(base)
	defer memlimit.Manage(math.MaxInt64)
	b, err := analysis.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := analysis.Observe(context.Background(), b, analysis.ObserveOptions{Metrics: []schemas.MetricID{schemas.TTFT, schemas.ITLChunk}})
	if err != nil {
		t.Fatal(err)
	}
	var values int64
	for _, r := range runs {
		values += int64(len(r.Values[schemas.TTFT]) + len(r.Values[schemas.ITLChunk]))
	}
	got, _ := memlimit.Limit()
	if values == 0 || got < base+8*values || got > base+8*values*2 {
		t.Errorf("limit raised by %d bytes for %d values held", got-base, values)
	}
	for _, r := range runs {
		r.Close()
		r.Close() // twice: still released once
	}
	if got, _ := memlimit.Limit(); got != base {
		t.Errorf("after Close: limit %d, want %d", got, base)
	}
	bounded, err := analysis.Observe(context.Background(), b, analysis.ObserveOptions{Metrics: []schemas.MetricID{schemas.TTFT}, Bounded: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := memlimit.Limit(); got != base {
		t.Errorf("bounded Observe raised the limit to %d", got)
	}
	for _, r := range bounded {
		r.Close()
	}
}
