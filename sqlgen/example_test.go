package sqlgen_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/verdict-llm/verdict/sqlgen"
	"github.com/verdict-llm/verdict/stats"
)

// Write gives DuckDB the views that compute verdict's numbers over a
// dataset; after running the script, SELECT * FROM verdict_stats holds
// what `verdict stats --ci 0 --slo ttft=200ms` prints.
func ExampleWrite() {
	var b strings.Builder
	err := sqlgen.Write(&b, sqlgen.Options{Dialect: sqlgen.DuckDB, Dataset: "history",
		SLO: stats.SLO{TTFT: 0.2}, HasSLO: true})
	if err != nil {
		log.Fatal(err)
	}
	var views []string
	for _, line := range strings.Split(b.String(), "\n") {
		if name, ok := strings.CutPrefix(line, "CREATE OR REPLACE VIEW "); ok {
			views = append(views, strings.TrimSuffix(name, " AS"))
		}
	}
	fmt.Println(strings.Join(views, "\n"))
	// Output:
	// verdict_runs
	// verdict_requests
	// verdict_metrics
	// verdict_ttft
	// verdict_ttft_answer
	// verdict_ttst
	// verdict_itl_chunk
	// verdict_tpot
	// verdict_tpot_incl_ttft
	// verdict_e2e
	// verdict_client_queue
	// verdict_e2e_incl_client_queue
	// verdict_input_tokens
	// verdict_output_tokens
	// verdict_reasoning_tokens
	// verdict_decode_time_per_output_token
	// verdict_tpot_incl_ttft_per_chunk
	// verdict_request_output_chunk_rate
	// verdict_output_token_rate_per_user
	// verdict_e2e_output_token_rate
	// verdict_prefill_rate_per_user
	// verdict_input_tokens_failed
	// verdict_tpot_incl_ttft_zero_filled
	// verdict_tpot_per_chunk
	// verdict_decode_span
	// verdict_refusals
	// verdict_observations
	// verdict_stat_count
	// verdict_stat_mean
	// verdict_stat_std
	// verdict_stat_percentile
	// verdict_goodput
	// verdict_stats
}
