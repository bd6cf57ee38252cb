package stats

import (
	"fmt"
	"math"
)

// A Request is what goodput needs to know about one request. Times are in
// seconds.
type Request struct {
	// Success is false for a failed request, which is never good.
	Success bool
	// TTFT is the time to the first token and E2E the time to the last.
	TTFT, E2E float64
	// OutputTokens is the number of generated tokens.
	OutputTokens int
	// ChunkGaps are the gaps between consecutive streamed chunks (vLLM's
	// itl list); only an ITL limit reads them.
	ChunkGaps []float64
}

// TPOT is the request's time per output token after the first, vLLM's
// (E2E - TTFT)/(OutputTokens - 1), and 0 for a request with one output
// token or none, which is how vLLM's goodput counts it (serve.py
// calculate_metrics).
func (r Request) TPOT() float64 {
	if r.OutputTokens <= 1 {
		return 0
	}
	return (r.E2E - r.TTFT) / float64(r.OutputTokens-1)
}

// An SLO holds per-request latency limits in seconds. A zero field sets no
// limit, so the zero SLO counts every successful request as good.
//
// Limits are inclusive, as in vLLM's --goodput (a request is good if
// limit >= value for every limit given):
//   - TTFT, TPOT and E2E are vLLM's ttft, tpot and e2el.
//   - ITL is DistServe's per-token latency limit applied to every chunk
//     gap: a request is good only if its largest gap is within the limit.
//     vLLM has no ITL goodput; a request without gaps meets any ITL limit.
type SLO struct {
	TTFT, TPOT, ITL, E2E float64
}

// Goodput is the count, share and rate of requests meeting an SLO.
type Goodput struct {
	// Good is the number of successful requests meeting every limit.
	Good int
	// Successful and Total count the successful requests and all requests.
	Successful, Total int
	// Share is Good/Total: failed requests count against it.
	Share float64
	// Rate is Good/duration in requests per second, vLLM's
	// request_goodput.
	Rate float64
	// Warnings say when a share or rate could not be computed.
	Warnings []error
}

// ComputeGoodput counts the requests meeting slo over a run of duration
// seconds (the same duration a throughput divides by). An empty run gives a
// NaN share, and a duration that is not positive a NaN rate, each with a
// warning. It panics if a limit is negative or NaN.
func ComputeGoodput(reqs []Request, slo SLO, duration float64) Goodput {
	for name, v := range map[string]float64{"TTFT": slo.TTFT, "TPOT": slo.TPOT, "ITL": slo.ITL, "E2E": slo.E2E} {
		if !(v >= 0) {
			panic(fmt.Sprintf("stats: SLO %s limit %v", name, v))
		}
	}
	g := Goodput{Total: len(reqs)}
	for _, r := range reqs {
		if !r.Success {
			continue
		}
		g.Successful++
		if slo.meets(r) {
			g.Good++
		}
	}
	g.Share = math.NaN()
	if g.Total > 0 {
		g.Share = float64(g.Good) / float64(g.Total)
	} else {
		g.Warnings = append(g.Warnings, fmt.Errorf("goodput: no requests"))
	}
	g.Rate = math.NaN()
	if duration > 0 {
		g.Rate = float64(g.Good) / duration
	} else {
		g.Warnings = append(g.Warnings, fmt.Errorf("goodput: duration %v s; no rate", duration))
	}
	return g
}

// meets reports whether a successful request is within every limit. A NaN
// measurement fails any limit on it.
func (s SLO) meets(r Request) bool {
	if s.TTFT > 0 && !(s.TTFT >= r.TTFT) {
		return false
	}
	if s.TPOT > 0 && !(s.TPOT >= r.TPOT()) {
		return false
	}
	if s.E2E > 0 && !(s.E2E >= r.E2E) {
		return false
	}
	if s.ITL > 0 {
		for _, gap := range r.ChunkGaps {
			if !(s.ITL >= gap) {
				return false
			}
		}
	}
	return true
}
