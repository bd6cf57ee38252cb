package html

import (
	"fmt"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

// capacitySection is the report's capacity section: the summary open,
// each sweep, the ratios and the frontier folded.
func capacitySection(res *analysis.CapacityResult) section {
	s := section{ID: "capacity", Title: "Capacity"}
	for i, t := range render.CapacityTables(res) {
		s.Tables = append(s.Tables, tableView{ID: fmt.Sprintf("capacity-%d", i+1), Table: t, Open: i == 0})
	}
	return s
}
