package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// Quantity formats a value stored in a registry unit for people: durations
// in the largest of s, ms and µs that keeps the number at or above 1, other
// units as they are, with four significant digits.
func Quantity(v float64, unit string) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	if unit == schemas.UnitSeconds {
		a := math.Abs(v)
		switch {
		case a == 0:
			return "0 s"
		case a < 1e-3:
			return Sig(v*1e6, 4) + " µs"
		case a < 1:
			return Sig(v*1e3, 4) + " ms"
		}
		return Sig(v, 4) + " s"
	}
	if unit == schemas.UnitRatio {
		return Sig(v*100, 4) + " %"
	}
	if unit == "" {
		return Sig(v, 4)
	}
	return Sig(v, 4) + " " + unit
}

// Sig formats v with n significant digits without an exponent for
// everyday magnitudes, keeping integers whole.
func Sig(v float64, n int) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	a := math.Abs(v)
	if a >= 1e15 || a < 1e-4 {
		return strconv.FormatFloat(v, 'g', n, 64)
	}
	digits := n - 1 - int(math.Floor(math.Log10(a)))
	if digits < 0 {
		digits = 0
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// QuantityRange formats a value with an interval in one display scale:
// "36.18 [34.9, 37.6] ms".
func QuantityRange(v, lo, hi float64, unit string) string {
	scale, suffix := 1.0, unit
	switch unit {
	case schemas.UnitSeconds:
		a := math.Abs(v)
		switch {
		case a == 0:
		case a < 1e-3:
			scale, suffix = 1e6, "µs"
		case a < 1:
			scale, suffix = 1e3, "ms"
		}
	case schemas.UnitRatio:
		scale, suffix = 100, "%"
	}
	s := Sig(v*scale, 4) + " [" + Sig(lo*scale, 4) + ", " + Sig(hi*scale, 4) + "]"
	if suffix != "" {
		s += " " + suffix
	}
	return s
}
