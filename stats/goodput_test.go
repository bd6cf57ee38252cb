package stats

import (
	"math"
	"testing"
)

func TestGoodput(t *testing.T) {
	reqs := []Request{
		// 0: fast, TPOT = (1.0-0.1)/9 = 0.1, max gap 0.12
		{Success: true, TTFT: 0.1, E2E: 1.0, TPOT: 0.1, ChunkGaps: []float64{0.08, 0.12, 0.1}},
		// 1: TTFT exactly at the limit (inclusive), one token so TPOT = 0;
		// one streamed chunk, so no gap (an empty, non-nil list)
		{Success: true, TTFT: 0.2, E2E: 5.0, TPOT: 0, ChunkGaps: []float64{}},
		// 2: slow first token; gaps unknown (nil)
		{Success: true, TTFT: 0.3, E2E: 0.5, TPOT: 0.1},
		// 3: failed, otherwise perfect
		{Success: false, TTFT: 0.01, E2E: 0.02, TPOT: 0.0025},
		// 4: TPOT = (2.2-0.2)/10 = 0.2, over a 0.15 TPOT limit
		{Success: true, TTFT: 0.2, E2E: 2.2, TPOT: 0.2, ChunkGaps: []float64{0.2}},
		// 5: zero output tokens counts as TPOT 0, like vLLM; one chunk
		{Success: true, TTFT: 0.05, E2E: 0.05, TPOT: 0, ChunkGaps: []float64{}},
	}
	cases := []struct {
		name             string
		slo              SLO
		good, unmeasured int
	}{
		{"none", SLO{}, 5, 0},
		{"ttft", SLO{TTFT: 0.2}, 4, 0},                             // 0, 1, 4, 5
		{"ttft+tpot", SLO{TTFT: 0.2, TPOT: 0.15}, 3, 0},            // 0, 1, 5
		{"itl", SLO{ITL: 0.11}, 2, 1},                              // 1, 5 (one chunk, no gap); 2's gaps are unknown
		{"itl inclusive", SLO{ITL: 0.12}, 3, 1},                    // adds 0
		{"e2e", SLO{E2E: 1.0}, 3, 0},                               // 0, 2, 5
		{"all", SLO{TTFT: 0.2, TPOT: 0.1, ITL: 0.2, E2E: 5}, 3, 0}, // 0, 1, 5 (2 misses TTFT before its unknown gaps count)
	}
	for _, c := range cases {
		g := ComputeGoodput(reqs, c.slo, 10)
		if g.Good != c.good || g.Total != 6 || g.Successful != 5 || g.Unmeasured != c.unmeasured {
			t.Errorf("%s: good %d of %d (%d successful, %d unmeasured), want %d of 6 (5, %d)", c.name, g.Good, g.Total, g.Successful, g.Unmeasured, c.good, c.unmeasured)
		}
		if g.Share != float64(c.good)/6 || g.Rate != float64(c.good)/10 {
			t.Errorf("%s: share %v rate %v", c.name, g.Share, g.Rate)
		}
		if (len(g.Warnings) != 0) != (c.unmeasured > 0) {
			t.Errorf("%s: warnings %v", c.name, g.Warnings)
		}
	}
	g := ComputeGoodput(nil, SLO{}, 0)
	if !math.IsNaN(g.Share) || !math.IsNaN(g.Rate) || len(g.Warnings) != 2 {
		t.Errorf("empty run: %+v", g)
	}
	// Unknown is unknown: a request whose TTFT was never measured is not
	// good under a TTFT limit (stats.SLO's documentation), and is counted
	// as unmeasured; without a TTFT limit it is good.
	nan := []Request{{Success: true, TTFT: math.NaN(), E2E: 1, TPOT: 0.5}, {Success: true, TTFT: 2, E2E: 3, TPOT: math.NaN()}}
	if g := ComputeGoodput(nan, SLO{TTFT: 1}, 1); g.Good != 0 || g.Unmeasured != 1 || len(g.Warnings) != 1 {
		t.Errorf("NaN TTFT under a TTFT limit: %+v", g)
	}
	if g := ComputeGoodput(nan, SLO{E2E: 5}, 1); g.Good != 2 || g.Unmeasured != 0 {
		t.Errorf("NaN TTFT without a TTFT limit: %+v", g)
	}
	// A request over one limit is missed, not unmeasured, whatever else is
	// unknown.
	if g := ComputeGoodput(nan, SLO{TTFT: 1, TPOT: 1}, 1); g.Good != 0 || g.Unmeasured != 1 {
		t.Errorf("missed and unknown: %+v", g)
	}
	defer func() {
		if recover() == nil {
			t.Error("negative limit did not panic")
		}
	}()
	ComputeGoodput(reqs, SLO{TPOT: -1}, 1)
}
