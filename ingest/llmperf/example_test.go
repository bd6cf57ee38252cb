package llmperf_test

import (
	"fmt"
	"log"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/llmperf"
	"github.com/verdict-llm/verdict/schemas"
)

// Reading LLMPerf individual responses: a failed request keeps no
// latency, the era of the code is inferred from the data, and the
// summary's statistics are recomputed with pandas' conventions.
func Example() {
	data := []byte(`[
 {"error_code": null, "error_msg": "", "inter_token_latency_s": 0.02, "ttft_s": 0.3, "end_to_end_latency_s": 2.0,
  "request_output_throughput_token_per_s": 50.0, "number_total_tokens": 200, "number_output_tokens": 100, "number_input_tokens": 100},
 {"error_code": null, "error_msg": "", "inter_token_latency_s": 0.025, "ttft_s": 0.5, "end_to_end_latency_s": 2.5,
  "request_output_throughput_token_per_s": 40.0, "number_total_tokens": 200, "number_output_tokens": 100, "number_input_tokens": 100},
 {"error_code": 429, "error_msg": "Too Many Requests", "inter_token_latency_s": 0, "ttft_s": 0, "end_to_end_latency_s": 0,
  "request_output_throughput_token_per_s": 0, "number_total_tokens": 101, "number_output_tokens": 1, "number_input_tokens": 100}
]`)
	r, err := ingesttest.ReadBytes(llmperf.Format{}, "m_100_100_individual_responses.json", data)
	if err != nil {
		log.Fatal(err)
	}
	run := r.Runs[0]
	fmt.Println(run.Completed.V, "completed,", run.Failed.V, "failed:", run.Labels["error_codes"])
	fmt.Println(run.Flags)
	for _, m := range r.Metrics {
		if m.MetricID == schemas.TTFT && (m.Stat == schemas.StatP && m.Percentile.V == 50 || m.Stat == schemas.StatStd) {
			fmt.Printf("ttft %s%v = %.4f s (%s)\n", m.Stat, m.Percentile.V, m.Value.V, m.Method)
		}
	}
	// Output:
	// 2 completed, 1 failed: 429: 1
	// [itl_per_chunk_assumed]
	// ttft p50 = 0.4000 s (linear)
	// ttft std0 = 0.1414 s (sample)
}
