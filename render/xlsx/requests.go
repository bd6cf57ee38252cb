package xlsx

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
)

// requestColumns are the Requests sheet's headings, widths and number
// formats.
var requestColumns = []struct {
	name  string
	width float64
	fmt   string
}{
	{"run", 18, ""},
	{"run ID", 20, ""},
	{"index", 8, "#,##0"},
	{"status", 8, ""},
	{"phase", 10, ""},
	{"start (s)", 11, `0.000" s"`},
	{"end (s)", 11, `0.000" s"`},
	{"client queue (ms)", 11, `0.00" ms"`},
	{"TTFT (ms)", 11, `0.00" ms"`},
	{"TTFT answer (ms)", 11, `0.00" ms"`},
	{"E2E (s)", 11, `0.000" s"`},
	{"TPOT (ms)", 11, `0.000" ms"`},
	{"input tokens", 10, "#,##0"},
	{"output tokens", 10, "#,##0"},
	{"reasoning tokens", 10, "#,##0"},
	{"chunks", 8, "#,##0"},
	{"max chunk gap (ms)", 11, `0.00" ms"`},
	{"error", 40, ""},
}

// requests writes one row per request, so that memory stays flat however
// many requests there are: excelize's StreamWriter writes the sheet's
// structure, header and closing note, rowXML the request rows.
func (b *book) requests(ctx context.Context) error {
	sw, err := b.f.NewStreamWriter(SheetRequests)
	if err != nil {
		return err
	}
	hdr := b.style("header")
	b.headerRow[SheetRequests] = 1
	for i, c := range requestColumns {
		if err := sw.SetColWidth(i+1, i+1, c.width); err != nil {
			return err
		}
		if c.fmt != "" {
			if err := sw.SetColStyle(i+1, i+1, b.style("num:"+c.fmt)); err != nil {
				return err
			}
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	head := make([]any, len(requestColumns))
	for i, c := range requestColumns {
		head[i] = excelize.Cell{StyleID: hdr, Value: c.name}
	}
	if err := sw.SetRow("A1", head); err != nil {
		return err
	}
	limit := MaxRows - 2 // the header and the closing note
	if b.o.MaxRequestRows > 0 && b.o.MaxRequestRows < limit {
		limit = b.o.MaxRequestRows
	}
	src := b.o.Requests
	styles := make([]int, len(requestColumns))
	for i, c := range requestColumns {
		if c.fmt != "" {
			styles[i] = b.style("num:" + c.fmt)
		}
	}
	// The request rows go to a temporary file, spliced into the part
	// after the header row when excelize writes it (rowSplice).
	tmp, err := os.CreateTemp("", "verdict-requests-*.xml")
	if err != nil {
		return err
	}
	b.requestRows = tmp // closed and removed by WriteTo
	rx := newRowXML(tmp, styles, b.style(qp))
	row := 1
	written, skipped := 0, int64(0)
	err = src.Requests(ctx, func(q *analysis.RequestRow) error {
		if written >= limit {
			skipped++
			return nil
		}
		if written%10_000 == 0 && written > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if b.o.Progress != nil {
				b.o.Progress(written, false)
			}
		}
		row++
		written++
		// Every value arrives computed (analysis.RequestRow); the sheet
		// only scales durations for reading.
		rx.start(row)
		rx.text(0, q.Run.Name)
		rx.text(1, q.RunID)
		rx.int(2, q.Index, true)
		rx.text(3, q.Status)
		rx.text(4, q.Phase)
		rx.float(5, q.StartS.V, q.StartS.OK)
		rx.float(6, q.EndS.V, q.EndS.OK)
		rx.float(7, q.QueueS.V*1e3, q.QueueS.OK)
		rx.float(8, q.TTFTS.V*1e3, q.TTFTS.OK)
		rx.float(9, q.TTFTAnswerS.V*1e3, q.TTFTAnswerS.OK)
		rx.float(10, q.E2ES.V, q.E2ES.OK)
		rx.float(11, q.TPOT.V*1e3, q.TPOT.OK)
		rx.int(12, q.InputTokens.V, q.InputTokens.OK)
		rx.int(13, q.OutputTokens.V, q.OutputTokens.OK)
		rx.int(14, q.ReasoningTokens.V, q.ReasoningTokens.OK)
		rx.int(15, q.Chunks.V, q.Chunks.OK)
		rx.float(16, q.MaxChunkGap.V*1e3, q.MaxChunkGap.OK)
		rx.text(17, q.Error)
		return rx.end()
	})
	if err == nil {
		err = rx.flush()
	}
	if err != nil {
		return err
	}
	if b.o.Progress != nil {
		b.o.Progress(written, true)
	}
	if skipped > 0 {
		note := fmt.Sprintf("%d more requests are not shown: an Excel sheet holds %d rows. Every request is in the bundle's requests.parquet.", skipped, MaxRows)
		if b.o.MaxRequestRows > 0 && b.o.MaxRequestRows < MaxRows-2 {
			note = fmt.Sprintf("%d more requests are not shown: the sheet was capped at %d request rows. Every request is in the bundle's requests.parquet.", skipped, limit)
		}
		row++
		if err := sw.SetRow(rowRef(row), []any{note}); err != nil {
			return err
		}
		b.about = append(b.about, "Requests: "+note)
	}
	if written > 0 {
		// A table gives the header filter buttons; it must be added
		// after the rows and before Flush, and ends at the last request.
		last := 1 + written
		stripes := false
		err := sw.AddTable(&excelize.Table{Range: "A1:" + cell(len(requestColumns), last), Name: "Requests",
			StyleName: "TableStyleLight1", ShowRowStripes: &stripes})
		if err != nil {
			return err
		}
	}
	return sw.Flush()
}

// rowRef is the A-column reference of a row, without the general
// coordinate conversion.
func rowRef(row int) string { return "A" + strconv.Itoa(row) }
