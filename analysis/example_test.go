package analysis_test

import (
	"fmt"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// PairRuns pairs as validation does: the streaming runs of two bundles
// pair with each other whatever their order.
func ExamplePairRuns() {
	stream, plain := schemas.Some(true), schemas.Some(false)
	old := []schemas.Run{{ID: "old-stream", Streaming: stream}, {ID: "old-plain", Streaming: plain}}
	new := []schemas.Run{{ID: "new-plain", Streaming: plain}, {ID: "new-stream", Streaming: stream}}
	pairs, unpaired := analysis.PairRuns(old, new)
	for _, p := range pairs {
		fmt.Println(old[p[0]].ID, "vs", new[p[1]].ID)
	}
	fmt.Println("unpaired:", len(unpaired))
	// Output:
	// old-stream vs new-stream
	// old-plain vs new-plain
	// unpaired: 0
}

// MetricEstimate is the one computation behind every view's figures; with
// Locust's method the TTFT (stored in seconds) is rounded in milliseconds.
func ExampleMetricEstimate() {
	ttfts := []float64{0.0351, 0.0362, 0.0364, 0.0366, 0.0371, 0.0372, 0.0374, 0.0381, 0.0436, 0.1474}
	ms := analysis.MetricEstimate(schemas.TTFT, ttfts, analysis.EstimateOptions{Percentiles: []float64{50, 90}, Method: stats.LocustBuckets})
	for _, q := range ms.Quantiles {
		fmt.Printf("%s %.3f s\n", q.Label(), q.Value)
	}
	fmt.Printf("mean %.5f s, no interval: %v\n", ms.Mean.Value, !ms.Mean.HasInterval())
	// Output:
	// median 0.037 s
	// p90 0.150 s
	// mean 0.04851 s, no interval: true
}
