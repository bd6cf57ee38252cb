package validate

import (
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/internal/units"
	"github.com/verdict-llm/verdict/schemas"
)

// Formatting of evidence values. The renderers never compute, so the
// values of findings are written here, with four significant digits.

const unknown = "unknown"

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

// sig formats v with four significant digits.
func sig(v float64) string { return units.Sig(v, 4) }

// quantity formats a value in a registry unit: durations in s, ms or µs.
func quantity(v float64, unit string) string { return units.Quantity(v, unit) }

func rateText(o schemas.Opt[float64]) string {
	switch {
	case !o.OK:
		return unknown
	case math.IsInf(o.V, 1):
		return "inf"
	}
	return sig(o.V) + " req/s"
}

func concurrencyText(o schemas.Opt[int64]) string {
	switch {
	case !o.OK:
		return unknown
	case o.V == 0:
		return "none"
	}
	return strconv.FormatInt(o.V, 10)
}

func intText(o schemas.Opt[int64]) string {
	if !o.OK {
		return unknown
	}
	return strconv.FormatInt(o.V, 10)
}

func floatText(o schemas.Opt[float64]) string {
	if !o.OK {
		return unknown
	}
	return sig(o.V)
}

func boolText(o schemas.Opt[bool]) string {
	switch {
	case !o.OK:
		return unknown
	case o.V:
		return "yes"
	}
	return "no"
}

func pctText(p float64) string {
	return "p" + strconv.FormatFloat(p, 'g', -1, 64)
}

func percent(x float64) string { return sig(100*x) + "%" }

// approxEqual compares two finite values with a relative tolerance of 1e-9.
func approxEqual(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// joinAnd joins words as "a, b and c".
func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
