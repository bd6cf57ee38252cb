package aiperf

import (
	"bytes"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/verdict-llm/verdict/ingest"
)

// Records are parsed in parallel and committed in input order: a reader
// cuts the input into blocks of whole lines, workers parse blocks into
// records (each with its own lineParser), and recordReader.read commits
// each block's records after those of the block before. Every line keeps
// its number and offset, and the sink sees the same calls in the same
// order as from one goroutine, so the bundle is byte-identical whatever
// the number of workers (TestWorkersSameBundle). At most maxBlocks blocks
// are in flight, so memory does not grow with the file.

// recordWorkers is the number of parsing goroutines; 0 is GOMAXPROCS.
// Tests set it.
var recordWorkers = 0

// blockSize is the input a block holds at least (a longer line makes its
// block longer).
const blockSize = 1 << 20

// block is a run of whole lines of the input and, once parsed, their
// records.
type block struct {
	data []byte
	line int   // the number of the line before data's first
	off  int64 // data's offset in the input

	recs  []record
	gaps  []float64 // recs' gaps point into it
	lay   layout
	fast  int64
	err   error // what ends the input after data's lines: a read or parse failure
	ready chan struct{}
}

func newBlock() *block { return &block{ready: make(chan struct{}, 1)} }

// blockReader cuts the input into blocks.
type blockReader struct {
	path  string
	r     io.Reader
	carry []byte // the bytes after the last newline read
	line  int    // lines before the next block
	off   int64
	done  bool // the input is read to its end or to a failure
}

// fill reads the next block into blk, reusing its buffers; false when the
// input has no more.
func (br *blockReader) fill(blk *block) bool {
	if br.done {
		return false
	}
	data := append(blk.data[:0], br.carry...)
	var rerr error
	for newline := false; !newline || len(data) < blockSize; {
		if cap(data)-len(data) < blockSize/2 {
			data = slices.Grow(data, blockSize)
		}
		n, err := br.r.Read(data[len(data):cap(data)])
		newline = newline || bytes.IndexByte(data[len(data):len(data)+n], '\n') >= 0
		data = data[:len(data)+n]
		if err != nil {
			br.done = true
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	cut := len(data) // at the end of input, the last line needs no newline
	if !br.done || rerr != nil {
		cut = bytes.LastIndexByte(data, '\n') + 1 // a failed read's partial line is not read
	}
	br.carry = append(br.carry[:0], data[cut:]...)
	blk.data, blk.line, blk.off, blk.err = data[:cut], br.line, br.off, nil
	br.line += bytes.Count(blk.data, []byte("\n"))
	if cut > 0 && data[cut-1] != '\n' {
		br.line++
	}
	br.off += int64(cut)
	if rerr != nil {
		blk.err = &ingest.Error{File: br.path, Line: br.line + 1, Err: rerr}
	}
	return len(blk.data) > 0 || blk.err != nil
}

// blockParser parses blocks; each worker has one.
type blockParser struct{ lp *lineParser }

// parse reads blk's lines into records; blank lines are none.
func (p *blockParser) parse(blk *block) {
	lp := p.lp
	lp.gaps, lp.lay, lp.fastLines = blk.gaps[:0], layout{}, 0
	blk.recs = blk.recs[:0]
	line, off := blk.line, blk.off
	for rest := blk.data; len(rest) > 0; {
		b := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			b = rest[:i+1]
		}
		rest = rest[len(b):]
		line++
		if len(bytes.TrimSpace(b)) > 0 {
			blk.recs = append(blk.recs, record{})
			if err := lp.line(b, line, off, &blk.recs[len(blk.recs)-1]); err != nil {
				blk.recs = blk.recs[:len(blk.recs)-1]
				blk.err = err
				break
			}
		}
		off += int64(len(b))
	}
	blk.gaps, blk.lay, blk.fast = lp.gaps, lp.lay, lp.fastLines
}

// workers is the number of parsing goroutines read uses.
func workers() int {
	if recordWorkers > 0 {
		return recordWorkers
	}
	return runtime.GOMAXPROCS(0)
}

// pipeline runs a blockReader and parsing workers ahead of the caller,
// which takes the parsed blocks in input order from next and gives each
// back with release.
type pipeline struct {
	free  chan *block // blocks not in flight
	work  chan *block // read, to parse
	order chan *block // read, in input order
	quit  chan struct{}
	wg    sync.WaitGroup
}

// maxBlocks bounds the blocks in flight for n workers: each worker's
// block, as many read ahead, and the one being committed.
func maxBlocks(n int) int { return 2*n + 2 }

func startPipeline(br *blockReader, newParser func() *blockParser, n int) *pipeline {
	m := maxBlocks(n)
	p := &pipeline{free: make(chan *block, m), work: make(chan *block, m), order: make(chan *block, m), quit: make(chan struct{})}
	for range m {
		p.free <- newBlock()
	}
	p.wg.Add(1 + n)
	go p.read(br)
	for range n {
		go p.parse(newParser())
	}
	return p
}

// read fills free blocks until the input ends or the caller stops.
func (p *pipeline) read(br *blockReader) {
	defer p.wg.Done()
	defer close(p.order)
	defer close(p.work)
	for {
		var blk *block
		select {
		case blk = <-p.free:
		case <-p.quit:
			return
		}
		if !br.fill(blk) {
			return
		}
		p.order <- blk // never blocks: the channels hold every block
		p.work <- blk
	}
}

func (p *pipeline) parse(bp *blockParser) {
	defer p.wg.Done()
	for blk := range p.work {
		bp.parse(blk)
		blk.ready <- struct{}{}
	}
}

// next returns the next parsed block in input order; nil at the end.
func (p *pipeline) next() *block {
	blk, ok := <-p.order
	if !ok {
		return nil
	}
	<-blk.ready
	return blk
}

func (p *pipeline) release(blk *block) { p.free <- blk }

// stop ends the goroutines (the caller has stopped early, or read all)
// and waits for them.
func (p *pipeline) stop() {
	close(p.quit)
	p.wg.Wait()
}
