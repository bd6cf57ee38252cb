package schemas

import (
	"slices"
	"strings"
)

// Units used by the registry. Durations are stored in seconds whatever the
// tool wrote; renderers choose a display scale.
const (
	UnitSeconds           = "s"
	UnitTokens            = "tokens"
	UnitRequests          = "requests"
	UnitRequestsPerSecond = "requests/s"
	UnitTokensPerSecond   = "tokens/s"
	UnitChunksPerSecond   = "chunks/s"
	UnitTokensPerSecUser  = "tokens/s/user"
	UnitRatio             = "ratio" // a fraction in [0, 1]
	UnitTokensPerDraft    = "tokens/draft"
	UnitAudioSecPerSec    = "audio-s/s"
)

// Level says what one observation of a metric is.
type Level string

const (
	LevelRequest   Level = "request"   // one value per request
	LevelChunk     Level = "chunk"     // one value per streamed chunk (or gap between chunks)
	LevelIteration Level = "iteration" // one value per benchmark iteration (e.g. one batch)
	LevelRun       Level = "run"       // one value per run
)

// Direction says which way is better.
type Direction string

const (
	LowerIsBetter  Direction = "lower"
	HigherIsBetter Direction = "higher"
	NoDirection    Direction = "none"
)

// A MetricDef defines one metric. Definitions that differ in any of the
// fields that say what is measured (From, To, Formula, Population,
// Numerator, Denominator, Window) have different IDs.
type MetricDef struct {
	ID   MetricID `json:"id"`   // stable identifier, e.g. ITLChunk
	Name string   `json:"name"` // short human name, e.g. "ITL (per chunk)"
	Unit string   `json:"unit"` // storage unit, one of the Unit constants

	Level Level `json:"level"`
	// From and To name the events a duration is timed between; empty for
	// counts and rates.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Formula gives the computation when it is more than To - From.
	Formula string `json:"formula,omitempty"`
	// Population is the set of observations the metric is taken over.
	Population string `json:"population"`
	// Numerator, Denominator and Window define a rate.
	Numerator   string `json:"numerator,omitempty"`
	Denominator string `json:"denominator,omitempty"`
	Window      string `json:"window,omitempty"`

	Direction   Direction `json:"direction"`
	Description string    `json:"description"`

	// Reported lists the tools that report this metric, under which native
	// names and in which versions. Filled from the native-name tables.
	Reported []Native `json:"reported_by,omitempty"`
	// Standards lists the names other standards (OpenTelemetry GenAI,
	// the llm-d Benchmark Report, MLPerf) give this metric. Filled from
	// the crosswalk (crosswalk.go).
	Standards []StandardName `json:"standards,omitempty"`
}

// A Native says under which name a tool reports a metric.
type Native struct {
	Metric   MetricID `json:"-"`        // the definition ID
	Tool     string   `json:"tool"`     // e.g. "vllm"
	Names    string   `json:"names"`    // native key(s), e.g. "ttfts, {mean,median,std,pN}_ttft_ms"
	Versions string   `json:"versions"` // versions or dates the mapping holds for
	Note     string   `json:"note,omitempty"`
}

// Common events, written the same way in every definition.
const (
	evSent        = "request sent (after any client-side concurrency wait)"
	evFirstOutput = "first streamed chunk carrying output (answer or reasoning)"
	evFirstAnswer = "first streamed chunk carrying answer content (reasoning excluded)"
	evLastOutput  = "last streamed chunk carrying output, or the complete response when not streaming"
	evScheduled   = "query's scheduled issue time (MLPerf LoadGen)"
	evArrival     = "request ready to send under the arrival schedule"
)

// Windows of run-level rates.
const (
	// WindowDispatch runs from the start of request dispatch (after any
	// warm-up) to the completion of the last request, successful or not.
	WindowDispatch = "first dispatch -> last completion"
	// WindowSpan runs from the earliest start to the latest end over the
	// requests in the population.
	WindowSpan = "earliest request start -> latest request end (over the population)"
	// WindowEngine is the wall time around an offline engine's generate call.
	WindowEngine = "wall time of the engine's generate call (excludes model load)"
)

// definitionTables holds the registry, in display order: the core
// definitions here, and definitions that only some tools need in their own
// files (registry_<tool>.go). It is immutable.
var definitionTables = [][]MetricDef{
	coreDefinitions,
	resourceDefinitions,
	mlperfDefinitions, guidellmDefinitions, llmperfDefinitions, locustDefinitions,
	genaiperfAIPerfDefinitions,
	interchangeDefinitions,
}

// coreDefinitions are the metrics most tools report.
var coreDefinitions = []MetricDef{
	// Request-level latencies.
	{ID: TTFT, Name: "TTFT", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: evFirstOutput,
		Population: "successful streamed requests", Direction: LowerIsBetter,
		Description: "Time to first token. Reasoning output counts as output: with a reasoning model this is the time to the first reasoning token."},
	{ID: TTFTAnswer, Name: "TTFT (answer)", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: evFirstAnswer,
		Population: "successful streamed requests with answer content", Direction: LowerIsBetter,
		Description: "Time to the first answer token: chunks that carry only reasoning_content, a role or usage are skipped. Equals ttft for servers that do not split reasoning."},
	{ID: TTFTScheduled, Name: "TTFT (from schedule)", Unit: UnitSeconds, Level: LevelRequest,
		From: evScheduled, To: "first token reported by the SUT",
		Population: "all samples of the run", Direction: LowerIsBetter,
		Description: "MLPerf's TTFT: timed from when LoadGen scheduled the query, so it includes any queueing in LoadGen and the SUT."},
	{ID: TTST, Name: "TTST", Unit: UnitSeconds, Level: LevelRequest,
		From: "first streamed chunk carrying output", To: "second streamed chunk carrying output",
		Population: "successful streamed requests with at least two chunks", Direction: LowerIsBetter,
		Description: "Time to second token: a chunk gap, not a token gap; near zero when the server coalesces chunks."},
	{ID: ITLChunk, Name: "ITL (per chunk)", Unit: UnitSeconds, Level: LevelChunk,
		From: "a streamed chunk carrying output", To: "the next streamed chunk carrying output of the same request",
		Population:  "gaps between consecutive chunks of successful requests, pooled over requests (long requests weigh more)",
		Direction:   LowerIsBetter,
		Description: "Inter-chunk latency. One value per chunk, not per token: with speculative decoding or server-side coalescing a chunk carries several tokens, so this is not a per-token time."},
	{ID: ITLChunkPerToken, Name: "ITL (per chunk / tokens in chunk)", Unit: UnitSeconds, Level: LevelChunk,
		From: "a streamed chunk", To: "the next streamed chunk",
		Formula:    "(t[i] - t[i-1]) / tokens in chunk i",
		Population: "chunks of successful requests after the first, pooled", Direction: LowerIsBetter,
		Description: "Per-chunk gap divided by the tokens the chunk carries (GenAI-Perf up to 0.0.3)."},
	{ID: TPOT, Name: "TPOT", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstOutput, To: evLastOutput,
		Formula:    "(e2e - ttft) / (output_tokens - 1)",
		Population: "successful requests with output_tokens > 1", Direction: LowerIsBetter,
		Description: "Time per output token after the first, averaged within each request; statistics are over requests (a mean of per-request means). Output tokens include reasoning tokens when the server counts them."},
	{ID: TPOTAnswer, Name: "TPOT (answer)", Unit: UnitSeconds, Level: LevelRequest,
		From: evFirstAnswer, To: "last streamed chunk carrying answer content",
		Formula:    "(e2e - ttft_answer) / (answer_tokens - 1)",
		Population: "successful streamed requests with more than one answer token", Direction: LowerIsBetter,
		Description: "TPOT over answer tokens only: reasoning is excluded from both the first-token time and the token count (GenAI-Perf's inter_token_latency)."},
	{ID: TPOTInclTTFT, Name: "TPOT including TTFT", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: "last output token",
		Formula:    "(t_last_token - t_sent) / output_tokens",
		Population: "successful requests with output_tokens > 0", Direction: LowerIsBetter,
		Description: "Latency per output token including the time to the first token; larger than tpot by about ttft/output_tokens."},
	{ID: E2E, Name: "E2E latency", Unit: UnitSeconds, Level: LevelRequest,
		From: evSent, To: evLastOutput,
		Population: "successful requests", Direction: LowerIsBetter,
		Description: "End-to-end request latency as the client sees it, excluding client-side queueing."},
	{ID: E2EScheduled, Name: "E2E latency (from schedule)", Unit: UnitSeconds, Level: LevelRequest,
		From: evScheduled, To: "completion reported by the SUT",
		Population: "all samples of the run", Direction: LowerIsBetter,
		Description: "MLPerf's sample latency: timed from the query's scheduled issue time."},
	{ID: ClientQueue, Name: "Client queue time", Unit: UnitSeconds, Level: LevelRequest,
		From: evArrival, To: evSent,
		Population: "all requests", Direction: LowerIsBetter,
		Description: "Time a request waited for a client concurrency slot (--max-concurrency) before it was sent."},
	{ID: E2EInclClientQueue, Name: "E2E latency incl. client queue", Unit: UnitSeconds, Level: LevelRequest,
		From: evArrival, To: evLastOutput,
		Population: "successful requests", Direction: LowerIsBetter,
		Description: "E2E latency plus the time waited for a client concurrency slot."},
	{ID: InputTokens, Name: "Input tokens", Unit: UnitTokens, Level: LevelRequest,
		Population: "successful requests", Direction: NoDirection,
		Description: "Prompt tokens per request. The count's source (client tokenizer with or without template, or server usage) is recorded per run."},
	{ID: OutputTokens, Name: "Output tokens", Unit: UnitTokens, Level: LevelRequest,
		Population: "successful requests", Direction: NoDirection,
		Description: "Generated tokens per request, reasoning included when the server counts it. The count's source is recorded per run."},
	{ID: ReasoningTokens, Name: "Reasoning tokens", Unit: UnitTokens, Level: LevelRequest,
		Population: "successful requests", Direction: NoDirection,
		Description: "Tokens of server-split reasoning_content per request."},
	{ID: BatchLatency, Name: "Batch latency", Unit: UnitSeconds, Level: LevelIteration,
		From: "engine generate call starts", To: "engine generate call returns",
		Population: "measured iterations (after warm-up iterations)", Direction: LowerIsBetter,
		Description: "Wall time of one offline generate call over a fixed batch of prompts generating a fixed number of tokens (vllm bench latency)."},

	// Run-level rates.
	{ID: RequestThroughput, Name: "Request throughput", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "successful requests", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Completed requests per second over the dispatch window, which includes arrival gaps, client queueing and failed requests' time."},
	{ID: RequestThroughputSpan, Name: "Request throughput (span)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "successful requests", Denominator: "window length", Window: WindowSpan,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Completed requests per second over the span of the successful requests themselves."},
	{ID: RequestThroughputSpanAll, Name: "Request throughput (span, all requests)", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "all exported requests, including those without content", Denominator: "window length", Window: "earliest request start -> latest response over requests with content",
		Population: "all exported requests", Direction: HigherIsBetter,
		Description: "GenAI-Perf's request throughput: its numerator counts requests that returned no content."},
	{ID: Goodput, Name: "Goodput", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "successful requests meeting every given SLO", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Requests per second that met the run's SLOs (vLLM --goodput); the SLOs are recorded as run labels when known."},
	{ID: OutputTokenThroughput, Name: "Output token throughput", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "output tokens of successful requests", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Generated tokens per second over the dispatch window."},
	{ID: OutputTokenThroughputSpan, Name: "Output token throughput (span)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "output tokens (reasoning included) of successful requests", Denominator: "window length", Window: WindowSpan,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Generated tokens per second over the span of the successful requests."},
	{ID: OutputTokenThroughputSpanAnswer, Name: "Output token throughput (span, answer tokens)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "answer tokens of requests with content", Denominator: "window length", Window: "earliest request start -> latest response over requests with content",
		Population: "requests with at least one non-empty response", Direction: HigherIsBetter,
		Description: "GenAI-Perf's output token throughput: reasoning tokens are not counted."},
	{ID: InputTokenThroughput, Name: "Input token throughput", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt tokens of successful requests", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Prompt tokens per second over the dispatch window."},
	{ID: TotalTokenThroughput, Name: "Total token throughput", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt + output tokens of successful requests", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Prompt and generated tokens per second over the dispatch window."},
	{ID: TotalTokenThroughputSpan, Name: "Total token throughput (span)", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt + output tokens of successful requests", Denominator: "window length", Window: WindowSpan,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Prompt and generated tokens per second over the span of the successful requests."},
	{ID: OfflineRequestThroughput, Name: "Offline request throughput", Unit: UnitRequestsPerSecond, Level: LevelRun,
		Numerator: "requests submitted (every request is assumed to complete)", Denominator: "window length", Window: WindowEngine,
		Population: "all requests", Direction: HigherIsBetter,
		Description: "Requests per second of an offline engine run (vllm bench throughput); there is no notion of failure."},
	{ID: OfflineTotalTokenThroughput, Name: "Offline total token throughput", Unit: UnitTokensPerSecond, Level: LevelRun,
		Numerator: "prompt + output tokens (output counted from returned token ids, or estimated from the requested lengths in older versions)", Denominator: "window length", Window: WindowEngine,
		Population: "all requests", Direction: HigherIsBetter,
		Description: "Total tokens per second of an offline engine run (vllm bench throughput tokens_per_second)."},
	{ID: PeakChunkRate1s, Name: "Peak chunk rate (1 s bins)", Unit: UnitChunksPerSecond, Level: LevelRun,
		Numerator: "streamed chunks of successful requests in a 1-second bin", Denominator: "1 s", Window: "1-second bins from the earliest successful request start",
		Population: "chunks of successful requests", Direction: HigherIsBetter,
		Description: "Largest number of chunks received in one 1-second bin (vLLM max_output_tokens_per_s, which counts chunks, not tokens)."},
	{ID: PeakConcurrency1s, Name: "Peak concurrency (1 s buckets)", Unit: UnitRequests, Level: LevelRun,
		Formula:    "max over whole seconds s of #requests with int(start) <= s <= int(end)",
		Population: "successful requests", Direction: NoDirection,
		Description: "vLLM's bucketed peak concurrency; it overcounts sequential sub-second requests and can exceed --max-concurrency."},
	{ID: PeakConcurrency, Name: "Peak concurrency", Unit: UnitRequests, Level: LevelRun,
		Formula:    "max number of overlapping [start, start + latency) intervals",
		Population: "successful requests", Direction: NoDirection,
		Description: "Exact peak number of requests in flight (sweep line)."},
	{ID: SpecDecodeAcceptanceRate, Name: "Spec-decode acceptance rate", Unit: UnitRatio, Level: LevelRun,
		Formula:    "accepted draft tokens / proposed draft tokens (server-wide counter deltas)",
		Population: "all traffic the server saw during the run", Direction: HigherIsBetter,
		Description: "Speculative decoding acceptance from the server's Prometheus counters; other traffic on the server pollutes it."},
	{ID: SpecDecodeAcceptanceLength, Name: "Spec-decode acceptance length", Unit: UnitTokensPerDraft, Level: LevelRun,
		Formula:    "1 + accepted / drafts (server-wide counter deltas)",
		Population: "all traffic the server saw during the run", Direction: HigherIsBetter,
		Description: "Mean tokens produced per speculative step."},
	{ID: RTFX, Name: "Inverse real-time factor", Unit: UnitAudioSecPerSec, Level: LevelRun,
		Numerator: "seconds of input audio", Denominator: "window length", Window: WindowDispatch,
		Population: "successful requests", Direction: HigherIsBetter,
		Description: "Speech recognition throughput: audio seconds processed per wall second."},
}

// Registry returns every metric definition, in display order, each with the
// tools that report it. The slice is a fresh copy.
func Registry() []MetricDef {
	var out []MetricDef
	for _, t := range definitionTables {
		out = append(out, t...)
	}
	for i := range out {
		out[i].Reported = nativesOf(out[i].ID)
		out[i].Standards = standardsOf(out[i].ID)
	}
	return out
}

// Lookup returns the definition with the given ID.
func Lookup(id MetricID) (MetricDef, bool) {
	for _, t := range definitionTables {
		for _, d := range t {
			if d.ID == id {
				d.Reported = nativesOf(id)
				d.Standards = standardsOf(id)
				return d, true
			}
		}
	}
	return MetricDef{}, false
}

// MustLookup is Lookup for IDs that are constants in the caller's code; it
// panics on an unknown ID, which is a programmer error.
func MustLookup(id MetricID) MetricDef {
	d, ok := Lookup(id)
	if !ok {
		panic("schemas: unknown metric definition " + string(id))
	}
	return d
}

func nativesOf(id MetricID) []Native {
	var out []Native
	for _, table := range nativeTables {
		for _, n := range table {
			if n.Metric == id {
				out = append(out, n)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Native) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

// Summary renders a definition as one line: what is timed or counted, over
// which population, and for rates over which window.
func (d MetricDef) Summary() string {
	var b strings.Builder
	switch {
	case d.Numerator != "":
		b.WriteString(d.Numerator + " / " + d.Denominator + " of [" + d.Window + "]")
	case d.From != "":
		b.WriteString(d.From + " -> " + d.To)
		if d.Formula != "" {
			b.WriteString("; " + d.Formula)
		}
	case d.Formula != "":
		b.WriteString(d.Formula)
	default:
		b.WriteString(d.Description)
	}
	b.WriteString("; over " + d.Population)
	return b.String()
}
