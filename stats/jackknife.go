package stats

import (
	"math"
	"math/rand/v2"
	"sync"
)

// weighted is a jackknife value and the number of deletions that give it.
// Quantiles have two or three distinct leave-one-out values however large
// the sample, so they are stored with multiplicities rather than n times.
type weighted struct {
	v float64
	w int
}

// jackknife holds the jackknife values of one sample.
type jackknife []weighted

// jackknifeSet holds the jackknife values of each sample of a statistic of
// several samples.
type jackknifeSet []jackknife

// jackknifeStream is the PCG stream (with the bootstrap seed) that fixes
// the random groups of a grouped jackknife. Replicate blocks use streams
// from 0 up, so the two never meet.
const jackknifeStream = 1 << 63

func (j jackknife) acceleration() float64 { return jackknifeSet{j}.acceleration() }

// acceleration is scipy's multi-sample BCa acceleration (see
// BCaFromReplicates), with n_j the number of jackknife values of sample j
// (the number of groups for a grouped jackknife).
func (js jackknifeSet) acceleration() float64 {
	var num, den float64
	for _, j := range js {
		var n int
		var sum float64
		for _, x := range j {
			n += x.w
			sum += float64(x.w) * x.v
		}
		if n == 0 {
			continue
		}
		fn := float64(n)
		mean := sum / fn
		var s2, s3 float64
		for _, x := range j {
			u := (fn - 1) * (mean - x.v)
			u2 := u * u
			s2 += float64(x.w) * u2
			s3 += float64(x.w) * u2 * u
		}
		num += s3 / (fn * fn * fn)
		den += s2 / (fn * fn)
	}
	if den == 0 {
		// Every jackknife value equal: no skewness to correct for.
		return 0
	}
	return num / (6 * math.Pow(den, 1.5))
}

// expand writes the jackknife values out, one per deletion, in the order
// of deletion (the order in which jackknifeOf lists its classes).
func (j jackknife) expand() []float64 {
	var out []float64
	for _, x := range j {
		for range x.w {
			out = append(out, x.v)
		}
	}
	return out
}

// Jackknife returns the leave-one-out values of statistic s on xs: element
// i is s computed on the sorted sample with its i-th smallest value
// removed. xs need not be sorted. Quantile and mean statistics are computed
// exactly in O(n); a custom statistic is evaluated n times. A quantile read
// with NearestRankCumulative uses the rank GuideLLM would give n-1 distinct
// values (see QuantileStatistic). Jackknife panics if len(xs) < 2 or xs
// holds NaN.
func Jackknife(xs []float64, s Statistic) []float64 {
	sorted, ok := sortedCopy(xs)
	if !ok {
		panic("stats: Jackknife of a sample holding NaN")
	}
	if len(sorted) < 2 {
		panic("stats: Jackknife needs at least two values")
	}
	return leaveOneOut(sorted, s).expand()
}

// jackknifeOf is the jackknife Bootstrap uses for BCa: exact for quantiles
// and means, leave-one-out for custom statistics up to JackknifeGroups
// values, grouped above.
func jackknifeOf(sorted []float64, s Statistic, o BootstrapOptions) jackknife {
	if len(sorted) < 2 {
		return nil
	}
	if s.kind == customStat && len(sorted) > o.JackknifeGroups {
		return groupedJackknife(sorted, s, o.JackknifeGroups, o.Seed, o.Workers)
	}
	return leaveOneOut(sorted, s)
}

// leaveOneOut computes the n leave-one-out values, in deletion order.
func leaveOneOut(sorted []float64, s Statistic) jackknife {
	n := len(sorted)
	switch s.kind {
	case quantileStat:
		return quantileJackknife(func(i int) float64 { return sorted[i] }, n, s.plan(n-1))
	case meanStat:
		var sum float64
		for _, x := range sorted {
			sum += x
		}
		j := make(jackknife, n)
		for i, x := range sorted {
			j[i] = weighted{(sum - x) / float64(n-1), 1}
		}
		return j
	}
	j := make(jackknife, n)
	buf := make([]float64, n-1)
	for i := range sorted {
		copy(buf, sorted[:i])
		copy(buf[i:], sorted[i+1:])
		j[i] = weighted{s.Func(buf), 1}
	}
	return j
}

// quantileJackknife computes the leave-one-out values of a quantile of n
// values whose plan (for n-1 values) reads positions k and k+1; at returns
// the sample's order statistics. Deleting x[i] shifts the positions at or
// above i down by one, so the value depends only on where i falls: i <= k
// reads x[k+1], x[k+2]; i = k+1 reads x[k], x[k+2]; i > k+1 reads x[k],
// x[k+1] (for a one-position plan only i <= k versus i > k matters).
func quantileJackknife(at func(int) float64, n int, plan orderPlan) jackknife {
	k := plan.k
	get := func(i int) float64 { return at(min(i, n-1)) }
	var j jackknife
	add := func(v float64, w int) {
		if w > 0 {
			j = append(j, weighted{v, w})
		}
	}
	if !plan.two {
		add(plan.value(get(k+1), 0), k+1)
		add(plan.value(get(k), 0), n-k-1)
		return j
	}
	add(plan.value(get(k+1), get(k+2)), k+1)
	add(plan.value(get(k), get(k+2)), 1)
	add(plan.value(get(k), get(k+1)), n-k-2)
	return j
}

// groupedJackknife deletes each of g random groups of (almost) equal size
// in turn. The partition is a shuffle drawn from the seed's jackknife
// stream, so it is as deterministic as the replicates.
func groupedJackknife(sorted []float64, s Statistic, g int, seed uint64, workers int) jackknife {
	n := len(sorted)
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	r := rand.New(rand.NewPCG(seed, jackknifeStream))
	r.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
	// group[i] is the group of sorted[i]: position in the shuffle mod g.
	group := make([]int32, n)
	for pos, i := range perm {
		group[i] = int32(pos % g)
	}
	j := make(jackknife, g)
	var next sync.Mutex
	k := 0
	var wg sync.WaitGroup
	for range max(1, min(workers, g)) {
		wg.Go(func() {
			buf := make([]float64, 0, n)
			for {
				next.Lock()
				gi := k
				k++
				next.Unlock()
				if gi >= g {
					return
				}
				buf = buf[:0]
				for i, x := range sorted {
					if int(group[i]) != gi {
						buf = append(buf, x)
					}
				}
				j[gi] = weighted{s.Func(buf), 1}
			}
		})
	}
	wg.Wait()
	return j
}
