#!/usr/bin/python3
"""Writes serve_detailed.json: a hand-made `vllm bench serve --save-detailed`
result in the 2026-09 layout (failed, start_times, latencies, queue_times),
whose summary statistics are computed from its own per-request arrays the
way vllm/benchmarks/serve.py calculate_metrics does (numpy mean, median,
population std, linear percentiles, ms units; TPOT over successful requests
with more than one output token; ITL pooled over successful requests).

Run with Debian's python3-numpy: /usr/bin/python3 make_detailed.py
"""
import json
import numpy as np

rng = np.random.default_rng(20261201)
n = 24
input_lens, output_lens, ttfts, itls, latencies, starts, queues, texts, errors = ([] for _ in range(9))
t = 1000.0
for i in range(n):
    failed = i in (5, 17)
    inp = int(rng.integers(90, 130))
    out = 0 if failed else int(rng.integers(1, 40))
    q = float(rng.uniform(0, 0.05))
    t += float(rng.exponential(0.25))
    input_lens.append(inp)
    queues.append(q)
    starts.append(t + q)
    if failed:
        output_lens.append(0); ttfts.append(0.0); itls.append([]); latencies.append(0.0)
        texts.append(""); errors.append("Not Found")
        continue
    ttft = float(rng.gamma(4.0, 0.02))
    # One chunk per token except a few coalesced chunks, as with
    # speculative decoding.
    chunks = max(out - 1 - (i % 3), 0) if out > 1 else 0
    gaps = [float(g) for g in rng.gamma(6.0, 0.0025, size=chunks)]
    output_lens.append(out); ttfts.append(ttft); itls.append(gaps)
    latencies.append(ttft + sum(gaps) + 1e-6)
    texts.append("tok " * out); errors.append("")

ok = [i for i in range(n) if errors[i] == ""]
duration = starts[-1] - 1000.0 + max(latencies) + 0.01
tpots = [(latencies[i] - ttfts[i]) / (output_lens[i] - 1) for i in ok if output_lens[i] > 1]
pooled = [g for i in ok for g in itls[i]]
series = {"ttft": [ttfts[i] for i in ok], "tpot": tpots, "itl": pooled, "e2el": [latencies[i] for i in ok]}
total_in = sum(input_lens[i] for i in ok)
total_out = sum(output_lens[i] for i in ok)
res = {
    "date": "20261120-101500", "endpoint_type": "openai", "backend": "openai", "label": None,
    "model_id": "demo-org/demo-8b", "tokenizer_id": "demo-org/demo-8b", "num_prompts": n,
    "deployment": "demo", "tp": "2",
    "request_rate": 4.0, "burstiness": float("inf"), "max_concurrency": 2,
    "duration": duration, "completed": len(ok), "failed": n - len(ok),
    "total_input_tokens": total_in, "total_output_tokens": total_out,
    "request_throughput": len(ok) / duration, "request_goodput": None,
    "output_throughput": total_out / duration, "total_token_throughput": (total_in + total_out) / duration,
    "max_output_tokens_per_s": 42.0, "max_concurrent_requests": 2, "rtfx": 0.0,
    "input_lens": input_lens, "output_lens": output_lens, "ttfts": ttfts, "itls": itls,
    "start_times": starts, "latencies": latencies, "queue_times": queues,
    "generated_texts": texts, "errors": errors,
}
for name, xs in series.items():
    res[f"mean_{name}_ms"] = float(np.mean(xs or 0)) * 1000
    res[f"median_{name}_ms"] = float(np.median(xs or 0)) * 1000
    res[f"std_{name}_ms"] = float(np.std(xs or 0)) * 1000
    for p in (50, 90, 99, 99.9):
        label = str(int(p)) if int(p) == p else str(p)
        res[f"p{label}_{name}_ms"] = float(np.percentile(xs or 0, p)) * 1000
with open("serve_detailed.json", "w") as f:
    json.dump(res, f)  # allow_nan: burstiness is written as a bare Infinity
