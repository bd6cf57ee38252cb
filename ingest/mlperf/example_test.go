package mlperf_test

import (
	"fmt"
	"log"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/mlperf"
)

// Reading two lines of a LoadGen detail log: nanoseconds become seconds,
// percentiles name LoadGen's method, and a seed beyond int64 stays exact.
func Example() {
	data := []byte(`:::MLLOG {"key": "effective_scenario", "value": "Server", "time_ms": 0.02, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "x.cc", "line_no": 1, "pid": 1, "tid": 1}}
:::MLLOG {"key": "effective_schedule_rng_seed", "value": 18209322760996052031, "time_ms": 0.02, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "x.cc", "line_no": 2, "pid": 1, "tid": 1}}
:::MLLOG {"key": "result_first_token_99.00_percentile_latency_ns", "value": 1914647645, "time_ms": 9.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "results.cc", "line_no": 793, "pid": 1, "tid": 1}}
`)
	r, err := ingesttest.ReadBytes(mlperf.Format{}, "mlperf_log_detail.txt", data)
	if err != nil {
		log.Fatal(err)
	}
	run, m := r.Runs[0], r.Metrics[0]
	fmt.Println(run.Scenario, run.Labels["effective_schedule_rng_seed"])
	fmt.Printf("%s p%v = %.9f %s (%s)\n", m.MetricID, m.Percentile.V, m.Value.V, m.Unit, m.Method)
	// Output:
	// server 18209322760996052031
	// ttft_scheduled p99 = 1.914647645 s (nearest_rank_floor)
}
