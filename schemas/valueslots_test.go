package schemas

import (
	"path/filepath"
	"testing"
)

// TestValueSlots checks the footer count against the rows written: a
// scalar column has one slot per row, a list column one per element and
// one per empty or missing list, and a column the files lack has none.
func TestValueSlots(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "b")
	w, err := CreateBundle(dest, BundleOptions{VerdictVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(Run{ID: "r", Tool: "vllm"})
	gaps := [][]float64{nil, {}, {1}, {1, 2, 3}, {4, 5}}
	for i, g := range gaps {
		r := Request{RunID: "r", Index: int64(i), Status: StatusOK, Phase: PhaseProfiling, ChunkGapsS: g}
		if err := w.AddRequest(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		column string
		want   int64
	}{
		{"index", 5},
		{"chunk_gaps_s", 2 + 1 + 3 + 2},
		{"no_such_column", 0},
	} {
		got, err := b.ValueSlots(TableRequests, tc.column)
		if err != nil || got != tc.want {
			t.Errorf("ValueSlots(%q) = %d, %v; want %d", tc.column, got, err, tc.want)
		}
	}
}
