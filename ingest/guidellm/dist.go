package guidellm

import (
	"math"
	"slices"

	"github.com/verdict-llm/verdict/stats"
)

// A dist collects weighted observations to recompute a GuideLLM
// distribution summary.
type dist struct {
	xs []wv
}

type wv struct{ v, w float64 }

func (d *dist) add(v, w float64) {
	if w > 0 && !math.IsNaN(v) {
		d.xs = append(d.xs, wv{v, w})
	}
}

func (d *dist) count() float64 {
	var n float64
	for _, x := range d.xs {
		n += x.w
	}
	return n
}

// A summary is what GuideLLM reports of a distribution.
type summary struct {
	count, mean, std, min, max, median float64
	ps                                 []float64 // at the requested percentiles (0-100)
}

// cumulative summarises the way GuideLLM's DistributionSummary does from
// v0.2: values sorted, probabilities w/W, their running sum in float64, and
// percentile p the first value whose running sum reaches p (no
// interpolation). From v0.4 equal values are merged first (merge; with unit
// weights this is stats.Quantile with stats.NearestRankCumulative); v0.2-v0.3
// keep each value's own probability (stats.NearestRankCumulativeUnmerged),
// so a tie at a boundary reads differently: nine 128s and one 200 have p90
// 200 unmerged and 128 merged.
func (d *dist) cumulative(pcts []float64, merge bool) summary {
	xs := d.sorted(merge)
	var s summary
	var total float64
	for _, x := range xs {
		total += x.w
	}
	s.count = total
	if len(xs) == 0 {
		return s
	}
	s.min, s.max = xs[0].v, xs[len(xs)-1].v
	probs := make([]float64, len(xs))
	for i, x := range xs {
		probs[i] = x.w / total
		s.mean += x.v * probs[i]
	}
	var variance float64
	for i, x := range xs {
		variance += (x.v - s.mean) * (x.v - s.mean) * probs[i]
	}
	s.std = math.Sqrt(variance)
	cdf := make([]float64, len(xs))
	var cum float64
	for i, p := range probs {
		cum += p
		cdf[i] = cum
	}
	at := func(p float64) float64 {
		for i, c := range cdf {
			if c >= p {
				return xs[i].v
			}
		}
		return xs[len(xs)-1].v
	}
	s.median = at(0.5)
	for _, p := range pcts {
		s.ps = append(s.ps, at(p/100))
	}
	return s
}

// linear summarises the way GuideLLM v0.1 did: numpy over the values with
// each value repeated as many times as its (integer) weight, linear
// percentiles, population std, np.median.
func (d *dist) linear(pcts []float64) summary {
	xs := d.sorted(true)
	var s summary
	var n float64
	for _, x := range xs {
		n += x.w
	}
	s.count = n
	if len(xs) == 0 {
		return s
	}
	s.min, s.max = xs[0].v, xs[len(xs)-1].v
	var sum float64
	for _, x := range xs {
		sum += x.v * x.w
	}
	s.mean = sum / n
	var ss float64
	for _, x := range xs {
		ss += (x.v - s.mean) * (x.v - s.mean) * x.w
	}
	s.std = math.Sqrt(ss / n)
	// rank returns the value at 0-based position i of the repeated sample.
	rank := func(i float64) float64 {
		var c float64
		for _, x := range xs {
			c += x.w
			if i < c {
				return x.v
			}
		}
		return xs[len(xs)-1].v
	}
	at := func(p float64) float64 {
		h := p * (n - 1)
		lo := math.Floor(h)
		a, b := rank(lo), rank(math.Min(lo+1, n-1))
		return stats.Quantile([]float64{a, b}, h-lo, stats.Linear)
	}
	s.median = at(0.5)
	for _, p := range pcts {
		s.ps = append(s.ps, at(p/100))
	}
	return s
}

// sorted returns the observations by value with equal values merged.
func (d *dist) sorted(merge bool) []wv {
	xs := slices.Clone(d.xs)
	slices.SortStableFunc(xs, func(a, b wv) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	if !merge {
		return xs
	}
	out := xs[:0]
	for _, x := range xs {
		if n := len(out); n > 0 && out[n-1].v == x.v {
			out[n-1].w += x.w
			continue
		}
		out = append(out, x)
	}
	return out
}
