package stats

import (
	"cmp"
	"math"
	"slices"
)

// Throughput against interactivity. A serving configuration trades the
// speed each user sees for the tokens the hardware delivers in total:
// InferenceX plots output tokens per second per GPU against tokens per
// second per user (1/TPOT), and AIPerf and vLLM plot Pareto frontiers of
// the same kind. Both axes are better higher.

// A ParetoPoint is one operating point: X is the interactivity (output
// tokens per second per user, 1/TPOT) and Y the throughput (output tokens
// per second per GPU), or any two quantities both better higher.
type ParetoPoint struct {
	X, Y float64
	// Label names the point (configuration and load) in reports.
	Label string
}

// Interactivity is the output tokens per second one user sees, 1/TPOT,
// for a TPOT in seconds; NaN unless tpot is positive.
func Interactivity(tpot float64) float64 {
	if !(tpot > 0) {
		return math.NaN()
	}
	return 1 / tpot
}

// ParetoFrontier returns the points no other point dominates (another has
// X and Y at least as high, one of them higher), sorted by X ascending,
// so by Y descending. Points with a NaN coordinate are left out; of
// identical points the first is kept.
func ParetoFrontier(pts []ParetoPoint) []ParetoPoint {
	var ok []ParetoPoint
	for _, p := range pts {
		if !math.IsNaN(p.X) && !math.IsNaN(p.Y) {
			ok = append(ok, p)
		}
	}
	// By X descending (Y descending on ties): a point is on the frontier
	// when its Y beats every Y seen so far, all of which have X at least
	// as high.
	slices.SortStableFunc(ok, func(a, b ParetoPoint) int {
		if c := cmp.Compare(b.X, a.X); c != 0 {
			return c
		}
		return cmp.Compare(b.Y, a.Y)
	})
	var front []ParetoPoint
	best := math.Inf(-1)
	for _, p := range ok {
		if p.Y > best {
			front = append(front, p)
			best = p.Y
		}
	}
	slices.Reverse(front)
	return front
}

// A FrontierStatus says how a value read off a frontier relates to the
// measured points.
type FrontierStatus string

const (
	// FrontierInterpolated: between two frontier points, read off the
	// segment joining them (or at a point).
	FrontierInterpolated FrontierStatus = "interpolated"
	// FrontierLowerBound: the interactivity asked for is below every
	// frontier point's; the least interactive point already delivers its
	// throughput there, which is a lower bound.
	FrontierLowerBound FrontierStatus = "lower_bound"
	// FrontierNotReached: no point is that interactive.
	FrontierNotReached FrontierStatus = "not_reached"
)

// A FrontierValue is the throughput a frontier reaches at an
// interactivity.
type FrontierValue struct {
	X, Y   float64
	Status FrontierStatus
	// Between holds the labels of the frontier points Y comes from.
	Between []string
}

// ThroughputAt returns the throughput of frontier (as ParetoFrontier
// returns it, sorted by X) at interactivity x, by linear interpolation
// between the frontier points around x: the operating points between two
// measured ones are assumed to lie on the segment joining them, which
// mixing the two configurations' traffic would achieve. Outside the
// frontier's range the status says what is known.
func ThroughputAt(frontier []ParetoPoint, x float64) FrontierValue {
	v := FrontierValue{X: x, Y: math.NaN(), Status: FrontierNotReached}
	if len(frontier) == 0 || math.IsNaN(x) {
		return v
	}
	if x <= frontier[0].X {
		v.Y, v.Between = frontier[0].Y, []string{frontier[0].Label}
		v.Status = FrontierInterpolated
		if x < frontier[0].X {
			v.Status = FrontierLowerBound
		}
		return v
	}
	i, found := slices.BinarySearchFunc(frontier, x, func(p ParetoPoint, x float64) int { return cmp.Compare(p.X, x) })
	switch {
	case found:
		v.Y, v.Status, v.Between = frontier[i].Y, FrontierInterpolated, []string{frontier[i].Label}
	case i < len(frontier):
		a, b := frontier[i-1], frontier[i]
		v.Y = a.Y + (x-a.X)/(b.X-a.X)*(b.Y-a.Y)
		v.Status, v.Between = FrontierInterpolated, []string{a.Label, b.Label}
	}
	return v
}
