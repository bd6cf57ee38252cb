package stats

import (
	"fmt"
	"math"
)

// A Request is what goodput needs to know about one request. Times are in
// seconds; a measurement the source did not make is NaN, never 0, and
// fails any limit on it (unknown is not good).
type Request struct {
	// Success is false for a failed request, which is never good.
	Success bool
	// TTFT is the time to the first token and E2E the time to the last.
	TTFT, E2E float64
	// TPOT is the request's time per output token after the first, as the
	// registry defines it (schemas.Request.TPOT computes it; stats keeps no
	// copy of the formula). A request with at most one output token has no
	// TPOT, and vLLM's goodput (serve.py calculate_metrics) counts it as 0,
	// meeting any TPOT limit: callers give 0 for it, NaN when unknown.
	TPOT float64
	// ChunkGaps are the gaps between consecutive streamed chunks (vLLM's
	// itl list); only an ITL limit reads them. nil means unknown, an empty
	// slice one chunk.
	ChunkGaps []float64
}

// An SLO holds per-request latency limits in seconds. A zero field sets no
// limit, so the zero SLO counts every successful request as good.
//
// Limits are inclusive, as in vLLM's --goodput (a request is good if
// limit >= value for every limit given):
//   - TTFT, TPOT and E2E are vLLM's ttft, tpot and e2el.
//   - ITL is DistServe's per-token latency limit applied to every chunk
//     gap: a request is good only if its largest gap is within the limit.
//     vLLM has no ITL goodput. Request.ChunkGaps nil means the gaps are
//     unknown (not streamed, not recorded): under an ITL limit such a
//     request is unmeasured, not good. An empty, non-nil ChunkGaps is a
//     single streamed chunk, which has no gap and meets any ITL limit.
//
// A measurement that is unknown (NaN) fails its limit: a request whose
// TTFT was never measured is not counted as good, and Goodput.Unmeasured
// counts such requests.
type SLO struct {
	TTFT, TPOT, ITL, E2E float64
}

// Goodput is the count, share and rate of requests meeting an SLO.
type Goodput struct {
	// Good is the number of successful requests meeting every limit.
	Good int
	// Successful and Total count the successful requests and all requests.
	Successful, Total int
	// Unmeasured counts the successful requests that are not good only
	// because a measurement a limit needs is unknown.
	Unmeasured int
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
		switch slo.meets(r) {
		case met:
			g.Good++
		case unmeasured:
			g.Unmeasured++
		}
	}
	if g.Unmeasured > 0 {
		g.Warnings = append(g.Warnings, fmt.Errorf("goodput: %d successful requests lack a measurement the SLO limits and are not counted as good", g.Unmeasured))
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

type outcome int

const (
	met outcome = iota
	missed
	unmeasured
)

// meets judges a successful request against every limit: met, missed (a
// measurement over its limit), or unmeasured (within every limit it has a
// measurement for, but one it needs is NaN).
func (s SLO) meets(r Request) outcome {
	o := met
	check := func(limit, v float64) {
		switch {
		case limit <= 0 || o == missed:
		case math.IsNaN(v):
			o = unmeasured
		case v > limit:
			o = missed
		}
	}
	check(s.TTFT, r.TTFT)
	check(s.TPOT, r.TPOT)
	check(s.E2E, r.E2E)
	if s.ITL > 0 {
		if r.ChunkGaps == nil {
			check(s.ITL, math.NaN())
		}
		for _, gap := range r.ChunkGaps {
			check(s.ITL, gap)
		}
	}
	return o
}
