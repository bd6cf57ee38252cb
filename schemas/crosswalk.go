package schemas

import (
	"slices"
	"strconv"
	"strings"
)

// Standards a definition can be cross-referenced to.
const (
	// StandardOTel is the OpenTelemetry GenAI semantic conventions
	// (gen-ai-metrics.md, development status). Its client metrics are
	// chunk-based: time_to_first_chunk and time_per_output_chunk count any
	// chunk, whatever it carries.
	StandardOTel = "opentelemetry-genai"
	// StandardBR is the llm-d Benchmark Report; names are v0.2 paths (v0.1
	// paths are in the note).
	StandardBR = "llm-d-br"
	// StandardMLPerf is MLPerf LoadGen's detail-log keys.
	StandardMLPerf = "mlperf-loadgen"
	// StandardMLPerfEndpoints is MLPerf Endpoints' result_summary.json.
	StandardMLPerfEndpoints = "mlperf-endpoints"
)

// How closely a standard's name matches a definition.
const (
	// MatchSame: the standard defines the same events, population and
	// window.
	MatchSame = "same"
	// MatchClose: the standard's name is the nearest it has, and the note
	// says what differs.
	MatchClose = "close"
)

// A StandardName is the name another standard gives a definition.
type StandardName struct {
	Metric   MetricID `json:"-"`
	Standard string   `json:"standard"`
	Name     string   `json:"name"`
	Match    string   `json:"match"`
	Note     string   `json:"note,omitempty"`
}

// BR paths, relative to results.request_performance.aggregate (v0.2) or
// metrics (v0.1).
const (
	BRLatency    = "latency."
	BRRequests   = "requests."
	BRThroughput = "throughput."
	// BRAggregate is the v0.2 prefix of every BR request-performance path.
	BRAggregate = "results.request_performance.aggregate."
)

// Fields of BR's aggregate request performance that carry metrics.
const (
	BRTTFT          = BRLatency + "time_to_first_token"
	BRTPOT          = BRLatency + "time_per_output_token"
	BRITL           = BRLatency + "inter_token_latency"
	BRNTPOT         = BRLatency + "normalized_time_per_output_token"
	BRRequestLat    = BRLatency + "request_latency"
	BRInputLength   = BRRequests + "input_length"
	BROutputLength  = BRRequests + "output_length"
	BRRequestRate   = BRThroughput + "request_rate"
	BRInputRate     = BRThroughput + "input_token_rate"
	BROutputRate    = BRThroughput + "output_token_rate"
	BRTotalRate     = BRThroughput + "total_token_rate"
	brV01Throughput = "v0.1: metrics.throughput."
)

// BRPercentiles are the percentiles a BR Statistics object has keys for.
var BRPercentiles = []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9}

// BRStatOrder is the order of a Statistics object's keys in BR's schema.
var BRStatOrder = []string{"mean", "mode", "stddev", "min", "p0p1", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99p9", "max"}

// BRPercentileKey spells a percentile as BR does (p for the decimal point:
// 0.1 -> "p0p1", 99.9 -> "p99p9"); ok is false for one BR has no key for.
func BRPercentileKey(p float64) (string, bool) {
	if !slices.Contains(BRPercentiles, p) {
		return "", false
	}
	return "p" + strings.Replace(strconv.FormatFloat(p, 'f', -1, 64), ".", "p", 1), true
}

func br(id MetricID, field, match, note string) StandardName {
	return StandardName{Metric: id, Standard: StandardBR, Name: BRAggregate + field, Match: match, Note: note}
}

func otel(id MetricID, name, match, note string) StandardName {
	return StandardName{Metric: id, Standard: StandardOTel, Name: name, Match: match, Note: note}
}

func mlperf(id MetricID, std, name, match, note string) StandardName {
	return StandardName{Metric: id, Standard: std, Name: name, Match: match, Note: note}
}

const (
	otelChunkNote = "OpenTelemetry counts any chunk of the stream (a role-only or empty one too); this definition counts chunks carrying output"
	brToolNote    = "BR does not define the events; what the field holds is the producing tool's definition"
	otelServer    = "measured by the server, not the client"
)

// crosswalk lists the names other standards use for registry definitions,
// in the order a writer prefers them: for a BR field, the first listed
// definition a run has is the one written (render/br).
var crosswalk = []StandardName{
	// Latencies.
	otel(TTFT, "gen_ai.client.operation.time_to_first_chunk", MatchClose, otelChunkNote),
	br(TTFT, BRTTFT, MatchSame, "v0.1: metrics.latency.time_to_first_token; "+brToolNote),
	mlperf(TTFT, StandardMLPerfEndpoints, "ttft", MatchSame, "recv_first_ns - issued_ns"),
	br(TTFTAnswer, BRTTFT, MatchClose, "reasoning chunks are not counted as the first token"),
	mlperf(TTFTScheduled, StandardMLPerf, "result_first_token_{mean,min,max}_latency_ns, result_first_token_XX.XX_percentile_latency_ns", MatchSame, ""),
	br(TTFTScheduled, BRTTFT, MatchClose, "timed from the scheduled issue, so LoadGen queueing is included"),
	otel(ServerTTFT, "gen_ai.server.time_to_first_token", MatchSame, ""),
	otel(ITLChunk, "gen_ai.client.operation.time_per_output_chunk", MatchClose, otelChunkNote),
	br(ITLTokenChunkStamped, BRITL, MatchSame, "inference-perf's definition"),
	br(ITLChunk, BRITL, MatchClose, "BR says tokens; a chunk may carry several (v0.1: metrics.latency.inter_token_latency)"),
	br(TPOT, BRTPOT, MatchSame, "v0.1: metrics.latency.time_per_output_token"),
	otel(TPOT, "gen_ai.server.time_per_output_token", MatchClose, otelServer),
	br(TPOTAnswer, BRTPOT, MatchClose, "answer tokens only"),
	br(TPOTPerChunk, BRTPOT, MatchClose, "divides by chunks, not tokens"),
	br(TPOTAfterFirstChunk, BRTPOT, MatchClose, "takes out the first chunk's tokens, not one token"),
	mlperf(TPOTAfterFirstChunk, StandardMLPerfEndpoints, "tpot", MatchSame, ""),
	br(TPOTTokenWeighted, BRTPOT, MatchClose, "statistics over tokens, not requests"),
	mlperf(TPOTLoadGen, StandardMLPerf, "result_time_to_output_token_{mean,min,max}, result_time_per_output_token_XX.XX_percentile_ns", MatchSame, ""),
	br(TPOTLoadGen, BRTPOT, MatchClose, "the SUT's events and token counts"),
	otel(ServerTPOT, "gen_ai.server.time_per_output_token", MatchSame, ""),
	br(TPOTInclTTFT, BRNTPOT, MatchSame, "NTPOT; v0.1: metrics.latency.normalized_time_per_output_token"),
	br(TPOTInclTTFTZeroFilled, BRNTPOT, MatchClose, "empty outputs count as 0"),
	br(TPOTInclTTFTTokenWeighted, BRNTPOT, MatchClose, "statistics over tokens, not requests"),
	br(TPOTInclTTFTPerChunk, BRNTPOT, MatchClose, "divides by chunks, not tokens"),
	otel(E2E, "gen_ai.client.operation.duration", MatchClose, "the whole instrumented client call, whatever it includes"),
	br(E2E, BRRequestLat, MatchSame, "v0.1: metrics.latency.request_latency"),
	mlperf(E2E, StandardMLPerfEndpoints, "latency", MatchSame, "complete_ns - issued_ns"),
	mlperf(E2EScheduled, StandardMLPerf, "result_{mean,min,max}_latency_ns, result_XX.XX_percentile_latency_ns", MatchSame, ""),
	br(E2EScheduled, BRRequestLat, MatchClose, "timed from the scheduled issue"),
	br(E2EInclClientQueue, BRRequestLat, MatchClose, "client queueing included"),
	otel(ServerE2E, "gen_ai.server.request.duration", MatchSame, ""),
	mlperf(TTFTEarlyStopping, StandardMLPerfEndpoints, "ttft.early_stopping_percentiles", MatchSame, ""),
	mlperf(E2EEarlyStopping, StandardMLPerfEndpoints, "latency.early_stopping_percentiles", MatchSame, ""),
	mlperf(TPOTAfterFirstChunkEarlyStopping, StandardMLPerfEndpoints, "tpot.early_stopping_percentiles", MatchSame, ""),
	mlperf(E2EScheduledEarlyStopping, StandardMLPerf, "early_stopping_latency_ss, early_stopping_latency_ms", MatchSame, ""),

	// Token counts.
	br(InputTokens, BRInputLength, MatchSame, "v0.1: metrics.requests.input_length"),
	otel(InputTokens, "gen_ai.client.token.usage{gen_ai.token.type=input}", MatchClose, "OpenTelemetry prefers the server's (billable) count"),
	mlperf(InputTokens, StandardMLPerfEndpoints, "input_sequence_lengths", MatchSame, ""),
	br(InputTokensUsage, BRInputLength, MatchClose, "the server's count"),
	otel(InputTokensUsage, "gen_ai.client.token.usage{gen_ai.token.type=input}", MatchSame, ""),
	br(OutputTokens, BROutputLength, MatchSame, "v0.1: metrics.requests.output_length"),
	otel(OutputTokens, "gen_ai.client.token.usage{gen_ai.token.type=output}", MatchClose, "OpenTelemetry prefers the server's (billable) count"),
	mlperf(OutputTokens, StandardMLPerfEndpoints, "output_sequence_lengths", MatchSame, ""),
	br(OutputTokensUsage, BROutputLength, MatchClose, "the server's count"),
	otel(OutputTokensUsage, "gen_ai.client.token.usage{gen_ai.token.type=output}", MatchSame, ""),

	// Rates.
	br(RequestThroughput, BRRequestRate, MatchSame, brV01Throughput+"requests_per_sec"),
	mlperf(RequestThroughput, StandardMLPerfEndpoints, "qps (legacy_loadgen_window_duration_ns null)", MatchClose, "over the tracked duration"),
	br(RequestThroughputSpan, BRRequestRate, MatchClose, "over the successful requests' span"),
	br(RequestThroughputRun, BRRequestRate, MatchClose, "over the tool's run timer"),
	br(RequestThroughputMeasured, BRRequestRate, MatchClose, "GuideLLM's measured window"),
	br(RequestThroughputLoadGenWindow, BRRequestRate, MatchClose, "LoadGen's completed - 1 over the issued window"),
	mlperf(RequestThroughputLoadGenWindow, StandardMLPerfEndpoints, "qps (legacy_loadgen_window_duration_ns set)", MatchSame, ""),
	br(SampleThroughputCompleted, BRRequestRate, MatchClose, "LoadGen's scheduled window"),
	mlperf(SampleThroughputCompleted, StandardMLPerf, "result_completed_samples_per_sec", MatchSame, ""),
	mlperf(SampleThroughputScheduled, StandardMLPerf, "result_scheduled_samples_per_sec", MatchSame, ""),
	mlperf(OfflineSampleThroughput, StandardMLPerf, "result_samples_per_second", MatchSame, ""),
	br(OfflineRequestThroughput, BRRequestRate, MatchClose, "an offline engine run"),
	br(InputTokenThroughput, BRInputRate, MatchSame, brV01Throughput+"input_tokens_per_sec"),
	br(InputTokenThroughputRun, BRInputRate, MatchClose, "over the tool's run timer"),
	br(OutputTokenThroughput, BROutputRate, MatchSame, brV01Throughput+"output_tokens_per_sec"),
	mlperf(OutputTokenThroughput, StandardMLPerfEndpoints, "tps (legacy_loadgen_window_duration_ns null)", MatchClose, "over the tracked duration"),
	br(OutputTokenThroughputSpan, BROutputRate, MatchClose, "over the successful requests' span"),
	br(OutputTokenThroughputRun, BROutputRate, MatchClose, "over the tool's run timer"),
	br(OutputTokenThroughputTokenEvents, BROutputRate, MatchClose, "GuideLLM's token-event window"),
	br(OutputTokenThroughputLoadGenWindow, BROutputRate, MatchClose, "over the issued window"),
	mlperf(OutputTokenThroughputLoadGenWindow, StandardMLPerfEndpoints, "tps (legacy_loadgen_window_duration_ns set)", MatchSame, ""),
	br(OutputTokenThroughputCompleted, BROutputRate, MatchClose, "LoadGen's scheduled window"),
	mlperf(OutputTokenThroughputCompleted, StandardMLPerf, "result_completed_tokens_per_second", MatchSame, ""),
	mlperf(OfflineOutputTokenThroughput, StandardMLPerf, "result_tokens_per_second", MatchSame, ""),
	br(TotalTokenThroughput, BRTotalRate, MatchSame, brV01Throughput+"total_tokens_per_sec"),
	br(TotalTokenThroughputSpan, BRTotalRate, MatchClose, "over the successful requests' span"),
	br(TotalTokenThroughputRun, BRTotalRate, MatchClose, "over the tool's run timer"),
	br(TotalTokenThroughputTokenEvents, BRTotalRate, MatchClose, "GuideLLM's token-event window"),
	br(OfflineTotalTokenThroughput, BRTotalRate, MatchClose, "an offline engine run"),
}

// standardsOf returns the crosswalk entries of a definition.
func standardsOf(id MetricID) []StandardName {
	var out []StandardName
	for _, s := range crosswalk {
		if s.Metric == id {
			out = append(out, s)
		}
	}
	return out
}

// Crosswalk returns every crosswalk entry, in preference order.
func Crosswalk() []StandardName { return slices.Clone(crosswalk) }

// StandardFor returns the definitions a standard's name stands for, in
// preference order (the first is the one a writer prefers), e.g.
// StandardFor(StandardBR, BRAggregate+BRTTFT).
func StandardFor(standard, name string) []StandardName {
	var out []StandardName
	for _, s := range crosswalk {
		if s.Standard == standard && s.Name == name {
			out = append(out, s)
		}
	}
	return out
}
