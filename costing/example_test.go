package costing_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/costing"
)

// Example reads a FOCUS export, joins it to a 45-minute run on two hourly
// rows, and derives unit costs; then prices the same run from a quote.
func Example() {
	const bill = `BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeFrequency,ResourceId,PricingQuantity,PricingUnit,ProviderName
98.32,98.32,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,Usage-Based,i-0gpu1,1,Hours,AWS
98.32,98.32,USD,2025-06-10T11:00:00Z,2025-06-10T12:00:00Z,Usage,Usage-Based,i-0gpu1,1,Hours,AWS
7.15,7.15,USD,2025-06-01T00:00:00Z,2025-07-01T00:00:00Z,Tax,,,,,AWS
`
	b, err := costing.ReadAll(strings.NewReader(bill), costing.ReaderOptions{FileName: "focus.csv"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Format, b.Counts.Rows, "rows,", b.Counts.Charges, "charges")

	run := costing.RunWindow{
		RunID:              "r1",
		ResourceIDs:        []string{"i-0gpu1"},
		Start:              time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC),
		End:                time.Date(2025, 6, 10, 11, 15, 0, 0, time.UTC),
		SuccessfulRequests: 1200,
		OutputTokens:       1_500_000,
		TotalTokens:        4_000_000,
	}
	res := costing.Join([]costing.RunWindow{run}, b.Charges, costing.JoinOptions{})
	rc := res.Runs[0]
	for _, a := range rc.Allocations {
		fmt.Printf("line %d: %s %s of %s → %s\n", a.Charge.Source.Line, a.Rule, a.Overlap, a.Period, a.Effective)
	}
	fmt.Println("total:", rc.Total, "from", rc.Coarsest, "rows")
	for _, u := range costing.UnitCosts(*rc.Total, run, costing.Throughput{}) {
		fmt.Printf("%s = %s (%s)\n", u.Metric, u.Amount.Round(6), u.Formula)
	}

	q, err := costing.ParseQuote([]byte(`provider: Example GPU Cloud
currency: USD
gpu:
  accelerator: H100
  count: 8
  rate: 2.49
  billing: {unit: second, rounding: up, minimum: 60}
other:
  - {name: start-up fee, kind: startup, basis: per-run, rate: 0.50, unit: start}
`), "quote.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	qc, err := q.Cost(run, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("quote: GPU_COST %s = %s × %s GPU-hours; TOTAL_COST %s\n", qc.GPUCost, qc.GPU.Rate, qc.GPU.Quantity, qc.TotalCost)
	// Output:
	// focus-1.0 3 rows, 3 charges
	// line 2: prorated 30m0s of 1h0m0s → 49.16
	// line 3: prorated 15m0s of 1h0m0s → 24.58
	// total: 73.74 USD from hourly rows
	// total_cost = 73.74 (TOTAL_COST)
	// cost_per_successful_request = 0.06145 (TOTAL_COST / SUCCESSFUL_REQUESTS)
	// cost_per_1m_output_tokens = 49.16 (TOTAL_COST * 1000000 / OUTPUT_TOKENS)
	// cost_per_1m_total_tokens = 18.435 (TOTAL_COST * 1000000 / TOTAL_TOKENS)
	// quote: GPU_COST 14.94 = 2.49 × 6 GPU-hours; TOTAL_COST 15.44
}
