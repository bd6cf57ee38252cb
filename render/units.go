package render

import (
	"math"

	"github.com/verdict-llm/verdict/internal/units"
	"github.com/verdict-llm/verdict/schemas"
)

// Quantity formats a value stored in a registry unit for people (see
// units.Quantity).
func Quantity(v float64, unit string) string { return units.Quantity(v, unit) }

// Sig formats v with n significant digits (see units.Sig).
func Sig(v float64, n int) string { return units.Sig(v, n) }

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
