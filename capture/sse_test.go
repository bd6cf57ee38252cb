package capture

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// events reads every event of r.
func events(r io.Reader) ([]string, error) {
	er := NewEventReader(r)
	var out []string
	for {
		d, _, err := er.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
}

func TestEventReader(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"openai", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`, "[DONE]"}},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", []string{"x", "y"}},
		{"cr only", "data: x\r\rdata: y\r\r", []string{"x", "y"}},
		{"no space after colon", "data:x\n\n", []string{"x"}},
		{"two space keeps one", "data:  x\n\n", []string{" x"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and fields", ": keep-alive\nevent: message\nid: 3\nretry: 10\ndata: x\n\n", []string{"x"}},
		{"blank lines between", "\n\n\ndata: x\n\n\n\n", []string{"x"}},
		{"event without data", "event: ping\n\ndata: x\n\n", []string{"x"}},
		{"unterminated at eof", "data: x\n\ndata: y", []string{"x", "y"}},
		{"unterminated with newline", "data: x\n", []string{"x"}},
		{"empty data", "data:\n\n", []string{""}},
		{"field without colon", "data\n\n", []string{""}},
		{"empty stream", "", nil},
	}
	for _, c := range cases {
		for _, split := range []struct {
			name string
			r    func(string) io.Reader
		}{
			{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
			{"bytewise", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
			{"halves", func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) }},
		} {
			got, err := events(split.r(c.in))
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, split.name, err)
				continue
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("%s/%s: got %q, want %q", c.name, split.name, got, c.want)
			}
		}
	}
}

// stampReader returns one piece per Read and counts the reads.
type stampReader struct {
	pieces []string
}

func (s *stampReader) Read(p []byte) (int, error) {
	if len(s.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.pieces[0])
	s.pieces = s.pieces[1:]
	return n, nil
}

func TestEventReaderStamps(t *testing.T) {
	// Each event is stamped with the read that completed it: events that
	// arrived together share a stamp, and an event split over two reads
	// gets the second's.
	src := &stampReader{pieces: []string{"data: a\n\ndata: b\n\ndata: c", "\n\n", "data: d\n\n"}}
	er := NewEventReader(src)
	clock := time.Unix(0, 0)
	er.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	var stamps []int64
	for {
		_, at, err := er.Next()
		if err != nil {
			break
		}
		stamps = append(stamps, at.Unix())
	}
	if want := []int64{1, 1, 2, 3}; !equalInts(stamps, want) {
		t.Errorf("stamps %v, want %v", stamps, want)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEventReaderErrors(t *testing.T) {
	boom := errors.New("connection reset by peer")
	er := NewEventReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	if d, _, err := er.Next(); err != nil || string(d) != "a" {
		t.Fatalf("first event %q %v", d, err)
	}
	if _, _, err := er.Next(); !errors.Is(err, boom) {
		t.Errorf("a broken stream must not yield its partial event: %v", err)
	}
	huge := "data: " + strings.Repeat("x", MaxEventSize+1) + "\n\n"
	if _, err := events(strings.NewReader(huge)); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("oversized event: %v", err)
	}
}

// FuzzEventReader checks that the parser never panics and that how the
// bytes are split into reads never changes the events.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{"data: {\"choices\":[]}\n\n", "data: a\r\ndata: b\r\n\r\n", ": c\nevent: x\n\n", "data: x\r", "data:\n\ndata"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err1 := events(bytes.NewReader(in))
		split, err2 := events(iotest.OneByteReader(bytes.NewReader(in)))
		if (err1 == nil) != (err2 == nil) || strings.Join(whole, "\x00") != strings.Join(split, "\x00") || len(whole) != len(split) {
			t.Fatalf("split changes events: %q (%v) vs %q (%v)", whole, err1, split, err2)
		}
		// Every event is some data lines' values: it never holds a
		// carriage return, which only ends lines.
		for _, e := range whole {
			if strings.Contains(e, "\r") {
				t.Fatalf("event %q holds a CR", e)
			}
		}
	})
}
