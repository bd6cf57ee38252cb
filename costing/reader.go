package costing

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ReaderOptions configures a Reader. The zero value detects the format and
// reads strictly quoted CSV.
type ReaderOptions struct {
	// FileName is reported in every RowError and Charge.Source. It is
	// never opened, and never used to detect the format.
	FileName string
	// Format overrides detection: the zero Format detects everything, a
	// Format with only Kind set detects the version within that kind.
	// ParseFormat reads it from a flag.
	Format Format
	// AzureCost says which Azure export a cost-details file is. Actual
	// and amortised exports have the same columns, so the header cannot
	// tell. Empty means: guess from FileName ("amortized"/"amortised" or
	// "actual" in it), else unknown (see AzureCost).
	AzureCost AzureCost
	// LazyQuotes lets a quote appear in an unquoted field, as
	// encoding/csv's LazyQuotes does. Off by default: a stray quote then
	// rejects its row instead of silently swallowing following lines.
	LazyQuotes bool
	// ReuseCharge makes Scan reuse one Charge for every row, so that
	// streaming a large file allocates less. The
	// Charge a Record returns is then valid only until the next Scan;
	// Clone it to keep it.
	ReuseCharge bool
}

// AzureCost names the kind of Azure cost-details export.
type AzureCost string

const (
	// AzureCostUnknown copies the file's cost into both BilledCost and
	// EffectiveCost and says so in Reader.Warnings.
	AzureCostUnknown AzureCost = ""
	// AzureActual (the "ActualCost" export) is cash: BilledCost is the
	// cost; EffectiveCost is the same except that Purchase and Refund rows
	// of reservations and savings plans are 0 (their amortised share
	// appears in the amortised export only), per Microsoft's FOCUS
	// conversion.
	AzureActual AzureCost = "actual"
	// AzureAmortized (the "AmortizedCost" export): EffectiveCost is the
	// cost; BilledCost is the same except that Usage rows priced by a
	// reservation or savings plan are 0, since they were paid for upfront.
	AzureAmortized AzureCost = "amortized"
)

// A Reader reads one billing CSV file and turns each data row into a
// Charge or a RowError. Its API follows bufio.Scanner and
// golang.org/x/perf/benchfmt.Reader:
//
//	r, err := costing.NewReader(f, costing.ReaderOptions{FileName: name})
//	if err != nil { … } // unreadable header or unknown format
//	for r.Scan() {
//		switch rec := r.Record().(type) {
//		case *costing.Charge:   …
//		case *costing.RowError: … // the row is rejected; keep going
//		}
//	}
//	if err := r.Err(); err != nil { … } // I/O error, with file:line
//
// The Reader streams: it holds one row at a time (encoding/csv with
// ReuseRecord), whatever the size of the file. It accepts a UTF-8
// byte-order mark, CRLF line ends, "NULL" or empty text for null,
// header-name variations in case and punctuation, and the timestamp
// styles ParseTime lists.
type Reader struct {
	opts     ReaderOptions
	csv      *csv.Reader
	hdr      *header
	format   Format
	m        mapper
	charge   Charge
	rowErr   RowError
	rec      Record
	counts   Counts
	err      error
	warnings []error
}

// A mapper turns one row of one format into a Charge.
type mapper interface {
	// row fills c (already reset) from rec, or reports the first problem.
	row(rec []string, c *Charge) *fieldError
}

// A fieldError is a mapper's complaint about one column.
type fieldError struct {
	col int // -1: the whole row
	msg string
	err error
}

// NewReader reads the header row from r, detects (or takes from opts) the
// format, and checks that the columns the format needs are present. Errors
// here are fatal for the file and carry its name and line 1.
func NewReader(r io.Reader, opts ReaderOptions) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // checked per row, so that a short row is a RowError
	cr.ReuseRecord = true
	cr.LazyQuotes = opts.LazyQuotes
	names, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: %w", opts.FileName, errEmpty)
	}
	if err != nil {
		return nil, fmt.Errorf("%s:1: reading header: %w", opts.FileName, err)
	}
	rd := &Reader{opts: opts, csv: cr}
	rd.hdr = newHeader(names)
	line, _ := cr.FieldPos(0)
	rd.format, err = detect(rd.hdr, opts.Format)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", opts.FileName, line, err)
	}
	switch rd.format.Kind {
	case FOCUS:
		rd.m, err = newFOCUSMapper(rd.hdr, &rd.warnings)
	case AWSCUR:
		rd.m, err = newAWSMapper(rd.hdr, &rd.warnings)
	case GCPExport:
		rd.m, err = newGCPMapper(rd.hdr, &rd.warnings)
	case AzureCostDetails:
		az := opts.AzureCost
		if az == AzureCostUnknown {
			az = guessAzureCost(opts.FileName)
		}
		rd.m, err = newAzureMapper(rd.hdr, az, &rd.warnings)
	default:
		err = fmt.Errorf("costing: unknown kind %q", rd.format.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %s: %w", opts.FileName, line, rd.format, err)
	}
	return rd, nil
}

var errEmpty = errors.New("costing: empty billing file (no header row)")

// guessAzureCost reads the export kind from the conventional file names
// Azure exports get; it returns AzureCostUnknown when they say nothing.
func guessAzureCost(name string) AzureCost {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "amortized"), strings.Contains(n, "amortised"):
		return AzureAmortized
	case strings.Contains(n, "actual"):
		return AzureActual
	}
	return AzureCostUnknown
}

// Format returns the detected (or overridden) format.
func (r *Reader) Format() Format { return r.format }

// Header returns the column names as the file writes them.
func (r *Reader) Header() []string { return r.hdr.names }

// Counts returns the row counts so far; after Scan returns false they
// cover the whole file.
func (r *Reader) Counts() Counts { return r.counts }

// Warnings returns file-level caveats: columns the format normally has
// but this file lacks, the Azure cost basis chosen, duplicate columns.
// They do not stop reading.
func (r *Reader) Warnings() []error { return r.warnings }

// Err returns the I/O error that stopped Scan, if any, as file:line: err.
// Rejected rows are not errors here; they are Records.
func (r *Reader) Err() error { return r.err }

// Record returns the outcome of the row the last Scan read: a *Charge or a
// *RowError. The RowError is reused by the next Scan, and so is the
// Charge with ReaderOptions.ReuseCharge.
func (r *Reader) Record() Record { return r.rec }

// Scan reads the next data row. It returns false at the end of the file or
// on an I/O error (see Err).
func (r *Reader) Scan() bool {
	if r.err != nil {
		return false
	}
	rec, err := r.csv.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			line, _ := r.csv.FieldPos(0)
			r.err = fmt.Errorf("%s:%d: %w", r.opts.FileName, line, err)
			return false
		}
		r.counts.Rows++
		r.counts.Rejected++
		r.rowErr = RowError{File: r.opts.FileName, Line: pe.StartLine,
			Msg: fmt.Sprintf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err), Err: ErrCSV}
		r.rec = &r.rowErr
		return true
	}
	r.counts.Rows++
	line, _ := r.csv.FieldPos(0)
	if len(rec) != len(r.hdr.names) {
		r.counts.Rejected++
		r.rowErr = RowError{File: r.opts.FileName, Line: line, Err: ErrFieldCount,
			Msg: fmt.Sprintf("%d fields, header has %d", len(rec), len(r.hdr.names))}
		r.rec = &r.rowErr
		return true
	}
	c := &r.charge
	if r.opts.ReuseCharge {
		*c = Charge{}
	} else {
		c = new(Charge)
	}
	if fe := r.m.row(rec, c); fe != nil {
		r.counts.Rejected++
		r.rowErr = RowError{File: r.opts.FileName, Line: line, Msg: fe.msg, Err: fe.err}
		if fe.col >= 0 && fe.col < len(r.hdr.names) {
			r.rowErr.Field = r.hdr.names[fe.col]
		}
		r.rec = &r.rowErr
		return true
	}
	c.Source = Source{Format: r.format, File: r.opts.FileName, Line: line}
	r.counts.Charges++
	r.rec = c
	return true
}

// A Bill is a whole billing file read into memory by ReadAll.
type Bill struct {
	File     string
	Format   Format
	Charges  []*Charge
	Rejected []*RowError
	Counts   Counts
	Warnings []error
}

// ReadAll reads every row of r. It is the convenience form of Reader for
// files that fit in memory; the error is fatal (header or I/O), and
// rejected rows are in Bill.Rejected.
func ReadAll(r io.Reader, opts ReaderOptions) (*Bill, error) {
	opts.ReuseCharge = false
	var charges []*Charge
	b, err := readBill(r, opts, -1, func(c *Charge) { charges = append(charges, c) })
	if b != nil {
		b.Charges = charges
	}
	return b, err
}

// readBill reads every row of r, passing each charge to charge and keeping
// the first maxRejected rejected rows (all when negative) with the counts
// and warnings.
func readBill(r io.Reader, opts ReaderOptions, maxRejected int, charge func(*Charge)) (*Bill, error) {
	rd, err := NewReader(r, opts)
	if err != nil {
		return nil, err
	}
	b := &Bill{File: opts.FileName, Format: rd.Format()}
	for rd.Scan() {
		switch rec := rd.Record().(type) {
		case *Charge:
			charge(rec)
		case *RowError:
			if maxRejected < 0 || len(b.Rejected) < maxRejected {
				e := *rec
				b.Rejected = append(b.Rejected, &e)
			}
		}
	}
	b.Counts = rd.Counts()
	b.Warnings = rd.Warnings()
	return b, rd.Err()
}

// ---- helpers shared by the mappers ----

// cell returns field i of rec with surrounding spaces removed, or "" when
// the column is absent (i < 0).
func cell(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// isNull reports whether a cell stands for null: empty, or the literal
// NULL (any case) that the FOCUS sample data writes.
func isNull(s string) bool {
	return s == "" || (len(s) == 4 && strings.EqualFold(s, "null"))
}

// text returns a cell, with null as "".
func text(rec []string, i int) string {
	s := cell(rec, i)
	if isNull(s) {
		return ""
	}
	return s
}

// optDecimal reads a nullable decimal column.
func optDecimal(rec []string, i int) (NullDecimal, *fieldError) {
	s := cell(rec, i)
	if isNull(s) {
		return NullDecimal{}, nil
	}
	d, err := ParseDecimal(s)
	if err != nil {
		return NullDecimal{}, &fieldError{col: i, msg: fmt.Sprintf("%q is not a decimal number", clip(s)), err: err}
	}
	return NullDecimal{Decimal: d, Valid: true}, nil
}

// reqDecimal reads a decimal column that must have a value.
func reqDecimal(rec []string, i int) (Decimal, *fieldError) {
	n, fe := optDecimal(rec, i)
	if fe != nil {
		return Decimal{}, fe
	}
	if !n.Valid {
		return Decimal{}, &fieldError{col: i, msg: "null value in a required column", err: ErrMissing}
	}
	return n.Decimal, nil
}

// optTime reads a nullable timestamp column.
func optTime(rec []string, i int) (time.Time, *fieldError) {
	s := cell(rec, i)
	if isNull(s) {
		return time.Time{}, nil
	}
	t, err := ParseTime(s)
	if err != nil {
		return time.Time{}, &fieldError{col: i, msg: fmt.Sprintf("%q is not a timestamp", clip(s)), err: err}
	}
	return t, nil
}

// reqTime reads a timestamp column that must have a value.
func reqTime(rec []string, i int) (time.Time, *fieldError) {
	t, fe := optTime(rec, i)
	if fe == nil && t.IsZero() {
		return t, &fieldError{col: i, msg: "null value in a required column", err: ErrMissing}
	}
	return t, fe
}

// checkPeriod rejects a period that ends before it starts.
func checkPeriod(c *Charge, endCol int) *fieldError {
	if c.ChargePeriodEnd.Before(c.ChargePeriodStart) {
		return &fieldError{col: endCol, err: ErrPeriod,
			msg: fmt.Sprintf("charge period ends (%s) before it starts (%s)",
				c.ChargePeriodEnd.Format(time.RFC3339), c.ChargePeriodStart.Format(time.RFC3339))}
	}
	return nil
}

// clip shortens a cell for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// canon returns the spelling in allowed that s matches case-insensitively
// (ignoring spaces, hyphens and underscores), or s unchanged.
func canon(s string, allowed ...string) string {
	for _, a := range allowed {
		if s == a {
			return a
		}
	}
	if s == "" {
		return s
	}
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	k := normHeader(s)
	for _, a := range allowed {
		if normHeader(a) == k {
			return a
		}
	}
	return s
}

var (
	chargeCategories  = []string{"Usage", "Purchase", "Tax", "Credit", "Adjustment"}
	chargeFrequencies = []string{"One-Time", "Recurring", "Usage-Based"}
)

// missingColumns returns an error naming the required columns (each given
// as alternatives) that the header lacks.
func missingColumns(h *header, required ...[]string) error {
	var miss []string
	for _, alts := range required {
		if !h.has(alts...) {
			miss = append(miss, strings.Join(alts, " or "))
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return fmt.Errorf("%w: missing column %s", ErrMissing, strings.Join(miss, ", "))
}
