package xlsx

import (
	"context"
	"fmt"
	"strconv"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
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

// requests streams one row per request with excelize's StreamWriter, so
// memory stays flat however many requests there are.
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
	row := 1
	written, skipped := 0, int64(0)
	vals := make([]any, len(requestColumns))
	ms := func(o schemas.Opt[float64]) any {
		if !o.OK {
			return nil
		}
		return o.V * 1e3
	}
	sec := func(o schemas.Opt[float64]) any {
		if !o.OK {
			return nil
		}
		return o.V
	}
	i64 := func(o schemas.Opt[int64]) any {
		if !o.OK {
			return nil
		}
		return o.V
	}
	var lastRun *analysis.ReportRun
	var runName, runID any
	err = src.Requests(ctx, func(q *analysis.RequestRow) error {
		if written >= limit {
			skipped++
			return nil
		}
		if q.Run != lastRun {
			lastRun, runName, runID = q.Run, b.streamText(q.Run.Name), b.streamText(q.RunID)
		}
		if written%10_000 == 0 && written > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if b.o.Progress != nil {
				b.o.Progress(written, false)
			}
		}
		// Every value arrives computed (analysis.RequestRow); the sheet
		// only scales durations for reading.
		vals[0], vals[1], vals[2], vals[3], vals[4] = runName, runID, q.Index, b.streamText(q.Status), b.streamText(q.Phase)
		vals[5], vals[6], vals[7], vals[8], vals[9], vals[10] = sec(q.StartS), sec(q.EndS), ms(q.QueueS), ms(q.TTFTS), ms(q.TTFTAnswerS), sec(q.E2ES)
		vals[11] = ms(q.TPOT)
		vals[12], vals[13], vals[14] = i64(q.InputTokens), i64(q.OutputTokens), i64(q.ReasoningTokens)
		vals[15], vals[16] = i64(q.Chunks), ms(q.MaxChunkGap)
		vals[17] = nil
		if q.Error != "" {
			vals[17] = b.streamText(q.Error)
		}
		row++
		written++
		return sw.SetRow(rowRef(row), vals)
	})
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
