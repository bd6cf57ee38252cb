package stats

import "testing"

// Test vectors from docs/formats/mlperf.md section 4.3 (LoadGen's own
// early_stopping.cc, cross-checked with an exact binomial search).

func TestEarlyStoppingH(t *testing.T) {
	ts := []int{0, 1, 2, 3, 5, 10, 20, 50, 100, 1000}
	table := []struct {
		p    float64
		want []int
	}{
		{0.50, []int{7, 10, 12, 14, 17, 25, 39, 78, 137, 1108}},
		{0.90, []int{44, 63, 79, 94, 122, 187, 305, 631, 1146, 9722}},
		{0.95, []int{90, 129, 163, 195, 254, 388, 636, 1322, 2404, 20483}},
		{0.97, []int{152, 218, 275, 329, 428, 657, 1077, 2243, 4082, 34831}},
		{0.99, []int{459, 661, 836, 998, 1302, 2000, 3284, 6848, 12471, 106569}},
		{0.999, []int{4603, 6635, 8401, 10039, 13100, 20130, 33077, 69008, 125726, 1075032}},
	}
	for _, row := range table {
		for i, tt := range ts {
			if got := EarlyStoppingH(tt, row.p); got != row.want[i] {
				t.Errorf("h(%d, %v) = %d, want %d", tt, row.p, got, row.want[i])
			}
		}
	}
}

func TestEarlyStoppingQueriesToT(t *testing.T) {
	const notMet = -1
	table := []struct {
		q         int
		p90, p99  int // T, or notMet; 0 = not listed
		p999      int
		minNeeded [3]int
	}{
		{q: 63, p90: notMet, p99: notMet, p999: notMet},
		{q: 64, p90: 1},
		{q: 100, p90: 3},
		{q: 128, p90: 5},
		{q: 659, p90: 48, p99: notMet},
		{q: 662, p90: 48, p99: 1},
		{q: 1000, p90: 78, p99: 2},
		{q: 1024, p90: 80, p99: 3},
		{q: 2048, p90: 173, p99: 10},
		{q: 10000, p90: 930, p99: 77, p999: 2},
		{q: 13368, p90: 1256, p99: 107},
		{q: 24576, p90: 2348, p99: 209, p999: 13},
		{q: 270336, p90: 26670, p99: 2583, p999: 232},
	}
	mins := map[float64]int{0.9: 64, 0.99: 662, 0.999: 6636}
	for _, row := range table {
		sorted := make([]float64, row.q)
		for i := range sorted {
			sorted[i] = float64(i + 1)
		}
		for p, want := range map[float64]int{0.9: row.p90, 0.99: row.p99, 0.999: row.p999} {
			if want == 0 {
				continue
			}
			e := EarlyStoppingPercentile(sorted, p)
			if e.MinQueries != mins[p] {
				t.Errorf("p=%v: MinQueries = %d, want %d", p, e.MinQueries, mins[p])
			}
			if want == notMet {
				if e.Met {
					t.Errorf("q=%d p=%v: met with T=%d, want not met", row.q, p, e.T)
				}
				continue
			}
			if !e.Met || e.T != want || e.Index != row.q-want || e.Discarded != want-1 || e.Estimate != sorted[row.q-want] {
				t.Errorf("q=%d p=%v: %+v, want T=%d", row.q, p, e, want)
			}
		}
	}
}

func TestEarlyStoppingWorkedExamples(t *testing.T) {
	// (a) SingleStream, latencies 1..100: T = 3, estimate sorted[97] = 98,
	// plain p90 sorted[90] = 91.
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(i + 1)
	}
	e := EarlyStoppingPercentile(x, 0.9)
	if e.T != 3 || e.Estimate != 98 {
		t.Errorf("latencies 1..100: %+v, want T=3 estimate 98", e)
	}
	if got := Quantile(x, 0.9, NearestRankFloor); got != 91 {
		t.Errorf("plain LoadGen p90 = %v, want 91", got)
	}
	// Real logs: 13,368 queries discard 1255; 659 discard 47.
	for q, want := range map[int]int{13368: 1255, 659: 47} {
		e := EarlyStoppingPercentile(make([]float64, q), 0.9)
		if e.Discarded != want {
			t.Errorf("q=%d: discard %d, want %d", q, e.Discarded, want)
		}
	}
	// (b) Server, 1000 queries at p99: 3 over fail needing 1 more; 2 pass.
	lat := make([]float64, 1000)
	lat[0], lat[1], lat[2] = 5, 5, 5
	c := EarlyStoppingServer(lat, 1, 0.99)
	if c.Met || c.OverLatency != 3 || c.Needed != 1001 || c.MoreQueries != 1 {
		t.Errorf("3 over: %+v, want fail needing 1 more", c)
	}
	lat[2] = 1 // equal to the target is not over
	c = EarlyStoppingServer(lat, 1, 0.99)
	if !c.Met || c.OverLatency != 2 || c.Needed != 838 {
		t.Errorf("2 over: %+v, want success with 838 needed", c)
	}
	// Server p99 with zero over-latency needs 459.
	c = EarlyStoppingServer(make([]float64, 458), 1, 0.99)
	if c.Met || c.Needed != 459 || c.MoreQueries != 1 {
		t.Errorf("458 clean queries: %+v, want 459 needed", c)
	}
}

func TestEarlyStoppingMaxOverLatency(t *testing.T) {
	for _, c := range []struct {
		q    int
		p    float64
		want int
	}{
		{458, 0.99, -1}, {459, 0.99, 0}, {662, 0.99, 1}, {838, 0.99, 2}, {1000, 0.99, 2},
		{1001, 0.99, 3}, {2010, 0.99, 10}, {10000, 0.99, 77}, {24576, 0.99, 209},
		{73728, 0.99, 674}, {270336, 0.99, 2583},
		{100, 0.90, 3}, {1000, 0.90, 78}, {24576, 0.90, 2348}, {73728, 0.90, 7183},
	} {
		got := EarlyStoppingMaxOverLatency(c.q, c.p)
		if got != c.want {
			t.Errorf("t_max(%d, %v) = %d, want %d", c.q, c.p, got, c.want)
		}
		// Consistency with h: t_max passes, t_max+1 does not.
		if got >= 0 && EarlyStoppingH(got, c.p)+got > c.q {
			t.Errorf("t_max(%d, %v) = %d but h+t = %d", c.q, c.p, got, EarlyStoppingH(got, c.p)+got)
		}
		if EarlyStoppingH(got+1, c.p)+got+1 <= c.q {
			t.Errorf("t_max(%d, %v) = %d but t+1 also passes", c.q, c.p, got)
		}
	}
	// 73728 queries with 675 over would need 36 more.
	if need := EarlyStoppingH(675, 0.99) + 675 - 73728; need != 36 {
		t.Errorf("73728 queries, 675 over: need %d more, want 36", need)
	}
}
