// Package stats provides the numerics verdict applies to benchmark
// measurements: percentiles with a declared method, means and standard
// deviations with a declared convention, and (built on those) bootstrap
// intervals, early stopping, goodput and comparisons.
//
// The package is pure: it works on float64 slices and knows nothing about
// files, Arrow records or tools. Every function that reproduces a tool's
// number takes the tool's convention as an argument (a [Method] for
// percentiles, a ddof for standard deviations), so a caller can always say
// how a number was computed. Statistical caveats are returned as warnings,
// never as errors.
package stats
