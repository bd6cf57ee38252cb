package schemas

// llmperfNatives maps LLMPerf's *_summary.json keys and
// *_individual_responses.json fields to definitions. Token counts are the
// hf-internal-testing/llama-tokenizer's, BOS included (+1); summary
// statistics are pandas' (linear percentiles, std with ddof 1) over
// requests without error_code.
var llmperfNatives = []Native{
	{Metric: "ttft", Tool: "llmperf", Names: "ttft_s; results_ttft_s_*", Versions: "2023-08-31 results format"},
	{Metric: "e2e", Tool: "llmperf", Names: "end_to_end_latency_s; results_end_to_end_latency_s_*", Versions: "2023-08-31 results format"},
	{Metric: "tpot_incl_ttft", Tool: "llmperf", Names: "inter_token_latency_s; results_inter_token_latency_s_*", Versions: "2023-12-05..2024-12-08",
		Note: "sum of chunk gaps including the TTFT, divided by the tokenizer's output tokens (BOS included)"},
	{Metric: "tpot_incl_ttft_per_chunk", Tool: "llmperf", Names: "inter_token_latency_s; results_inter_token_latency_s_*", Versions: "2024-12-08+ (f1d6bed)",
		Note: "divided by the streamed chunk count"},
	{Metric: "itl_chunk", Tool: "llmperf", Names: "inter_token_latency_s as a list (sagemaker, vertexai clients)", Versions: "2023-08-31 results format",
		Note: "the summary pools the lists' gaps"},
	{Metric: "request_output_chunk_rate", Tool: "llmperf", Names: "request_output_throughput_token_per_s; results_request_output_throughput_token_per_s_*", Versions: "before 2024-04-07 (afd137a)"},
	{Metric: "e2e_output_token_rate", Tool: "llmperf", Names: "request_output_throughput_token_per_s; results_request_output_throughput_token_per_s_*", Versions: "2024-04-07+ (afd137a)",
		Note: "tokenizer output tokens (BOS included) / e2e"},
	{Metric: "input_tokens", Tool: "llmperf", Names: "number_input_tokens; results_number_input_tokens_*", Versions: "2023-08-31 results format", Note: "min and max are written as strings"},
	{Metric: "output_tokens", Tool: "llmperf", Names: "number_output_tokens; results_number_output_tokens_*", Versions: "2023-08-31 results format", Note: "includes the BOS token; 1 for an empty or failed response"},
	{Metric: "output_token_throughput", Tool: "llmperf", Names: "results_mean_output_throughput_token_per_s", Versions: "2023-08-31 results format",
		Note: "output tokens of non-errored requests / wall time of the whole test, despite 'mean'"},
	{Metric: "request_throughput", Tool: "llmperf", Names: "results_num_completed_requests_per_min / 60", Versions: "2023-08-31 results format"},
	{Metric: "error_rate", Tool: "llmperf", Names: "results_error_rate", Versions: "2023-08-31 results format"},
}
