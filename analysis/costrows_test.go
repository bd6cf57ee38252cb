package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/costing"
)

// TestCostRowsPeriodOutOfRange: a bill's period beyond the years a
// bundle's nanosecond timestamps hold is not stored (it would overflow
// into another date) and the row's notes say so; an ordinary period is
// kept in UTC.
func TestCostRowsPeriodOutOfRange(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	rows := CostRows([]costing.CostRecord{
		{RunID: "a", Sort: "allocation", PeriodStart: start, PeriodEnd: far, Notes: "hourly"},
		{RunID: "b", Sort: "quote"},
	})
	a := rows[0]
	if !a.PeriodStart.OK || a.PeriodStart.V != start.UTC() || a.PeriodEnd.OK {
		t.Errorf("period %+v .. %+v", a.PeriodStart, a.PeriodEnd)
	}
	if want := "hourly; period end 9999-12-31T00:00:00Z is outside the years a bundle holds, not stored"; a.Notes != want {
		t.Errorf("notes %q, want %q", a.Notes, want)
	}
	if b := rows[1]; b.PeriodStart.OK || b.PeriodEnd.OK || strings.Contains(b.Notes, "period") {
		t.Errorf("quote row %+v", b)
	}
}
