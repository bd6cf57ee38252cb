package jsonscan

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unsafe"
)

// Numbers are parsed to float64 here without strconv when that can be
// done exactly, which is nearly always: benchmark files hold latencies
// printed by Python's repr, 15 to 17 significant digits and no exponent,
// and strconv.ParseFloat spent most of a vLLM ingest's number time
// re-reading digits that fastFloat had already read. docs/floats.md
// explains the two exact methods, with their sources; whatever they
// cannot settle goes to strconv, so every value is strconv's, bit for bit
// (TestFloatExact, TestFloatRandom, FuzzFloat).

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat parses a number with at most 19 significant digits (and an
// optional exponent) to the correctly rounded float64: Clinger's fast
// path when the mantissa and the power of ten are both exact in a
// float64, else the Eisel-Lemire method. It returns false for anything
// else (more digits, an exponent out of range, a case Eisel-Lemire
// cannot decide, or text strconv would read differently or refuse), and
// the caller asks strconv.
func exactFloat(b []byte) (float64, bool) { return decimal(b, false) }

// jsonFloat is exactFloat for text that must also be a JSON number (one
// integer digit at least, no leading zero, a digit after the point): it
// checks the grammar as it parses, so that a caller need not run
// validNumber first. False means either; the caller then asks
// validNumber and strconv, as before.
func jsonFloat(b []byte) (float64, bool) { return decimal(b, true) }

func decimal(b []byte, strict bool) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		i, neg = 1, true
	}
	var mant uint64
	digits, exp, seen := 0, 0, false
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		seen = true
		if mant > 0 || b[i] != '0' {
			digits++
		}
		mant = mant*10 + uint64(b[i]-'0')
	}
	if strict && (i == start || b[start] == '0' && i-start > 1) {
		return 0, false // no integer digit, or a leading zero
	}
	if i < len(b) && b[i] == '.' {
		point := i
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			seen = true
			if mant > 0 || b[i] != '0' {
				digits++
			}
			mant = mant*10 + uint64(b[i]-'0')
			exp--
		}
		if strict && i == point+1 {
			return 0, false // no digit after the point
		}
	}
	if !seen || digits > 19 {
		return 0, false // no digits, or more than a uint64 holds
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, ok := exponent(b[i+1:])
		if !ok {
			return 0, false
		}
		exp += e
		i = len(b)
	}
	if i != len(b) {
		return 0, false
	}
	var f float64
	switch {
	case mant == 0:
		f = 0
	case mant <= 1<<53 && exp >= -22 && exp <= 22:
		// Clinger: one correctly rounded operation on two exact values.
		if exp < 0 {
			f = float64(mant) / pow10[-exp]
		} else {
			f = float64(mant) * pow10[exp]
		}
	default:
		var ok bool
		if f, ok = eiselLemire(mant, exp); !ok {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

// exponent reads an exponent's optional sign and digits (at least one).
// Exponents past a few thousand are reported as such (any of them is
// beyond the tables), never overflowed.
func exponent(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if e < 10000 {
			e = e*10 + int(c-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// The powers of ten Eisel-Lemire multiplies by: for q in [minPow10,
// maxPow10], the 128 leading bits of 10^q, rounded down, as hi:lo with
// the top bit of hi set. Beyond that range every float64 is 0 or +Inf,
// which strconv decides.
const (
	minPow10 = -348
	maxPow10 = 347
)

var pow10x128 = func() (t [maxPow10 - minPow10 + 1][2]uint64) {
	ten := big.NewInt(10)
	mask := new(big.Int).SetUint64(math.MaxUint64)
	for q := minPow10; q <= maxPow10; q++ {
		x := new(big.Int)
		if q >= 0 {
			// 10^q moved to 128 bits, cut below.
			x.Exp(ten, big.NewInt(int64(q)), nil)
			if n := x.BitLen(); n > 128 {
				x.Rsh(x, uint(n-128))
			} else {
				x.Lsh(x, uint(128-n))
			}
		} else {
			// 2^(127+L) / 10^-q, where L is the bit length of 10^-q: a
			// quotient in (2^127, 2^128), rounded down.
			d := new(big.Int).Exp(ten, big.NewInt(int64(-q)), nil)
			x.Lsh(big.NewInt(1), uint(127+d.BitLen()))
			x.Quo(x, d)
		}
		lo := new(big.Int).And(x, mask).Uint64()
		hi := new(big.Int).Rsh(x, 64).Uint64()
		t[q-minPow10] = [2]uint64{hi, lo}
	}
	return t
}()

// eiselLemire returns the float64 nearest to mant * 10^q (mant > 0), or
// false when the product's truncated bits leave the rounding in doubt or
// the result is not a normal float64 (docs/floats.md).
func eiselLemire(mant uint64, q int) (float64, bool) {
	if q < minPow10 || q > maxPow10 {
		return 0, false
	}
	// Normalise the mantissa so that its top bit is set.
	clz := bits.LeadingZeros64(mant)
	mant <<= uint(clz)
	// floor(log2(10^q)) is (q*217706)>>16 over this range of q; the
	// result's biased exponent before the product's own top bit is seen.
	exp2 := uint64((217706*q)>>16+64+1023) - uint64(clz)

	// The 128 high bits of mant times the power's 128 bits. The power is
	// rounded down, so the true product lies in [z, z+mant): when the
	// bits below the 54 kept ones are all ones, a carry from the dropped
	// part could change them, and the low half of the power is added.
	pw := &pow10x128[q-minPow10]
	hi, lo := bits.Mul64(mant, pw[0])
	if hi&0x1ff == 0x1ff && lo+mant < lo {
		mhi, mlo := bits.Mul64(mant, pw[1])
		var carry uint64
		lo, carry = bits.Add64(lo, mhi, 0)
		hi += carry
		if hi&0x1ff == 0x1ff && lo+1 == 0 && mlo+mant < mlo {
			return 0, false // still a possible carry: undecided
		}
	}
	// Keep 54 bits (53 and a rounding bit) below the product's top bit.
	top := hi >> 63
	m := hi >> (top + 9)
	exp2 -= 1 ^ top
	// Exactly halfway between two floats (nothing below the rounding
	// bit) cannot be told from just below it: undecided.
	if lo == 0 && hi&0x1ff == 0 && m&3 == 1 {
		return 0, false
	}
	// Round to nearest, ties to even, and renormalise on a carry out.
	m += m & 1
	m >>= 1
	if m>>53 > 0 {
		m >>= 1
		exp2++
	}
	if exp2-1 >= 0x7ff-1 {
		return 0, false // subnormal, zero or infinite: strconv's
	}
	return math.Float64frombits(exp2<<52 | m&(1<<52-1)), true
}

// parseFloat is strconv.ParseFloat of b without copying b: strconv keeps
// no reference to its argument (its errors hold a copy).
func parseFloat(b []byte) (float64, error) {
	if len(b) == 0 {
		return strconv.ParseFloat("", 64)
	}
	return strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
}
