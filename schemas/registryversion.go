package schemas

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// RegistryVersion numbers the registry's definitions. It goes up by one
// whenever what a definition measures changes (its events, formula, unit,
// level, population, numerator, denominator or window) or a definition is
// added or removed; names, descriptions and the tools that report a metric
// may change without it. Numbers computed elsewhere from verdict's
// definitions (the SQL views of `verdict sql`) carry it, so that a
// warehouse can tell which definitions produced a number.
//
// TestRegistryVersion keeps it honest: it records the RegistryDigest of
// every version and fails when the definitions change under an old number.
const RegistryVersion = 1

// RegistryDigest is a SHA-256 over what every definition measures, in ID
// order (the fields RegistryVersion covers), in hexadecimal.
func RegistryDigest() string {
	defs := Registry()
	slices.SortFunc(defs, func(a, b MetricDef) int { return cmp.Compare(a.ID, b.ID) })
	h := sha256.New()
	for _, d := range defs {
		fields := []string{string(d.ID), d.Unit, string(d.Level), d.From, d.To, d.Formula, d.Population, d.Numerator, d.Denominator, d.Window}
		h.Write([]byte(strings.Join(fields, "\x1f") + "\x1e"))
	}
	return hex.EncodeToString(h.Sum(nil))
}
