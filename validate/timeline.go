package validate

import (
	"math"
	"slices"

	"github.com/verdict-llm/verdict/schemas"
)

// A Timeline is a run's successful profiling requests in dispatch order,
// with what the steady-state rules (V021, V022) read over time. Unknown
// values are NaN.
type Timeline struct {
	// Start and End are on the run's clock, in seconds; Start is nil when
	// no request records its start (the order is then the dispatch index).
	Start, End []float64
	// TTFT, E2E and Queue (client queue time) per request, in seconds.
	TTFT, E2E, Queue []float64
}

// Len is the number of requests.
func (t *Timeline) Len() int { return len(t.TTFT) }

// timelineBuilder collects a Timeline from request rows in any order.
type timelineBuilder struct {
	idx                          []int64
	start, end, ttft, e2e, queue []float64
	anyStart                     bool
}

func optF(o schemas.Opt[float64]) float64 {
	if o.OK {
		return o.V
	}
	return math.NaN()
}

// add records one successful profiling request.
func (b *timelineBuilder) add(r *schemas.Request) {
	b.idx = append(b.idx, r.Index)
	b.start = append(b.start, optF(r.StartS))
	b.end = append(b.end, optF(r.EndS))
	b.ttft = append(b.ttft, optF(r.TTFTS))
	b.e2e = append(b.e2e, optF(r.E2ES))
	b.queue = append(b.queue, optF(r.QueueS))
	b.anyStart = b.anyStart || r.StartS.OK
}

// finish orders the requests by start time (unknown starts last, by
// index) or, without start times, by dispatch index.
func (b *timelineBuilder) finish() *Timeline {
	if len(b.idx) == 0 {
		return nil
	}
	order := make([]int, len(b.idx))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if b.anyStart {
			sx, sy := b.start[x], b.start[y]
			switch {
			case math.IsNaN(sx) != math.IsNaN(sy):
				if math.IsNaN(sx) {
					return 1
				}
				return -1
			case sx < sy:
				return -1
			case sx > sy:
				return 1
			}
		}
		switch {
		case b.idx[x] < b.idx[y]:
			return -1
		case b.idx[x] > b.idx[y]:
			return 1
		}
		return 0
	})
	pick := func(v []float64) []float64 {
		out := make([]float64, len(order))
		for i, j := range order {
			out[i] = v[j]
		}
		return out
	}
	t := &Timeline{End: pick(b.end), TTFT: pick(b.ttft), E2E: pick(b.e2e), Queue: pick(b.queue)}
	if b.anyStart {
		t.Start = pick(b.start)
	}
	return t
}
