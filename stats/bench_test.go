package stats

import (
	"slices"
	"testing"
)

// BenchmarkBCaP99_1M_10k is the target: a 95% BCa interval of p99
// from 1,000,000 unsorted samples with 10,000 resamples, on GOMAXPROCS
// cores (run with -cpu 2 for the stated two). Compare
// testdata/scipy_bootstrap_timing.txt for scipy.stats.bootstrap.
func BenchmarkBCaP99_1M_10k(b *testing.B) {
	xs := expSample(1_000_000, 1)
	s := QuantileStatistic(0.99, Linear)
	o := BootstrapOptions{Method: BCa, Confidence: 0.95, Resamples: 10000, Seed: 1}
	b.Run("unsorted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Bootstrap(xs, s, o)
		}
	})
	sorted := slices.Sorted(slices.Values(xs))
	b.Run("sorted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Bootstrap(sorted, s, o)
		}
	})
}

// BenchmarkBCaP99_10k_10k is the size scipy.stats.bootstrap can be timed
// at directly (testdata/scipy_bootstrap_timing.txt).
func BenchmarkBCaP99_10k_10k(b *testing.B) {
	xs := expSample(10_000, 1)
	o := BootstrapOptions{Resamples: 10000, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		Bootstrap(xs, QuantileStatistic(0.99, Linear), o)
	}
}

// BenchmarkBCaMean_10k_10k resamples value by value: 10^8 draws.
func BenchmarkBCaMean_10k_10k(b *testing.B) {
	xs := expSample(10_000, 2)
	o := BootstrapOptions{Resamples: 10000, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		Bootstrap(xs, MeanStatistic(), o)
	}
}

func BenchmarkCompareMedian_100k(b *testing.B) {
	x, y := expSample(100_000, 3), expSample(100_000, 4)
	b.ReportAllocs()
	for b.Loop() {
		Compare(x, y, DefaultCompare)
	}
}

func BenchmarkKolmogorovSmirnovExact_10k(b *testing.B) {
	x, y := expSample(10_000, 5), expSample(9_000, 6)
	b.ReportAllocs()
	for b.Loop() {
		KolmogorovSmirnov(x, y)
	}
}

func BenchmarkEarlyStoppingPercentile_270k(b *testing.B) {
	xs := make([]float64, 270336)
	b.ReportAllocs()
	for b.Loop() {
		EarlyStoppingPercentile(xs, 0.9)
	}
}
