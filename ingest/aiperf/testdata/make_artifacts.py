#!/usr/bin/python3
"""Writes two hand-made fixtures, computed with AIPerf's and vLLM's own
formulas from one set of per-request data:

1. artifacts/demo-8b-openai-chat-concurrency4/: an AIPerf 0.5-style
   artifacts directory (profile_export.jsonl, profile_export_aiperf.json
   and .csv, gpu_telemetry_export.jsonl, profile_export_aiperf_timeslices.json)
   whose summary is computed from its records as aiperf/metrics does it:
   times in integer nanoseconds, shown in ms; TTFT = first content chunk
   (reasoning counts), time_to_first_output_token = first answer chunk;
   OSL = answer + reasoning tokens; ITL = (latency - TTFT) / (OSL - 1);
   output_token_count leaves out requests with no answer tokens;
   benchmark_duration = max(start + latency) - min(start) over valid
   records; request_throughput = valid records / duration; statistics are
   np.mean, np.percentile (linear) and np.std (population). One warm-up
   record (left out of everything) and two failed records are included.

2. side_by_side/: the same kind of workload measured by AIPerf
   (profile_export.jsonl) and by vLLM bench serve --save-detailed
   (vllm_serve_detailed.json), with no reasoning, so that TTFT, TPOT and
   the per-chunk gaps must land under the same definitions.

Run with Debian's python3-numpy: /usr/bin/python3 make_artifacts.py
"""
import csv
import json
import os

import numpy as np

rng = np.random.default_rng(20261202)
MODEL = "demo-org/demo-8b"
PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99]


def record(i, start, phase="profiling", reasoning=0, fail=None, n_answer=None):
    """One request: returns (metadata, metrics, error, raw) with times in ns."""
    isl = int(rng.integers(90, 130))
    meta = {"session_num": i, "x_request_id": f"req-{i:04d}", "x_correlation_id": f"corr-{i:04d}",
            "conversation_id": None, "turn_index": 0, "request_start_ns": start, "request_ack_ns": start + 9_000_000,
            "request_end_ns": None, "worker_id": "worker_1", "record_processor_id": "rp_1",
            "benchmark_phase": phase, "was_cancelled": False, "cancellation_time_ns": None}
    if fail:
        code, typ, msg = fail
        meta["request_end_ns"] = start + 2_000_000
        meta["was_cancelled"] = code == 499
        return meta, {"error_isl": {"value": isl, "unit": "tokens"}}, {"code": code, "type": typ, "message": msg}, None
    ttft = int(rng.integers(20_000_000, 60_000_000))
    n_ans = n_answer if n_answer is not None else int(rng.integers(8, 30))
    chunks = reasoning + n_ans
    gaps = [int(g) for g in rng.integers(12_000_000, 25_000_000, size=chunks - 1)]
    latency = ttft + sum(gaps)
    ttfo = ttft + sum(gaps[:reasoning]) if n_ans > 0 else None
    osl = n_ans + reasoning  # one token per chunk
    meta["request_end_ns"] = start + latency + 40_000  # [DONE] arrives after the last content
    m = {"input_sequence_length": {"value": isl, "unit": "tokens"},
         "output_sequence_length": {"value": osl, "unit": "tokens"},
         "time_to_first_token": {"value": ttft / 1e6, "unit": "ms"},
         "request_latency": {"value": latency / 1e6, "unit": "ms"}}
    if n_ans > 0:
        m["output_token_count"] = {"value": n_ans, "unit": "tokens"}
        m["time_to_first_output_token"] = {"value": ttfo / 1e6, "unit": "ms"}
    if reasoning:
        m["reasoning_token_count"] = {"value": reasoning, "unit": "tokens"}
    if gaps:
        m["time_to_second_token"] = {"value": gaps[0] / 1e6, "unit": "ms"}
        m["inter_chunk_latency"] = {"value": [g / 1e6 for g in gaps], "unit": "ms"}
    if osl >= 2:
        itl = (latency - ttft) / (osl - 1)
        m["inter_token_latency"] = {"value": itl / 1e6, "unit": "ms"}
        m["output_token_throughput_per_user"] = {"value": 1 / (itl / 1e9), "unit": "tokens/sec/user"}
    m["prefill_throughput_per_user"] = {"value": isl / (ttft / 1e9), "unit": "tokens/sec/user"}
    raw = {"isl": isl, "osl": osl, "answer": n_ans, "reasoning": reasoning, "ttft": ttft, "ttfo": ttfo,
           "latency": latency, "gaps": gaps, "start": start}
    return meta, m, None, raw


def stats(xs, div=1.0):
    xs = np.array(xs, dtype=np.float64)
    b = {"avg": float(np.mean(xs)) / div}
    for p in PCTS:
        b[f"p{p}"] = float(np.percentile(xs, p)) / div
    b["min"] = float(np.min(xs)) / div
    b["max"] = float(np.max(xs)) / div
    b["std"] = float(np.std(xs)) / div
    return b


def summarize(raws, errors):
    ok = [r for r in raws if r is not None]
    first = min(r["start"] for r in ok)
    last = max(r["start"] + r["latency"] for r in ok)
    dur = (last - first) / 1e9
    itl = [(r["latency"] - r["ttft"]) / (r["osl"] - 1) for r in ok if r["osl"] >= 2]
    s = {
        "request_throughput": {"unit": "requests/sec", "avg": len(ok) / dur},
        "request_latency": {"unit": "ms", **stats([r["latency"] for r in ok], 1e6)},
        "request_count": {"unit": "requests", "avg": float(len(ok))},
        "time_to_first_token": {"unit": "ms", **stats([r["ttft"] for r in ok], 1e6)},
        "time_to_second_token": {"unit": "ms", **stats([r["gaps"][0] for r in ok if r["gaps"]], 1e6)},
        "inter_token_latency": {"unit": "ms", **stats(itl, 1e6)},
        "output_token_throughput": {"unit": "tokens/sec", "avg": sum(r["osl"] for r in ok) / dur},
        "output_token_throughput_per_user": {"unit": "tokens/sec/user", **stats([1 / (x / 1e9) for x in itl])},
        "output_sequence_length": {"unit": "tokens", **stats([r["osl"] for r in ok])},
        "input_sequence_length": {"unit": "tokens", **stats([r["isl"] for r in ok])},
        "output_token_count": {"unit": "tokens", **stats([r["answer"] for r in ok if r["answer"] > 0])},
        "reasoning_token_count": {"unit": "tokens", **stats([r["reasoning"] for r in ok if r["reasoning"] > 0])},
        "min_request_timestamp": {"unit": "ns", "avg": float(first)},
        "max_response_timestamp": {"unit": "ns", "avg": float(last)},
        "inter_chunk_latency": {"unit": "ms", **stats([g for r in ok for g in r["gaps"]], 1e6)},
        "total_output_tokens": {"unit": "tokens", "avg": float(sum(r["answer"] for r in ok))},
        "total_reasoning_tokens": {"unit": "tokens", "avg": float(sum(r["reasoning"] for r in ok))},
        "benchmark_duration": {"unit": "sec", "avg": dur},
        "total_isl": {"unit": "tokens", "avg": float(sum(r["isl"] for r in ok))},
        "total_osl": {"unit": "tokens", "avg": float(sum(r["osl"] for r in ok))},
        "total_token_throughput": {"unit": "tokens/sec", "avg": sum(r["isl"] + r["osl"] for r in ok) / dur},
        "time_to_first_output_token": {"unit": "ms", **stats([r["ttfo"] for r in ok if r["ttfo"] is not None], 1e6)},
        "prefill_throughput_per_user": {"unit": "tokens/sec/user", **stats([r["isl"] / (r["ttft"] / 1e9) for r in ok])},
    }
    if errors:
        s["error_request_count"] = {"unit": "requests", "avg": float(len(errors))}
        s["error_isl"] = {"unit": "tokens", **stats([e for e in errors])}
        s["total_error_isl"] = {"unit": "tokens", "avg": float(sum(errors))}
    return s


# 1. The artifacts directory.
out = os.path.join("artifacts", "demo-8b-openai-chat-concurrency4")
os.makedirs(out, exist_ok=True)
base = 1_764_669_600_000_000_000  # 2025-12-02T10:00:00Z
lines, raws, err_isl = [], [], []
for i in range(18):
    start = base + i * 150_000_000 + int(rng.integers(0, 1_000_000))
    phase = "warmup" if i == 0 else "profiling"
    fail = {6: (499, "RequestCancellationError", "Request was cancelled after 0.002 seconds"),
            13: (500, "InternalServerError", "upstream failed")}.get(i)
    reasoning = 4 if i in (3, 8, 15) else 0
    n_answer = 0 if i == 15 else None  # reasoning only: no answer tokens
    meta, metrics, error, raw = record(i, start, phase, reasoning, fail, n_answer)
    lines.append({"metadata": meta, "metrics": metrics, "error": error})
    if phase == "profiling":
        if fail:
            err_isl.append(metrics["error_isl"]["value"])
        else:
            raws.append(raw)
# Records come in completion order.
order = sorted(range(len(lines)), key=lambda k: lines[k]["metadata"]["request_end_ns"])
with open(os.path.join(out, "profile_export.jsonl"), "w") as f:
    for k in order:
        f.write(json.dumps(lines[k]) + "\n")

summary = summarize(raws, err_isl)
doc = {"schema_version": "1.0", "aiperf_version": "0.5.0", "benchmark_id": "0123456789abcdef0123456789abcdef"}
doc.update(summary)
doc["input_config"] = {
    "endpoint": {"model_names": [MODEL], "type": "chat", "streaming": True, "url": "localhost:8000"},
    "input": {"prompt": {"input_tokens": {"mean": 110}, "output_tokens": {"mean": 20}}, "random_seed": 1},
    "loadgen": {"concurrency": 4, "request_count": 17, "warmup_request_count": 1},
    "cli_command": f"aiperf profile -m {MODEL} --streaming --concurrency 4 --request-count 17 --warmup-request-count 1",
}
doc["was_cancelled"] = False
doc["error_summary"] = [
    {"error_details": {"code": 499, "type": "RequestCancellationError", "message": "Request was cancelled after 0.002 seconds"}, "count": 1},
    {"error_details": {"code": 500, "type": "InternalServerError", "message": "upstream failed"}, "count": 1}]
doc["start_time"] = "2025-12-02T02:00:00.000000"
doc["end_time"] = "2025-12-02T02:00:03.000000"
doc["telemetry_data"] = {"summary": {"endpoints_configured": ["http://localhost:9400/metrics"]}, "endpoints": {}}
with open(os.path.join(out, "profile_export_aiperf.json"), "w") as f:
    json.dump(doc, f, indent=2)

HEADERS = {"request_latency": "Request Latency", "time_to_first_token": "Time to First Token",
           "time_to_second_token": "Time to Second Token", "inter_token_latency": "Inter Token Latency",
           "output_token_throughput_per_user": "Output Token Throughput Per User",
           "output_sequence_length": "Output Sequence Length", "input_sequence_length": "Input Sequence Length",
           "output_token_count": "Output Token Count", "reasoning_token_count": "Reasoning Token Count",
           "inter_chunk_latency": "Inter Chunk Latency", "time_to_first_output_token": "Time to First Output Token",
           "prefill_throughput_per_user": "Prefill Throughput Per User", "error_isl": "Error Input Sequence Length",
           "request_throughput": "Request Throughput", "request_count": "Request Count",
           "output_token_throughput": "Output Token Throughput", "total_output_tokens": "Total Output Tokens",
           "total_reasoning_tokens": "Total Reasoning Tokens", "benchmark_duration": "Benchmark Duration",
           "total_isl": "Total Input Sequence Length", "total_osl": "Total Output Sequence Length",
           "total_token_throughput": "Total Token Throughput", "error_request_count": "Error Request Count",
           "total_error_isl": "Total Error Input Sequence Length",
           "min_request_timestamp": "Minimum Request Timestamp", "max_response_timestamp": "Maximum Response Timestamp"}
with open(os.path.join(out, "profile_export_aiperf.csv"), "w", newline="") as f:
    w = csv.writer(f)
    keys = ["avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"]
    w.writerow(["Metric"] + keys)

    def label(tag):
        u = summary[tag]["unit"]
        return HEADERS[tag] + ("" if u in ("requests", "count") else f" ({u})")

    fmt = lambda v: str(int(v)) if float(v).is_integer() else f"{v:.2f}"
    for tag in sorted(t for t in summary if "p50" in summary[t]):
        w.writerow([label(tag)] + [fmt(summary[tag][k]) for k in keys])
    w.writerow([])
    w.writerow(["Metric", "Value"])
    for tag in sorted(t for t in summary if "p50" not in summary[t]):
        w.writerow([label(tag), fmt(summary[tag]["avg"])])

with open(os.path.join(out, "gpu_telemetry_export.jsonl"), "w") as f:
    energy = [1000.0, 2000.0]
    for k in range(3):
        for gpu in range(2):
            energy[gpu] += 0.0004 * (k + 1)
            f.write(json.dumps({"timestamp_ns": base + k * 330_000_000 + gpu * 1000, "dcgm_url": "http://localhost:9400/metrics",
                                "gpu_index": gpu, "gpu_uuid": f"GPU-0000000{gpu}-0000-0000-0000-000000000000",
                                "gpu_model_name": "NVIDIA H200", "pci_bus_id": f"00000000:0{gpu}:00.0", "device": f"nvidia{gpu}",
                                "hostname": "node-1", "telemetry_data": {
                                    "gpu_power_usage": 400.0 + 10 * k + gpu, "energy_consumption": energy[gpu],
                                    "gpu_utilization": 90.0 + k, "gpu_memory_used": 120.5, "gpu_memory_total": 150.1,
                                    "sm_clock_frequency": 1980.0, "gpu_temperature": 60.0 + k, "xid_errors": 0.0}}) + "\n")

# Two one-second slices by request start, renumbered from 0.
slices = {}
for r in raws:
    slices.setdefault((r["start"] - base) // 1_000_000_000, []).append(r)
ts_doc = {"timeslices": [], "input_config": doc["input_config"]}
for idx, key in enumerate(sorted(slices)):
    s = summarize(slices[key], [])
    ts_doc["timeslices"].append({"timeslice_index": idx, "request_latency": s["request_latency"],
                                 "time_to_first_token": s["time_to_first_token"], "request_count": s["request_count"],
                                 "request_throughput": s["request_throughput"], "benchmark_duration": s["benchmark_duration"]})
with open(os.path.join(out, "profile_export_aiperf_timeslices.json"), "w") as f:
    json.dump(ts_doc, f, indent=2)

# 2. Side by side: one workload, AIPerf records and a vLLM detailed result.
os.makedirs("side_by_side", exist_ok=True)
sb_base = 1_764_756_000_000_000_000
recs, v = [], {"input_lens": [], "output_lens": [], "ttfts": [], "itls": [], "latencies": [], "start_times": [],
               "generated_texts": [], "errors": []}
for i in range(12):
    start = sb_base + i * 200_000_000
    meta, metrics, error, raw = record(i, start)
    recs.append({"metadata": meta, "metrics": metrics, "error": error})
    v["input_lens"].append(raw["isl"])
    v["output_lens"].append(raw["osl"])
    v["ttfts"].append(raw["ttft"] / 1e9)
    v["itls"].append([g / 1e9 for g in raw["gaps"]])
    v["latencies"].append(raw["latency"] / 1e9)
    v["start_times"].append((start - sb_base) / 1e9)
    v["generated_texts"].append("tok " * raw["osl"])
    v["errors"].append("")
with open(os.path.join("side_by_side", "profile_export.jsonl"), "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
n = len(recs)
duration = max(s + l for s, l in zip(v["start_times"], v["latencies"])) + 0.001
tpots = [(v["latencies"][i] - v["ttfts"][i]) / (v["output_lens"][i] - 1) for i in range(n) if v["output_lens"][i] > 1]
series = {"ttft": v["ttfts"], "tpot": tpots, "itl": [g for gs in v["itls"] for g in gs], "e2el": v["latencies"]}
tin, tout = sum(v["input_lens"]), sum(v["output_lens"])
res = {"date": "20251203-100000", "endpoint_type": "openai-chat", "backend": "openai-chat", "label": None,
       "model_id": MODEL, "tokenizer_id": MODEL, "num_prompts": n, "request_rate": "inf", "burstiness": 1.0,
       "max_concurrency": 1, "duration": duration, "completed": n, "failed": 0,
       "total_input_tokens": tin, "total_output_tokens": tout, "request_throughput": n / duration,
       "request_goodput": None, "output_throughput": tout / duration, "total_token_throughput": (tin + tout) / duration}
for name, xs in series.items():
    res[f"mean_{name}_ms"] = float(np.mean(xs)) * 1000
    res[f"median_{name}_ms"] = float(np.median(xs)) * 1000
    res[f"std_{name}_ms"] = float(np.std(xs)) * 1000
    for p in (90, 99):
        res[f"p{p}_{name}_ms"] = float(np.percentile(xs, p)) * 1000
res.update(v)
with open(os.path.join("side_by_side", "vllm_serve_detailed.json"), "w") as f:
    json.dump(res, f)
