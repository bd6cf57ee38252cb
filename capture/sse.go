package capture

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// MaxEventSize bounds one Server-Sent Event (all its data lines together).
const MaxEventSize = 16 << 20

// ErrEventTooLarge is returned for an event or line longer than
// MaxEventSize.
var ErrEventTooLarge = errors.New("capture: SSE event larger than 16 MiB")

// An EventReader reads Server-Sent Events (the text/event-stream format)
// and stamps each event with the time the read that completed it returned.
// Every complete event in a buffer is handed out before the next read, so
// an event's stamp is the arrival time of its last byte as the client saw
// it; events that arrived in one read share a stamp, as they should.
//
// Only data matters for the OpenAI streaming format: "data:" lines are
// joined with "\n", comments (":") and the event, id and retry fields are
// skipped, and a blank line ends an event. Lines may end in "\n", "\r\n"
// or "\r". An event still open at the end of the stream is returned (a
// lenient reading of the standard, which drops it).
//
// The data returned by Next is valid until the next call.
type EventReader struct {
	r       io.Reader
	buf     []byte // read buffer; buf[off:end] is unconsumed
	off     int
	end     int
	stamp   time.Time
	data    []byte
	hasData bool
	skipLF  bool // the previous line ended in \r: ignore a leading \n
	err     error
	now     func() time.Time
	// Reads counts the reads that returned data (for stall accounting).
	Reads int
	// OnRead, when set, is called after every read that returned data.
	OnRead func()
}

// NewEventReader returns a reader over r.
func NewEventReader(r io.Reader) *EventReader {
	return &EventReader{r: r, buf: make([]byte, 4<<10), now: time.Now}
}

// Reset makes e read r from the start, keeping its buffers.
func (e *EventReader) Reset(r io.Reader) {
	*e = EventReader{r: r, buf: e.buf[:cap(e.buf)], data: e.data[:0], now: time.Now}
	if len(e.buf) > 64<<10 {
		e.buf = make([]byte, 4<<10) // do not keep a huge buffer
	}
}

// Next returns the data of the next event and the time it arrived. It
// returns io.EOF after the last event; other errors are the underlying
// reader's (or ErrEventTooLarge).
func (e *EventReader) Next() (data []byte, at time.Time, err error) {
	for {
		// Consume complete lines.
		for e.off < e.end {
			line, n, ok := e.line()
			if !ok {
				break
			}
			e.off += n
			if len(line) == 0 {
				if e.hasData {
					e.hasData = false
					return e.data, e.stamp, nil
				}
				continue
			}
			e.field(line)
			if len(e.data) > MaxEventSize {
				return nil, time.Time{}, ErrEventTooLarge
			}
		}
		if e.err != nil {
			if e.hasData && errors.Is(e.err, io.EOF) {
				e.hasData = false
				return e.data, e.stamp, nil
			}
			return nil, time.Time{}, e.err
		}
		e.fill()
	}
}

// line returns the next complete line at buf[off:end] without its end and
// the bytes it spans; ok is false when the line is incomplete. At EOF a
// final unterminated line counts as complete.
func (e *EventReader) line() (line []byte, n int, ok bool) {
	b := e.buf[e.off:e.end]
	if e.skipLF {
		if b[0] == '\n' {
			e.off++
			b = b[1:]
		}
		e.skipLF = false
		if len(b) == 0 {
			return nil, 0, false
		}
	}
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		if e.err != nil {
			return b, len(b), true
		}
		return nil, 0, false
	}
	if b[i] == '\r' {
		if i+1 < len(b) {
			if b[i+1] == '\n' {
				return b[:i], i + 2, true
			}
		} else {
			e.skipLF = true
		}
	}
	return b[:i], i + 1, true
}

// field applies one non-blank line.
func (e *EventReader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if string(name) != "data" {
		return
	}
	if e.hasData {
		e.data = append(e.data, '\n')
	} else {
		e.data = e.data[:0]
		e.hasData = true
	}
	e.data = append(e.data, value...)
}

// fill reads more input, keeping the unconsumed tail.
func (e *EventReader) fill() {
	if e.off > 0 {
		e.end = copy(e.buf, e.buf[e.off:e.end])
		e.off = 0
	}
	if e.end == len(e.buf) {
		if len(e.buf) >= MaxEventSize {
			e.err = ErrEventTooLarge
			return
		}
		nb := make([]byte, 2*len(e.buf))
		copy(nb, e.buf[:e.end])
		e.buf = nb
	}
	n, err := e.r.Read(e.buf[e.end:])
	if n > 0 {
		e.stamp = e.now()
		e.end += n
		e.Reads++
		if e.OnRead != nil {
			e.OnRead()
		}
	}
	if err != nil {
		e.err = err
	}
}
