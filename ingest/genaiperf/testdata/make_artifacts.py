#!/usr/bin/python3
"""Writes artifacts/demo-8b-openai-chat-concurrency2/: a hand-made GenAI-Perf
0.0.14-style artifacts directory for a streaming OpenAI chat run, whose
processed exports are computed from its own raw perf_analyzer export the
way genai_perf/profile_data_parser/llm_profile_data_parser.py does:

- SSE responses whose content is empty (a role-only chunk, a usage-only
  chunk, [DONE], a chunk carrying only reasoning_content) are removed
  with their timestamps before any metric is computed;
- request_latency = last remaining response - send, TTFT = first - send,
  TTST = second - first (all integer nanoseconds);
- OSL and ISL come from a tokenizer; here a whitespace word count stands
  in for it (verdict does not recompute token counts);
- ITL = round((latency - TTFT) / (OSL - 1)) for requests with two or more
  responses and OSL > 1 (0.0.13+); TPS/user = 1 / (ITL / 1e9);
- duration = max last response - min send over requests with content;
  request_throughput = ALL exported requests / duration (requests without
  content included), request_count = requests with content;
- statistics: np.mean, np.percentile (linear), np.std (population), then
  times scaled by 1e-6 to milliseconds.

Run with Debian's python3-numpy: /usr/bin/python3 make_artifacts.py
"""
import csv
import json
import os

import numpy as np

rng = np.random.default_rng(20261201)
out_dir = os.path.join("artifacts", "demo-8b-openai-chat-concurrency2")
os.makedirs(out_dir, exist_ok=True)

MODEL = "demo-org/demo-8b"
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()


def event(delta=None, usage=None, choices=True):
    body = {"id": "cmpl-1", "object": "chat.completion.chunk", "model": MODEL}
    body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": None}] if choices else []
    if usage:
        body["usage"] = usage
    return "data: " + json.dumps(body) + "\n\n"


base = 1_764_583_200_000_000_000  # 2025-12-01T10:00:00Z in ns
requests = []
per_req = []  # (t0, [(ts, answer_text, reasoning_text)]) for the summary
for i in range(14):
    t0 = base + i * 400_000_000 + int(rng.integers(0, 50_000))
    prompt = " ".join(WORDS[int(k)] for k in rng.integers(0, 10, size=int(rng.integers(20, 40))))
    payload = {"model": MODEL, "messages": [{"role": "user", "content": prompt}], "stream": True,
               "max_tokens": 64, "stream_options": {"include_usage": True}}
    t = t0 + int(rng.integers(2_000_000, 4_000_000))
    resp = [(t, event({"role": "assistant"}), "", "")]  # role-only: no content
    if i == 5:
        # No content at all: GenAI-Perf exports it and counts it in
        # request_throughput, but skips it for every per-request metric.
        t += 1_000_000
        resp.append((t, "data: [DONE]\n\n", "", ""))
    else:
        n_reason = 3 if i in (2, 9) else 0  # a reasoning model on two requests
        n_answer = int(rng.integers(1, 6)) if i == 11 else int(rng.integers(6, 14))
        if i == 11:
            n_answer = 1  # one answer chunk: TTST and ITL undefined
        t += int(rng.integers(150_000_000, 900_000_000))  # time to the first chunk
        for k in range(n_reason):
            txt = WORDS[k] + " "
            resp.append((t, event({"reasoning_content": txt}), "", txt))
            t += int(rng.integers(20_000_000, 40_000_000))
        answer = []
        for k in range(n_answer):
            txt = " ".join(WORDS[int(x)] for x in rng.integers(0, 10, size=int(rng.integers(1, 4)))) + " "
            answer.append(txt)
            if k == 3 and i % 4 == 0:
                # Two SSE events in one perf_analyzer response: one timestamp.
                txt2 = WORDS[k] + " "
                answer.append(txt2)
                resp.append((t, event({"content": txt}) + event({"content": txt2}), txt + txt2, ""))
            else:
                resp.append((t, event({"content": txt}), txt, ""))
            t += int(rng.integers(25_000_000, 140_000_000))
        words = len("".join(answer).split())
        usage = {"prompt_tokens": len(prompt.split()) + 7, "completion_tokens": words + 2 * n_reason,
                 "total_tokens": len(prompt.split()) + 7 + words + 2 * n_reason}
        if n_reason:
            usage["completion_tokens_details"] = {"reasoning_tokens": 2 * n_reason}
        resp.append((t, event(usage=usage, choices=False), "", ""))  # usage-only: no content
        t += 300_000
        resp.append((t, "data: [DONE]\n\n", "", ""))
    requests.append({
        "timestamp": t0,
        "request_inputs": {"payload": json.dumps(payload)},
        "response_timestamps": [r[0] for r in resp],
        "response_outputs": [{"response": r[1]} for r in resp],
    })
    per_req.append((t0, prompt, resp))

raw = {
    "experiments": [{
        "experiment": {"mode": "concurrency", "value": 2},
        "requests": requests,
        "window_boundaries": [base, base + 3_000_000_000, base + 6_000_000_000],
    }],
    "version": "2.50.0",
    "service_kind": "openai",
    "endpoint": "v1/chat/completions",
}
with open(os.path.join(out_dir, "profile_export.json"), "w") as f:
    json.dump(raw, f, separators=(",", ":"))  # perf_analyzer writes one compact line

with open(os.path.join(out_dir, "inputs.json"), "w") as f:
    json.dump({"data": [{"payload": [json.loads(r["request_inputs"]["payload"])]} for r in requests]}, f, indent=2)

# GenAI-Perf's processing.
lat, ttft, ttst, itl, tps, osl, isl = [], [], [], [], [], [], []
starts, ends = [], []
for t0, prompt, resp in per_req:
    kept = [(ts, a) for ts, _, a, _ in resp if a]
    if not kept:
        continue
    ts = [k[0] for k in kept]
    lat.append(ts[-1] - t0)
    ttft.append(ts[0] - t0)
    if len(ts) > 1:
        ttst.append(ts[1] - ts[0])
    n = len("".join(k[1] for k in kept).split())
    osl.append(n)
    isl.append(len(prompt.split()))
    if len(ts) > 1 and n > 1:
        v = round((lat[-1] - ttft[-1]) / (n - 1))
        itl.append(v)
        tps.append(1 / (v / 1e9))
    starts.append(t0)
    ends.append(ts[-1])
duration_s = (max(ends) - min(starts)) / 1e9

PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99]


def block(unit, xs, scale=1.0):
    xs = np.array(xs, dtype=np.float64)
    b = {"unit": unit, "avg": float(np.mean(xs)) * scale}
    for p in PCTS:
        b[f"p{p}"] = float(np.percentile(xs, p)) * scale
    b["min"] = float(np.min(xs)) * scale
    b["max"] = float(np.max(xs)) * scale
    b["std"] = float(np.std(xs)) * scale
    return b


summary = {
    "request_throughput": {"unit": "requests/sec", "avg": len(requests) / duration_s},
    "request_latency": block("ms", lat, 1e-6),
    "request_count": {"unit": "count", "avg": len(lat)},
    "time_to_first_token": block("ms", ttft, 1e-6),
    "time_to_second_token": block("ms", ttst, 1e-6),
    "inter_token_latency": block("ms", itl, 1e-6),
    "output_token_throughput": {"unit": "tokens/sec", "avg": sum(osl) / duration_s},
    "output_token_throughput_per_user": block("tokens/sec/user", tps),
    "output_sequence_length": block("tokens", osl),
    "input_sequence_length": block("tokens", isl),
    "input_config": {
        "model_names": [MODEL], "subcommand": "profile", "verbose": False,
        "endpoint": {"model_selection_strategy": "round_robin", "backend": "", "custom": "", "type": "chat",
                     "service_kind": "openai", "streaming": True, "server_metrics_urls": [], "url": "localhost:8000"},
        "perf_analyzer": {"path": "perf_analyzer", "verbose": False, "stimulus": {"concurrency": 2},
                          "stability_percentage": 999, "warmup_request_count": 0,
                          "measurement": {"mode": "request_count", "num": 14}},
        "input": {"batch_size": 1, "extra": {}, "goodput": {}, "header": {}, "file": "", "num_dataset_entries": 100,
                  "random_seed": 0, "output_tokens": {"mean": 64, "deterministic": False, "stddev": 0},
                  "synthetic_tokens": {"mean": 30, "stddev": 5}},
        "output": {"artifact_directory": out_dir, "profile_export_file": "profile_export.json"},
        "tokenizer": {"name": MODEL, "revision": "main", "trust_remote_code": False},
    },
}
with open(os.path.join(out_dir, "profile_export_genai_perf.json"), "w") as f:
    json.dump(summary, f, indent=2)

# The CSV (0.0.14: percentiles descending, p10/p5/p1 last; thousands separators).
with open(os.path.join(out_dir, "profile_export_genai_perf.csv"), "w", newline="") as f:
    w = csv.writer(f)
    stats = ["avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"]
    w.writerow(["Metric"] + stats)
    for key, label in [("time_to_first_token", "Time To First Token (ms)"), ("time_to_second_token", "Time To Second Token (ms)"),
                       ("request_latency", "Request Latency (ms)"), ("inter_token_latency", "Inter Token Latency (ms)"),
                       ("output_token_throughput_per_user", "Output Token Throughput Per User (tokens/sec/user)"),
                       ("output_sequence_length", "Output Sequence Length (tokens)"),
                       ("input_sequence_length", "Input Sequence Length (tokens)")]:
        w.writerow([label] + [f"{summary[key][s]:,.2f}" for s in stats])
    w.writerow([])
    w.writerow(["Metric", "Value"])
    w.writerow(["Output Token Throughput (tokens/sec)", f"{summary['output_token_throughput']['avg']:,.2f}"])
    w.writerow(["Request Throughput (per sec)", f"{summary['request_throughput']['avg']:,.2f}"])
    w.writerow(["Request Count (count)", f"{summary['request_count']['avg']:,.2f}"])
