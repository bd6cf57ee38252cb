package schemas

import (
	"slices"
	"testing"
)

// TestValueSlots checks the footer count against the rows written: a
// scalar column has one slot per row, a list column one per element and
// one per empty or missing list, and a column the files lack has none.
func TestValueSlots(t *testing.T) {
	gaps := [][]float64{nil, {}, {1}, {1, 2, 3}, {4, 5}}
	b := requestsBundle(t, len(gaps), func(i int) Request {
		return Request{RunID: "r", Index: int64(i), Status: StatusOK, Phase: PhaseProfiling, ChunkGapsS: gaps[i]}
	})
	rows, slots, err := b.ValueSlots(TableRequests, "index", "chunk_gaps_s", "no_such_column")
	if want := []int64{5, 2 + 1 + 3 + 2, 0}; err != nil || rows != 5 || !slices.Equal(slots, want) {
		t.Errorf("ValueSlots = %d rows, %v, %v; want 5 rows, %v", rows, slots, err, want)
	}
}
