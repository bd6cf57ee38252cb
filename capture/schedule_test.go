package capture

import (
	"math"
	"slices"
	"testing"
	"time"
)

func gapsOf(offs []time.Duration) []float64 {
	var g []float64
	for i := 1; i < len(offs); i++ {
		g = append(g, (offs[i] - offs[i-1]).Seconds())
	}
	return g
}

func meanCV(xs []float64) (float64, float64) {
	var s, ss float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss/float64(len(xs))) / m
}

func TestSchedule(t *testing.T) {
	a := Schedule(5000, 10, 1, nil, 42)
	if !slices.Equal(a, Schedule(5000, 10, 1, nil, 42)) {
		t.Fatal("the same seed must give the same schedule")
	}
	if slices.Equal(a, Schedule(5000, 10, 1, nil, 43)) {
		t.Fatal("another seed gave the same schedule")
	}
	if a[0] != 0 || !slices.IsSorted(a) {
		t.Fatal("the first request arrives at 0 and arrivals are ordered")
	}
	// Gamma gaps with shape k have mean 1/rate and a coefficient of
	// variation 1/sqrt(k): 1 for Poisson, 2 for k = 0.25, 0.5 for k = 4.
	for _, c := range []struct{ rate, k float64 }{{10, 1}, {10, 0.25}, {50, 4}} {
		m, cv := meanCV(gapsOf(Schedule(20000, c.rate, c.k, nil, 1)))
		if math.Abs(m*c.rate-1) > 0.05 || math.Abs(cv-1/math.Sqrt(c.k)) > 0.08/math.Sqrt(c.k) {
			t.Errorf("rate %v shape %v: mean gap %v (want %v), cv %v (want %v)", c.rate, c.k, m, 1/c.rate, cv, 1/math.Sqrt(c.k))
		}
	}
	// A ramp from 1/s to 100/s over 10 s: sparse at first, then at rate.
	r := Schedule(3000, 100, 1, &Ramp{From: 1, Over: 10 * time.Second}, 1)
	early, late := 0, 0
	for _, x := range r {
		switch {
		case x < 2*time.Second:
			early++
		case x >= 10*time.Second && x < 12*time.Second:
			late++
		}
	}
	// Expected: about 1*2 + 99*(2^2/2)/10 ~ 22 arrivals in the first 2 s, 200 in 2 s at 100/s.
	if early > 60 || late < 150 || late > 250 {
		t.Errorf("ramp: %d arrivals in the first 2 s, %d in 2 s at full rate", early, late)
	}
}
