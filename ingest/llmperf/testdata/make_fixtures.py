#!/usr/bin/python3
"""Writes the hand-made LLMPerf results of this directory. The summary's
statistics are computed from the individual responses the way
token_benchmark_ray.py summarises them: over responses without error_code,
NaNs dropped, pandas-equivalent linear quantiles, mean, min, max and std
with ddof=1; min and max of the token counts written as strings (numpy
integers through json.dump(default=str)).

Run with Debian's python3-numpy: /usr/bin/python3 make_fixtures.py
"""
import json
import math

import numpy as np

rng = np.random.default_rng(20261201)
resp = []
for i in range(12):
    if i in (4, 9):
        code, msg = (429, "Too Many Requests") if i == 4 else (-1, "ReadTimeout")
        resp.append({"error_code": code, "error_msg": msg, "inter_token_latency_s": 0, "ttft_s": 0, "end_to_end_latency_s": 0,
                     "request_output_throughput_token_per_s": 0, "number_total_tokens": 551, "number_output_tokens": 1,
                     "number_input_tokens": 550})
        continue
    n_out = int(rng.integers(120, 160))
    chunks = n_out - int(rng.integers(0, 3))
    ttft = float(rng.uniform(0.2, 0.6))
    gaps = rng.uniform(0.015, 0.025, chunks - 1)
    t_last = ttft + float(np.sum(gaps))
    e2e = t_last + 0.002
    itl = t_last / chunks  # 2024-12 code: sum of gaps incl. TTFT over chunks
    r = {"error_code": None, "error_msg": "", "inter_token_latency_s": itl, "ttft_s": ttft, "end_to_end_latency_s": e2e,
         "request_output_throughput_token_per_s": n_out / e2e, "number_total_tokens": 550 + n_out,
         "number_output_tokens": n_out, "number_input_tokens": 550}
    if i == 7:
        r["inter_token_latency_s"] = float("nan")
    resp.append(r)

ok = [r for r in resp if r["error_code"] is None]


def stats(key):
    x = np.array([r[key] for r in ok], dtype=float)
    x = x[~np.isnan(x)]
    q = np.percentile(x, [25, 50, 75, 90, 95, 99])
    out = {f"results_{key}_quantiles_p{p}": float(v) for p, v in zip([25, 50, 75, 90, 95, 99], q)}
    out[f"results_{key}_mean"] = float(np.mean(x))
    mn, mx = float(np.min(x)), float(np.max(x))
    if key.startswith("number_"):
        out[f"results_{key}_min"], out[f"results_{key}_max"] = str(int(mn)), str(int(mx))
    else:
        out[f"results_{key}_min"], out[f"results_{key}_max"] = mn, mx
    out[f"results_{key}_stddev"] = float(np.std(x, ddof=1))
    return out


summary = {"version": "2023-08-31", "name": "demo-model_550_150_summary", "model": "demo/model", "mean_input_tokens": 550,
           "stddev_input_tokens": 0, "mean_output_tokens": 150, "stddev_output_tokens": 10, "num_concurrent_requests": 4,
           "additional_sampling_params_temperature": 0.0}
for k in ["inter_token_latency_s", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens"]:
    summary.update(stats(k))
summary.update({"results_num_requests_started": 12, "results_error_rate": 2 / 12, "results_number_errors": 2,
                "results_error_code_frequency": "{429: 1, -1: 1}",
                "results_mean_output_throughput_token_per_s": sum(r["number_output_tokens"] for r in ok) / 9.5,
                "results_num_completed_requests": len(ok), "results_num_completed_requests_per_min": len(ok) / 9.5 * 60,
                "deployment": "lab", "timestamp": 1767225600})

with open("demo_summary.json", "w") as f:
    json.dump(summary, f, indent=4)
with open("demo_individual_responses.json", "w") as f:
    json.dump(resp, f, indent=4)

# Ten responses whose TTFTs are 10, 20, ..., 100 s: pandas' linear
# quantiles give 32.5, 55, 77.5, 91 and 99.1 at p25, p50, p75, p90, p99.
vec = [{"error_code": None, "error_msg": "", "inter_token_latency_s": 0.05, "ttft_s": 10.0 * (i + 1),
        "end_to_end_latency_s": 10.0 * (i + 1) + 5, "request_output_throughput_token_per_s": 101 / (10.0 * (i + 1) + 5),
        "number_total_tokens": 201, "number_output_tokens": 101, "number_input_tokens": 100} for i in range(10)]
with open("vector_individual_responses.json", "w") as f:
    json.dump(vec, f, indent=4)

# The sagemaker client's lists of gaps (pooled by the summary).
lists = [{"error_code": None, "error_msg": "", "inter_token_latency_s": [0.3, 0.02, 0.021, 0.019], "ttft_s": 0.3,
          "end_to_end_latency_s": 0.361, "request_output_throughput_token_per_s": 5 / 0.361, "number_total_tokens": 105,
          "number_output_tokens": 5, "number_input_tokens": 100},
         {"error_code": None, "error_msg": "", "inter_token_latency_s": [0.25, 0.022], "ttft_s": 0.25,
          "end_to_end_latency_s": 0.273, "request_output_throughput_token_per_s": 3 / 0.273, "number_total_tokens": 103,
          "number_output_tokens": 3, "number_input_tokens": 100}]
with open("lists_individual_responses.json", "w") as f:
    json.dump(lists, f, indent=4)

bad = [dict(vec[0]), dict(vec[1]), dict(vec[2]), "oops", dict(vec[3]), dict(vec[4])]
bad[1]["ttft_s"] = "fast"
bad[2]["end_to_end_latency_s"] = -1.5
bad[4]["number_output_tokens"] = 12.5
with open("bad_individual_responses.json", "w") as f:
    json.dump(bad, f, indent=4)

with open("correctness_summary.json", "w") as f:
    json.dump({"model": "demo/model", "num_concurrent_requests": 2, "num_mismatched_requests": 1, "num_completed_requests": 10,
               "mismatch_rate": 0.1, "results_ttft_s_mean": 0.3}, f, indent=4)
with open("truncated_summary.json", "w") as f:
    f.write(json.dumps(summary, indent=4)[:700])
