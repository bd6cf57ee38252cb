package schemas

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestPrefetchOrderAndStop reads a requests table of several batches
// (200,000 rows; batches are 65,536 rows): every row arrives once, in
// stored order, while the next batch is decoded ahead; a caller's error
// stops the decoder, is returned as is, and leaves no goroutine behind.
func TestPrefetchOrderAndStop(t *testing.T) {
	const n = 200_000
	b := requestsBundle(t, n, func(i int) Request {
		return Request{RunID: "r", Index: int64(i), Status: StatusOK, Phase: PhaseProfiling, TTFTS: Some(float64(i)), ChunkGapsS: []float64{float64(i), 1}}
	})
	before := runtime.NumGoroutine()
	next := int64(0)
	err := b.RequestColumns(context.Background(), []string{"run_id", "index", "ttft_s", "chunk_gaps_s"}, func(q *Request) error {
		if q.Index != next || q.TTFTS.V != float64(next) || len(q.ChunkGapsS) != 2 || q.ChunkGapsS[0] != float64(next) {
			t.Fatalf("row %d: got index %d, ttft %v, gaps %v", next, q.Index, q.TTFTS, q.ChunkGapsS)
		}
		next++
		return nil
	})
	if err != nil || next != n {
		t.Fatalf("read %d of %d rows: %v", next, n, err)
	}
	stopErr := errors.New("enough")
	batches := 0
	err = b.Columns(context.Background(), TableRequests, []string{"index"}, func(rec arrow.RecordBatch) error {
		batches++
		return stopErr
	})
	if !errors.Is(err, stopErr) || batches != 1 {
		t.Fatalf("after an error: %v, %d batches", err, batches)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the reads, %d before", g, before)
	}
}

// requestsBundle commits a bundle of one vllm run "r" holding n request
// rows made by req, and opens it.
func requestsBundle(t *testing.T, n int, req func(i int) Request) *Bundle {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "b")
	w, err := CreateBundle(dest, BundleOptions{VerdictVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(Run{ID: "r", Tool: "vllm"})
	for i := range n {
		r := req(i)
		if err := w.AddRequest(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
