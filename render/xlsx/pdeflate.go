package xlsx

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// parallelDeflate compresses a stream in independent blocks on several
// goroutines and writes them in order: one valid DEFLATE stream (RFC
// 1951), since each block but the last ends with a sync flush (an empty
// stored block, which leaves the output byte-aligned and not final) and
// the last with the final block. Each block starts without the previous
// one's dictionary, which costs a little ratio (under 1% at 1 MiB
// blocks); the zip writer computes the CRC and sizes over the
// uncompressed bytes as ever. pgzip does the same for gzip members. The
// Requests sheet of a 1M-request workbook is about 0.5 GB of XML, so its
// compression was 2 s of one core at the end of the report.
type parallelDeflate struct {
	w     io.Writer
	level int
	buf   []byte
	// pending holds the blocks in flight, in order; each delivers its
	// compressed bytes on its channel.
	pending []chan []byte
	sem     chan struct{}
	err     error
	pool    *sync.Pool
}

// pdeflateBlock is the uncompressed size of one block.
const pdeflateBlock = 1 << 20

func newParallelDeflate(w io.Writer, level int) *parallelDeflate {
	workers := max(1, runtime.GOMAXPROCS(0))
	return &parallelDeflate{w: w, level: level, buf: make([]byte, 0, pdeflateBlock), sem: make(chan struct{}, workers),
		pool: &sync.Pool{New: func() any { fw, _ := flate.NewWriter(io.Discard, level); return fw }}}
}

func (p *parallelDeflate) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if p.err != nil {
			return n, p.err
		}
		k := min(len(b), pdeflateBlock-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b, n = b[k:], n+k
		if len(p.buf) == pdeflateBlock {
			p.dispatch(false)
		}
	}
	return n, p.err
}

// dispatch compresses the buffered block on a worker; at most as many
// blocks as workers are in flight (plus the one being written out), so
// memory stays a few MiB.
func (p *parallelDeflate) dispatch(final bool) {
	block := p.buf
	p.buf = make([]byte, 0, pdeflateBlock)
	out := make(chan []byte, 1)
	p.pending = append(p.pending, out)
	p.sem <- struct{}{}
	go func() {
		defer func() { <-p.sem }()
		var dst bytes.Buffer
		dst.Grow(len(block)/4 + 64)
		fw := p.pool.Get().(*flate.Writer)
		fw.Reset(&dst)
		fw.Write(block) // writes into a bytes.Buffer do not fail
		if final {
			fw.Close()
		} else {
			fw.Flush()
		}
		p.pool.Put(fw)
		out <- dst.Bytes()
	}()
	// Write out the blocks that are done, in order, without waiting
	// while the workers are busy with later ones.
	for len(p.pending) > 0 {
		select {
		case c := <-p.pending[0]:
			p.put(c)
			p.pending = p.pending[1:]
			continue
		default:
		}
		if len(p.pending) < cap(p.sem)+1 {
			return
		}
		p.put(<-p.pending[0])
		p.pending = p.pending[1:]
	}
}

func (p *parallelDeflate) put(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}

// Close compresses what is buffered as the final block and writes every
// block out.
func (p *parallelDeflate) Close() error {
	if p.err != nil {
		return p.err
	}
	p.dispatch(true)
	for _, c := range p.pending {
		p.put(<-c)
	}
	p.pending = nil
	return p.err
}
