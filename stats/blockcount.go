package stats

import (
	"math"
	"math/rand/v2"
)

// Counting over fixed-length blocks without drawing every block.
//
// In a circular block resample with blocks of a fixed length L, the m
// full blocks start at m independent uniform positions. A quantile's
// replicate needs, of each block, only the number of its values ranked
// below the rank window (see blockboot.go) and the values it holds inside
// the window. Most blocks hold no window value: they matter only through
// their count c in 0..L. So the starts are classed once: starts whose
// block touches the window, and the others by their count c. The number
// of full blocks in each class is multinomial, drawn exactly as a chain of
// binomials; the touching blocks (a few percent for a tail quantile) and
// the final partial block are drawn one by one. A replicate then costs
// O(L log m) plus the touching blocks, whatever the number of blocks.
// When the window misses, the blocks of each class are given starts drawn
// uniformly within their class, which makes the resample itself, so the
// fallback stays exact.

// blockCounts classes the starts of fixed-length circular blocks.
type blockCounts struct {
	n, length, full, rest int
	touching              []int32   // starts whose block holds a window position
	byCount               [][]int32 // the other starts, by their below-window count
}

// newBlockCounts classes the starts of blocks of length l (1 <= l <= n)
// of a series of n values, given the prefix counts of positions below the
// window and inside it.
func newBlockCounts(n, l int, below, inWin []int32) *blockCounts {
	bc := &blockCounts{n: n, length: l, full: n / l, rest: n % l, byCount: make([][]int32, l+1)}
	count := func(p []int32, s int) int {
		a0, a1, b0, b1 := segments(n, s, l)
		return int(p[a1]-p[a0]) + int(p[b1]-p[b0])
	}
	for s := range n {
		if count(inWin, s) > 0 {
			bc.touching = append(bc.touching, int32(s))
			continue
		}
		c := count(below, s)
		bc.byCount[c] = append(bc.byCount[c], int32(s))
	}
	return bc
}

// draw draws one resample's blocks: it calls explicit(start, length) for
// every block drawn one by one (touching and partial ones) and returns the
// summed below-window count of the other blocks, with each class's number
// of blocks in counts (len L+1, overwritten).
func (bc *blockCounts) draw(r *rand.Rand, counts []int, explicit func(start, l int)) int {
	left := bc.full
	pool := bc.n
	nt := binomial(r, left, float64(len(bc.touching))/float64(pool))
	for range nt {
		explicit(int(bc.touching[r.IntN(len(bc.touching))]), bc.length)
	}
	left -= nt
	pool -= len(bc.touching)
	total := 0
	for c, starts := range bc.byCount {
		k := 0
		if left > 0 && len(starts) > 0 {
			k = left
			if len(starts) < pool {
				k = binomial(r, left, float64(len(starts))/float64(pool))
			}
		}
		counts[c] = k
		total += c * k
		left -= k
		pool -= len(starts)
	}
	if bc.rest > 0 {
		explicit(r.IntN(bc.n), bc.rest)
	}
	return total
}

// materialise calls fn(start, L) for counts[c] starts drawn uniformly from
// each class, completing a resample whose class counts draw returned.
func (bc *blockCounts) materialise(r *rand.Rand, counts []int, fn func(start, l int)) {
	for c, k := range counts {
		starts := bc.byCount[c]
		for range k {
			fn(int(starts[r.IntN(len(starts))]), bc.length)
		}
	}
}

// binomialDirect is the number of trials below which binomial adds
// Bernoulli draws.
const binomialDirect = 48

// binomial draws Binomial(n, p) exactly by splitting at an order
// statistic (Devroye, Non-Uniform Random Variate Generation, 1986,
// section X.4.3): the i-th smallest of n uniforms, i = (n+1)/2, is
// Beta(i, n+1-i) (drawn as a ratio of Gamma variables); the trials are
// the uniforms below p. If that order statistic y is at most p, the i
// smallest are successes and the other n-i are uniform on (y, 1), each a
// success with probability (p-y)/(1-y); otherwise the i-1 below y are
// uniform on (0, y), each a success with probability p/y, and the rest
// fail. O(log n) Gamma draws and at most 48 Bernoulli ones.
func binomial(r *rand.Rand, n int, p float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	}
	x := 0
	for n > binomialDirect {
		i := (n + 1) / 2
		a := newGammaSampler(float64(i)).draw(r)
		b := newGammaSampler(float64(n + 1 - i)).draw(r)
		y := a / (a + b)
		if y <= p {
			x += i
			p = (p - y) / (b / (a + b))
			n -= i
		} else {
			p /= y
			n = i - 1
		}
		p = math.Min(1, math.Max(0, p))
	}
	for range n {
		if r.Float64() < p {
			x++
		}
	}
	return x
}
