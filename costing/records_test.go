package costing

import (
	"fmt"
	"strings"
	"testing"
)

// TestCostRecords flattens a billed run and a quoted run into the
// costs-table seam and compares the rows with a golden file.
func TestCostRecords(t *testing.T) {
	charges := readFixtures(t, "focus_1.2_small.csv")
	run := joinFixtureRuns()[0]
	run.SuccessfulRequests, run.OutputTokens = 900, 1_200_000
	rc := Join([]RunWindow{run}, charges, JoinOptions{}).Runs[0]
	recs := BillRecords(rc)
	recs = append(recs, UnitCostRecords(run.RunID, "bill", UnitCosts(*rc.Total, run, Throughput{}))...)
	qc, err := loadQuote(t, "quote_h100.yaml").Cost(run, map[string]Decimal{"egress": dec("12")})
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, QuoteRecords(qc)...)
	recs = append(recs, UnitCostRecords(run.RunID, "quote", UnitCosts(qc.Money(), run, Throughput{}))...)
	var sb strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%s\t%s\t%s\t%s\tincluded=%t\trate=%s\tqty=%s\tunit=%s\trule=%s\t%s\t%g/%g s\t[%s, %s)\t%q\t%q\n",
			r.RunID, r.Source, r.Sort, r.Item, r.Currency, r.Basis, r.Amount, r.Included, r.Rate, r.Quantity, r.Unit,
			r.Rule, r.Granularity, r.OverlapSeconds, r.PeriodSeconds, ts(r.PeriodStart), ts(r.PeriodEnd), r.Formula, r.Notes)
	}
	golden(t, "cost_records.txt", sb.String())
	last := recs[len(recs)-5] // quote TOTAL_COST
	if last.Item != "TOTAL_COST" || last.Amount != "16.571369863014" {
		t.Errorf("quote total record %+v", last)
	}
}
