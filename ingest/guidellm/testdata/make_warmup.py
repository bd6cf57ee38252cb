#!/usr/bin/env python3
"""Writes genC_warmup.json: a made-up GuideLLM 0.5 synchronous benchmark run
with --warmup 0.1 --cooldown 0.1 --max-seconds 60, in the layout of the real
reports (metadata version 1, config.warmup/cooldown TransientPhaseConfig,
scheduler_metrics measure_start_time/measure_end_time, requests lists that
hold every request, warm-up and cool-down ones included).

GuideLLM's metrics cover only the requests that overlap the measurement
window (end >= measure_start and start <= measure_end,
GenerativeRequestsAccumulator.get_within_range); this script computes them
that way, with GuideLLM's distribution summary (values sorted, equal values
merged, probabilities w/W, running sum, percentile = first value whose
running sum reaches p). Pure Python: python3 make_warmup.py
"""
import json
import math

PCTS = [("p001", 0.001), ("p01", 0.01), ("p05", 0.05), ("p10", 0.1), ("p25", 0.25), ("p50", 0.5),
        ("p75", 0.75), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)]


def summary(values, weights=None):
    if weights is None:
        weights = [1.0] * len(values)
    pairs = sorted((float(v), float(w)) for v, w in zip(values, weights) if w > 0)
    merged = []
    for v, w in pairs:
        if merged and merged[-1][0] == v:
            merged[-1][1] += w
        else:
            merged.append([v, w])
    out = {"mean": 0.0, "median": 0.0, "mode": 0.0, "variance": 0.0, "std_dev": 0.0, "min": 0.0, "max": 0.0,
           "count": 0, "total_sum": 0.0, "percentiles": {k: 0.0 for k, _ in PCTS}, "pdf": None}
    if not merged:
        return out
    vals = [m[0] for m in merged]
    ws = [m[1] for m in merged]
    tw = sum(ws)
    probs = [w / tw for w in ws]
    cdf, run = [], 0.0
    for p in probs:
        run += p
        cdf.append(run)
    mean = sum(v * p for v, p in zip(vals, probs))
    var = sum((v - mean) ** 2 * p for v, p in zip(vals, probs))
    count = int(round(tw))

    def at(p):
        for i, c in enumerate(cdf):
            if c >= p:
                return vals[i]
        return vals[-1]

    out.update(mean=mean, median=at(0.5), mode=vals[max(range(len(probs)), key=lambda i: probs[i])], variance=var,
               std_dev=math.sqrt(var), min=vals[0], max=vals[-1], count=count, total_sum=mean * count)
    out["percentiles"] = {k: at(p) for k, p in PCTS}
    return out


def status(ok, weights=None):
    z = summary([])
    return {"successful": summary(ok, weights), "errored": z, "incomplete": z, "total": summary(ok, weights)}


def rate(mean, count):
    s = summary([mean] * max(count, 1))
    s["count"] = count
    z = summary([])
    return {"successful": s, "errored": z, "incomplete": z, "total": s}


T0 = 1770000000.0
# (start offset s, TTFT s, ITL s, output tokens, prompt tokens): one request
# at a time. The first pays a cold start; the window is [T0+6, T0+54].
SPECS = [(0.0, 2.5, 0.040, 64, 120), (5.0, 0.060, 0.030, 64, 100), (14.0, 0.055, 0.031, 64, 90),
         (23.0, 0.058, 0.030, 64, 130), (32.0, 0.061, 0.029, 64, 110), (41.0, 0.057, 0.030, 64, 95),
         (53.9, 0.059, 0.030, 64, 105), (60.0, 0.090, 0.030, 64, 100)]
WSTART, WEND = T0 + 6.0, T0 + 54.0


def request(i, start, ttft, itl, n_out, n_in):
    first = start + ttft
    last = first + itl * (n_out - 1)
    end = last + 0.002
    args = json.dumps({"method": None, "stream": True, "headers": None, "params": None,
                       "body": {"model": "demo/model-20b", "stream": True, "max_tokens": n_out, "prompt": "..."}, "files": None},
                      separators=(",", ":"))
    return {
        "type_": "generative_request_stats", "request_id": f"w-{i}", "response_id": f"cmpl-w{i}", "request_args": args,
        "output": "tokens " * 4,
        "info": {"request_id": f"w-{i}", "status": "completed", "scheduler_node_id": -1, "scheduler_process_id": 0,
                 "scheduler_start_time": T0,
                 "timings": {"targeted_start": start, "queued": T0 - 1.0, "dequeued": start - 0.001, "scheduled_at": start - 0.001,
                             "resolve_start": start - 0.0005, "request_start": start, "first_request_iteration": first,
                             "first_token_iteration": first, "last_token_iteration": last, "last_request_iteration": last + 0.0004,
                             "request_iterations": 2 * n_out, "token_iterations": n_out, "request_end": end,
                             "resolve_end": end + 0.0004, "finalized": end + 0.004},
                 "error": None, "traceback": None, "started_at": start, "completed_at": end},
        "input_metrics": {"text_tokens": n_in, "total_tokens": n_in}, "output_metrics": {"text_tokens": n_out, "total_tokens": n_out},
        "request_start_time": start, "request_end_time": end, "request_latency": end - start,
        "prompt_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out,
        "time_to_first_token_ms": 1000 * ttft, "time_per_output_token_ms": 1000 * (last - start) / n_out,
        "inter_token_latency_ms": 1000 * (last - first) / (n_out - 1),
    }, (start, first, last, end, n_in, n_out)


reqs, inside = [], []
for i, (off, ttft, itl, n_out, n_in) in enumerate(SPECS):
    r, o = request(i, T0 + off, ttft, itl, n_out, n_in)
    reqs.append(r)
    if o[3] >= WSTART and o[0] <= WEND:
        inside.append(o)
end_all = max(r["request_end_time"] for r in reqs)
ttft = [1000 * (f - s) for s, f, l, e, a, b in inside]
metrics = {
    "request_totals": {"successful": len(inside), "errored": 0, "incomplete": 0, "total": len(inside)},
    "requests_per_second": rate(5 / (WEND - WSTART), 5),
    "request_latency": status([e - s for s, f, l, e, a, b in inside]),
    "prompt_token_count": status([a for *_, a, b in inside]),
    "output_token_count": status([b for *_, a, b in inside]),
    "time_to_first_token_ms": status(ttft),
    "time_per_output_token_ms": status([1000 * (l - s) / b for s, f, l, e, a, b in inside], [b for *_, b in inside]),
    "inter_token_latency_ms": status([1000 * (l - f) / (b - 1) for s, f, l, e, a, b in inside], [b - 1 for *_, b in inside]),
    "output_tokens_per_second": rate(sum(b for *_, b in inside) / (WEND - WSTART), 300),
}
bench = {
    "type_": "generative_benchmark",
    "config": {"id_": "bench-w-0", "run_id": "run-w", "run_index": 0,
               "strategy": {"type_": "synchronous", "worker_count": 1, "max_concurrency": 1},
               "constraints": {"max_seconds": {"type_": "max_duration", "max_duration": 60.0, "current_index": 0}},
               "sample_requests": None,
               "warmup": {"percent": 0.1, "value": None, "mode": "prefer_duration"},
               "cooldown": {"percent": 0.1, "value": None, "mode": "prefer_duration"}, "prefer_response_metrics": True,
               "profile": {"type_": "synchronous", "strategy_types": ["synchronous"]},
               "requests": {"data": "['prompts.jsonl']"},
               "backend": {"target": "http://localhost:8000", "model": "demo/model-20b"}},
    "scheduler_state": {"created_requests": len(SPECS), "processed_requests": len(SPECS), "successful_requests": len(SPECS)},
    "scheduler_metrics": {"start_time": T0, "request_start_time": T0, "measure_start_time": WSTART, "measure_end_time": WEND,
                          "request_end_time": T0 + 60.0, "end_time": end_all + 0.01,
                          "requests_made": {"successful": len(SPECS), "errored": 0, "incomplete": 0, "total": len(SPECS)}},
    "metrics": metrics,
    "requests": {"successful": reqs, "errored": [], "incomplete": [], "total": None},
    "start_time": WSTART, "end_time": WEND, "duration": WEND - WSTART, "warmup_duration": WSTART - T0,
    "cooldown_duration": T0 + 60.0 - WEND,
}
report = {"metadata": {"version": 1, "guidellm_version": "0.5.0", "python_version": "3.12.3", "platform": "Linux"},
          "args": {"target": "http://localhost:8000", "profile": "synchronous", "backend": "openai_http",
                   "request_format": "/v1/completions", "model": "demo/model-20b", "warmup": 0.1, "cooldown": 0.1,
                   "max_seconds": 60, "prefer_response_metrics": True},
          "benchmarks": [bench]}
with open("genC_warmup.json", "w") as f:
    json.dump(report, f)
