package capture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Ramp raises the arrival rate linearly from From requests/s at the start
// of dispatch to the target rate after Over, and keeps it there.
type Ramp struct {
	From float64
	Over time.Duration
}

func (r *Ramp) String() string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("linear %s->target req/s over %s", formatFloat(r.From), r.Over)
}

// arrivals draws the open-loop arrival offsets of the server scenario:
// gaps are gamma distributed with shape Burstiness (1: exponential, a
// Poisson process) and mean 1/rate, where the rate is the target or, during
// a ramp, the ramp's rate at the previous arrival. The first request
// arrives at offset 0, so the dispatch window starts with it.
//
// The stream depends only on the seed and the settings: PCG seeded with
// (seed, 0xa441) drives every draw.
type arrivals struct {
	rate, shape float64
	ramp        *Ramp
	rng         *rand.Rand
	gamma       distuv.Gamma
	t           float64 // seconds
	n           int
}

func newArrivals(rate, burstiness float64, ramp *Ramp, seed uint64) *arrivals {
	if burstiness <= 0 {
		burstiness = 1
	}
	src := rand.NewPCG(seed, 0xa441)
	a := &arrivals{rate: rate, shape: burstiness, ramp: ramp, rng: rand.New(src)}
	a.gamma = distuv.Gamma{Alpha: burstiness, Beta: burstiness, Src: a.rng}
	return a
}

// rateAt is the arrival rate at offset t seconds.
func (a *arrivals) rateAt(t float64) float64 {
	if a.ramp == nil || a.ramp.Over <= 0 {
		return a.rate
	}
	f := math.Min(1, t/a.ramp.Over.Seconds())
	return a.ramp.From + (a.rate-a.ramp.From)*f
}

// next returns the offset of the next arrival in seconds.
func (a *arrivals) next() float64 {
	if a.n == 0 {
		a.n++
		return 0
	}
	a.n++
	// A unit-mean gap (gamma with shape k and rate k), scaled by 1/rate.
	var g float64
	if a.shape == 1 {
		g = a.rng.ExpFloat64()
	} else {
		g = a.gamma.Rand()
	}
	a.t += g / a.rateAt(a.t)
	return a.t
}

// Schedule returns the arrival offsets of the first n requests of a
// server-scenario capture with these settings, as Run will draw them. It
// is for inspection and tests; the same arguments always give the same
// offsets.
func Schedule(n int, rate, burstiness float64, ramp *Ramp, seed uint64) []time.Duration {
	a := newArrivals(rate, burstiness, ramp, seed)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(a.next() * float64(time.Second))
	}
	return out
}
