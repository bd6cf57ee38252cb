package costing

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Steady-state unit-cost metric names: what a unit costs at the measured
// throughput once billing minimums and rounding no longer matter, as
// opposed to the unit costs of UnitCosts, which divide what the test run
// itself was billed.
const (
	SteadyCostPerSuccessfulRequest = "steady_cost_per_successful_request"
	SteadyCostPer1MOutputTokens    = "steady_cost_per_1m_output_tokens"
	SteadyCostPer1MTotalTokens     = "steady_cost_per_1m_total_tokens"
)

// A SteadyRate is what the system under test costs per hour while it
// runs, without billing rounding, minimums or one-off fees: the rate a
// long run's cost per unit of time approaches.
type SteadyRate struct {
	PerHour  float64
	Currency string
	// Source is "quote" or "bill"; Formula says how PerHour was found.
	Source, Formula string
	// Left names what the rate leaves out (per-run fees, usage items,
	// one-off bill rows).
	Left []string
}

// SteadyRate is the quote's rate per hour of run time: GPU_RATE ×
// MULTIPLIER (the GPU count for gpu-hour rates) plus, for every run-time
// item, RATE × SIZE per hour. Per-run and usage items do not grow with
// run time and are left out (Left names them).
func (qc *QuoteCost) SteadyRate() SteadyRate {
	r := SteadyRate{Currency: qc.Currency, Source: "quote", Formula: "GPU_RATE * MULTIPLIER"}
	perHour := func(ln QuoteLine) float64 {
		if ln.RateUnitSeconds.IsZero() {
			return math.NaN()
		}
		x := ln.Rate.Rat()
		x.Mul(x, ln.Multiplier.Rat())
		x.Mul(x, big.NewRat(3600, 1))
		x.Quo(x, ln.RateUnitSeconds.Rat())
		f, _ := x.Float64()
		return f
	}
	r.PerHour = perHour(qc.GPU)
	for _, ln := range qc.Other {
		if ln.Basis != "run-time" {
			r.Left = append(r.Left, fmt.Sprintf("%s (%s)", ln.Name, ln.Basis))
			continue
		}
		r.PerHour += perHour(ln)
		r.Formula += " + " + strings.ToUpper(ln.Name) + "_RATE * SIZE per hour"
	}
	return r
}

// BillSteadyRate is a bill's rate per hour of the run: the included
// prorated (time-metered) allocations on the run's basis, per hour of its
// window, in the currency of rc.Total (converted with opts' rates as
// Total is). Rows allocated whole (one-off, quantity-metered) are left
// out. It is nil when the run has no Total, no window or no prorated row.
func BillSteadyRate(rc RunCost, opts JoinOptions) *SteadyRate {
	secs := rc.Run.Duration().Seconds()
	if rc.Total == nil || secs <= 0 {
		return nil
	}
	byCur := map[string]*CurrencyTotal{}
	var left []string
	for _, a := range rc.Allocations {
		if !a.Included {
			continue
		}
		if a.Rule != RuleProrated {
			left = append(left, fmt.Sprintf("%s:%d (%s)", a.Charge.Source.File, a.Charge.Source.Line, a.Rule))
			continue
		}
		ct := byCur[a.Charge.BillingCurrency]
		if ct == nil {
			ct = &CurrencyTotal{Currency: a.Charge.BillingCurrency}
			byCur[ct.Currency] = ct
		}
		ct.Billed, ct.Effective, ct.Rows = ct.Billed.Add(a.Billed), ct.Effective.Add(a.Effective), ct.Rows+1
		ct.List = NullDecimal{Decimal: ct.List.Decimal.Add(a.List.Decimal), Valid: (ct.Rows == 1 || ct.List.Valid) && a.List.Valid}
	}
	if len(byCur) == 0 {
		return nil
	}
	sub := RunCost{Run: rc.Run, Basis: rc.Basis}
	for _, ct := range byCur {
		sub.Totals = append(sub.Totals, *ct)
	}
	if opts.Currency == "" {
		opts.Currency = rc.Total.Currency
	}
	m, _ := total(sub, opts, nil)
	if m == nil {
		return nil
	}
	return &SteadyRate{PerHour: m.Amount.Float64() * 3600 / secs, Currency: m.Currency, Source: "bill",
		Formula: "SUM(prorated allocations) * 3600 / RUN_SECONDS", Left: left}
}

// SteadyUnitCosts divides a steady rate by the measured throughputs:
//
//	unit cost = RATE_PER_HOUR / 3600 × Per / THROUGHPUT
//	Lo = RATE_PER_HOUR / 3600 × Per / THROUGHPUT_HI,  Hi = … / THROUGHPUT_LO
//
// (Hi = +Inf when THROUGHPUT_LO ≤ 0), per successful request (Per 1) and
// per 1M output and total tokens, in that order. A throughput that is
// unknown leaves its unit cost undefined (NaN, with a Note). The rate is
// taken as exact: the interval is the throughput's.
func SteadyUnitCosts(r SteadyRate, tp Throughput) []UnitCost {
	var out []UnitCost
	add := func(metric, pop, name string, per int64, iv *Interval) {
		u := UnitCost{Metric: metric, Currency: r.Currency, Population: pop, Per: per, Lo: math.NaN(), Hi: math.NaN(), Value: math.NaN(),
			Formula: fmt.Sprintf("RATE_PER_HOUR / 3600 * %d / %s", per, name)}
		switch {
		case iv == nil || !(iv.Point > 0):
			u.Note = "undefined: " + name + " is zero or unknown"
		case math.IsNaN(r.PerHour):
			u.Note = "undefined: the rate per hour is unknown"
		default:
			rho := r.PerHour / 3600 * float64(per)
			u.Value, u.Level = rho/iv.Point, iv.Level
			u.Amount, _ = ParseDecimal(strconv.FormatFloat(u.Value, 'g', 12, 64))
			u.Rounded = true
			u.Lo, u.Hi = rho/iv.Hi, math.Inf(1)
			if iv.Lo > 0 {
				u.Hi = rho / iv.Lo
			}
			u.IntervalFormula = fmt.Sprintf("[RATE_PER_HOUR / 3600 * %d / %s_HI, RATE_PER_HOUR / 3600 * %d / %s_LO]", per, name, per, name)
		}
		out = append(out, u)
	}
	add(SteadyCostPerSuccessfulRequest, "successful requests", "REQUEST_THROUGHPUT", 1, tp.SuccessfulRequestsPerSecond)
	add(SteadyCostPer1MOutputTokens, "output tokens of successful requests", "OUTPUT_TOKEN_THROUGHPUT", 1_000_000, tp.OutputTokensPerSecond)
	add(SteadyCostPer1MTotalTokens, "input and output tokens of successful requests", "TOTAL_TOKEN_THROUGHPUT", 1_000_000, tp.TotalTokensPerSecond)
	return out
}
