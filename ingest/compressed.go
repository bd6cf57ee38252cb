package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// DefaultMaxDecompressed is the default limit on the decompressed size of
// one .gz or .zst input (see Options.MaxDecompressed).
const DefaultMaxDecompressed = 16 << 30

// ErrTooLarge is wrapped by the error of an input that decompresses beyond
// the limit: a decompression bomb, or a limit set too low.
var ErrTooLarge = errors.New("decompressed input exceeds the limit")

// compression is a recognised compressed encoding.
type compression int

const (
	plain compression = iota
	gzipped
	zstded
)

func (c compression) String() string {
	return [...]string{"none", "gzip", "zstd"}[c]
}

// sniff recognises gzip and zstd by their magic numbers.
func sniff(head []byte) compression {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return gzipped
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return zstded
	}
	return plain
}

// decompressor opens a decompressing reader over the file at path.
func decompressor(path string, c compression, limit int64) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader
	var closeDec func()
	switch c {
	case gzipped:
		g, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r, closeDec = g, func() { g.Close() }
	case zstded:
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("zstd: %w", err)
		}
		r, closeDec = z, z.Close
	default:
		return f, nil
	}
	return &limitedReader{r: r, left: limit, limit: limit, close: func() error { closeDec(); return f.Close() }}, nil
}

// limitedReader fails (rather than truncates) past its limit.
type limitedReader struct {
	r           io.Reader
	left, limit int64
	close       func() error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Probe for one more byte: an input of exactly the limit is fine.
		var b [1]byte
		if n, _ := l.r.Read(b[:]); n > 0 {
			return 0, fmt.Errorf("%w of %d bytes (raise it with --max-decompressed)", ErrTooLarge, l.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedReader) Close() error { return l.close() }

// spilled materialises a compressed input once in a temporary file, for
// formats that read it at several offsets.
type spilled struct {
	once sync.Once
	f    *os.File
	size int64
	err  error
}

func (s *spilled) open(path string, c compression, limit int64) (*os.File, int64, error) {
	s.once.Do(func() {
		rc, err := decompressor(path, c, limit)
		if err != nil {
			s.err = err
			return
		}
		defer rc.Close()
		f, err := os.CreateTemp("", "verdict-input-*")
		if err != nil {
			s.err = err
			return
		}
		os.Remove(f.Name()) // unlinked at once; the descriptor keeps it
		n, err := io.CopyBuffer(f, rc, make([]byte, 1<<20))
		if err != nil {
			f.Close()
			s.err = err
			return
		}
		s.f, s.size = f, n
	})
	return s.f, s.size, s.err
}

func (s *spilled) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// nopCloser closes nothing: section readers over the shared spill file.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }
