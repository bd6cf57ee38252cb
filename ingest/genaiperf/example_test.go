package genaiperf_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf"
	"github.com/verdict-llm/verdict/schemas"
)

// Ingest a GenAI-Perf artifacts directory and print what its ITL and TTFT
// are by definition: an answer-only per-request TPOT and an answer-only
// TTFT, not a per-chunk gap.
func Example() {
	dir := filepath.Join("testdata", "artifacts")
	tmp, err := os.MkdirTemp("", "verdict-example-*")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "bundle")
	sum, err := ingest.ToBundle(context.Background(), []string{dir}, out,
		ingest.Options{Formats: []ingest.Format{genaiperf.Format{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := sum.Manifest.Sources[0]
	fmt.Println(src.Format, src.Tool, src.ToolVersion, sum.Totals(schemas.TableRequests).Ingested, "requests")
	b, _ := schemas.OpenBundle(out)
	ms, _ := b.Metrics(context.Background())
	for _, m := range ms {
		if m.Stat == schemas.StatMean && m.Source == schemas.SourceReported &&
			(m.NativeName == "inter_token_latency.avg" || m.NativeName == "time_to_first_token.avg") {
			fmt.Printf("%s -> %s (%s): %.4f %s\n", m.NativeName, m.MetricID, schemas.MustLookup(m.MetricID).Name, m.Value.V, m.Unit)
		}
	}
	// Output:
	// genai-perf-dir genai-perf 0.0.14 or later 14 requests
	// time_to_first_token.avg -> ttft_answer (TTFT (answer)): 0.6195 s
	// inter_token_latency.avg -> tpot_answer (TPOT (answer)): 0.0368 s
}
