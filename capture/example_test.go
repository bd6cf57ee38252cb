package capture_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/verdict-llm/verdict/capture"
	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

// Example captures ten chat requests, two at a time, against the reference
// server and compares the measured first-token times with the server's own
// record of when it wrote each chunk.
func Example() {
	fs := fakeserver.New(fakeserver.Config{TTFT: 5 * time.Millisecond, TokenDelay: time.Millisecond, ReasoningTokens: 2})
	srv := httptest.NewServer(fs)
	defer srv.Close()

	in, _ := capture.ParseLengths("32")
	out, _ := capture.ParseLengths("8-16")
	ds, _ := capture.Synthetic{N: 10, Input: in, Output: out, Seed: 1}.Generate()

	var sink capture.MemorySink
	res, err := capture.Run(context.Background(), capture.Options{
		Endpoint: srv.URL + "/v1/chat/completions", Model: "demo", Dataset: ds,
		Scenario: schemas.ScenarioConcurrency, MaxConcurrency: 2, NumPrompts: 10,
	}, &sink)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Run.Scenario, res.Run.Arrival, res.Accounting.OK, "ok", res.Accounting.Failed, "failed")
	r := sink.Requests[0]
	fmt.Println("input tokens", r.InputTokens.V, "reasoning tokens", r.ReasoningTokens.V, "answer not before reasoning:", r.TTFTAnswerS.V >= r.TTFTS.V)
	cal := capture.Calibrate(sink.Requests, fs.Traces(res.Run.ID))
	fmt.Println("compared", cal.Matched, "requests; every TTFT later than the server's first write:", cal.TTFTvsSent.MinSigned > 0)
	// Output:
	// fixed_concurrency closed_loop 10 ok 0 failed
	// input tokens 32 reasoning tokens 2 answer not before reasoning: true
	// compared 10 requests; every TTFT later than the server's first write: true
}
