package render

import (
	"context"
	"fmt"
	"io"

	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/schemas"
)

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
		if !c.PeriodStart.IsZero() {
			r.PeriodStart = schemas.Some(c.PeriodStart.UTC())
		}
		if !c.PeriodEnd.IsZero() {
			r.PeriodEnd = schemas.Some(c.PeriodEnd.UTC())
		}
		out[i] = r
	}
	return out
}

// CostOptions configure the cost view.
type CostOptions struct {
	Billing, Quotes []string
	// Store writes each bundle's runs' costs into it as costs.parquet.
	Store bool
}

// Cost costs the runs of the bundles from billing exports and quotes,
// writes the cost tables, and with o.Store keeps them in the bundles.
func Cost(ctx context.Context, w io.Writer, dirs []string, o CostOptions, f Format) error {
	if len(o.Billing) == 0 && len(o.Quotes) == 0 {
		return fmt.Errorf("give --billing exports, --quote files, or both")
	}
	rep, err := LoadReport(ctx, dirs, ReportOptions{Billing: o.Billing, Quotes: o.Quotes, ValidationNote: "not asked for"})
	if err != nil {
		return err
	}
	recs := CostRecords(rep)
	if o.Store {
		for _, dir := range dirs {
			var mine []costing.CostRecord
			for _, r := range rep.Runs {
				if r.Bundle != dir {
					continue
				}
				for _, c := range recs {
					if c.RunID == r.Run.ID {
						mine = append(mine, c)
					}
				}
			}
			if err := schemas.WriteCosts(dir, CostRows(mine)); err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
		}
	}
	if f == JSON {
		return WriteJSON(w, struct {
			Records []costing.CostRecord `json:"records"`
		}{recs})
	}
	t := CostsTable(rep)
	if o.Store {
		t.Notes = append(t.Notes, fmt.Sprintf("stored as costs.parquet in %d bundle(s)", len(dirs)))
	}
	return Write(w, f, []*Table{t})
}
