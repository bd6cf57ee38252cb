// Package interop checks that verdict's bundles and datasets read correctly
// in a real engine, DuckDB, and measures the same percentile job in both.
// It is a separate module so that the main module does not depend on
// DuckDB's large cgo bindings; .ci/run runs its tests.
package interop
