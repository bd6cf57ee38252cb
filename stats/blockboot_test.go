package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBinomial checks the order-statistic splitting sampler against the
// binomial's mean and variance, and for n = 10 against its exact pmf
// (a chi-square test over the 11 outcomes).
func TestBinomial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const draws = 40000
	for _, c := range []struct {
		n int
		p float64
	}{{10, 0.3}, {1000, 0.01}, {100000, 0.37}, {77, 0.999}} {
		xs := make([]float64, draws)
		for i := range xs {
			xs[i] = float64(binomial(r, c.n, c.p))
		}
		mean, v := float64(c.n)*c.p, float64(c.n)*c.p*(1-c.p)
		if got := Mean(xs); math.Abs(got-mean) > 5*math.Sqrt(v/draws) {
			t.Errorf("Bin(%d, %v): mean %v, want %v", c.n, c.p, got, mean)
		}
		if sd := StdDev(xs, 1); math.Abs(sd*sd/v-1) > 0.05 {
			t.Errorf("Bin(%d, %v): variance %v, want %v", c.n, c.p, sd*sd, v)
		}
		if c.n != 10 {
			continue
		}
		var obs [11]float64
		for _, x := range xs {
			obs[int(x)]++
		}
		chi := 0.0
		for k := 0; k <= 10; k++ {
			lc, _ := math.Lgamma(11)
			lk, _ := math.Lgamma(float64(k + 1))
			lnk, _ := math.Lgamma(float64(11 - k))
			e := draws * math.Exp(lc-lk-lnk+float64(k)*math.Log(c.p)+float64(10-k)*math.Log1p(-c.p))
			if e > 5 {
				chi += (obs[k] - e) * (obs[k] - e) / e
			}
		}
		// 9 usable cells: the 0.999 quantile of chi-square(8) is 26.1.
		if chi > 26.1 {
			t.Errorf("Bin(10, 0.3): chi-square %v", chi)
		}
	}
	if binomial(r, 50, 0) != 0 || binomial(r, 50, 1) != 50 || binomial(r, 0, 0.5) != 0 {
		t.Error("edge cases")
	}
}

// blockQuantileReps draws b replicates of the p-quantile of xs from block
// resamples built the plain way (every block copied, the resample sorted).
func blockQuantileReps(xs []float64, p float64, bs blockScheme, b int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 5))
	out := make([]float64, b)
	var buf []float64
	for i := range out {
		buf = appendResample(buf[:0], xs, bs, r)
		slices.Sort(buf)
		out[i] = Quantile(buf, p, Linear)
	}
	return out
}

// rankWindowReps draws b replicates through a rankWindow of half-width w.
func rankWindowReps(xs []float64, p float64, bs blockScheme, w, b int, seed uint64) []float64 {
	rw := newRankWindow(xs, planFor(len(xs), p, Linear), bs, w)
	r := rand.New(rand.NewPCG(seed, 6))
	var sc blockScratch
	out := make([]float64, b)
	for i := range out {
		out[i] = rw.draw(r, &sc)
	}
	return out
}

// TestRankWindowDistribution checks that the counted draws (fixed blocks,
// blockcount.go), the per-block draws (stationary blocks) and the forced
// fallback (a window of width 0) give the same replicate distribution as
// plain block resampling, by a two-sample Kolmogorov-Smirnov test.
func TestRankWindowDistribution(t *testing.T) {
	xs := ar1(rand.New(rand.NewPCG(4, 4)), 1500, 0.6)
	const b = 1000
	for _, c := range []struct {
		name string
		p    float64
		bs   blockScheme
		w    int
	}{
		{"fixed p90", 0.9, blockScheme{n: 1500, length: 12}, 400},
		{"fixed p50", 0.5, blockScheme{n: 1500, length: 7}, 400},
		{"fixed p99 fallback", 0.99, blockScheme{n: 1500, length: 12}, 0},
		{"stationary p90", 0.9, blockScheme{n: 1500, length: 9.5, stationary: true}, 400},
		{"stationary p90 fallback", 0.9, blockScheme{n: 1500, length: 9.5, stationary: true}, 0},
	} {
		plain := blockQuantileReps(xs, c.p, c.bs, b, 1)
		fast := rankWindowReps(xs, c.p, c.bs, c.w, b, 2)
		ks := KolmogorovSmirnov(plain, fast)
		if ks.P < 0.001 {
			t.Errorf("%s: KS D = %.4f, p = %.2g: the distributions differ", c.name, ks.D, ks.P)
		}
	}
}

// TestBlockMeanPrefix: the mean of a block resample computed from prefix
// sums equals the mean of the resample built value by value.
func TestBlockMeanPrefix(t *testing.T) {
	xs := ar1(rand.New(rand.NewPCG(9, 9)), 501, 0.3)
	sorted := slices.Sorted(slices.Values(xs))
	bs := blockScheme{n: len(xs), length: 13}
	rep := blockReplicator(xs, sorted, MeanStatistic(), bs, 1)()
	var got [1]float64
	rep(rand.New(rand.NewPCG(1, 2)), got[:])
	want := Mean(appendResample(nil, xs, bs, rand.New(rand.NewPCG(1, 2))))
	if math.Abs(got[0]-want) > 1e-12 {
		t.Errorf("prefix-sum mean %v, resample mean %v", got[0], want)
	}
}

func TestParseScheme(t *testing.T) {
	for _, s := range Schemes {
		if got, err := ParseScheme(string(s)); err != nil || got != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseScheme("jackknife"); err == nil {
		t.Error("unknown scheme accepted")
	}
}

// TestSeriesDescribe: every interval says how it was computed.
func TestSeriesDescribe(t *testing.T) {
	xs := ar1(rand.New(rand.NewPCG(2, 2)), 2000, 0.5)
	for sc, want := range map[Scheme]string{
		SchemeIID:        "i.i.d. BCa bootstrap of requests",
		SchemeBlock:      "circular block bootstrap (block ",
		SchemeStationary: "stationary bootstrap (mean block ",
		SchemeESS:        "i.i.d. bootstrap of the effective sample size (",
	} {
		iv := SeriesBootstrap(xs, MeanStatistic(), SeriesOptions{Scheme: sc, Bootstrap: BootstrapOptions{Resamples: 200}})
		if d := iv.Describe(); len(d) < len(want) || d[:len(want)] != want {
			t.Errorf("%s: %q", sc, d)
		}
		if sc != SchemeIID && (iv.Method != Percentile || !(iv.EffectiveN < 2000) || !(iv.Lo < iv.Estimate && iv.Estimate < iv.Hi)) {
			t.Errorf("%s: %+v", sc, iv)
		}
	}
	iv := SeriesBootstrap(xs, MeanStatistic(), SeriesOptions{Scheme: SchemeBlock, BlockLength: 20.5, Bootstrap: BootstrapOptions{Resamples: 200}})
	if iv.BlockLength != 21 || iv.BlockAuto {
		t.Errorf("fixed block: %v %v", iv.BlockLength, iv.BlockAuto)
	}
}
