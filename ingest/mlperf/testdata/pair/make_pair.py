#!/usr/bin/env python3
"""Writes two made-up MLPerf Server submissions of one benchmark in the
layout of a submission tree, each with the summary and the detail log
LoadGen writes for a performance run (the keys, wording and number
formats of LoadGen 5.1's logs): <system>/llama2-70b-99/Server/performance/
run_1/mlperf_log_{summary,detail}.txt. Both meet the same TTFT/TPOT limits
(2 s, 200 ms at p99); system-b was tuned to a higher target QPS. system-c
ran under a looser TPOT limit. Pure Python: python3 make_pair.py
"""
import json
import os

SYSTEMS = {
    # name: (target qps, completed samples/s, ttft p99 ns, tpot p99 ns, tpot limit ns)
    "system-a": (10.5, 10.38, 1800000000, 150000000, 200000000),
    "system-b": (14.0, 13.71, 1900000000, 190000000, 200000000),
    "system-c": (16.0, 15.62, 1950000000, 240000000, 300000000),
}


def detail_line(key, value):
    meta = {"is_error": False, "is_warning": False, "file": "loadgen.cc", "line_no": 1, "pid": 7, "tid": 7}
    return ":::MLLOG " + json.dumps({"key": key, "value": value, "time_ms": 0.0, "namespace": "mlperf::logging",
                                     "event_type": "POINT_IN_TIME", "metadata": meta}) + "\n"


for name, (qps, done, ttft99, tpot99, tpot_limit) in SYSTEMS.items():
    d = os.path.join(name, "llama2-70b-99", "Server", "performance", "run_1")
    os.makedirs(d, exist_ok=True)
    queries = int(qps * 660)
    tokens = round(done * 290.0, 1)
    detail = [
        ("loadgen_version", "5.1.0 @ 091d51f041"), ("test_datetime", "2025-07-31T10:00:00Z"), ("sut_name", "PySUT"),
        ("requested_scenario", "Server"), ("requested_test_mode", "PerformanceOnly"), ("requested_server_target_qps", qps),
        ("requested_use_token_latencies", True), ("requested_server_ttft_latency", 2000000000),
        ("requested_server_tpot_latency", tpot_limit), ("effective_scenario", "Server"), ("effective_test_mode", "PerformanceOnly"),
        ("effective_target_qps", qps), ("effective_target_latency_ns", 0), ("effective_target_latency_percentile", 0.99),
        ("effective_samples_per_query", 1), ("generated_query_count", queries), ("generated_samples_per_query", 1),
        ("result_validity", "VALID"), ("result_perf_constraints_met", True), ("result_min_duration_met", True),
        ("result_min_queries_met", True), ("early_stopping_met", True), ("early_stopping_ttft_result", " * Run successful."),
        ("early_stopping_tpot_result", " * Run successful."), ("result_query_count", queries),
        ("result_scheduled_samples_per_sec", round(qps * 0.998, 4)), ("result_completed_samples_per_sec", done),
        ("result_min_latency_ns", 900000000), ("result_max_latency_ns", 90000000000), ("result_mean_latency_ns", 40000000000),
        ("result_99.00_percentile_latency_ns", 80000000000),
        ("result_first_token_min_latency_ns", 40000000), ("result_first_token_max_latency_ns", 3000000000),
        ("result_first_token_mean_latency_ns", 900000000), ("result_first_token_99.00_percentile_latency_ns", ttft99),
        ("result_time_per_output_token_99.00_percentile_ns", tpot99), ("result_time_to_output_token_min", 30000000),
        ("result_time_to_output_token_max", 300000000), ("result_time_to_output_token_mean", 140000000),
        ("result_completed_tokens_per_second", tokens), ("num_errors", 0),
    ]
    with open(os.path.join(d, "mlperf_log_detail.txt"), "w") as f:
        for k, v in detail:
            f.write(detail_line(k, v))
    summary = f"""================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : Server
Mode     : PerformanceOnly
Completed samples per second    : {done:.2f}
Completed tokens per second: {tokens:.2f}
Result is : VALID
  Performance constraints satisfied : Yes
  Min duration satisfied : Yes
  Min queries satisfied : Yes
  Early stopping satisfied: Yes
TTFT Early Stopping Result:
 * Run successful.
TPOT Early Stopping Result:
 * Run successful.

================================================
Additional Stats
================================================
Scheduled samples per second : {qps * 0.998:.2f}
Min latency (ns)                : 900000000
Max latency (ns)                : 90000000000
Mean latency (ns)               : 40000000000
99.00 percentile latency (ns)   : 80000000000

Min First Token latency (ns)                : 40000000
Max First Token latency (ns)                : 3000000000
Mean First Token latency (ns)               : 900000000
99.00 percentile first token latency (ns)   : {ttft99}

Min Time to Output Token (ns)                : 30000000
Max Time to Output Token (ns)                : 300000000
Mean Time to Output Token (ns)               : 140000000
99.00 percentile time to output token (ns)   : {tpot99}

================================================
Test Parameters Used
================================================
samples_per_query : 1
target_qps : {qps}
ttft_latency (ns): 2000000000
tpot_latency (ns): {tpot_limit}
max_async_queries : 0
min_duration (ms): 600000
max_duration (ms): 0
min_query_count : 100
max_query_count : 0

No warnings encountered during test.

No errors encountered during test.
"""
    with open(os.path.join(d, "mlperf_log_summary.txt"), "w") as f:
        f.write(summary)
