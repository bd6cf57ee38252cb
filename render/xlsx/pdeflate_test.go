package xlsx

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	stdflate "compress/flate"
	"github.com/klauspost/compress/flate"
)

// TestParallelDeflate: the parallel block stream inflates, with the
// standard library's reader, to exactly what was written, whatever the
// write sizes and the total (empty, under one block, on a block
// boundary, several blocks).
func TestParallelDeflate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var row bytes.Buffer
	for i := range 40_000 {
		row.WriteString(`<row r="` + strconv.Itoa(i) + `"><c r="A` + strconv.Itoa(i) + `" s="3"><v>` + strconv.FormatFloat(rng.Float64(), 'g', -1, 64) + `</v></c></row>`)
	}
	data := row.Bytes()
	for _, n := range []int{0, 1, 1000, pdeflateBlock - 1, pdeflateBlock, pdeflateBlock + 1, 2 * pdeflateBlock, len(data)} {
		n = min(n, len(data))
		for _, chunk := range []int{1 << 12, 1 << 20, 3 << 20} {
			var z bytes.Buffer
			p := newParallelDeflate(&z, flate.BestSpeed)
			for rest := data[:n]; len(rest) > 0; {
				k := min(chunk, len(rest))
				if _, err := p.Write(rest[:k]); err != nil {
					t.Fatal(err)
				}
				rest = rest[k:]
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(stdflate.NewReader(&z))
			if err != nil || !bytes.Equal(got, data[:n]) {
				t.Errorf("%d bytes in writes of %d: inflated %d bytes, %v", n, chunk, len(got), err)
			}
		}
	}
}

// BenchmarkParallelDeflate compresses 64 MiB of sheet-like XML with the
// block-parallel writer and with one klauspost writer at the same level.
func BenchmarkParallelDeflate(b *testing.B) {
	var row bytes.Buffer
	for i := 0; row.Len() < 64<<20; i++ {
		row.WriteString(`<row r="` + strconv.Itoa(i) + `"><c r="C` + strconv.Itoa(i) + `" s="5"><v>` + strconv.FormatFloat(float64(i)*0.001, 'f', 3, 64) + `</v></c><c r="D` + strconv.Itoa(i) + `" t="inlineStr"><is><t>ok</t></is></c></row>`)
	}
	data := row.Bytes()
	for _, c := range []struct {
		name string
		w    func(io.Writer) io.WriteCloser
	}{
		{"parallel", func(w io.Writer) io.WriteCloser { return newParallelDeflate(w, flate.BestSpeed) }},
		{"serial", func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.BestSpeed); return fw }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var out countWriter
			for b.Loop() {
				w := c.w(&out)
				w.Write(data)
				w.Close()
			}
			b.ReportMetric(float64(out)/float64(b.N)/float64(len(data)), "ratio")
		})
	}
}

type countWriter int64

func (c *countWriter) Write(b []byte) (int, error) { *c += countWriter(len(b)); return len(b), nil }
