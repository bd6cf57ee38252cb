package analysis

import (
	"context"
	"math"
	"slices"

	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// ObservedMetrics lists the definitions that can be observed from request
// rows, in display order.
var ObservedMetrics = []schemas.MetricID{schemas.TTFT, schemas.TTFTAnswer, schemas.TPOT, schemas.ITLChunk, schemas.E2E,
	schemas.ClientQueue, schemas.InputTokens, schemas.OutputTokens}

// A Selection says which request rows are observations. The zero value
// is the tools' own population: successful requests of the profiling
// phase, of every run.
type Selection struct {
	// Phase is the phase kept; "" means schemas.PhaseProfiling.
	Phase string
	// Status is the status kept; "" means schemas.StatusOK.
	Status string
	// Streaming, when set, keeps only the runs whose streaming flag is
	// known and equal to it.
	Streaming schemas.Opt[bool]
}

func (s Selection) phase() string {
	if s.Phase == "" {
		return schemas.PhaseProfiling
	}
	return s.Phase
}

func (s Selection) status() string {
	if s.Status == "" {
		return schemas.StatusOK
	}
	return s.Status
}

// keepsRun reports whether the selection keeps run r.
func (s Selection) keepsRun(r schemas.Run) bool {
	return !s.Streaming.OK || (r.Streaming.OK && r.Streaming.V == s.Streaming.V)
}

// Observations are one run's observations of each metric.
type Observations struct {
	Run schemas.Run
	// Values maps a definition ID to the run's observations of it, in
	// dispatch order (unless ObserveOptions.Bounded).
	Values map[schemas.MetricID][]float64
	// Series holds the observations with bounded memory instead of Values
	// when ObserveOptions.Bounded: exact quantiles, mean and standard
	// deviation whatever the size; resampling only while they fit in
	// memory.
	Series map[schemas.MetricID]*spill.Floats
	// Requests holds what goodput needs, one entry per request of the
	// selected phase (failed ones included).
	Requests []stats.Request
	// RequestRows is the number of request rows (all phases and statuses);
	// zero means the source had no per-request data.
	RequestRows int
}

// Close releases the observations' spilled series.
func (o *Observations) Close() {
	for _, f := range o.Series {
		f.Close()
	}
}

// Len is the number of observations of id.
func (o *Observations) Len(id schemas.MetricID) int {
	if f := o.Series[id]; f != nil {
		return int(f.Len())
	}
	return len(o.Values[id])
}

// ObserveOptions say what Observe keeps.
type ObserveOptions struct {
	Selection
	// Metrics are the definition IDs to collect; nil means all of
	// ObservedMetrics.
	Metrics []schemas.MetricID
	// Goodput keeps Requests for goodput (with chunk gaps only when the
	// SLO has an ITL limit, GoodputGaps).
	Goodput, GoodputGaps bool
	// Bounded fills Series instead of Values. Close the observations
	// when done.
	Bounded bool
	// MemLimit is the number of values a bounded series holds in memory
	// before it spills to disk; 0 means spill.DefaultMemLimit.
	MemLimit int
}

// Observe reads every run of b that the selection keeps with the
// observations o asks for, in the order of the runs table. Only the
// requested series are held, so asking for TTFT alone costs 8 bytes per
// request whatever the chunk count.
func Observe(ctx context.Context, b *schemas.Bundle, o ObserveOptions) ([]*Observations, error) {
	want := map[schemas.MetricID]bool{}
	for _, id := range ObservedMetrics {
		want[id] = o.Metrics == nil || slices.Contains(o.Metrics, id)
	}
	runs, err := b.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Observations
	byID := map[string]*Observations{}
	for i := range runs {
		if !o.keepsRun(runs[i]) {
			continue
		}
		obs := &Observations{Run: runs[i], Values: map[schemas.MetricID][]float64{}, Series: map[schemas.MetricID]*spill.Floats{}}
		out = append(out, obs)
		byID[runs[i].ID] = obs
	}
	ob := observer{o: o, want: want}
	err = b.RequestColumns(ctx, columnsFor(want, o), func(q *schemas.Request) error {
		if r := byID[q.RunID]; r != nil {
			return ob.add(r, q)
		}
		return nil
	})
	if err != nil {
		for _, r := range out {
			r.Close()
		}
		return nil, err
	}
	return out, nil
}

// observer turns request rows into observations.
type observer struct {
	o    ObserveOptions
	want map[schemas.MetricID]bool
}

func (ob observer) add(r *Observations, q *schemas.Request) error {
	r.RequestRows++
	if q.Phase != ob.o.phase() {
		return nil
	}
	ok := q.Status == ob.o.status()
	if ob.o.Goodput {
		r.Requests = append(r.Requests, GoodputRequest(q, ok, ob.o.GoodputGaps))
	}
	var addErr error
	push := func(id schemas.MetricID, v float64) {
		if !ob.o.Bounded {
			r.Values[id] = append(r.Values[id], v)
			return
		}
		f := r.Series[id]
		if f == nil {
			f = &spill.Floats{MemLimit: ob.o.MemLimit}
			r.Series[id] = f
		}
		if err := f.Add(v); err != nil && addErr == nil {
			addErr = err
		}
	}
	add := func(id schemas.MetricID, v schemas.Opt[float64]) {
		if v.OK && ob.want[id] {
			push(id, v.V)
		}
	}
	// The client queue time is defined over all requests of the phase
	// (a failed request waited for its slot too); the other metrics over
	// the selected status only.
	add(schemas.ClientQueue, q.QueueS)
	if !ok {
		return addErr
	}
	add(schemas.TTFT, q.TTFTS)
	add(schemas.TTFTAnswer, q.TTFTAnswerS)
	add(schemas.E2E, q.E2ES)
	if q.InputTokens.OK {
		add(schemas.InputTokens, schemas.Some(float64(q.InputTokens.V)))
	}
	if q.OutputTokens.OK {
		add(schemas.OutputTokens, schemas.Some(float64(q.OutputTokens.V)))
	}
	add(schemas.TPOT, q.TPOT())
	if len(q.ChunkGapsS) > 0 && ob.want[schemas.ITLChunk] {
		if !ob.o.Bounded {
			// One map access per request, not per gap (15M of them for a
			// 1M-request, 16-chunk run).
			r.Values[schemas.ITLChunk] = append(r.Values[schemas.ITLChunk], q.ChunkGapsS...)
		} else {
			for _, g := range q.ChunkGapsS {
				push(schemas.ITLChunk, g)
			}
		}
	}
	return addErr
}

// GoodputRequest is what goodput needs of one request row: unknown
// measurements become NaN (which fails any limit on them, as stats.SLO
// documents), never 0; TPOT comes from schemas.Request.TPOT, and a request
// with at most one output token counts as TPOT 0, as vLLM's goodput does.
func GoodputRequest(q *schemas.Request, ok, gaps bool) stats.Request {
	orNaN := func(o schemas.Opt[float64]) float64 {
		if o.OK {
			return o.V
		}
		return math.NaN()
	}
	req := stats.Request{Success: ok, TTFT: orNaN(q.TTFTS), E2E: orNaN(q.E2ES), TPOT: orNaN(q.TPOT())}
	if q.OutputTokens.OK && q.OutputTokens.V <= 1 {
		req.TPOT = 0
	}
	if ok && gaps && q.ChunkGapsS != nil {
		req.ChunkGaps = slices.Clone(q.ChunkGapsS)
	}
	return req
}

// columnsFor lists the request columns Observe needs.
func columnsFor(want map[schemas.MetricID]bool, o ObserveOptions) []string {
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
