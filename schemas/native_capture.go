package schemas

// captureNatives maps verdict's own load generator (verdict capture,
// package capture) to definitions. Capture times requests the way vLLM's
// benchmark does (docs/formats/vllm.md section 3, docs/formats/capture.md), on the monotonic
// clock, so its ttft, itl_chunk, tpot and e2e compare with vLLM's
// 2025-01-21+ numbers; its names are the bundle's own columns and metric
// rows (computed statistics). Samples come from NVML or a dcgm-exporter
// scrape.
var captureNatives = []Native{
	{Metric: TTFT, Tool: "verdict-capture", Names: "requests.ttft_s", Versions: "all",
		Note: "request written (after any concurrency wait) -> first SSE data event with a non-empty choices array, even if its text is empty or only reasoning, as vLLM"},
	{Metric: TTFTAnswer, Tool: "verdict-capture", Names: "requests.ttft_answer_s", Versions: "all",
		Note: "first event with non-empty text or delta/message content; reasoning_content and reasoning are not answers"},
	{Metric: ITLChunk, Tool: "verdict-capture", Names: "requests.chunk_gaps_s", Versions: "all",
		Note: "one gap per choice-bearing event, each stamped when the read that completed it returned; usage-only events and [DONE] are not chunks"},
	{Metric: TPOT, Tool: "verdict-capture", Names: "computed from requests: (e2e_s - ttft_s) / (output_tokens - 1)", Versions: "all",
		Note: "output tokens from the server's usage (stream_options.include_usage); requests with one token or without usage excluded"},
	{Metric: E2E, Tool: "verdict-capture", Names: "requests.e2e_s", Versions: "all",
		Note: "to the last choice-bearing event (streaming) or the end of the body (stream=false)"},
	{Metric: ClientQueue, Tool: "verdict-capture", Names: "requests.queue_s", Versions: "all",
		Note: "scheduled arrival (open loop) or stream free (closed loop) -> request written"},
	{Metric: InputTokens, Tool: "verdict-capture", Names: "requests.input_tokens (usage.prompt_tokens)", Versions: "all"},
	{Metric: OutputTokens, Tool: "verdict-capture", Names: "requests.output_tokens (usage.completion_tokens)", Versions: "all"},
	{Metric: ReasoningTokens, Tool: "verdict-capture", Names: "requests.reasoning_tokens (usage.completion_tokens_details.reasoning_tokens)", Versions: "all"},
	{Metric: RequestThroughput, Tool: "verdict-capture", Names: "computed", Versions: "all",
		Note: "window: first measured dispatch -> last measured completion, on the monotonic clock (runs.window_start/window_end)"},
	{Metric: OutputTokenThroughput, Tool: "verdict-capture", Names: "computed", Versions: "all"},
	{Metric: InputTokenThroughput, Tool: "verdict-capture", Names: "computed", Versions: "all"},
	{Metric: TotalTokenThroughput, Tool: "verdict-capture", Names: "computed", Versions: "all"},
	{Metric: PeakConcurrency, Tool: "verdict-capture", Names: "computed", Versions: "all"},
	{Metric: GPUUtilization, Tool: "verdict-capture", Names: "nvmlDeviceGetUtilizationRates().gpu; DCGM_FI_DEV_GPU_UTIL", Versions: "all"},
	{Metric: GPUMemoryUsed, Tool: "verdict-capture", Names: "nvmlDeviceGetMemoryInfo().used; DCGM_FI_DEV_FB_USED + FB_RESERVED (MiB)", Versions: "all",
		Note: "total - free: driver-reserved memory counts as used"},
	{Metric: GPUMemoryTotal, Tool: "verdict-capture", Names: "nvmlDeviceGetMemoryInfo().total; DCGM_FI_DEV_FB_TOTAL or FB_FREE + FB_USED + FB_RESERVED (MiB)", Versions: "all"},
	{Metric: GPUPower, Tool: "verdict-capture", Names: "nvmlDeviceGetPowerUsage (mW); DCGM_FI_DEV_POWER_USAGE (W)", Versions: "all"},
	{Metric: GPUEnergyCounter, Tool: "verdict-capture", Names: "nvmlDeviceGetTotalEnergyConsumption (mJ); DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ)", Versions: "all",
		Note: "sampled at the window's start and end as well as on the interval"},
	{Metric: GPUSMClock, Tool: "verdict-capture", Names: "nvmlDeviceGetClockInfo(NVML_CLOCK_SM); DCGM_FI_DEV_SM_CLOCK", Versions: "all"},
	{Metric: GPUTemperature, Tool: "verdict-capture", Names: "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU); DCGM_FI_DEV_GPU_TEMP", Versions: "all"},
}
