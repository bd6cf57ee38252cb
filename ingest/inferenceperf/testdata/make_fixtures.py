"""Writes the hand-made inference-perf fixtures of this directory.

The per-request records are made up; the summaries are computed from them
the way inference-perf's reportgen/base.py computes them (see
docs/formats/inference-perf.md): successes only for the latency and length
statistics, NTPOT = latency / output_tokens with 0 for a request without
output tokens, TTFT and TPOT from output_token_times, ITL as every gap
between consecutive output_token_times pooled over requests, throughputs
over max(end) - min(start) of every request (failures included), and
numpy.percentile's default linear interpolation, implemented here exactly
(h = (n-1)p, lerp from the lower value, as numpy's _lerp for t < 0.5 and
from the upper for t >= 0.5).

Run: python3 make_fixtures.py (from this directory).
"""
import json, math, os

PCTS = [0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9]

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

def mean(xs):
    # numpy's pairwise sum equals the plain sum for fewer than 8 values
    return sum(xs) / len(xs)

def summarize(xs):
    if not xs:
        return None
    r = {"mean": mean(xs), "min": float(min(xs)), "max": float(max(xs))}
    for p in PCTS:
        r["median" if p == 50 else "p%g" % p] = percentile(xs, p)
    return r

def req(start, end, chunks, tokens_per_chunk, inp, error=None):
    out_times = []
    for t, k in zip(chunks, tokens_per_chunk):
        out_times += [t] * k
    return {"start_time": start, "end_time": end, "request": "{}", "response": "ok" if not error else "",
            "info": {"request_metrics": {"text": {"input_tokens": inp}},
                     "response_metrics": {"output_tokens": sum(tokens_per_chunk), "chunk_times": chunks, "output_token_times": out_times,
                                          "server_usage": {"prompt_tokens": inp, "completion_tokens": sum(tokens_per_chunk)}}},
            "error": error}

STAGES = [
    [req(100.0, 101.0, [100.25, 100.5, 100.75, 100.875], [1, 2, 1, 1], 100),
     req(100.5, 101.75, [100.875, 101.25, 101.5], [1, 1, 1], 120),
     req(101.0, 101.5, [], [], 80),  # a success without output tokens: NTPOT 0
     req(101.5, 102.0, [], [], 90, {"error_type": "HTTP Error 500", "error_msg": "boom"})],
    [req(110.0, 111.0, [110.125, 110.5, 110.625, 110.75, 111.0], [1, 1, 1, 1, 1], 110),
     req(110.5, 112.0, [110.75, 111.5], [2, 2], 95)],
]

def summary(reqs, stage_rate=None):
    ok = [r for r in reqs if r["error"] is None]
    bad = [r for r in reqs if r["error"] is not None]
    lat, ntpot, ttft, tpot, itl = [], [], [], [], []
    for r in ok:
        l = r["end_time"] - r["start_time"]
        lat.append(l)
        rm = r["info"]["response_metrics"]
        n = rm["output_tokens"]
        ntpot.append(l / n if n > 0 else 0.0)
        tt = rm["output_token_times"]
        if len(tt) > 1:
            ttft.append(tt[0] - r["start_time"])
            if n > 1:
                tpot.append((tt[-1] - tt[0]) / (n - 1))
            itl += [b - a for a, b in zip(tt, tt[1:])]
    window = max(r["end_time"] for r in reqs) - min(r["start_time"] for r in reqs)
    isl = [r["info"]["request_metrics"]["text"]["input_tokens"] for r in ok]
    osl = [r["info"]["response_metrics"]["output_tokens"] for r in ok]
    starts = [r["start_time"] for r in reqs]
    load = {"count": len(reqs), "schedule_delay": summarize([0.001] * len(reqs))}
    if stage_rate is not None:
        send = max(starts) - min(starts)
        load.update({"send_duration": send, "requested_rate": stage_rate, "achieved_rate": len(reqs) / send})
    return {
        "benchmark_time_seconds": window,
        "load_summary": load,
        "successes": {
            "count": len(ok),
            "latency": {"request_latency": summarize(lat), "normalized_time_per_output_token": summarize(ntpot),
                        "time_per_output_token": summarize(tpot), "time_to_first_token": summarize(ttft), "inter_token_latency": summarize(itl)},
            "throughput": {"input_tokens_per_sec": sum(isl) / window, "output_tokens_per_sec": sum(osl) / window,
                           "total_tokens_per_sec": (sum(isl) + sum(osl)) / window, "requests_per_sec": len(ok) / window},
            "prompt_len": summarize([float(x) for x in isl]), "output_len": summarize([float(x) for x in osl]),
            "token_count_mismatches": 0,
        },
        "failures": {"count": len(bad), "request_latency": summarize([r["end_time"] - r["start_time"] for r in bad]),
                     "prompt_len": summarize([float(r["info"]["request_metrics"]["text"]["input_tokens"]) for r in bad])},
    }

def write(path, obj, indent=2):
    with open(path, "w") as f:
        json.dump(obj, f, indent=indent)
        f.write("\n")

os.makedirs("report", exist_ok=True)
all_reqs = STAGES[0] + STAGES[1]
write("report/per_request_lifecycle_metrics.json", all_reqs)
write("report/summary_lifecycle_metrics.json", summary(all_reqs))
for i, (reqs, rate) in enumerate(zip(STAGES, [2.0, 1.5])):
    write("report/stage_%d_lifecycle_metrics.json" % i, summary(reqs, rate))
with open("report/config.yaml", "w") as f:
    f.write("# hand-written inference-perf config for verdict's tests\n"
            "api: {type: completion, streaming: true}\n"
            "server: {type: vllm, model_name: demo/model-8b, base_url: 'http://10.0.0.5:8000', ignore_eos: true}\n"
            "tokenizer: {pretrained_model_name_or_path: demo/model-8b}\n"
            "load:\n  type: poisson\n  stages:\n  - {rate: 2.0, duration: 2}\n  - {rate: 1.5, duration: 2}\n")

# v0.5.0: a BOS per chunk, token count mismatches on the server's count.
v050 = summary(STAGES[1], 1.5)
v050["successes"]["token_count_mismatches"] = 2
write("v0.5.0_stage_3_lifecycle_metrics.json", v050)
# Before v0.5: no benchmark_time_seconds, no token_count_mismatches,
# single-line JSON.
early = summary(STAGES[0], 2.0)
del early["benchmark_time_seconds"]
del early["successes"]["token_count_mismatches"]
write("v0.2_stage_0_lifecycle_metrics.json", early, indent=None)
