package locust_test

import (
	"fmt"
	"log"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/locust"
	"github.com/verdict-llm/verdict/schemas"
)

// Reading a Locust stats file: one run for the test, its endpoints a
// dimension of the run, whole-response times in seconds, percentiles read
// off Locust's buckets.
func Example() {
	data := []byte("Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,50%,99%,100%\r\n" +
		"POST,/v1/completions,200,2,2400,2511.7,903.2,7108.5,1830.0,1.98,0.02,2400,6200,7100\r\n")
	r, err := ingesttest.ReadBytes(locust.Format{}, "run_stats.csv", data)
	if err != nil {
		log.Fatal(err)
	}
	run := r.Runs[0]
	fmt.Println(len(r.Runs), "run:", run.Completed.V, "ok,", run.Failed.V, "failed")
	for _, m := range r.Metrics {
		if m.Stat == schemas.StatP && m.Percentile.V == 99 {
			fmt.Printf("%s: %s p99 = %v s (%s)\n", m.Dimension, m.MetricID, m.Value.V, m.Method)
		}
	}
	// Output:
	// 1 run: 198 ok, 2 failed
	// endpoint POST /v1/completions: http_response_time p99 = 6.2 s (locust_buckets)
}
