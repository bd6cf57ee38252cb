package xlsx

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
)

// summary writes one row per run.
func (b *book) summary() error {
	const sheet, hdr = SheetSummary, 2
	rep := b.rep
	cols := []string{"platform", "run", "run ID", "model", "GPU", "engine", "load", "requests ok", "requests failed"}
	type hcol struct {
		spec  analysis.HeadlineSpec
		scale float64
		unit  string
	}
	var hcols []hcol
	for _, spec := range analysis.HeadlineSpecs {
		typical := 0.0
		for _, r := range rep.Runs {
			if h, _ := r.Headline(spec.Key); h.Known {
				typical = math.Max(typical, math.Abs(h.Est.Value))
			}
		}
		unit := schemas.MustLookup(spec.Metric).Unit
		scale, du := displayScale(unit, typical)
		hcols = append(hcols, hcol{spec, scale, du})
		cols = append(cols, fmt.Sprintf("%s (%s)", spec.Label, du), spec.Label+" low", spec.Label+" high")
	}
	costCol := 0
	if rep.Costs != nil {
		costCol = len(cols) + 1
		cols = append(cols, "cost per 1M output tokens", "cost per 1M output tokens low", "cost per 1M output tokens high",
			"cost per successful request", "total cost", "cost source",
			"steady-state cost per 1M output tokens", "steady-state cost per 1M output tokens low", "steady-state cost per 1M output tokens high")
	}
	verdictCol := len(cols) + 1
	cols = append(cols, "validation", "status")
	title := "Summary: one row per run, in input order (not ranked)"
	if err := b.header(sheet, title, hdr, cols); err != nil {
		return err
	}
	row := hdr + 1
	for _, r := range rep.Runs {
		gpu, engine := render.SUTSummary(r.Run)
		texts := []string{r.Platform, r.Name, r.Run.ID, render.ModelOf(r.Run), gpu, engine, render.LoadText(r.Run)}
		for i, s := range texts {
			if err := b.setText(sheet, i+1, row, s, ""); err != nil {
				return err
			}
		}
		for i, o := range []schemas.Opt[int64]{r.Run.Completed, r.Run.Failed} {
			if o.OK {
				if err := b.setNum(sheet, 8+i, row, float64(o.V), "num:#,##0"); err != nil {
					return err
				}
			} else if err := b.setText(sheet, 8+i, row, render.Unknown, ""); err != nil {
				return err
			}
		}
		col := 10
		for _, hc := range hcols {
			h, _ := r.Headline(hc.spec.Key)
			st := "num:" + numFmt(hc.unit)
			if !h.Known {
				if err := b.setText(sheet, col, row, render.Unknown, ""); err != nil {
					return err
				}
			} else {
				for k, v := range []float64{h.Est.Value, h.Est.Lo, h.Est.Hi} {
					if err := b.setNum(sheet, col+k, row, v*hc.scale, st); err != nil {
						return err
					}
				}
			}
			col += 3
		}
		if costCol > 0 {
			if err := b.summaryCost(sheet, costCol, row, r); err != nil {
				return err
			}
		}
		verdict := "not available"
		if rep.Validation != nil {
			verdict = r.Verdict
			if verdict == "" {
				verdict = render.Unknown
			}
		}
		if err := b.setText(sheet, verdictCol, row, verdict, ""); err != nil {
			return err
		}
		st := "complete"
		if !r.Complete() {
			st = "incomplete"
		}
		if err := b.setText(sheet, verdictCol+1, row, r.Status(), st); err != nil {
			return err
		}
		row++
	}
	notes := append([]string{""}, rep.Notes...)
	notes = append(notes,
		"Numbers are numeric cells: durations in the unit of their column heading, intervals as separate low and high columns (empty where none could be computed).",
		"Cost cells are formulas over the Costs sheet: change a rate there and they follow.")
	if rep.Costs != nil {
		notes = append(notes, "Cost per 1M output tokens is the billed cost of this test run (its total cost, with the billing minimums and rounding of a short run, over its tokens); the steady-state cost is the rate per hour of running over the measured output token throughput, with the throughput's interval: what the same load costs when it runs for hours.")
	}
	if rep.Validation == nil {
		notes = append(notes, rep.ValidationText()+".")
	}
	for _, r := range rep.Runs {
		for _, n := range r.Notes {
			notes = append(notes, r.Name+": "+n)
		}
	}
	if _, err := b.notes(sheet, row, notes); err != nil {
		return err
	}
	ws := []float64{14, 22, 20, 30, 24, 14, 26, 10, 10}
	for range hcols {
		ws = append(ws, 13, 9, 9)
	}
	if costCol > 0 {
		ws = append(ws, 14, 10, 10, 14, 12, 10, 14, 10, 10)
	}
	ws = append(ws, 14, 50)
	if err := b.widths(sheet, ws...); err != nil {
		return err
	}
	return b.freeze(sheet, 3, hdr+1)
}

// summaryCost writes a run's unit costs as references to the Costs
// sheet's names, or the reason they are unknown.
func (b *book) summaryCost(sheet string, col, row int, r *analysis.ReportRun) error {
	ref, ok := b.costNames[r]
	if !ok || r.Cost == nil {
		why := "not costed"
		if r.Cost != nil {
			why = render.Unknown + ": " + r.Cost.Why()
		}
		return b.setText(sheet, col, row, why, "")
	}
	cur := ""
	if u, ok := r.Cost.Unit(costing.TotalCost); ok {
		cur = u.Currency
	}
	st := "num:" + numFmt(cur)
	p, s := ref.prefix, ref.suffix
	if err := b.setFormula(sheet, col, row, p+"COST_PER_1M_OUTPUT_TOKENS"+s, st); err != nil {
		return err
	}
	if ref.hasLo {
		if err := b.setFormula(sheet, col+1, row, p+"COST_PER_1M_OUTPUT_TOKENS_LO"+s, st); err != nil {
			return err
		}
		if err := b.setFormula(sheet, col+2, row, p+"COST_PER_1M_OUTPUT_TOKENS_HI"+s, st); err != nil {
			return err
		}
	}
	if err := b.setFormula(sheet, col+3, row, p+"COST_PER_REQUEST"+s, st); err != nil {
		return err
	}
	if err := b.setFormula(sheet, col+4, row, p+"TOTAL_COST"+s, st); err != nil {
		return err
	}
	if err := b.setText(sheet, col+5, row, r.Cost.UnitsSource, ""); err != nil {
		return err
	}
	withLo, ok := b.steadyNames[r]
	if !ok {
		return nil
	}
	sst := "num:" + numFmt(r.Cost.SteadyRate.Currency)
	names := []string{"STEADY_COST_PER_1M_OUTPUT_TOKENS"}
	if withLo {
		names = append(names, "STEADY_COST_PER_1M_OUTPUT_TOKENS_LO", "STEADY_COST_PER_1M_OUTPUT_TOKENS_HI")
	}
	for i, n := range names {
		if err := b.setFormula(sheet, col+6+i, row, n+s, sst); err != nil {
			return err
		}
	}
	return nil
}

// runs writes the inventory side by side.
func (b *book) runs() error {
	const sheet, hdr = SheetRuns, 2
	rep := b.rep
	cols := []string{"field"}
	for _, r := range rep.Runs {
		cols = append(cols, r.Name)
	}
	if err := b.header(sheet, "Runs: provenance and system under test (unknown where no source said)", hdr, cols); err != nil {
		return err
	}
	row := hdr + 1
	for _, fld := range render.InventoryFields(rep.Runs) {
		if err := b.setText(sheet, 1, row, fld.Name, "bold"); err != nil {
			return err
		}
		for i, r := range rep.Runs {
			v := fld.Value(r)
			if v == "" {
				v = render.Unknown
			}
			if err := b.setText(sheet, i+2, row, v, "wrap"); err != nil {
				return err
			}
		}
		row++
	}
	ws := []float64{22}
	for range rep.Runs {
		ws = append(ws, 44)
	}
	if err := b.widths(sheet, ws...); err != nil {
		return err
	}
	return b.freeze(sheet, 2, hdr+1)
}

// metrics writes every metric row with its definition and interval.
func (b *book) metrics() error {
	const sheet, hdr = SheetMetrics, 2
	cols := []string{"run", "metric", "name", "stat", "value", "unit", "value (display)", "interval low", "interval high",
		"interval", "method", "source", "native name", "n", "note", "definition"}
	if err := b.header(sheet, "Metrics: every statistic of every run, with its definition", hdr, cols); err != nil {
		return err
	}
	row := hdr + 1
	for _, r := range b.rep.Runs {
		for _, m := range r.Metrics {
			def, _ := schemas.Lookup(m.MetricID)
			texts := map[int]string{1: r.Name, 2: string(m.MetricID), 3: def.Name, 4: render.StatText(m), 6: m.Unit,
				11: m.Method, 12: m.Source, 13: m.NativeName, 15: m.Note, 16: def.Summary()}
			for col, s := range texts {
				if err := b.setText(sheet, col, row, s, ""); err != nil {
					return err
				}
			}
			st := "num:" + metricFmt(m.Unit)
			if m.Value.OK {
				if err := b.setNum(sheet, 5, row, m.Value.V, st); err != nil {
					return err
				}
				if err := b.setText(sheet, 7, row, render.Quantity(m.Value.V, m.Unit), ""); err != nil {
					return err
				}
			} else if err := b.setText(sheet, 7, row, render.Unknown, ""); err != nil {
				return err
			}
			if e, ok := r.MetricInterval(m); ok {
				if err := b.setNum(sheet, 8, row, e.Lo, st); err != nil {
					return err
				}
				if err := b.setNum(sheet, 9, row, e.Hi, st); err != nil {
					return err
				}
				desc := fmt.Sprintf("%g %% %s bootstrap", 100*e.Confidence, e.Method)
				if err := b.setText(sheet, 10, row, desc, ""); err != nil {
					return err
				}
			}
			if m.N.OK {
				if err := b.setNum(sheet, 14, row, float64(m.N.V), "num:#,##0"); err != nil {
					return err
				}
			}
			row++
		}
	}
	notes := []string{"", "Values are in the metric's storage unit (seconds for durations); 'value (display)' shows them scaled.",
		"Intervals are given for verdict's computed statistics of the per-request data; a tool's reported figure has none."}
	if _, err := b.notes(sheet, row, notes); err != nil {
		return err
	}
	if err := b.widths(sheet, 22, 24, 24, 8, 14, 11, 14, 14, 14, 18, 12, 10, 22, 9, 30, 90); err != nil {
		return err
	}
	if err := b.f.AutoFilter(sheet, cell(1, hdr)+":"+cell(len(cols), max(row-4, hdr+1)), nil); err != nil {
		return err
	}
	return b.freeze(sheet, 3, hdr+1)
}

// metricFmt is the number format of a value in a storage unit.
func metricFmt(unit string) string {
	switch unit {
	case schemas.UnitSeconds:
		return `0.000000" s"`
	case schemas.UnitRatio:
		return "0.0000"
	case "":
		return "General"
	}
	if f := numFmt(unit); f != "General" {
		return f
	}
	return `General" ` + strings.ReplaceAll(unit, `"`, "") + `"`
}

// validation writes every finding.
func (b *book) validation() error {
	const sheet, hdr = SheetValidation, 2
	v := b.rep.Validation
	if v == nil {
		if err := b.setText(sheet, 1, 1, "Validation", "title"); err != nil {
			return err
		}
		if err := b.setText(sheet, 1, 2, b.rep.ValidationText()+".", "note"); err != nil {
			return err
		}
		return b.widths(sheet, 100)
	}
	pass := "passed"
	if !v.Pass {
		pass = "failed"
	}
	title := fmt.Sprintf("Validation: verdict %s, gate %s", v.Verdict, pass)
	cols := []string{"severity", "unverified", "effect", "rule", "subject", "runs", "metric", "fields", "values", "message"}
	if err := b.header(sheet, title, hdr, cols); err != nil {
		return err
	}
	row := hdr + 1
	for _, fd := range v.Findings {
		unv := "no"
		if fd.Unverified {
			unv = "yes"
		}
		for i, s := range []string{fd.Severity, unv, fd.Effect, fd.Rule, fd.Subject, strings.Join(fd.Runs, ", "), fd.Metric,
			strings.Join(fd.Fields, ", "), strings.Join(fd.Values, " | "), fd.Message} {
			if err := b.setText(sheet, i+1, row, s, "wrap"); err != nil {
				return err
			}
		}
		row++
	}
	notes := []string{""}
	if len(v.Findings) == 0 {
		notes = append(notes, "No findings.")
	}
	var perRun []string
	for _, r := range b.rep.Runs {
		perRun = append(perRun, r.Name+": "+orUnknown(r.Verdict))
	}
	notes = append(notes, "Run verdicts: "+strings.Join(perRun, "; "))
	notes = append(notes, v.Notes...)
	if _, err := b.notes(sheet, row, notes); err != nil {
		return err
	}
	if err := b.widths(sheet, 10, 10, 14, 26, 26, 24, 16, 22, 30, 80); err != nil {
		return err
	}
	return b.freeze(sheet, 1, hdr+1)
}

func orUnknown(s string) string {
	if s == "" {
		return render.Unknown
	}
	return s
}

// charts adds native charts of the Summary's figures: columns from zero
// (a 1 % difference must not look like 4x), with the intervals as error
// bars. excelize v2.11.1 cannot draw error bars (its ChartSeries has no
// field for them), so the charts' parts get c:errBars as they are zipped
// (partFilter), over two columns of this sheet per chart: the interval's
// distance above and below the estimate, live formulas over the Summary.
func (b *book) charts() error {
	const sheet = SheetCharts
	n := len(b.rep.Runs)
	if err := b.setText(sheet, 1, 1, "Charts of the Summary sheet (native Excel charts; they follow the Summary's cells)", "title"); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	cats := fmt.Sprintf("%s!$B$3:$B$%d", SheetSummary, n+2)
	type spec struct {
		title, ytitle string
		col           int
		// has says which runs have an interval.
		has []bool
	}
	var specs []spec
	// Headline columns start at 10, three per headline: estimate, low,
	// high.
	for i, h := range analysis.HeadlineSpecs {
		if h.Key != "ttft_p99" && h.Key != "tpot_p99" && h.Key != "output_token_throughput" {
			continue
		}
		hdr, _ := b.f.GetCellValue(SheetSummary, cell(10+3*i, 2))
		sp := spec{title: h.Label + " by run", ytitle: hdr, col: 10 + 3*i}
		for _, r := range b.rep.Runs {
			e, _ := r.Headline(h.Key)
			sp.has = append(sp.has, e.Known && !math.IsNaN(e.Est.Lo) && !math.IsNaN(e.Est.Hi))
		}
		specs = append(specs, sp)
	}
	if b.rep.Costs != nil && len(b.costNames) > 0 {
		c := 10 + 3*len(analysis.HeadlineSpecs)
		sp := spec{title: "Cost per 1M output tokens by run", ytitle: "cost per 1M output tokens", col: c}
		for _, r := range b.rep.Runs {
			ref, ok := b.costNames[r]
			sp.has = append(sp.has, ok && ref.hasLo)
		}
		specs = append(specs, sp)
	}
	// The error bars' columns, right of the charts.
	const barCol = 20
	if err := b.setText(sheet, barCol, 1, "Error bars of the charts: the interval's distance above (plus) and below (minus) the estimate, from the Summary; 0 where a run has no interval", "note"); err != nil {
		return err
	}
	zero := 0.0
	for k, s := range specs {
		plus, minus := barCol+2*k, barCol+2*k+1
		if err := b.setText(sheet, plus, 2, s.title+": plus", "header"); err != nil {
			return err
		}
		if err := b.setText(sheet, minus, 2, s.title+": minus", "header"); err != nil {
			return err
		}
		for i := range n {
			row := 3 + i
			est, lo, hi := abs(SheetSummary, s.col, row), abs(SheetSummary, s.col+1, row), abs(SheetSummary, s.col+2, row)
			if !s.has[i] {
				for _, c := range []int{plus, minus} {
					if err := b.setNum(sheet, c, row, 0, "num:#,##0.######"); err != nil {
						return err
					}
				}
				continue
			}
			if err := b.setFormula(sheet, plus, row, hi+"-"+est, "num:#,##0.######"); err != nil {
				return err
			}
			if err := b.setFormula(sheet, minus, row, est+"-"+lo, "num:#,##0.######"); err != nil {
				return err
			}
		}
		colName, _ := excelize.ColumnNumberToName(s.col)
		values := fmt.Sprintf("%s!$%s$3:$%s$%d", SheetSummary, colName, colName, n+2)
		b.errBars = append(b.errBars, errBar{values: values,
			plus:  rangeRef(sheet, plus, 3, n+2),
			minus: rangeRef(sheet, minus, 3, n+2)})
		anchor := cell(1+(k%2)*9, 3+(k/2)*20)
		title := s.title + " (input order, not ranked; bars: interval)"
		err := b.f.AddChart(sheet, anchor, &excelize.Chart{
			Type: excelize.Col,
			Series: []excelize.ChartSeries{{
				Name:       fmt.Sprintf("%s!$%s$2", SheetSummary, colName),
				Categories: cats,
				Values:     values,
			}},
			Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: title, Font: &excelize.Font{Bold: true, Size: 11}}}},
			XAxis: excelize.ChartAxis{Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "run", Font: &excelize.Font{Size: 10}}}}},
			YAxis: excelize.ChartAxis{MajorGridLines: true, Minimum: &zero,
				Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s.ytitle, Font: &excelize.Font{Size: 10}}}}},
			Legend:    excelize.ChartLegend{Position: "none"},
			Format:    excelize.GraphicOptions{AltText: title},
			Dimension: excelize.ChartDimension{Width: 560, Height: 380},
		})
		if err != nil {
			return fmt.Errorf("chart %s: %w", s.title, err)
		}
	}
	return nil
}

// rangeRef is Sheet!$A$from:$A$to.
func rangeRef(sheet string, col, from, to int) string {
	c, _ := excelize.ColumnNumberToName(col)
	return fmt.Sprintf("%s!$%s$%d:$%s$%d", sheet, c, from, c, to)
}

// plots embeds the figures as pictures, one under the other.
func (b *book) plots() error {
	const sheet = SheetPlots
	if err := b.setText(sheet, 1, 1, "Plots (the same figures as the HTML report and --plots DIR)", "title"); err != nil {
		return err
	}
	row := 3
	for _, p := range b.o.Pictures {
		if err := b.setText(sheet, 1, row, p.Title, "bold"); err != nil {
			return err
		}
		if err := b.setText(sheet, 1, row+1, p.Caption, "note"); err != nil {
			return err
		}
		err := b.f.AddPictureFromBytes(sheet, cell(1, row+2), &excelize.Picture{Extension: ".png", File: p.PNG,
			Format: &excelize.GraphicOptions{AltText: p.Title + ": " + p.Caption, LockAspectRatio: true}})
		if err != nil {
			return fmt.Errorf("picture %s: %w", p.Name, err)
		}
		h := pngHeight(p.PNG)
		row += 4 + (h+19)/20
	}
	return b.widths(sheet, 12)
}

// pngHeight reads a PNG's height from its IHDR chunk (0 when it cannot).
func pngHeight(b []byte) int {
	if len(b) < 24 {
		return 0
	}
	return int(b[20])<<24 | int(b[21])<<16 | int(b[22])<<8 | int(b[23])
}

// aboutSheet explains the workbook and lists its defined names and
// sources.
func (b *book) aboutSheet() error {
	const sheet = SheetAbout
	rep := b.rep
	lines := []string{
		"This workbook was written by verdict" + versionText(rep.VerdictVersion) + " from the bundles listed below.",
		"Verdict: per compared pair, whether the runs may be compared (comparable, comparable with warnings, incomplete, not comparable), each reason on a line of its own, what to supply to complete the evidence, and the differences of each comparable pair.",
		"Summary: one row per run in input order; runs are never ranked. A status of INCOMPLETE means evidence for at least one figure is missing.",
		"Runs: provenance and system under test; 'unknown' means no source said.",
		"Metrics: every metric row with its definition (what is timed from which event to which, over which population).",
		"Costs: yellow cells are inputs; totals and unit costs are live formulas over the defined names listed below. Change a rate and every total, the Summary and the charts follow. RUN_SECONDS prices another run time at the measured rates: the GPU and run-time lines bill it, and the counts follow it (COUNT = MEASURED_COUNT * RUN_SECONDS / MEASURED_SECONDS), so unit costs and their intervals stay consistent. A bill's figures are for its run window as delivered. The column \"verdict's figure\" is verdict's own result for the inputs as delivered.",
		"Formula cells also store their values, for readers that do not calculate. Excel recalculates on load; LibreOffice recalculates as you edit, and on load only when Tools > Options > LibreOffice Calc > Formula > Recalculation on file load says Always.",
		"Requests: one row per request as stored in the bundle (durations in the unit of the heading).",
		"Text from input files is stored as text, exactly as given: a text cell never runs as a formula. Text that begins with = + - @, a tab or a carriage return also has the quote-prefix cell style, so that editing the cell keeps it text.",
	}
	if rep.Confidence > 0 {
		lines = append(lines, fmt.Sprintf("Intervals: %g %% bootstrap confidence intervals (BCa, %d resamples, seed %d).", 100*rep.Confidence, rep.Resamples, rep.Seed))
	}
	if rep.Validation == nil {
		lines = append(lines, rep.ValidationText()+".")
	}
	lines = append(lines, b.about...)
	lines = append(lines, b.o.Notes...)
	if err := b.setText(sheet, 1, 1, "About this workbook", "title"); err != nil {
		return err
	}
	row := 2
	for _, l := range lines {
		if err := b.setText(sheet, 1, row, l, "wrap"); err != nil {
			return err
		}
		row++
	}
	row++
	if len(b.names) > 0 {
		if err := b.header(sheet, "", row, []string{"defined name", "refers to", "meaning"}); err != nil {
			return err
		}
		row++
		for _, n := range b.names {
			for i, s := range []string{n.Name, n.RefersTo, n.Comment} {
				if err := b.setText(sheet, i+1, row, s, ""); err != nil {
					return err
				}
			}
			row++
		}
		row++
	}
	if err := b.header(sheet, "", row, []string{"bundle", "source", "format", "tool version", "SHA-256"}); err != nil {
		return err
	}
	row++
	for _, bd := range rep.Bundles {
		for _, s := range bd.Manifest.Sources {
			for i, v := range []string{bd.Path, s.Path, s.Format, orUnknown(s.ToolVersion), s.SHA256} {
				if err := b.setText(sheet, i+1, row, v, ""); err != nil {
					return err
				}
			}
			row++
		}
	}
	return b.widths(sheet, 120, 34, 60, 40, 66)
}

func versionText(v string) string {
	if v == "" {
		return ""
	}
	return " " + v
}

// itoa is strconv.Itoa, for defined-name suffixes.
func itoa(i int) string { return strconv.Itoa(i) }
