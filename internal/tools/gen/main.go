// Command gen writes synthetic tool outputs for scale tests:
//
//	go run ./internal/tools/gen -format vllm -requests 1000000 -chunks 16 > big.json
//	go run ./internal/tools/gen -format aiperf -bytes 1073741824 -chunks 8 > profile_export.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/verdict-llm/verdict/internal/gen"
)

func main() {
	format := flag.String("format", "vllm", "vllm (bench serve --save-detailed) or aiperf (profile_export.jsonl)")
	requests := flag.Int("requests", 1000000, "requests (records)")
	chunks := flag.Int("chunks", 16, "chunks per request")
	bytes := flag.Int64("bytes", 0, "aiperf: write records until the file has this size (overrides -requests)")
	seed := flag.Uint64("seed", 1, "seed")
	failEvery := flag.Int("fail-every", 100, "vllm: every Nth request fails (0: none)")
	flag.Parse()
	var err error
	switch *format {
	case "vllm":
		err = gen.VLLMDetailed(os.Stdout, gen.VLLMOptions{Requests: *requests, Chunks: *chunks, Seed: *seed, FailEvery: *failEvery})
	case "aiperf":
		err = gen.AIPerfRecords(os.Stdout, gen.AIPerfOptions{Records: *requests, Chunks: *chunks, Bytes: *bytes, Seed: *seed})
	default:
		err = fmt.Errorf("unknown -format %q", *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
