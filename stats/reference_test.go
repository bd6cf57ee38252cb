package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// reference is testdata/reference.json, written by
// testdata/make_reference.py from numpy, scipy and transcriptions of the
// tools' own Python code.
type reference struct {
	Numpy, Scipy string
	Percentiles  []struct {
		Name                              string
		Data, P                           []float64
		Linear, Cumulative, Floor, Locust []float64
	}
	LocustRound []struct{ In, Out float64 } `json:"locust_round"`
	BCaFed      []struct {
		Name, Statistic    string
		Samples            [][]float64
		Estimate           float64
		Replicates         []float64
		Confidence, Lo, Hi float64
		DirectZ0           float64 `json:"direct_z0"`
		DirectA            float64 `json:"direct_a"`
		DirectLo           float64 `json:"direct_lo"`
		DirectHi           float64 `json:"direct_hi"`
	} `json:"bca_fed"`
	BCaFull []struct {
		Name, Statistic, Method string
		Data                    []float64
		Resamples               int
		Estimate, Lo, Hi        float64
		StdErr                  float64 `json:"stderr"`
	} `json:"bca_full"`
	MannWhitney []struct {
		Name string
		X, Y []float64
		U, P float64
	} `json:"mannwhitneyu"`
	KS []struct {
		Name    string
		X, Y    []float64
		Formula *struct {
			N1, N2 int
			Scale  float64
		}
		D, P float64
	} `json:"ks_2samp"`
}

func loadReference(t *testing.T) *reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// close reports whether got is within tol of want, relative to |want|
// when |want| > 1 and absolute otherwise.
func close(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// TestReferencePercentiles compares every method bit for bit with numpy
// and with transcriptions of GuideLLM's, LoadGen's and Locust's code.
func TestReferencePercentiles(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.Percentiles {
		s, _ := sortedCopy(c.Data)
		for i, p := range c.P {
			for _, m := range []struct {
				method Method
				want   float64
			}{
				{Linear, c.Linear[i]},
				{NearestRankCumulative, c.Cumulative[i]},
				{NearestRankFloor, c.Floor[i]},
				{LocustBuckets, c.Locust[i]},
			} {
				if got := Quantile(s, p, m.method); got != m.want {
					t.Errorf("%s p=%v %s: got %v, reference %v", c.Name, p, m.method, got, m.want)
				}
			}
		}
	}
}

func TestReferenceLocustRound(t *testing.T) {
	for _, c := range loadReference(t).LocustRound {
		if got := LocustRound(c.In); got != c.Out {
			t.Errorf("LocustRound(%v) = %v, Python %v", c.In, got, c.Out)
		}
	}
}

// refStatistic maps the reference's statistic names to Statistics.
func refStatistic(t *testing.T, name string) Statistic {
	switch name {
	case "mean":
		return MeanStatistic()
	case "median":
		return MedianStatistic()
	case "p90_linear":
		return QuantileStatistic(0.9, Linear)
	case "p99_floor":
		return QuantileStatistic(0.99, NearestRankFloor)
	case "std_ddof1":
		return Statistic{Name: "std", Func: func(s []float64) float64 { return StdDev(s, 1) }}
	}
	t.Fatalf("unknown reference statistic %q", name)
	return Statistic{}
}

// TestReferenceBCaFed feeds scipy's replicates to BCaFromReplicates with
// jackknife values computed by this package (exact O(1)/O(n) jackknives for
// quantiles and the mean, leave-one-out for a custom statistic). The
// interval must match scipy.stats.bootstrap's on those replicates to
// rounding error, and z0 and the acceleration must match a direct numpy
// computation.
func TestReferenceBCaFed(t *testing.T) {
	for _, c := range loadReference(t).BCaFed {
		var jack [][]float64
		var est float64
		if c.Statistic == "median_diff" {
			old, new := c.Samples[0], c.Samples[1]
			so, _ := sortedCopy(old)
			sn, _ := sortedCopy(new)
			mo, mn := Median(so), Median(sn)
			est = mn - mo
			jo := Jackknife(old, MedianStatistic())
			jn := Jackknife(new, MedianStatistic())
			for i := range jo {
				jo[i] = mn - jo[i]
			}
			for i := range jn {
				jn[i] = jn[i] - mo
			}
			jack = [][]float64{jo, jn}
		} else {
			s := refStatistic(t, c.Statistic)
			sorted, _ := sortedCopy(c.Samples[0])
			est = s.Func(sorted)
			jack = [][]float64{Jackknife(c.Samples[0], s)}
		}
		if !close(est, c.Estimate, 1e-13) {
			t.Errorf("%s: estimate %v, numpy %v", c.Name, est, c.Estimate)
		}
		iv := BCaFromReplicates(c.Estimate, c.Replicates, jack, c.Confidence)
		if !close(iv.Z0, c.DirectZ0, 1e-12) || !close(iv.Acceleration, c.DirectA, 1e-9) {
			t.Errorf("%s: z0 %v a %v, numpy %v %v", c.Name, iv.Z0, iv.Acceleration, c.DirectZ0, c.DirectA)
		}
		if !close(iv.Lo, c.Lo, 1e-12) || !close(iv.Hi, c.Hi, 1e-12) {
			t.Errorf("%s conf %v: [%v, %v], scipy [%v, %v]", c.Name, c.Confidence, iv.Lo, iv.Hi, c.Lo, c.Hi)
		}
	}
}

// TestReferenceBCaFull compares Bootstrap with scipy.stats.bootstrap on the
// same data and number of resamples. The replicates differ (different
// random numbers, and for quantiles a different but equivalent way of
// drawing them), so the endpoints agree only up to Monte Carlo error: with
// 100,000 replicates the 2.5% and 97.5% points of each bootstrap
// distribution carry a standard error near 0.012 bootstrap standard errors
// (SE), 0.017 SE for the difference of two. The tolerance is 0.07 SE
// (about 4 standard deviations). It is tight enough to fail on a wrong
// formula: the BCa and percentile intervals of the mean case differ by
// more, which the test checks too.
func TestReferenceBCaFull(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 replicates")
	}
	for _, c := range loadReference(t).BCaFull {
		s := refStatistic(t, c.Statistic)
		o := BootstrapOptions{Resamples: c.Resamples, Seed: 3, Method: IntervalMethod(c.Method)}
		iv := Bootstrap(c.Data, s, o)
		tol := 0.07 * c.StdErr
		if math.Abs(iv.Lo-c.Lo) > tol || math.Abs(iv.Hi-c.Hi) > tol {
			t.Errorf("%s (%s): [%.6g, %.6g], scipy [%.6g, %.6g], tolerance %.3g", c.Name, c.Method, iv.Lo, iv.Hi, c.Lo, c.Hi, tol)
		}
		if !close(iv.StdErr, c.StdErr, 0.02) {
			t.Errorf("%s: bootstrap SE %v, scipy %v", c.Name, iv.StdErr, c.StdErr)
		}
		if c.Name == "mean" {
			o.Method = Percentile
			pc := Bootstrap(c.Data, s, o)
			if math.Abs(pc.Lo-c.Lo) <= tol && math.Abs(pc.Hi-c.Hi) <= tol {
				t.Errorf("the percentile interval [%v, %v] passes the BCa tolerance: the test cannot tell them apart", pc.Lo, pc.Hi)
			}
		}
	}
}

func TestReferenceMannWhitney(t *testing.T) {
	for _, c := range loadReference(t).MannWhitney {
		r := MannWhitneyU(c.X, c.Y)
		if r.U != c.U {
			t.Errorf("%s: U = %v, scipy %v", c.Name, r.U, c.U)
		}
		if !close(r.P, c.P, 1e-10) && math.Abs(r.P-c.P) > 1e-10*c.P {
			t.Errorf("%s: p = %v (exact %v), scipy %v", c.Name, r.P, r.Exact, c.P)
		}
	}
}

func TestReferenceKS(t *testing.T) {
	for _, c := range loadReference(t).KS {
		x, y := c.X, c.Y
		if f := c.Formula; f != nil {
			// The reference's formula data: frac(i*phi) and
			// scale*frac(j*sqrt2), computed the same way in Python.
			const phi, s2 = 0.6180339887498949, 1.4142135623730951
			x, y = make([]float64, f.N1), make([]float64, f.N2)
			for i := range x {
				x[i] = math.Mod(float64(i+1)*phi, 1)
			}
			for j := range y {
				y[j] = f.Scale * math.Mod(float64(j+1)*s2, 1)
			}
		}
		r := KolmogorovSmirnov(x, y)
		if !close(r.D, c.D, 1e-15) {
			t.Errorf("%s: D = %v, scipy %v", c.Name, r.D, c.D)
		}
		if r.Exact {
			if math.Abs(r.P-c.P) > 1e-10*max(c.P, 1e-6) {
				t.Errorf("%s: exact p = %v, scipy %v", c.Name, r.P, c.P)
			}
			continue
		}
		// Asymptotic: Stephens' corrected Kolmogorov limit against scipy's
		// kstwo at round(e); documented agreement about 1e-3, or 10% of a
		// tiny p-value.
		if math.Abs(r.P-c.P) > 2e-3 && math.Abs(r.P-c.P) > 0.1*c.P {
			t.Errorf("%s: asymptotic p = %v, scipy %v", c.Name, r.P, c.P)
		}
	}
}
