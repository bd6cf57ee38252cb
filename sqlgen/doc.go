// Package sqlgen writes verdict's metric definitions as SQL, so that
// DuckDB, Spark and Trino compute verdict's numbers over a whole dataset
// (the Hive-partitioned Parquet that verdict export writes) and give the
// answers `verdict stats` gives.
//
// The script Write produces has four layers, each a view:
//
//   - verdict_runs, verdict_requests, verdict_metrics: the dataset's
//     table=runs, table=requests and table=metrics partitions.
//   - verdict_<definition>: one per request-level registry definition
//     that the requests table carries (ttft, tpot, itl_chunk, ...), one
//     observation per row over the definition's population (profiling
//     phase, status, streaming, the formula's inputs known), with the
//     definition ID, unit and schemas.RegistryVersion as columns. Rows of
//     runs whose version flags change the definition (validate's known
//     flags) are refused; verdict_refusals lists them.
//   - verdict_stat_count, verdict_stat_mean, verdict_stat_std,
//     verdict_stat_percentile and, under an SLO, verdict_goodput: one view
//     per run-level statistic, percentiles read with the declared method
//     exactly as stats.Quantile reads them.
//   - verdict_stats (run_id, metric_id, stat, percentile, value, source,
//     registry_version): what `verdict stats --ci 0` prints.
//
// The SQL of each definition is keyed by its schemas.MetricID; a
// definition the requests table cannot express has a documented reason
// instead (WithoutSQL). Functions lists every function each dialect's
// script calls, with a link to the engine's documentation.
package sqlgen
