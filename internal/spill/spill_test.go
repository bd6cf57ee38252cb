package spill

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verdict-llm/verdict/stats"
)

// TestSpilledMatchesMemory checks that spilled selection returns exactly
// what sorting in memory returns, for every method, on data with
// negatives, zeros, duplicates and a wide range.
func TestSpilledMatchesMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() float64{
		"lognormal": func() float64 { return math.Exp(rng.NormFloat64()) * 0.01 },
		"mixed":     func() float64 { return rng.NormFloat64() * 1e3 },
		"ties":      func() float64 { return float64(rng.IntN(7)) - 3 },
		"constant":  func() float64 { return 0.125 },
	}
	ps := []float64{0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1}
	// A report's 101-point grid: more distinct prefixes than
	// prefixIndexLinear, so the selection looks them up in a map.
	grid := make([]float64, 101)
	for k := range grid {
		grid[k] = float64(k) / 100
	}
	for name, gen := range gens {
		// 70,000 values: more than one collection holds (1<<16) in a
		// single bucket when they are constant or tied, so the selection
		// narrows through every digit.
		for _, n := range []int{1, 2, 7, 5000, 70000} {
			ps := ps
			if n == 5000 {
				ps = grid
			}
			var mem, disk Floats
			disk.MemLimit = 3
			ref := make([]float64, n)
			for i := range ref {
				x := gen()
				ref[i] = x
				if err := mem.Add(x); err != nil {
					t.Fatal(err)
				}
				if err := disk.Add(x); err != nil {
					t.Fatal(err)
				}
			}
			if n > 3 && !disk.Spilled() {
				t.Fatalf("%s/%d: expected a spill", name, n)
			}
			slices.Sort(ref)
			for _, m := range []stats.Method{stats.Linear, stats.NearestRankFloor, stats.LocustBuckets} {
				got, err := disk.Quantiles(ps, m)
				if err != nil {
					t.Fatal(err)
				}
				gotMem, _ := mem.Quantiles(ps, m)
				for i, p := range ps {
					want := stats.Quantile(ref, p, m)
					if got[i] != want || gotMem[i] != want {
						t.Errorf("%s/%d/%s p=%v: spilled %v, memory %v, want %v", name, n, m, p, got[i], gotMem[i], want)
					}
				}
			}
			if d := math.Abs(disk.Mean() - stats.Mean(ref)); d > 1e-12*math.Max(1, math.Abs(stats.Mean(ref))) {
				t.Errorf("%s/%d: mean %v vs %v", name, n, disk.Mean(), stats.Mean(ref))
			}
			if n > 1 {
				w := stats.StdDev(ref, 0)
				if d := math.Abs(disk.StdDev(0) - w); d > 1e-9*math.Max(w, 1e-300) && d > 1e-15 {
					t.Errorf("%s/%d: std %v vs %v", name, n, disk.StdDev(0), w)
				}
			}
			if disk.Min() != ref[0] || disk.Max() != ref[n-1] {
				t.Errorf("%s/%d: min/max %v %v", name, n, disk.Min(), disk.Max())
			}
			disk.Close()
			mem.Close()
		}
	}
}

func BenchmarkSpilledP99(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for b.Loop() {
		var f Floats
		f.MemLimit = 1 << 10
		for range 1 << 20 {
			f.Add(math.Exp(rng.NormFloat64()))
		}
		if _, err := f.Quantiles([]float64{0.5, 0.99}, stats.Linear); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkSpilledGrid reads the 101 quantiles a report's figures draw
// from 4M spilled values (the selection alone; the values are written
// once).
func BenchmarkSpilledGrid(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var f Floats
	f.MemLimit = 1 << 10
	for range 1 << 22 {
		f.Add(0.01 + 0.02*rng.Float64())
	}
	defer f.Close()
	grid := make([]float64, 101)
	for k := range grid {
		grid[k] = float64(k) / 100
	}
	for b.Loop() {
		if _, err := f.Quantiles(grid, stats.Linear); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAddAllIsAdd: AddAll of runs of values, crossing the memory limit
// inside a run, leaves the sample Add of each value leaves: the same
// length, extremes, moments (bit for bit) and quantiles, in memory and
// spilled.
func TestAddAllIsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, limit := range []int{1, 5, 16, 1000} {
		var one, all Floats
		one.MemLimit, all.MemLimit = limit, limit
		defer one.Close()
		defer all.Close()
		for range 300 {
			run := make([]float64, rng.IntN(20))
			for i := range run {
				run[i] = math.Exp(rng.NormFloat64()) * 0.02
				if err := one.Add(run[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := all.AddAll(run); err != nil {
				t.Fatal(err)
			}
		}
		if one.Len() != all.Len() || one.Spilled() != all.Spilled() || one.Min() != all.Min() || one.Max() != all.Max() ||
			one.Mean() != all.Mean() || one.StdDev(1) != all.StdDev(1) {
			t.Fatalf("limit %d: Add gives n %d, spilled %v, min %v, max %v, mean %v, sd %v; AddAll %d, %v, %v, %v, %v, %v", limit,
				one.Len(), one.Spilled(), one.Min(), one.Max(), one.Mean(), one.StdDev(1),
				all.Len(), all.Spilled(), all.Min(), all.Max(), all.Mean(), all.StdDev(1))
		}
		ps := []float64{0, 0.1, 0.5, 0.9, 0.99, 1}
		a, err := one.Quantiles(ps, stats.Linear)
		if err != nil {
			t.Fatal(err)
		}
		b, err := all.Quantiles(ps, stats.Linear)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Errorf("limit %d: quantiles %v, AddAll %v", limit, a, b)
		}
	}
}
