package schemas_test

import (
	"fmt"

	"github.com/verdict-llm/verdict/schemas"
)

// Two tools call a metric "ITL"; the registry keeps their definitions
// apart.
func ExampleLookup() {
	for _, id := range []schemas.MetricID{schemas.ITLChunk, schemas.TPOT} {
		d, _ := schemas.Lookup(id)
		fmt.Printf("%s (%s, per %s): %s\n", d.ID, d.Unit, d.Level, d.Summary())
	}
	// Output:
	// itl_chunk (s, per chunk): a streamed chunk carrying output -> the next streamed chunk carrying output of the same request; over gaps between consecutive chunks of successful requests, pooled over requests (long requests weigh more)
	// tpot (s, per request): first streamed chunk carrying output (answer or reasoning) -> last streamed chunk carrying output, or the complete response when not streaming; (e2e - ttft) / (output_tokens - 1); over successful requests with output_tokens > 1
}
