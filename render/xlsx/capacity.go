package xlsx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
)

// SheetCapacity is the capacity sheet (verdict report --slo).
const SheetCapacity = "Capacity"

// capacity writes the capacity section: per configuration its capacity
// with the interval, the throughput, cost and energy there, and its load
// points with each limit's statistic and interval; then the ratios.
func (b *book) capacity() error {
	const sheet = SheetCapacity
	res := b.rep.Capacity
	tables := render.CapacityTables(res)
	if err := b.setText(sheet, 1, 1, tables[0].Title, "title"); err != nil {
		return err
	}
	row := 3
	var err error
	for _, cc := range res.Configs {
		if row, err = b.capacityConfig(sheet, row, cc); err != nil {
			return err
		}
		row++
	}
	for _, c := range res.Comparisons {
		text := fmt.Sprintf("%s / %s: not compared (%s)", c.A, c.B, strings.Join(c.Why, "; "))
		if r := c.Ratio; r != nil {
			text = fmt.Sprintf("%s / %s = %s [%s, %s] (%s; %s)", c.A, c.B, render.Sig(r.Estimate, 4), render.Sig(r.Lo, 4), render.Sig(r.Hi, 4), r.Status, strings.Join(c.Why, "; "))
		}
		if err := b.setText(sheet, 1, row, text, "wrap"); err != nil {
			return err
		}
		row++
	}
	notes := append(slices.Clone(tables[0].Notes), "The costs and intervals on this sheet are numbers, valid for the inputs as delivered: they do not follow edits on the Costs sheet.")
	if _, err := b.notes(sheet, row+1, notes); err != nil {
		return err
	}
	return b.widths(sheet, 16, 10, 12, 16, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14)
}

// capacityConfig writes one configuration's block from row; it returns
// the next free row.
func (b *book) capacityConfig(sheet string, row int, cc *analysis.ConfigCapacity) (int, error) {
	c := cc.Capacity
	loadUnit := schemas.UnitRequestsPerSecond
	if cc.Sweep.Axis == analysis.AxisConcurrency {
		loadUnit = ""
	}
	if err := b.setText(sheet, 1, row, fmt.Sprintf("%s: capacity %s (%s axis)", cc.Name, c.Status, cc.Sweep.Axis), "bold"); err != nil {
		return row, err
	}
	row++
	lines := []struct {
		label     string
		v, lo, hi float64
		unit      string
	}{
		{"capacity", c.Load, c.Lo, c.Hi, loadUnit},
		{"output tokens/s there", cc.Throughput.Value, cc.Throughput.Lo, cc.Throughput.Hi, schemas.UnitTokensPerSecond},
		{"per GPU", cc.PerGPU.Value, cc.PerGPU.Lo, cc.PerGPU.Hi, schemas.UnitTokensPerSecond},
	}
	if x := cc.Cost; x != nil {
		lines = append(lines, struct {
			label     string
			v, lo, hi float64
			unit      string
		}{"cost per 1M output tokens (" + x.Source + ")", x.PerMillion.Value, x.PerMillion.Lo, x.PerMillion.Hi, x.Currency})
	}
	if e := cc.Energy; e != nil {
		lines = append(lines, struct {
			label     string
			v, lo, hi float64
			unit      string
		}{"J per output token", e.JoulesPerToken, nan(), nan(), "float"})
	}
	for _, l := range lines {
		if err := b.setText(sheet, 1, row, l.label, ""); err != nil {
			return row, err
		}
		for i, v := range []float64{l.v, l.lo, l.hi} {
			if err := b.setNum(sheet, 2+i, row, v, "num:"+numFmt(l.unit)); err != nil {
				return row, err
			}
		}
		row++
	}
	cols := []string{"load", "runs", "verdict"}
	for _, l := range cc.Limits {
		cols = append(cols, l, "lo", "hi")
	}
	cols = append(cols, "meets", "output tokens/s", "per GPU", "tokens/s per user", "J/token")
	if err := b.header(sheet, "", row, cols); err != nil {
		return row, err
	}
	row++
	for _, p := range cc.Points {
		if err := b.capacityPoint(sheet, row, cc, p, loadUnit); err != nil {
			return row, err
		}
		row++
	}
	return b.notes(sheet, row, []string{"interval: " + c.Method})
}

// capacityPoint writes one load point's row.
func (b *book) capacityPoint(sheet string, row int, cc *analysis.ConfigCapacity, p analysis.CapacityPoint, loadUnit string) error {
	if err := b.setNum(sheet, 1, row, p.Load, "num:"+numFmt(loadUnit)); err != nil {
		return err
	}
	if err := b.setNum(sheet, 2, row, float64(len(p.Runs)), "num:"+numFmt("")); err != nil {
		return err
	}
	if err := b.setText(sheet, 3, row, p.Verdict, ""); err != nil {
		return err
	}
	col := 4
	for j, e := range p.Stats {
		scale, unit := displayScale(cc.LimitUnits[j], e.Value)
		for _, v := range []float64{e.Value, e.Lo, e.Hi} {
			if err := b.setNum(sheet, col, row, v*scale, "num:"+numFmt(unit)); err != nil {
				return err
			}
			col++
		}
	}
	meets := "no"
	if p.Pass {
		meets = "yes"
	}
	if err := b.setText(sheet, col, row, meets, ""); err != nil {
		return err
	}
	for i, v := range []float64{p.OutputTokensPerSecond, p.PerGPU, p.Interactivity, p.JoulesPerToken} {
		if err := b.setNum(sheet, col+1+i, row, v, "num:"+numFmt("float")); err != nil {
			return err
		}
	}
	return nil
}
