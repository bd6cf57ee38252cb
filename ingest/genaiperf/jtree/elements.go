package jtree

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Elements reads a large array of records (inference-perf's per-request
// file) on every core and hands the records over in input order.
//
// The scanner's goroutine cuts the array into batches: it reads each
// separator and scalar itself, so those errors are the serial reader's,
// and passes over each object or array with SkipValue, which tracks only
// strings and nesting, keeping its text. Workers build the trees of a
// batch's texts, each with its own scanner started at the element's
// position, so that every node keeps its true line and column. The
// caller's goroutine waits for each batch in turn and calls each for its
// elements, so each sees the same calls in the same order as from the
// serial loop, whatever the number of workers (TestElementsSameAsSerial).
//
// An element whose text does not read as exactly one value (a syntax
// error inside it, or a text cut short) is read again from the input by
// a scanner in the state the serial one had there (NewInArrays), which
// gives the serial reader's error, position and wording. At most
// 2n+2 batches of about 1 MiB are in flight (n workers).

// elementWorkers is the number of tree-building goroutines; 0 is
// GOMAXPROCS, and 1 reads serially. Tests set it.
var elementWorkers = 0

// batchBytes is the element text a batch holds at least before it is
// handed on (a longer element makes its batch longer). Tests lower it.
var batchBytes = 1 << 20

// An element is one element of a batch: a container's text in the
// batch's data, or a scalar the scanner's goroutine read itself.
type element struct {
	pos        jsonscan.Pos
	start, end int
	node       *Node // a scalar's
	reread     bool  // SkipValue failed in it: read it again
}

type batch struct {
	data  []byte
	elems []element
	nodes []*Node
	bad   int   // the first element whose text did not read, or -1
	err   error // what ends the array after elems (nil: more batches, or the end when last)
	last  bool
	ready chan struct{}
}

// Elements reads the elements of the array whose '[' sc has just
// returned and calls each with the element's index and tree, in order,
// until the array's ']' (after which sc goes on) or an error, which is
// an *ingest.Error naming path and the position, or each's. openAt opens
// the input at an offset of sc's positions (ingest.Input.OpenAt), for an
// element read again.
func Elements(ctx context.Context, path string, sc *jsonscan.Scanner, openAt func(off int64) (io.ReadCloser, error), each func(i int64, n *Node) error) error {
	workers := elementWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 {
		return serialElements(ctx, path, sc, each)
	}
	p := &pipeline{path: path, sc: sc, depth: sc.Depth(),
		work:  make(chan *batch, 2*workers+2),
		order: make(chan *batch, 2*workers+2),
		free:  make(chan *batch, 2*workers+2),
		stop:  make(chan struct{}),
	}
	for range 2*workers + 2 {
		p.free <- &batch{ready: make(chan struct{}, 1)}
	}
	var wg sync.WaitGroup
	wg.Go(p.split)
	for range workers {
		wg.Go(p.build)
	}
	err := p.commit(ctx, openAt, each)
	close(p.stop)
	wg.Wait()
	return err
}

// serialElements is Elements on one goroutine.
func serialElements(ctx context.Context, path string, sc *jsonscan.Scanner, each func(i int64, n *Node) error) error {
	for i := int64(0); ; i++ {
		tok, err := sc.Next()
		if err != nil {
			return SyntaxErr(path, err)
		}
		if tok.Kind == jsonscan.EndArray {
			return nil
		}
		if i&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n, err := Read(path, sc, tok)
		if err != nil {
			return err
		}
		if err := each(i, n); err != nil {
			return err
		}
	}
}

type pipeline struct {
	path  string
	sc    *jsonscan.Scanner
	depth int // containers open at the array's elements, the array included

	work, order, free chan *batch
	stop              chan struct{}
}

// split cuts the array into batches, on the scanner's goroutine.
func (p *pipeline) split() {
	defer close(p.work)
	defer close(p.order)
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		p.fill(b)
		select {
		case p.order <- b:
		case <-p.stop:
			return
		}
		p.work <- b // buffered as order is: never blocks once order took b
		if b.last {
			return
		}
	}
}

// fill reads elements into b until it holds batchBytes of text, the
// array ends or reading fails.
func (p *pipeline) fill(b *batch) {
	b.data, b.elems, b.nodes, b.bad, b.err, b.last = b.data[:0], b.elems[:0], nil, -1, nil, false
	for len(b.data) < batchBytes {
		tok, err := p.sc.Next()
		if err != nil {
			b.err, b.last = SyntaxErr(p.path, err), true
			return
		}
		switch tok.Kind {
		case jsonscan.EndArray:
			b.last = true
			return
		case jsonscan.BeginObject, jsonscan.BeginArray:
			start := len(b.data)
			if b.data, err = p.sc.SkipValue(b.data); err != nil {
				if _, syntax := err.(*jsonscan.SyntaxError); !syntax {
					b.err, b.last = SyntaxErr(p.path, err), true // the input's own read failed
					return
				}
				b.elems = append(b.elems, element{pos: tok.Pos, reread: true})
				b.last = true
				return
			}
			b.elems = append(b.elems, element{pos: tok.Pos, start: start, end: len(b.data)})
		default:
			n, err := Read(p.path, p.sc, tok)
			if err != nil {
				b.err, b.last = err, true
				return
			}
			b.elems = append(b.elems, element{pos: tok.Pos, node: n})
		}
	}
}

// build reads the trees of batches' texts.
func (p *pipeline) build() {
	sc := jsonscan.New(nil)
	r := bytes.NewReader(nil)
	for b := range p.work {
		b.nodes = make([]*Node, len(b.elems))
		for k, e := range b.elems {
			if e.node != nil {
				b.nodes[k] = e.node
				continue
			}
			if e.reread {
				b.bad = k
				break
			}
			r.Reset(b.data[e.start:e.end])
			sc.Reset(r, e.pos)
			n, ok := readWhole(p.path, sc)
			if !ok {
				b.bad = k
				break
			}
			b.nodes[k] = n
		}
		b.ready <- struct{}{}
	}
}

// readWhole reads sc's input as exactly one value.
func readWhole(path string, sc *jsonscan.Scanner) (*Node, bool) {
	tok, err := sc.Next()
	if err != nil {
		return nil, false
	}
	n, err := Read(path, sc, tok)
	if err != nil {
		return nil, false
	}
	if _, err := sc.Next(); err != io.EOF {
		return nil, false
	}
	return n, true
}

// commit hands the batches' elements to each in order.
func (p *pipeline) commit(ctx context.Context, openAt func(int64) (io.ReadCloser, error), each func(int64, *Node) error) error {
	i := int64(0)
	for b := range p.order {
		<-b.ready
		for k, n := range b.nodes {
			if i&0xfff == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if k == b.bad {
				return p.reread(b.elems[k].pos, openAt)
			}
			if err := each(i, n); err != nil {
				return err
			}
			i++
		}
		if b.err != nil || b.last {
			return b.err
		}
		p.free <- b
	}
	return errors.New("jtree: the array's reader stopped early")
}

// reread reads the element at pos again as the serial reader would have,
// for its error.
func (p *pipeline) reread(pos jsonscan.Pos, openAt func(int64) (io.ReadCloser, error)) error {
	rc, err := openAt(pos.Off)
	if err != nil {
		return &ingest.Error{File: p.path, Err: err}
	}
	defer rc.Close()
	sc := jsonscan.NewInArrays(rc, pos, p.depth)
	tok, err := sc.Next()
	if err != nil {
		return SyntaxErr(p.path, err)
	}
	if _, err := Read(p.path, sc, tok); err != nil {
		return err
	}
	return &ingest.Error{File: p.path, Line: pos.Line, Column: pos.Col,
		Err: errors.New("the parallel reader refused an element that reads alone (a bug in verdict; please report it)")}
}
