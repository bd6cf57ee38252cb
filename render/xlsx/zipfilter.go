package xlsx

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/xuri/excelize/v2"
)

// partFilter is the zip writer excelize writes the workbook's parts
// through. It completes two parts with what excelize's API cannot say:
// the style sheet (addQuotePrefix) and, in the worksheets, the type of a
// formula's cached value (cacheValues). excelize writes each part whole before creating the
// next, so a part held back is written at the next Create or at Close.
type partFilter struct {
	zw interface {
		Create(string) (io.Writer, error)
		AddFS(fs.FS) error
		Close() error
	}
	b *book
	// held is the part being held back, and its name.
	held     *bytes.Buffer
	heldName string
	// ws is the worksheet being written; skip names a worksheet left
	// as it is (the streamed Requests sheet, which has no formulas).
	ws   *replacer
	skip string
	// splice puts the request rows into the skipped part.
	splice *rowSplice
}

var _ excelize.ZipWriter = (*partFilter)(nil)

func (p *partFilter) Create(name string) (io.Writer, error) {
	if err := p.flush(); err != nil {
		return nil, err
	}
	if name == "xl/styles.xml" && len(p.b.quoteXfs) > 0 || strings.HasPrefix(name, "xl/charts/chart") && len(p.b.errBars) > 0 {
		p.held, p.heldName = &bytes.Buffer{}, name
		return p.held, nil
	}
	w, err := p.zw.Create(name)
	if err == nil && name == p.skip && p.b.requestRows != nil {
		p.splice = &rowSplice{w: w, rows: p.b.requestRows}
		return p.splice, nil
	}
	if err != nil || !strings.HasPrefix(name, "xl/worksheets/sheet") || name == p.skip {
		return w, err
	}
	p.ws = &replacer{w: w, old: []byte(strFormula), new: []byte(numFormula)}
	return p.ws, nil
}

// A formula cell as excelize's SetCellFormula writes it, with a string
// result, and as it should be: every formula of this package is numeric
// (cacheValues). No text can contain the pattern: cell text is
// XML-escaped, its quotes written as &#34;.
const (
	strFormula = ` t="str"><f>`
	numFormula = `><f>`
)

// A replacer writes to w with every old replaced by new, across writes:
// it holds back a tail shorter than old until more arrives or flush.
type replacer struct {
	w        io.Writer
	old, new []byte
	tail     []byte
}

func (r *replacer) Write(p []byte) (int, error) {
	buf := append(r.tail, p...)
	out := bytes.ReplaceAll(buf, r.old, r.new)
	keep := min(len(r.old)-1, len(out))
	// Hold back a tail that may begin a match, unless it is the end of
	// a replacement (a replaced match never starts again inside new).
	r.tail = append(r.tail[:0:0], out[len(out)-keep:]...)
	if _, err := r.w.Write(out[:len(out)-keep]); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *replacer) flush() error {
	if len(r.tail) == 0 {
		return nil
	}
	_, err := r.w.Write(r.tail)
	r.tail = nil
	return err
}

func (p *partFilter) AddFS(fsys fs.FS) error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.zw.AddFS(fsys)
}

func (p *partFilter) Close() error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.zw.Close()
}

// flush writes the part held back, completed, and the end of a
// worksheet.
func (p *partFilter) flush() error {
	if p.splice != nil {
		err := p.splice.finish()
		p.splice = nil
		if err != nil {
			return err
		}
	}
	if p.ws != nil {
		err := p.ws.flush()
		p.ws = nil
		if err != nil {
			return err
		}
	}
	if p.held == nil {
		return nil
	}
	data, err := p.held.Bytes(), error(nil)
	if p.heldName == "xl/styles.xml" {
		data, err = addQuotePrefix(data, p.b.quoteXfs)
	} else {
		data = addErrBars(data, p.b.errBars)
	}
	p.held = nil
	if err != nil {
		return err
	}
	w, err := p.zw.Create(p.heldName)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

var (
	cellXfsRe = regexp.MustCompile(`(?s)<cellXfs\b[^>]*>(.*?)</cellXfs>`)
	xfRe      = regexp.MustCompile(`<xf\b`)
)

// addQuotePrefix sets quotePrefix="1" on the cell formats (xf elements
// of cellXfs, whose index is the style ID) in ids. excelize reads the
// attribute but its Style has no field for it (v2.11.1).
func addQuotePrefix(styles []byte, ids map[int]bool) ([]byte, error) {
	loc := cellXfsRe.FindSubmatchIndex(styles)
	if loc == nil {
		return nil, fmt.Errorf("xlsx: the style sheet has no cellXfs")
	}
	inner := styles[loc[2]:loc[3]]
	var out bytes.Buffer
	out.Write(styles[:loc[2]])
	last, n, done := 0, 0, 0
	for i, m := range xfRe.FindAllIndex(inner, -1) {
		if ids[i] {
			out.Write(inner[last:m[1]])
			out.WriteString(` quotePrefix="1"`)
			last = m[1]
			done++
		}
		n = i + 1
	}
	out.Write(inner[last:])
	out.Write(styles[loc[3]:])
	if done != len(ids) {
		return nil, fmt.Errorf("xlsx: %d cell formats, quotePrefix for %d of %d", n, done, len(ids))
	}
	return out.Bytes(), nil
}

// An errBar is a chart series' error bars: the series is the one whose
// values are values; plus and minus are the ranges of its interval's
// distances above and below each value.
type errBar struct {
	values, plus, minus string
}

// addErrBars adds custom error bars (c:errBars, ECMA-376 Part 1
// §21.2.2.55; in a bar series before c:cat, §21.2.2.170) to the series
// of a chart part that have them.
func addErrBars(chart []byte, bars []errBar) []byte {
	for _, e := range bars {
		val := []byte("<val><numRef><f>" + e.values + "</f>")
		i := bytes.Index(chart, val)
		if i < 0 {
			continue
		}
		j := bytes.LastIndex(chart[:i], []byte("<cat>"))
		if j < 0 || bytes.LastIndex(chart[:i], []byte("<ser>")) > j {
			continue
		}
		xml := `<errBars><errBarType val="both"/><errValType val="cust"/><noEndCap val="0"/>` +
			`<plus><numRef><f>` + e.plus + `</f></numRef></plus><minus><numRef><f>` + e.minus + `</f></numRef></minus>` +
			`<spPr><a:ln w="12700"><a:solidFill><a:srgbClr val="000000"/></a:solidFill></a:ln></spPr></errBars>`
		chart = append(chart[:j:j], append([]byte(xml), chart[j:]...)...)
	}
	return chart
}
