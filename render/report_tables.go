package render

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/schemas"
)

// WriteReport writes the report's tables in format f: the Summary,
// validation and cost tables when brief is set (for terminals), every
// table otherwise.
//
// JSON is the verdict.report/v1 document: the title and the tables, each
// cell its machine value (an estimate as stat, value, lo, hi).
func WriteReport(w io.Writer, rep *analysis.Report, f Format, brief bool) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Schema  string     `json:"schema"`
			Title   string     `json:"title"`
			Verdict verdictDoc `json:"verdict"`
			Tables  []tableDoc `json:"tables"`
		}{analysis.ReportSchema, rep.Title, verdictJSON(rep.Verdict), tablesJSON(ReportTables(rep, brief))})
	}
	return Write(w, f, ReportTables(rep, brief))
}

// ReportTables builds the text tables of a report: the verdict on top
// (VerdictTable) with the differences of comparable pairs, the Summary
// (one column per run), the system under test side by side, each run's metrics with
// intervals, validation findings, costs, definitions and sources. With
// brief, only the Summary, validation and costs. The trend's tables
// (TrendTables, verdict report --trend) follow the capacity tables; a report of a trend
// alone (no bundles, no runs) has only those.
func ReportTables(rep *analysis.Report, brief bool) []*Table {
	if rep.Trend != nil && len(rep.Bundles) == 0 && len(rep.Runs) == 0 {
		return TrendTables(rep.Trend)
	}
	out := []*Table{VerdictTable(rep)}
	out = append(out, DifferenceTables(rep)...)
	out = append(out, SummaryTable(rep))
	if !brief {
		out = append(out, InventoryTable(rep))
		for _, r := range rep.Runs {
			out = append(out, ReportMetricsTable(rep, r))
		}
	}
	out = append(out, ValidationTable(rep))
	if rep.Costs != nil {
		out = append(out, CostsTable(rep))
		for _, b := range []*Table{BillingTable(rep), BillBasesTable(rep)} {
			if b != nil {
				out = append(out, b)
			}
		}
	}
	out = append(out, reportCapacityTables(rep, brief)...)
	if rep.Trend != nil {
		out = append(out, TrendTables(rep.Trend)...)
	}
	if !brief {
		out = append(out, DefinitionsTable(rep.Definitions))
		for _, b := range rep.Bundles {
			t := SourcesTable(b.Manifest)
			t.Title = "Sources of " + b.Path
			out = append(out, t)
		}
	}
	return out
}

// runColumns heads a table with one column per run.
func runColumns(first string, rep *analysis.Report) []string {
	cols := []string{first}
	for _, r := range rep.Runs {
		cols = append(cols, r.Name)
	}
	return cols
}

// EstimateCell shows a value with its interval; its machine value is the
// Estimate (JSON: stat, value, lo, hi, confidence, interval_method).
func EstimateCell(e analysis.Estimate, unit string) Cell {
	return N(EstimateText(e, unit), e)
}

// SUTSummary is the GPU and engine of a run in a few words.
func SUTSummary(r schemas.Run) (gpu, engine string) {
	gpu = orUnknown(r.SUT.GPUModel)
	if r.SUT.GPUCount.OK {
		gpu = strconv.FormatInt(r.SUT.GPUCount.V, 10) + " × " + gpu
	}
	engine = orUnknown(strings.TrimSpace(r.SUT.Engine + " " + r.SUT.EngineVersion))
	return gpu, engine
}

// LoadText describes how load was offered.
func LoadText(r schemas.Run) string {
	s := string(r.Scenario)
	if r.Arrival != "" && r.Arrival != schemas.ArrivalUnknown {
		s += ", " + string(r.Arrival)
	}
	if c := RateCell(r.RequestRate); c.Text != Unknown {
		s += ", " + c.Text
	}
	if r.MaxConcurrency.OK && r.MaxConcurrency.V > 0 {
		s += ", max concurrency " + strconv.FormatInt(r.MaxConcurrency.V, 10)
	}
	return s
}

// ModelOf is the model the SUT inventory names, else the tool's.
func ModelOf(r schemas.Run) string {
	if r.SUT.Model != "" {
		s := r.SUT.Model
		if r.SUT.Quantization != "" {
			s += " (" + r.SUT.Quantization + ")"
		}
		return s
	}
	return orUnknown(r.Model)
}

// RequestsText is "ok / failed" from the run's counts.
func RequestsText(r schemas.Run) string {
	return optI(r.Completed).Text + " ok / " + optI(r.Failed).Text + " failed"
}

// CostCell shows a unit cost with its interval, or why it is unknown.
func CostCell(c *analysis.RunCosting, metric string) Cell {
	if c == nil {
		return T("not costed (no --billing or --quote)")
	}
	u, ok := c.Unit(metric)
	if !ok {
		return T(Unknown + ": " + c.Why())
	}
	if math.IsNaN(u.Value) {
		return T(Unknown + ": " + u.Note)
	}
	return unitCell(u, " ("+c.UnitsSource+")")
}

// SteadyCell shows a steady-state unit cost (analysis.RunCosting.Steady)
// with its interval and the rate it divides, or why it is unknown.
func SteadyCell(c *analysis.RunCosting, metric string) Cell {
	if c == nil {
		return T("not costed (no --billing or --quote)")
	}
	u, ok := c.SteadyUnit(metric)
	if !ok {
		return T(Unknown + ": " + c.Why())
	}
	if math.IsNaN(u.Value) {
		return T(Unknown + ": " + u.Note)
	}
	return unitCell(u, fmt.Sprintf(" (%s %s/h / throughput)", moneyNumber(c.SteadyRate.PerHour), c.SteadyRate.Currency))
}

// unitCell is a unit cost with its interval and a suffix.
func unitCell(u costing.UnitCost, suffix string) Cell {
	e := analysis.Estimate{Stat: analysis.StatValue, Value: u.Value, Lo: u.Lo, Hi: u.Hi, Confidence: u.Level}
	text := MoneyText(u.Value, u.Currency)
	if !math.IsNaN(u.Lo) && !math.IsNaN(u.Hi) {
		text = moneyNumber(u.Value) + " [" + moneyNumber(u.Lo) + ", " + moneyNumber(u.Hi) + "] " + u.Currency
	}
	return N(text+suffix, e)
}

// MoneyText formats an amount for people: cents from 100 up, four
// significant digits below, never with an exponent.
func MoneyText(v float64, currency string) string {
	return moneyNumber(v) + " " + currency
}

func moneyNumber(v float64) string { return moneySig(v, 4) }

// moneySig writes v with n significant digits (cents from 100 up),
// without an exponent.
func moneySig(v float64, n int) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return Sig(v, 4)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	digits := min(n-1-int(math.Floor(math.Log10(a))), 15)
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// SummaryTable has one row per figure and one column per run.
func SummaryTable(rep *analysis.Report) *Table {
	t := &Table{Title: "Summary (one column per run, in input order; not ranked)", Columns: runColumns("figure", rep)}
	// One column per run mixes text and numbers down a column, so every
	// cell is left-aligned.
	row := func(label string, cell func(r *analysis.ReportRun) Cell) {
		cells := []Cell{T(label)}
		for _, r := range rep.Runs {
			c := cell(r)
			c.Right = false
			cells = append(cells, c)
		}
		t.AddRow(cells...)
	}
	row("run", func(r *analysis.ReportRun) Cell { return T(r.Run.ID) })
	row("model", func(r *analysis.ReportRun) Cell { return T(ModelOf(r.Run)) })
	row("GPU", func(r *analysis.ReportRun) Cell { g, _ := SUTSummary(r.Run); return T(g) })
	row("engine", func(r *analysis.ReportRun) Cell { _, e := SUTSummary(r.Run); return T(e) })
	row("load", func(r *analysis.ReportRun) Cell { return T(LoadText(r.Run)) })
	row("requests", func(r *analysis.ReportRun) Cell { return T(RequestsText(r.Run)) })
	for _, spec := range analysis.HeadlineSpecs {
		row(spec.Label, func(r *analysis.ReportRun) Cell {
			h, _ := r.Headline(spec.Key)
			if !h.Known {
				return T(Unknown)
			}
			return EstimateCell(h.Est, h.Unit)
		})
	}
	if rep.Costs != nil {
		row("cost per 1M output tokens, steady state (rate / throughput)", func(r *analysis.ReportRun) Cell {
			return SteadyCell(r.Cost, costing.SteadyCostPer1MOutputTokens)
		})
		row("cost per 1M output tokens, billed for this test run", func(r *analysis.ReportRun) Cell { return CostCell(r.Cost, costing.CostPer1MOutputTokens) })
		row("cost per successful request, steady state", func(r *analysis.ReportRun) Cell {
			return SteadyCell(r.Cost, costing.SteadyCostPerSuccessfulRequest)
		})
		row("cost per successful request, billed for this test run", func(r *analysis.ReportRun) Cell { return CostCell(r.Cost, costing.CostPerSuccessfulRequest) })
		row("total cost of this test run", func(r *analysis.ReportRun) Cell { return CostCell(r.Cost, costing.TotalCost) })
	}
	row("validation", func(r *analysis.ReportRun) Cell {
		if rep.Validation == nil {
			return T("not available")
		}
		return T(orUnknown(r.Verdict))
	})
	row("status", func(r *analysis.ReportRun) Cell { return T(r.Status()) })
	if rep.Costs != nil {
		t.Notes = append(t.Notes, "steady state: what a unit costs at the measured throughput once the run is long enough for billing minimums and rounding not to matter, the rate per hour (the quote's rates, or the bill's prorated rows per hour of the run) / the throughput, with the throughput's interval; billed for this test run: the test run's own cost (billing units, rounding, minimums and per-run fees included) / its counts")
	}
	t.Notes = append(t.Notes, rep.Notes...)
	for _, r := range rep.Runs {
		for _, n := range r.Notes {
			t.Notes = append(t.Notes, "note: "+r.Name+": "+n)
		}
		if r.Cost != nil && r.Cost.WindowFromDuration {
			t.Notes = append(t.Notes, "note: "+r.Name+": "+r.Cost.WindowNote)
		}
	}
	return t
}

// InventoryFields lists the provenance and system-under-test rows of the
// inventory table, each with how to read it from a run.
func InventoryFields(runs []*analysis.ReportRun) []InventoryField {
	fs := []InventoryField{
		{"bundle", func(r *analysis.ReportRun) string { return r.Bundle }},
		{"run", func(r *analysis.ReportRun) string { return r.Run.ID }},
		{"tool", func(r *analysis.ReportRun) string { return r.Run.Tool }},
		{"tool version", func(r *analysis.ReportRun) string { return r.Run.ToolVersion }},
		{"format", func(r *analysis.ReportRun) string { return r.Run.Format }},
		{"source", func(r *analysis.ReportRun) string {
			return fmt.Sprintf("%s (object %d)", r.Run.SourcePath, r.Run.SourceRecord)
		}},
		{"source SHA-256", func(r *analysis.ReportRun) string { return r.Run.SourceSHA256 }},
		{"scenario", func(r *analysis.ReportRun) string { return string(r.Run.Scenario) }},
		{"arrival", func(r *analysis.ReportRun) string { return string(r.Run.Arrival) }},
		{"request rate", func(r *analysis.ReportRun) string { return optText(RateCell(r.Run.RequestRate)) }},
		{"burstiness", func(r *analysis.ReportRun) string { return optText(optF(r.Run.Burstiness, "")) }},
		{"max concurrency", func(r *analysis.ReportRun) string { return optText(ConcurrencyCell(r.Run.MaxConcurrency)) }},
		{"streaming", func(r *analysis.ReportRun) string { return optText(optB(r.Run.Streaming)) }},
		{"backend", func(r *analysis.ReportRun) string { return r.Run.Backend }},
		{"endpoint", func(r *analysis.ReportRun) string { return r.Run.Endpoint }},
		{"model (tool)", func(r *analysis.ReportRun) string { return r.Run.Model }},
		{"tokenizer", func(r *analysis.ReportRun) string { return r.Run.Tokenizer }},
		{"num prompts", func(r *analysis.ReportRun) string { return optText(optI(r.Run.NumPrompts)) }},
		{"completed", func(r *analysis.ReportRun) string { return optText(optI(r.Run.Completed)) }},
		{"failed", func(r *analysis.ReportRun) string { return optText(optI(r.Run.Failed)) }},
		{"duration", func(r *analysis.ReportRun) string { return optText(optF(r.Run.DurationS, schemas.UnitSeconds)) }},
		{"window", func(r *analysis.ReportRun) string { return windowText(r.Run) }},
		{"tool date", func(r *analysis.ReportRun) string { return r.Run.ToolDate }},
		{"token source", func(r *analysis.ReportRun) string { return r.Run.TokenSource }},
		{"flags", func(r *analysis.ReportRun) string {
			if len(r.Run.Flags) == 0 {
				return "none"
			}
			return strings.Join(r.Run.Flags, ", ")
		}},
	}
	labels := map[string]bool{}
	for _, r := range runs {
		for k := range r.Run.Labels {
			labels[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fs = append(fs, InventoryField{"label " + k, func(r *analysis.ReportRun) string { return r.Run.Labels[k] }})
	}
	for i, f := range (schemas.Inventory{}).Fields() {
		fs = append(fs, InventoryField{"sut: " + f[0], func(r *analysis.ReportRun) string { return r.Run.SUT.Fields()[i][1] }})
	}
	return fs
}

// An InventoryField is one row of the inventory table; Value returns ""
// for unknown.
type InventoryField struct {
	Name  string
	Value func(*analysis.ReportRun) string
}

// InventoryTable shows every run's provenance and system under test side
// by side, unknowns as unknown.
func InventoryTable(rep *analysis.Report) *Table {
	t := &Table{Title: "System under test and provenance", Columns: runColumns("field", rep)}
	for _, f := range InventoryFields(rep.Runs) {
		cells := []Cell{T(f.Name)}
		for _, r := range rep.Runs {
			cells = append(cells, T(orUnknown(f.Value(r))))
		}
		t.AddRow(cells...)
	}
	return t
}

// StatText is a metric row's statistic: "p99" for percentiles.
func StatText(m schemas.Metric) string {
	if m.Stat == schemas.StatP && m.Percentile.OK {
		return "p" + strconv.FormatFloat(m.Percentile.V, 'g', -1, 64)
	}
	return m.Stat
}

// ReportMetricsTable lists a run's metric rows with their intervals.
func ReportMetricsTable(rep *analysis.Report, r *analysis.ReportRun) *Table {
	t := &Table{Title: "Metrics of " + r.Name, Columns: []string{"metric", "stat", "value", "interval", "method", "source", "native name", "note"}}
	for _, m := range r.Metrics {
		val, iv := T(Unknown), T("")
		if m.Value.OK {
			val = N(Quantity(m.Value.V, m.Unit), m.Value.V)
		}
		if e, ok := r.MetricInterval(m); ok {
			iv = N("["+Quantity(e.Lo, m.Unit)+", "+Quantity(e.Hi, m.Unit)+"]", e)
		}
		t.AddRow(T(string(m.MetricID)), T(StatText(m)), val, iv, T(m.Method), T(m.Source), T(m.NativeName), T(m.Note))
	}
	if len(r.Metrics) == 0 {
		t.Notes = append(t.Notes, "the bundle has no metric rows for this run")
	}
	return t
}

// ValidationTable lists the findings, or says validation is not
// available.
func ValidationTable(rep *analysis.Report) *Table {
	t := &Table{Title: "Validation", Columns: []string{"severity", "effect", "rule", "subject", "message"}}
	v := rep.Validation
	if v == nil {
		t.Notes = append(t.Notes, rep.ValidationText()+".")
		return t
	}
	pass := "passed"
	if !v.Pass {
		pass = "failed"
	}
	t.Title = fmt.Sprintf("Validation: %s (gate %s)", orUnknown(v.Verdict), pass)
	for _, f := range v.Findings {
		sev := f.Severity
		if f.Unverified {
			sev += " (unverified)"
		}
		t.AddRow(T(sev), T(f.Effect), T(f.Rule), T(f.Subject), T(f.Message))
	}
	if len(v.Findings) == 0 {
		t.Notes = append(t.Notes, "no findings")
	}
	t.Notes = append(t.Notes, v.Notes...)
	return t
}

// BillingTable says per run whether the bills costed it, over which
// window, and if not why not. Nil without bills.
func BillingTable(rep *analysis.Report) *Table {
	if rep.Costs == nil || rep.Costs.Join == nil {
		return nil
	}
	t := &Table{Title: "Billing by run", Columns: []string{"run", "billed", "window", "why not"}}
	n := 0
	for _, r := range rep.Runs {
		if r.Cost == nil {
			continue
		}
		billed, why := r.Cost.Billed()
		win := Unknown
		if w := r.Cost.Window; w.HasWindow() {
			win = w.Start.UTC().Format(time.RFC3339Nano) + " to " + w.End.UTC().Format(time.RFC3339Nano)
			if r.Cost.WindowFromDate {
				win += " (from the tool's local date)"
			}
		}
		yes := "yes"
		if !billed {
			yes, n = "NO", n+1
		}
		t.AddRow(T(r.Name), T(yes), T(win), T(why))
	}
	if n > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d of %d runs could not be billed; 'why not' says what is missing", n, len(rep.Runs)))
	}
	return t
}

// BillBasesTable shows each billed run's totals per currency on every
// basis the bills carry, side by side: billed (invoiced), effective
// (amortised) and list (on-demand), and which one TOTAL_COST uses. Nil
// when no run was joined to a bill.
func BillBasesTable(rep *analysis.Report) *Table {
	t := &Table{Title: "Bill totals by basis", Columns: []string{"run", "currency", "billed", "effective", "list", "rows", "TOTAL_COST uses"}}
	for _, r := range rep.Runs {
		if r.Cost == nil || r.Cost.Bill == nil {
			continue
		}
		b := r.Cost.Bill
		basis := string(b.Basis)
		if basis == "" {
			basis = string(costing.Effective)
		}
		for _, ct := range b.Totals {
			cell := func(basis costing.CostBasis) Cell {
				v, ok := ct.Basis(basis)
				if !ok {
					return T(Unknown + " (rows without a list cost)")
				}
				return N(v.String()+" "+ct.Currency, v.Float64())
			}
			t.AddRow(T(r.Name), T(ct.Currency), cell(costing.Billed), cell(costing.Effective), cell(costing.List), N(fmt.Sprint(ct.Rows), float64(ct.Rows)), T(basis))
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "billed: invoiced cost (FOCUS BilledCost; AWS CUR net unblended, else unblended cost); effective: amortised, commitment-aware cost (FOCUS EffectiveCost; CUR reservation and savings-plan effective cost); list: on-demand reference (FOCUS ListCost; CUR public on-demand cost); --basis chooses the one TOTAL_COST and the unit costs use")
	return t
}

// CostsTable lists every cost record, then how each run was costed.
func CostsTable(rep *analysis.Report) *Table {
	t := &Table{Title: "Costs", Columns: []string{"run", "source", "item", "rate", "quantity", "unit", "amount", "formula", "notes"}}
	name := map[string]string{}
	for _, r := range rep.Runs {
		name[r.Run.ID] = r.Name
	}
	for _, c := range rep.CostRecords() {
		amount := T(Unknown)
		if c.Amount != "" {
			// Exact decimals can run to 26 digits; people get six
			// significant ones (JSON keeps the float, the workbook the
			// formulas).
			text := c.Amount
			if len(text) > 14 {
				text = moneySig(c.AmountFloat, 6)
			}
			amount = N(text+" "+c.Currency, c.AmountFloat)
		}
		item := c.Item
		if c.Sort == "total" && c.Basis != "" {
			item += " (" + c.Basis + ")"
		}
		t.AddRow(T(name[c.RunID]), T(c.Source), T(item), T(c.Rate), T(c.Quantity), T(c.Unit), amount, T(c.Formula), T(c.Notes))
	}
	for _, r := range rep.Runs {
		if c := r.Cost; c != nil {
			t.Notes = append(t.Notes, r.Name+": "+c.WindowNote)
			if c.QuoteErr != "" {
				t.Notes = append(t.Notes, r.Name+": "+c.QuoteErr)
			}
			if c.Bill != nil {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: bill: %s", r.Name, c.Bill.Status))
				for _, w := range c.Bill.Warnings {
					t.Notes = append(t.Notes, r.Name+": bill: "+w.Error())
				}
			}
			if c.Quote != nil {
				for _, w := range c.Quote.Warnings {
					t.Notes = append(t.Notes, r.Name+": quote: "+w.Error())
				}
			}
		}
	}
	if rep.Costs != nil {
		t.Notes = append(t.Notes, rep.Costs.Notes...)
	}
	return t
}

// DefinitionsTable lists metric definitions by ID.
func DefinitionsTable(defs map[schemas.MetricID]schemas.MetricDef) *Table {
	t := &Table{Title: "Definitions of the metrics above", Columns: []string{"metric", "name", "unit", "level", "definition"}}
	for _, id := range slices.Sorted(maps.Keys(defs)) {
		def := defs[id]
		t.AddRow(T(string(id)), T(def.Name), T(def.Unit), T(string(def.Level)), T(def.Summary()))
	}
	return t
}
