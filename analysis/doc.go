// Package analysis is verdict's application layer: the one place that
// opens bundles and datasets, selects the observations a question needs,
// pairs runs, derives per-request quantities, computes statistics with
// their intervals, validates, and costs runs. Each command of cmd/verdict
// maps its flags to one options struct here and makes one call; the
// finished model it gets back goes to package render (and render/xlsx,
// render/html, render/plot), which only formats it.
//
// The layering follows golang.org/x/perf's benchfmt -> benchproc ->
// benchmath -> benchstat:
//
//	files --ingest--> bundle (schemas: runs, requests, metrics)
//	      --analysis.Open, Observe--> observations per run and metric
//	      --stats (Estimate, Compare), validate, costing--> numbers, verdicts
//	      --analysis: StatsResult, Comparison, Report, ShowData, CostResult
//	      --render--> tables, Markdown, JSON, workbook, HTML, figures
//
// Small types sit at the seams and caveats travel as notes and warnings
// in the models, never as log lines:
//
//   - [Open] opens a bundle or a dataset; nothing else in verdict's
//     commands does.
//   - [Observe] selects a run's observations (Selection: phase, status,
//     streaming) and derives the per-request quantities with the one
//     function each has (schemas.Request.TPOT for TPOT).
//   - [MetricEstimate] computes a metric's mean and percentiles with the
//     interval stats.Estimate chooses; stats, compare and report all call
//     it, so the same run, metric, statistic and seed print the same value
//     and interval in every view and format.
//   - [PairRuns] pairs runs with validate.PairRuns, the same pairing the
//     pair rules check, so compare never prints numbers for a pair that
//     validation did not judge.
//   - [ComputeStats], [Compare], [LoadReport], [LoadShow], [Validate],
//     [Cost] and [Capacity] answer one command each. A later analysis
//     (trend) adds its own function and model beside them and reuses
//     Observe, MetricEstimate and PairRuns; render gains a formatter for
//     the new model without touching the others.
//   - [Capacity] recognises sweeps (validation's groups, a load axis,
//     repeats kept together), validates each load point, and finds each
//     configuration's capacity under an SLO with stats.CapacityUnderLimits,
//     its cost and energy at the capacity point, ratios where validation
//     pairs comparable load points, and Pareto frontiers.
package analysis
