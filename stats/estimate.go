package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// StudentT is the interval method of a mean's Student's t interval:
// mean ± t(1-(1-c)/2, n-1) s/sqrt(n), with s the sample standard deviation
// (ddof 1).
const StudentT IntervalMethod = "t"

// MaxMeanBootstrap is the largest sample whose mean is bootstrapped. A
// resampled mean costs n random reads per replicate (minutes at a million
// values) and adds nothing the central limit theorem does not give at this
// size, so a larger sample's mean gets Student's t interval instead.
const MaxMeanBootstrap = 10000

// IntervalMethodFor is the one place that chooses how the interval of
// statistic s over n values is computed: Student's t for a mean of more
// than MaxMeanBootstrap values, else the bootstrap with o.Method (BCa by
// default). Every interval verdict prints comes through it (see
// [Estimate]), so the same statistic, sample and seed get the same
// interval in every view.
func IntervalMethodFor(s Statistic, n int, o BootstrapOptions) IntervalMethod {
	if s.kind == meanStat && n > MaxMeanBootstrap {
		return StudentT
	}
	if o.Method == "" {
		return DefaultBootstrap.Method
	}
	return o.Method
}

// Estimate computes statistic s of xs with its confidence interval, by the
// method IntervalMethodFor chooses: Bootstrap, or StudentTInterval for a
// large sample's mean. xs need not be sorted and is not modified; the
// options are Bootstrap's.
func Estimate(xs []float64, s Statistic, o BootstrapOptions) Interval {
	if IntervalMethodFor(s, len(xs), o) == StudentT {
		conf := o.Confidence
		if conf == 0 {
			conf = DefaultBootstrap.Confidence
		}
		return StudentTInterval(Mean(xs), StdDev(xs, 1), len(xs), conf)
	}
	return Bootstrap(xs, s, o)
}

// StudentTInterval is the Student's t interval of a mean from its moments:
// the sample mean, the sample standard deviation (ddof 1) and the size n.
// It needs no values, so a sample held on disk (see internal/spill) gets
// the same interval as one held in memory. It panics if confidence is
// outside (0, 1); n < 2 gives NaN bounds with a warning.
func StudentTInterval(mean, sampleSD float64, n int, confidence float64) Interval {
	if !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("stats: confidence %v outside (0, 1)", confidence))
	}
	iv := Interval{Statistic: "mean", Estimate: mean, Confidence: confidence, Method: StudentT, N: n,
		Lo: math.NaN(), Hi: math.NaN(), StdErr: math.NaN(), Z0: math.NaN(), Acceleration: math.NaN()}
	if n < 2 || math.IsNaN(sampleSD) {
		iv.Warnings = append(iv.Warnings, fmt.Errorf("mean: %d values; no t interval", n))
		return iv
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.5 + confidence/2)
	iv.StdErr = sampleSD / math.Sqrt(float64(n))
	h := t * iv.StdErr
	iv.Lo, iv.Hi = mean-h, mean+h
	return iv
}
