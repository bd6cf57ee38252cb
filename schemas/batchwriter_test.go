package schemas

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// failSink accepts the first limit bytes and fails every write after.
type failSink struct {
	bytes.Buffer
	limit  int
	closed bool
}

var errSinkFull = errors.New("disk full")

func (s *failSink) Write(p []byte) (int, error) {
	if s.Len()+len(p) > s.limit {
		return 0, errSinkFull
	}
	return s.Buffer.Write(p)
}

func (s *failSink) Close() error { s.closed = true; return nil }

// requestBatches writes n batches of rows requests each through bw and
// returns the first error a write gave.
func requestBatches(t *testing.T, mem memory.Allocator, bw *batchWriter, n, rows int) error {
	t.Helper()
	b := array.NewRecordBuilder(mem, requestsSchema)
	defer b.Release()
	app := NewRequestAppender(b)
	var first error
	for k := range n {
		for i := range rows {
			app.Append(&Request{RunID: "r", Index: int64(k*rows + i), Status: StatusOK, TTFTS: Some(0.01 * float64(i))})
		}
		if err := bw.write(b.NewRecordBatch()); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// TestBatchWriter: batches written on the writer's goroutine make the file a
// synchronous writer makes, in order.
func TestBatchWriter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	write := func(async bool) []byte {
		var sink failSink
		sink.limit = 1 << 30
		props, aprops := writerProps(mem, 100, requestsSchema)
		fw, err := pqarrow.NewFileWriter(requestsSchema, &sink, props, aprops)
		if err != nil {
			t.Fatal(err)
		}
		if async {
			bw := newBatchWriter(TableRequests, fw, &sink)
			if err := requestBatches(t, mem, bw, 5, 100); err != nil {
				t.Fatal(err)
			}
			if err := bw.close(); err != nil {
				t.Fatal(err)
			}
		} else {
			b := array.NewRecordBuilder(mem, requestsSchema)
			app := NewRequestAppender(b)
			for k := range 5 {
				for i := range 100 {
					app.Append(&Request{RunID: "r", Index: int64(k*100 + i), Status: StatusOK, TTFTS: Some(0.01 * float64(i))})
				}
				rec := b.NewRecordBatch()
				if err := fw.Write(rec); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			b.Release()
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if !sink.closed {
			t.Fatal("the sink was not closed")
		}
		return sink.Bytes()
	}
	async, sync := write(true), write(false)
	if !bytes.Equal(async, sync) {
		t.Fatalf("the goroutine's file (%d bytes) differs from a synchronous writer's (%d bytes)", len(async), len(sync))
	}
	r, err := file.NewParquetReader(bytes.NewReader(async))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.NumRows(); got != 500 {
		t.Fatalf("file holds %d rows, want 500", got)
	}
}

// TestBatchWriterFailure: a sink that fails mid-file gives an error naming
// the table from a later write or from close, the batches after the failure
// are released, and close still closes the file. (pqarrow leaves the
// buffers of the failed row group to the garbage collector, so the
// allocator is not checked here.)
func TestBatchWriterFailure(t *testing.T) {
	for _, limit := range []int{4, 2000, 20000} {
		mem := memory.NewGoAllocator()
		sink := &failSink{limit: limit}
		props, aprops := writerProps(mem, 100, requestsSchema)
		fw, err := pqarrow.NewFileWriter(requestsSchema, sink, props, aprops)
		if err != nil {
			t.Fatal(err)
		}
		bw := newBatchWriter(TableRequests, fw, sink)
		werr := requestBatches(t, mem, bw, 20, 100)
		cerr := bw.close()
		if cerr == nil {
			t.Fatalf("limit %d: close after a failed write returned nil", limit)
		}
		for _, err := range []error{werr, cerr} {
			if err == nil {
				continue
			}
			if !strings.HasPrefix(err.Error(), "writing requests: ") && !strings.HasPrefix(err.Error(), "closing requests: ") {
				t.Errorf("limit %d: error %q does not name the table", limit, err)
			}
			if !errors.Is(err, errSinkFull) {
				t.Errorf("limit %d: error %q does not wrap the sink's", limit, err)
			}
		}
		if !sink.closed {
			t.Errorf("limit %d: the sink was not closed", limit)
		}
	}
}
