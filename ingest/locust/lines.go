package locust

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sort"
)

// A lineFeeder hands encoding/csv one physical line per Read, with its
// carriage returns removed (Locust writes CRLF, and Windows tools add a
// second CR), and watches the quotes, so that one bad quote costs one
// rejected row instead of every row after it (issue 15: an unterminated
// quote swallowed 8 rows of 9):
//
//   - where no field may span lines (stats, history), a line with an odd
//     number of quotes is not fed: it is set aside as a bad line, to be
//     rejected, and the next line is read on its own;
//   - where a quoted field may span lines (failures, exceptions carry
//     tracebacks), a quote left open at the end of the file stops the
//     reader with errRunaway; the caller rejects the record it opened
//     and reads again from the line after the one that opened it.
//
// Python's csv writer doubles every quote inside a quoted field, so a
// well-formed line of a single-line record always holds an even number.
type lineFeeder struct {
	br        *bufio.Reader
	multiline bool
	base      int   // physical lines before the first one read here
	line      int   // physical lines read here
	off       int64 // input offset of the next line
	start     int64 // input offset of the first line read here
	pending   []byte
	long      []byte

	fed  int   // lines handed to csv
	skip []int // for each line set aside, the number of lines fed before it
	bad  []badLine

	open     bool  // a quoted field is open at the end of the last line fed
	openLine int   // the physical line that opened it
	openNext int64 // the offset of the line after it
}

type badLine struct {
	line int
	text string
}

// errRunaway reports a quote opened and never closed.
var errRunaway = errors.New("a quoted field is never closed")

func newFeeder(r io.Reader, multiline bool, baseLine int, off int64) *lineFeeder {
	return &lineFeeder{br: bufio.NewReaderSize(r, 64<<10), multiline: multiline, base: baseLine, off: off, start: off}
}

func (f *lineFeeder) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		b, err := f.next()
		if err != nil {
			return 0, err
		}
		f.pending = b
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next returns the next line to feed.
func (f *lineFeeder) next() ([]byte, error) {
	for {
		raw, err := f.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			f.long = append(f.long[:0], raw...)
			for err == bufio.ErrBufferFull {
				raw, err = f.br.ReadSlice('\n')
				f.long = append(f.long, raw...)
			}
			raw = f.long
		}
		if len(raw) == 0 {
			if err == io.EOF && f.open {
				return nil, errRunaway
			}
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		f.line++
		f.off += int64(len(raw))
		line := bytes.ReplaceAll(raw, []byte{'\r'}, nil)
		odd := bytes.Count(line, []byte{'"'})%2 == 1
		switch {
		case odd && !f.multiline:
			text := string(bytes.TrimRight(line, "\n"))
			if len(text) > 80 {
				text = text[:80] + "..."
			}
			f.bad = append(f.bad, badLine{f.base + f.line, text})
			f.skip = append(f.skip, f.fed)
			continue
		case odd && !f.open:
			f.open, f.openLine, f.openNext = true, f.base+f.line, f.off
		case odd:
			f.open = false
		}
		f.fed++
		return line, nil
	}
}

// physical maps a line number of the csv reader (lines fed, from 1) to
// the file's.
func (f *lineFeeder) physical(csvLine int) int {
	skipped := sort.SearchInts(f.skip, csvLine) // set aside before that line was fed
	return f.base + csvLine + skipped
}
