package ingest

import (
	"errors"
	"io"
	"os"
)

// Head returns the input's first HeadSize bytes (fewer for a shorter
// input), for a format that classifies a file by content before reading
// it.
func Head(in *Input) ([]byte, error) {
	rc, err := in.OpenAt(0)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := make([]byte, HeadSize)
	n := 0
	for n < len(buf) {
		m, err := rc.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	return buf[:n], nil
}

// FileInput makes an Input of a plain file inside a directory a DirFormat
// reads: hashed once, reopened at any offset. An empty file is an *Error.
func FileInput(path string) (*Input, error) {
	// Hashed here, before the format reads it: a directory format's files
	// are not the driver's, so a hash failing on the side would have
	// nobody to report it.
	d := hashFile(path)
	d.wait()
	if d.err != nil {
		return nil, &Error{File: path, Err: unwrapPathError(d.err)}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Err: unwrapPathError(err)}
	}
	n := fi.Size()
	if n == 0 {
		return nil, &Error{File: path, Err: errors.New("empty file")}
	}
	return NewInput(path, n, d.sum, func(off int64) (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return sectionCloser{io.NewSectionReader(f, off, n-off), f}, nil
	}), nil
}

// FileHead returns the first HeadSize bytes of a file, or nil.
func FileHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, HeadSize)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}
