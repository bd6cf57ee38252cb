// Package units formats values stored in the registry's units for people.
// Renderers and validation messages share it, so a number reads the same
// in a table, a finding and a workbook note.
package units

import (
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// Quantity formats a value stored in a registry unit: durations in the
// largest of s, ms and µs that keeps the number at or above 1, ratios as
// percentages, other units as they are, with four significant digits.
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
// everyday magnitudes, keeping integers whole; inf, -inf and nan for
// non-finite values.
func Sig(v float64, n int) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
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
