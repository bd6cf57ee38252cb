package schemas

// guidellmNatives maps GuideLLM's benchmarks.json / .yaml to definitions.
// Generations (docs/formats/guidellm.md section 1): 0 is
// v0.1.x, A is v0.2.0-v0.3.x, B is v0.4.x, C is v0.5-v0.6, D is v0.7+.
// Distribution statistics are read from the status "successful"; from
// generation A on percentiles are nearest_rank_cumulative, std is
// population, and ms become seconds.
var guidellmNatives = []Native{
	{Metric: TTFT, Tool: "guidellm", Names: "metrics.time_to_first_token_ms; v0.1 time_to_first_token(_percentiles)", Versions: "v0.1+"},
	{Metric: TTFTAnswer, Tool: "guidellm", Names: "metrics.time_to_first_output_token_ms", Versions: "v0.7+", Note: "first non-reasoning token"},
	{Metric: E2E, Tool: "guidellm", Names: "metrics.request_latency (seconds); v0.1 request_latency(_percentiles)", Versions: "v0.1+"},
	{Metric: TPOTLastToken, Tool: "guidellm", Names: "metrics.inter_token_latency_ms", Versions: "v0.2-v0.3", Note: "one value per request (unweighted), timed to the last-token timestamp"},
	{Metric: TPOTTokenWeighted, Tool: "guidellm", Names: "metrics.inter_token_latency_ms; v0.1 inter_token_latency(_percentiles)", Versions: "v0.1, v0.4+",
		Note: "weighted by output_tokens - 1 (v0.1 repeats each request's value), so count is a token count; v0.1 percentiles are numpy linear"},
	{Metric: DecodeTimePerOutputToken, Tool: "guidellm", Names: "metrics.time_per_output_token_ms", Versions: "v0.2-v0.3", Note: "(last - first token) / output_tokens; excludes the TTFT"},
	{Metric: TPOTInclTTFTTokenWeighted, Tool: "guidellm", Names: "metrics.time_per_output_token_ms", Versions: "v0.4+", Note: "(last token - request start) / output_tokens, weighted by output_tokens"},
	{Metric: InputTokens, Tool: "guidellm", Names: "metrics.prompt_token_count; v0.1 prompt_token(_percentiles)", Versions: "v0.1+"},
	{Metric: OutputTokens, Tool: "guidellm", Names: "metrics.output_token_count; v0.1 output_token(_percentiles)", Versions: "v0.1+"},
	{Metric: RequestThroughputSpan, Tool: "guidellm", Names: "metrics.requests_per_second.successful.mean; v0.1 completed_request_rate", Versions: "v0.1-v0.3",
		Note: "rate-distribution mean from the earliest start to the last end (v0.1: first listed result's start to last listed result's end)"},
	{Metric: OutputTokenThroughputSpan, Tool: "guidellm", Names: "metrics.output_tokens_per_second.successful.mean; v0.1 output_token_throughput", Versions: "v0.1-v0.3"},
	{Metric: TotalTokenThroughputSpan, Tool: "guidellm", Names: "metrics.tokens_per_second.successful.mean", Versions: "v0.2-v0.3"},
	{Metric: RequestThroughputMeasured, Tool: "guidellm", Names: "metrics.requests_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: OutputTokenThroughputTokenEvents, Tool: "guidellm", Names: "metrics.output_tokens_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: TotalTokenThroughputTokenEvents, Tool: "guidellm", Names: "metrics.tokens_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: ConcurrencyInFlight, Tool: "guidellm", Names: "metrics.request_concurrency.successful", Versions: "v0.2+"},
}
