package xlsx

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
)

// Costs sheet columns.
const (
	cName    = 1 // defined name or item
	cValue   = 2 // live value (input or formula)
	cUnit    = 3
	cFormula = 4 // the formula in words
	cVerdict = 5 // the figure verdict computed (static)
	cNotes   = 6
	cRate    = 7 // other items: rate
	cQty     = 8 // other items: quantity
)

// costs writes each run's quote and bill as live formulas.
func (b *book) costs() error {
	const sheet = SheetCosts
	if err := b.setText(sheet, 1, 1, "Costs: yellow cells are inputs; every other figure is a live formula", "title"); err != nil {
		return err
	}
	row := 3
	var err error
	for i, r := range b.rep.Runs {
		c := r.Cost
		if c == nil {
			continue
		}
		suffix := "_" + itoa(i+1)
		if c.Quote != nil {
			if row, err = b.quoteBlock(sheet, row, r, suffix); err != nil {
				return err
			}
		} else if c.QuoteErr != "" {
			if err := b.setText(sheet, 1, row, r.Name+": "+c.QuoteErr, "note"); err != nil {
				return err
			}
			row += 2
		}
		if c.Bill != nil {
			if row, err = b.billBlock(sheet, row, r, suffix); err != nil {
				return err
			}
		}
	}
	var notes []string
	notes = append(notes, "Run windows: a bill is joined to a run only over its timestamped window; without timestamps a quote prices the run's duration_s (RUN_SECONDS says which).")
	notes = append(notes, b.rep.Costs.Notes...)
	if _, err := b.notes(sheet, row, notes); err != nil {
		return err
	}
	return b.widths(sheet, 36, 16, 22, 58, 18, 60, 12, 14)
}

// line writes one named row: name, value (number or formula), unit,
// formula text, verdict's figure and notes.
type line struct {
	name, unit, formulaText, notes string
	value                          float64
	formula                        string // Excel formula; value is used when empty
	verdict                        float64
	style                          string // number format style key
	comment                        string
}

func (b *book) writeLine(sheet string, row int, ln line) error {
	if err := b.setText(sheet, cName, row, ln.name, "bold"); err != nil {
		return err
	}
	if ln.formula != "" {
		if err := b.setFormula(sheet, cValue, row, ln.formula, ln.style); err != nil {
			return err
		}
	} else if err := b.setNum(sheet, cValue, row, ln.value, ln.style); err != nil {
		return err
	}
	for col, s := range map[int]string{cUnit: ln.unit, cFormula: ln.formulaText, cNotes: ln.notes} {
		if s != "" {
			if err := b.setText(sheet, col, row, s, ""); err != nil {
				return err
			}
		}
	}
	if !math.IsNaN(ln.verdict) {
		st := "num:" + ln.style[strings.Index(ln.style, ":")+1:]
		if err := b.setNum(sheet, cVerdict, row, ln.verdict, st); err != nil {
			return err
		}
	}
	b.name(ln.name, sheet, cValue, row, ln.comment)
	return nil
}

func nan() float64 { return math.NaN() }

// quoteBlock writes a run's quote: inputs, GPU line, other items, totals
// and unit costs. It returns the next free row.
func (b *book) quoteBlock(sheet string, row int, r *analysis.ReportRun, s string) (int, error) {
	c := r.Cost
	q := c.Quote
	cur := q.Currency
	money := "num:" + numFmt(cur)
	title := fmt.Sprintf("Quote for %s: %s", r.Name, q.Provider)
	if q.Reference != "" {
		title += ", " + q.Reference
	}
	title += " (" + c.QuoteFile + ")"
	if err := b.setText(sheet, 1, row, title, "title"); err != nil {
		return row, err
	}
	row++
	if err := b.header(sheet, "", row, []string{"name", "value", "unit", "formula", "verdict's figure (inputs as delivered)", "notes", "rate", "quantity"}); err != nil {
		return row, err
	}
	row++
	g := q.GPU
	runSec := g.RunSeconds.Float64()
	rounding := "none"
	minimum := 0.0
	if qb := quoteBilling(c); qb != nil {
		rounding, minimum = qb.Rounding, qb.Minimum.Float64()
	}
	billed := billedFormula("RUN_SECONDS"+s, "BILLING_UNIT_SECONDS"+s, "BILLING_MINIMUM"+s, rounding)
	windowNote := c.WindowNote
	if c.WindowFromDuration {
		windowNote = "the run's duration_s (no timestamps)"
	}
	lines := []line{
		{name: "GPU_RATE" + s, value: g.Rate.Float64(), unit: cur + " per " + g.RateUnit, formulaText: "input", verdict: g.Rate.Float64(),
			style: "input:" + numFmt(cur), notes: g.Description, comment: "quote rate per " + g.RateUnit + " of " + r.Name},
		{name: "GPU_COUNT" + s, value: g.Multiplier.Float64(), unit: multiplierUnit(g.RateUnit), formulaText: "input", verdict: g.Multiplier.Float64(),
			style: "input:#,##0", comment: "GPUs priced per GPU-hour (1 for an instance-hour rate) for " + r.Name},
		{name: "RUN_SECONDS" + s, value: runSec, unit: "s", formulaText: "input", verdict: runSec, style: "input:#,##0.000000000",
			notes: windowNote, comment: "run time priced for " + r.Name},
		{name: "BILLING_UNIT_SECONDS" + s, value: float64(g.BillingUnitSeconds), unit: "s", formulaText: "input (the quote's billing unit)",
			verdict: float64(g.BillingUnitSeconds), style: "input:#,##0"},
		{name: "BILLING_MINIMUM" + s, value: minimum, unit: "billing units", formulaText: "input (the quote's minimum)", verdict: minimum, style: "input:#,##0.###"},
		{name: "BILLED_UNITS" + s, formula: billed, unit: "billing units", formulaText: "run time in billing units, rounded " + rounding + ", at least the minimum",
			verdict: g.BilledUnits.Float64(), style: "num:#,##0.######"},
		{name: "RATE_UNIT_SECONDS" + s, value: g.RateUnitSeconds.Float64(), unit: "s per " + g.RateUnit, formulaText: "constant", verdict: g.RateUnitSeconds.Float64(), style: "num:#,##0"},
		{name: "GPU_HOURS" + s, formula: fmt.Sprintf("GPU_COUNT%s*BILLED_UNITS%s*BILLING_UNIT_SECONDS%s/RATE_UNIT_SECONDS%s", s, s, s, s),
			unit: g.RateUnit + "s", formulaText: "GPU_COUNT * BILLED_UNITS * BILLING_UNIT_SECONDS / RATE_UNIT_SECONDS", verdict: g.Quantity.Float64(),
			style: "num:#,##0.000000", comment: "priced " + g.RateUnit + "s of " + r.Name},
		{name: "GPU_COST" + s, formula: "GPU_RATE" + s + "*GPU_HOURS" + s, unit: cur, formulaText: "GPU_COST = GPU_RATE * GPU_HOURS",
			verdict: q.GPUCost.Float64(), style: money, notes: joinNotes(g.Notes), comment: "GPU cost of " + r.Name},
	}
	for _, ln := range lines {
		if err := b.writeLine(sheet, row, ln); err != nil {
			return row, err
		}
		row++
	}
	first := row
	// The steady rate per hour: GPU_RATE x GPU_COUNT per hour, plus each
	// run-time item's rate x multiplier per hour (costing.SteadyRate).
	steadyTerms := []string{fmt.Sprintf("GPU_RATE%s*GPU_COUNT%s*3600/RATE_UNIT_SECONDS%s", s, s, s)}
	for _, o := range q.Other {
		if o.Basis == "run-time" && !o.RateUnitSeconds.IsZero() {
			steadyTerms = append(steadyTerms, fmt.Sprintf("%s*%s*3600/%s", cell(cRate, row), o.Multiplier, o.RateUnitSeconds))
		}
		if err := b.setText(sheet, cName, row, o.Name+" ("+o.Kind+", "+o.Basis+")", ""); err != nil {
			return row, err
		}
		if err := b.setNum(sheet, cRate, row, o.Rate.Float64(), "input:#,##0.00####"); err != nil {
			return row, err
		}
		qtyText := o.QuantityFormula
		if o.Basis == "run-time" && o.BillingUnitSeconds > 0 {
			// Run time billed by the item's own rule: the quantity
			// follows RUN_SECONDS as the GPU line does.
			units := billedFormula("RUN_SECONDS"+s, itoa(int(o.BillingUnitSeconds)), o.Billing.Minimum.String(), o.Billing.Rounding)
			qty := fmt.Sprintf("%s*%s*%d/%s", o.Multiplier, units, o.BillingUnitSeconds, o.RateUnitSeconds)
			if err := b.setFormula(sheet, cQty, row, qty, "num:#,##0.000000"); err != nil {
				return row, err
			}
			qtyText = fmt.Sprintf("%s * billed units of RUN_SECONDS (%d s units, rounded %s, at least %s) * %d / %s",
				o.Multiplier, o.BillingUnitSeconds, roundingText(o.Billing.Rounding), o.Billing.Minimum, o.BillingUnitSeconds, o.RateUnitSeconds)
		} else if err := b.setNum(sheet, cQty, row, o.Quantity.Float64(), "input:#,##0.000000"); err != nil {
			return row, err
		}
		if err := b.setFormula(sheet, cValue, row, cell(cRate, row)+"*"+cell(cQty, row), money); err != nil {
			return row, err
		}
		for col, t := range map[int]string{cUnit: cur + " (" + o.RateUnit + ")", cFormula: "RATE * QUANTITY; QUANTITY = " + qtyText, cNotes: joinNotes(o.Notes)} {
			if err := b.setText(sheet, col, row, t, ""); err != nil {
				return row, err
			}
		}
		if err := b.setNum(sheet, cVerdict, row, o.Cost.Float64(), money); err != nil {
			return row, err
		}
		row++
	}
	other := "0"
	if len(q.Other) > 0 {
		other = fmt.Sprintf("SUM(%s:%s)", cell(cValue, first), cell(cValue, row-1))
	}
	totals := []line{
		{name: "OTHER_LISTED_COST" + s, formula: other, unit: cur, formulaText: "sum of the listed items above", verdict: q.OtherListedCost.Float64(),
			style: money, comment: "other listed costs of " + r.Name},
		{name: "TOTAL_COST" + s, formula: "GPU_COST" + s + "+OTHER_LISTED_COST" + s, unit: cur, formulaText: "TOTAL_COST = GPU_COST + OTHER_LISTED_COST",
			verdict: q.TotalCost.Float64(), style: "total:" + numFmt(cur), notes: joinErrs(q.Warnings), comment: "quoted total cost of " + r.Name},
	}
	for _, ln := range totals {
		if err := b.writeLine(sheet, row, ln); err != nil {
			return row, err
		}
		row++
	}
	var err error
	row, hasLo, err := b.unitLines(sheet, row, r, s, "", c.QuoteUnits, runSec, true)
	if err != nil {
		return row, err
	}
	rate := strings.Join(steadyTerms, "+")
	if c.SteadyRate == nil || c.SteadyRate.Source != "quote" || c.SteadyRate.Currency != cur {
		rate = "" // a bill's rate, or one converted to another currency: a number
	}
	if row, err = b.steadyLines(sheet, row, r, s, rate); err != nil {
		return row, err
	}
	b.costNames[r] = costRef{prefix: "", suffix: s, hasLo: hasLo}
	if c.UnitsSource == "bill" {
		delete(b.costNames, r) // the bill block sets it
	}
	return row + 1, nil
}

// billedFormula is run time in billing units, rounded as the quote says
// (costing's timeLine: up, down, nearest, else none) and raised to the
// minimum; its arguments are names or numbers.
func billedFormula(runSec, unitSec, minimum, rounding string) string {
	billed := runSec + "/" + unitSec
	switch rounding {
	case "up":
		billed = "CEILING(" + billed + ",1)"
	case "down":
		billed = "FLOOR(" + billed + ",1)"
	case "nearest":
		billed = "ROUND(" + billed + ",0)"
	}
	return fmt.Sprintf("MAX(%s,%s)", billed, minimum)
}

func roundingText(r string) string {
	switch r {
	case "up", "down", "nearest":
		return r
	}
	return "none"
}

// quoteBilling returns the GPU line's billing terms from the quote file
// the run used. QuoteLine carries the billed units but not the rounding
// rule, so the rule is recovered from the quote.
func quoteBilling(c *analysis.RunCosting) *costing.Billing {
	if c.Quote == nil || c.QuoteBilling == nil {
		return nil
	}
	return c.QuoteBilling
}

func multiplierUnit(rateUnit string) string {
	if rateUnit == "instance-hour" {
		return "instances"
	}
	return "GPUs"
}

func joinNotes(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += "; "
		}
		s += n
	}
	return s
}

func joinErrs(es []error) string {
	var ss []string
	for _, e := range es {
		ss = append(ss, e.Error())
	}
	return joinNotes(ss)
}

// unitLines writes the counts and unit costs over TOTAL_COST (prefix
// "BILL_" for the bill), with the throughput interval carried through the
// cost rate when there is one.
//
// With scaled (the quote), the counts follow RUN_SECONDS at the rate
// measured: COUNT = MEASURED_COUNT * RUN_SECONDS / MEASURED_SECONDS, so
// that a changed run time moves the counts, the unit costs and their
// intervals together (the intervals are TOTAL_COST / RUN_SECONDS over the
// throughput bounds). A bill is for the run window as delivered: its
// counts and BILL_RUN_SECONDS are what was measured.
func (b *book) unitLines(sheet string, row int, r *analysis.ReportRun, s, prefix string, units []costing.UnitCost, runSec float64, scaled bool) (int, bool, error) {
	c := r.Cost
	cur := ""
	for _, u := range units {
		cur = u.Currency
	}
	money := "num:" + numFmt(cur)
	p := prefix
	type count struct {
		name, unit, what string
		n                int64
	}
	cs := []count{
		{"SUCCESSFUL_REQUESTS", "requests", "successful requests of the run", c.Window.SuccessfulRequests},
		{"OUTPUT_TOKENS", "tokens", "output tokens of successful requests", c.Window.OutputTokens},
		{"TOTAL_TOKENS", "tokens", "input + output tokens of successful requests", c.Window.TotalTokens},
	}
	var counts []line
	if scaled {
		counts = append(counts, line{name: p + "MEASURED_SECONDS" + s, value: runSec, unit: "s",
			formulaText: "constant: the run time the counts below were measured over", verdict: runSec, style: "num:#,##0.000000000"})
	}
	for _, k := range cs {
		if !scaled {
			counts = append(counts, line{name: p + k.name + s, value: float64(k.n), unit: k.unit, formulaText: "input (" + k.what + ")",
				verdict: float64(k.n), style: "input:#,##0"})
			continue
		}
		counts = append(counts,
			line{name: p + "MEASURED_" + k.name + s, value: float64(k.n), unit: k.unit, formulaText: "input (" + k.what + ", as measured)",
				verdict: float64(k.n), style: "input:#,##0"},
			line{name: p + k.name + s, formula: fmt.Sprintf("%sMEASURED_%s%s*%sRUN_SECONDS%s/%sMEASURED_SECONDS%s", p, k.name, s, p, s, p, s),
				unit: k.unit, formulaText: "MEASURED_" + k.name + " * RUN_SECONDS / MEASURED_SECONDS (the measured rate over the priced run time)",
				verdict: float64(k.n), style: "num:#,##0.###"})
	}
	verdictOf := func(metric string) (costing.UnitCost, float64) {
		for _, u := range units {
			if u.Metric == metric {
				return u, u.Value
			}
		}
		return costing.UnitCost{}, nan()
	}
	total := p + "TOTAL_COST" + s
	_, vReq := verdictOf(costing.CostPerSuccessfulRequest)
	uOut, vOut := verdictOf(costing.CostPer1MOutputTokens)
	_, vTot := verdictOf(costing.CostPer1MTotalTokens)
	unitLns := []line{
		{name: p + "COST_PER_REQUEST" + s, formula: fmt.Sprintf("%s/%sSUCCESSFUL_REQUESTS%s", total, p, s), unit: cur + " per request",
			formulaText: "TOTAL_COST / SUCCESSFUL_REQUESTS", verdict: vReq, style: money, comment: "cost per successful request of " + r.Name},
		{name: p + "COST_PER_1M_OUTPUT_TOKENS" + s, formula: fmt.Sprintf("%s*1000000/%sOUTPUT_TOKENS%s", total, p, s), unit: cur + " per 1M output tokens",
			formulaText: "TOTAL_COST * 1000000 / OUTPUT_TOKENS", verdict: vOut, style: "total:" + numFmt(cur), comment: "cost per 1M output tokens of " + r.Name},
		{name: p + "COST_PER_1M_TOTAL_TOKENS" + s, formula: fmt.Sprintf("%s*1000000/%sTOTAL_TOKENS%s", total, p, s), unit: cur + " per 1M tokens",
			formulaText: "TOTAL_COST * 1000000 / TOTAL_TOKENS", verdict: vTot, style: money},
	}
	var lines []line
	lines = append(lines, counts...)
	for i, ln := range unitLns {
		n := []int64{c.Window.SuccessfulRequests, c.Window.OutputTokens, c.Window.TotalTokens}[i]
		if n <= 0 {
			continue // the formula would divide by zero; the count row says why
		}
		lines = append(lines, ln)
	}
	tp := c.Throughput.OutputTokensPerSecond
	hasLo := tp != nil && c.Window.OutputTokens > 0 && runSec > 0 && !math.IsNaN(uOut.Lo)
	if hasLo {
		ivText := fmt.Sprintf("%g %% interval of output token throughput", 100*tp.Level)
		lines = append(lines,
			line{name: p + "OUTPUT_TPS_LO" + s, value: tp.Lo, unit: "tokens/s", formulaText: "input: " + ivText + ", low", verdict: tp.Lo, style: "input:#,##0.000"},
			line{name: p + "OUTPUT_TPS_HI" + s, value: tp.Hi, unit: "tokens/s", formulaText: "input: " + ivText + ", high", verdict: tp.Hi, style: "input:#,##0.000"},
			line{name: p + "COST_PER_1M_OUTPUT_TOKENS_LO" + s, formula: fmt.Sprintf("%s/%s*1000000/%sOUTPUT_TPS_HI%s", total, runSecondsName(p, s), p, s),
				unit: cur + " per 1M output tokens", formulaText: "TOTAL_COST / RUN_SECONDS * 1000000 / OUTPUT_TPS_HI", verdict: uOut.Lo, style: money},
			line{name: p + "COST_PER_1M_OUTPUT_TOKENS_HI" + s, formula: fmt.Sprintf("%s/%s*1000000/%sOUTPUT_TPS_LO%s", total, runSecondsName(p, s), p, s),
				unit: cur + " per 1M output tokens", formulaText: "TOTAL_COST / RUN_SECONDS * 1000000 / OUTPUT_TPS_LO", verdict: uOut.Hi, style: money},
		)
	}
	for _, ln := range lines {
		if err := b.writeLine(sheet, row, ln); err != nil {
			return row, false, err
		}
		row++
	}
	return row, hasLo, nil
}

func runSecondsName(prefix, s string) string { return prefix + "RUN_SECONDS" + s }

// steadyLines writes the steady-state cost per 1M output tokens beside
// the billed cost of the test run (analysis.RunCosting.Steady): the rate
// per hour over the measured output token throughput, with the
// throughput's interval. rate is the rate's formula over the quote's
// inputs (so GPU_RATE edits reach it); empty writes the rate as a number.
// The block is left out when the run has no steady rate or throughput.
func (b *book) steadyLines(sheet string, row int, r *analysis.ReportRun, s, rate string) (int, error) {
	c := r.Cost
	tp := c.Throughput.OutputTokensPerSecond
	var u *costing.UnitCost
	for i := range c.Steady {
		if c.Steady[i].Metric == costing.SteadyCostPer1MOutputTokens && !math.IsNaN(c.Steady[i].Value) {
			u = &c.Steady[i]
		}
	}
	if c.SteadyRate == nil || u == nil || tp == nil {
		return row, nil
	}
	cur := c.SteadyRate.Currency
	money := "num:" + numFmt(cur)
	sr := line{name: "STEADY_RATE_PER_HOUR" + s, value: c.SteadyRate.PerHour, unit: cur + " per hour of run time",
		formulaText: "input (" + c.SteadyRate.Source + ": " + c.SteadyRate.Formula + ")", verdict: c.SteadyRate.PerHour, style: "input:" + numFmt(cur)}
	if rate != "" {
		sr.formula, sr.style, sr.formulaText = rate, money, c.SteadyRate.Formula
	}
	if len(c.SteadyRate.Left) > 0 {
		sr.notes = "left out (they do not grow with run time): " + strings.Join(c.SteadyRate.Left, ", ")
	}
	ivText := fmt.Sprintf("%g %% interval of output token throughput", 100*tp.Level)
	lines := []line{sr,
		{name: "STEADY_OUTPUT_TPS" + s, value: tp.Point, unit: "tokens/s", formulaText: "input: measured output token throughput", verdict: tp.Point, style: "input:#,##0.000"},
		{name: "STEADY_COST_PER_1M_OUTPUT_TOKENS" + s, formula: fmt.Sprintf("STEADY_RATE_PER_HOUR%s/3600*1000000/STEADY_OUTPUT_TPS%s", s, s),
			unit: cur + " per 1M output tokens", formulaText: "steady state: STEADY_RATE_PER_HOUR / 3600 * 1000000 / STEADY_OUTPUT_TPS (not the billed cost of this test run)",
			verdict: u.Value, style: "total:" + numFmt(cur), comment: "steady-state cost per 1M output tokens of " + r.Name},
	}
	if tp.Lo > 0 && tp.Hi > 0 {
		lines = append(lines,
			line{name: "STEADY_OUTPUT_TPS_LO" + s, value: tp.Lo, unit: "tokens/s", formulaText: "input: " + ivText + ", low", verdict: tp.Lo, style: "input:#,##0.000"},
			line{name: "STEADY_OUTPUT_TPS_HI" + s, value: tp.Hi, unit: "tokens/s", formulaText: "input: " + ivText + ", high", verdict: tp.Hi, style: "input:#,##0.000"},
			line{name: "STEADY_COST_PER_1M_OUTPUT_TOKENS_LO" + s, formula: fmt.Sprintf("STEADY_RATE_PER_HOUR%s/3600*1000000/STEADY_OUTPUT_TPS_HI%s", s, s),
				unit: cur + " per 1M output tokens", formulaText: "STEADY_RATE_PER_HOUR / 3600 * 1000000 / STEADY_OUTPUT_TPS_HI", verdict: u.Lo, style: money},
			line{name: "STEADY_COST_PER_1M_OUTPUT_TOKENS_HI" + s, formula: fmt.Sprintf("STEADY_RATE_PER_HOUR%s/3600*1000000/STEADY_OUTPUT_TPS_LO%s", s, s),
				unit: cur + " per 1M output tokens", formulaText: "STEADY_RATE_PER_HOUR / 3600 * 1000000 / STEADY_OUTPUT_TPS_LO", verdict: u.Hi, style: money})
	}
	for _, ln := range lines {
		if err := b.writeLine(sheet, row, ln); err != nil {
			return row, err
		}
		row++
	}
	b.steadyNames[r] = len(lines) > 3
	return row, nil
}

// billBlock writes a run's bill allocations with live shares, the bill
// total and its unit costs.
func (b *book) billBlock(sheet string, row int, r *analysis.ReportRun, s string) (int, error) {
	c := r.Cost
	rc := c.Bill
	title := fmt.Sprintf("Bill for %s: %s, %s cost", r.Name, rc.Status, rc.Basis)
	if err := b.setText(sheet, 1, row, title, "title"); err != nil {
		return row, err
	}
	row++
	notes := []string{c.WindowNote}
	for _, m := range rc.Resources {
		n := fmt.Sprintf("resource %s: %d billing rows, %d overlapping the window", m.ResourceID, m.Rows, m.Overlapping)
		if m.Hint != "" {
			n += "; " + m.Hint
		}
		notes = append(notes, n)
	}
	for _, w := range rc.Warnings {
		notes = append(notes, w.Error())
	}
	var err error
	if row, err = b.notes(sheet, row, notes); err != nil {
		return row, err
	}
	if len(rc.Allocations) == 0 {
		return row + 1, nil
	}
	const (
		aCharge, aAlloc, aCur, aRule, aVerdict, aNotes, aCost, aOverlap, aPeriod, aResource, aStart, aEnd, aIncluded = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	)
	hdr := []string{"charge (file:line)", "allocated", "currency", "rule", "verdict's allocation", "notes", "charge cost", "overlap (s)",
		"period (s)", "resource", "period start", "period end", "included"}
	if err := b.header(sheet, "", row, hdr); err != nil {
		return row, err
	}
	row++
	first := row
	currency := ""
	for _, a := range rc.Allocations {
		ch := a.Charge
		cost, _ := ch.Cost(rc.Basis)
		currency = ch.BillingCurrency
		money := "num:" + numFmt(ch.BillingCurrency)
		inc := "no"
		if a.Included {
			inc = "yes"
		}
		texts := map[int]string{aCharge: fmt.Sprintf("%s:%d", ch.Source.File, ch.Source.Line), aCur: ch.BillingCurrency, aRule: string(a.Rule),
			aNotes: joinNotes(a.Notes), aResource: ch.ResourceID, aStart: ch.ChargePeriodStart.UTC().Format(time.RFC3339),
			aEnd: ch.ChargePeriodEnd.UTC().Format(time.RFC3339), aIncluded: inc}
		for col, t := range texts {
			if err := b.setText(sheet, col, row, t, ""); err != nil {
				return row, err
			}
		}
		if err := b.setNum(sheet, aCost, row, cost.Float64(), "input:"+numFmt(ch.BillingCurrency)); err != nil {
			return row, err
		}
		if err := b.setNum(sheet, aOverlap, row, a.Overlap.Seconds(), "num:#,##0.###"); err != nil {
			return row, err
		}
		if err := b.setNum(sheet, aPeriod, row, a.Period.Seconds(), "num:#,##0.###"); err != nil {
			return row, err
		}
		formula := "0"
		switch {
		case !a.Included:
		case a.Rule == costing.RuleProrated:
			formula = fmt.Sprintf("%s*%s/%s", cell(aCost, row), cell(aOverlap, row), cell(aPeriod, row))
		default:
			formula = cell(aCost, row)
		}
		if err := b.setFormula(sheet, aAlloc, row, formula, money); err != nil {
			return row, err
		}
		alloc := a.Effective
		switch rc.Basis {
		case costing.Billed:
			alloc = a.Billed
		case costing.List:
			alloc = a.List.Decimal
		}
		if err := b.setNum(sheet, aVerdict, row, alloc.Float64(), money); err != nil {
			return row, err
		}
		row++
	}
	last := row - 1
	if rc.Total == nil {
		if err := b.setText(sheet, 1, row, "no single total: the charges are in several currencies (no exchange rate was given)", "note"); err != nil {
			return row, err
		}
		return row + 2, nil
	}
	cur := rc.Total.Currency
	if cur != currency {
		return row, fmt.Errorf("xlsx: bill total in %s, rows in %s", cur, currency)
	}
	runSec := c.Window.Duration().Seconds()
	lines := []line{
		{name: "BILL_TOTAL_COST" + s, formula: fmt.Sprintf("SUM(%s:%s)", cell(aAlloc, first), cell(aAlloc, last)), unit: cur,
			formulaText: "sum of the allocated column (rows not included allocate 0)", verdict: rc.Total.Amount.Float64(),
			style: "total:" + numFmt(cur), notes: "no finer than " + string(rc.Coarsest) + " billing rows", comment: "billed cost of " + r.Name},
		{name: "BILL_RUN_SECONDS" + s, value: runSec, unit: "s", formulaText: "constant: the run window the charges were allocated over",
			verdict: runSec, style: "num:#,##0.000", notes: "the allocations above are for this window: the bill's figures are valid for the inputs as delivered (edit a charge cost, not the run time)"},
	}
	for _, ln := range lines {
		if err := b.writeLine(sheet, row, ln); err != nil {
			return row, err
		}
		row++
	}
	row, hasLo, err := b.unitLines(sheet, row, r, s, "BILL_", c.BillUnits, runSec, false)
	if err != nil {
		return row, err
	}
	if c.UnitsSource == "bill" {
		b.costNames[r] = costRef{prefix: "BILL_", suffix: s, hasLo: hasLo}
	}
	return row + 1, nil
}
