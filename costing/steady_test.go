package costing

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestSteadyUnitCosts checks rate / throughput by hand: 1.19 USD/h at
// 683.2 [653.6, 714.2] output tokens/s is 1.19 / 3600 × 1e6 / 683.2 =
// 0.483834... USD per 1M output tokens, [0.462833..., 0.505746...].
func TestSteadyUnitCosts(t *testing.T) {
	r := SteadyRate{PerHour: 1.19, Currency: "USD", Source: "quote"}
	tp := Throughput{
		SuccessfulRequestsPerSecond: &Interval{Point: 6.8, Lo: 6.6, Hi: 7, Level: 0.95},
		OutputTokensPerSecond:       &Interval{Point: 683.2, Lo: 653.6, Hi: 714.2, Level: 0.95},
		TotalTokensPerSecond:        &Interval{Point: 1000, Lo: 0, Hi: 1100, Level: 0.95},
	}
	us := SteadyUnitCosts(r, tp)
	cases := []struct {
		metric        string
		value, lo, hi float64
	}{
		{SteadyCostPerSuccessfulRequest, 1.19 / 3600 / 6.8, 1.19 / 3600 / 7, 1.19 / 3600 / 6.6},
		{SteadyCostPer1MOutputTokens, 0.48383424408, 1.19 / 3600 * 1e6 / 714.2, 1.19 / 3600 * 1e6 / 653.6},
		{SteadyCostPer1MTotalTokens, 1.19 / 3600 * 1e6 / 1000, 1.19 / 3600 * 1e6 / 1100, math.Inf(1)},
	}
	if len(us) != len(cases) {
		t.Fatalf("%d unit costs", len(us))
	}
	for i, c := range cases {
		u := us[i]
		if u.Metric != c.metric || math.Abs(u.Value-c.value) > 1e-9 || !near(u.Lo, c.lo) || (u.Hi != c.hi && !near(u.Hi, c.hi)) || u.Level != 0.95 || u.Currency != "USD" {
			t.Errorf("%s: %v [%v, %v] %s, want %v [%v, %v]", c.metric, u.Value, u.Lo, u.Hi, u.Currency, c.value, c.lo, c.hi)
		}
		if u.Amount.IsZero() || !near(u.Amount.Float64(), u.Value) {
			t.Errorf("%s: amount %s for %v", c.metric, u.Amount, u.Value)
		}
	}
	un := SteadyUnitCosts(r, Throughput{})
	if !math.IsNaN(un[1].Value) || !strings.Contains(un[1].Note, "OUTPUT_TOKEN_THROUGHPUT is zero or unknown") {
		t.Errorf("without a throughput: %+v", un[1])
	}
}

// TestQuoteSteadyRate: 2 GPUs at 1.19 per GPU-hour, 200 GB at 0.10 per
// GB-month of 730 hours, a start-up fee: 2.38 + 200 × 0.10 / 730 =
// 2.407397... per hour; the fee is left out.
func TestQuoteSteadyRate(t *testing.T) {
	q, err := ParseQuote([]byte(`provider: p
currency: EUR
gpu:
  accelerator: X
  count: 2
  rate: 1.19
  billing: {unit: hour, rounding: up, minimum: 1}
other:
  - {name: storage, basis: run-time, size: 200, rate: "0.10", per: month, hours_per_month: 730, unit: GB-month}
  - {name: startup, basis: per-run, rate: 5, unit: start}
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	qc, err := q.Cost(RunWindow{RunID: "r", Start: start, End: start.Add(35 * time.Second)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := qc.SteadyRate()
	if !near(r.PerHour, 2.38+200*0.10/730) || r.Currency != "EUR" || r.Source != "quote" || len(r.Left) != 1 || r.Left[0] != "startup (per-run)" {
		t.Errorf("steady rate %+v", r)
	}
	// The billed cost of the 35 s run is one hour (the minimum) of both
	// GPUs plus the fee: far above the steady rate × 35 s.
	if billed := qc.TotalCost.Float64(); billed < 7 || r.PerHour*35/3600 > 0.03 {
		t.Errorf("billed %v, steady %v for 35 s", billed, r.PerHour*35/3600)
	}
}

// TestBillSteadyRate: the hand-worked 45-minute run of
// TestHandWorked45MinuteRun has prorated rows of 49.16 + 25.2925 - 2.458
// = 71.9945 USD over 0.75 h, 95.992666... USD/h; the one-off purchase
// inside the window (billed 12.50) is left out.
func TestBillSteadyRate(t *testing.T) {
	const bill = `BilledCost,EffectiveCost,ListCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeFrequency,ResourceId,SkuId,PricingQuantity,PricingUnit,ProviderName
98.3200,98.3200,98.3200,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,,Usage-Based,i-0gpu1,P5,1,Hours,AWS
101.1700,101.1700,101.1700,USD,2025-06-10T11:00:00Z,2025-06-10T12:00:00Z,Usage,,Usage-Based,i-0gpu1,P5,1,Hours,AWS
-4.9160,-4.9160,-4.9160,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,Correction,Usage-Based,i-0gpu1,P5,,,AWS
12.50,0,12.50,USD,2025-06-10T10:40:00Z,2025-06-10T10:40:00Z,Purchase,,One-Time,i-0gpu1,AMI,1,Units,AWS
`
	b, err := ReadAll(strings.NewReader(bill), ReaderOptions{FileName: "hand.csv"})
	if err != nil {
		t.Fatal(err)
	}
	run := RunWindow{RunID: "r45", ResourceIDs: []string{"i-0gpu1"},
		Start: time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC), End: time.Date(2025, 6, 10, 11, 15, 0, 0, time.UTC)}
	for _, basis := range []CostBasis{Effective, Billed} {
		opts := JoinOptions{Basis: basis}
		rc := Join([]RunWindow{run}, b.Charges, opts).Runs[0]
		r := BillSteadyRate(rc, opts)
		if r == nil || !near(r.PerHour, 71.9945/0.75) || r.Currency != "USD" || len(r.Left) != 1 || !strings.Contains(r.Left[0], "hand.csv:5") {
			t.Errorf("%s: steady rate %+v", basis, r)
		}
	}
	if r := BillSteadyRate(RunCost{Run: run}, JoinOptions{}); r != nil {
		t.Errorf("no total: %+v", r)
	}
}
