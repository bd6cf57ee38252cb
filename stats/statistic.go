package stats

import (
	"fmt"
	"math"
	"strconv"
)

// A Statistic is a number computed from a sample, such as the mean or the
// p99, described well enough for [Bootstrap] to resample it.
//
// Any function of a sorted sample can be a Statistic:
//
//	trimmed := stats.Statistic{Name: "trimmed mean", Func: myTrimmedMean}
//
// Such a statistic is bootstrapped the plain way: each replicate is a full
// resample of size n (drawn directly in sorted order, O(n)), and BCa's
// acceleration comes from a leave-one-out jackknife (O(n) evaluations), or
// for samples larger than [BootstrapOptions.JackknifeGroups] from a
// delete-a-group jackknife. The statistics made by [QuantileStatistic],
// [MedianStatistic] and [MeanStatistic] carry more: Bootstrap draws the order
// statistics a quantile reads without building the resample, and computes
// their jackknife exactly in O(1) or O(n).
type Statistic struct {
	// Name labels the statistic in warnings and reports ("p99", "mean").
	Name string
	// Func computes the statistic from a sample sorted in ascending order.
	// It must not retain or modify the slice, which Bootstrap reuses, and
	// it must be safe to call from several goroutines at once.
	Func func(sorted []float64) float64

	kind   statKind
	p      float64
	method Method
	scale  float64 // milliseconds per unit, for LocustBuckets
}

type statKind int

const (
	customStat statKind = iota
	quantileStat
	meanStat
)

// QuantileStatistic is the p-quantile read with method m (see [Quantile]).
// It panics if p is outside [0, 1] or m is unknown.
func QuantileStatistic(p float64, m Method) Statistic {
	return QuantileStatisticScaled(p, m, 1)
}

// QuantileStatisticScaled is the p-quantile read with method m from values
// stored in a unit of msPerUnit milliseconds (see [QuantileScaled]; only
// LocustBuckets depends on it).
func QuantileStatisticScaled(p float64, m Method, msPerUnit float64) Statistic {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("stats: QuantileStatistic with p=%v outside [0, 1]", p))
	}
	switch m {
	case Linear, NearestRankFloor, NearestRankCumulative, NearestRankCumulativeUnmerged, LocustBuckets, Lower:
	default:
		panic(fmt.Sprintf("stats: unknown quantile method %q", m))
	}
	checkScale(msPerUnit)
	return Statistic{
		Name:   "p" + strconv.FormatFloat(100*p, 'g', 6, 64),
		Func:   func(sorted []float64) float64 { return QuantileScaled(sorted, p, m, msPerUnit) },
		kind:   quantileStat,
		p:      p,
		method: m,
		scale:  msPerUnit,
	}
}

// IsMean reports whether s is MeanStatistic.
func (s Statistic) IsMean() bool { return s.kind == meanStat }

// MedianStatistic is the linear-interpolation median, numpy.median.
func MedianStatistic() Statistic {
	s := QuantileStatistic(0.5, Linear)
	s.Name = "median"
	return s
}

// MeanStatistic is the arithmetic mean ([Mean]).
func MeanStatistic() Statistic {
	return Statistic{Name: "mean", Func: Mean, kind: meanStat}
}

// orderPlan says which order statistics of a sample of size n a quantile
// reads, and how it combines them: lerp(x[k], x[k+1], frac) when two is
// set, x[k] otherwise, rounded into Locust's bucket when locust is set.
type orderPlan struct {
	k      int
	frac   float64
	two    bool
	locust bool
	scale  float64 // milliseconds per unit when locust
}

// planFor is Quantile's index arithmetic for a sample of n values. For
// NearestRankCumulative it assumes the n values are distinct (see
// cumulativeRank): resampled data repeat values, and GuideLLM's merging of
// repeats can move its float-cumsum boundary by one rank only where n*p is
// within rounding of a whole number; the bootstrap ignores that.
func planFor(n int, p float64, m Method) orderPlan {
	return planForScaled(n, p, m, 1)
}

// planForScaled is planFor for values stored in a unit of msPerUnit
// milliseconds (see QuantileScaled).
func planForScaled(n int, p float64, m Method, msPerUnit float64) orderPlan {
	switch m {
	case Linear:
		h := p * float64(n-1)
		lo := math.Floor(h)
		k := int(lo)
		if k+1 >= n {
			return orderPlan{k: n - 1}
		}
		frac := h - lo
		return orderPlan{k: k, frac: frac, two: frac > 0}
	case NearestRankFloor:
		return orderPlan{k: floorRank(n, p)}
	case NearestRankCumulative, NearestRankCumulativeUnmerged:
		return orderPlan{k: cumulativeRank(n, p)}
	case LocustBuckets:
		return orderPlan{k: floorRank(n, p), locust: true, scale: msPerUnit}
	case Lower:
		return orderPlan{k: lowerRank(n, p)}
	}
	panic(fmt.Sprintf("stats: unknown quantile method %q", m))
}

// value combines the order statistics a (at k) and b (at k+1).
func (o orderPlan) value(a, b float64) float64 {
	v := a
	if o.two {
		v = lerp(a, b, o.frac)
	}
	if o.locust {
		v = locustScaled(v, o.scale)
	}
	return v
}

// read evaluates the plan on a sorted sample.
func (o orderPlan) read(sorted []float64) float64 {
	b := sorted[o.k]
	if o.two {
		b = sorted[o.k+1]
	}
	return o.value(sorted[o.k], b)
}

// plan is planFor for a quantile statistic on n values.
func (s Statistic) plan(n int) orderPlan { return planForScaled(n, s.p, s.method, s.scale) }
