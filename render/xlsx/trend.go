package xlsx

import (
	"fmt"
	"math"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

// SheetTrend is the trend sheet (verdict report --trend).
const SheetTrend = "Trend"

// trendZ is the normal quantile of the runs' 95 % intervals on the
// Trend sheet: value ± z standard errors, as the trend figures draw them
// (docs/trend.md, section 2).
const trendZ = 1.959963984540054

// trendOnly reports a workbook of a trend alone (verdict report --trend
// without bundles): its sheets are Trend and About.
func (b *book) trendOnly() bool {
	return b.rep.Trend != nil && len(b.rep.Bundles) == 0 && len(b.rep.Runs) == 0
}

// trend writes the trend sheet: the summary of the series as verdict
// trend gives it, then per series its change points (one row per
// statistic and change, sizes and p-values as numbers), its figure
// (Options.TrendPictures[i] for series i) and its runs with each
// statistic's value and 95 % interval.
func (b *book) trend() error {
	const sheet = SheetTrend
	tr := b.rep.Trend
	tables := render.TrendTables(tr)
	head := tables[0]
	if err := b.setText(sheet, 1, 1, head.Title, "title"); err != nil {
		return err
	}
	row := 3
	if err := b.header(sheet, "", row, head.Columns); err != nil {
		return err
	}
	row++
	for _, s := range tr.Series {
		changes, regs := s.Changes()
		if err := b.setText(sheet, 1, row, s.Name, ""); err != nil {
			return err
		}
		for i, n := range []int{len(s.Runs), len(s.Excluded), changes, regs} {
			if err := b.setNum(sheet, 2+i, row, float64(n), "num:#,##0"); err != nil {
				return err
			}
		}
		row++
	}
	row, err := b.notes(sheet, row, head.Notes)
	if err != nil {
		return err
	}
	b.about = append(b.about, "Trend: the series of "+tr.Dataset+" (verdict trend): per series its change points (sizes as ratios with their interval), its figure, and its runs in order with each statistic's value and 95 % interval (docs/trend.md).")
	for i, s := range tr.Series {
		var pic *Picture
		if i < len(b.o.TrendPictures) && len(b.o.TrendPictures[i].PNG) > 0 {
			pic = &b.o.TrendPictures[i]
		}
		if row, err = b.trendSeries(sheet, row+1, s, tables[i+1].Notes, pic); err != nil {
			return err
		}
	}
	return b.widths(sheet, 30, 16, 16, 14, 14, 14, 12, 12, 10, 10, 20, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14)
}

// trendSeries writes one series' block from row; it returns the next
// free row.
func (b *book) trendSeries(sheet string, row int, s analysis.TrendSeries, notes []string, pic *Picture) (int, error) {
	if err := b.setText(sheet, 1, row, "Series "+s.Name, "bold"); err != nil {
		return row, err
	}
	row++
	cols := []string{"statistic", "change at (first run after)", "order", "unit", "before", "after", "change", "change low", "change high", "p", "direction", "regression"}
	if err := b.header(sheet, "", row, cols); err != nil {
		return row, err
	}
	row++
	for _, m := range s.Metrics {
		scale, unit := b.trendScale(m)
		if len(m.Changes) == 0 {
			word := "no change"
			if strings.Contains(m.Note, "too few") {
				word = "too few runs"
			}
			for col, v := range map[int]string{1: m.Stat.Label(), 2: word, 4: unit} {
				if err := b.setText(sheet, col, row, v, ""); err != nil {
					return row, err
				}
			}
			row++
			continue
		}
		for _, c := range m.Changes {
			reg := "no"
			if c.Regression {
				reg = "yes"
			}
			for col, v := range map[int]string{1: m.Stat.Label(), 2: c.RunID, 3: c.Order, 4: unit, 11: c.Direction, 12: reg} {
				if err := b.setText(sheet, col, row, v, ""); err != nil {
					return row, err
				}
			}
			for k, v := range []float64{c.Before * scale, c.After * scale} {
				if err := b.setNum(sheet, 5+k, row, v, "num:"+numFmt(unit)); err != nil {
					return row, err
				}
			}
			for k, v := range []float64{c.Relative, c.Lo, c.Hi} {
				if err := b.setNum(sheet, 7+k, row, v, "num:0.0%"); err != nil {
					return row, err
				}
			}
			if err := b.setNum(sheet, 10, row, c.P, "num:0.0000"); err != nil {
				return row, err
			}
			row++
		}
	}
	row, err := b.notes(sheet, row, notes)
	if err != nil {
		return row, err
	}
	row++
	if pic != nil {
		err := b.f.AddPictureFromBytes(sheet, cell(1, row), &excelize.Picture{Extension: ".png", File: pic.PNG,
			Format: &excelize.GraphicOptions{AltText: pic.Title + ": " + pic.Caption, LockAspectRatio: true}})
		if err != nil {
			return row, fmt.Errorf("picture %s: %w", pic.Name, err)
		}
		row += 1 + (pngHeight(pic.PNG)+19)/20
		if row, err = b.notes(sheet, row, []string{pic.Caption}); err != nil {
			return row, err
		}
		row++
	}
	return b.trendRuns(sheet, row, s)
}

// trendRuns writes a series' runs in order, with each statistic's value
// and its 95 % interval (empty where the run's rows give no standard
// error, or the run lacks the statistic).
func (b *book) trendRuns(sheet string, row int, s analysis.TrendSeries) (int, error) {
	cols := []string{"run", "run ID", "order"}
	type col struct {
		scale float64
		unit  string
		at    map[string]analysis.TrendPoint
	}
	var stats []col
	for _, m := range s.Metrics {
		scale, unit := b.trendScale(m)
		c := col{scale: scale, unit: unit, at: map[string]analysis.TrendPoint{}}
		for _, p := range m.Points {
			c.at[p.RunID] = p
		}
		stats = append(stats, c)
		cols = append(cols, fmt.Sprintf("%s (%s)", m.Stat.Label(), unit), m.Stat.Label()+" low", m.Stat.Label()+" high")
	}
	if err := b.header(sheet, "", row, cols); err != nil {
		return row, err
	}
	row++
	for i, r := range s.Runs {
		if err := b.setNum(sheet, 1, row, float64(i+1), "num:#,##0"); err != nil {
			return row, err
		}
		if err := b.setText(sheet, 2, row, r.RunID, ""); err != nil {
			return row, err
		}
		if err := b.setText(sheet, 3, row, r.Order, ""); err != nil {
			return row, err
		}
		for k, c := range stats {
			p, ok := c.at[r.RunID]
			if !ok {
				continue
			}
			lo, hi := math.NaN(), math.NaN()
			if p.SE > 0 {
				lo, hi = p.Value-trendZ*p.SE, p.Value+trendZ*p.SE
			}
			for j, v := range []float64{p.Value, lo, hi} {
				if err := b.setNum(sheet, 4+3*k+j, row, v*c.scale, "num:"+numFmt(c.unit)); err != nil {
					return row, err
				}
			}
		}
		row++
	}
	return b.notes(sheet, row, []string{"low and high: the run's value ± 1.96 standard errors (from its stored percentiles or standard deviation; none for throughputs)."})
}

// trendScale is a statistic's display unit on the sheet (durations in
// ms when its typical value is under a second).
func (b *book) trendScale(m analysis.TrendMetric) (float64, string) {
	typical := 0.0
	for _, p := range m.Points {
		typical = math.Max(typical, math.Abs(p.Value))
	}
	return displayScale(m.Unit, typical)
}
