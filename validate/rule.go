package validate

import (
	"strings"
)

// A Rule is one entry of the catalogue: a stable ID, a one-line title, a
// default severity, the scope it looks at and the reason it exists.
type Rule struct {
	// ID is stable across releases: "V001-scenario". The part before the
	// first "-" ("V001") may be used to name the rule too.
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Severity  Severity `json:"severity"`
	Scope     Scope    `json:"scope"`
	Rationale string   `json:"rationale"`

	check checkFunc
}

// checkFunc evaluates a rule on one subject.
type checkFunc func(c *checker, s subject) outcome

// subject is what one check looks at: one run, a group's runs, or a pair.
type subject struct {
	scope Scope
	runs  []*RunData
	group string
	key   string // "run NAME", "group NAME", "pair A vs B"
}

// outcome is the result of one check.
type outcome struct {
	findings []Finding
	skip     string   // the rule does not apply, and why
	notes    []string // what was checked when it passed
}

func (o *outcome) add(f Finding)    { o.findings = append(o.findings, f) }
func (o *outcome) note(s string)    { o.notes = append(o.notes, s) }
func skipped(reason string) outcome { return outcome{skip: reason} }

// finding starts a finding about the given runs (all the subject's runs
// when none are given).
func (s subject) finding(msg string, runs ...*RunData) Finding {
	if len(runs) == 0 {
		runs = s.runs
	}
	names := make([]string, len(runs))
	for i, d := range runs {
		names[i] = d.Name()
	}
	return Finding{Runs: names, Message: msg}
}

// checker carries what every check needs.
type checker struct {
	policy  Policy
	th      Thresholds
	compare bool
}

// catalogue is immutable; Catalogue returns copies.
var catalogue = []Rule{
	{ID: "V001-scenario", Title: "load scenario differs", Severity: Error, Scope: ScopePair, check: checkScenario,
		Rationale: "Latency and throughput depend first of all on how load was offered: a server run at a fixed arrival rate, an offline run that releases every request at once, a closed loop at fixed concurrency and a single stream measure different operating points of one system, which is why MLPerf reports its scenarios apart (mlperf-guidellm-llmperf.md §1.5). A run whose scenario the source does not record cannot be placed, so the comparison is incomplete rather than assumed equal."},
	{ID: "V002-arrival", Title: "arrival process differs (rate, inf, burstiness, concurrency, ramp-up)", Severity: Error, Scope: ScopePair, check: checkArrival,
		Rationale: "Within one scenario the arrival process sets the queueing the server sees: a finite rate against a max-throughput run (rate \"inf\"), Poisson arrivals (burstiness 1) against gamma bursts, another client concurrency cap or a ramp-up change TTFT and throughput by large factors. vLLM's duration even includes the scheduled gaps and the client's semaphore wait (vllm.md §3.6, §7.11). MLPerf Server runs are the exception: a submitter tunes the target QPS to the highest rate that still meets the benchmark's latency limits, so the QPS is the result, not the load offered; two Server submissions of one benchmark under the same limits are compared by their QPS (reported as info), and a different benchmark, scenario or limit is the error (docs/formats/mlperf.md)."},
	{ID: "V003-streaming", Title: "streaming on one side only", Severity: Error, Scope: ScopePair, check: checkStreaming,
		Rationale: "Without streaming the client sees only the complete response: TTFT, ITL and TPOT are not measured and E2E includes the transfer of the whole body. GenAI-Perf even writes a TTFT equal to the latency for non-streaming runs (genai-perf-aiperf.md §4, item 2). A mode unknown on one side leaves the comparison unverified where TTFT, ITL or TPOT are compared."},
	{ID: "V004-metric-definition", Title: "a compared metric has different definitions", Severity: Error, Scope: ScopePair, check: checkDefinition,
		Rationale: "Tools give one name to different measurements: vLLM's ITL is the gap between streamed chunks while GenAI-Perf's and AIPerf's is a per-request average over tokens (genai-perf-aiperf.md §3; llmperf PR #99); GuideLLM's TPOT includes the TTFT since v0.4 (mlperf-guidellm-llmperf.md §2.4); AIPerf's TTFT counts reasoning tokens and GenAI-Perf's does not; MLPerf times from the scheduled issue time. verdict gives every definition its own ID. When two runs report a quantity under no common ID, or under one ID with a version quirk (a run flag) on one side only, their numbers measure different things. Quantities are grouped into families by the registry's ID convention (ttft, ttft_answer, ttft_scheduled; itl_*, tpot_*; e2e*; ...), so definitions a new tool adds are checked without a change to this rule. All-output and answer-only definitions (ttft and ttft_answer, tpot and tpot_answer, output_tokens and answer_tokens) cover the same tokens when no reasoning reaches the client apart from the answer: when both runs show it (inventory model.reasoning: none or inline, or reasoning tokens 0 in the data) the pair is a warning that names the assumption; without that evidence it stays an error. A definition a run's flags call uncertain leaves the pair unverified."},
	{ID: "V005-percentile-method", Title: "percentiles or deviations computed by different methods", Severity: Error, Scope: ScopePair, check: checkPercentileMethod,
		Rationale: "One sample gives different percentiles under different reading rules: MLPerf LoadGen reads x[floor(n*p)], GuideLLM the first value whose cumulative share reaches p, numpy-based tools (vLLM, GenAI-Perf, AIPerf, LLMPerf) interpolate linearly; for the values 10, 20, ..., 100 the median is 60, 50 and 55 (mlperf-guidellm-llmperf.md §5). Standard deviations differ by the population or sample convention. A statistic is compared only when both runs have it under one method."},
	{ID: "V006-window", Title: "denominator, population or window differs", Severity: Error, Scope: ScopePair, check: checkWindow,
		Rationale: "A rate is a count over a window and tools choose both: vLLM divides successful requests by the time from first dispatch to last completion; GenAI-Perf counts every exported request, empty ones included, over the span from the earliest send to the latest response (genai-perf-aiperf.md §4, item 6); an offline engine times its generate call. Rates and durations over different populations or windows are not comparable even when their names match."},
	{ID: "V007-dataset", Title: "dataset or its hash differs, or is unknown", Severity: Error, Scope: ScopePair, check: checkDataset,
		Rationale: "Prompt content decides prefill work, prefix-cache hits and output lengths. Runs on different datasets, or on different versions of one as their SHA-256 shows, measure different workloads. Without a dataset name or hash on both sides the workload cannot be verified, unless the request rows show the same prompt lengths in the same order."},
	{ID: "V008-length-distribution", Title: "input or output length distributions differ", Severity: Error, Scope: ScopePair, check: checkLengths,
		Rationale: "Input and output lengths drive prefill and decode time, so per-token throughput and TPOT move with them. Where both runs have per-request lengths a two-sample Kolmogorov-Smirnov test compares the distributions (exact below 10,000 values, as scipy's ks_2samp); the policy asks for both significance and a minimum distance D, because with thousands of requests the test alone flags negligible differences. Output lengths miss the requested ones for known reasons: tokenizers, ignored max_tokens, GenAI-Perf 0.0.8-0.0.9's streaming counts of about 5x the requested length (genai-perf-aiperf.md §4-5). Without per-request lengths, mean lengths from token totals are compared with a tolerance."},
	{ID: "V009-prompt-count", Title: "number of prompts differs", Severity: Warning, Scope: ScopePair, check: checkPromptCount,
		Rationale: "A different number of prompts changes how precisely percentiles are estimated, how much of the run is ramp and tail, and how much of the dataset (and of the prefix cache) a run touches. It rarely voids a comparison on its own."},
	{ID: "V010-boundary", Title: "model, quantization, backend, client location, token source or launch arguments differ", Severity: Warning, Scope: ScopePair, check: checkBoundary,
		Rationale: "Compared runs should differ only in what is being compared. Another model or revision, quantization, client location (network path), backend (chat endpoints apply a template, which changes prompt tokens) or token source (client tokenizer against server usage; vllm.md §7, item 12) moves the numbers for reasons other than the platform, and so do the engine's launch arguments (inventory engine.launch_args, compared by flag whatever their order or spelling), above all prefix caching, scheduling limits (max-num-seqs, max-num-batched-tokens), speculative decoding, parallelism and quantization, which are named by kind. That may be the point of the comparison, so these are warnings the reader must see."},
	{ID: "V011-sut-changed", Title: "system under test changed inside one configuration", Severity: Error, Scope: ScopeGroup, check: checkSUTChanged,
		Rationale: "Runs the user groups as one configuration (one bundle, or one value of --group-by) are read as one system. If the model, its revision or quantization, the engine or its version, launch arguments, GPU model or count, driver, CUDA, container image or client location changed among them, the group mixes systems and every comparison of it is void. Unknown fields are not evidence of a change; V018 reports them."},
	{ID: "V012-prefix-cache", Title: "likely prefix-cache reuse between repeated runs", Severity: Warning, Scope: ScopeGroup, check: checkPrefixCache,
		Rationale: "Engines with automatic prefix caching (vLLM, SGLang, TensorRT-LLM) keep prompt prefixes of earlier requests. A second run of the same prompts against the same server without a restart or cache reset finds them cached, so its TTFT and prefill throughput measure cache hits. Record cache_state (cold, reset or warm) in the inventory; runs recorded cold or reset are not flagged."},
	{ID: "V013-chunking", Title: "chunks carry several tokens (speculative decoding or coalescing)", Severity: Warning, Scope: ScopeRun, check: checkChunking,
		Rationale: "A streamed chunk may carry several tokens: speculative decoding accepts several draft tokens per step and servers coalesce tokens into one message. Per-chunk ITL then exceeds the per-token TPOT (a vLLM v0.25.1 spec-decode capture shows mean ITL 45.7 ms against TPOT 14.5 ms; vllm.md §7, item 6) and vLLM's peak output rate counts chunks. Tokens per second must not be derived from such an ITL, and it is not comparable with the ITL of a run that streams one token per chunk."},
	{ID: "V014-not-streaming", Title: "not really streamed (TTFT equals E2E, or one chunk per request)", Severity: Error, Scope: ScopeRun, check: checkNotStreaming,
		Rationale: "A run whose TTFT equals its E2E latency, or whose requests arrive in one chunk, was not streamed end to end: a non-streaming endpoint, a buffering proxy, or a tool that writes the latency as TTFT (GenAI-Perf does for non-streaming runs). Its TTFT, ITL and TPOT do not measure what their definitions say. Requests with a single output token are left out of the evidence."},
	{ID: "V015-warmup", Title: "warm-up not excluded, or not recorded", Severity: Warning, Scope: ScopeRun, check: checkWarmup,
		Rationale: "The first requests to a fresh server pay one-time costs: CUDA graph capture, compilation, allocator growth, empty caches. Tools exclude them with warm-up requests (GenAI-Perf and AIPerf by phase, vLLM --num-warmups), but few record how many were sent. The rule reports a run without warm-up, a run whose warm-up is not recorded (unverified), and a first request whose latency is far above the median."},
	{ID: "V016-failures", Title: "failed requests above the threshold, all failed, or failures not reported", Severity: Error, Scope: ScopeRun, check: checkFailures,
		Rationale: "Latency statistics cover successful requests only, so failures bias them: the slow or overloaded requests are the ones that time out. A run in which every request failed still writes a complete file of zeros (vllm.md §7, item 5). A tool that does not report failures (GenAI-Perf) leaves the failure rate unknown, and the result unverified."},
	{ID: "V017-sample-size", Title: "too few samples for the claimed percentile", Severity: Warning, Scope: ScopeRun, check: checkSampleSize,
		Rationale: "A percentile needs enough samples to be more than the sample's maximum. MLPerf LoadGen's early-stopping criterion (99% confidence) needs at least 64 queries to bound p90 and 662 to bound p99 with one query over the target (mlperf-guidellm-llmperf.md §1.7; stats.EarlyStoppingH(1, p) + 1)."},
	{ID: "V018-unverified", Title: "inventory, window, load settings or definitions missing: unverified", Severity: Error, Scope: ScopeRun, check: checkUnverified,
		Rationale: "What a result does not record cannot be checked, and verdict does not guess it. A run without the policy's required system-under-test inventory, without its measurement window or duration, without a known scenario or arrival process, with metric definitions this build does not know, or with a flag saying a definition is uncertain, is unverified: its verdict is incomplete, and the missing fields are listed one by one."},
	{ID: "V019-unmaintained-tool", Title: "the source tool is no longer maintained", Severity: Info, Scope: ScopeRun, check: checkUnmaintained,
		Rationale: "Results of a tool that is no longer maintained keep its unfixed bugs (GenAI-Perf 0.0.8-0.0.9 streaming output lengths of about 5x the requested ones, perf_analyzer#298). NVIDIA points GenAI-Perf users to AIPerf, whose definitions differ for reasoning models (genai-perf-aiperf.md §3)."},
	{ID: "V020-tool-invalid", Title: "the tool declared the run invalid, or a known tool bug corrupts it", Severity: Error, Scope: ScopeRun, check: checkDefects,
		Rationale: "Some tools judge their own runs: MLPerf LoadGen writes result_validity INVALID when the minimum duration or query count, early stopping or the latency constraints were not met, AIPerf records a cancelled run, and ingestors flag numbers a known bug corrupts (GenAI-Perf 0.0.8-0.0.9 streaming output lengths, perf_analyzer#298). Such a run is not a valid measurement whatever its numbers look like."},
	{ID: "V021-steady-state", Title: "start-up transient, or no steady state reached", Severity: Warning, Scope: ScopeRun, check: checkSteadyState,
		Rationale: "A run's percentiles describe the server's steady state only if it reached one. A transient at the start (cold caches, CUDA graph capture, a queue filling up) biases them by an amount that depends on how long the run was; a latency that never settles makes them depend on the duration altogether. The MSER-5 truncation rule (White 1997; White, Cobb and Spratt 2000) finds where the transient ends from TTFT (or E2E) in dispatch order: a truncation point in the second half of the run means no steady state was found, and a transient whose removal moves the mean or p99 beyond the policy's tolerance is reported with both values."},
	{ID: "V022-over-saturation", Title: "TTFT or queue time rises through the run (over-saturation)", Severity: Warning, Scope: ScopeRun, check: checkOverSaturation,
		Rationale: "When the offered rate exceeds what the server can serve, the queue grows for as long as the run lasts: TTFT and the client's queue time rise linearly and every percentile grows with the run's length, so the run measures its duration, not the server. GuideLLM's over-saturation detector tests the least-squares slope of TTFT (and of the requests in flight) against time with a t interval whose relative margin of error must be below 2, counting at most one independent point per second; the same test is applied to the steady part of each run, with the requests in flight computed from start and end times to tell a growing queue from a drift."},
}

// Catalogue returns every rule, in ID order. The slice is a fresh copy.
func Catalogue() []Rule {
	return append([]Rule(nil), catalogue...)
}

// FindRule returns the rule with the given ID ("V001-scenario") or number
// ("V001"), ignoring case.
func FindRule(id string) (Rule, bool) {
	for i := range catalogue {
		if ruleMatches(&catalogue[i], id) {
			return catalogue[i], true
		}
	}
	return Rule{}, false
}

func ruleMatches(r *Rule, id string) bool {
	num, _, _ := strings.Cut(r.ID, "-")
	return strings.EqualFold(id, r.ID) || strings.EqualFold(id, num)
}
