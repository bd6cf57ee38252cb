package schemas

// guidellmNatives maps GuideLLM's benchmarks.json / .yaml to definitions.
// Generations (shared/formats/mlperf-guidellm-llmperf.md section 2.1): 0 is
// v0.1.x, A is v0.2.0-v0.3.x, B is v0.4.x, C is v0.5-v0.6, D is v0.7+.
// Distribution statistics are read from the status "successful"; from
// generation A on percentiles are nearest_rank_cumulative, std is
// population, and ms become seconds.
var guidellmNatives = []Native{
	{Metric: "ttft", Tool: "guidellm", Names: "metrics.time_to_first_token_ms; v0.1 time_to_first_token(_percentiles)", Versions: "v0.1+"},
	{Metric: "ttft_answer", Tool: "guidellm", Names: "metrics.time_to_first_output_token_ms", Versions: "v0.7+", Note: "first non-reasoning token"},
	{Metric: "e2e", Tool: "guidellm", Names: "metrics.request_latency (seconds); v0.1 request_latency(_percentiles)", Versions: "v0.1+"},
	{Metric: "tpot", Tool: "guidellm", Names: "metrics.inter_token_latency_ms", Versions: "v0.2-v0.3", Note: "one value per request (unweighted)"},
	{Metric: "tpot_token_weighted", Tool: "guidellm", Names: "metrics.inter_token_latency_ms; v0.1 inter_token_latency(_percentiles)", Versions: "v0.1, v0.4+",
		Note: "weighted by output_tokens - 1 (v0.1 repeats each request's value), so count is a token count; v0.1 percentiles are numpy linear"},
	{Metric: "decode_time_per_output_token", Tool: "guidellm", Names: "metrics.time_per_output_token_ms", Versions: "v0.2-v0.3", Note: "(last - first token) / output_tokens; excludes the TTFT"},
	{Metric: "tpot_incl_ttft_token_weighted", Tool: "guidellm", Names: "metrics.time_per_output_token_ms", Versions: "v0.4+", Note: "(last token - request start) / output_tokens, weighted by output_tokens"},
	{Metric: "input_tokens", Tool: "guidellm", Names: "metrics.prompt_token_count; v0.1 prompt_token(_percentiles)", Versions: "v0.1+"},
	{Metric: "output_tokens", Tool: "guidellm", Names: "metrics.output_token_count; v0.1 output_token(_percentiles)", Versions: "v0.1+"},
	{Metric: "request_throughput_span", Tool: "guidellm", Names: "metrics.requests_per_second.successful.mean; v0.1 completed_request_rate", Versions: "v0.1-v0.3",
		Note: "rate-distribution mean from the earliest start to the last end (v0.1: first listed result's start to last listed result's end)"},
	{Metric: "output_token_throughput_span", Tool: "guidellm", Names: "metrics.output_tokens_per_second.successful.mean; v0.1 output_token_throughput", Versions: "v0.1-v0.3"},
	{Metric: "total_token_throughput_span", Tool: "guidellm", Names: "metrics.tokens_per_second.successful.mean", Versions: "v0.2-v0.3"},
	{Metric: "request_throughput_measured", Tool: "guidellm", Names: "metrics.requests_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: "output_token_throughput_token_events", Tool: "guidellm", Names: "metrics.output_tokens_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: "total_token_throughput_token_events", Tool: "guidellm", Names: "metrics.tokens_per_second.successful.mean", Versions: "v0.4+"},
	{Metric: "concurrency_in_flight", Tool: "guidellm", Names: "metrics.request_concurrency.successful", Versions: "v0.2+"},
}
