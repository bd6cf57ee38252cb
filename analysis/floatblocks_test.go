package analysis

import (
	"slices"
	"testing"
)

// TestFloatBlocks: values come back in order whether they fit one
// reserved block, overflow it, or fill several ordinary blocks.
func TestFloatBlocks(t *testing.T) {
	for _, tc := range []struct {
		name          string
		reserve, n    int
		wantSameBlock bool
	}{
		{"none", 0, 3*floatBlock + 7, false},
		{"small", 0, 5, false},
		{"reserved", 2*floatBlock + 1, 2*floatBlock + 1, true},
		{"reserved, fewer arrive", 3 * floatBlock, 2*floatBlock + 1, true},
		{"reserved, more arrive", 2 * floatBlock, 2*floatBlock + 9, false},
		{"reserve below a block", floatBlock / 2, 10, false},
	} {
		var f floatBlocks
		f.reserve(tc.reserve)
		first := f.cur
		want := make([]float64, tc.n)
		for i := range want {
			want[i] = float64(i)
		}
		f.addAll(want[:tc.n/2])
		for _, v := range want[tc.n/2:] {
			f.add(v)
		}
		got := f.finish()
		if !slices.Equal(got, want) {
			t.Errorf("%s: values differ (%d of %d)", tc.name, len(got), len(want))
		}
		same := cap(first) > 0 && len(got) > 0 && &got[0] == &first[:1][0]
		if same != tc.wantSameBlock {
			t.Errorf("%s: returned the reserved block: %v, want %v", tc.name, same, tc.wantSameBlock)
		}
		if f.n != 0 || f.cur != nil || f.full != nil {
			t.Errorf("%s: blocks not released", tc.name)
		}
	}
}
