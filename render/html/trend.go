package html

import (
	"fmt"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

// A block is a figure with the table it illustrates (a trend series).
type block struct {
	ID     string
	Figure *figureView
	Table  tableView
}

// trendSection is the report's trend section (verdict report --trend):
// the trend's summary table, then per series its figure (figs[i] is
// series i's; one without SVG is left out) above its table of change
// points, the tables render.TrendTables makes for verdict trend.
func trendSection(tr *analysis.TrendReport, figs []Figure) (section, error) {
	s := section{ID: "trend", Title: "Trend"}
	tables := render.TrendTables(tr)
	s.Tables = []tableView{{ID: "trend-summary", Table: tables[0], Open: true}}
	for i, t := range tables[1:] {
		b := block{ID: fmt.Sprintf("trend-series-%d", i+1), Table: tableView{ID: fmt.Sprintf("trend-%d", i+1), Table: t, Open: true}}
		if i < len(figs) && len(figs[i].SVG) > 0 {
			v, err := newFigureView(figs[i])
			if err != nil {
				return section{}, err
			}
			b.Figure = &v
		}
		s.Blocks = append(s.Blocks, b)
	}
	return s, nil
}
