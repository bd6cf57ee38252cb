package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lcgSeries regenerates the series of testdata/politis_white.py bit for
// bit: x[t] = phi x[t-1] + e[t], e uniform on (-0.5, 0.5) from a 64-bit
// LCG.
func lcgSeries(n int, phi float64, seed uint64) []float64 {
	state := seed
	xs := make([]float64, n)
	prev := 0.0
	for i := range xs {
		state = state*6364136223846793005 + 1442695040888963407
		e := float64(state>>11)/float64(1<<53) - 0.5
		prev = float64(phi*prev) + e
		xs[i] = prev
	}
	return xs
}

// TestPolitisWhiteReference compares every intermediate quantity with
// testdata/politis_white.py, a literal transcription of the authors'
// MATLAB code (Patton's opt_block_length_REV_dec07.m, Politis and White
// 2004 with the Patton-Politis-White 2009 correction).
func TestPolitisWhiteReference(t *testing.T) {
	trend := lcgSeries(100, 0, 5)
	for i := range trend {
		trend[i] += float64(i) / 100
	}
	for _, c := range []struct {
		name             string
		xs               []float64
		mhat, m          int
		r0, g, bigG      float64
		sb, cb           float64
		capped           bool
		wantMHatFromNone bool
	}{
		{"ar05_n60", lcgSeries(60, 0.5, 1), 2, 4, 0.09650012809179662, 0.24388497627053196, 0.23702001271743264, 3.8410538539204895, 4.39690905299715, false, false},
		{"ar09_n400", lcgSeries(400, 0.9, 2), 16, 25, 0.5523525897488422, 9.564686988467363, 61.552614085950324, 25.49199494167151, 29.18104968082887, false, false},
		{"walk_n200", lcgSeries(200, 1, 3), 16, 20, 0.8548327845403031, 15.005902617367093, 87.52218388625018, 18.94875497306102, 21.69090969631623, false, false},
		{"iid_n100", lcgSeries(100, 0, 4), 1, 2, 0.09667253185732105, 0.07810339643033903, -0.018569135426982016, 1.781344192716167, 2.0391300682918634, false, false},
		{"trend_n100", trend, 15, 15, 0.16826549560963655, 1.6689949364209795, 9.103053330888201, 14.382069353145368, 16.46335962593529, false, true},
	} {
		b := PolitisWhite(c.xs)
		if b.MHat != c.mhat || b.M != c.m {
			t.Errorf("%s: m^ %d M %d, want %d %d", c.name, b.MHat, b.M, c.mhat, c.m)
		}
		for _, q := range []struct {
			what      string
			got, want float64
		}{{"R(0)", b.Variance, c.r0}, {"g", b.LongRunVariance, c.g}, {"G", b.G, c.bigG}, {"b_SB", b.Stationary, c.sb}, {"b_CB", b.Circular, c.cb}} {
			if !close(q.got, q.want, 1e-12) {
				t.Errorf("%s: %s = %.17g, want %.17g", c.name, q.what, q.got, q.want)
			}
		}
		if b.Capped != c.capped || len(b.Warnings) != 0 {
			t.Errorf("%s: capped %v, warnings %v", c.name, b.Capped, b.Warnings)
		}
	}
}

// TestPolitisWhiteHand works one case by hand: the series 1, -1, 1, ...
// of n = 36 values. K_N = 5, m_max = ceil(6) + 5 = 11, b_max =
// ceil(min(18, 12)) = 12, and the threshold is 2 sqrt(log10(36)/36) =
// 0.40. Over the common window t = 11..35 (0-based) every correlation is
// exactly (-1)^k, all significant, so m^ is the largest lag, 11, and
// M = min(22, 11) = 11. The covariance window t = 11..35 holds 12 values
// +1 and 13 values -1 (mean -1/25), and lagged by k the same pattern times
// (-1)^k, so R(k) = (-1)^k (25 - 1/25)/24 = (-1)^k 1.04. With the flat-top
// weights 1 for k <= 5 and 2(1 - k/11) for k = 6..11:
// g = 1.04 (1 + 2 sum w_k (-1)^k) = 0.0945454..., G = 2.08 sum w_k k (-1)^k
// = 0.567272..., G/g = 6 exactly, so b_SB = 6^(2/3) 36^(1/3) = 10.9027 and
// b_CB = (3/2)^(1/3) b_SB = 12.48, capped at 12.
func TestPolitisWhiteHand(t *testing.T) {
	xs := make([]float64, 36)
	for i := range xs {
		xs[i] = 1 - 2*float64(i%2)
	}
	b := PolitisWhite(xs)
	if b.MHat != 11 || b.M != 11 {
		t.Fatalf("m^ %d M %d, want 11 11", b.MHat, b.M)
	}
	if !close(b.Variance, 1.04, 1e-12) || !close(b.LongRunVariance, 0.0945454545454545, 1e-9) || !close(b.G, 0.567272727272727, 1e-9) {
		t.Errorf("R0 %v g %v G %v", b.Variance, b.LongRunVariance, b.G)
	}
	// 6^(2/3) 36^(1/3) = 36^(1/3) 36^(1/3) = 36^(2/3).
	if want := math.Cbrt(36 * 36); !close(b.Stationary, want, 1e-9) || b.Circular != 12 || !b.Capped {
		t.Errorf("b_SB %v b_CB %v capped %v, want %v 12 true", b.Stationary, b.Circular, b.Capped, want)
	}
}

// TestPolitisWhiteAR1 checks consistency: for a Gaussian AR(1) with
// coefficient phi, R(k) = s^2 phi^|k|, so g = s^2 (1+phi)/(1-phi) and
// G = 2 s^2 phi/(1-phi)^2, G/g = 2 phi/(1-phi^2), and the optimal lengths
// are b_SB = (G/g)^(2/3) n^(1/3) and b_CB = (3/2)^(1/3) b_SB.
func TestPolitisWhiteAR1(t *testing.T) {
	const n, phi = 200000, 0.5
	xs := ar1(rand.New(rand.NewPCG(7, 7)), n, phi)
	b := PolitisWhite(xs)
	ratio := 2 * phi / (1 - phi*phi)
	wantSB := math.Pow(ratio, 2.0/3) * math.Cbrt(n)
	wantCB := math.Cbrt(1.5) * wantSB
	if math.Abs(b.Stationary/wantSB-1) > 0.2 || math.Abs(b.Circular/wantCB-1) > 0.2 {
		t.Errorf("b_SB %.1f b_CB %.1f, want about %.1f %.1f", b.Stationary, b.Circular, wantSB, wantCB)
	}
	if infl := b.Inflation(); math.Abs(infl/((1+phi)/(1-phi))-1) > 0.1 {
		t.Errorf("inflation %.3f, want about %.3f", infl, (1+phi)/(1-phi))
	}
}

func TestPolitisWhiteShortAndFlat(t *testing.T) {
	b := PolitisWhite(make([]float64, 10))
	if b.Stationary != 1 || b.Circular != 1 || !hasWarning(b.Warnings, "at least 32") {
		t.Errorf("short: %+v", b)
	}
	b = PolitisWhite(make([]float64, 100))
	if b.Stationary != 1 || !hasWarning(b.Warnings, "does not vary") {
		t.Errorf("flat: %+v", b)
	}
}

// ar1 draws n values of the stationary Gaussian AR(1) x[t] = phi x[t-1] +
// e[t], e ~ N(0, 1), started from its stationary distribution
// N(0, 1/(1-phi^2)) so that every value has that distribution.
func ar1(r *rand.Rand, n int, phi float64) []float64 {
	xs := make([]float64, n)
	x := r.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range xs {
		xs[i] = x
		x = phi*x + r.NormFloat64()
	}
	return xs
}
