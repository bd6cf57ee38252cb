package stats_test

import (
	"fmt"
	"math"

	"github.com/verdict-llm/verdict/stats"
)

// latencies returns n deterministic, right-skewed latencies in seconds
// (exponential quantiles at evenly spaced, shuffled levels), standing in
// for a run's TTFTs.
func latencies(n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		u := math.Mod(float64(i+1)*0.6180339887498949, 1)
		xs[i] = scale * (0.05 - 0.1*math.Log(1-u))
	}
	return xs
}

// Each tool reads percentiles its own way; the Method says which.
func Example() {
	x := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, m := range []stats.Method{stats.Linear, stats.NearestRankFloor, stats.NearestRankCumulative, stats.LocustBuckets} {
		fmt.Printf("%-24s p50=%v p90=%v\n", m, stats.Quantile(x, 0.5, m), stats.Quantile(x, 0.9, m))
	}
	// Output:
	// linear                   p50=55 p90=91
	// nearest_rank_floor       p50=60 p90=100
	// nearest_rank_cumulative  p50=50 p90=100
	// locust_buckets           p50=60 p90=100
}

func ExampleBootstrap() {
	ttft := latencies(5000, 1)
	o := stats.DefaultBootstrap
	o.Seed = 42
	iv := stats.Bootstrap(ttft, stats.QuantileStatistic(0.99, stats.Linear), o)
	fmt.Printf("%s = %.3f s, %g%% %s interval [%.3f, %.3f], %d warnings\n",
		iv.Statistic, iv.Estimate, 100*iv.Confidence, iv.Method, iv.Lo, iv.Hi, len(iv.Warnings))

	// Too few samples for a p99: the interval comes with a warning.
	iv = stats.Bootstrap(ttft[:200], stats.QuantileStatistic(0.99, stats.Linear), o)
	fmt.Println(iv.Warnings[0])
	// Output:
	// p99 = 0.508 s, 95% bca interval [0.485, 0.541], 0 warnings
	// p99 from 200 samples: about 2 lie beyond it, so its interval rests on those few and is only indicative; a reliable one needs 1000 samples (10 beyond)
}

func ExampleCompare() {
	before := latencies(300, 1)
	after := latencies(300, 1.2)
	c := stats.Compare(before, after, stats.DefaultCompare)
	fmt.Printf("median %.3f -> %.3f s: %v\n", c.Old.Estimate, c.New.Estimate, c)
	fmt.Printf("ratio interval [%.2f, %.2f]\n", c.Ratio.Lo, c.Ratio.Hi)

	same := stats.Compare(before, latencies(280, 1), stats.DefaultCompare)
	fmt.Println(same)
	// Output:
	// median 0.120 -> 0.143 s: +20.00% (p=0.000 n=300+300)
	// ratio interval [1.05, 1.37]
	// ~ (p=0.909 n=300+280)
}

func ExampleEarlyStoppingPercentile() {
	// A SingleStream run of 100 queries with latencies 1..100 ms.
	lat := make([]float64, 100)
	for i := range lat {
		lat[i] = float64(i + 1)
	}
	e := stats.EarlyStoppingPercentile(lat, 0.9)
	fmt.Printf("need %d queries; discard %d; p90 estimate %v ms (plain p90 %v ms)\n",
		e.MinQueries, e.Discarded, e.Estimate, stats.Quantile(lat, 0.9, stats.NearestRankFloor))

	// A Server run of 1,000 queries, 3 of them over the TTFT limit.
	ttft := make([]float64, 1000)
	ttft[0], ttft[1], ttft[2] = 3, 3, 3
	s := stats.EarlyStoppingServer(ttft, 2, 0.99)
	fmt.Printf("server: met=%v, would need %d more queries\n", s.Met, s.MoreQueries)
	// Output:
	// need 64 queries; discard 2; p90 estimate 98 ms (plain p90 91 ms)
	// server: met=false, would need 1 more queries
}

func ExampleComputeGoodput() {
	reqs := []stats.Request{
		{Success: true, TTFT: 0.15, E2E: 2.0, TPOT: 0.04625, ChunkGaps: []float64{0.04, 0.05}},
		{Success: true, TTFT: 0.25, E2E: 1.0, TPOT: 0.075},
		{Success: true, TTFT: 0.10, E2E: 4.1, TPOT: 0.1, ChunkGaps: []float64{0.09, 0.30}},
		{Success: false},
	}
	g := stats.ComputeGoodput(reqs, stats.SLO{TTFT: 0.2, TPOT: 0.1}, 10)
	fmt.Printf("%d of %d good (%.0f%%), %.1f req/s\n", g.Good, g.Total, 100*g.Share, g.Rate)
	g = stats.ComputeGoodput(reqs, stats.SLO{TTFT: 0.2, TPOT: 0.1, ITL: 0.1}, 10)
	fmt.Printf("with ITL limit: %d good\n", g.Good)
	// Output:
	// 2 of 4 good (50%), 0.2 req/s
	// with ITL limit: 1 good
}

func ExampleMaxRateUnderLimits() {
	var runs []stats.SweepRun
	for _, rate := range []float64{2, 4, 6, 8} {
		// Latency grows with load.
		runs = append(runs, stats.SweepRun{Rate: rate, Samples: map[string][]float64{
			"ttft": latencies(2000, 1+rate*rate/20),
		}})
	}
	r := stats.MaxRateUnderLimits(runs, stats.MaxRateOptions{
		Limits:    []stats.LatencyLimit{{Metric: "ttft", P: 0.99, Method: stats.NearestRankFloor, Limit: 1.0}},
		Bootstrap: stats.BootstrapOptions{Resamples: 2000},
	})
	fmt.Printf("%s: %v req/s (fails at %v; crossing near %.1f)\n", r.Status, r.Rate, r.Above, r.Interpolated)
	// Output:
	// bracketed: 4 req/s (fails at 6; crossing near 4.3)
}
