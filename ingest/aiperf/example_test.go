package aiperf_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/schemas"
)

// Ingest an AIPerf artifacts directory: the records become request rows,
// the GPU telemetry samples, and AIPerf's metric names map to definitions
// (its ITL is a TPOT with reasoning tokens counted; its inter-chunk
// latency is the per-chunk ITL).
func Example() {
	tmp, err := os.MkdirTemp("", "verdict-example-*")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "bundle")
	sum, err := ingest.ToBundle(context.Background(), []string{filepath.Join("testdata", "artifacts")}, out,
		ingest.Options{Formats: []ingest.Format{aiperf.Format{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := sum.Manifest.Sources[0]
	fmt.Println(src.Format, src.Tool, src.ToolVersion)
	fmt.Println(sum.Totals(schemas.TableRequests).Ingested, "requests,", sum.Totals(schemas.TableSamples).Ingested, "GPU samples")
	b, _ := schemas.OpenBundle(out)
	ms, _ := b.Metrics(context.Background())
	for _, m := range ms {
		switch m.NativeName {
		case "time_to_first_token.avg", "inter_token_latency.avg", "inter_chunk_latency.avg", "request_throughput.avg":
			if len(src.Runs) > 0 && m.RunID == src.Runs[0] {
				fmt.Printf("%s -> %s: %.4f %s\n", m.NativeName, m.MetricID, m.Value.V, m.Unit)
			}
		}
	}
	// Output:
	// aiperf-dir aiperf 0.5.0
	// 18 requests, 6 GPU samples
	// request_throughput.avg -> request_throughput_span: 5.6148 requests/s
	// time_to_first_token.avg -> ttft: 0.0369 s
	// inter_token_latency.avg -> tpot: 0.0182 s
	// inter_chunk_latency.avg -> itl_chunk: 0.0183 s
}
