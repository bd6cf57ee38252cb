package costing

import (
	"fmt"
	"math"
	"math/big"
)

// An Interval is a point estimate with bounds, as the stats package
// reports a throughput (for example a 95 % bootstrap interval).
type Interval struct {
	Point, Lo, Hi float64
	// Level is the interval's confidence level (0.95); it is carried into
	// results, not used in arithmetic.
	Level float64
}

// Throughput holds a run's throughput intervals, per second of the run
// window and counted over successful requests only. Nil means unknown.
type Throughput struct {
	SuccessfulRequestsPerSecond *Interval
	OutputTokensPerSecond       *Interval
	TotalTokensPerSecond        *Interval
}

// Unit-cost metric names.
const (
	TotalCost                = "total_cost"
	CostPerSuccessfulRequest = "cost_per_successful_request"
	CostPer1MOutputTokens    = "cost_per_1m_output_tokens"
	CostPer1MTotalTokens     = "cost_per_1m_total_tokens"
)

// A UnitCost is one cost figure with what it divides by.
//
// Value is TOTAL_COST × Per / Denominator, from the run's counts. When
// the caller gives a throughput interval [lo, hi] for the denominator's
// quantity, the interval is carried through the cost rate: with
// ρ = TOTAL_COST / run seconds (currency per second),
//
//	unit cost at throughput x = ρ × Per / x
//	Lo = ρ × Per / hi,  Hi = ρ × Per / lo   (Hi = +Inf when lo ≤ 0)
//
// the bounds swap because cost per unit falls as throughput rises. The
// cost itself is taken as exact: the interval reflects only the
// throughput's uncertainty. Value uses counts while the interval uses the
// stats' throughput; a Value outside [Lo, Hi] is noted.
type UnitCost struct {
	Metric   string
	Currency string
	// Value is the unit cost as a float64, NaN when undefined (see Note).
	Value float64
	// Amount is the same figure as a decimal: exact when the quotient
	// terminates within 12 digits more than TOTAL_COST has, else rounded
	// half to even there (Rounded).
	Amount  Decimal
	Rounded bool
	// Population names what Denominator counts, always over successful
	// requests only.
	Population string
	// Numerator is TOTAL_COST; Denominator the count divided by (0 for
	// total_cost); Per the scale (1 or 1,000,000).
	Numerator   Decimal
	Denominator int64
	Per         int64
	Formula     string
	// Lo, Hi and Level are the carried interval; NaN without one.
	Lo, Hi          float64
	Level           float64
	IntervalFormula string
	Note            string
}

// UnitCosts returns total cost, cost per successful request, per 1M output
// tokens and per 1M total tokens for run, in that order. A count of zero
// leaves its unit cost undefined (NaN, with a Note) rather than dividing
// by all requests or by tokens of failed requests.
func UnitCosts(total Money, run RunWindow, tp Throughput) []UnitCost {
	secs := run.Duration().Seconds()
	out := []UnitCost{{
		Metric: TotalCost, Currency: total.Currency, Value: total.Amount.Float64(), Amount: total.Amount,
		Population: "run", Numerator: total.Amount, Per: 1, Formula: "TOTAL_COST",
		Lo: math.NaN(), Hi: math.NaN(),
	}}
	add := func(metric, pop, name string, n int64, per int64, iv *Interval) {
		u := UnitCost{Metric: metric, Currency: total.Currency, Population: pop,
			Numerator: total.Amount, Denominator: n, Per: per, Lo: math.NaN(), Hi: math.NaN()}
		if per == 1 {
			u.Formula = "TOTAL_COST / " + name
		} else {
			u.Formula = fmt.Sprintf("TOTAL_COST * %d / %s", per, name)
		}
		if n <= 0 {
			u.Value = math.NaN()
			u.Note = fmt.Sprintf("undefined: %s is zero or unknown", name)
			out = append(out, u)
			return
		}
		r := total.Amount.Rat()
		r.Mul(r, big.NewRat(per, n))
		var exact bool
		// Keep the total's own digits plus 12, so that a terminating
		// quotient (16.571369863014 / 1000) stays exact.
		u.Amount, exact = ratDecimal(r, 0, max(-total.Amount.Exponent(), 0)+quotePlaces)
		u.Rounded = !exact
		u.Value, _ = r.Float64()
		if iv != nil {
			u.Level = iv.Level
			rho := total.Amount.Float64() / secs
			switch {
			case secs <= 0:
				u.Note = "no run window: the throughput interval cannot be carried (cost per second unknown)"
			default:
				u.Lo = rho * float64(per) / iv.Hi
				u.Hi = math.Inf(1)
				if iv.Lo > 0 {
					u.Hi = rho * float64(per) / iv.Lo
				}
				if u.Lo > u.Hi {
					u.Lo, u.Hi = u.Hi, u.Lo
				}
				u.IntervalFormula = fmt.Sprintf("[TOTAL_COST / RUN_SECONDS * %d / THROUGHPUT_HI, TOTAL_COST / RUN_SECONDS * %d / THROUGHPUT_LO]", per, per)
				if u.Value < u.Lo || u.Value > u.Hi {
					u.Note = "the count-based value lies outside the throughput-based interval: check that the throughput is over the same window and population"
				}
			}
		}
		out = append(out, u)
	}
	add(CostPerSuccessfulRequest, "successful requests", "SUCCESSFUL_REQUESTS", run.SuccessfulRequests, 1, tp.SuccessfulRequestsPerSecond)
	add(CostPer1MOutputTokens, "output tokens of successful requests", "OUTPUT_TOKENS", run.OutputTokens, 1_000_000, tp.OutputTokensPerSecond)
	add(CostPer1MTotalTokens, "input and output tokens of successful requests", "TOTAL_TOKENS", run.TotalTokens, 1_000_000, tp.TotalTokensPerSecond)
	return out
}
