package guidellm_test

import (
	"fmt"
	"log"

	"github.com/verdict-llm/verdict/ingest/guidellm"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/schemas"
)

// Reading a GuideLLM v0.5 report: one run per benchmark, each latency
// mapped to its definition with its percentile method, and the statistics
// recomputed from complete request records beside the tool's.
func Example() {
	data := []byte(`{"metadata": {"version": 1, "guidellm_version": "0.5.2"}, "args": {"model": "m"},
 "benchmarks": [{"type_": "generative_benchmark",
  "config": {"strategy": {"type_": "constant", "rate": 2.0}},
  "metrics": {"request_totals": {"successful": 1, "errored": 0, "incomplete": 0, "total": 1},
   "time_to_first_token_ms": {"successful": {"mean": 125.0, "median": 125.0, "std_dev": 0.0, "min": 125.0, "max": 125.0,
     "count": 1, "percentiles": {"p99": 125.0}}}},
  "requests": {"successful": [{"info": {"timings": {"request_start": 10.0, "first_token_iteration": 10.125,
     "last_token_iteration": 10.5, "request_end": 10.5}}, "prompt_tokens": 8, "output_tokens": 4}],
   "errored": [], "incomplete": []},
  "start_time": 10.0, "end_time": 10.5, "duration": 0.5}]}`)
	r, err := ingesttest.ReadBytes(guidellm.Format{}, "benchmarks.json", data)
	if err != nil {
		log.Fatal(err)
	}
	run := r.Runs[0]
	fmt.Println(r.Version)
	fmt.Println(run.Scenario, run.Arrival, run.RequestRate.V, "req/s")
	for _, m := range r.Metrics {
		if m.MetricID == schemas.TTFT && m.Stat == schemas.StatP && m.Percentile.V == 99 {
			fmt.Printf("%s p99 = %.3f s (%s, %s)\n", m.MetricID, m.Value.V, m.Method, m.Source)
		}
	}
	fmt.Println(len(r.Warnings), "disagreements")
	// Output:
	// GuideLLM 0.5.2 (report schema version 1)
	// server constant 2 req/s
	// ttft p99 = 0.125 s (nearest_rank_cumulative, reported)
	// ttft p99 = 0.125 s (nearest_rank_cumulative, computed)
	// 0 disagreements
}
