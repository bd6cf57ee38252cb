package render

import (
	"fmt"
	"io"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
)

// WriteCost writes `verdict cost`: the cost table, and in JSON the
// verdict.cost/v1 document with every record.
func WriteCost(w io.Writer, res *analysis.CostResult, f Format) error {
	if f == JSON {
		d := costDoc{Schema: analysis.CostSchema, Records: []costRecordDoc{}, Stored: nonNil(res.Stored)}
		for _, c := range res.Records {
			d.Records = append(d.Records, costRecordJSON(c))
		}
		return WriteJSON(w, d)
	}
	t := CostsTable(res.Report)
	if len(res.Stored) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("stored as costs.parquet in %d bundle(s)", len(res.Stored)))
	}
	ts := []*Table{t}
	for _, b := range []*Table{BillingTable(res.Report), BillBasesTable(res.Report)} {
		if b != nil {
			ts = append(ts, b)
		}
	}
	return Write(w, f, ts)
}

type costDoc struct {
	Schema  string          `json:"schema"`
	Records []costRecordDoc `json:"records"`
	Stored  []string        `json:"stored"`
}

// costRecordDoc is a cost record under the column names of costs.parquet.
type costRecordDoc struct {
	RunID       string     `json:"run_id"`
	Source      string     `json:"source"`
	Sort        string     `json:"sort"`
	Item        string     `json:"item"`
	Currency    string     `json:"currency"`
	Basis       string     `json:"basis"`
	Amount      string     `json:"amount"`
	AmountValue *jsonFloat `json:"amount_value"`
	Included    bool       `json:"included"`
	Rate        string     `json:"rate"`
	Quantity    string     `json:"quantity"`
	Unit        string     `json:"unit"`
	Formula     string     `json:"formula"`
	Rule        string     `json:"rule"`
	Granularity string     `json:"granularity"`
	OverlapS    *jsonFloat `json:"overlap_s"`
	PeriodS     *jsonFloat `json:"period_s"`
	ResourceID  string     `json:"resource_id"`
	PeriodStart *time.Time `json:"period_start"`
	PeriodEnd   *time.Time `json:"period_end"`
	Notes       string     `json:"notes"`
}

func costRecordJSON(c costing.CostRecord) costRecordDoc {
	d := costRecordDoc{RunID: c.RunID, Source: c.Source, Sort: c.Sort, Item: c.Item, Currency: c.Currency, Basis: c.Basis, Amount: c.Amount,
		Included: c.Included, Rate: c.Rate, Quantity: c.Quantity, Unit: c.Unit, Formula: c.Formula, Rule: c.Rule, Granularity: c.Granularity,
		ResourceID: c.ResourceID, Notes: c.Notes}
	num := func(v float64) *jsonFloat { f := jsonFloat(v); return &f }
	if c.Amount != "" {
		d.AmountValue = num(c.AmountFloat)
	}
	if c.Sort == "allocation" {
		d.OverlapS, d.PeriodS = num(c.OverlapSeconds), num(c.PeriodSeconds)
	}
	if !c.PeriodStart.IsZero() {
		t := c.PeriodStart.UTC()
		d.PeriodStart = &t
	}
	if !c.PeriodEnd.IsZero() {
		t := c.PeriodEnd.UTC()
		d.PeriodEnd = &t
	}
	return d
}
