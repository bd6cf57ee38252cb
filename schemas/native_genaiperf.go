package schemas

// genaiperfNatives maps NVIDIA GenAI-Perf's outputs (profile_export_genai_perf
// .json/.csv and the raw perf_analyzer profile_export.json) to definitions.
// Versions are GenAI-Perf releases, dated from the file's layout
// (docs/formats/genai-perf.md section 5.2). GenAI-Perf never reads
// reasoning_content: every token count and every first-token time is over
// answer content only.
var genaiperfNatives = []Native{
	{Metric: TTFTAnswer, Tool: "genai-perf", Names: "time_to_first_token; Time To First Token", Versions: "0.0.1+",
		Note: "first non-empty answer chunk; in non-streaming runs the JSON repeats request_latency here, stored as not measured"},
	{Metric: TTSTAnswer, Tool: "genai-perf", Names: "time_to_second_token; Time To Second Token", Versions: "0.0.10+"},
	{Metric: E2E, Tool: "genai-perf", Names: "request_latency; Request Latency", Versions: "0.0.1+",
		Note: "to the last non-empty answer chunk, on the wall clock"},
	{Metric: TPOTAnswer, Tool: "genai-perf", Names: "inter_token_latency; Inter Token Latency", Versions: "0.0.4+",
		Note: "round((latency - ttft) / (osl - 1)) over answer tokens; 0.0.4-0.0.12 also count single-chunk requests as 0"},
	{Metric: ITLChunkPerToken, Tool: "genai-perf", Names: "inter_token_latency; Inter Token Latency", Versions: "0.0.1-0.0.3",
		Note: "per-chunk gaps divided by the chunk's tokens, pooled over requests"},
	{Metric: OutputTokenRatePerUserAnswer, Tool: "genai-perf", Names: "output_token_throughput_per_user; Output Token Throughput Per User", Versions: "0.0.13+"},
	{Metric: E2EOutputTokenRateAnswer, Tool: "genai-perf", Names: "output_token_throughput_per_request", Versions: "0.0.4-0.0.12"},
	{Metric: AnswerTokens, Tool: "genai-perf", Names: "output_sequence_length (num_output_token up to 0.0.3); Output Sequence Length", Versions: "0.0.1+",
		Note: "client re-tokenization of the answer text; about 5x the requested length in streaming runs of 0.0.8-0.0.9 (perf_analyzer#298)"},
	{Metric: InputTokens, Tool: "genai-perf", Names: "input_sequence_length (num_input_token up to 0.0.3); Input Sequence Length", Versions: "0.0.1+",
		Note: "client tokenizer over the joined message texts, chat template not applied"},
	{Metric: RequestThroughputSpanAll, Tool: "genai-perf", Names: "request_throughput; Request Throughput", Versions: "0.0.1+"},
	{Metric: OutputTokenThroughputSpanAnswer, Tool: "genai-perf", Names: "output_token_throughput; Output Token Throughput", Versions: "0.0.1+"},
	{Metric: GoodputSpan, Tool: "genai-perf", Names: "request_goodput; Request Goodput", Versions: "0.0.6+",
		Note: "SLO checks pair per-metric lists by position, which mispairs requests when ITL or TPS SLOs are mixed with TTFT"},
	{Metric: ITLChunk, Tool: "genai-perf", Names: "response_timestamps (raw profile_export.json)", Versions: "perf_analyzer exports",
		Note: "computed by verdict from the gaps between responses carrying output"},
	{Metric: TTFT, Tool: "genai-perf", Names: "response_timestamps (raw profile_export.json)", Versions: "perf_analyzer exports",
		Note: "computed by verdict: first response carrying answer or reasoning"},
}
