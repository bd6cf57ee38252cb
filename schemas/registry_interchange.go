package schemas

// Definitions that the interchange formats and the tools behind them need
// and no earlier definition fits: inference-perf (and the llm-d Benchmark
// Reports it writes), genai-bench, MLPerf Endpoints, the server-side
// Prometheus summaries inference-perf scrapes, and GPU energy over a run
// (vllm bench throughput, AIPerf). Each says how it differs from its
// nearest core definition; the format notes are docs/formats/*.md.

// Units these definitions add.
const (
	UnitJoulesPerToken = "J/token"
)

// Events and windows of these definitions.
const (
	evFirstSent = "first request sent"
	evLastSent  = "last request sent"

	// WindowSend is the span of the send times: it ends when the last
	// request leaves, not when it completes (inference-perf send_duration).
	WindowSend = evFirstSent + " -> " + evLastSent
	// WindowRun is the load generator's own timer around its run; it can
	// end after the last completion (a time-limited run) or before the
	// tool's cool-down (genai-bench run_duration).
	WindowRun = "load generator run start -> run end, as the tool times it"
	// WindowLoadGenIssued is MLPerf Endpoints' legacy LoadGen window.
	WindowLoadGenIssued = "first tracked sample issued -> completion of the last-issued sample that completed"
	// WindowServerScrape is a Prometheus rate over the benchmark.
	WindowServerScrape = "the server's Prometheus counters, as a rate over the benchmark's scrape window"
	// WindowEnergy is the span a tool brackets with energy-counter
	// readings.
	WindowEnergy = "the tool's energy-metering window: first -> last reading of each GPU's cumulative energy counter"
)

var interchangeDefinitions = []MetricDef{
	// inference-perf (docs/formats/inference-perf.md).
	{ID: ITLTokenChunkStamped, Name: "ITL (per token, chunk-stamped)", Unit: UnitSeconds, Level: LevelChunk,
		From: "an output token, stamped with the arrival of the chunk that carried it", To: "the next output token of the same request, stamped the same way",
		Population:  "gaps between consecutive output tokens of successful streamed requests, pooled over requests",
		Direction:   LowerIsBetter,
		Description: "inference-perf's inter_token_latency: every token of a chunk gets the chunk's arrival time, so gaps inside a chunk are 0 and the gap between chunks is counted once. Equals itl_chunk when every chunk carries one token; its mean is total decode time / total decode gaps, token-weighted."},
	{ID: TPOTInclTTFTZeroFilled, Name: "TPOT including TTFT (0 for empty outputs)", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: evLastOutput,
		Formula:    "e2e / output_tokens, and 0 for a request with 0 output tokens",
		Population: "successful requests, those with 0 output tokens counted as 0", Direction: LowerIsBetter,
		Description: "inference-perf's normalized_time_per_output_token (NTPOT) in its lifecycle reports: like tpot_incl_ttft, but a successful request that returned no tokens adds a 0 instead of being left out, which pulls the mean and low percentiles down."},
	{ID: TPOTPerChunk, Name: "TPOT (per chunk)", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstOutput, To: evLastOutput,
		Formula:    "(t_last_chunk - t_first_chunk) / (streamed chunks - 1), per request",
		Population: "successful streamed requests with at least two chunks", Direction: LowerIsBetter,
		Description: "A per-request mean gap between chunks, not tokens (inference-perf up to v0.2.x divided by the number of recorded timestamps - 1). Equals tpot only when every chunk carries one token."},
	{ID: SendSpan, Name: "Send span", Unit: UnitSeconds, Level: LevelRun,
		From: evFirstSent, To: evLastSent,
		Population: "all requests sent, successful and failed", Direction: NoDirection,
		Description: "How long the load generator took to send its requests (inference-perf send_duration, and BR v0.1 metrics.time.duration from inference-perf). Not a throughput window: it ends before the last responses arrive, so requests / send span is not a completion rate."},
	{ID: AchievedSendRate, Name: "Achieved send rate", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "requests sent, successful and failed", Denominator: "window length", Window: WindowSend,
		Population: "all requests sent", Direction: NoDirection,
		Description: "The arrival rate the load generator achieved (inference-perf achieved_rate), to compare with the requested rate; not a throughput."},
	{ID: E2EFailed, Name: "E2E latency (failed requests)", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: "the error response, or the client giving up",
		Population: "failed requests", Direction: NoDirection,
		Description: "How long failed requests took (inference-perf failures.request_latency)."},

	// genai-bench (docs/formats/genai-bench.md).
	{ID: DecodeSpan, Name: "Decode time", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstOutput, To: evLastOutput,
		Formula:    "e2e - ttft, per request",
		Population: "successful streamed requests", Direction: LowerIsBetter,
		Description: "The request's time after its first token (genai-bench output_latency)."},
	{ID: RequestThroughputRun, Name: "Request throughput (run timer)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "successful requests", Denominator: "window length", Window: WindowRun,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Completed requests per second of the load generator's run time (genai-bench requests_per_second)."},
	{ID: InputTokenThroughputRun, Name: "Input token throughput (run timer)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt tokens of successful requests", Denominator: "window length", Window: WindowRun,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "genai-bench mean_input_throughput_tokens_per_s: despite its name a total over the run time, not a mean of per-request rates."},
	{ID: OutputTokenThroughputRun, Name: "Output token throughput (run timer)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "output tokens of successful requests", Denominator: "window length", Window: WindowRun,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "genai-bench mean_output_throughput_tokens_per_s: despite its name a total over the run time, not a mean of per-request rates."},
	{ID: TotalTokenThroughputRun, Name: "Total token throughput (run timer)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt + output tokens of successful requests", Denominator: "window length", Window: WindowRun,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "genai-bench mean_total_tokens_throughput_tokens_per_s: a total over the run time."},
	{ID: ArrivalRateRun, Name: "Arrival rate (run timer)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "requests sent, successful and failed", Denominator: "window length", Window: WindowRun,
		Population: "all requests sent", Direction: NoDirection,
		Description: "The rate requests were sent at over the run time (genai-bench arrival_requests_per_second); not a throughput."},

	// MLPerf Endpoints (docs/formats/mlperf-endpoints.md).
	{ID: TPOTAfterFirstChunk, Name: "TPOT (after the first chunk)", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstOutput, To: "completion of the response",
		Formula:    "(t_complete - t_first_chunk) / (output tokens - tokens of the first chunk), per request",
		Population: "completed streamed samples", Direction: LowerIsBetter,
		Description: "MLPerf Endpoints' tpot: the tokens of the first chunk are taken out of the count, not just one token, so it equals tpot only when the first chunk carries one token."},
	{ID: RequestThroughputLoadGenWindow, Name: "Request throughput (LoadGen window)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "completed samples - 1", Denominator: "window length", Window: WindowLoadGenIssued,
		Population: "tracked samples", Direction: HigherIsBetter,
		Description: "MLPerf Endpoints' qps when legacy_loadgen_window_duration_ns is set: LoadGen's completed-samples rate, but timed from the first issue rather than the first scheduled time."},
	{ID: OutputTokenThroughputLoadGenWindow, Name: "Output token throughput (LoadGen window)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "output tokens of all completed tracked samples", Denominator: "window length", Window: WindowLoadGenIssued,
		Population: "tracked samples", Direction: HigherIsBetter,
		Description: "MLPerf Endpoints' tps when legacy_loadgen_window_duration_ns is set; unlike the qps beside it the numerator has no -1."},
	{ID: TTFTEarlyStopping, Name: "TTFT early-stopping estimate", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: evFirstOutput,
		Formula:    "LoadGen's early-stopping upper bound of a TTFT percentile at confidence 0.99",
		Population: "completed streamed samples", Direction: LowerIsBetter,
		Description: "MLPerf Endpoints' early_stopping_percentiles of ttft: like ttft_scheduled_early_stopping, but over TTFTs timed from the issue, not the schedule. Missing when there are too few samples."},
	{ID: E2EEarlyStopping, Name: "E2E latency early-stopping estimate", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: "completion of the response",
		Formula:    "LoadGen's early-stopping upper bound of a latency percentile at confidence 0.99",
		Population: "completed samples", Direction: LowerIsBetter,
		Description: "MLPerf Endpoints' early_stopping_percentiles of latency, timed from the issue."},
	{ID: TPOTAfterFirstChunkEarlyStopping, Name: "TPOT early-stopping estimate (after the first chunk)", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstOutput, To: "completion of the response",
		Formula:    "LoadGen's early-stopping upper bound of a tpot_after_first_chunk percentile at confidence 0.99",
		Population: "completed streamed samples", Direction: LowerIsBetter,
		Description: "MLPerf Endpoints' early_stopping_percentiles of tpot."},

	// Server-side metrics scraped from the engine (inference-perf's
	// Prometheus summaries of vLLM's histograms and counters).
	{ID: ServerTTFT, Name: "TTFT (server)", Unit: UnitSeconds, Level: LevelRequest,
		From: "the engine receives the request", To: "the engine emits the first token",
		Population: "requests the server finished during the scrape window (all clients)", Direction: LowerIsBetter,
		Description: "The engine's own time to first token (vLLM vllm:time_to_first_token_seconds): no network or client time, but any other client's traffic is included. Percentiles are estimated from histogram buckets."},
	{ID: ServerTPOT, Name: "TPOT (server)", Unit: UnitSeconds, Level: LevelChunk,
		From: "an output token emitted by the engine", To: "the next output token of the same request",
		Population: "output tokens the server emitted during the scrape window (all clients)", Direction: LowerIsBetter,
		Description: "The engine's time per output token after the first (vLLM vllm:time_per_output_token_seconds, one observation per decode step). Percentiles are estimated from histogram buckets."},
	{ID: ServerE2E, Name: "E2E latency (server)", Unit: UnitSeconds, Level: LevelRequest,
		From: "the engine receives the request", To: "the engine finishes the request",
		Population: "requests the server finished during the scrape window (all clients)", Direction: LowerIsBetter,
		Description: "The engine's request latency (vLLM vllm:e2e_request_latency_seconds). Percentiles are estimated from histogram buckets."},
	{ID: ServerRequestThroughput, Name: "Request throughput (server)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "requests the server finished", Denominator: "window length", Window: WindowServerScrape,
		Population: "all requests the server saw", Direction: HigherIsBetter,
		Description: "The server's finished-request counter as a rate; other clients' traffic is included."},
	{ID: ServerInputTokenThroughput, Name: "Input token throughput (server)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt tokens the server processed", Denominator: "window length", Window: WindowServerScrape,
		Population: "all requests the server saw", Direction: HigherIsBetter,
		Description: "The server's prompt-token counter as a rate (prefix-cache hits included)."},
	{ID: ServerOutputTokenThroughput, Name: "Output token throughput (server)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "tokens the server generated", Denominator: "window length", Window: WindowServerScrape,
		Population: "all requests the server saw", Direction: HigherIsBetter,
		Description: "The server's generation-token counter as a rate."},

	// Energy over a run (docs/formats/vllm-bench.md, aiperf-energy.md).
	{ID: GPUEnergy, Name: "GPU energy", Unit: UnitJoules, Level: LevelRun,
		Formula:    "sum over the distinct GPUs of (last - first) cumulative energy-counter reading in the window",
		Window:     WindowEnergy,
		Population: "the GPUs the tool metered, each counted once (two exporters reporting one GPU count once)", Direction: LowerIsBetter,
		Description: "Whole-board energy of the metered GPUs over the run, idle draw included; host, network and cooling are not counted. A counter reset in the window makes it unknown."},
	{ID: GPUAvgPower, Name: "GPU average power", Unit: UnitWatts, Level: LevelRun,
		Formula:    "gpu_energy / window length",
		Window:     WindowEnergy,
		Population: "the GPUs the tool metered, summed", Direction: LowerIsBetter,
		Description: "Counter-derived mean power of all metered GPUs together (not per GPU). It need not equal the mean of sampled board power, which averages instantaneous readings."},
	{ID: GPUEnergyPerOutputToken, Name: "GPU energy per output token", Unit: UnitJoulesPerToken, Level: LevelRun,
		Formula:    "gpu_energy / output tokens of the run",
		Window:     WindowEnergy,
		Population: "the GPUs the tool metered; the run's output tokens", Direction: LowerIsBetter,
		Description: "Energy per generated token (vllm bench throughput gpu_energy_per_output_token_j). The energy window may be longer than the generation itself (vLLM's includes request preparation)."},
}
