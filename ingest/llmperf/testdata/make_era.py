#!/usr/bin/env python3
"""Writes oneperchunk_summary.json and oneperchunk_individual_responses.json:
a made-up LLMPerf run of December 2023 (the code before 2024-04-07) whose
server streams one token per chunk. That code's per-request rate counts
chunks (request_output_throughput_token_per_s = chunks / latency), and
number_output_tokens is the tokenizer's count of the text, BOS included,
so the rate times the latency is one token short of the count: within 2%,
but not exact as the later code's tokens / latency is. Its ITL is the sum
of the gaps, TTFT included, over the tokenizer's count.

The summary is computed from the responses as token_benchmark_ray.py does
(pandas linear quantiles, mean, min, max, std with ddof=1, min and max of
token counts as strings). Pure Python: python3 make_era.py
"""
import json
import math

QS = [0.25, 0.5, 0.75, 0.9, 0.95, 0.99]


def quantile(xs, q):
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    t = h - lo
    a, b = s[lo], s[hi]
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


def std(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


resp = []
for i, (n_out, ttft, gap) in enumerate([(101, 0.31, 0.020), (121, 0.28, 0.021), (95, 0.35, 0.019),
                                        (140, 0.30, 0.022), (110, 0.33, 0.020), (131, 0.29, 0.021)]):
    chunks = n_out - 1  # one token per chunk; the count adds BOS
    t_last = ttft + gap * (chunks - 1)
    e2e = t_last + 0.003
    resp.append({"error_code": None, "error_msg": "", "inter_token_latency_s": t_last / n_out, "ttft_s": ttft,
                 "end_to_end_latency_s": e2e, "request_output_throughput_token_per_s": chunks / e2e,
                 "number_total_tokens": 500 + n_out, "number_output_tokens": n_out, "number_input_tokens": 500})
with open("oneperchunk_individual_responses.json", "w") as f:
    json.dump(resp, f, indent=4)

summary = {"version": "2023-08-31", "name": "demo-model_500_120_summary", "model": "demo-model", "mean_input_tokens": 500,
           "stddev_input_tokens": 0, "mean_output_tokens": 120, "stddev_output_tokens": 0, "num_concurrent_requests": 2}
for key in ["inter_token_latency_s", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s",
            "number_input_tokens", "number_output_tokens"]:
    xs = [float(r[key]) for r in resp]
    for q in QS:
        summary[f"results_{key}_quantiles_p{int(q * 100)}"] = quantile(xs, q)
    summary[f"results_{key}_mean"] = sum(xs) / len(xs)
    lo, hi = min(xs), max(xs)
    if key.startswith("number_"):
        lo, hi = str(int(lo)), str(int(hi))
    summary[f"results_{key}_min"] = lo
    summary[f"results_{key}_max"] = hi
    summary[f"results_{key}_stddev"] = std(xs)
summary.update({"results_num_requests_started": len(resp), "results_error_rate": 0.0, "results_number_errors": 0,
                "results_error_code_frequency": "{}", "results_mean_output_throughput_token_per_s": 120.5,
                "results_num_completed_requests": len(resp), "results_num_completed_requests_per_min": 40.0,
                "timestamp": 1703638329})
with open("oneperchunk_summary.json", "w") as f:
    json.dump(summary, f, indent=4)
