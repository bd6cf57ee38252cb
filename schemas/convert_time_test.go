package schemas

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// TestUnixSeconds: times are held as int64 nanoseconds, so a Unix time
// outside about 1678-2262 (a corrupt or misread value) is refused rather
// than overflowed; within, fractions keep their nanoseconds.
func TestUnixSeconds(t *testing.T) {
	for _, c := range []struct {
		v    float64
		ok   bool
		want time.Time
	}{
		{1700000000.25, true, time.Date(2023, 11, 14, 22, 13, 20, 250e6, time.UTC)},
		{0, true, time.Unix(0, 0).UTC()},
		{-1e10, false, time.Time{}}, // 1653
		{270000000000, false, time.Time{}},
		{9.2e9, true, time.Unix(9.2e9, 0).UTC()}, // 2261
		{9.3e9, false, time.Time{}},              // 2264
		{math.NaN(), false, time.Time{}},
		{math.Inf(1), false, time.Time{}},
	} {
		got, ok := UnixSeconds(c.v)
		if ok != c.ok || ok && !got.Equal(c.want) {
			t.Errorf("UnixSeconds(%v) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
		if ok && time.Unix(0, got.UnixNano()).UTC() != got {
			t.Errorf("UnixSeconds(%v) = %v does not round-trip through nanoseconds", c.v, got)
		}
	}
	if Latest.Year() != 2262 || Earliest.Year() != 1677 {
		t.Errorf("bounds %v .. %v", Earliest, Latest)
	}
}

// TestAppendTimeOutOfRange: a time past Latest reaching the writer (the
// sinks leave such times unset first) is stored as null, not overflowed
// into a date of the 17th century.
func TestAppendTimeOutOfRange(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "b")
	w, err := CreateBundle(dest, BundleOptions{VerdictVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	w.AddRun(Run{ID: "r", Tool: "vllm", WindowStart: Some(time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)), WindowEnd: Some(end)})
	if err := w.Commit(Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := runs[0]; r.WindowStart.OK || !r.WindowEnd.OK || !r.WindowEnd.V.Equal(end) {
		t.Errorf("window %+v .. %+v; want unset .. %v", r.WindowStart, r.WindowEnd, end)
	}
}
