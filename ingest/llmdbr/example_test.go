package llmdbr_test

import (
	"fmt"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/llmdbr"
	"github.com/verdict-llm/verdict/schemas"
)

// Read a BR 0.2 stage from inference-perf: its inter_token_latency is the
// chunk-stamped token gap, scaled from milliseconds.
func ExampleFormat() {
	doc := `version: '0.2'
run: {uid: r1}
scenario:
  load:
    metadata: {}
    standardized: {tool: inference-perf, tool_version: '', source: random, input_seq_len: {distribution: fixed, value: 100}}
    native: {}
results:
  request_performance:
    aggregate:
      latency:
        inter_token_latency: {units: ms/token, mean: 12.5}
`
	r, err := ingesttest.ReadBytes(llmdbr.Format{}, "br.yaml", []byte(doc))
	if err != nil {
		panic(err)
	}
	m := r.Metrics[0]
	fmt.Println(m.MetricID, m.Stat, m.Value.V, m.Unit, schemas.MustLookup(m.MetricID).Name)
	// Output: itl_token_chunk_stamped mean 0.0125 s ITL (per token, chunk-stamped)
}
