#!/usr/bin/python3
"""Writes the hand-made GuideLLM reports of this directory: made-up runs in
the layouts of each schema generation, whose distribution summaries are
computed from their own request records with GuideLLM's conventions
(values sorted, equal values merged, probabilities w/W, running float sum,
percentile = first value whose running sum reaches p; token-weighted
inter_token_latency_ms and time_per_output_token_ms from v0.4; v0.1's
numpy means and linear percentiles).

Run with Debian's python3-numpy and python3-yaml: /usr/bin/python3 make_fixtures.py
"""
import json
import math

import numpy as np
import yaml

PCTS = [("p001", 0.001), ("p01", 0.01), ("p05", 0.05), ("p10", 0.1), ("p25", 0.25), ("p50", 0.5),
        ("p75", 0.75), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)]


def summary(values, weights=None, cdf_key="pdf", with_p50=True):
    """A GuideLLM DistributionSummary (v0.2+ algorithm)."""
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
           "count": 0, "total_sum": 0.0, "percentiles": {k: 0.0 for k, _ in PCTS if with_p50 or k != "p50"}, cdf_key: None}
    if not merged:
        return out
    vals = np.array([m[0] for m in merged])
    ws = np.array([m[1] for m in merged])
    probs = ws / np.sum(ws)
    cdf = np.cumsum(probs)
    mean = float(np.sum(vals * probs))
    var = float(np.sum((vals - mean) ** 2 * probs))
    count = int(round(float(np.sum(ws))))

    def at(p):
        i = int(np.searchsorted(cdf, p, side="left"))
        return float(vals[min(i, len(vals) - 1)])

    out.update(mean=mean, median=at(0.5), mode=float(vals[int(np.argmax(probs))]), variance=var, std_dev=math.sqrt(var),
               min=float(vals[0]), max=float(vals[-1]), count=count, total_sum=mean * count)
    out["percentiles"] = {k: at(p) for k, p in PCTS if with_p50 or k != "p50"}
    return out


def status_summary(ok, ok_w=None, err=(), inc=(), cdf_key="pdf", with_p50=True):
    total = list(ok) + list(err) + list(inc)
    tw = None if ok_w is None else list(ok_w) + [1.0] * (len(err) + len(inc))
    return {"successful": summary(ok, ok_w, cdf_key, with_p50), "errored": summary(err, None, cdf_key, with_p50),
            "incomplete": summary(inc, None, cdf_key, with_p50), "total": summary(total, tw, cdf_key, with_p50)}


def rate_summary(mean, count, cdf_key="pdf", with_p50=True):
    """A rate distribution: only its mean is read by verdict."""
    s = summary([mean] * max(count, 1), None, cdf_key, with_p50)
    s["count"] = count
    z = summary([], None, cdf_key, with_p50)
    return {"successful": s, "errored": z, "incomplete": z, "total": s}


def request_modern(i, start, ttft, itl, n_out, n_in, status="completed", error=None):
    first = start + ttft
    last = first + itl * (n_out - 1) if n_out > 0 else first
    end = last + 0.0015
    return {
        "type_": "generative_request_stats", "request_id": f"req-{i}", "response_id": f"cmpl-{i}",
        "request_args": "{\"stream\": true}", "output": "x" * 8,
        "info": {"request_id": f"req-{i}", "status": status, "scheduler_node_id": 0, "scheduler_process_id": 0,
                 "timings": {"targeted_start": start, "queued": start - 0.01, "dequeued": start - 0.002, "scheduled_at": start - 0.002,
                             "resolve_start": start - 0.001, "request_start": start, "first_request_iteration": first,
                             "first_token_iteration": first if n_out > 0 else None, "last_token_iteration": last if n_out > 0 else None,
                             "request_iterations": n_out, "token_iterations": n_out, "request_end": end,
                             "resolve_end": end + 0.0005, "finalized": end + 0.001},
                 "error": error, "traceback": None},
        "input_metrics": {"text_tokens": n_in, "total_tokens": n_in}, "output_metrics": {"text_tokens": n_out, "total_tokens": n_out},
        "request_start_time": start, "request_end_time": end, "request_latency": end - start,
        "prompt_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out,
        "time_to_first_token_ms": 1000 * ttft if n_out > 0 else None,
        "time_per_output_token_ms": 1000 * (last - start) / n_out if n_out > 0 else None,
        "inter_token_latency_ms": 1000 * (last - first) / (n_out - 1) if n_out > 1 else None,
    }, (start, first, last, end, n_in, n_out)


def modern_metrics(ok, err=(), inc=(), answer=False):
    """Metrics of v0.4+ from (start, first, last, end, in, out) tuples."""
    ttft = [1000 * (f - s) for s, f, l, e, a, b in ok]
    lat = [e - s for s, f, l, e, a, b in ok]
    itl = [1000 * (l - f) / (b - 1) for s, f, l, e, a, b in ok if b > 1]
    itl_w = [b - 1 for s, f, l, e, a, b in ok if b > 1]
    tpot = [1000 * (l - s) / b for s, f, l, e, a, b in ok if b > 0]
    tpot_w = [b for s, f, l, e, a, b in ok if b > 0]
    span = max(e for s, f, l, e, a, b in ok) - min(s for s, f, l, e, a, b in ok)
    m = {
        "request_totals": {"successful": len(ok), "errored": len(err), "incomplete": len(inc), "total": len(ok) + len(err) + len(inc)},
        "requests_per_second": rate_summary(len(ok) / span, len(ok)),
        "request_concurrency": {"successful": {**summary([1.0, 2.0], [0.4, 0.6]), "count": 2},
                                "errored": summary([]), "incomplete": summary([]), "total": summary([1.0, 2.0], [0.4, 0.6])},
        "request_latency": status_summary(lat, None, [0.5] * len(err), [0.2] * len(inc)),
        "prompt_token_count": status_summary([a for *_, a, b in ok]),
        "output_token_count": status_summary([b for *_, a, b in ok]),
        "time_to_first_token_ms": status_summary(ttft),
        "time_per_output_token_ms": status_summary(tpot, tpot_w),
        "inter_token_latency_ms": status_summary(itl, itl_w),
        "output_tokens_per_second": rate_summary(sum(b for *_, b in ok) / span, 40),
        "tokens_per_second": rate_summary(sum(a + b for *_, a, b in ok) / span, 44),
    }
    if answer:
        m["time_to_first_output_token_ms"] = status_summary([t + 5.0 for t in ttft])
    return m


def gen_c():
    reqs, obs = [], []
    start = 1760000000.0
    specs = [(0.120, 0.020, 64, 100), (0.135, 0.021, 48, 120), (0.110, 0.019, 80, 90), (0.150, 0.025, 32, 110),
             (0.125, 0.020, 64, 100), (0.140, 0.022, 1, 95)]
    for i, (ttft, itl, n_out, n_in) in enumerate(specs):
        r, o = request_modern(i, start + 0.5 * i, ttft, itl, n_out, n_in)
        reqs.append(r)
        obs.append(o)
    err, _ = request_modern(6, start + 3.1, 0.0, 0.0, 0, 100, status="errored", error="HTTPStatusError: 500 Internal Server Error")
    inc, _ = request_modern(7, start + 3.3, 0.1, 0.02, 5, 100, status="cancelled")
    end = max(o[3] for o in obs)
    bench = {
        "type_": "generative_benchmark",
        "config": {"id_": "bench-c-0", "run_id": "run-c", "run_index": 0,
                   "strategy": {"type_": "poisson", "rate": 2.0, "random_seed": 42, "max_concurrency": None, "worker_count": 2},
                   "constraints": {"max_requests": {"type_": "max_number", "max_num": 8}}, "sample_requests": None,
                   "warmup": {"percent": None, "value": None, "mode": "prefer_duration"},
                   "cooldown": {"percent": None, "value": None, "mode": "prefer_duration"}, "prefer_response_metrics": True,
                   "profile": {"type_": "async", "strategy_types": ["poisson"], "rate": [2.0]},
                   "requests": {"data": "['prompt_tokens=100,output_tokens=64']"},
                   "backend": {"target": "http://localhost:8000", "model": "demo/model-7b"}},
        "scheduler_state": {"created_requests": 8, "processed_requests": 8, "successful_requests": 6, "errored_requests": 1, "cancelled_requests": 1},
        "scheduler_metrics": {"start_time": start - 0.01, "request_start_time": start, "measure_start_time": start, "measure_end_time": end,
                              "request_end_time": end, "end_time": end + 0.01,
                              "requests_made": {"successful": 6, "errored": 1, "incomplete": 1, "total": 8}},
        "metrics": modern_metrics(obs, [0.5], [0.2]),
        "requests": {"successful": reqs, "errored": [err], "incomplete": [inc], "total": None},
        "start_time": start, "end_time": end, "duration": end - start, "warmup_duration": 0.0, "cooldown_duration": 0.0,
    }
    return {"metadata": {"version": 1, "guidellm_version": "0.5.2", "python_version": "3.12.3", "platform": "Linux"},
            "args": {"target": "http://localhost:8000", "profile": "poisson", "rate": [2.0], "backend": "openai_http",
                     "request_format": "/v1/chat/completions", "model": "demo/model-7b", "processor": "demo/model-7b",
                     "prefer_response_metrics": True},
            "benchmarks": [bench]}


def vector():
    """Ten requests whose TTFTs are exactly 10, 20, ..., 100 ms."""
    reqs, obs = [], []
    for i in range(10):
        start = 0.5 * i
        ttft = (10 * (i + 1)) / 1000
        r, o = request_modern(i, start, ttft, 0.01, 11, 50)
        reqs.append(r)
        obs.append(o)
    m = modern_metrics(obs)
    # The tool's own TTFTs are the exact values, not start + ttft - start.
    m["time_to_first_token_ms"] = status_summary([10.0 * (i + 1) for i in range(10)])
    end = max(o[3] for o in obs)
    bench = {"type_": "generative_benchmark",
             "config": {"id_": "vector", "run_id": "vector", "run_index": 0, "strategy": {"type_": "synchronous"},
                        "profile": {"type_": "synchronous"}, "sample_requests": None, "backend": {"model": "vector"}},
             "scheduler_state": {}, "scheduler_metrics": {}, "metrics": m,
             "requests": {"successful": reqs, "errored": [], "incomplete": [], "total": None},
             "start_time": 0.0, "end_time": end, "duration": end}
    return {"metadata": {"version": 1, "guidellm_version": "0.5.2"}, "args": {}, "benchmarks": [bench]}


def gen_d():
    reqs, obs = [], []
    start = 1780000000.0
    for i, (ttft, itl, n_out) in enumerate([(0.2, 0.03, 20), (0.25, 0.028, 30), (0.22, 0.031, 25), (0.3, 0.029, 40), (0.21, 0.03, 22)]):
        r, o = request_modern(i, start + i, ttft, itl, n_out, 200)
        reqs.append(r)
        obs.append(o)
    end = max(o[3] for o in obs)
    bench = {"type_": "generative_benchmark",
             "config": {"id_": "bench-d-0", "run_id": "run-d", "run_index": 0,
                        "strategy": {"type_": "trace", "time_scale": 1.0}, "profile": {"type_": "replay"},
                        "sample_size": 2, "prefer_response_metrics": True, "backend": {"model": "demo/reasoner"}},
             "scheduler_state": {}, "scheduler_metrics": {"measure_start_time": start, "measure_end_time": end},
             "metrics": modern_metrics(obs, answer=True),
             "requests": {"successful": reqs[:2], "errored": [], "incomplete": [], "total": None},
             "start_time": start, "end_time": end, "duration": end - start, "warmup_duration": 1.5, "cooldown_duration": 0.0}
    return {"metadata": {"version": 2, "guidellm_version": "0.7.3", "python_version": "3.12.8", "platform": "Linux"},
            "config": {"metadata": {"labels": {"team": "perf", "cluster": "lab-a"}},
                       "spec": {"backend": {"type_": "openai_http", "target": "http://gateway:8080", "model": "demo/reasoner"},
                                "profile": {"type_": "replay"}, "constraints": {}, "data": {"processor": "demo/reasoner"}},
                       "benchmarks": []},
            "benchmarks": [bench]}


def gen_b_yaml():
    """A v0.4 report in YAML: throughput with a concurrency cap."""
    reqs, obs = [], []
    start = 1765000000.0
    for i, (ttft, itl, n_out) in enumerate([(0.5, 0.04, 16), (0.55, 0.041, 16), (0.6, 0.039, 16)]):
        r, o = request_modern(i, start + 0.01 * i, ttft, itl, n_out, 512)
        reqs.append(r)
        obs.append(o)
    end = max(o[3] for o in obs)
    bench = {"type_": "generative_benchmark",
             "config": {"id_": "bench-b-0", "run_id": "run-b", "run_index": 1,
                        "strategy": {"type_": "throughput", "max_concurrency": 3}, "profile": {"type_": "sweep", "sweep_size": 5},
                        "sample_requests": 20, "backend": {"model": "demo/model-1b"}},
             "scheduler_state": {}, "scheduler_metrics": {},
             "metrics": modern_metrics(obs), "requests": {"successful": reqs, "errored": [], "incomplete": [], "total": None},
             "start_time": start, "end_time": end, "duration": end - start}
    return {"args": {"target": "http://localhost:8000", "backend": "openai_http", "model": "demo/model-1b"}, "benchmarks": [bench]}


def gen_a():
    """A v0.2-v0.3 sweep: synchronous and constant, one record kept of each status."""
    benches = []
    for idx, (typ, rate) in enumerate([("synchronous", None), ("constant", 3.5)]):
        start = 1749000000.0 + 100 * idx
        lat = [0.64 + 0.01 * k for k in range(5)]
        ttft = [16.0 + k for k in range(5)]
        itl = [4.9 + 0.01 * k for k in range(5)]
        tpot = [x * 127 / 128 for x in itl]
        strategy = {"type_": typ}
        if rate:
            strategy["rate"] = rate
        rec = {"type_": "generative_text_response", "request_id": f"a{idx}", "request_type": "text_completions",
               "scheduler_info": {}, "prompt": "p", "output": "o", "prompt_tokens": 256, "output_tokens": 128,
               "start_time": start, "end_time": start + 0.64, "first_token_time": start + 0.016, "last_token_time": start + 0.6383,
               "request_latency": 0.64, "time_to_first_token_ms": 16.0}
        err = {"type_": "generative_text_error", "request_id": f"e{idx}", "request_type": "text_completions", "scheduler_info": {},
               "prompt": "p", "output": None, "prompt_tokens": 256, "output_tokens": None, "start_time": start + 5, "end_time": start + 5.2,
               "first_token_time": None, "last_token_time": None, "error": "TimeoutError: read timeout"}
        benches.append({
            "type_": "generative_benchmark", "id_": f"bench-a-{idx}", "run_id": "run-a",
            "args": {"profile": {"type_": "sweep", "sweep_size": 2, "strategy_types": ["synchronous", "constant"]},
                     "strategy_index": idx, "strategy": strategy, "max_number": None, "max_duration": 30.0},
            "run_stats": {"start_time": start - 0.1, "end_time": start + 30, "requests_made": {"successful": 5, "errored": 1, "incomplete": 0, "total": 6}},
            "worker": {"type_": "generative_requests_worker", "backend_type": "openai_http", "backend_target": "http://localhost:8000",
                       "backend_model": "demo/model-3b"},
            "request_loader": {"type_": "generative_request_loader", "data": "prompt_tokens=256,output_tokens=128", "processor": "demo/model-3b"},
            "extras": {},
            "metrics": {
                "requests_per_second": rate_summary(5 / 3.2, 5, "cumulative_distribution_function", False),
                "request_concurrency": {"successful": {**summary([1.0], None, "cumulative_distribution_function", False), "count": 2},
                                        "errored": summary([], None, "cumulative_distribution_function", False),
                                        "incomplete": summary([], None, "cumulative_distribution_function", False),
                                        "total": summary([1.0], None, "cumulative_distribution_function", False)},
                "request_latency": status_summary(lat, None, [0.2], (), "cumulative_distribution_function", False),
                "prompt_token_count": status_summary([256] * 5, None, (), (), "cumulative_distribution_function", False),
                "output_token_count": status_summary([128] * 5, None, (), (), "cumulative_distribution_function", False),
                "time_to_first_token_ms": status_summary(ttft, None, (), (), "cumulative_distribution_function", False),
                "time_per_output_token_ms": status_summary(tpot, None, (), (), "cumulative_distribution_function", False),
                "inter_token_latency_ms": status_summary(itl, None, (), (), "cumulative_distribution_function", False),
                "output_tokens_per_second": rate_summary(640 / 3.2, 12, "cumulative_distribution_function", False),
                "tokens_per_second": rate_summary((640 + 1280) / 3.2, 14, "cumulative_distribution_function", False),
            },
            "start_time": start, "end_time": start + 3.2, "duration": 3.2,
            "request_totals": {"successful": 5, "errored": 1, "incomplete": 0, "total": 6},
            "request_samples": 1,
            "requests": {"successful": [rec], "errored": [err], "incomplete": [], "total": None},
        })
    return {"benchmarks": benches}


def gen0():
    """A v0.1 report: two benchmarks with every result kept and numpy's statistics."""
    benches = []
    for mode, rate, specs in [("synchronous", None, [(0.05, 0.010, 20, 100), (0.06, 0.011, 25, 110), (0.055, 0.012, 30, 90), (0.07, 0.010, 22, 100)]),
                              ("asynchronous", 2.0, [(0.08, 0.015, 18, 100), (0.09, 0.014, 26, 105), (0.075, 0.016, 21, 95)])]:
        t = 1720000000.0
        results = []
        for k, (ttft, itl, n_out, n_in) in enumerate(specs):
            s = t + k
            first = s + ttft
            last = first + itl * (n_out - 1)
            e = last + 0.002
            results.append({"request": {"id": f"r{k}", "prompt": "p", "prompt_token_count": n_in, "output_token_count": n_out},
                            "prompt_token_count": n_in, "output": "o", "output_token_count": n_out, "start_time": s, "end_time": e,
                            "first_token_time": first, "last_token_time": last,
                            "request_latency": e - s, "time_to_first_token": 1000 * (first - s),
                            "inter_token_latency": 1000 * (last - first) / (n_out - 1), "output_tokens_per_second": (n_out - 1) / (last - first)})
        lat = [r["request_latency"] for r in results]
        ttfts = [r["time_to_first_token"] for r in results]
        itls = [r["inter_token_latency"] for r in results for _ in range(r["output_token_count"] - 1)]
        pct = [1, 5, 10, 50, 90, 95, 99]
        dur = results[-1]["end_time"] - results[0]["start_time"]
        b = {"mode": mode, "rate": rate, "results": results,
             "errors": [{"request": {"id": "x"}, "message": "ConnectError: connection refused"}] if mode == "asynchronous" else [],
             "concurrencies": [{"time": t, "completed": 0, "errored": 0, "processing": 1}],
             "request_count": len(results), "error_count": 1 if mode == "asynchronous" else 0,
             "total_count": len(results) + (1 if mode == "asynchronous" else 0),
             "start_time": results[0]["start_time"], "end_time": results[-1]["end_time"], "duration": dur,
             "completed_request_rate": len(results) / dur,
             "request_latency": float(np.mean(lat)), "request_latency_percentiles": dict(zip(map(str, pct), np.percentile(lat, pct).tolist())),
             "time_to_first_token": float(np.mean(ttfts)), "time_to_first_token_percentiles": dict(zip(map(str, pct), np.percentile(ttfts, pct).tolist())),
             "inter_token_latency": float(np.mean(itls)), "inter_token_latency_percentiles": dict(zip(map(str, pct), np.percentile(itls, pct).tolist())),
             "output_token_throughput": sum(r["output_token_count"] for r in results) / dur,
             "prompt_token": float(np.mean([r["prompt_token_count"] for r in results])),
             "prompt_token_percentiles": dict(zip(map(str, pct), np.percentile([r["prompt_token_count"] for r in results], pct).tolist())),
             "output_token": float(np.mean([r["output_token_count"] for r in results])),
             "output_token_percentiles": dict(zip(map(str, pct), np.percentile([r["output_token_count"] for r in results], pct).tolist()))}
        benches.append(b)
    return {"benchmarks": benches, "args": {"target": "http://localhost:8000", "backend": "openai_server", "model": "demo/model-v01",
                                             "tokenizer": "demo/model-v01", "data": "emulated", "rate_type": "poisson"}}


def bad_rows():
    r = gen_c()
    b = r["benchmarks"][0]
    b["requests"]["successful"][1]["info"]["timings"]["request_end"] = b["requests"]["successful"][1]["info"]["timings"]["request_start"] - 1
    b["metrics"]["time_to_first_token_ms"]["successful"]["percentiles"]["p90"] = "fast"
    b["requests"]["successful"][3]["prompt_tokens"] = "many"
    return r


with open("genC_complete.json", "w") as f:
    json.dump(gen_c(), f, indent=2)
with open("vector_genC.json", "w") as f:
    json.dump(vector(), f, indent=2)
with open("genD_v07.json", "w") as f:
    json.dump(gen_d(), f, indent=2)
with open("genB_v04.yaml", "w") as f:
    yaml.dump(gen_b_yaml(), f)
with open("genA_sweep.json", "w") as f:
    json.dump(gen_a(), f, indent=2)
with open("gen0_v01.json", "w") as f:
    json.dump(gen0(), f, indent=2)
with open("bad_rows.json", "w") as f:
    json.dump(bad_rows(), f, indent=2)
with open("truncated.json", "w") as f:
    f.write(json.dumps(gen_c(), indent=2)[:3000])
with open("not_a_report.json", "w") as f:
    json.dump({"benchmarkz": [], "metadata": {"version": 1, "guidellm_version": "0.5.2"}}, f, indent=2)
