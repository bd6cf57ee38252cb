package schemas

// llmperfNatives maps LLMPerf's *_summary.json keys and
// *_individual_responses.json fields to definitions. Token counts are the
// hf-internal-testing/llama-tokenizer's, BOS included (+1); summary
// statistics are pandas' (linear percentiles, std with ddof 1) over
// requests without error_code.
var llmperfNatives = []Native{
	{Metric: TTFT, Tool: "llmperf", Names: "ttft_s; results_ttft_s_*", Versions: "2023-08-31 results format"},
	{Metric: E2E, Tool: "llmperf", Names: "end_to_end_latency_s; results_end_to_end_latency_s_*", Versions: "2023-08-31 results format"},
	{Metric: TPOTInclTTFT, Tool: "llmperf", Names: "inter_token_latency_s; results_inter_token_latency_s_*", Versions: "2023-12-05..2024-12-08",
		Note: "sum of chunk gaps including the TTFT, divided by the tokenizer's output tokens (BOS included)"},
	{Metric: TPOTInclTTFTPerChunk, Tool: "llmperf", Names: "inter_token_latency_s; results_inter_token_latency_s_*", Versions: "2024-12-08+ (f1d6bed)",
		Note: "divided by the streamed chunk count"},
	{Metric: ITLChunk, Tool: "llmperf", Names: "inter_token_latency_s as a list (sagemaker, vertexai clients)", Versions: "2023-08-31 results format",
		Note: "the summary pools the lists' gaps"},
	{Metric: RequestOutputChunkRate, Tool: "llmperf", Names: "request_output_throughput_token_per_s; results_request_output_throughput_token_per_s_*", Versions: "before 2024-04-07 (afd137a)"},
	{Metric: E2EOutputTokenRate, Tool: "llmperf", Names: "request_output_throughput_token_per_s; results_request_output_throughput_token_per_s_*", Versions: "2024-04-07+ (afd137a)",
		Note: "tokenizer output tokens (BOS included) / e2e"},
	{Metric: InputTokens, Tool: "llmperf", Names: "number_input_tokens; results_number_input_tokens_*", Versions: "2023-08-31 results format", Note: "min and max are written as strings"},
	{Metric: OutputTokens, Tool: "llmperf", Names: "number_output_tokens; results_number_output_tokens_*", Versions: "2023-08-31 results format", Note: "includes the BOS token; 1 for an empty or failed response"},
	{Metric: OutputTokenThroughput, Tool: "llmperf", Names: "results_mean_output_throughput_token_per_s", Versions: "2023-08-31 results format",
		Note: "output tokens of non-errored requests / wall time of the whole test, despite 'mean'"},
	{Metric: RequestThroughput, Tool: "llmperf", Names: "results_num_completed_requests_per_min / 60", Versions: "2023-08-31 results format"},
	{Metric: ErrorRate, Tool: "llmperf", Names: "results_error_rate", Versions: "2023-08-31 results format"},
}
