"""Writes the hand-made genai-bench fixtures of this directory.

The per-request metrics are made up; aggregated_metrics is computed from
them the way genai-bench's aggregated_metrics_collector.py does (see
docs/formats/genai-bench.md): requests with an error_code are left out, the
first int(n * warmup_ratio) and last int(n * cooldown_ratio) requests are
trimmed by position (n counts every request), statistics are min, max,
mean, numpy's population std, sum and numpy's linear percentiles
(implemented here exactly), the mean_*_throughput_tokens_per_s are sums
over run_duration. The result is written in milliseconds (metrics_time_unit
ms): ttft, tpot, e2e_latency and output_latency only.

Run: python3 make_fixtures.py (from this directory).
"""
import json, math

def lerp(a, b, t):
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t

def percentile(xs, p):
    s = sorted(xs)
    h = (len(s) - 1) * (p / 100)
    lo = math.floor(h)
    if lo + 1 >= len(s):
        return float(s[-1])
    return float(lerp(s[lo], s[lo + 1], h - lo))

def pstd(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))

WARMUP, COOLDOWN, DURATION = 0.2, 0.1, 12.5
# (ttft s, e2e s, input tokens, output tokens, error)
RAW = [(0.25, 1.25, 100, 101, None), (0.5, 1.5, 100, 101, None), (0.125, 1.125, 100, 101, None),
       (0.375, 2.375, 120, 201, None), (0.25, 0.25, 100, 0, 503), (0.3125, 1.3125, 90, 81, None),
       (0.1875, 1.1875, 100, 101, None), (0.4375, 2.4375, 110, 161, None), (0.25, 1.0, 100, 76, None),
       (0.625, 1.625, 100, 101, None)]

def request(ttft, e2e, inp, out, err):
    if err:
        return {"ttft": None, "tpot": None, "e2e_latency": e2e, "output_latency": None, "output_inference_speed": None,
                "num_input_tokens": inp, "num_output_tokens": None, "total_tokens": None, "input_throughput": None,
                "output_throughput": None, "error_code": err, "error_message": "Service Unavailable"}
    ol = e2e - ttft
    tpot = ol / (out - 1)
    return {"ttft": ttft, "tpot": tpot, "e2e_latency": e2e, "output_latency": ol, "output_inference_speed": 1 / tpot,
            "num_input_tokens": inp, "num_output_tokens": out, "total_tokens": inp + out, "input_throughput": inp / ttft,
            "output_throughput": (out - 1) / ol, "error_code": None, "error_message": None}

reqs = [request(*r) for r in RAW]
n = len(reqs)
warm, cool = int(n * WARMUP), int(n * COOLDOWN)
keys = [k for k in reqs[0] if k not in ("error_code", "error_message")]
stats = {}
for k in keys:
    vals = [r[k] for i, r in enumerate(reqs) if not r["error_code"] and r[k] is not None and warm <= i < n - cool]
    st = {"min": min(vals), "max": max(vals), "mean": sum(vals) / len(vals), "stddev": pstd(vals), "sum": sum(vals)}
    for p in (25, 50, 75, 90, 95, 99):
        st["p%d" % p] = percentile(vals, p)
    stats[k] = st
errors = sum(1 for r in reqs if r["error_code"])
agg = {"scenario": "N(480,240)/(300,150)", "num_concurrency": 4, "batch_size": 1, "iteration_type": "num_concurrency",
       "run_duration": DURATION,
       "mean_output_throughput_tokens_per_s": stats["num_output_tokens"]["sum"] / DURATION,
       "mean_input_throughput_tokens_per_s": stats["num_input_tokens"]["sum"] / DURATION,
       "mean_total_tokens_throughput_tokens_per_s": stats["total_tokens"]["sum"] / DURATION,
       "requests_per_second": (n - errors) / DURATION, "error_codes_frequency": {"503": errors},
       "error_rate": errors / n, "num_error_requests": errors, "num_completed_requests": n - errors, "num_requests": n,
       "stats": stats}

MS = ("ttft", "tpot", "e2e_latency", "output_latency")
def to_ms(d):
    return {k: (v * 1000 if k in MS and isinstance(v, (int, float)) else v) for k, v in d.items()}
agg["stats"] = {k: ({s: v * 1000 for s, v in st.items()} if k in MS else st) for k, st in stats.items()}
with open("experiment/N480_240_300_150_text-to-text_num_concurrency_4_time_60s.json", "w") as f:
    json.dump({"aggregated_metrics": agg, "individual_request_metrics": [to_ms(r) for r in reqs], "_time_unit": "ms"}, f, indent=4)
meta = {"cmd": "genai-bench benchmark --api-backend openai --api-base http://user:pw@10.0.0.7:8000 --api-key sk-secret "
               "--task text-to-text --num-concurrency 4 --traffic-scenario N(480,240)/(300,150) --warmup-ratio 0.2 --cooldown-ratio 0.1 "
               "--metrics-time-unit ms",
        "benchmark_version": "0.0.3", "api_backend": "openai", "auth_config": {"api_key": "sk-secret"}, "api_model_name": "demo/model-8b",
        "server_model_tokenizer": "demo/model-8b", "model": "model-8b", "task": "text-to-text", "num_concurrency": [4], "batch_size": [1],
        "iteration_type": "num_concurrency", "traffic_scenario": ["N(480,240)/(300,150)"], "additional_request_params": {},
        "server_engine": "vLLM", "server_version": "0.11.0", "server_gpu_type": "H100", "server_gpu_count": 2,
        "max_time_per_run_s": 60, "max_requests_per_run": 10, "experiment_folder_name": "/tmp/exp", "metrics_time_unit": "ms",
        "dataset_path": "None"}
with open("experiment/experiment_metadata.json", "w") as f:
    json.dump(meta, f, indent=4)
