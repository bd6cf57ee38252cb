package xlsx

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"regexp"

	"github.com/xuri/excelize/v2"
)

// partFilter is the zip writer excelize writes the workbook's parts
// through. It passes every part on unchanged except the style sheet,
// which it completes with what excelize's API cannot say (see
// addQuotePrefix). excelize writes each part whole before creating the
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
}

var _ excelize.ZipWriter = (*partFilter)(nil)

func (p *partFilter) Create(name string) (io.Writer, error) {
	if err := p.flush(); err != nil {
		return nil, err
	}
	if name == "xl/styles.xml" && len(p.b.quoteXfs) > 0 {
		p.held, p.heldName = &bytes.Buffer{}, name
		return p.held, nil
	}
	return p.zw.Create(name)
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

// flush writes the part held back, completed.
func (p *partFilter) flush() error {
	if p.held == nil {
		return nil
	}
	data, err := addQuotePrefix(p.held.Bytes(), p.b.quoteXfs)
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
