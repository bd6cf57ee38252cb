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
	"math"
	"slices"

	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Metrics lists the definitions that can be observed from request rows, in
// display order.
var Metrics = []schemas.MetricID{schemas.TTFT, schemas.TTFTAnswer, schemas.TPOT, schemas.ITLChunk, schemas.E2E, schemas.ClientQueue, schemas.InputTokens, schemas.OutputTokens}

// A Run is one run with its observations.
type Run struct {
	Run schemas.Run
	// Values maps a definition ID to the run's observations of it (unless
	// Options.Bounded).
	Values map[schemas.MetricID][]float64
	// Series holds the observations with bounded memory instead of
	// Values when Options.Bounded: exact quantiles, mean and standard
	// deviation whatever the size, but no resampling.
	Series map[schemas.MetricID]*spill.Floats
	// Requests holds what goodput needs, one entry per profiling request
	// (failed ones included).
	Requests []stats.Request
	// RequestRows is the number of request rows (all phases and statuses);
	// zero means the source had no per-request data.
	RequestRows int
}

// Options say what Load keeps.
type Options struct {
	// Metrics are the definition IDs to collect; nil means all of Metrics.
	Metrics []schemas.MetricID
	// Goodput keeps Requests for goodput (with chunk gaps only when the
	// caller's SLO has an ITL limit, GoodputGaps).
	Goodput, GoodputGaps bool
	// Bounded fills Series instead of Values (see Run). Close the runs'
	// series when done.
	Bounded bool
}

// Close releases the run's spilled series.
func (r *Run) Close() {
	for _, f := range r.Series {
		f.Close()
	}
}

// Load reads every run of a bundle with the observations o asks for. Only
// the requested series are held, so asking for TTFT alone costs 8 bytes per
// request whatever the chunk count.
func Load(ctx context.Context, b *schemas.Bundle, o Options) ([]*Run, error) {
	want := map[schemas.MetricID]bool{}
	for _, id := range Metrics {
		want[id] = o.Metrics == nil || slices.Contains(o.Metrics, id)
	}
	runs, err := b.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Run, len(runs))
	byID := map[string]*Run{}
	for i := range runs {
		out[i] = &Run{Run: runs[i], Values: map[schemas.MetricID][]float64{}, Series: map[schemas.MetricID]*spill.Floats{}}
		byID[runs[i].ID] = out[i]
	}
	err = b.RequestColumns(ctx, columnsFor(want, o), func(q *schemas.Request) error {
		r := byID[q.RunID]
		if r == nil {
			return nil
		}
		r.RequestRows++
		if q.Phase == schemas.PhaseWarmup {
			return nil
		}
		ok := q.Status == schemas.StatusOK
		if o.Goodput {
			req := stats.Request{Success: ok, TTFT: math.NaN(), E2E: math.NaN(), TPOT: math.NaN()}
			if q.TTFTS.OK {
				req.TTFT = q.TTFTS.V
			}
			if q.E2ES.OK {
				req.E2E = q.E2ES.V
			}
			if tpot := q.TPOT(); tpot.OK {
				req.TPOT = tpot.V
			} else if q.OutputTokens.OK && q.OutputTokens.V <= 1 {
				req.TPOT = 0
			}
			if ok && o.GoodputGaps && q.ChunkGapsS != nil {
				req.ChunkGaps = slices.Clone(q.ChunkGapsS)
			}
			r.Requests = append(r.Requests, req)
		}
		if !ok {
			return nil
		}
		var addErr error
		push := func(id schemas.MetricID, v float64) {
			if !o.Bounded {
				r.Values[id] = append(r.Values[id], v)
				return
			}
			f := r.Series[id]
			if f == nil {
				f = &spill.Floats{}
				r.Series[id] = f
			}
			if err := f.Add(v); err != nil && addErr == nil {
				addErr = err
			}
		}
		add := func(id schemas.MetricID, v schemas.Opt[float64]) {
			if v.OK && want[id] {
				push(id, v.V)
			}
		}
		add(schemas.TTFT, q.TTFTS)
		add(schemas.TTFTAnswer, q.TTFTAnswerS)
		add(schemas.E2E, q.E2ES)
		add(schemas.ClientQueue, q.QueueS)
		if q.InputTokens.OK {
			add(schemas.InputTokens, schemas.Some(float64(q.InputTokens.V)))
		}
		if q.OutputTokens.OK {
			add(schemas.OutputTokens, schemas.Some(float64(q.OutputTokens.V)))
			// TPOT as vLLM defines it, over requests with more than one
			// output token.
			add(schemas.TPOT, q.TPOT())
		}
		if len(q.ChunkGapsS) > 0 && want[schemas.ITLChunk] {
			for _, g := range q.ChunkGapsS {
				push(schemas.ITLChunk, g)
			}
		}
		return addErr
	})
	return out, err
}

// columnsFor lists the request columns Load needs.
func columnsFor(want map[schemas.MetricID]bool, o Options) []string {
	cols := []string{"run_id", "status", "phase"}
	need := map[schemas.MetricID][]string{
		schemas.TTFT: {"ttft_s"}, schemas.TTFTAnswer: {"ttft_answer_s"}, schemas.E2E: {"e2e_s"}, schemas.ClientQueue: {"queue_s"},
		schemas.InputTokens: {"input_tokens"}, schemas.OutputTokens: {"output_tokens"},
		schemas.TPOT: {"ttft_s", "e2e_s", "output_tokens"}, schemas.ITLChunk: {"chunk_gaps_s"},
	}
	for id, ok := range want {
		if ok {
			cols = append(cols, need[id]...)
		}
	}
	if o.Goodput {
		cols = append(cols, "ttft_s", "e2e_s", "output_tokens")
		if o.GoodputGaps {
			cols = append(cols, "chunk_gaps_s")
		}
	}
	slices.Sort(cols)
	return slices.Compact(cols)
}
