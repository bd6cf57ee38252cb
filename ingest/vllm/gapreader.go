package vllm

import (
	"fmt"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// gapReader parses the itls array, the largest of the per-request arrays
// (16 numbers a request against one in each other), on its own goroutine,
// ahead of the rows: on a 1M-request file its numbers were a third of the
// ingest's time on one core. It hands the elements over in batches, in
// order, with the same tokens, values, bad elements and errors the cursor
// gives when read in line, so that the rows, rejections and bundle are
// the serial reader's (TestGapReaderMatchesCursor).
type gapReader struct {
	c    *cursor
	n    int // elements to read
	out  chan *gapBatch
	free chan *gapBatch
	done chan struct{}

	cur    *gapBatch
	k      int
	closed bool
}

// gapBatch holds consecutive elements; each item's values are
// vals[off:end].
type gapBatch struct {
	items []gapItem
	vals  []float64
}

type gapItem struct {
	tok      jsonscan.Token // the element's first token, Raw cleared
	off, end int
	bad      *jsonscan.Token
	err      error
}

// gapBatchRows is the elements of a batch; gapBatchesAhead how many
// batches the parser may be ahead of the rows.
const (
	gapBatchRows    = 4096
	gapBatchesAhead = 2
)

// gapReadAhead turns the reader on (tests compare with it off).
var gapReadAhead = true

func startGapReader(c *cursor, n int) *gapReader {
	g := &gapReader{c: c, n: n, out: make(chan *gapBatch, gapBatchesAhead), free: make(chan *gapBatch, gapBatchesAhead+2),
		done: make(chan struct{})}
	go g.run()
	return g
}

func (g *gapReader) run() {
	defer close(g.out)
	for i := 0; i < g.n; {
		var b *gapBatch
		select {
		case b = <-g.free:
			b.items, b.vals = b.items[:0], b.vals[:0]
		default:
			b = &gapBatch{}
		}
		for ; i < g.n && len(b.items) < gapBatchRows; i++ {
			tok, err := g.c.next()
			if err != nil {
				b.items = append(b.items, gapItem{err: err})
				i = g.n
				break
			}
			xs, bad, err := g.c.floats(tok)
			if bad != nil {
				t := *bad
				t.Raw = nil // the scanner's buffer moves on
				bad = &t
			}
			tok.Raw = nil
			off := len(b.vals)
			b.vals = append(b.vals, xs...)
			b.items = append(b.items, gapItem{tok: tok, off: off, end: len(b.vals), bad: bad, err: err})
			if err != nil {
				i = g.n
				break
			}
		}
		select {
		case g.out <- b:
		case <-g.done:
			return
		}
	}
}

// next returns the next element as cursor.next and cursor.floats would:
// its first token, its numbers (valid until the next batch is taken), a
// bad element and an error.
func (g *gapReader) next() (jsonscan.Token, []float64, *jsonscan.Token, error) {
	if g.cur == nil || g.k == len(g.cur.items) {
		if g.cur != nil {
			select {
			case g.free <- g.cur:
			default:
			}
		}
		var ok bool
		if g.cur, ok = <-g.out; !ok {
			g.cur = nil
			return jsonscan.Token{}, nil, nil, &ingest.Error{File: g.c.path, Field: g.c.field,
				Err: fmt.Errorf("array ended early (file changed while it was read?)")}
		}
		g.k = 0
	}
	it := g.cur.items[g.k]
	g.k++
	return it.tok, g.cur.vals[it.off:it.end], it.bad, it.err
}

// wait lets the parser finish (it stops after its n elements or an
// error), after which the cursor is the caller's again.
func (g *gapReader) wait() {
	for range g.out {
	}
}

// stop ends the parser early and waits for it.
func (g *gapReader) stop() {
	if !g.closed {
		g.closed = true
		close(g.done)
		g.wait()
	}
}
