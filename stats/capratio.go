package stats

import (
	"fmt"
	"math"
)

// A CapacityRatioStatus says what a ratio of two capacities is.
type CapacityRatioStatus string

const (
	// RatioEstimate: both capacities are bracketed; Estimate is their
	// ratio.
	RatioEstimate CapacityRatioStatus = "estimate"
	// RatioLowerBound: the numerator's sweep never failed (or the
	// denominator's never passed): the ratio is at least Estimate.
	RatioLowerBound CapacityRatioStatus = "lower_bound"
	// RatioUpperBound: the denominator's sweep never failed (or the
	// numerator's never passed): the ratio is at most Estimate.
	RatioUpperBound CapacityRatioStatus = "upper_bound"
	// RatioUndefined: both are bounds on the same side, or one sweep
	// never passed and the other never failed in the same direction.
	RatioUndefined CapacityRatioStatus = "undefined"
)

// CapacityRatio is the ratio of two capacities (A over B) with its
// interval.
type CapacityRatio struct {
	Status CapacityRatioStatus
	// Estimate is A.Load/B.Load, or the bound the statuses allow (a
	// never-met capacity counts as its lowest load, the most it can be).
	Estimate float64
	// Lo and Hi bound the ratio at Confidence: the percentile interval of
	// the ratios of the two sweeps' replicate capacities, drawn
	// independently. A replicate capacity below its sweep (never met)
	// counts as 0 and one above it (not reached) as +Inf, so the
	// interval is widened, never narrowed, by unbracketed replicates; a
	// replicate pair unbounded on the same side says nothing and is put
	// at one end or the other in turn.
	Lo, Hi, Confidence float64
	Method             string
	Warnings           []error
}

// CapacityRatioOf returns the ratio of capacity a to capacity b. Both must
// come from CapacityUnderLimits with the same number of resamples and
// confidence (it panics otherwise). Whether the two sweeps may be compared
// at all (same workload, scenario and load points) is for validation to
// say; CapacityRatioOf only does the arithmetic.
func CapacityRatioOf(a, b Capacity) CapacityRatio {
	if a.Resamples != b.Resamples || a.Confidence != b.Confidence {
		panic(fmt.Sprintf("stats: CapacityRatioOf of %d and %d resamples at %v and %v", a.Resamples, b.Resamples, a.Confidence, b.Confidence))
	}
	r := CapacityRatio{Confidence: a.Confidence, Lo: math.NaN(), Hi: math.NaN(),
		Method: "percentile interval of the ratios of independent replicate capacities (" + a.Method + ")"}
	num, numDir := capacityBound(a)
	den, denDir := capacityBound(b)
	r.Estimate = num / den
	switch dir := numDir - denDir; {
	case numDir == 0 && denDir == 0:
		r.Status = RatioEstimate
	case numDir != 0 && denDir != 0 && numDir == denDir:
		r.Status, r.Estimate = RatioUndefined, math.NaN()
	case dir > 0:
		r.Status = RatioLowerBound
	default:
		r.Status = RatioUpperBound
	}
	if r.Status != RatioEstimate {
		r.Warnings = append(r.Warnings, fmt.Errorf("capacity ratio: A is %s and B %s, so the ratio is %s", a.Status, b.Status, r.Status))
	}
	if a.reps == nil || b.reps == nil {
		r.Warnings = append(r.Warnings, fmt.Errorf("capacity ratio: no interval: a capacity has none"))
		return r
	}
	ratios := make([]float64, len(a.reps))
	for k := range ratios {
		x, y := a.reps[k], b.reps[k]
		switch {
		case math.IsInf(x, 0) && math.IsInf(y, 0) && (x > 0) == (y > 0):
			ratios[k] = [2]float64{0, math.Inf(1)}[k%2]
		case math.IsInf(x, -1) || math.IsInf(y, 1):
			ratios[k] = 0
		case math.IsInf(x, 1) || math.IsInf(y, -1):
			ratios[k] = math.Inf(1)
		default:
			ratios[k] = x / y
		}
	}
	r.Lo, r.Hi = percentileInterval(ratios, r.Confidence)
	return r
}

// capacityBound returns the capacity's value for a ratio and the side on
// which it is only a bound: 0 bracketed, +1 at least (not reached), -1 at
// most (never met; the value is the lowest load tried).
func capacityBound(c Capacity) (float64, int) {
	switch c.Status {
	case CapacityNotReached:
		return c.Load, 1
	case CapacityNeverMet:
		if len(c.Points) > 0 {
			return c.Points[0].Load, -1
		}
		return math.NaN(), -1
	}
	return c.Load, 0
}
