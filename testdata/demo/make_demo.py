#!/usr/bin/python3
"""Writes the demo data of `make demo`: two `vllm bench serve --save-detailed`
results of the same workload (same prompts, Poisson arrivals at 8 req/s) on
two made-up platforms, with summaries computed from the per-request arrays
the way vllm/benchmarks/serve.py does (numpy mean/median/std, linear
percentiles, milliseconds). The numbers are invented; the shapes are
realistic: platform B has a faster first token and a slower decode.

Run with Debian's python3-numpy: /usr/bin/python3 make_demo.py
"""
import json
import numpy as np

N = 240
prompt_rng = np.random.default_rng(7)
input_lens = [int(x) for x in prompt_rng.integers(200, 900, size=N)]
max_tokens = [int(x) for x in prompt_rng.integers(40, 160, size=N)]


def run(seed, ttft_scale, gap_mean, date, fail_at):
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("input_lens", "output_lens", "ttfts", "itls", "start_times", "latencies", "queue_times", "generated_texts", "errors")}
    t = 20000.0 + seed
    for i in range(N):
        t += float(rng.exponential(1 / 8.0))
        out["input_lens"].append(input_lens[i])
        out["queue_times"].append(0.0)
        out["start_times"].append(t)
        if i in fail_at:
            out["output_lens"].append(0); out["ttfts"].append(0.0); out["itls"].append([])
            out["latencies"].append(0.0); out["generated_texts"].append(""); out["errors"].append("Service Unavailable")
            continue
        n = max_tokens[i]
        ttft = float(rng.gamma(3.0, ttft_scale) + input_lens[i] * 2e-5)
        gaps = [float(g) for g in rng.gamma(8.0, gap_mean / 8.0, size=n - 1)]
        out["output_lens"].append(n); out["ttfts"].append(ttft); out["itls"].append(gaps)
        out["latencies"].append(ttft + sum(gaps) + 2e-6)
        out["generated_texts"].append("x" * n); out["errors"].append("")
    ok = [i for i in range(N) if out["errors"][i] == ""]
    duration = max(out["start_times"][i] + out["latencies"][i] for i in range(N)) - (20000.0 + seed) + 0.05
    tin = sum(out["input_lens"][i] for i in ok)
    tout = sum(out["output_lens"][i] for i in ok)
    res = {"date": date, "endpoint_type": "openai", "backend": "openai", "label": None,
           "model_id": "demo-org/demo-8b-instruct", "tokenizer_id": "demo-org/demo-8b-instruct", "num_prompts": N,
           "request_rate": 8.0, "burstiness": 1.0, "max_concurrency": None,
           "duration": duration, "completed": len(ok), "failed": N - len(ok),
           "total_input_tokens": tin, "total_output_tokens": tout,
           "request_throughput": len(ok) / duration, "request_goodput": None,
           "output_throughput": tout / duration, "total_token_throughput": (tin + tout) / duration,
           "rtfx": 0.0}
    res.update(out)
    series = {
        "ttft": [out["ttfts"][i] for i in ok],
        "tpot": [(out["latencies"][i] - out["ttfts"][i]) / (out["output_lens"][i] - 1) for i in ok if out["output_lens"][i] > 1],
        "itl": [g for i in ok for g in out["itls"][i]],
        "e2el": [out["latencies"][i] for i in ok],
    }
    for name, xs in series.items():
        res[f"mean_{name}_ms"] = float(np.mean(xs)) * 1000
        res[f"median_{name}_ms"] = float(np.median(xs)) * 1000
        res[f"std_{name}_ms"] = float(np.std(xs)) * 1000
        for p in (50, 90, 99):
            res[f"p{p}_{name}_ms"] = float(np.percentile(xs, p)) * 1000
    return res


for name, args in {"platform-a": (1, 0.02, 0.011, "20261124-141500", {57}),
                   "platform-b": (2, 0.012, 0.016, "20261124-153000", {12, 200})}.items():
    with open(f"{name}.json", "w") as f:
        json.dump(run(*args), f)
