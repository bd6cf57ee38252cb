package schemas

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// A batchWriter writes one streamed table's record batches to Parquet on
// its own goroutine, so that encoding and compressing a batch (about a
// fifth of a 1M-request ingest) overlaps the reader building the next
// one instead of stopping it. Batches are written in the order they are
// sent, so the file is the one a synchronous writer makes. One batch
// waits while another is written: memory grows by at most two batches.
//
// A failed write is returned by the next write or by close; later
// batches are released unwritten.
type batchWriter struct {
	table   string
	fw      *pqarrow.FileWriter
	file    io.Closer // fw's sink
	batches chan arrow.RecordBatch
	done    chan struct{}
	failed  atomic.Bool
	err     error // set before failed, read after it (or after done)
}

func newBatchWriter(table string, fw *pqarrow.FileWriter, file io.Closer) *batchWriter {
	b := &batchWriter{table: table, fw: fw, file: file, batches: make(chan arrow.RecordBatch), done: make(chan struct{})}
	go b.loop()
	return b
}

func (b *batchWriter) loop() {
	defer close(b.done)
	for rec := range b.batches {
		if !b.failed.Load() {
			if err := b.fw.Write(rec); err != nil {
				b.err = fmt.Errorf("writing %s: %w", b.table, err)
				b.failed.Store(true)
			}
		}
		rec.Release()
	}
}

// write hands rec (whose reference passes to the writer) to the
// goroutine.
func (b *batchWriter) write(rec arrow.RecordBatch) error {
	if b.failed.Load() {
		rec.Release()
		return b.err
	}
	b.batches <- rec
	return nil
}

// close waits for the batches sent and closes the Parquet file; it
// returns the first error. It must be called once.
func (b *batchWriter) close() error {
	close(b.batches)
	<-b.done
	cerr := closeParquet(b.fw, b.file)
	if b.err != nil {
		return b.err
	}
	if cerr != nil {
		return fmt.Errorf("closing %s: %w", b.table, cerr)
	}
	return nil
}
