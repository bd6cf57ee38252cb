// Package ingest turns benchmark tools' output files into verdict's
// records. It owns the Format interface that each tool's package
// (ingest/vllm, ingest/aiperf, ...) implements, detection of a file's
// format by its content, and the driver that streams every input into a
// bundle while accounting for every row.
//
// The pipeline position is: source files -> ingest/<tool> -> Sink ->
// schemas.BundleWriter. A Format reads one input and reports what it finds
// to a Sink: runs, requests, metric rows, rejected rows (with file, line
// and field) and warnings. Rows are never dropped silently: each input row
// becomes either a record or a rejection, and the manifest's counts are
// kept from exactly those calls.
//
// Errors come in two kinds. A problem with one row (a negative latency, a
// wrong type) is a rejection and ingest goes on. A problem with the file
// (malformed or truncated JSON, an empty file, a directory where a file
// was expected) is an *Error, and no bundle is written.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/verdict-llm/verdict/schemas"
)

// A Format reads one tool's output.
type Format interface {
	// Name is the --format value, e.g. "vllm".
	Name() string
	// Description is one line for help output.
	Description() string
	// Detect returns a confidence in [0, 100] that the input is in this
	// format, from the input's name and its first bytes (up to HeadSize).
	// Detection is by content; the name only breaks ties.
	Detect(name string, head []byte) int
	// Read reads the input and reports to sink. It returns an *Error (or
	// an I/O error) when the file as a whole cannot be read.
	Read(ctx context.Context, in *Input, sink Sink) error
}

// MaxTextBytes caps the text an input puts into a bundle's labels,
// notes, warnings, error texts and run descriptions: a longer value is
// cut and says so ("... [cut: N bytes]"), so that one 100 MB value in a
// result file is never copied into the bundle and every report.
const MaxTextBytes = 4096

// CutText cuts s to MaxTextBytes (at a character boundary) with a note of
// its length.
func CutText(s string) string {
	if len(s) <= MaxTextBytes+64 { // room for a reader's own "[cut: N bytes]"
		return s
	}
	cut := MaxTextBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... [cut: %d bytes]", s[:cut], len(s))
}

// HeadSize is the number of leading bytes Detect sees.
const HeadSize = 64 << 10

// A Sink receives what a Format reads. The pointers passed to it are valid
// only during the call; implementations copy what they keep.
type Sink interface {
	// Run records a run.
	Run(r *schemas.Run) error
	// Request records a request of a run reported earlier or later.
	Request(r *schemas.Request) error
	// Metric records one statistic.
	Metric(m *schemas.Metric) error
	// Sample records one resource (GPU telemetry) sample.
	Sample(s *schemas.Sample) error
	// Reject records an input row that was not ingested.
	Reject(rej schemas.Rejection)
	// Warn records a fact about the input that cost no row.
	Warn(msg string)
	// Describe sets the format and tool version detected for the input.
	Describe(format, tool, toolVersion string)
}

// An Error is a problem with an input file as a whole.
type Error struct {
	File   string
	Line   int
	Column int
	Record string // e.g. "run 2"
	Field  string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Record != "" {
		b.WriteString(e.Record + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// An Input is one file to read.
type Input struct {
	Path string // as given by the user
	Size int64
	// sha is the content's SHA-256 when it was given (NewInput); digest
	// computes it alongside the reading of a file (SHA256 waits for it).
	sha    string
	digest *digest
	// open returns the content from its start; openAt from a byte offset.
	open   func() (io.ReadCloser, error)
	openAt func(off int64) (io.ReadCloser, error)
	track  func(n int64)
	pass   func(what string, total int64) func(n int64)
}

// SHA256 returns the hex SHA-256 of the input's content (of the file as
// stored, before any decompression). For a file given on the command
// line the driver hashes it on its own goroutine while the format reads
// it, so a format should ask for it when it first needs it (a run's ID),
// not before: SHA256 waits for the hash. It is "" if the file could not
// be hashed, which the driver then reports as the file's error.
func (in *Input) SHA256() string {
	if in.digest != nil {
		in.digest.wait()
		return in.digest.sum
	}
	return in.sha
}

// hashErr waits for the input's hash and returns its failure.
func (in *Input) hashErr() error {
	if in.digest == nil {
		return nil
	}
	in.digest.wait()
	return in.digest.err
}

// A digest is a file's SHA-256, computed on its own goroutine from the
// moment the file's reading starts (begin) or somebody asks for it
// (wait), so that only the file being read is hashed: every input is
// prepared before the first is read.
type digest struct {
	path  string
	start sync.Once
	done  chan struct{}
	stop  chan struct{}
	once  sync.Once
	sum   string
	err   error
}

// errHashStopped is the hash of a file whose reading was abandoned.
var errHashStopped = errors.New("hashing stopped")

// hashFile makes the digest of the file at path, not yet started.
func hashFile(path string) *digest {
	return &digest{path: path, done: make(chan struct{}), stop: make(chan struct{})}
}

// begin starts the hash, once.
func (d *digest) begin() {
	d.start.Do(func() {
		go func() {
			defer close(d.done)
			d.sum, d.err = d.hash()
		}()
	})
}

// wait starts the hash if need be and waits for it.
func (d *digest) wait() {
	d.begin()
	<-d.done
}

func (d *digest) hash() (string, error) {
	f, err := os.Open(d.path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		select {
		case <-d.stop:
			return "", errHashStopped
		default:
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// cancel stops a hash nobody will wait for (the file's reading failed).
func (d *digest) cancel() { d.once.Do(func() { close(d.stop) }) }

// Pass starts the progress of a second pass over the input that reads
// total items (what names them, as "requests of run 1"); the function
// returned is called with item counts as they are read and once with -1
// at the end. Without a PassProgress it does nothing.
func (in *Input) Pass(what string, total int64) func(n int64) {
	if in.pass == nil {
		return func(int64) {}
	}
	return in.pass(what, total)
}

// Open returns the input's content from its start. Bytes read through the
// first reader returned count toward progress.
func (in *Input) Open() (io.ReadCloser, error) {
	rc, err := in.open()
	if err != nil || in.track == nil {
		return rc, err
	}
	t := in.track
	in.track = nil
	return &countingReader{rc, t}, nil
}

// OpenAt returns the input's content from byte offset off, for formats
// that read parts of a file in lockstep (see ingest/vllm). For plain files
// it is a cheap positioned read.
func (in *Input) OpenAt(off int64) (io.ReadCloser, error) { return in.openAt(off) }

// NewInput makes an Input from a function that opens the content at a
// byte offset; tests and callers with in-memory or unusual storage use it.
func NewInput(path string, size int64, sha256hex string, openAt func(off int64) (io.ReadCloser, error)) *Input {
	return &Input{Path: path, Size: size, sha: sha256hex,
		open: func() (io.ReadCloser, error) { return openAt(0) }, openAt: openAt}
}

type countingReader struct {
	io.ReadCloser
	add func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if n > 0 {
		c.add(int64(n))
	}
	return n, err
}

// RunID returns a run's ID, derived from its source file's content hash and
// its index within the file, so that ingesting the same file twice gives
// the same IDs.
func RunID(tool, sha256hex string, record int) string {
	h := shortHash(fmt.Sprintf("%s#%d", sha256hex, record))
	return tool + "-" + h
}
