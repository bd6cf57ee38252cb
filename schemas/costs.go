package schemas

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TableCosts is the cost table `verdict cost` stores into a bundle: each
// run's bill allocations, quote lines, totals and unit costs.
const TableCosts = "costs"

// A CostRow is one row of the costs table (the flat form of
// costing.CostRecord). Amounts are exact decimal text, with a float64
// beside them for plotting.
type CostRow struct {
	RunID, Source, Sort, Item, Currency, Basis string
	Amount                                     string
	AmountValue                                Opt[float64]
	Included                                   bool
	Rate, Quantity, Unit, Formula              string
	Rule, Granularity                          string
	OverlapS, PeriodS                          Opt[float64]
	ResourceID                                 string
	PeriodStart, PeriodEnd                     Opt[time.Time]
	Notes                                      string
}

var costsSchema = newTable(TableCosts, []arrow.Field{
	plain("run_id", str, false),
	described("source", str, false, "bill or quote"),
	described("sort", str, false, "allocation, quote-item, total, rate (the steady-state rate per hour) or unit-cost"),
	described("item", str, true, "a charge's file:line, a quote item, a total's name (TOTAL_COST) or a unit-cost metric"),
	plain("currency", str, true),
	described("basis", str, true, "for bill rows: effective, billed or list cost"),
	described("amount", str, true, "exact decimal text"),
	plain("amount_value", f64, true),
	described("included", boolean, false, "allocations: counted in the run's total"),
	plain("rate", str, true),
	plain("quantity", str, true),
	plain("unit", str, true),
	described("formula", str, true, "how amount follows from rate, quantity and the run"),
	described("rule", str, true, "allocation rule: prorated by overlap, whole row inside the window, ..."),
	described("granularity", str, true, "the charge row's period: hourly, daily, monthly, ..."),
	plain("overlap_s", f64, true),
	plain("period_s", f64, true),
	plain("resource_id", str, true),
	plain("period_start", tsUTC, true),
	plain("period_end", tsUTC, true),
	plain("notes", str, true),
})

// CostsSchema is the Arrow schema of the costs table.
func CostsSchema() *arrow.Schema { return costsSchema }

// BuildCosts returns one record batch of cost rows; the caller releases
// it.
func BuildCosts(mem memory.Allocator, rows []CostRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, costsSchema)
	defer b.Release()
	f := b.Fields()
	for i := range rows {
		r := &rows[i]
		f[0].(*array.StringBuilder).Append(r.RunID)
		f[1].(*array.StringBuilder).Append(r.Source)
		f[2].(*array.StringBuilder).Append(r.Sort)
		appendStr(f[3], r.Item)
		appendStr(f[4], r.Currency)
		appendStr(f[5], r.Basis)
		appendStr(f[6], r.Amount)
		appendF64(f[7], r.AmountValue)
		f[8].(*array.BooleanBuilder).Append(r.Included)
		appendStr(f[9], r.Rate)
		appendStr(f[10], r.Quantity)
		appendStr(f[11], r.Unit)
		appendStr(f[12], r.Formula)
		appendStr(f[13], r.Rule)
		appendStr(f[14], r.Granularity)
		appendF64(f[15], r.OverlapS)
		appendF64(f[16], r.PeriodS)
		appendStr(f[17], r.ResourceID)
		appendTime(f[18], r.PeriodStart)
		appendTime(f[19], r.PeriodEnd)
		appendStr(f[20], r.Notes)
	}
	return b.NewRecordBatch()
}

// DecodeCosts decodes a costs record batch.
func DecodeCosts(rec arrow.RecordBatch) []CostRow {
	c := newColumns(rec)
	out := make([]CostRow, rec.NumRows())
	for i := range out {
		out[i] = CostRow{
			RunID: c.str("run_id", i), Source: c.str("source", i), Sort: c.str("sort", i), Item: c.str("item", i),
			Currency: c.str("currency", i), Basis: c.str("basis", i), Amount: c.str("amount", i), AmountValue: c.f64("amount_value", i),
			Included: c.boolean("included", i).V, Rate: c.str("rate", i), Quantity: c.str("quantity", i), Unit: c.str("unit", i),
			Formula: c.str("formula", i), Rule: c.str("rule", i), Granularity: c.str("granularity", i),
			OverlapS: c.f64("overlap_s", i), PeriodS: c.f64("period_s", i), ResourceID: c.str("resource_id", i),
			PeriodStart: c.ts("period_start", i), PeriodEnd: c.ts("period_end", i), Notes: c.str("notes", i),
		}
	}
	return out
}

// Costs reads the costs table (nil when the bundle has none).
func (b *Bundle) Costs(ctx context.Context) ([]CostRow, error) {
	var out []CostRow
	err := b.Records(ctx, TableCosts, func(rec arrow.RecordBatch) error {
		out = append(out, DecodeCosts(rec)...)
		return nil
	})
	return out, err
}

// WriteCosts stores rows as the costs table of the bundle in dir,
// replacing any earlier one. Writers of one bundle take turns (a lock on
// the bundle directory), so the manifest they write always describes the
// costs.parquet they wrote; both files are written under unique temporary
// names beside their final ones and renamed into place (costs first, then
// the manifest), so an interruption leaves the old table or the new one,
// never half of either. Datasets are refused: export the bundle again after
// costing it.
func WriteCosts(dir string, rows []CostRow) error {
	if IsDataset(dir) {
		return fmt.Errorf("%s is a dataset: store costs in its bundles, then export them again", dir)
	}
	lock, err := lockFile(dir, false, true, true)
	if err != nil {
		return fmt.Errorf("%s: locking the bundle: %w", dir, err)
	}
	defer lock.Unlock()
	b, err := OpenBundle(dir) // read under the lock: the last writer's manifest
	if err != nil {
		return err
	}
	rec := BuildCosts(memory.DefaultAllocator, rows)
	defer rec.Release()
	final := filepath.Join(dir, TableCosts+".parquet")
	tmp, err := os.CreateTemp(dir, "."+TableCosts+".parquet.tmp-")
	if err != nil {
		return err
	}
	props, aprops := writerProps(memory.DefaultAllocator, 1<<16, costsSchema)
	fw, err := pqarrow.NewFileWriter(costsSchema, tmp, props, aprops)
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if rec.NumRows() > 0 {
		if err := fw.Write(rec); err != nil {
			fw.Close()
			os.Remove(tmp.Name())
			return err
		}
	}
	if err := fw.Close(); err != nil { // closes tmp
		os.Remove(tmp.Name())
		return err
	}
	if err := syncFile(tmp.Name()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	m := b.Manifest
	tables := m.Tables[:0]
	for _, t := range m.Tables {
		if t.Name != TableCosts {
			tables = append(tables, t)
		}
	}
	m.Tables = append(tables, TableFile{TableCosts, TableCosts + ".parquet", rec.NumRows()})
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	mf, err := os.CreateTemp(dir, "."+ManifestFile+".tmp-")
	if err != nil {
		return err
	}
	mf.Close()
	if err := writeFileSync(mf.Name(), append(data, '\n')); err != nil {
		os.Remove(mf.Name())
		return err
	}
	if err := os.Chmod(mf.Name(), 0o644); err != nil {
		os.Remove(mf.Name())
		return err
	}
	if err := os.Rename(mf.Name(), filepath.Join(dir, ManifestFile)); err != nil {
		os.Remove(mf.Name())
		return err
	}
	return syncDir(dir)
}
