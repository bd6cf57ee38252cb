package xlsx

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// rowXML writes worksheet rows as SpreadsheetML (ECMA-376 Part 1,
// 18.3.1.73 row and 18.3.1.4 c) straight into a buffer: the Requests
// sheet's million rows went through excelize's StreamWriter.SetRow, which
// builds a cell struct, a reference string and an escaped copy of every
// value (56% of the sheet's time, most of its allocations). The cells are
// what SetRow writes for the same values, so the sheet reads back the
// same (TestRowXMLMatchesStreamWriter): numbers as <v> with up to 15
// significant digits (Excel keeps no more), text inline with the
// escaping excelize applies, an empty value as no cell.
type rowXML struct {
	w    *bufio.Writer
	buf  []byte
	cols []string // column letters, A ...
	// styles are the columns' number styles (0: none); quoted is the
	// quotePrefix text style that keeps risky text from being a formula.
	styles []int
	quoted int
	row    int
}

func newRowXML(w io.Writer, styles []int, quoted int) *rowXML {
	r := &rowXML{w: bufio.NewWriterSize(w, 1<<20), styles: styles, quoted: quoted}
	for i := range styles {
		c, _ := excelize.ColumnNumberToName(i + 1)
		r.cols = append(r.cols, c)
	}
	return r
}

// start opens row n (1-based).
func (r *rowXML) start(n int) {
	r.row = n
	r.buf = append(r.buf, `<row r="`...)
	r.buf = strconv.AppendInt(r.buf, int64(n), 10)
	r.buf = append(r.buf, `">`...)
}

// end closes the row and writes it out.
func (r *rowXML) end() error {
	r.buf = append(r.buf, `</row>`...)
	_, err := r.w.Write(r.buf)
	r.buf = r.buf[:0]
	return err
}

func (r *rowXML) open(col, style int, typ string) {
	r.buf = append(r.buf, `<c r="`...)
	r.buf = append(r.buf, r.cols[col]...)
	r.buf = strconv.AppendInt(r.buf, int64(r.row), 10)
	r.buf = append(r.buf, '"')
	if style != 0 {
		r.buf = append(r.buf, ` s="`...)
		r.buf = strconv.AppendInt(r.buf, int64(style), 10)
		r.buf = append(r.buf, '"')
	}
	if typ != "" {
		r.buf = append(r.buf, ` t="`...)
		r.buf = append(r.buf, typ...)
		r.buf = append(r.buf, '"')
	}
	r.buf = append(r.buf, '>')
}

// float writes a number in column col (0-based), none when !ok.
func (r *rowXML) float(col int, v float64, ok bool) {
	if !ok {
		return
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		// As excelize writes them, as text (NaN, +Inf, -Inf), but with
		// quotePrefix on +Inf and -Inf, which Excel would otherwise read
		// as formulas when the cell is edited.
		r.text(col, strconv.FormatFloat(v, 'g', -1, 64))
		return
	}
	r.open(col, r.styles[col], "")
	r.buf = append(r.buf, `<v>`...)
	r.buf = strconv.AppendFloat(r.buf, v, 'g', 15, 64)
	r.buf = append(r.buf, `</v></c>`...)
}

// int writes an integer in column col, none when !ok.
func (r *rowXML) int(col int, v int64, ok bool) {
	if !ok {
		return
	}
	r.open(col, r.styles[col], "")
	r.buf = append(r.buf, `<v>`...)
	r.buf = strconv.AppendInt(r.buf, v, 10)
	r.buf = append(r.buf, `</v></c>`...)
}

// text writes s as an inline string in column col, none when empty;
// risky text gets the quotePrefix style.
func (r *rowXML) text(col int, s string) {
	if s == "" {
		return
	}
	style := r.styles[col]
	if risky(s) {
		style = r.quoted
	}
	s = truncateCell(s)
	r.open(col, style, "inlineStr")
	r.buf = append(r.buf, `<is><t`...)
	if c0, c1 := s[0], s[len(s)-1]; isSpace(c0) || isSpace(c1) {
		r.buf = append(r.buf, ` xml:space="preserve"`...)
	}
	r.buf = append(r.buf, '>')
	r.buf = appendEscaped(r.buf, s)
	r.buf = append(r.buf, `</t></is></c>`...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// flush writes what is buffered.
func (r *rowXML) flush() error { return r.w.Flush() }

// truncateCell cuts s to the 32,767 UTF-16 units a cell holds
// (excelize.TotalCellChars), as excelize does.
func truncateCell(s string) string {
	if len(s) <= excelize.TotalCellChars {
		return s // a UTF-16 unit takes at least one byte
	}
	units := 0
	for i, c := range s {
		units += utf16.RuneLen(c)
		if units > excelize.TotalCellChars {
			return s[:i]
		}
	}
	return s
}

// appendEscaped appends s escaped as encoding/xml's EscapeText does (the
// characters XML does not allow become U+FFFD), with newlines left as
// they are, as excelize writes them, and every _xHHHH_ in the text
// written as _x005F_xHHHH_ so that a reader does not decode it as an
// escaped character (ECMA-376 Part 1, 22.9.2.19 ST_Xstring).
func appendEscaped(buf []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				buf = append(buf, "&amp;"...)
			case c == '<':
				buf = append(buf, "&lt;"...)
			case c == '>':
				buf = append(buf, "&gt;"...)
			case c == '"':
				buf = append(buf, "&#34;"...)
			case c == '\'':
				buf = append(buf, "&#39;"...)
			case c == '\t':
				buf = append(buf, "&#x9;"...)
			case c == '\r':
				buf = append(buf, "&#xD;"...)
			case c == '\n':
				buf = append(buf, '\n')
			case c < 0x20:
				buf = append(buf, "\uFFFD"...)
			case c == '_' && escapedChar(s[i:]):
				buf = append(buf, "_x005F_"...) // the underscore, escaped
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !xmlChar(r) {
			buf = append(buf, "\uFFFD"...)
		} else {
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return buf
}

// escapedChar reports whether s starts with _xHHHH_.
func escapedChar(s string) bool {
	if len(s) < 7 || s[1] != 'x' || s[6] != '_' {
		return false
	}
	for _, c := range []byte(s[2:6]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// xmlChar reports whether r is a character XML 1.0 allows (the ASCII
// ones are handled by the caller).
func xmlChar(r rune) bool {
	return r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// rowSplice writes a worksheet part with rows inserted after its first
// row: excelize's StreamWriter writes the Requests sheet's header (row 1),
// the closing note and the part's structure; the request rows, written
// by rowXML to a temporary file, go in between.
type rowSplice struct {
	w       io.Writer
	rows    io.ReadSeeker
	pending []byte
	done    bool
}

var rowEnd = []byte(`</row>`)

func (s *rowSplice) Write(p []byte) (int, error) {
	if s.done {
		return s.w.Write(p)
	}
	s.pending = append(s.pending, p...)
	i := bytes.Index(s.pending, rowEnd)
	if i < 0 {
		return len(p), nil
	}
	i += len(rowEnd)
	if _, err := s.w.Write(s.pending[:i]); err != nil {
		return 0, err
	}
	if _, err := s.rows.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if _, err := io.CopyBuffer(s.w, s.rows, make([]byte, 1<<20)); err != nil {
		return 0, err
	}
	s.done = true
	rest := s.pending[i:]
	s.pending = nil
	if _, err := s.w.Write(rest); err != nil {
		return 0, err
	}
	return len(p), nil
}

// finish reports a part that ended before its first row.
func (s *rowSplice) finish() error {
	if !s.done {
		return errors.New("xlsx: the Requests sheet has no header row to put the requests after")
	}
	return nil
}
