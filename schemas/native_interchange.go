package schemas

// Native names of the interchange formats and the tools behind them
// (docs/formats/llmd-br.md, inference-perf.md, genai-bench.md,
// mlperf-endpoints.md, vllm-bench.md, aiperf-energy.md).

// llmdbrNatives maps the llm-d Benchmark Report's fields, which hold the
// producing tool's definitions: the mapping depends on the producer.
var llmdbrNatives = []Native{
	{Metric: TTFT, Tool: "llmd-br", Names: "latency.time_to_first_token", Versions: "0.1, 0.2, 0.2.1", Note: "any producer"},
	{Metric: TPOT, Tool: "llmd-br", Names: "latency.time_per_output_token", Versions: "0.1, 0.2, 0.2.1", Note: "any producer"},
	{Metric: ITLTokenChunkStamped, Tool: "llmd-br", Names: "latency.inter_token_latency", Versions: "0.1, 0.2, 0.2.1", Note: "from inference-perf"},
	{Metric: ITLChunk, Tool: "llmd-br", Names: "latency.inter_token_latency", Versions: "0.1, 0.2, 0.2.1", Note: "from vLLM, or a producer verdict has not checked (flagged)"},
	{Metric: TPOTInclTTFTZeroFilled, Tool: "llmd-br", Names: "latency.normalized_time_per_output_token", Versions: "0.1, 0.2", Note: "from inference-perf's lifecycle summaries"},
	{Metric: TPOTInclTTFT, Tool: "llmd-br", Names: "latency.normalized_time_per_output_token", Versions: "0.2.1", Note: "inference-perf's own writer, or an unchecked producer"},
	{Metric: E2E, Tool: "llmd-br", Names: "latency.request_latency", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: InputTokens, Tool: "llmd-br", Names: "requests.input_length", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: OutputTokens, Tool: "llmd-br", Names: "requests.output_length", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: RequestThroughput, Tool: "llmd-br", Names: "throughput.request_rate (0.1: requests_per_sec)", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: InputTokenThroughput, Tool: "llmd-br", Names: "throughput.input_token_rate (0.1: input_tokens_per_sec)", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: OutputTokenThroughput, Tool: "llmd-br", Names: "throughput.output_token_rate (0.1: output_tokens_per_sec)", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: TotalTokenThroughput, Tool: "llmd-br", Names: "throughput.total_token_rate (0.1: total_tokens_per_sec)", Versions: "0.1, 0.2, 0.2.1"},
	{Metric: SendSpan, Tool: "llmd-br", Names: "metrics.time.duration", Versions: "0.1", Note: "from inference-perf: its send_duration"},
}

// inferencePerfNatives maps inference-perf's lifecycle and Prometheus
// summaries (reportgen/base.py).
var inferencePerfNatives = []Native{
	{Metric: E2E, Tool: "inference-perf", Names: "successes.latency.request_latency", Versions: "v0.2+"},
	{Metric: TTFT, Tool: "inference-perf", Names: "successes.latency.time_to_first_token", Versions: "v0.2+", Note: "streamed requests with more than one token time"},
	{Metric: TPOT, Tool: "inference-perf", Names: "successes.latency.time_per_output_token", Versions: "v0.5+"},
	{Metric: TPOTPerChunk, Tool: "inference-perf", Names: "successes.latency.time_per_output_token", Versions: "v0.2..v0.4", Note: "divided by the recorded timestamps - 1"},
	{Metric: ITLTokenChunkStamped, Tool: "inference-perf", Names: "successes.latency.inter_token_latency", Versions: "v0.2+", Note: "v0.5.0 counts a BOS per chunk: many 0 gaps"},
	{Metric: TPOTInclTTFTZeroFilled, Tool: "inference-perf", Names: "successes.latency.normalized_time_per_output_token", Versions: "v0.2+"},
	{Metric: InputTokens, Tool: "inference-perf", Names: "successes.prompt_len", Versions: "v0.2+"},
	{Metric: OutputTokens, Tool: "inference-perf", Names: "successes.output_len", Versions: "v0.2+", Note: "inflated in v0.5.0 (a BOS per chunk)"},
	{Metric: InputTokensUsage, Tool: "inference-perf", Names: "successes.prompt_tokens", Versions: "after v0.5"},
	{Metric: OutputTokensUsage, Tool: "inference-perf", Names: "successes.output_tokens", Versions: "after v0.5"},
	{Metric: UsageDiscrepancyRequests, Tool: "inference-perf", Names: "successes.token_count_mismatches", Versions: "v0.5+"},
	{Metric: RequestThroughput, Tool: "inference-perf", Names: "successes.throughput.requests_per_sec", Versions: "v0.2+", Note: "min(start) -> max(end) over every request, failures included"},
	{Metric: InputTokenThroughput, Tool: "inference-perf", Names: "successes.throughput.input_tokens_per_sec", Versions: "v0.2+"},
	{Metric: OutputTokenThroughput, Tool: "inference-perf", Names: "successes.throughput.output_tokens_per_sec", Versions: "v0.2+"},
	{Metric: TotalTokenThroughput, Tool: "inference-perf", Names: "successes.throughput.total_tokens_per_sec", Versions: "v0.2+"},
	{Metric: ClientQueue, Tool: "inference-perf", Names: "load_summary.schedule_delay", Versions: "v0.2+", Note: "start - scheduled time; slightly negative values are normal"},
	{Metric: SendSpan, Tool: "inference-perf", Names: "load_summary.send_duration", Versions: "v0.2+"},
	{Metric: AchievedSendRate, Tool: "inference-perf", Names: "load_summary.achieved_rate", Versions: "v0.2+"},
	{Metric: E2EFailed, Tool: "inference-perf", Names: "failures.request_latency", Versions: "v0.2+"},
	{Metric: InputTokensFailed, Tool: "inference-perf", Names: "failures.prompt_len, failures.prompt_tokens", Versions: "v0.2+"},
	{Metric: Goodput, Tool: "inference-perf", Names: "successes.goodput_metrics.request_goodput", Versions: "v0.4+"},
	{Metric: GoodRequests, Tool: "inference-perf", Names: "successes.goodput_metrics.good_requests", Versions: "v0.4+"},
	{Metric: ServerTTFT, Tool: "inference-perf", Names: "Prometheus summary successes.time_to_first_token", Versions: "v0.2+"},
	{Metric: ServerTPOT, Tool: "inference-perf", Names: "Prometheus summary successes.time_per_output_token", Versions: "v0.2+"},
	{Metric: ServerE2E, Tool: "inference-perf", Names: "Prometheus summary successes.request_latency", Versions: "v0.2+"},
	{Metric: ServerRequestThroughput, Tool: "inference-perf", Names: "Prometheus summary successes.rate", Versions: "v0.2+"},
	{Metric: ServerInputTokenThroughput, Tool: "inference-perf", Names: "Prometheus summary successes.prompt_len.rate", Versions: "v0.2+"},
	{Metric: ServerOutputTokenThroughput, Tool: "inference-perf", Names: "Prometheus summary successes.output_len.rate", Versions: "v0.2+"},
}

// genaiBenchNatives maps genai-bench's result JSON
// (aggregated_metrics_collector.py, request_metrics_collector.py).
var genaiBenchNatives = []Native{
	{Metric: TTFT, Tool: "genai-bench", Names: "ttft, stats.ttft", Versions: "0.0.1+", Note: "falls back to the end time when no chunk arrived"},
	{Metric: TPOT, Tool: "genai-bench", Names: "tpot, stats.tpot", Versions: "0.0.1+"},
	{Metric: E2E, Tool: "genai-bench", Names: "e2e_latency, stats.e2e_latency", Versions: "0.0.1+"},
	{Metric: DecodeSpan, Tool: "genai-bench", Names: "output_latency, stats.output_latency", Versions: "0.0.1+"},
	{Metric: OutputTokenRatePerUser, Tool: "genai-bench", Names: "output_inference_speed (= output_throughput)", Versions: "0.0.1+"},
	{Metric: PrefillRatePerUser, Tool: "genai-bench", Names: "input_throughput", Versions: "0.0.1+"},
	{Metric: InputTokens, Tool: "genai-bench", Names: "num_input_tokens", Versions: "0.0.1+", Note: "server usage when given"},
	{Metric: OutputTokens, Tool: "genai-bench", Names: "num_output_tokens", Versions: "0.0.1+", Note: "server usage when given"},
	{Metric: ReasoningTokens, Tool: "genai-bench", Names: "num_reasoning_tokens", Versions: "0.0.3+"},
	{Metric: RequestThroughputRun, Tool: "genai-bench", Names: "requests_per_second", Versions: "0.0.1+"},
	{Metric: InputTokenThroughputRun, Tool: "genai-bench", Names: "mean_input_throughput_tokens_per_s", Versions: "0.0.1+", Note: "a total over run_duration, not a mean"},
	{Metric: OutputTokenThroughputRun, Tool: "genai-bench", Names: "mean_output_throughput_tokens_per_s", Versions: "0.0.1+", Note: "a total over run_duration, not a mean"},
	{Metric: TotalTokenThroughputRun, Tool: "genai-bench", Names: "mean_total_tokens_throughput_tokens_per_s", Versions: "0.0.1+"},
	{Metric: ArrivalRateRun, Tool: "genai-bench", Names: "arrival_requests_per_second", Versions: "async runner (PR #132)"},
	{Metric: ErrorRate, Tool: "genai-bench", Names: "error_rate", Versions: "0.0.1+"},
}

// mlperfEndpointsNatives maps MLPerf Endpoints' result_summary.json
// (metrics/report.py).
var mlperfEndpointsNatives = []Native{
	{Metric: TTFT, Tool: "mlperf-endpoints", Names: "ttft (ns)", Versions: "2026+", Note: "recv_first - issued; percentiles numpy lower"},
	{Metric: E2E, Tool: "mlperf-endpoints", Names: "latency (ns)", Versions: "2026+", Note: "complete - issued; failed samples complete too"},
	{Metric: TPOTAfterFirstChunk, Tool: "mlperf-endpoints", Names: "tpot (ns per token)", Versions: "2026+"},
	{Metric: OutputTokens, Tool: "mlperf-endpoints", Names: "output_sequence_lengths", Versions: "2026+"},
	{Metric: InputTokens, Tool: "mlperf-endpoints", Names: "input_sequence_lengths", Versions: "2026-08+"},
	{Metric: TTFTEarlyStopping, Tool: "mlperf-endpoints", Names: "ttft.early_stopping_percentiles", Versions: "2026+"},
	{Metric: E2EEarlyStopping, Tool: "mlperf-endpoints", Names: "latency.early_stopping_percentiles", Versions: "2026+"},
	{Metric: TPOTAfterFirstChunkEarlyStopping, Tool: "mlperf-endpoints", Names: "tpot.early_stopping_percentiles", Versions: "2026+"},
	{Metric: RequestThroughputLoadGenWindow, Tool: "mlperf-endpoints", Names: "qps (legacy_loadgen_window_duration_ns set)", Versions: "2026-06+"},
	{Metric: OutputTokenThroughputLoadGenWindow, Tool: "mlperf-endpoints", Names: "tps (legacy_loadgen_window_duration_ns set)", Versions: "2026-06+"},
	{Metric: RequestThroughput, Tool: "mlperf-endpoints", Names: "qps (legacy window null)", Versions: "2026-06+", Note: "over the tracked duration"},
	{Metric: OutputTokenThroughput, Tool: "mlperf-endpoints", Names: "tps (legacy window null)", Versions: "2026-06+"},
}

// energyNatives maps GPU energy over a run.
var energyNatives = []Native{
	{Metric: GPUEnergy, Tool: "vllm", Names: "gpu_energy_j (bench throughput --energy-gpu-ids)", Versions: "2026 (PR #56354)", Note: "NVML counters of the selected GPUs, summed"},
	{Metric: GPUAvgPower, Tool: "vllm", Names: "gpu_avg_power_w", Versions: "2026 (PR #56354)", Note: "over gpu_energy_duration_s, which includes request preparation"},
	{Metric: GPUEnergyPerOutputToken, Tool: "vllm", Names: "gpu_energy_per_output_token_j", Versions: "2026 (PR #56354)"},
	{Metric: GPUEnergy, Tool: "aiperf", Names: "telemetry_data ... energy_consumption (MJ), gpu_telemetry_export.jsonl energy_consumption", Versions: "0.2+", Note: "computed: last - first per GPU, counted once over exporters"},
	{Metric: GPUAvgPower, Tool: "aiperf", Names: "(computed) energy / telemetry window", Versions: "0.2+"},
	{Metric: GPUPower, Tool: "aiperf", Names: "gpu_telemetry_data ... metrics.gpu_power_usage.avg (W)", Versions: "0.2+",
		Note: "mean of the sampled board power of a run on one GPU; not the counter-derived gpu_avg_power"},
}
