// Package locust reads the CSV files `locust --csv PREFIX` writes:
// PREFIX_stats.csv, PREFIX_stats_history.csv, PREFIX_failures.csv and
// PREFIX_exceptions.csv, with current column names or the quoted
// lower-case ones of Locust before 1.0, and CRLF line ends.
//
// Locust times whole HTTP calls: its response time is the
// http_response_time definition (request sent to whole response
// received, failures included, not streaming-aware), never a TTFT or an
// E2E latency of a streamed LLM response. Milliseconds become seconds.
// Locust's median and percentiles are read off its rounded response-time
// buckets (method locust_buckets); average, min and max are exact.
//
// One test is one run, whatever files of it are given (test.go): the files
// of one PREFIX in one directory are read together as one source. The
// stats' Aggregated row is the test's; each endpoint (method and name) is
// a dimension of the run (Metric.Dimension "endpoint METHOD NAME"), never
// a run of its own (docs/formats/locust.md):
//
//   - stats.csv: request and failure counts, response-time statistics,
//     content size and whole-test request and failure rates, for the
//     test and per endpoint;
//   - stats_history.csv: one observation per row of the current
//     (10-second) request and failure rates and the user count, the
//     test's window; the last row's percentiles are stored when they are
//     cumulative (the default, Aggregated-only history) and no stats file
//     gives the whole test's;
//   - failures.csv: one observation per (method, name, error) with its
//     message;
//   - exceptions.csv: one observation per exception with its message.
//
// The run carries the label locust_prefix (PREFIX).
package locust

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// Format is the Locust ingest format.
type Format struct{}

func (Format) Name() string { return "locust" }

func (Format) Description() string {
	return "Locust --csv files: _stats.csv, _stats_history.csv, _failures.csv, _exceptions.csv"
}

// file kinds
const (
	kindStats      = "locust-stats"
	kindHistory    = "locust-history"
	kindFailures   = "locust-failures"
	kindExceptions = "locust-exceptions"
)

// Canonical column names.
const (
	colType    = "type"
	colName    = "name"
	colReqs    = "requests"
	colFails   = "failures"
	colMedian  = "median"
	colAvg     = "average"
	colMin     = "min"
	colMax     = "max"
	colSize    = "size"
	colRPS     = "rps"
	colFPS     = "fps"
	colTS      = "timestamp"
	colUsers   = "users"
	colError   = "error"
	colOcc     = "occurrences"
	colFirst   = "first seen"
	colLast    = "last seen"
	colCount   = "count"
	colMessage = "message"
	colTrace   = "traceback"
	colNodes   = "nodes"
)

var aliases = map[string]string{
	"type": colType, "method": colType, "name": colName,
	"request count": colReqs, "# requests": colReqs, "total request count": colReqs,
	"failure count": colFails, "# failures": colFails, "total failure count": colFails,
	"median response time": colMedian, "total median response time": colMedian,
	"average response time": colAvg, "total average response time": colAvg,
	"min response time": colMin, "total min response time": colMin,
	"max response time": colMax, "total max response time": colMax,
	"average content size": colSize, "total average content size": colSize,
	"requests/s": colRPS, "failures/s": colFPS, "requests failed/s": colFPS,
	"timestamp": colTS, "user count": colUsers,
	"error": colError, "occurrences": colOcc, "first seen": colFirst, "last seen": colLast,
	"count": colCount, "message": colMessage, "traceback": colTrace, "nodes": colNodes,
}

var rePct = regexp.MustCompile(`^(\d+(?:\.\d+)?)%?$`)

// A header maps canonical names and percentiles to column indexes.
type header struct {
	col   map[string]int
	pcts  []pctCol
	names []string // as written
	old   bool     // Locust < 1.0: "# requests" and friends
}

type pctCol struct {
	p   float64
	idx int
}

func parseHeader(fields []string) header {
	h := header{col: map[string]int{}, names: fields}
	for i, f := range fields {
		n := strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(f), `"`)))
		n = strings.TrimPrefix(n, "\ufeff")
		if strings.HasPrefix(n, "#") {
			h.old = true
		}
		if c, ok := aliases[n]; ok {
			if _, dup := h.col[c]; !dup {
				h.col[c] = i
			}
			continue
		}
		if g := rePct.FindStringSubmatch(n); g != nil {
			p, err := strconv.ParseFloat(g[1], 64)
			if err == nil && p > 0 && p <= 100 {
				h.pcts = append(h.pcts, pctCol{p, i})
			}
		}
	}
	return h
}

func (h header) has(cols ...string) bool {
	for _, c := range cols {
		if _, ok := h.col[c]; !ok {
			return false
		}
	}
	return true
}

// kind classifies a file by its header.
func (h header) kind() string {
	switch {
	case h.has(colTS, colName) && (h.has(colRPS) || h.has(colReqs)):
		return kindHistory
	case h.has(colName, colReqs, colFails) && len(h.pcts) > 0:
		return kindStats
	case h.has(colType, colName, colError, colOcc):
		return kindFailures
	case h.has(colCount, colMessage) && (h.has(colTrace) || h.has(colNodes)):
		return kindExceptions
	}
	return ""
}

// Detect reads the first line as a CSV header.
func (Format) Detect(name string, head []byte) int {
	if headerOf(head).kind() != "" {
		return 90
	}
	return 0
}

// headerOf parses the first line of head as a CSV header; a header of no
// kind when it is not one.
func headerOf(head []byte) header {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimLeft(line, "\ufeff \t")
	if len(line) == 0 || line[0] == '{' || line[0] == '[' || !bytes.Contains(line, []byte(",")) {
		return header{}
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimRight(line, "\r")))
	r.LazyQuotes = true
	fields, err := r.Read()
	if err != nil {
		return header{}
	}
	return parseHeader(fields)
}

// prefix returns PREFIX of PREFIX_stats.csv and the like.
func prefix(path string) string {
	base := filepath.Base(path)
	for _, s := range []string{"_stats_history.csv", "_stats.csv", "_failures.csv", "_exceptions.csv", ".csv"} {
		if strings.HasSuffix(base, s) {
			return strings.TrimSuffix(base, s)
		}
	}
	return base
}

// A table is a CSV file being read.
type table struct {
	path string
	r    *csv.Reader
	f    *lineFeeder
	h    header
}

func newCSV(f *lineFeeder) *csv.Reader {
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return cr
}

func openTable(path string, r io.Reader) (*table, error) {
	f := newFeeder(r, true, 0, 0)
	cr := newCSV(f)
	fields, err := cr.Read()
	if err == io.EOF {
		return nil, &ingest.Error{File: path, Err: errors.New("no header line")}
	}
	if errors.Is(err, errRunaway) {
		return nil, &ingest.Error{File: path, Line: 1, Err: errors.New("malformed CSV: the header opens a quote that is never closed")}
	}
	if err != nil {
		return nil, csvErr(path, err)
	}
	t := &table{path: path, r: cr, f: f, h: parseHeader(append([]string(nil), fields...))}
	return t, nil
}

func csvErr(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ingest.Error{File: path, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("malformed CSV: %w", pe.Err)}
	}
	return &ingest.Error{File: path, Err: err}
}

// Read reads one Locust CSV file: one test, and one run.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	t := newTest(in, sink)
	if err := t.read(ctx, in); err != nil {
		return err
	}
	if err := t.emit(); err != nil {
		return err
	}
	sink.Describe(t.kinds[0], "locust", t.run.ToolVersion)
	return nil
}

// A reader maps one file's rows into its test.
type reader struct {
	in       *ingest.Input
	sink     ingest.Sink
	t        *table
	test     *test
	version  string
	rowTable string      // the table a rejected row counts in
	closers  []io.Closer // inputs reopened by restart
}

// read reads one file of a test.
func (t *test) read(ctx context.Context, in *ingest.Input) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	tb, err := openTable(in.Path, rc)
	if err != nil {
		return err
	}
	rd := &reader{in: in, sink: t.sink, t: tb, test: t, rowTable: schemas.TableMetrics}
	defer func() {
		for _, c := range rd.closers {
			c.Close()
		}
	}()
	rd.version = "Locust 1.0 or later (column names)"
	if tb.h.old {
		rd.version = "Locust before 1.0 (quoted lower-case headers)"
	}
	kind := tb.h.kind()
	// No field of a stats or history row spans lines: each line is read
	// on its own. Failures and exceptions may quote multi-line text.
	tb.f.multiline = kind == kindFailures || kind == kindExceptions
	switch kind {
	case kindStats:
		err = rd.stats(ctx)
	case kindHistory:
		err = rd.history(ctx)
	case kindFailures:
		if tb.h.has(colFirst) {
			rd.version = "Locust 2.44 or later (failures with First/Last Seen)"
		}
		err = rd.failures(ctx)
	case kindExceptions:
		err = rd.exceptions(ctx)
	default:
		return &ingest.Error{File: in.Path, Line: 1, Err: fmt.Errorf("not a Locust CSV file: unknown header %q", strings.Join(tb.h.names, ","))}
	}
	if err != nil {
		return err
	}
	t.kinds = append(t.kinds, kind)
	t.versions = append(t.versions, rd.version)
	return nil
}

// A row is one CSV record with its line.
type row struct {
	fields []string
	line   int
	r      *csv.Reader
	f      *lineFeeder
}

func (rw row) get(h header, c string) (string, int, bool) {
	i, ok := h.col[c]
	if !ok || i >= len(rw.fields) {
		return "", i, false
	}
	return strings.TrimSpace(rw.fields[i]), i, true
}

func (rw row) pos(i int) (int, int) {
	if rw.r == nil || i < 0 || i >= len(rw.fields) {
		return rw.line, 1
	}
	l, c := rw.r.FieldPos(i)
	return rw.f.physical(l), c
}

// next reads the next record, rejecting on the way every line that is
// not one: a line with an unbalanced quote, a record with another number
// of fields than the header, a malformed quoted field. It returns io.EOF
// at the end.
func (rd *reader) next() (row, error) {
	t := rd.t
	for {
		fields, err := t.r.Read()
		rd.rejectBad()
		var pe *csv.ParseError
		switch {
		case err == io.EOF:
			return row{}, err
		case errors.Is(err, errRunaway):
			if err := rd.restart(); err != nil {
				return row{}, err
			}
			continue
		case errors.As(err, &pe):
			line := t.f.physical(pe.StartLine)
			rd.sink.Reject(schemas.Rejection{Table: rd.rowTable, Line: line, Column: pe.Column,
				Record: fmt.Sprintf("row at line %d", line), Reason: "malformed CSV: " + pe.Err.Error()})
			continue
		case err != nil:
			return row{}, &ingest.Error{File: rd.in.Path, Err: err}
		}
		l, _ := t.r.FieldPos(0)
		rw := row{fields: fields, line: t.f.physical(l), r: t.r, f: t.f}
		if len(fields) != len(t.h.names) {
			rd.reject(rw, min(len(fields), len(t.h.names))-1, rd.rowTable, "", fmt.Sprintf("%d fields, the header has %d", len(fields), len(t.h.names)))
			continue
		}
		return rw, nil
	}
}

// rejectBad rejects the lines the feeder set aside.
func (rd *reader) rejectBad() {
	for _, b := range rd.t.f.bad {
		rd.sink.Reject(schemas.Rejection{Table: rd.rowTable, Line: b.line, Column: 1, Record: fmt.Sprintf("row at line %d", b.line),
			Reason: fmt.Sprintf("malformed CSV: an unbalanced quote (%q); the line is skipped and the next one read on its own", b.text)})
	}
	rd.t.f.bad = rd.t.f.bad[:0]
}

// restart handles a quote opened and never closed in a file whose fields
// may span lines: the line that opened it is rejected, and reading goes on
// from the line after it, each line on its own again.
func (rd *reader) restart() error {
	f := rd.t.f
	line := f.openLine
	rd.sink.Reject(schemas.Rejection{Table: rd.rowTable, Line: line, Column: 1, Record: fmt.Sprintf("row at line %d", line),
		Reason: "malformed CSV: a quote opened on this line is never closed; the line is skipped and the lines after it read on their own"})
	rc, err := rd.in.OpenAt(f.openNext)
	if err != nil {
		return err
	}
	rd.closers = append(rd.closers, rc)
	nf := newFeeder(rc, true, line, f.openNext)
	rd.t.f, rd.t.r = nf, newCSV(nf)
	return nil
}

func (rd *reader) reject(rw row, idx int, table, field, reason string) {
	l, c := rw.pos(idx)
	rd.sink.Reject(schemas.Rejection{Table: table, Line: l, Column: c, Record: fmt.Sprintf("row at line %d", rw.line), Field: field, Reason: reason})
}
