-- verdict's metric definitions as trino SQL: registry version 1, dataset schema version 1.
-- Written by verdict test (verdict sql); regenerate it rather than edit it.
-- Dataset: history (table=runs, table=requests and table=metrics, as verdict export writes them).
--
-- Each verdict_<definition> view holds one observation per row (per chunk gap for itl_chunk)
-- over the definition's population, with its definition ID, unit and registry version; rows of
-- runs whose version flags change the definition are refused (verdict_refusals lists them),
-- and flags that leave it uncertain are listed in uncertain_flags.
-- verdict_stats (run_id, metric_id, stat, percentile, value) holds what `verdict stats --ci 0 --percentiles 50,99.9 --method nearest_rank_floor --slo ttft=200ms,tpot=50ms,itl=100ms,e2e=10s` prints:
-- count, mean, population standard deviation and percentiles per run and metric, goodput under
-- an SLO, and the tool's own statistics for runs without request rows.
--
-- Percentiles: nearest rank as MLPerf LoadGen reads it, x[floor(n p)] (0-based, clamped to n-1). The
-- engines' quantile_disc and percentile_disc take x[ceil(n p) - 1], a different element whenever
-- n p is a whole number, so the rank is computed here instead.

-- The dataset's tables: every partition file of each table.
-- Trino reads the dataset through its Hive connector: external tables over the partition
-- directories (tool and run_id are their partition columns), declaring only the columns the
-- views read. sync_partition_metadata registers the runs exported since the last call: run
-- this script again after each verdict export.
CREATE SCHEMA IF NOT EXISTS hive.verdict;
CREATE TABLE IF NOT EXISTS hive.verdict.verdict_runs (
  "streaming" BOOLEAN,
  "duration_s" DOUBLE,
  "window_kind" VARCHAR,
  "flags" ARRAY(VARCHAR),
  tool VARCHAR,
  run_id VARCHAR
)
WITH (format = 'PARQUET', external_location = 'history/table=runs', partitioned_by = ARRAY['tool', 'run_id']);
CALL hive.system.sync_partition_metadata(schema_name => 'verdict', table_name => 'verdict_runs', mode => 'FULL');
CREATE TABLE IF NOT EXISTS hive.verdict.verdict_requests (
  "index" BIGINT,
  "status" VARCHAR,
  "phase" VARCHAR,
  "queue_s" DOUBLE,
  "ttft_s" DOUBLE,
  "ttft_answer_s" DOUBLE,
  "e2e_s" DOUBLE,
  "input_tokens" BIGINT,
  "output_tokens" BIGINT,
  "reasoning_tokens" BIGINT,
  "chunk_gaps_s" ARRAY(DOUBLE),
  tool VARCHAR,
  run_id VARCHAR
)
WITH (format = 'PARQUET', external_location = 'history/table=requests', partitioned_by = ARRAY['tool', 'run_id']);
CALL hive.system.sync_partition_metadata(schema_name => 'verdict', table_name => 'verdict_requests', mode => 'FULL');
CREATE TABLE IF NOT EXISTS hive.verdict.verdict_metrics (
  "metric_id" VARCHAR,
  "stat" VARCHAR,
  "percentile" DOUBLE,
  "value" DOUBLE,
  "source" VARCHAR,
  "dimension" VARCHAR,
  tool VARCHAR,
  run_id VARCHAR
)
WITH (format = 'PARQUET', external_location = 'history/table=metrics', partitioned_by = ARRAY['tool', 'run_id']);
CALL hive.system.sync_partition_metadata(schema_name => 'verdict', table_name => 'verdict_metrics', mode => 'FULL');

-- ttft: TTFT, in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> first streamed chunk carrying output (answer or reasoning); over successful streamed requests.
CREATE OR REPLACE VIEW hive.verdict.verdict_ttft AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.ttft_s AS value,
  'ttft' AS definition_id, 's' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.ttft_s IS NOT NULL;

-- ttft_answer: TTFT (answer), in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> first streamed chunk carrying answer content (reasoning excluded); over successful streamed requests with answer content.
CREATE OR REPLACE VIEW hive.verdict.verdict_ttft_answer AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.ttft_answer_s AS value,
  'ttft_answer' AS definition_id, 's' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.ttft_answer_s IS NOT NULL;

-- ttst: TTST, in s (registry version 1).
-- first streamed chunk carrying output -> second streamed chunk carrying output; over successful streamed requests with at least two chunks.
-- As SQL: the first chunk gap: first to second chunk carrying output.
-- Refused: runs flagged itl_includes_ttft.
-- Marked in uncertain_flags: itl_may_include_ttft.
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
CREATE OR REPLACE VIEW hive.verdict.verdict_ttst AS
SELECT q.run_id, r.tool, q."index" AS request_index, element_at(q.chunk_gaps_s, 1) AS value,
  'ttst' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['itl_may_include_ttft'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.chunk_gaps_s IS NOT NULL
  AND cardinality(q.chunk_gaps_s) >= 1
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['itl_includes_ttft']), false);

-- itl_chunk: ITL (per chunk), in s (registry version 1).
-- a streamed chunk carrying output -> the next streamed chunk carrying output of the same request; over gaps between consecutive chunks of successful requests, pooled over requests (long requests weigh more).
-- As SQL: one row per chunk gap, pooled over the run's requests.
-- Refused: runs flagged itl_includes_ttft.
-- Marked in uncertain_flags: itl_may_include_ttft.
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
CREATE OR REPLACE VIEW hive.verdict.verdict_itl_chunk AS
SELECT q.run_id, r.tool, q."index" AS request_index, g.value AS value,
  'itl_chunk' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['itl_may_include_ttft'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
CROSS JOIN UNNEST(q.chunk_gaps_s) AS g(value)
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.chunk_gaps_s IS NOT NULL
  AND g.value IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['itl_includes_ttft']), false);

-- tpot: TPOT, in s (registry version 1).
-- first streamed chunk carrying output (answer or reasoning) -> last streamed chunk carrying output, or the complete response when not streaming; (e2e - ttft) / (output_tokens - 1); over successful requests with output_tokens > 1.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, streaming_osl_may_be_inflated, tpot_definition_uncertain.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
--   tpot_definition_uncertain: TPOT may include the TTFT (vLLM before 2024-03-27)
CREATE OR REPLACE VIEW hive.verdict.verdict_tpot AS
SELECT q.run_id, r.tool, q."index" AS request_index, (q.e2e_s - q.ttft_s) / CAST(q.output_tokens - 1 AS DOUBLE) AS value,
  'tpot' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'streaming_osl_may_be_inflated', 'tpot_definition_uncertain'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.ttft_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND q.output_tokens IS NOT NULL
  AND q.output_tokens > 1
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- tpot_incl_ttft: TPOT including TTFT, in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> last output token; (t_last_token - t_sent) / output_tokens; over successful requests with output_tokens > 0.
-- As SQL: e2e_s runs from the request sent to the last output.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, llmperf_itl_divisor_uncertain, streaming_osl_may_be_inflated.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   llmperf_itl_divisor_uncertain: LLMPerf's ITL is over tokenizer tokens or streamed chunks, and the file cannot tell which (its code date is unknown)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_tpot_incl_ttft AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.e2e_s / CAST(q.output_tokens AS DOUBLE) AS value,
  'tpot_incl_ttft' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'llmperf_itl_divisor_uncertain', 'streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.e2e_s IS NOT NULL
  AND q.output_tokens IS NOT NULL
  AND q.output_tokens > 0
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- e2e: E2E latency, in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> last streamed chunk carrying output, or the complete response when not streaming; over successful requests.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
CREATE OR REPLACE VIEW hive.verdict.verdict_e2e AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.e2e_s AS value,
  'e2e' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.e2e_s IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- client_queue: Client queue time, in s (registry version 1).
-- request ready to send under the arrival schedule -> request sent (after any client-side concurrency wait); over all requests.
CREATE OR REPLACE VIEW hive.verdict.verdict_client_queue AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.queue_s AS value,
  'client_queue' AS definition_id, 's' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.queue_s IS NOT NULL;

-- e2e_incl_client_queue: E2E latency incl. client queue, in s (registry version 1).
-- request ready to send under the arrival schedule -> last streamed chunk carrying output, or the complete response when not streaming; over successful requests.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
CREATE OR REPLACE VIEW hive.verdict.verdict_e2e_incl_client_queue AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.queue_s + q.e2e_s AS value,
  'e2e_incl_client_queue' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.queue_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- input_tokens: Input tokens, in tokens (registry version 1).
-- Prompt tokens per request. The count's source (client tokenizer with or without template, or server usage) is recorded per run.; over successful requests.
CREATE OR REPLACE VIEW hive.verdict.verdict_input_tokens AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.input_tokens AS DOUBLE) AS value,
  'input_tokens' AS definition_id, 'tokens' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.input_tokens IS NOT NULL;

-- output_tokens: Output tokens, in tokens (registry version 1).
-- Generated tokens per request, reasoning included when the server counts it. The count's source is recorded per run.; over successful requests.
-- Marked in uncertain_flags: streaming_osl_may_be_inflated.
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_output_tokens AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.output_tokens AS DOUBLE) AS value,
  'output_tokens' AS definition_id, 'tokens' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.output_tokens IS NOT NULL;

-- reasoning_tokens: Reasoning tokens, in tokens (registry version 1).
-- Tokens of server-split reasoning_content per request.; over successful requests.
CREATE OR REPLACE VIEW hive.verdict.verdict_reasoning_tokens AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.reasoning_tokens AS DOUBLE) AS value,
  'reasoning_tokens' AS definition_id, 'tokens' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.reasoning_tokens IS NOT NULL;

-- decode_time_per_output_token: Decode time per output token, in s (registry version 1).
-- first streamed chunk carrying output (answer or reasoning) -> last streamed chunk carrying output, or the complete response when not streaming; (t_last_token - t_first_token) / output_tokens; over successful requests with output_tokens > 0.
-- As SQL: e2e_s - ttft_s is the first to the last output token.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, streaming_osl_may_be_inflated.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_decode_time_per_output_token AS
SELECT q.run_id, r.tool, q."index" AS request_index, (q.e2e_s - q.ttft_s) / CAST(q.output_tokens AS DOUBLE) AS value,
  'decode_time_per_output_token' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.ttft_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND q.output_tokens IS NOT NULL
  AND q.output_tokens > 0
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- tpot_incl_ttft_per_chunk: TPOT including TTFT (per chunk), in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> last streamed chunk carrying output; (t_last_chunk - t_sent) / streamed content chunks; over successful streamed requests.
-- As SQL: e2e_s / chunks, the chunks being len(chunk_gaps_s) + 1.
-- Refused: runs flagged e2e_ends_at_done_event, itl_includes_ttft.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, itl_may_include_ttft.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
CREATE OR REPLACE VIEW hive.verdict.verdict_tpot_incl_ttft_per_chunk AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.e2e_s / CAST(cardinality(q.chunk_gaps_s) + 1 AS DOUBLE) AS value,
  'tpot_incl_ttft_per_chunk' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'itl_may_include_ttft'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.e2e_s IS NOT NULL
  AND q.chunk_gaps_s IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false);

-- request_output_chunk_rate: Output chunk rate per request, in chunks/s (registry version 1).
-- streamed content chunks / e2e, per request; over successful streamed requests.
-- As SQL: chunks / e2e_s, the chunks being len(chunk_gaps_s) + 1; a request with e2e 0 has no finite rate and is left out.
-- Refused: runs flagged e2e_ends_at_done_event, itl_includes_ttft.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, itl_may_include_ttft.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
CREATE OR REPLACE VIEW hive.verdict.verdict_request_output_chunk_rate AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(cardinality(q.chunk_gaps_s) + 1 AS DOUBLE) / q.e2e_s AS value,
  'request_output_chunk_rate' AS definition_id, 'chunks/s' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'itl_may_include_ttft'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.e2e_s IS NOT NULL
  AND q.chunk_gaps_s IS NOT NULL
  AND q.e2e_s > 0
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false);

-- output_token_rate_per_user: Output token rate per user, in tokens/s/user (registry version 1).
-- 1 / tpot, per request; over successful streamed requests with output_tokens > 1.
-- As SQL: 1 / tpot; a request whose TPOT is 0 has no finite rate and is left out.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, streaming_osl_may_be_inflated.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_output_token_rate_per_user AS
SELECT q.run_id, r.tool, q."index" AS request_index, 1 / ((q.e2e_s - q.ttft_s) / CAST(q.output_tokens - 1 AS DOUBLE)) AS value,
  'output_token_rate_per_user' AS definition_id, 'tokens/s/user' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.ttft_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND q.output_tokens IS NOT NULL
  AND q.output_tokens > 1
  AND q.e2e_s > q.ttft_s
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- e2e_output_token_rate: E2E output token rate, in tokens/s/user (registry version 1).
-- output_tokens / e2e, per request; over successful requests.
-- As SQL: a request with e2e 0 has no finite rate and is left out.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, llmperf_rate_count_uncertain, streaming_osl_may_be_inflated.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   llmperf_rate_count_uncertain: LLMPerf's per-request rate counts tokens or chunks, and the file cannot tell which (its code date is unknown)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_e2e_output_token_rate AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.output_tokens AS DOUBLE) / q.e2e_s AS value,
  'e2e_output_token_rate' AS definition_id, 'tokens/s/user' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'llmperf_rate_count_uncertain', 'streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.output_tokens IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND q.e2e_s > 0
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- prefill_rate_per_user: Prefill rate per user, in tokens/s/user (registry version 1).
-- input_tokens / ttft, per request; over successful streamed requests.
-- As SQL: a request with TTFT 0 has no finite rate and is left out.
CREATE OR REPLACE VIEW hive.verdict.verdict_prefill_rate_per_user AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.input_tokens AS DOUBLE) / q.ttft_s AS value,
  'prefill_rate_per_user' AS definition_id, 'tokens/s/user' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.input_tokens IS NOT NULL
  AND q.ttft_s IS NOT NULL
  AND q.ttft_s > 0;

-- input_tokens_failed: Input tokens (failed requests), in tokens (registry version 1).
-- Prompt tokens of each failed request (AIPerf error_isl).; over failed requests.
CREATE OR REPLACE VIEW hive.verdict.verdict_input_tokens_failed AS
SELECT q.run_id, r.tool, q."index" AS request_index, CAST(q.input_tokens AS DOUBLE) AS value,
  'input_tokens_failed' AS definition_id, 'tokens' AS unit, 1 AS registry_version,
  CAST(ARRAY[] AS ARRAY(VARCHAR)) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'error'
  AND q.input_tokens IS NOT NULL;

-- tpot_incl_ttft_zero_filled: TPOT including TTFT (0 for empty outputs), in s (registry version 1).
-- request sent (after any client-side concurrency wait) -> last streamed chunk carrying output, or the complete response when not streaming; e2e / output_tokens, and 0 for a request with 0 output tokens; over successful requests, those with 0 output tokens counted as 0.
-- As SQL: e2e_s / output_tokens, and 0 for a request with no output tokens.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, streaming_osl_may_be_inflated.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
CREATE OR REPLACE VIEW hive.verdict.verdict_tpot_incl_ttft_zero_filled AS
SELECT q.run_id, r.tool, q."index" AS request_index, CASE WHEN q.output_tokens = 0 THEN 0 ELSE q.e2e_s / CAST(q.output_tokens AS DOUBLE) END AS value,
  'tpot_incl_ttft_zero_filled' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'streaming_osl_may_be_inflated'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND q.e2e_s IS NOT NULL
  AND q.output_tokens IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- tpot_per_chunk: TPOT (per chunk), in s (registry version 1).
-- first streamed chunk carrying output (answer or reasoning) -> last streamed chunk carrying output, or the complete response when not streaming; (t_last_chunk - t_first_chunk) / (streamed chunks - 1), per request; over successful streamed requests with at least two chunks.
-- As SQL: (e2e_s - ttft_s) / (chunks - 1), the chunks being len(chunk_gaps_s) + 1.
-- Refused: runs flagged e2e_ends_at_done_event, itl_includes_ttft.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped, itl_may_include_ttft.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
CREATE OR REPLACE VIEW hive.verdict.verdict_tpot_per_chunk AS
SELECT q.run_id, r.tool, q."index" AS request_index, (q.e2e_s - q.ttft_s) / CAST(cardinality(q.chunk_gaps_s) AS DOUBLE) AS value,
  'tpot_per_chunk' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped', 'itl_may_include_ttft'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.ttft_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND q.chunk_gaps_s IS NOT NULL
  AND cardinality(q.chunk_gaps_s) >= 1
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false);

-- decode_span: Decode time, in s (registry version 1).
-- first streamed chunk carrying output (answer or reasoning) -> last streamed chunk carrying output, or the complete response when not streaming; e2e - ttft, per request; over successful streamed requests.
-- Refused: runs flagged e2e_ends_at_done_event.
-- Marked in uncertain_flags: e2el_mean_median_may_be_swapped.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
CREATE OR REPLACE VIEW hive.verdict.verdict_decode_span AS
SELECT q.run_id, r.tool, q."index" AS request_index, q.e2e_s - q.ttft_s AS value,
  'decode_span' AS definition_id, 's' AS unit, 1 AS registry_version,
  coalesce(array_sort(array_intersect(r.flags, ARRAY['e2el_mean_median_may_be_swapped'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM hive.verdict.verdict_requests q
JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
WHERE q.phase = 'profiling'
  AND q.status = 'ok'
  AND coalesce(r.streaming, true)
  AND q.ttft_s IS NOT NULL
  AND q.e2e_s IS NOT NULL
  AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- Runs whose version flags change a definition: the definition's view has no rows of them.
CREATE OR REPLACE VIEW hive.verdict.verdict_refusals AS
SELECT r.run_id, r.tool, 'ttst' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['itl_includes_ttft'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['itl_includes_ttft']), false)
UNION ALL
SELECT r.run_id, r.tool, 'itl_chunk' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['itl_includes_ttft'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['itl_includes_ttft']), false)
UNION ALL
SELECT r.run_id, r.tool, 'tpot' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'tpot_incl_ttft' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'e2e' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'e2e_incl_client_queue' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'decode_time_per_output_token' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'tpot_incl_ttft_per_chunk' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false)
UNION ALL
SELECT r.run_id, r.tool, 'request_output_chunk_rate' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false)
UNION ALL
SELECT r.run_id, r.tool, 'output_token_rate_per_user' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'e2e_output_token_rate' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'tpot_incl_ttft_zero_filled' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false)
UNION ALL
SELECT r.run_id, r.tool, 'tpot_per_chunk' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false)
UNION ALL
SELECT r.run_id, r.tool, 'decode_span' AS definition_id, array_sort(array_intersect(r.flags, ARRAY['e2e_ends_at_done_event'])) AS flags, 1 AS registry_version
FROM hive.verdict.verdict_runs r
WHERE coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event']), false);

-- The observations verdict_stats summarises: ttft, ttft_answer, tpot, itl_chunk, e2e, client_queue, input_tokens, output_tokens.
CREATE OR REPLACE VIEW hive.verdict.verdict_observations AS
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_ttft
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_ttft_answer
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_tpot
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_itl_chunk
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_e2e
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_client_queue
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_input_tokens
UNION ALL
SELECT run_id, definition_id AS metric_id, value FROM hive.verdict.verdict_output_tokens;

-- Observations per run and metric (verdict stats' n).
CREATE OR REPLACE VIEW hive.verdict.verdict_stat_count AS
SELECT run_id, metric_id, 'count' AS stat, CAST(NULL AS DOUBLE) AS percentile, CAST(count(*) AS DOUBLE) AS value
FROM hive.verdict.verdict_observations
GROUP BY run_id, metric_id;

-- Means.
CREATE OR REPLACE VIEW hive.verdict.verdict_stat_mean AS
SELECT run_id, metric_id, 'mean' AS stat, CAST(NULL AS DOUBLE) AS percentile, avg(value) AS value
FROM hive.verdict.verdict_observations
GROUP BY run_id, metric_id;

-- Population standard deviations (ddof 0, numpy's default), in two passes as verdict computes
-- them: the mean of the squared deviations from the mean, whose rounding error does not grow with
-- the mean's size as stddev_pop's one-pass update can.
CREATE OR REPLACE VIEW hive.verdict.verdict_stat_std AS
SELECT o.run_id, o.metric_id, 'std' AS stat, CAST(NULL AS DOUBLE) AS percentile, sqrt(avg((o.value - m.value) * (o.value - m.value))) AS value
FROM hive.verdict.verdict_observations o
JOIN hive.verdict.verdict_stat_mean m ON m.run_id = o.run_id AND m.metric_id = o.metric_id
GROUP BY o.run_id, o.metric_id;

-- Percentiles, method nearest_rank_floor (see the note at the top).
CREATE OR REPLACE VIEW hive.verdict.verdict_stat_percentile AS
SELECT run_id, metric_id, 'p' AS stat, percentile, element_at(x, i + 1) AS value
  FROM (
    SELECT s.run_id, s.metric_id, c.percentile, s.n, s.x, p * CAST(n - 1 AS DOUBLE) AS h, least(CAST(floor(CAST(n AS DOUBLE) * p) AS BIGINT), n - 1) AS i
    FROM (SELECT run_id, metric_id, count(*) AS n, array_agg(value ORDER BY value) AS x FROM hive.verdict.verdict_observations GROUP BY run_id, metric_id) s
    CROSS JOIN (VALUES (5e+01, 5e-01), (9.99e+01, 9.990000000000001e-01)) AS c(percentile, p)
  ) ranked
;

-- Goodput under --slo ttft=200ms,tpot=50ms,itl=100ms,e2e=10s (limits inclusive, as vLLM's --goodput): a successful request is good
-- when every limited value is known and within its limit; an unknown value is not good. TPOT is
-- (e2e - ttft)/(output_tokens - 1), and 0 for a request with one output token or none, as vLLM
-- counts it; an ITL limit applies to every chunk gap: unknown gaps (NULL) are not good, one chunk (no gap) meets it.
-- share = good / profiling requests (failed ones count against it); rate = good / the run's
-- duration_s, labelled goodput over a dispatch window and goodput_span over a span window.
-- Refused: runs flagged e2e_ends_at_done_event, itl_includes_ttft.
--   e2e_ends_at_done_event: E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)
--   e2el_mean_median_may_be_swapped: mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)
--   goodput_may_mispair_slos: GenAI-Perf may pair SLOs with the wrong requests
--   itl_includes_ttft: the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)
--   itl_may_include_ttft: the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)
--   streaming_osl_may_be_inflated: output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)
--   tpot_definition_uncertain: TPOT may include the TTFT (vLLM before 2024-03-27)
CREATE OR REPLACE VIEW hive.verdict.verdict_goodput AS
SELECT run_id, tool, CASE WHEN window_kind = 'span' THEN 'goodput_span' ELSE 'goodput' END AS goodput_id,
  total, successful, good,
  CAST(good AS DOUBLE) / CAST(total AS DOUBLE) AS share,
  CASE WHEN duration_s > 0 THEN CAST(good AS DOUBLE) / duration_s END AS rate,
  1 AS registry_version, coalesce(array_sort(array_intersect(flags, ARRAY['e2el_mean_median_may_be_swapped', 'goodput_may_mispair_slos', 'itl_may_include_ttft', 'streaming_osl_may_be_inflated', 'tpot_definition_uncertain'])), CAST(ARRAY[] AS ARRAY(VARCHAR))) AS uncertain_flags
FROM (
  SELECT q.run_id, r.tool, r.window_kind, r.duration_s, r.flags,
    count(*) AS total,
    count(CASE WHEN q.status = 'ok' THEN 1 END) AS successful,
    count(CASE WHEN q.status = 'ok'
      AND q.ttft_s IS NOT NULL AND q.ttft_s <= 2e-01
      AND q.output_tokens IS NOT NULL AND (q.output_tokens <= 1 OR (q.e2e_s IS NOT NULL AND q.ttft_s IS NOT NULL AND (q.e2e_s - q.ttft_s) / CAST(q.output_tokens - 1 AS DOUBLE) <= 5e-02))
      AND q.chunk_gaps_s IS NOT NULL AND coalesce(array_max(q.chunk_gaps_s) <= 1e-01, true)
      AND q.e2e_s IS NOT NULL AND q.e2e_s <= 1e+01 THEN 1 END) AS good
  FROM hive.verdict.verdict_requests q
  JOIN hive.verdict.verdict_runs r ON r.run_id = q.run_id
  WHERE q.phase = 'profiling'
    AND NOT coalesce(arrays_overlap(r.flags, ARRAY['e2e_ends_at_done_event', 'itl_includes_ttft']), false)
  GROUP BY q.run_id, r.tool, r.window_kind, r.duration_s, r.flags
) counted;

-- What verdict stats --ci 0 --percentiles 50,99.9 --method nearest_rank_floor --slo ttft=200ms,tpot=50ms,itl=100ms,e2e=10s prints, one row per number:
--   SELECT * FROM verdict_stats ORDER BY run_id, metric_id, stat, percentile;
-- A run without request rows shows the statistics its tool reported for the whole run (not
-- per endpoint or other dimension), as verdict stats does.
CREATE OR REPLACE VIEW hive.verdict.verdict_stats AS
SELECT run_id, metric_id AS metric_id, stat AS stat, percentile AS percentile, value AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_stat_count
UNION ALL
SELECT run_id, metric_id AS metric_id, stat AS stat, percentile AS percentile, value AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_stat_mean
UNION ALL
SELECT run_id, metric_id AS metric_id, stat AS stat, percentile AS percentile, value AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_stat_std
UNION ALL
SELECT run_id, metric_id AS metric_id, stat AS stat, percentile AS percentile, value AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_stat_percentile
UNION ALL
SELECT run_id, goodput_id AS metric_id, 'value' AS stat, CAST(NULL AS DOUBLE) AS percentile, rate AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_goodput
UNION ALL
SELECT run_id, 'good_requests' AS metric_id, 'value' AS stat, CAST(NULL AS DOUBLE) AS percentile, CAST(good AS DOUBLE) AS value, 'computed' AS source, 1 AS registry_version FROM hive.verdict.verdict_goodput
UNION ALL
SELECT m.run_id, m.metric_id, m.stat, m.percentile, m.value, 'reported' AS source, 1 AS registry_version
FROM hive.verdict.verdict_metrics m
JOIN hive.verdict.verdict_runs r ON r.run_id = m.run_id
WHERE m.source = 'reported'
  AND coalesce(m.dimension, '') = ''
  AND m.run_id NOT IN (SELECT run_id FROM hive.verdict.verdict_requests);
