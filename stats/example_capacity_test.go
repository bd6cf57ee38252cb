package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/verdict-llm/verdict/stats"
)

// queueing returns n latencies in dispatch order whose neighbours are
// correlated, as a server's batch and queue make them: an AR(1) in the
// log with coefficient 0.8.
func queueing(n int, scale float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	z := 0.0
	for i := range xs {
		z = 0.8*z + 0.6*r.NormFloat64()
		xs[i] = scale * math.Exp(0.3*z)
	}
	return xs
}

// The i.i.d. bootstrap treats correlated requests as independent; a block
// bootstrap keeps neighbours together and gives the wider, honest
// interval.
func ExampleSeriesBootstrap() {
	ttft := queueing(5000, 0.2, 7)
	for _, sc := range []stats.Scheme{stats.SchemeIID, stats.SchemeBlock} {
		iv := stats.SeriesBootstrap(ttft, stats.MeanStatistic(), stats.SeriesOptions{
			Scheme: sc, Bootstrap: stats.BootstrapOptions{Resamples: 2000, Seed: 1},
		})
		fmt.Printf("%-5s width %.4f s (%s)\n", sc, iv.Hi-iv.Lo, iv.Describe())
	}
	// Output:
	// iid   width 0.0034 s (i.i.d. BCa bootstrap of requests)
	// block width 0.0099 s (circular block bootstrap (block 48 requests, Politis-White))
}

// For an AR(1) with coefficient 0.8 theory gives an inflation of
// (1+0.8)/(1-0.8) = 9 and b_SB = (2*0.8/(1-0.64))^(2/3) 5000^(1/3) = 46.
func ExamplePolitisWhite() {
	b := stats.PolitisWhite(queueing(5000, 0.2, 7))
	fmt.Printf("stationary %.1f, circular %.1f; the mean's variance is %.1f times the i.i.d. one\n", b.Stationary, b.Circular, b.Inflation())
	// Output:
	// stationary 41.7, circular 47.7; the mean's variance is 8.5 times the i.i.d. one
}

func ExampleCapacityUnderLimits() {
	var pts []stats.LoadPoint
	for _, rate := range []float64{2, 4, 6, 8} {
		// TTFT grows with the request rate.
		pts = append(pts, stats.LoadPoint{Load: rate, Runs: []stats.PointRun{
			{Values: map[string][]float64{"ttft": queueing(3000, 0.1+0.02*rate*rate, uint64(rate))}},
		}})
	}
	c := stats.CapacityUnderLimits(pts, stats.CapacityOptions{
		Limits: []stats.CapacityLimit{{Metric: "ttft", Statistic: stats.QuantileStatistic(0.99, stats.Linear), Bound: 1.5}},
		Series: stats.SeriesOptions{Scheme: stats.SchemeBlock, Bootstrap: stats.BootstrapOptions{Resamples: 2000, Seed: 1}},
	})
	fmt.Printf("%s: %.2f req/s, 95%% [%.2f, %.2f], between %g and %g\n", c.Status, c.Load, c.Lo, c.Hi, c.LastPass, c.FirstFail)
	// Output:
	// bracketed: 5.71 req/s, 95% [5.58, 5.90], between 4 and 6
}

func ExampleMSER5() {
	// A run whose first 40 requests pay a cold start.
	ttft := queueing(1000, 0.2, 3)
	for i := range 40 {
		ttft[i] += 0.5
	}
	m := stats.MSER5(ttft)
	fmt.Printf("drop the first %d requests; steady: %v\n", m.Truncate, m.Steady)
	// Output:
	// drop the first 40 requests; steady: true
}

func ExampleParetoFrontier() {
	pts := []stats.ParetoPoint{
		{X: stats.Interactivity(0.010), Y: 900, Label: "c8"},
		{X: stats.Interactivity(0.020), Y: 2400, Label: "c32"},
		{X: stats.Interactivity(0.015), Y: 1500, Label: "tp2-c16"},
		{X: stats.Interactivity(0.040), Y: 3000, Label: "c128"},
	}
	f := stats.ParetoFrontier(pts)
	for _, p := range f {
		fmt.Printf("%s: %.0f tok/s/user, %.0f tok/s/GPU\n", p.Label, p.X, p.Y)
	}
	v := stats.ThroughputAt(f, 60)
	fmt.Printf("at 60 tok/s/user: %.0f tok/s/GPU (%s between %v)\n", v.Y, v.Status, v.Between)
	// Output:
	// c128: 25 tok/s/user, 3000 tok/s/GPU
	// c32: 50 tok/s/user, 2400 tok/s/GPU
	// tp2-c16: 67 tok/s/user, 1500 tok/s/GPU
	// c8: 100 tok/s/user, 900 tok/s/GPU
	// at 60 tok/s/user: 1860 tok/s/GPU (interpolated between [c32 tp2-c16])
}
