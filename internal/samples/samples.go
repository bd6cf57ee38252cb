// Package samples gathers per-run observations of each metric from a
// bundle's request rows, for the statistics, comparison and plot views.
//
// Only successful requests of the profiling phase are observations, as in
// the tools' own summaries. The values are kept in memory: a run of
// 1,000,000 requests with 16 chunks each needs about 130 MB for its chunk
// gaps, the largest series.
package samples

import (
	"context"
	"slices"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Metrics lists the definitions that can be observed from request rows, in
// display order.
var Metrics = []string{"ttft", "ttft_answer", "tpot", "itl_chunk", "e2e", "client_queue", "input_tokens", "output_tokens"}

// A Run is one run with its observations.
type Run struct {
	Run schemas.Run
	// Values maps a definition ID to the run's observations of it.
	Values map[string][]float64
	// Requests holds what goodput needs, one entry per profiling request
	// (failed ones included).
	Requests []stats.Request
	// RequestRows is the number of request rows (all phases and statuses);
	// zero means the source had no per-request data.
	RequestRows int
}

// Load reads every run of a bundle with its observations. When goodput is
// false, Requests is left empty to save memory.
func Load(ctx context.Context, b *schemas.Bundle, goodput bool) ([]*Run, error) {
	runs, err := b.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Run, len(runs))
	byID := map[string]*Run{}
	for i := range runs {
		out[i] = &Run{Run: runs[i], Values: map[string][]float64{}}
		byID[runs[i].ID] = out[i]
	}
	err = b.Requests(ctx, func(q *schemas.Request) error {
		r := byID[q.RunID]
		if r == nil {
			return nil
		}
		r.RequestRows++
		if q.Phase == schemas.PhaseWarmup {
			return nil
		}
		ok := q.Status == schemas.StatusOK
		if goodput {
			req := stats.Request{Success: ok, TTFT: q.TTFTS.V, E2E: q.E2ES.V, OutputTokens: int(q.OutputTokens.V)}
			if ok && q.ChunkGapsS != nil {
				req.ChunkGaps = slices.Clone(q.ChunkGapsS)
			}
			r.Requests = append(r.Requests, req)
		}
		if !ok {
			return nil
		}
		add := func(id string, o schemas.Opt[float64]) {
			if o.OK {
				r.Values[id] = append(r.Values[id], o.V)
			}
		}
		add("ttft", q.TTFTS)
		add("ttft_answer", q.TTFTAnswerS)
		add("e2e", q.E2ES)
		add("client_queue", q.QueueS)
		if q.InputTokens.OK {
			r.Values["input_tokens"] = append(r.Values["input_tokens"], float64(q.InputTokens.V))
		}
		if q.OutputTokens.OK {
			r.Values["output_tokens"] = append(r.Values["output_tokens"], float64(q.OutputTokens.V))
			// TPOT as vLLM defines it, over requests with more than one
			// output token.
			if q.TTFTS.OK && q.E2ES.OK && q.OutputTokens.V > 1 {
				r.Values["tpot"] = append(r.Values["tpot"], (q.E2ES.V-q.TTFTS.V)/float64(q.OutputTokens.V-1))
			}
		}
		if len(q.ChunkGapsS) > 0 {
			r.Values["itl_chunk"] = append(r.Values["itl_chunk"], q.ChunkGapsS...)
		}
		return nil
	})
	return out, err
}
