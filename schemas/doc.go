// Package schemas owns verdict's data model: the registry of metric
// definitions, the Arrow schemas of the runs, requests and metrics tables,
// the system-under-test inventory, and the result bundle on disk.
//
// # Definitions, not names
//
// Benchmark tools use the same names for different measurements: vLLM's
// "ITL" is the gap between streamed chunks, GenAI-Perf's is a per-request
// average over tokens; AIPerf's TTFT counts reasoning tokens, GenAI-Perf's
// does not. verdict therefore identifies every metric by a definition ID
// from the [Registry]: a definition states what is timed from which event
// to which event, the unit, the level (request, chunk, run), the
// population, and for rates the numerator, denominator and window. Two
// numbers are comparable only when their definition IDs are equal. Every
// metric column of the Arrow schemas carries its definition ID in field
// metadata (key [MetaMetric]), and every row of the metrics table names it.
//
// # Units
//
// Units are converted once, at ingest, into the registry's units: seconds
// for durations, tokens, requests, and per-second rates. Renderers scale for
// display.
//
// # Bundles
//
// A bundle is a directory holding manifest.json and one Parquet file per
// table, written with the stored Arrow schema so that field metadata
// survives and pyarrow, DuckDB and Spark read it. A [BundleWriter] writes it
// atomically (a temporary directory renamed into place); [OpenBundle] reads
// it back and refuses schema versions it does not know.
package schemas
