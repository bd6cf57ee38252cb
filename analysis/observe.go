package analysis

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/verdict-llm/verdict/internal/memlimit"
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

	hold *sharedHold // the soft memory limit raised for Values (memlimit.Hold)
}

// Close releases the observations' spilled series and, once every run of
// one Observe call is closed, the memory they held in Values.
func (o *Observations) Close() {
	for _, f := range o.Series {
		f.Close()
	}
	if o.hold != nil {
		o.hold.done()
		o.hold = nil
	}
}

// sharedHold is one memlimit.Hold shared by the runs of an Observe call:
// released when the last of them is closed.
type sharedHold struct {
	runs    atomic.Int64
	release func()
}

func (h *sharedHold) done() {
	if h.runs.Add(-1) == 0 {
		h.release()
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
	ob := observer{o: o}
	for i, id := range ObservedMetrics {
		ob.want[i] = want[id]
	}
	bufs := map[*Observations]*runBufs{}
	for _, r := range out {
		bufs[r] = &runBufs{}
	}
	if !o.Bounded && len(out) > 0 {
		if err := holdValues(b, out, bufs, want, o); err != nil {
			return nil, err
		}
	}
	var last *Observations
	var lastBufs *runBufs
	err = b.RequestColumns(ctx, columnsFor(want, o), func(q *schemas.Request) error {
		r := last
		if r == nil || q.RunID != r.Run.ID {
			if r = byID[q.RunID]; r == nil {
				return nil
			}
			last, lastBufs = r, bufs[r]
		}
		return ob.add(r, lastBufs, q)
	})
	for _, r := range out {
		bufs[r].finish(r)
	}
	if err != nil {
		closeAll(out)
		return nil, err
	}
	return out, nil
}

// holdValues sizes, from the Parquet footers, what an unbounded Observe
// will hold: it raises the soft memory limit by that much for as long as
// the observations are open (memlimit.Hold; a no-op outside the verdict
// command), and with one run reserves one buffer for every chunk gap, so
// that they arrive without the blocks' join (a copy of 128 MB for a
// 1M-request run of 16 chunks, a fifth of verdict stats' time).
func holdValues(b *schemas.Bundle, out []*Observations, bufs map[*Observations]*runBufs, want map[schemas.MetricID]bool, o ObserveOptions) error {
	rows, slots, err := b.ValueSlots(schemas.TableRequests, "chunk_gaps_s")
	if err != nil {
		return err
	}
	gaps := slots[0]
	var bytes int64
	for id, w := range want {
		switch {
		case !w:
		case id == schemas.ITLChunk:
			bytes += 8 * gaps
		default:
			bytes += 8 * rows
		}
	}
	if o.Goodput {
		bytes += rows * int64(unsafe.Sizeof(stats.Request{}))
		if o.GoodputGaps {
			bytes += 8 * gaps
		}
	}
	h := &sharedHold{release: memlimit.Hold(bytes)}
	h.runs.Store(int64(len(out)))
	for _, r := range out {
		r.hold = h
	}
	if len(out) == 1 && want[schemas.ITLChunk] {
		bufs[out[0]].values[obsITLChunk].reserve(int(gaps))
	}
	return nil
}

// Positions of the metrics in ObservedMetrics (checked by init).
const (
	obsTTFT = iota
	obsTTFTAnswer
	obsTPOT
	obsITLChunk
	obsE2E
	obsClientQueue
	obsInputTokens
	obsOutputTokens
	numObserved
)

func init() {
	for i, id := range []schemas.MetricID{schemas.TTFT, schemas.TTFTAnswer, schemas.TPOT, schemas.ITLChunk, schemas.E2E,
		schemas.ClientQueue, schemas.InputTokens, schemas.OutputTokens} {
		if len(ObservedMetrics) != numObserved || ObservedMetrics[i] != id {
			panic("analysis: ObservedMetrics and the obs* positions disagree")
		}
	}
}

// runBufs collects one run's observations while the requests are read:
// per metric in blocks (floatBlocks) or a bounded series.
type runBufs struct {
	values [numObserved]floatBlocks
	series [numObserved]*spill.Floats
}

// finish moves the collected observations into r.Values and r.Series.
func (rb *runBufs) finish(r *Observations) {
	for i := range numObserved {
		if rb.values[i].n > 0 {
			r.Values[ObservedMetrics[i]] = rb.values[i].finish()
		}
		if rb.series[i] != nil {
			r.Series[ObservedMetrics[i]] = rb.series[i]
		}
	}
}

// floatBlocks appends values into fixed-size blocks and joins them once
// at the end: a growing slice would copy its whole contents at every
// growth (about five times over for 15M chunk gaps, growing by 1.25x),
// which was a quarter of verdict stats' time on a 1M-request run.
type floatBlocks struct {
	full [][]float64
	cur  []float64
	n    int
}

const floatBlock = 1 << 16

func (f *floatBlocks) add(v float64) {
	if len(f.cur) == cap(f.cur) {
		f.grow()
	}
	f.cur = append(f.cur, v)
	f.n++
}

func (f *floatBlocks) addAll(vs []float64) {
	for len(vs) > 0 {
		if len(f.cur) == cap(f.cur) {
			f.grow()
		}
		k := min(len(vs), cap(f.cur)-len(f.cur))
		f.cur = append(f.cur, vs[:k]...)
		f.n += k
		vs = vs[k:]
	}
}

func (f *floatBlocks) grow() {
	if f.cur != nil {
		f.full = append(f.full, f.cur)
	}
	f.cur = make([]float64, 0, floatBlock)
}

// reserve makes the first block hold n values: when no more arrive,
// finish returns it as it is.
func (f *floatBlocks) reserve(n int) {
	if f.cur == nil && n > floatBlock {
		f.cur = make([]float64, 0, n)
	}
}

// finish returns the values in order, in one slice, and releases the
// blocks.
func (f *floatBlocks) finish() []float64 {
	if len(f.full) == 0 && len(f.cur) > floatBlock {
		out := f.cur // a reserved block (a smaller one is copied to its size)
		*f = floatBlocks{}
		return out
	}
	out := make([]float64, 0, f.n)
	for i, b := range f.full {
		out = append(out, b...)
		f.full[i] = nil
	}
	out = append(out, f.cur...)
	*f = floatBlocks{}
	return out
}

// observer turns request rows into observations.
type observer struct {
	o    ObserveOptions
	want [numObserved]bool
}

func (ob observer) add(r *Observations, rb *runBufs, q *schemas.Request) error {
	r.RequestRows++
	if q.Phase != ob.o.phase() {
		return nil
	}
	ok := q.Status == ob.o.status()
	if ob.o.Goodput {
		r.Requests = append(r.Requests, GoodputRequest(q, ok, ob.o.GoodputGaps))
	}
	var addErr error
	push := func(i int, v float64) {
		if !ob.o.Bounded {
			rb.values[i].add(v)
			return
		}
		f := rb.series[i]
		if f == nil {
			f = &spill.Floats{MemLimit: ob.o.MemLimit}
			rb.series[i] = f
		}
		if err := f.Add(v); err != nil && addErr == nil {
			addErr = err
		}
	}
	add := func(i int, v schemas.Opt[float64]) {
		if v.OK && ob.want[i] {
			push(i, v.V)
		}
	}
	// The client queue time is defined over all requests of the phase
	// (a failed request waited for its slot too); the other metrics over
	// the selected status only.
	add(obsClientQueue, q.QueueS)
	if !ok {
		return addErr
	}
	add(obsTTFT, q.TTFTS)
	add(obsTTFTAnswer, q.TTFTAnswerS)
	add(obsE2E, q.E2ES)
	if q.InputTokens.OK {
		add(obsInputTokens, schemas.Some(float64(q.InputTokens.V)))
	}
	if q.OutputTokens.OK {
		add(obsOutputTokens, schemas.Some(float64(q.OutputTokens.V)))
	}
	add(obsTPOT, q.TPOT())
	if len(q.ChunkGapsS) > 0 && ob.want[obsITLChunk] {
		if !ob.o.Bounded {
			rb.values[obsITLChunk].addAll(q.ChunkGapsS)
		} else {
			for _, g := range q.ChunkGapsS {
				push(obsITLChunk, g)
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
