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
// Each file is read on its own:
//
//   - stats.csv: one run per entry row (method and name, and the
//     Aggregated row), with request and failure counts, response-time
//     statistics, content size and whole-run request and failure rates;
//   - stats_history.csv: one run per entry, with one observation per row
//     of the current (10-second) request and failure rates and the user
//     count, and the final totals; the last row's percentiles are stored
//     when they are cumulative (the default, Aggregated-only history);
//   - failures.csv: one run, one observation per (method, name, error)
//     with its message;
//   - exceptions.csv: one run, one observation per exception with its
//     message.
//
// Every run carries the label locust_prefix (PREFIX) so the files of one
// test can be joined.
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
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimLeft(line, "\ufeff \t")
	if len(line) == 0 || line[0] == '{' || line[0] == '[' || !bytes.Contains(line, []byte(",")) {
		return 0
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimRight(line, "\r")))
	r.LazyQuotes = true
	fields, err := r.Read()
	if err != nil {
		return 0
	}
	if parseHeader(fields).kind() != "" {
		return 90
	}
	return 0
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

// crStripper drops carriage returns: Locust writes CRLF (Python's csv
// default), and files passed through Windows tools gain a second CR.
type crStripper struct{ r io.Reader }

func (c crStripper) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		m := 0
		for _, b := range p[:n] {
			if b != '\r' {
				p[m] = b
				m++
			}
		}
		if m > 0 || err != nil {
			return m, err
		}
	}
}

// A table is a CSV file being read.
type table struct {
	path string
	r    *csv.Reader
	h    header
}

func openTable(path string, r io.Reader) (*table, error) {
	cr := csv.NewReader(crStripper{r})
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.LazyQuotes = true
	fields, err := cr.Read()
	if err == io.EOF {
		return nil, &ingest.Error{File: path, Err: errors.New("no header line")}
	}
	if err != nil {
		return nil, csvErr(path, err)
	}
	t := &table{path: path, r: cr, h: parseHeader(append([]string(nil), fields...))}
	return t, nil
}

func csvErr(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ingest.Error{File: path, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("malformed CSV: %w", pe.Err)}
	}
	return &ingest.Error{File: path, Err: err}
}

// Read reads one Locust CSV file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	t, err := openTable(in.Path, rc)
	if err != nil {
		return err
	}
	rd := &reader{in: in, sink: sink, t: t, prefix: prefix(in.Path)}
	rd.version = "Locust 1.0 or later (column names)"
	if t.h.old {
		rd.version = "Locust before 1.0 (quoted lower-case headers)"
	}
	kind := t.h.kind()
	switch kind {
	case kindStats:
		err = rd.stats(ctx)
	case kindHistory:
		err = rd.history(ctx)
	case kindFailures:
		if t.h.has(colFirst) {
			rd.version = "Locust 2.44 or later (failures with First/Last Seen)"
		}
		err = rd.failures(ctx)
	case kindExceptions:
		err = rd.exceptions(ctx)
	default:
		return &ingest.Error{File: in.Path, Line: 1, Err: fmt.Errorf("not a Locust CSV file: unknown header %q", strings.Join(t.h.names, ","))}
	}
	if err != nil {
		return err
	}
	sink.Describe(kind, "locust", rd.version)
	return nil
}

// A reader maps one file's rows.
type reader struct {
	in      *ingest.Input
	sink    ingest.Sink
	t       *table
	prefix  string
	version string
}

// A row is one CSV record with its line.
type row struct {
	fields []string
	line   int
	r      *csv.Reader
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
	return rw.r.FieldPos(i)
}

// next reads the next record. It returns io.EOF at the end.
func (rd *reader) next() (row, error) {
	fields, err := rd.t.r.Read()
	if err != nil {
		if err == io.EOF {
			return row{}, err
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && !errors.Is(pe.Err, csv.ErrFieldCount) {
			return row{}, csvErr(rd.in.Path, err)
		}
		if !errors.As(err, &pe) {
			return row{}, &ingest.Error{File: rd.in.Path, Err: err}
		}
	}
	line, _ := rd.t.r.FieldPos(0)
	return row{fields: fields, line: line, r: rd.t.r}, nil
}

func (rd *reader) newRun(index int, format string) schemas.Run {
	return schemas.Run{
		ID: ingest.RunID("locust", rd.in.SHA256, index), Tool: "locust", ToolVersion: rd.version, Format: format,
		SourcePath: rd.in.Path, SourceSHA256: rd.in.SHA256, SourceRecord: int64(index),
		Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalClosedLoop,
		Labels: map[string]string{"locust_prefix": rd.prefix},
	}
}

func (rd *reader) reject(rw row, idx int, table, field, reason string) {
	l, c := rw.pos(idx)
	rd.sink.Reject(schemas.Rejection{Table: table, Line: l, Column: c, Record: fmt.Sprintf("row at line %d", rw.line), Field: field, Reason: reason})
}
