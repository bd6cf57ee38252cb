#!/usr/bin/env python3
"""Writes the capacity demo: two made-up platforms, each swept over the
same five Poisson request rates with the same prompts, as `vllm bench serve
--save-detailed` results (one JSON file per run), with the summaries
computed from the per-request arrays the way vllm/benchmarks/serve.py does
(mean, median, population std and linear percentiles, in milliseconds).

Pure Python, deterministic (random.Random with fixed seeds):

    python3 make_sweep.py

Each platform is a small queueing simulation: requests arrive as a Poisson
process, wait for one of the server's slots (continuous batching with a
cap on concurrent sequences), then take a prefill and one decode step per
output token. Both steps slow down as more slots are busy, so latency
rises with the rate, gently at first and steeply near saturation, and the
queue grows through the runs above capacity (which validation's V022
flags). No real system produced these numbers.
"""
import json
import math
import random

DURATION = 32.0  # seconds of arrivals per run
RATES = [4, 8, 12, 16, 20]
PLATFORMS = {
    # name: slots, prefill (s), decode gap (s), slow-down at full batch, date
    "h100": (8, 0.060, 0.022, 0.8, "20261130-0900"),
    "l40s": (6, 0.110, 0.034, 0.9, "20261130-1400"),
}
# Platform h100 runs rate 12 twice, to show repeats of a load point.
REPEATS = {("h100", 12): 2}


def prompts(n):
    """The workload: the same prompts, in the same order, for every run."""
    r = random.Random(42)
    return [(r.randint(200, 800), r.randint(6, 10)) for _ in range(n)]


def simulate(platform, rate, repeat):
    slots, prefill, gap, slow, _ = PLATFORMS[platform]
    r = random.Random(f"{platform}-{rate}-{repeat}")
    n = int(DURATION * rate)
    work = prompts(n)
    t0 = 50000.0 + 100 * rate + repeat
    free = [t0] * slots  # when each slot is next free
    busy_until = []  # end times of the requests admitted so far
    out = {k: [] for k in ("input_lens", "output_lens", "ttfts", "itls", "start_times", "latencies", "queue_times", "generated_texts", "errors")}
    t = t0
    for i in range(n):
        t += r.expovariate(rate)
        k = min(range(slots), key=lambda j: free[j])
        admit = max(t, free[k])
        active = sum(1 for e in busy_until if e > admit)
        load = slow * min(active, slots) / slots
        inp, n_out = work[i]
        ttft = (admit - t) + prefill * (1 + load) * (inp / 500) * r.gammavariate(8, 1 / 8)
        gaps = [gap * (1 + load) * r.gammavariate(10, 1 / 10) for _ in range(n_out - 1)]
        e2e = ttft + sum(gaps) + 1e-6
        free[k] = t + e2e
        busy_until.append(t + e2e)
        out["input_lens"].append(inp)
        out["output_lens"].append(n_out)
        out["ttfts"].append(ttft)
        out["itls"].append(gaps)
        out["start_times"].append(t)
        out["latencies"].append(e2e)
        out["queue_times"].append(0.0)
        out["generated_texts"].append("x" * n_out)
        out["errors"].append("")
    return t0, out


def lerp(a, b, t):
    """numpy's _lerp, including its switch to the downward form."""
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + t * d


def percentile(xs, p):
    s = sorted(xs)
    h = (len(s) - 1) * p / 100
    lo = math.floor(h)
    if lo + 1 >= len(s):
        return s[-1]
    return lerp(s[lo], s[lo + 1], h - lo)


def result(platform, rate, repeat):
    t0, out = simulate(platform, rate, repeat)
    n = len(out["ttfts"])
    duration = max(s + l for s, l in zip(out["start_times"], out["latencies"])) - t0
    tin, tout = sum(out["input_lens"]), sum(out["output_lens"])
    res = {"date": PLATFORMS[platform][4] + f"{rate:02d}{repeat}", "endpoint_type": "openai", "backend": "openai", "label": None,
           "model_id": "demo-org/demo-8b-instruct", "tokenizer_id": "demo-org/demo-8b-instruct", "num_prompts": n,
           "request_rate": float(rate), "burstiness": 1.0, "max_concurrency": None,
           "duration": duration, "completed": n, "failed": 0,
           "total_input_tokens": tin, "total_output_tokens": tout,
           "request_throughput": n / duration, "request_goodput": None,
           "output_throughput": tout / duration, "total_token_throughput": (tin + tout) / duration,
           "rtfx": 0.0}
    res.update(out)
    series = {
        "ttft": out["ttfts"],
        "tpot": [(l - f) / (k - 1) for l, f, k in zip(out["latencies"], out["ttfts"], out["output_lens"]) if k > 1],
        "itl": [g for gs in out["itls"] for g in gs],
        "e2el": out["latencies"],
    }
    for name, xs in series.items():
        m = sum(xs) / len(xs)
        res[f"mean_{name}_ms"] = m * 1000
        res[f"median_{name}_ms"] = percentile(xs, 50) * 1000
        res[f"std_{name}_ms"] = math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)) * 1000
        for p in (50, 90, 99):
            res[f"p{p}_{name}_ms"] = percentile(xs, p) * 1000
    return res


if __name__ == "__main__":
    for platform in PLATFORMS:
        for rate in RATES:
            for repeat in range(REPEATS.get((platform, rate), 1)):
                name = f"{platform}/rate{rate:02d}" + (f"-{repeat + 1}" if REPEATS.get((platform, rate), 1) > 1 else "") + ".json"
                with open(name, "w") as f:
                    json.dump(result(platform, rate, repeat), f, separators=(",", ":"))
