package costing

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// A CostRecord is one row of a run's cost table, flat and made of plain
// types, so that whoever writes the bundle's costs.parquet (or a CSV, or a
// workbook with live formulas) needs no knowledge of this package's
// result types. Amounts are exact decimal text; AmountFloat is the same
// value for plotting.
//
// Rows come in three sorts, told apart by Sort:
//
//	allocation  one charge's share of a run (BillRecords)
//	quote-item  one priced quote line (QuoteRecords)
//	rate        STEADY_RATE_PER_HOUR, the steady-state rate (SteadyRecords)
//	total       GPU_COST, OTHER_LISTED_COST, TOTAL_COST or a per-currency bill total
//	unit-cost   a UnitCost (UnitCostRecords)
type CostRecord struct {
	RunID  string
	Source string // "bill" or "quote"
	Sort   string // allocation, quote-item, total, rate, unit-cost
	// Item names the row: "file:line" of a charge, a quote item's name,
	// a total's name (TOTAL_COST) or a unit-cost metric.
	Item        string
	Currency    string
	Basis       string // effective, billed or list for bill rows
	Amount      string
	AmountFloat float64
	Included    bool // allocations: counted in the total
	// Rate, Quantity, Unit and Formula are the inputs that reproduce the
	// amount (quote lines: RATE * QUANTITY; unit costs: the division).
	Rate     string
	Quantity string
	Unit     string
	Formula  string
	// Rule, Granularity, OverlapSeconds and PeriodSeconds describe an
	// allocation's share: Amount = charge cost × Overlap / Period for
	// prorated rows.
	Rule           string
	Granularity    string
	OverlapSeconds float64
	PeriodSeconds  float64
	ResourceID     string
	PeriodStart    time.Time
	PeriodEnd      time.Time
	Notes          string // "; "-joined
}

// BillRecords flattens a RunCost: one allocation row per overlapping
// charge (on the run's Basis), three total rows per currency (billed,
// effective and list cost; Included on the run's Basis), and a TOTAL_COST
// row when the run has a single Total.
func BillRecords(rc RunCost) []CostRecord {
	var out []CostRecord
	for _, a := range rc.Allocations {
		amt, known := a.Effective, true
		switch rc.Basis {
		case Billed:
			amt = a.Billed
		case List:
			amt, known = a.List.Decimal, a.List.Valid
		}
		c := a.Charge
		out = append(out, CostRecord{
			RunID: rc.Run.RunID, Source: "bill", Sort: "allocation",
			Item: c.Source.File + ":" + strconv.Itoa(c.Source.Line), Currency: c.BillingCurrency, Basis: string(rc.Basis),
			Amount: amt.String(), AmountFloat: amt.Float64(), Included: a.Included,
			Quantity: c.PricingQuantity.String(), Unit: c.PricingUnit,
			Rule: string(a.Rule), Granularity: string(a.Granularity),
			OverlapSeconds: a.Overlap.Seconds(), PeriodSeconds: a.Period.Seconds(),
			ResourceID: c.ResourceID, PeriodStart: c.ChargePeriodStart, PeriodEnd: c.ChargePeriodEnd,
			Formula: "COST * OVERLAP_SECONDS / PERIOD_SECONDS", Notes: strings.Join(a.Notes, "; "),
		})
		if !known {
			out[len(out)-1].Amount, out[len(out)-1].Notes = "", strings.TrimPrefix(out[len(out)-1].Notes+"; no ListCost", "; ")
		}
	}
	basis := cmpOr(rc.Basis, Effective)
	for _, ct := range rc.Totals {
		// Every basis the bill has, so that billed, effective (amortised)
		// and list (on-demand) cost can be compared; Included marks the
		// basis TOTAL_COST and the unit costs use.
		for _, b := range []CostBasis{Billed, Effective, List} {
			v, known := ct.Basis(b)
			r := CostRecord{RunID: rc.Run.RunID, Source: "bill", Sort: "total", Item: "TOTAL_" + ct.Currency,
				Currency: ct.Currency, Basis: string(b), Amount: v.String(), AmountFloat: v.Float64(), Included: b == basis,
				Formula: "SUM(included allocations)", Quantity: strconv.Itoa(ct.Rows), Unit: "rows"}
			if !known {
				r.Amount, r.AmountFloat, r.Notes = "", 0, "some included rows have no ListCost"
			}
			out = append(out, r)
		}
	}
	if rc.Total != nil {
		out = append(out, CostRecord{RunID: rc.Run.RunID, Source: "bill", Sort: "total", Item: "TOTAL_COST",
			Currency: rc.Total.Currency, Basis: string(rc.Basis), Amount: rc.Total.Amount.String(),
			AmountFloat: rc.Total.Amount.Float64(), Included: true, Granularity: string(rc.Coarsest),
			Notes: joinErrs(rc.Warnings)})
	}
	return out
}

func cmpOr(b, def CostBasis) CostBasis {
	if b == "" {
		return def
	}
	return b
}

// QuoteRecords flattens a QuoteCost: one row per priced line, then
// GPU_COST, OTHER_LISTED_COST and TOTAL_COST.
func QuoteRecords(qc *QuoteCost) []CostRecord {
	line := func(ln QuoteLine) CostRecord {
		return CostRecord{RunID: qc.RunID, Source: "quote", Sort: "quote-item", Item: ln.Name, Currency: qc.Currency,
			Amount: ln.Cost.String(), AmountFloat: ln.Cost.Float64(), Included: true, Rate: ln.Rate.String(),
			Quantity: ln.Quantity.String(), Unit: ln.RateUnit, Formula: ln.CostFormula + "; QUANTITY = " + ln.QuantityFormula,
			PeriodStart: qc.Start, PeriodEnd: qc.End, Notes: strings.Join(ln.Notes, "; ")}
	}
	out := []CostRecord{line(qc.GPU)}
	for _, ln := range qc.Other {
		out = append(out, line(ln))
	}
	total := func(name string, d Decimal, formula string) CostRecord {
		return CostRecord{RunID: qc.RunID, Source: "quote", Sort: "total", Item: name, Currency: qc.Currency,
			Amount: d.String(), AmountFloat: d.Float64(), Included: true, Formula: formula}
	}
	out = append(out,
		total("GPU_COST", qc.GPUCost, "GPU_RATE * GPU_HOURS"),
		total("OTHER_LISTED_COST", qc.OtherListedCost, "SUM(other listed items)"),
		total("TOTAL_COST", qc.TotalCost, "GPU_COST + OTHER_LISTED_COST"))
	out[len(out)-1].Notes = joinErrs(qc.Warnings)
	return out
}

func joinErrs(errs []error) string {
	var ss []string
	for _, e := range errs {
		ss = append(ss, e.Error())
	}
	return strings.Join(ss, "; ")
}

// UnitCostRecords flattens unit costs of one run; source is "bill" or
// "quote". Undefined unit costs keep an empty Amount and their Note.
func UnitCostRecords(runID, source string, us []UnitCost) []CostRecord {
	var out []CostRecord
	for _, u := range us {
		r := CostRecord{RunID: runID, Source: source, Sort: "unit-cost", Item: u.Metric, Currency: u.Currency,
			AmountFloat: u.Value, Included: true, Quantity: strconv.FormatInt(u.Denominator, 10), Unit: u.Population,
			Formula: u.Formula, Notes: u.Note}
		if u.Metric == TotalCost {
			r.Quantity = ""
		}
		if !math.IsNaN(u.Value) {
			r.Amount = u.Amount.String()
		}
		if u.IntervalFormula != "" {
			r.Notes = strings.TrimPrefix(r.Notes+"; interval "+u.IntervalFormula, "; ")
		}
		out = append(out, r)
	}
	return out
}

// SteadyRecords flattens a steady rate and its unit costs (SteadyUnitCosts)
// as rows of source rate.Source: a rate row STEADY_RATE_PER_HOUR, then
// one unit-cost row per metric.
func SteadyRecords(runID string, rate SteadyRate, us []UnitCost) []CostRecord {
	notes := ""
	if len(rate.Left) > 0 {
		notes = "left out (not proportional to run time): " + strings.Join(rate.Left, ", ")
	}
	v := strconv.FormatFloat(rate.PerHour, 'g', 12, 64)
	out := []CostRecord{{RunID: runID, Source: rate.Source, Sort: "rate", Item: "STEADY_RATE_PER_HOUR", Currency: rate.Currency,
		Amount: v, AmountFloat: rate.PerHour, Included: true, Unit: "hour", Formula: rate.Formula, Notes: notes}}
	if math.IsNaN(rate.PerHour) {
		out[0].Amount = ""
	}
	for _, r := range UnitCostRecords(runID, rate.Source, us) {
		r.Quantity = ""
		out = append(out, r)
	}
	return out
}
