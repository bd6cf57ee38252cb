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
//
// # Contents
//
//   - Percentiles: [Quantile] with [Linear] (numpy, vLLM, GenAI-Perf,
//     AIPerf, LLMPerf), [NearestRankFloor] (MLPerf LoadGen),
//     [NearestRankCumulative] (GuideLLM, float cumulative sums included) and
//     [LocustBuckets] (Locust, with [LocustRound]); [Mean] and [StdDev].
//   - Bootstrap intervals: [Bootstrap] for any [Statistic] (ready-made:
//     [QuantileStatistic], [MedianStatistic], [MeanStatistic]),
//     [BootstrapRatio] for a ratio of sums, [Jackknife] and
//     [BCaFromReplicates] as building blocks. Percentile and BCa intervals,
//     parallel, and deterministic for a seed ([BootstrapOptions]).
//   - MLPerf early stopping exactly as LoadGen computes it:
//     [EarlyStoppingH], [EarlyStoppingPercentile], [EarlyStoppingServer],
//     [EarlyStoppingMaxOverLatency].
//   - Goodput under latency SLOs: [ComputeGoodput].
//   - The highest request rate of a sweep meeting latency limits:
//     [MaxRateUnderLimits]; the capacity of a sweep under any limits,
//     interpolated, with a bootstrap interval over the whole sweep:
//     [CapacityUnderLimits], [CapacityRatioOf].
//   - Intervals for correlated requests: [SeriesBootstrap] with a
//     [Scheme] (i.i.d., circular block, stationary, effective sample
//     size), the block length from [PolitisWhite], and [RunsBootstrap],
//     a two-level bootstrap over repeated runs with the between- and
//     within-run variance and a [RunPlan].
//   - Steady state: [MSER5] truncation, GuideLLM's [SlopeTest] and
//     [InFlight] concurrency.
//   - Throughput against interactivity: [ParetoFrontier], [ThroughputAt].
//   - Change points in a history of runs: [EDivisive] (E-Divisive means
//     with a permutation test), [WeightedMean] (random-effects weights
//     from each run's own standard error).
//   - Comparing two samples like benchstat: [Compare], with the
//     [MannWhitneyU] rank test; [KolmogorovSmirnov] for distributions.
//
// # Conventions
//
// Functions panic on programmer errors (an unknown Method, p outside
// [0, 1], invalid options, mismatched slice lengths) and say so in their
// documentation. Data problems (an empty sample where a result can still be
// given, too few samples, a degenerate bootstrap) produce NaN fields and
// Warnings. Options are plain structs whose zero fields take documented
// defaults; DefaultBootstrap and DefaultCompare are values to copy.
//
// Results are reproducible: a bootstrap draws its random numbers from PCG
// streams fixed by the seed and the replicate's block, never from global
// state or goroutine scheduling, so the same inputs give bit-identical
// intervals for any number of cores on a given architecture. (Across
// architectures, fused multiply-add and the math library may change the
// last bits.)
package stats
