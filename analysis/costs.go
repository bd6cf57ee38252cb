package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/internal/units"
	"github.com/verdict-llm/verdict/schemas"
)

// CostSettings are the cost choices verdict cost and verdict report share
// (their --basis, --currency and --fx flags).
type CostSettings struct {
	// Basis is the bill cost TOTAL_COST, the unit costs and the steady
	// rate use: "" or effective (amortised), billed (invoiced) or list
	// (on-demand). Every basis is always totalled.
	Basis costing.CostBasis
	// Currency, when set, states every bill total, quote unit cost and
	// steady-state cost in it, converted with FX (one rate from each
	// other currency: 1 FROM = RATE Currency). Without it costs in
	// several currencies are never added up.
	Currency string
	FX       []costing.ExchangeRate
	// TimeZone is the zone of the local times without a zone that some
	// tools write (vLLM's date, the end of the run to the second) for runs
	// whose inventory names none (Inventory.TimeZone): with it and the
	// run's duration such a run gets a window a bill can be joined to.
	TimeZone *time.Location
}

func (s CostSettings) join() costing.JoinOptions {
	return costing.JoinOptions{Basis: s.Basis, Currency: s.Currency, Rates: s.FX}
}

// flagHint rewrites costing's currency errors in the words of verdict's
// flags.
func flagHint(err error) error {
	var mixed *costing.MixedCurrencyError
	var norate *costing.NoRateError
	switch {
	case errors.As(err, &mixed):
		return fmt.Errorf("%w: %s; give --currency CUR and --fx FROM=RATE for each other currency (1 FROM = RATE CUR) to state one total",
			costing.ErrMixedCurrency, strings.Join(mixed.Currencies, ", "))
	case errors.As(err, &norate):
		return fmt.Errorf("%w from %s to %s: give --fx %s=RATE (1 %s = RATE %s)", costing.ErrNoRate, norate.From, norate.To, norate.From, norate.From, norate.To)
	}
	return err
}

// ReportCosts is the cost section of a report: the billing files read,
// their join to the runs, and the quotes.
type ReportCosts struct {
	Bills []*costing.Bill
	// Join is nil without billing files.
	Join *costing.JoinResult
	// Quotes are the quote files as given.
	Quotes []string
	Notes  []string

	// billFiles were joined over the runs' windows, giving billNotes:
	// Capacity reuses the join for the same files and windows.
	billFiles []string
	windows   []costing.RunWindow
	billNotes []string
}

// RunCosting is one run's costs.
//
// Windows: a bill is joined to a run only over the run's timestamped
// window (Run.WindowStart and WindowEnd, which capture bundles record);
// without one the join reports the run as having no window and costs
// nothing. A quote prices run time only, so without timestamps its hours
// come from the run's duration (Run.DurationS, the length of the window
// its throughputs divide by); WindowFromDuration says so.
type RunCosting struct {
	// Window is what costing saw: resource IDs, counts, and the window
	// (zero Start and End for a bill join without timestamps).
	Window costing.RunWindow
	// WindowNote says where the window or the quote's run time came from.
	WindowNote string
	// WindowFromDuration: the quote's run time is Run.DurationS, there
	// being no timestamps.
	WindowFromDuration bool
	// WindowFromDate: the window is the tool's local end time (vLLM's
	// date) in a time zone, minus the run's duration; WindowNote says
	// which zone and how precise.
	WindowFromDate bool
	// NoWindowWhy says why the run has no window a bill can be joined to
	// ("" when it has one).
	NoWindowWhy string
	// QuoteFile is the quote applied; Quote is nil when none applied or
	// the run could not be priced (QuoteErr says why).
	QuoteFile string
	Quote     *costing.QuoteCost
	QuoteErr  string
	// QuoteBilling is the quote's GPU billing terms (unit, rounding,
	// minimum), which a workbook needs to recompute the billed units.
	QuoteBilling *costing.Billing
	// Bill is the run's join result; nil without billing files.
	Bill *costing.RunCost
	// QuoteUnits and BillUnits are the unit costs from each total.
	QuoteUnits, BillUnits []costing.UnitCost
	// UnitsSource says which the Summary uses: "bill" when the bill
	// costed the run in one currency, else "quote", else "" (unknown).
	UnitsSource string
	Throughput  costing.Throughput

	// Steady is the steady-state unit cost: the rate per hour of running
	// the system (SteadyRate: the quote's rates, or the bill's prorated
	// rows per hour, without minimums, rounding or one-off fees) divided
	// by the measured throughput, with the throughput's interval. It is
	// what a long run at this throughput costs per unit, where Units is
	// what this test run was billed per unit (dominated by billing
	// minimums when the run is short). From the same source as Units when
	// it has one; nil SteadyRate when neither gives a rate.
	SteadyRate *costing.SteadyRate
	Steady     []costing.UnitCost
}

// SteadyUnit returns one steady-state unit cost (a costing.Steady*
// metric).
func (c *RunCosting) SteadyUnit(metric string) (costing.UnitCost, bool) {
	for _, u := range c.Steady {
		if u.Metric == metric {
			return u, true
		}
	}
	return costing.UnitCost{}, false
}

// steadyState sets c.SteadyRate and c.Steady: from the bill when the
// Summary's units come from it and it has prorated rows, else from the
// quote.
func steadyState(c *RunCosting, jo costing.JoinOptions) {
	var r *costing.SteadyRate
	if c.UnitsSource == "bill" && c.Bill != nil {
		r = costing.BillSteadyRate(*c.Bill, jo)
	}
	if r == nil && c.Quote != nil {
		q := c.Quote.SteadyRate()
		f, err := jo.Convert(costing.Money{Amount: costing.NewDecimal(1, 0), Currency: q.Currency})
		if err != nil {
			return // the quote's units say why (QuoteErr)
		}
		if f.Currency != q.Currency {
			q.PerHour *= f.Amount.Float64()
			q.Formula = "(" + q.Formula + ") * FX_" + q.Currency + "_" + f.Currency
			q.Currency = f.Currency
		}
		r = &q
	}
	if r == nil {
		return
	}
	c.SteadyRate, c.Steady = r, costing.SteadyUnitCosts(*r, c.Throughput)
}

// Units returns the unit costs the Summary uses.
func (c *RunCosting) Units() []costing.UnitCost {
	switch c.UnitsSource {
	case "bill":
		return c.BillUnits
	case "quote":
		return c.QuoteUnits
	}
	return nil
}

// Unit returns one unit cost of the Summary's source.
func (c *RunCosting) Unit(metric string) (costing.UnitCost, bool) {
	for _, u := range c.Units() {
		if u.Metric == metric {
			return u, true
		}
	}
	return costing.UnitCost{}, false
}

// vllmDate is the layout of vLLM's date: local time, no zone, seconds.
const vllmDate = "20060102-150405"

// DateWindow makes a run window from a tool's local end time without a
// zone (Run.ToolDate as vLLM writes date, "%Y%m%d-%H%M%S" when the run
// finished, docs/formats/vllm.md) and the run's duration: the zone is the
// inventory's time_zone, else tz. The date is truncated to the second, so
// the end is taken as date + 0.5 s (±0.5 s, plus the moment vLLM takes to
// write the file) and the start as the end minus DurationS. why says, when
// no window can be made, what is missing.
func DateWindow(run schemas.Run, tz *time.Location) (start, end time.Time, note, why string) {
	if run.ToolDate == "" {
		return start, end, "", "the run has no timestamps (its tool records none)"
	}
	local, err := time.Parse(vllmDate, run.ToolDate)
	if err != nil {
		return start, end, "", fmt.Sprintf("the run has no timestamps (its date %q is not vLLM's %%Y%%m%%d-%%H%%M%%S)", run.ToolDate)
	}
	if !run.DurationS.OK || !(run.DurationS.V > 0) {
		return start, end, "", fmt.Sprintf("the run has no timestamps and no duration to go back from its date %s", run.ToolDate)
	}
	zone, from := tz, "--timezone"
	if run.SUT.TimeZone != "" {
		if l, err := time.LoadLocation(run.SUT.TimeZone); err == nil {
			zone, from = l, "the inventory's time_zone"
		}
	}
	if zone == nil {
		return start, end, "", fmt.Sprintf("the run has no timestamps: its date %s is local time without a zone (give --timezone Area/City, or time_zone in its inventory)", run.ToolDate)
	}
	end = time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), 5e8, zone).UTC()
	start = end.Add(-time.Duration(run.DurationS.V * float64(time.Second)))
	note = fmt.Sprintf("run window %s to %s: the date %s (the local end of the run, to the second: ±0.5 s) in %s (%s), minus duration_s %s s",
		start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano), run.ToolDate, zone, from, units.Sig(run.DurationS.V, 9))
	return start, end, note, ""
}

// Billed says whether a bill costed the run, and if not why not: no
// window, no resource ID, no matching lines, or charges in several
// currencies. Both are zero when no bill was given.
func (c *RunCosting) Billed() (billed bool, why string) {
	if c.Bill == nil {
		return false, ""
	}
	b := c.Bill
	switch {
	case b.Status == costing.NoWindow:
		return false, "no window: " + cmp.Or(c.NoWindowWhy, "the run has no timestamped window")
	case b.Status == costing.NoCharges && len(c.Window.ResourceIDs) == 0:
		return false, "no resource ID: its inventory names none (cloud.resource_ids in the --sut file given to ingest or capture)"
	case b.Status == costing.NoCharges:
		var ws []string
		for _, e := range b.Warnings {
			if errors.Is(e, costing.ErrUnmatched) || errors.Is(e, costing.ErrNoOverlap) {
				ws = append(ws, strings.TrimPrefix(e.Error(), "costing: "))
			}
		}
		if len(ws) == 0 {
			ws = append(ws, "no included line")
		}
		return false, "no matching lines: " + strings.Join(ws, "; ")
	case b.Total == nil:
		_, why := c.billTotalWhy()
		return false, why
	}
	return true, ""
}

func (c *RunCosting) billTotalWhy() (bool, string) {
	w := "bill: no total"
	for _, e := range c.Bill.Warnings {
		if errors.Is(e, costing.ErrMixedCurrency) || errors.Is(e, costing.ErrNoRate) {
			w = "bill: " + e.Error()
		}
	}
	return false, w
}

// Why says why a run has no cost.
func (c *RunCosting) Why() string {
	var why []string
	if c.QuoteErr != "" {
		why = append(why, c.QuoteErr)
	}
	if c.Bill != nil {
		switch c.Bill.Status {
		case costing.NoWindow:
			why = append(why, "bill: "+cmp.Or(c.NoWindowWhy, "the run has no timestamped window"))
		case costing.NoCharges:
			why = append(why, "bill: no charge of the run's resources overlaps its window")
		default:
			if c.Bill.Total == nil {
				_, w := c.billTotalWhy()
				why = append(why, w)
			}
		}
	}
	if len(why) == 0 {
		return "no quote or bill applies"
	}
	return strings.Join(why, "; ")
}

func loadCosts(rep *Report, dirs []string, o ReportOptions) (*ReportCosts, error) {
	rc := &ReportCosts{Quotes: o.Quotes}
	for _, path := range o.Billing { // fail early on a missing bill
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
	}
	quotes := map[string]*costing.Quote{}
	for _, path := range o.Quotes {
		if _, ok := quotes[path]; ok {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		q, err := costing.ParseQuote(data, path)
		if err != nil {
			return nil, err
		}
		quotes[path] = q
	}
	jo := o.Cost.join()
	var windows []costing.RunWindow
	for _, r := range rep.Runs {
		c := &RunCosting{}
		r.Cost = c
		run := r.Run
		w := costing.RunWindow{RunID: run.ID, ResourceIDs: run.SUT.ResourceIDs}
		if run.Completed.OK {
			w.SuccessfulRequests = run.Completed.V
		}
		// Token counts over successful requests: from the per-request
		// data when it has them, else the tool's sums.
		switch {
		case r.tokensKnown:
			w.OutputTokens, w.TotalTokens = r.tokensOut, r.tokensOut+r.tokensIn
		default:
			if m, ok := r.metricValue(schemas.OutputTokens, "sum", 0); ok {
				w.OutputTokens = int64(m.Value.V)
				if in, ok := r.metricValue(schemas.InputTokens, "sum", 0); ok {
					w.TotalTokens = int64(m.Value.V + in.Value.V)
				}
			}
		}
		w.Start, w.End, c.WindowNote, c.WindowFromDate, c.NoWindowWhy = billWindow(run, o.Cost.TimeZone, len(o.Billing) > 0)
		c.Window = w
		c.Throughput = throughputOf(r)
		windows = append(windows, w)
	}
	if len(o.Billing) > 0 {
		// Bills are streamed into the joiner: only charges that touch a
		// run are held.
		j := costing.NewJoiner(windows, jo)
		for _, path := range o.Billing {
			b, err := addBill(j, path)
			if err != nil {
				return nil, err
			}
			rc.Bills = append(rc.Bills, b)
			rc.billNotes = append(rc.billNotes, billNotes(path, b)...)
		}
		rc.Notes = append(rc.Notes, rc.billNotes...)
		rc.billFiles, rc.windows = slices.Clone(o.Billing), windows
		rc.Join = j.Result()
		for i, r := range rep.Runs {
			rcost := rc.Join.Runs[i]
			for k, w := range rcost.Warnings {
				rcost.Warnings[k] = flagHint(w)
			}
			r.Cost.Bill = &rcost
			if rcost.Status == costing.Costed && rcost.Total != nil {
				r.Cost.BillUnits = costing.UnitCosts(*rcost.Total, rcost.Run, r.Cost.Throughput)
			}
		}
	}
	for _, r := range rep.Runs {
		c := r.Cost
		if len(o.Quotes) > 0 {
			c.QuoteFile = o.Quotes[0]
			if len(o.Quotes) > 1 {
				c.QuoteFile = o.Quotes[bundleIndex(dirs, r.Bundle)]
			}
			w := c.Window
			if !w.HasWindow() && r.Run.DurationS.OK && r.Run.DurationS.V > 0 {
				// Without timestamps the quote's run time is the run's
				// duration; the epoch stands in for the start.
				w.Start = time.Unix(0, 0).UTC()
				w.End = w.Start.Add(time.Duration(r.Run.DurationS.V * float64(time.Second)))
				c.WindowFromDuration = true
				c.WindowNote = fmt.Sprintf("the run has no timestamps: the quote's run time is its duration_s, %s s (%s window)",
					units.Sig(r.Run.DurationS.V, 9), cmp.Or(r.Run.WindowKind, "unknown"))
			}
			qc, err := quotes[c.QuoteFile].Cost(w, nil)
			if err != nil {
				c.QuoteErr = "quote: " + err.Error()
			} else {
				c.Quote = qc
				bl := quotes[c.QuoteFile].GPU.Billing
				c.QuoteBilling = &bl
				if m, err := jo.Convert(qc.Money()); err != nil {
					c.QuoteErr = "quote: " + flagHint(err).Error()
				} else {
					c.QuoteUnits = costing.UnitCosts(m, w, c.Throughput)
				}
			}
		}
		switch {
		case len(c.BillUnits) > 0:
			c.UnitsSource = "bill"
		case len(c.QuoteUnits) > 0:
			c.UnitsSource = "quote"
		}
		steadyState(c, jo)
	}
	return rc, nil
}

func bundleIndex(dirs []string, dir string) int {
	for i, d := range dirs {
		if d == dir {
			return i
		}
	}
	return 0
}

// throughputOf turns a run's throughput estimates into costing's
// intervals (nil where there is none).
func throughputOf(r *ReportRun) costing.Throughput {
	iv := func(id schemas.MetricID) *costing.Interval {
		e, ok := r.Throughput[id]
		if !ok || e.Lo != e.Lo || e.Hi != e.Hi {
			return nil
		}
		return &costing.Interval{Point: e.Value, Lo: e.Lo, Hi: e.Hi, Level: e.Confidence}
	}
	return costing.Throughput{
		SuccessfulRequestsPerSecond: iv(schemas.RequestThroughput),
		OutputTokensPerSecond:       iv(schemas.OutputTokenThroughput),
		TotalTokensPerSecond:        iv(schemas.TotalTokenThroughput),
	}
}

// CostRecords flattens every run's costs with costing's record seam:
// quote lines and totals, bill allocations and totals, and unit costs.
func (rep *Report) CostRecords() []costing.CostRecord {
	var out []costing.CostRecord
	for _, r := range rep.Runs {
		c := r.Cost
		if c == nil {
			continue
		}
		if c.Quote != nil {
			qr := costing.QuoteRecords(c.Quote)
			if c.WindowFromDuration {
				// The epoch only stood in for a start the run never
				// recorded: the rows have a length, not a period.
				for i := range qr {
					qr[i].PeriodStart, qr[i].PeriodEnd = time.Time{}, time.Time{}
				}
			}
			out = append(out, qr...)
			out = append(out, costing.UnitCostRecords(r.Run.ID, "quote", c.QuoteUnits)...)
		}
		if c.Bill != nil {
			out = append(out, costing.BillRecords(*c.Bill)...)
			out = append(out, costing.UnitCostRecords(r.Run.ID, "bill", c.BillUnits)...)
		}
		if c.SteadyRate != nil {
			out = append(out, costing.SteadyRecords(r.Run.ID, *c.SteadyRate, c.Steady)...)
		}
	}
	return out
}

// CostRows turns costing's flat records into rows of the bundle's costs
// table.
func CostRows(recs []costing.CostRecord) []schemas.CostRow {
	out := make([]schemas.CostRow, len(recs))
	for i, c := range recs {
		r := schemas.CostRow{RunID: c.RunID, Source: c.Source, Sort: c.Sort, Item: c.Item, Currency: c.Currency, Basis: c.Basis,
			Amount: c.Amount, Included: c.Included, Rate: c.Rate, Quantity: c.Quantity, Unit: c.Unit, Formula: c.Formula,
			Rule: c.Rule, Granularity: c.Granularity, ResourceID: c.ResourceID, Notes: c.Notes}
		if c.Amount != "" {
			r.AmountValue = schemas.Some(c.AmountFloat)
		}
		if c.Sort == "allocation" {
			r.OverlapS, r.PeriodS = schemas.Some(c.OverlapSeconds), schemas.Some(c.PeriodSeconds)
		}
		for _, p := range []struct {
			name string
			t    time.Time
			dst  *schemas.Opt[time.Time]
		}{{"start", c.PeriodStart, &r.PeriodStart}, {"end", c.PeriodEnd, &r.PeriodEnd}} {
			switch {
			case p.t.IsZero():
			case schemas.Representable(p.t):
				*p.dst = schemas.Some(p.t.UTC())
			default:
				// a bill's date beyond 1678-2262 would overflow the
				// table's nanoseconds: said, not stored
				r.Notes = strings.TrimPrefix(fmt.Sprintf("%s; period %s %s is outside the years a bundle holds, not stored",
					r.Notes, p.name, p.t.UTC().Format(time.RFC3339)), "; ")
			}
		}
		out[i] = r
	}
	return out
}

// CostSchema is the "schema" value of `verdict cost --format json`.
const CostSchema = "verdict.cost/v1"

// CostOptions configure Cost.
type CostOptions struct {
	Billing, Quotes []string
	Settings        CostSettings
	// Store writes each bundle's runs' costs into it as costs.parquet.
	Store bool
}

// A CostResult is `verdict cost`: the report's cost section with every
// record, and the bundles the records were stored in.
type CostResult struct {
	Report  *Report
	Records []costing.CostRecord
	// Stored lists the bundles whose costs.parquet was written.
	Stored []string
}

// Cost costs the runs of the bundles from billing exports and quotes and,
// with o.Store, keeps each bundle's records in it as costs.parquet
// (written atomically by schemas.WriteCosts).
func Cost(ctx context.Context, dirs []string, o CostOptions) (*CostResult, error) {
	if len(o.Billing) == 0 && len(o.Quotes) == 0 {
		return nil, fmt.Errorf("give --billing exports, --quote files, or both")
	}
	rep, err := LoadReport(ctx, dirs, ReportOptions{Billing: o.Billing, Quotes: o.Quotes, ValidationNote: "not asked for", Cost: o.Settings})
	if err != nil {
		return nil, err
	}
	res := &CostResult{Report: rep, Records: rep.CostRecords()}
	if !o.Store {
		return res, nil
	}
	for _, dir := range dirs {
		var mine []costing.CostRecord
		for _, r := range rep.Runs {
			if r.Bundle != dir {
				continue
			}
			for _, c := range res.Records {
				if c.RunID == r.Run.ID {
					mine = append(mine, c)
				}
			}
		}
		if err := schemas.WriteCosts(dir, CostRows(mine)); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		res.Stored = append(res.Stored, dir)
	}
	return res, nil
}

// billWindow is the window of a run that a bill is joined over: the
// recorded window (Run.WindowStart and WindowEnd), else the tool's local
// end time in a zone minus the duration (DateWindow, fromDate), else none
// (why says what is missing). note says where the window came from and,
// with billing files given, when the run names no resource a row could
// match.
func billWindow(run schemas.Run, tz *time.Location, billing bool) (start, end time.Time, note string, fromDate bool, why string) {
	if run.WindowStart.OK && run.WindowEnd.OK {
		start, end = run.WindowStart.V, run.WindowEnd.V
		note = "run window " + start.UTC().Format(time.RFC3339Nano) + " to " + end.UTC().Format(time.RFC3339Nano)
	} else if start, end, note, why = DateWindow(run, tz); why == "" {
		fromDate = true
	} else {
		note = why + ", so no bill can be joined to it"
	}
	if len(run.SUT.ResourceIDs) == 0 && billing {
		note += "; no resource IDs in its inventory (cloud.resource_ids), so no bill row can match it"
	}
	return start, end, note, fromDate, why
}

// billNotes are a billing file's warnings and rejected rows, for a
// report's notes: every rejected row is counted, the first ones named.
func billNotes(path string, b *costing.Bill) []string {
	var out []string
	for _, w := range b.Warnings {
		out = append(out, "warning: "+path+": "+w.Error())
	}
	for _, e := range b.Rejected {
		out = append(out, "rejected: "+e.Error())
	}
	if more := b.Counts.Rejected - len(b.Rejected); more > 0 {
		out = append(out, fmt.Sprintf("rejected: %s: %d more rows (all are counted)", path, more))
	}
	return out
}

func addBill(j *costing.Joiner, path string) (*costing.Bill, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := j.AddBill(f, costing.ReaderOptions{FileName: path})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
