package schemas

// mlperfNatives maps MLPerf LoadGen's logs (mlperf_log_detail.txt keys and
// mlperf_log_summary.txt labels) to definitions. LoadGen writes
// nanoseconds; verdict stores seconds. Percentiles are x[floor(n*p)]
// (nearest_rank_floor), means are truncated integer nanoseconds.
var mlperfNatives = []Native{
	{Metric: E2EScheduled, Tool: "mlperf", Names: "result_{min,max,mean}_latency_ns, result_XX.XX_percentile_latency_ns; summary Min/Max/Mean latency (ns), XX.XX percentile latency (ns), 90th|90.0th percentile latency (ns)", Versions: "LoadGen 1.0+"},
	{Metric: TTFTScheduled, Tool: "mlperf", Names: "result_first_token_{min,max,mean}_latency_ns, result_first_token_XX.XX_percentile_latency_ns; summary Min/Max/Mean First Token latency (ns), XX.XX percentile first token latency (ns)", Versions: "LoadGen 4.0+ (token latencies)"},
	{Metric: TPOTLoadGen, Tool: "mlperf", Names: "result_time_per_output_token_XX.XX_percentile_ns, result_time_to_output_token_{min,max,mean}; summary Min/Max/Mean Time to|per Output Token (ns), XX.XX percentile time to|per output token (ns)", Versions: "LoadGen 4.0+ (token latencies)",
		Note: "the summary label changed from 'Time to' to 'Time per' in PR #2360 (2025-10); detail keys unchanged"},
	{Metric: QueryLatencyScheduled, Tool: "mlperf", Names: "result_{min,max,mean}_query_latency_ns, result_XX.XX_percentile_per_query_latency_ns; MultiStream summary 99th|99.0th percentile latency (ns) and Per-query latency block", Versions: "LoadGen 1.1+"},
	{Metric: E2EScheduledEarlyStopping, Tool: "mlperf", Names: "early_stopping_latency_ss (p90), early_stopping_latency_ms (p99, SingleStream); summary 'Early stopping 90th|90.0th|99th|99.0th percentile estimate'", Versions: "LoadGen 2.0+"},
	{Metric: TTFTScheduledEarlyStopping, Tool: "mlperf", Names: "summary 'Early stopping Nth percentile estimate' under 'TTFT Early Stopping Result'; early_stopping_latency_ss of token-latency SingleStream runs", Versions: "LoadGen 4.0+",
		Note: "LoadGen runs TPOT then TTFT early stopping and keeps the last estimate in early_stopping_latency_ss"},
	{Metric: TPOTLoadGenEarlyStopping, Tool: "mlperf", Names: "summary 'Early stopping Nth percentile estimate' under 'TPOT Early Stopping Result'", Versions: "LoadGen 4.0+"},
	{Metric: QueryLatencyScheduledEarlyStopping, Tool: "mlperf", Names: "early_stopping_latency_ms (MultiStream); summary 'Early stopping 99th percentile estimate'", Versions: "LoadGen 2.0+"},
	{Metric: TTFTScheduledLimit, Tool: "mlperf", Names: "requested_server_ttft_latency; summary ttft_latency (ns)", Versions: "LoadGen 4.0+", Note: "stored for Server runs only"},
	{Metric: TPOTLoadGenLimit, Tool: "mlperf", Names: "requested_server_tpot_latency; summary tpot_latency (ns)", Versions: "LoadGen 4.0+", Note: "stored for Server runs only"},
	{Metric: E2EScheduledLimit, Tool: "mlperf", Names: "effective_target_latency_ns; summary target_latency (ns)", Versions: "LoadGen 1.0+", Note: "stored for Server runs when not 0"},
	{Metric: SampleThroughputCompleted, Tool: "mlperf", Names: "result_completed_samples_per_sec; summary Completed samples per second", Versions: "LoadGen 4.0+"},
	{Metric: SampleThroughputScheduled, Tool: "mlperf", Names: "result_scheduled_samples_per_sec; summary Scheduled samples per second", Versions: "LoadGen 1.0+"},
	{Metric: SampleThroughputIssued, Tool: "mlperf", Names: "result_qps_with_loadgen_overhead; summary QPS w/ loadgen overhead", Versions: "LoadGen 1.0+"},
	{Metric: SampleRateInverseMeanLatency, Tool: "mlperf", Names: "result_qps_without_loadgen_overhead; summary QPS w/o loadgen overhead", Versions: "LoadGen 1.0+"},
	{Metric: OfflineSampleThroughput, Tool: "mlperf", Names: "result_samples_per_second; summary Samples per second", Versions: "LoadGen 1.0+"},
	{Metric: OfflineOutputTokenThroughput, Tool: "mlperf", Names: "result_tokens_per_second; summary Tokens per second", Versions: "LoadGen 4.0+"},
	{Metric: OutputTokenThroughputCompleted, Tool: "mlperf", Names: "result_completed_tokens_per_second; summary Completed tokens per second", Versions: "LoadGen 4.1+"},
	{Metric: OutputTokenThroughputIssued, Tool: "mlperf", Names: "result_token_throughput_with_loadgen_overhead; summary TPS w/ loadgen overhead", Versions: "LoadGen 4.0+"},
	{Metric: OutputTokenRatePerLatency, Tool: "mlperf", Names: "result_token_throughput (tokens per ns, x1e9); summary TPS w/o loadgen overhead", Versions: "LoadGen 4.0+",
		Note: "the detail log's value is tokens per nanosecond (LoadGen divides by nanoseconds); converted to tokens/s and flagged"},
}
