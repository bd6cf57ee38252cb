package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Block resampling without building the resample.
//
// A block resample of n values is made of blocks of consecutive positions
// (circular: a block running past the end continues at the start) until n
// values are drawn, the last block cut short. Its statistic is computed
// from per-block summaries:
//
//   - the mean from prefix sums, O(1) a block;
//   - a quantile from ranks: every position gets the rank of its value in
//     the sorted series (ties broken by position), and only a window of
//     ranks around the quantile's rank is kept. A block contributes the
//     number of its positions ranked below the window (a prefix count)
//     and the values of its positions inside it (a slice of the window's
//     positions in series order). The resample's order statistic k is the
//     (k - below)-th smallest collected value when it falls inside the
//     window, which it does unless the resample is extreme; then the
//     resample is built and selected in O(n), so the result is exact
//     either way.
//
// A replicate thus costs O(n/b + w) instead of O(n log n), b the block
// length and w the values drawn from the window.

// blockScheme draws the blocks of one resample.
type blockScheme struct {
	n          int
	length     float64 // the block length, or the mean length when stationary
	stationary bool
}

// each calls fn(start, length) for the blocks of one resample; the lengths
// add up to n. Circular: start+length may exceed n.
func (b blockScheme) each(r *rand.Rand, fn func(start, l int)) {
	left := b.n
	fixed := max(1, int(b.length))
	q := 1 / b.length
	rate := -math.Log1p(-q)
	for left > 0 {
		s := r.IntN(b.n)
		l := fixed
		if b.stationary {
			l = 1
			if q < 1 {
				// Geometric on {1, 2, ...} with success probability q:
				// 1 + floor(E/rate), E standard exponential (P[floor(E/rate)
				// >= k] = exp(-k rate) = (1-q)^k).
				l = 1 + int(r.ExpFloat64()/rate)
			}
		}
		l = min(l, left)
		fn(s, l)
		left -= l
	}
}

// segments splits the circular block [s, s+l) of a series of n values into
// at most two plain ranges.
func segments(n, s, l int) (a0, a1, b0, b1 int) {
	if s+l <= n {
		return s, s + l, 0, 0
	}
	return s, n, 0, s + l - n
}

// blockReplicator returns a constructor of replicators drawing s of block
// resamples of xs (in time order); sorted is xs sorted.
// inflation is the estimated variance inflation of the statistic's series
// (1 or more; it sizes a quantile's rank window).
func blockReplicator(xs, sorted []float64, s Statistic, bs blockScheme, inflation float64) func() replicator {
	switch s.kind {
	case meanStat:
		prefix := make([]float64, len(xs)+1)
		for i, x := range xs {
			prefix[i+1] = prefix[i] + x
		}
		n := len(xs)
		return func() replicator {
			return func(r *rand.Rand, dst []float64) {
				var sum float64
				bs.each(r, func(st, l int) {
					a0, a1, b0, b1 := segments(n, st, l)
					sum += prefix[a1] - prefix[a0] + prefix[b1] - prefix[b0]
				})
				dst[0] = sum / float64(n)
			}
		}
	case quantileStat:
		rw := newRankWindow(xs, s.plan(len(xs)), bs, windowWidth(len(xs), s.p, bs, inflation))
		return func() replicator {
			var sc blockScratch
			return func(r *rand.Rand, dst []float64) { dst[0] = rw.draw(r, &sc) }
		}
	}
	return func() replicator {
		buf := make([]float64, 0, len(xs))
		return func(r *rand.Rand, dst []float64) {
			buf = appendResample(buf[:0], xs, bs, r)
			slices.Sort(buf)
			dst[0] = s.Func(buf)
		}
	}
}

// appendResample appends one block resample of xs to buf.
func appendResample(buf, xs []float64, bs blockScheme, r *rand.Rand) []float64 {
	n := len(xs)
	bs.each(r, func(st, l int) {
		a0, a1, b0, b1 := segments(n, st, l)
		buf = append(buf, xs[a0:a1]...)
		buf = append(buf, xs[b0:b1]...)
	})
	return buf
}

// rankWindow is what a quantile's block resample reads (see the comment at
// the top of the file).
type rankWindow struct {
	xs     []float64
	plan   orderPlan
	bs     blockScheme
	below  []int32      // below[t]: positions < t ranked below the window
	inWin  []int32      // inWin[t]: positions < t ranked inside the window
	values []float64    // values of the window's positions, in series order
	counts *blockCounts // fixed-length blocks: the starts classed (blockcount.go)
}

// windowWidth is the half-width, in ranks, of a quantile's window. The
// count of resampled values below the quantile's rank has a variance of
// about n p(1-p) times the indicator's variance inflation; the window
// spans four standard deviations of it and a block either side, so that a
// fallback (exact, only slower) is rare even when the inflation is
// underestimated twofold.
func windowWidth(n int, p float64, bs blockScheme, inflation float64) int {
	sd := math.Sqrt(float64(n) * p * (1 - p) * max(1, inflation))
	return int(4*sd+2*bs.length) + 16
}

// newRankWindow ranks xs and keeps the ranks within w of the plan's.
func newRankWindow(xs []float64, plan orderPlan, bs blockScheme, w int) *rankWindow {
	n := len(xs)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(xs[a], xs[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := make([]int32, n)
	for r, i := range order {
		rank[i] = int32(r)
	}
	lo, hi := max(0, plan.k-w), min(n-1, plan.k+1+w)
	rw := &rankWindow{xs: xs, plan: plan, bs: bs, below: make([]int32, n+1), inWin: make([]int32, n+1)}
	for t := range n {
		rw.below[t+1], rw.inWin[t+1] = rw.below[t], rw.inWin[t]
		switch rk := int(rank[t]); {
		case rk < lo:
			rw.below[t+1]++
		case rk <= hi:
			rw.inWin[t+1]++
			rw.values = append(rw.values, xs[t])
		}
	}
	if !bs.stationary {
		rw.counts = newBlockCounts(n, max(1, int(bs.length)), rw.below, rw.inWin)
	}
	return rw
}

// blockScratch is one goroutine's scratch space for rankWindow.draw.
type blockScratch struct {
	starts, lens []int
	classes      []int
	window, full []float64
}

// draw returns the statistic of one block resample.
func (rw *rankWindow) draw(r *rand.Rand, sc *blockScratch) float64 {
	n := len(rw.xs)
	below := 0
	sc.starts, sc.lens, sc.window = sc.starts[:0], sc.lens[:0], sc.window[:0]
	explicit := func(st, l int) {
		sc.starts, sc.lens = append(sc.starts, st), append(sc.lens, l)
		a0, a1, b0, b1 := segments(n, st, l)
		below += int(rw.below[a1]-rw.below[a0]) + int(rw.below[b1]-rw.below[b0])
		sc.window = append(sc.window, rw.values[rw.inWin[a0]:rw.inWin[a1]]...)
		sc.window = append(sc.window, rw.values[rw.inWin[b0]:rw.inWin[b1]]...)
	}
	if rw.counts != nil {
		if sc.classes == nil {
			sc.classes = make([]int, rw.counts.length+1)
		}
		below += rw.counts.draw(r, sc.classes, explicit)
	} else {
		rw.bs.each(r, explicit)
	}
	k, vals := rw.plan.k-below, sc.window
	last := k
	if rw.plan.two {
		last = k + 1
	}
	if k < 0 || last >= len(vals) {
		// The resample's order statistic lies outside the window: build
		// the resample from the same blocks and select from all of it.
		sc.full = sc.full[:0]
		add := func(st, l int) {
			a0, a1, b0, b1 := segments(n, st, l)
			sc.full = append(sc.full, rw.xs[a0:a1]...)
			sc.full = append(sc.full, rw.xs[b0:b1]...)
		}
		for i, st := range sc.starts {
			add(st, sc.lens[i])
		}
		if rw.counts != nil {
			rw.counts.materialise(r, sc.classes, add)
		}
		k, vals = rw.plan.k, sc.full
	}
	nthElement(vals, k)
	v1, v2 := vals[k], vals[k]
	if rw.plan.two {
		v2 = slices.Min(vals[k+1:])
	}
	return rw.plan.value(v1, v2)
}
