package schemas

// aiperfNatives maps NVIDIA AIPerf's outputs (profile_export.jsonl,
// profile_export_aiperf.json/.csv, timeslice exports) to definitions.
// Versions are AIPerf releases (docs/formats/aiperf.md). AIPerf counts reasoning_content as output: its TTFT, OSL and
// ITL include reasoning, unlike GenAI-Perf's.
var aiperfNatives = []Native{
	{Metric: TTFT, Tool: "aiperf", Names: "time_to_first_token (ttft up to 0.1.x); Time to First Token", Versions: "0.1+",
		Note: "first content chunk, reasoning or answer; streaming only"},
	{Metric: TTFTAnswer, Tool: "aiperf", Names: "time_to_first_output_token; Time to First Output Token", Versions: "0.2+"},
	{Metric: TTST, Tool: "aiperf", Names: "time_to_second_token (ttst up to 0.1.x); Time to Second Token", Versions: "0.1+"},
	{Metric: ITLChunk, Tool: "aiperf", Names: "inter_chunk_latency; Inter Chunk Latency", Versions: "0.1+"},
	{Metric: TPOT, Tool: "aiperf", Names: "inter_token_latency; Inter Token Latency", Versions: "0.1+",
		Note: "(latency - ttft) / (osl - 1) with reasoning tokens in osl"},
	{Metric: OutputTokenRatePerUser, Tool: "aiperf", Names: "output_token_throughput_per_user; Output Token Throughput Per User", Versions: "0.1+"},
	{Metric: E2E, Tool: "aiperf", Names: "request_latency; Request Latency", Versions: "0.1+",
		Note: "to the last content response, on a monotonic clock"},
	{Metric: E2EOutputTokenRate, Tool: "aiperf", Names: "e2e_output_token_throughput; E2E Output Token Throughput", Versions: "0.7+"},
	{Metric: PrefillRatePerUser, Tool: "aiperf", Names: "prefill_throughput (up to 0.3), prefill_throughput_per_user (0.4+)", Versions: "0.2+"},
	{Metric: OutputTokens, Tool: "aiperf", Names: "output_sequence_length, total_osl; Output Sequence Length", Versions: "0.1+",
		Note: "answer + reasoning tokens; client tokenizer unless --use-server-token-count"},
	{Metric: AnswerTokens, Tool: "aiperf", Names: "output_token_count, total_output_tokens; Output Token Count", Versions: "0.1+",
		Note: "requests with 0 answer tokens are left out of the statistics but not of the total"},
	{Metric: ReasoningTokens, Tool: "aiperf", Names: "reasoning_token_count, total_reasoning_tokens", Versions: "0.1+"},
	{Metric: InputTokens, Tool: "aiperf", Names: "input_sequence_length, total_isl; Input Sequence Length", Versions: "0.1+",
		Note: "client tokenizer over the joined texts, chat template not applied"},
	{Metric: InputTokensFailed, Tool: "aiperf", Names: "error_isl, total_error_isl", Versions: "0.1+"},
	{Metric: RequestThroughputSpan, Tool: "aiperf", Names: "request_throughput; Request Throughput", Versions: "0.1+"},
	{Metric: OutputTokenThroughputSpan, Tool: "aiperf", Names: "output_token_throughput; Output Token Throughput", Versions: "0.1+"},
	{Metric: TotalTokenThroughputSpan, Tool: "aiperf", Names: "total_token_throughput; Total Token Throughput", Versions: "0.4+"},
	{Metric: GoodputSpan, Tool: "aiperf", Names: "goodput", Versions: "0.1+"},
	{Metric: GoodRequests, Tool: "aiperf", Names: "good_request_count", Versions: "0.1+"},
	{Metric: InputTokensUsage, Tool: "aiperf", Names: "usage_prompt_tokens, total_usage_prompt_tokens", Versions: "0.7+"},
	{Metric: OutputTokensUsage, Tool: "aiperf", Names: "usage_completion_tokens, total_usage_completion_tokens", Versions: "0.7+"},
	{Metric: TotalTokensUsage, Tool: "aiperf", Names: "usage_total_tokens, total_usage_total_tokens", Versions: "0.7+"},
	{Metric: InputTokensUsageDiff, Tool: "aiperf", Names: "usage_prompt_tokens_diff_pct (percent)", Versions: "0.7+", Note: "stored as a fraction"},
	{Metric: OutputTokensUsageDiff, Tool: "aiperf", Names: "usage_completion_tokens_diff_pct (percent)", Versions: "0.7+", Note: "stored as a fraction"},
	{Metric: UsageDiscrepancyRequests, Tool: "aiperf", Names: "usage_discrepancy_count", Versions: "0.7+"},
}
