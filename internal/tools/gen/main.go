// Command gen writes synthetic tool outputs for scale tests:
//
//	go run ./internal/tools/gen -requests 1000000 -chunks 16 > big.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/verdict-llm/verdict/internal/gen"
)

func main() {
	var o gen.VLLMOptions
	flag.IntVar(&o.Requests, "requests", 1000000, "requests")
	flag.IntVar(&o.Chunks, "chunks", 16, "chunks per request")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed")
	flag.IntVar(&o.FailEvery, "fail-every", 100, "every Nth request fails (0: none)")
	flag.Parse()
	if err := gen.VLLMDetailed(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
