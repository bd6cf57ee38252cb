package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/schemas"
)

// Ingest a vLLM result with per-request arrays into a bundle; every row
// read is accounted for.
func ExampleToBundle() {
	dir, _ := os.MkdirTemp("", "verdict-example")
	defer os.RemoveAll(dir)
	sum, err := ingest.ToBundle(context.Background(), []string{filepath.Join("vllm", "testdata", "serve_bad_rows.json")},
		filepath.Join(dir, "bundle"), ingest.Options{Formats: []ingest.Format{vllm.Format{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := sum.Manifest.Sources[0]
	req := src.Counts[schemas.TableRequests]
	fmt.Printf("%s (%s): %d requests read, %d ingested, %d rejected\n", src.Format, src.ToolVersion, req.Read, req.Ingested, req.Rejected)
	for _, r := range src.Rejections {
		fmt.Println("rejected:", r)
	}
	// Output:
	// vllm-serve (benchmark code of 2025-10-17..2026-11-02 (file dated 20261101-080000)): 4 requests read, 2 ingested, 2 rejected
	// rejected: line 2, column 75: run 0: output_throughput: negative rate
	// rejected: line 7, column 43: run 0: median_ttft_ms: expected a number, found the string "fast"
	// rejected: line 4, column 17: run 0, request 1: ttfts[1]: negative value -0.1
	// rejected: line 5, column 40: run 0, request 2: itls[2]: expected a list of numbers
}
