package sqlgen

import (
	"github.com/verdict-llm/verdict/schemas"
)

// A definition is how one request-level registry definition reads off a
// row of the requests table (alias q, joined to its run, alias r). The
// population is the profiling phase (as analysis.Observe selects it), the
// status filter, every column read being known, and where.
type definition struct {
	// columns are the requests columns the value reads. Each must be
	// non-null, and the definitions their field metadata names
	// (verdict.metric) decide which run flags refuse the row.
	columns []string
	// status keeps rows of one status (schemas.StatusOK for "successful",
	// schemas.StatusError for "failed"); "" keeps every status.
	status string
	// streamed keeps only runs not known to be non-streaming, for the
	// definitions over "streamed requests".
	streamed bool
	// chunks makes one observation per element of chunk_gaps_s.
	chunks bool
	// value is one observation; where adds population conditions.
	value func(d Dialect) string
	where func(d Dialect) []string
	// note says how the expression reads the registry's formula, when it
	// takes more than the column itself.
	note string
}

func col(name string) func(Dialect) string {
	return func(Dialect) string { return "q." + name }
}

func conds(c ...string) func(Dialect) []string {
	return func(Dialect) []string { return c }
}

func asDouble(x string) string { return "CAST(" + x + " AS DOUBLE)" }

// tpotExpr is TPOT as verdict computes it: (e2e - ttft) / (output_tokens - 1)
// in float64, the count converted before the division.
const tpotExpr = "(q.e2e_s - q.ttft_s) / CAST(q.output_tokens - 1 AS DOUBLE)"

// definitions holds the SQL of every request-level definition that the
// requests table carries; withoutSQL gives the reason for each one it
// does not. TestEveryRequestDefinition checks that each request- and
// chunk-level registry definition is in exactly one of them.
var definitions = map[schemas.MetricID]definition{
	schemas.TTFT:       {columns: []string{"ttft_s"}, status: schemas.StatusOK, streamed: true, value: col("ttft_s")},
	schemas.TTFTAnswer: {columns: []string{"ttft_answer_s"}, status: schemas.StatusOK, streamed: true, value: col("ttft_answer_s")},
	schemas.TTST: {columns: []string{"chunk_gaps_s"}, status: schemas.StatusOK, streamed: true,
		value: func(d Dialect) string { return d.element("q.chunk_gaps_s", "1") },
		where: func(d Dialect) []string { return []string{d.length("q.chunk_gaps_s") + " >= 1"} },
		note:  "the first chunk gap: first to second chunk carrying output"},
	schemas.ITLChunk: {columns: []string{"chunk_gaps_s"}, status: schemas.StatusOK, chunks: true, value: col("chunk_gaps_s"),
		note: "one row per chunk gap, pooled over the run's requests"},
	schemas.TPOT: {columns: []string{"ttft_s", "e2e_s", "output_tokens"}, status: schemas.StatusOK,
		value: func(Dialect) string { return tpotExpr }, where: conds("q.output_tokens > 1")},
	schemas.TPOTInclTTFT: {columns: []string{"e2e_s", "output_tokens"}, status: schemas.StatusOK,
		value: func(Dialect) string { return "q.e2e_s / CAST(q.output_tokens AS DOUBLE)" }, where: conds("q.output_tokens > 0"),
		note: "e2e_s runs from the request sent to the last output"},
	schemas.DecodeTimePerOutputToken: {columns: []string{"ttft_s", "e2e_s", "output_tokens"}, status: schemas.StatusOK,
		value: func(Dialect) string { return "(q.e2e_s - q.ttft_s) / CAST(q.output_tokens AS DOUBLE)" }, where: conds("q.output_tokens > 0"),
		note: "e2e_s - ttft_s is the first to the last output token"},
	schemas.TPOTInclTTFTZeroFilled: {columns: []string{"e2e_s", "output_tokens"}, status: schemas.StatusOK,
		value: func(Dialect) string {
			return "CASE WHEN q.output_tokens = 0 THEN 0 ELSE q.e2e_s / CAST(q.output_tokens AS DOUBLE) END"
		},
		note: "e2e_s / output_tokens, and 0 for a request with no output tokens"},
	// The chunks carrying output are one more than the chunk gaps
	// (schemas.Request.Chunks); their span is e2e_s - ttft_s.
	schemas.TPOTPerChunk: {columns: []string{"ttft_s", "e2e_s", "chunk_gaps_s"}, status: schemas.StatusOK, streamed: true,
		value: func(d Dialect) string {
			return "(q.e2e_s - q.ttft_s) / CAST(" + d.length("q.chunk_gaps_s") + " AS DOUBLE)"
		},
		where: func(d Dialect) []string { return []string{d.length("q.chunk_gaps_s") + " >= 1"} },
		note:  "(e2e_s - ttft_s) / (chunks - 1), the chunks being len(chunk_gaps_s) + 1"},
	schemas.TPOTInclTTFTPerChunk: {columns: []string{"e2e_s", "chunk_gaps_s"}, status: schemas.StatusOK, streamed: true,
		value: func(d Dialect) string { return "q.e2e_s / CAST(" + d.length("q.chunk_gaps_s") + " + 1 AS DOUBLE)" },
		note:  "e2e_s / chunks, the chunks being len(chunk_gaps_s) + 1"},
	schemas.RequestOutputChunkRate: {columns: []string{"e2e_s", "chunk_gaps_s"}, status: schemas.StatusOK, streamed: true,
		value: func(d Dialect) string { return "CAST(" + d.length("q.chunk_gaps_s") + " + 1 AS DOUBLE) / q.e2e_s" },
		where: conds("q.e2e_s > 0"),
		note:  "chunks / e2e_s, the chunks being len(chunk_gaps_s) + 1; a request with e2e 0 has no finite rate and is left out"},
	schemas.DecodeSpan: {columns: []string{"ttft_s", "e2e_s"}, status: schemas.StatusOK, streamed: true,
		value: func(Dialect) string { return "q.e2e_s - q.ttft_s" }},
	schemas.E2E:         {columns: []string{"e2e_s"}, status: schemas.StatusOK, value: col("e2e_s")},
	schemas.ClientQueue: {columns: []string{"queue_s"}, value: col("queue_s")},
	schemas.E2EInclClientQueue: {columns: []string{"queue_s", "e2e_s"}, status: schemas.StatusOK,
		value: func(Dialect) string { return "q.queue_s + q.e2e_s" }},
	schemas.InputTokens:       {columns: []string{"input_tokens"}, status: schemas.StatusOK, value: func(Dialect) string { return asDouble("q.input_tokens") }},
	schemas.OutputTokens:      {columns: []string{"output_tokens"}, status: schemas.StatusOK, value: func(Dialect) string { return asDouble("q.output_tokens") }},
	schemas.ReasoningTokens:   {columns: []string{"reasoning_tokens"}, status: schemas.StatusOK, value: func(Dialect) string { return asDouble("q.reasoning_tokens") }},
	schemas.InputTokensFailed: {columns: []string{"input_tokens"}, status: schemas.StatusError, value: func(Dialect) string { return asDouble("q.input_tokens") }},
	schemas.OutputTokenRatePerUser: {columns: []string{"ttft_s", "e2e_s", "output_tokens"}, status: schemas.StatusOK, streamed: true,
		value: func(Dialect) string { return "1 / (" + tpotExpr + ")" }, where: conds("q.output_tokens > 1", "q.e2e_s > q.ttft_s"),
		note: "1 / tpot; a request whose TPOT is 0 has no finite rate and is left out"},
	schemas.E2EOutputTokenRate: {columns: []string{"output_tokens", "e2e_s"}, status: schemas.StatusOK,
		value: func(Dialect) string { return "CAST(q.output_tokens AS DOUBLE) / q.e2e_s" }, where: conds("q.e2e_s > 0"),
		note: "a request with e2e 0 has no finite rate and is left out"},
	schemas.PrefillRatePerUser: {columns: []string{"input_tokens", "ttft_s"}, status: schemas.StatusOK, streamed: true,
		value: func(Dialect) string { return "CAST(q.input_tokens AS DOUBLE) / q.ttft_s" }, where: conds("q.ttft_s > 0"),
		note: "a request with TTFT 0 has no finite rate and is left out"},
}

// Reasons shared by several definitions.
const (
	whyScheduled = "timed from LoadGen's scheduled issue: the MLPerf reader stores LoadGen's statistics in metrics.parquet and writes no request rows, so requests.parquet has no column for it"
	whyEarlyStop = "an early-stopping estimate over the whole run (MLPerf LoadGen), not a per-request value; it is in metrics.parquet"
	whyAnswer    = "needs answer-only chunk times or token counts; requests.parquet stores ttft_answer_s but neither the answer chunks nor the answer tokens"
	whyWeighted  = "a token-weighted pooling (each request counts once per token), i.e. a weighted statistic of a per-request value, not a per-request value; GuideLLM reports it and verdict keeps it from metrics.parquet"
	whyTokens    = "needs the tokens each streamed chunk carried, which requests.parquet does not store"
	whyServer    = "the engine's own histogram (Prometheus) over all its traffic, not a client's request rows"
	whyUsage     = "needs the server's usage counts per request; requests.parquet holds one token count per request whose source the run records (token_source)"
	whyLocust    = "a Locust entry aggregate: the Locust reader writes no request rows"
)

var withoutSQL = map[schemas.MetricID]string{
	schemas.TTFTScheduled:                      whyScheduled,
	schemas.E2EScheduled:                       whyScheduled,
	schemas.TPOTLoadGen:                        whyScheduled,
	schemas.QueryLatencyScheduled:              whyScheduled,
	schemas.E2EScheduledEarlyStopping:          whyEarlyStop,
	schemas.TTFTScheduledEarlyStopping:         whyEarlyStop,
	schemas.TPOTLoadGenEarlyStopping:           whyEarlyStop,
	schemas.QueryLatencyScheduledEarlyStopping: whyEarlyStop,
	schemas.ITLChunkPerToken:                   "divides each gap by the tokens of its chunk, which requests.parquet does not store",
	schemas.TPOTAnswer:                         whyAnswer,
	schemas.TTSTAnswer:                         whyAnswer,
	schemas.AnswerTokens:                       whyAnswer,
	schemas.OutputTokenRatePerUserAnswer:       whyAnswer,
	schemas.E2EOutputTokenRateAnswer:           whyAnswer,
	schemas.TPOTLastToken:                      "timed to the tool's last-token timestamp (GuideLLM v0.2-v0.3), which the request rows do not keep; tpot is timed to the end of the response",
	schemas.TPOTTokenWeighted:                  whyWeighted,
	schemas.TPOTInclTTFTTokenWeighted:          whyWeighted,
	schemas.ITLTokenChunkStamped:               whyTokens,
	schemas.TPOTAfterFirstChunk:                whyTokens,
	schemas.TTFTEarlyStopping:                  whyEarlyStop,
	schemas.E2EEarlyStopping:                   whyEarlyStop,
	schemas.TPOTAfterFirstChunkEarlyStopping:   whyEarlyStop,
	schemas.E2EFailed:                          "times a failed request to its error or the client giving up; e2e_s holds the E2E definition (to the last output), and no reader stores a failure's duration as a column (inference-perf reports it as a summary)",
	schemas.ServerTTFT:                         whyServer,
	schemas.ServerTPOT:                         whyServer,
	schemas.ServerE2E:                          whyServer,
	schemas.InputTokensUsage:                   whyUsage,
	schemas.OutputTokensUsage:                  whyUsage,
	schemas.TotalTokensUsage:                   whyUsage,
	schemas.InputTokensUsageDiff:               whyUsage,
	schemas.OutputTokensUsageDiff:              whyUsage,
	schemas.HTTPResponseTime:                   whyLocust,
	schemas.HTTPResponseSize:                   whyLocust,
}

// WithoutSQL returns why a definition has no SQL view, or "" when it has
// one or is not request-level.
func WithoutSQL(id schemas.MetricID) string { return withoutSQL[id] }

// HasSQL reports whether a definition has an SQL view.
func HasSQL(id schemas.MetricID) bool {
	_, ok := definitions[id]
	return ok
}
