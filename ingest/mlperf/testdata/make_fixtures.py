#!/usr/bin/python3
"""Writes the hand-made LoadGen detail logs of this directory in LoadGen's
line layout (":::MLLOG " + a JSON object with key, value, time_ms,
namespace, event_type and metadata). Strings are written the way LoadGen
writes them: quoted, not escaped, which is how the unescaped-quote line
below is made. Percentiles follow LoadGen: sorted[floor(n*p)].

Run with any python3: python3 make_fixtures.py
"""
import json
import os


def line(key, value, t=0.0, err=False, warn=False, raw=None):
    v = raw if raw is not None else json.dumps(value)
    return (':::MLLOG {"key": "%s", "value": %s, "time_ms": %.6f, "namespace": "mlperf::logging", '
            '"event_type": "POINT_IN_TIME", "metadata": {"is_error": %s, "is_warning": %s, "file": "demo.cc", "line_no": 1, '
            '"pid": 1, "tid": 1}}\n') % (key, v, t, "true" if err else "false", "true" if warn else "false")


def server_token():
    out = [line("loadgen_version", "6.0.1 @ abcdef1234"), line("test_datetime", "2026-11-30T10:00:00Z"),
           line("sut_name", "DemoSUT"), line("requested_scenario", "Server"), line("requested_test_mode", "PerformanceOnly"),
           line("requested_server_target_qps", 10.5), line("requested_use_token_latencies", True),
           line("requested_server_ttft_latency", 2000000000), line("requested_server_tpot_latency", 100000000),
           line("effective_scenario", "Server"), line("effective_test_mode", "PerformanceOnly"), line("effective_target_qps", 10.5),
           line("effective_target_latency_ns", 0), line("effective_target_latency_percentile", 0.99),
           line("effective_samples_per_query", 1), line("effective_sample_index_rng_seed", None, raw="14771362308971278857"),
           line("loaded_qsl_set", list(range(40))), line("generated_query_count", 1000), line("generated_samples_per_query", 1),
           line("sut_description", None, raw='"demo "quoted" SUT"'),
           line("sut_name", "AnotherName"),
           line("warning_generic_message", "demo warning from the SUT", 5.0, warn=True),
           line("error_runtime", "Sample 17 reported 1 token", 6.0, err=True),
           "this line is not a LoadGen line\n",
           ':::MLLOG {"key": "result_bogus", "value": inf, "time_ms": 7.0}\n',
           line("result_validity", "INVALID", 9.0), line("result_perf_constraints_met", False, 9.0),
           line("result_min_duration_met", True, 9.0), line("result_min_queries_met", True, 9.0), line("early_stopping_met", False, 9.0),
           line("result_invalid_reason", "TTFT constrain not met: Reduce target QPS to improve latency. ", 9.0),
           line("early_stopping_ttft_result", "", 9.0),
           line("early_stopping_tpot_result", " * Run unsuccessful. * Processed 1000 queries. * Would need to run at least 1 more queries, with the run being successful if every additional query were under latency.", 9.0),
           line("result_query_count", 1000, 9.0), line("result_overlatency_query_count", 1000, 9.0),
           line("result_scheduled_samples_per_sec", 10.4, 9.0), line("result_completed_samples_per_sec", 10.1, 9.0),
           line("result_min_latency_ns", 900000000, 9.0), line("result_max_latency_ns", 9000000000, 9.0),
           line("result_mean_latency_ns", 4000000000, 9.0), line("result_99.00_percentile_latency_ns", 8500000000, 9.0),
           line("result_first_token_mean_latency_ns", 800000000, 9.0),
           line("result_first_token_99.00_percentile_latency_ns", 2100000000, 9.0),
           line("result_token_throughput_with_loadgen_overhead", 2600.5, 9.0), line("result_token_throughput", 2.5e-07, 9.0),
           line("result_time_per_output_token_99.00_percentile_ns", 95000000, 9.0),
           line("result_time_to_output_token_min", -5000, 9.0), line("result_time_to_output_token_mean", 60000000, 9.0),
           line("result_95.00_percentile_latency_ns", "bad", 9.0),
           line("result_completed_tokens_per_second", 2500.5, 9.0), line("num_errors", 1, 9.0)]
    return "".join(out)


def vector():
    """A SingleStream log whose latencies are 10, 20, ..., 100 ms."""
    x = [10_000_000 * (i + 1) for i in range(10)]
    out = [line("loadgen_version", "5.1.0 @ 091d51f041"), line("effective_scenario", "SingleStream"),
           line("effective_target_latency_percentile", 0.9), line("effective_samples_per_query", 1),
           line("result_validity", "INVALID"), line("result_min_queries_met", False), line("result_query_count", 10),
           line("result_qps_with_loadgen_overhead", 9.5), line("result_qps_without_loadgen_overhead", 1 / 0.055),
           line("early_stopping_latency_ss", 0), line("early_stopping_latency_ms", 0),
           line("result_min_latency_ns", x[0]), line("result_max_latency_ns", x[-1]), line("result_mean_latency_ns", sum(x) // 10)]
    for p in (0.25, 0.5, 0.75, 0.9, 0.99):
        out.append(line("result_%.2f_percentile_latency_ns" % (p * 100), x[min(int(10 * p), 9)]))
    return "".join(out)


def interactive():
    return "".join([line("loadgen_version", "6.0.1 @ abcdef1234"), line("effective_scenario", "Server"),
                    line("requested_use_token_latencies", True), line("effective_target_qps", 4.0),
                    line("requested_server_ttft_latency", 500000000), line("requested_server_tpot_latency", 30000000),
                    line("result_validity", "VALID"), line("result_query_count", 662),
                    line("result_first_token_99.00_percentile_latency_ns", 500000000),
                    line("result_time_per_output_token_99.00_percentile_ns", 29000000),
                    line("result_completed_tokens_per_second", 1200.0)])


open("server_token_detail.txt", "w").write(server_token())
open("vector_singlestream_detail.txt", "w").write(vector())
d = "submission/closed/Demo/results/demo-system/llama3.1-8b/Interactive/performance/run_1"
os.makedirs(d, exist_ok=True)
open(os.path.join(d, "mlperf_log_detail.txt"), "w").write(interactive())
open("not_mllog.txt", "w").write("MLPerf log of some other kind\n:::MLLOG {}\n")
