#!/usr/bin/python3
"""Writes reasoning_zero/: an AIPerf artifacts directory (the layout of
AIPerf 0.5, docs/formats/aiperf.md) of a model that emits no reasoning.
profile_export.jsonl holds six records whose reasoning_token_count is 0,
so time_to_first_output_token equals time_to_first_token and
output_token_count equals output_sequence_length; one chunk per token;
times in integer nanoseconds, shown in ms; ITL = (latency - TTFT) /
(OSL - 1). profile_export_aiperf.json is computed from them as AIPerf does
(section 7: np.mean, np.percentile linear, np.std population, here in pure
Python); its reasoning_token_count is absent (AIPerf's "no value" for 0)
and total_reasoning_tokens is 0. The numbers are made up.

Pure Python: python3 make_reasoning_zero.py
"""
import json
import math
import os

PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99]


def percentile(xs, p):
    """numpy's default (linear) percentile."""
    s = sorted(xs)
    h = (len(s) - 1) * p / 100
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (h - lo)


def stats(xs, div=1.0):
    mean = sum(xs) / len(xs)
    b = {"avg": mean / div}
    for p in PCTS:
        b[f"p{p}"] = percentile(xs, p) / div
    b["min"], b["max"] = min(xs) / div, max(xs) / div
    b["std"] = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs)) / div
    return b


BASE = 1_764_842_400_000_000_000  # 2025-12-04T10:00:00Z
os.makedirs("reasoning_zero", exist_ok=True)
reqs = []
with open(os.path.join("reasoning_zero", "profile_export.jsonl"), "w") as f:
    for i, (ttft, gap, osl) in enumerate([(41_000_000, 15_000_000, 12), (38_500_000, 16_000_000, 20), (45_250_000, 14_500_000, 9),
                                          (39_750_000, 15_500_000, 16), (43_000_000, 17_000_000, 14), (40_500_000, 15_250_000, 18)]):
        start = BASE + i * 250_000_000
        gaps = [gap + (k % 3) * 250_000 for k in range(osl - 1)]
        latency = ttft + sum(gaps)
        ms = lambda ns: ns / 1e6
        metrics = {
            "input_sequence_length": {"value": 100 + i, "unit": "tokens"},
            "output_sequence_length": {"value": osl, "unit": "tokens"},
            "time_to_first_token": {"value": ms(ttft), "unit": "ms"},
            "request_latency": {"value": ms(latency), "unit": "ms"},
            "output_token_count": {"value": osl, "unit": "tokens"},
            "reasoning_token_count": {"value": 0, "unit": "tokens"},
            "time_to_first_output_token": {"value": ms(ttft), "unit": "ms"},
            "time_to_second_token": {"value": ms(gaps[0]), "unit": "ms"},
            "inter_chunk_latency": {"value": [ms(g) for g in gaps], "unit": "ms"},
            "inter_token_latency": {"value": ms(latency - ttft) / (osl - 1), "unit": "ms"},
            "output_token_throughput_per_user": {"value": (osl - 1) / ((latency - ttft) / 1e9), "unit": "tokens/sec/user"},
        }
        meta = {"session_num": i, "x_request_id": f"req-{i:04d}", "x_correlation_id": f"corr-{i:04d}", "conversation_id": None,
                "turn_index": 0, "request_start_ns": start, "request_ack_ns": start + 8_000_000,
                "request_end_ns": start + latency + 40_000, "worker_id": "worker_1", "record_processor_id": "rp_1",
                "benchmark_phase": "profiling", "was_cancelled": False, "cancellation_time_ns": None}
        f.write(json.dumps({"metadata": meta, "metrics": metrics, "error": None}) + "\n")
        reqs.append({"start": start, "ttft": ttft, "latency": latency, "gaps": gaps, "osl": osl, "isl": 100 + i})

first = min(r["start"] for r in reqs)
last = max(r["start"] + r["latency"] for r in reqs)
dur = (last - first) / 1e9
itl = [(r["latency"] - r["ttft"]) / (r["osl"] - 1) for r in reqs]
doc = {"schema_version": "1.0", "aiperf_version": "0.5.0", "benchmark_id": "00000000000000000000000000000e50",
       "request_throughput": {"unit": "requests/sec", "avg": len(reqs) / dur},
       "request_latency": {"unit": "ms", **stats([r["latency"] for r in reqs], 1e6)},
       "request_count": {"unit": "requests", "avg": float(len(reqs))},
       "time_to_first_token": {"unit": "ms", **stats([r["ttft"] for r in reqs], 1e6)},
       "time_to_second_token": {"unit": "ms", **stats([r["gaps"][0] for r in reqs], 1e6)},
       "inter_token_latency": {"unit": "ms", **stats(itl, 1e6)},
       "output_token_throughput": {"unit": "tokens/sec", "avg": sum(r["osl"] for r in reqs) / dur},
       "output_token_throughput_per_user": {"unit": "tokens/sec/user", **stats([1 / (x / 1e9) for x in itl])},
       "output_sequence_length": {"unit": "tokens", **stats([r["osl"] for r in reqs])},
       "input_sequence_length": {"unit": "tokens", **stats([r["isl"] for r in reqs])},
       "output_token_count": {"unit": "tokens", **stats([r["osl"] for r in reqs])},
       "min_request_timestamp": {"unit": "ns", "avg": float(first)},
       "max_response_timestamp": {"unit": "ns", "avg": float(last)},
       "inter_chunk_latency": {"unit": "ms", **stats([g for r in reqs for g in r["gaps"]], 1e6)},
       "total_output_tokens": {"unit": "tokens", "avg": float(sum(r["osl"] for r in reqs))},
       "total_reasoning_tokens": {"unit": "tokens", "avg": 0.0},
       "benchmark_duration": {"unit": "sec", "avg": dur},
       "total_isl": {"unit": "tokens", "avg": float(sum(r["isl"] for r in reqs))},
       "total_osl": {"unit": "tokens", "avg": float(sum(r["osl"] for r in reqs))},
       "total_token_throughput": {"unit": "tokens/sec", "avg": sum(r["isl"] + r["osl"] for r in reqs) / dur},
       "time_to_first_output_token": {"unit": "ms", **stats([r["ttft"] for r in reqs], 1e6)},
       "input_config": {"endpoint": {"model_names": ["demo-org/demo-8b"], "type": "chat", "streaming": True, "url": "localhost:8000"},
                        "loadgen": {"concurrency": 2, "request_count": 6},
                        "cli_command": "aiperf profile -m demo-org/demo-8b --streaming --concurrency 2 --request-count 6"},
       "was_cancelled": False, "error_summary": [],
       "start_time": "2025-12-04T02:00:00.000000", "end_time": "2025-12-04T02:00:02.000000"}
with open(os.path.join("reasoning_zero", "profile_export_aiperf.json"), "w") as f:
    json.dump(doc, f, indent=2)
