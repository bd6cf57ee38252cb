"""Writes the hand-made MLPerf Endpoints fixtures of this directory.

No real result_summary.json has been published, so these files are written
from the tool's code as docs/formats/mlperf-endpoints.md describes it
(src/inference_endpoint/metrics/report.py and the metrics aggregator of
mlcommons/endpoints): nanosecond series, statistics "total", "min", "max",
"median", "avg" (total / count), "std_dev" (sample, the exact integer
formula for integer series), "percentiles" read with
numpy.percentile(method="lower") (x[floor((n-1)p)], implemented here),
"early_stopping_percentiles" (null where too few samples), and qps/tps over
the legacy LoadGen window when legacy_loadgen_window_duration_ns is set
(qps = (completed - 1) / window, tps = osl total / window), over
duration_ns otherwise.

Run: python3 make_fixtures.py (from this directory).
"""
import json, math

GRID = [99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0]

def lower(xs, p):
    s = sorted(xs)
    return s[math.floor((len(s) - 1) * p / 100)]

def series(xs, early=None):
    n = len(xs)
    total = sum(xs)
    if all(isinstance(x, int) for x in xs):
        sq = sum(x * x for x in xs)
        std = math.sqrt(max(0, n * sq - total * total)) / math.sqrt(n * (n - 1))
    else:
        m = total / n
        std = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    pct = {str(p): lower(xs, p) for p in GRID}
    lo, hi = min(xs), max(xs)
    d = {"total": total, "min": lo, "max": hi, "median": pct["50.0"], "avg": total / n, "std_dev": std, "percentiles": pct,
         "histogram": {"buckets": [[lo, (lo + hi) / 2], [(lo + hi) / 2, hi]],
                       "counts": [sum(1 for x in xs if x < (lo + hi) / 2), sum(1 for x in xs if x >= (lo + hi) / 2)]}}
    if early is not None:
        d["early_stopping_percentiles"] = early
    return d

# Ten tracked samples of a Poisson run (nanoseconds).
ttft = [41_000_000, 52_500_000, 38_250_000, 61_000_000, 44_125_000, 70_500_000, 39_000_000, 47_750_000, 55_000_000, 43_500_000]
lat = [1_241_000_000, 1_352_500_000, 1_138_250_000, 1_961_000_000, 1_244_125_000, 1_370_500_000, 1_139_000_000, 1_547_750_000, 1_255_000_000, 1_243_500_000]
osl = [120, 128, 110, 190, 121, 128, 110, 150, 121, 120]
isl = [512] * 10
first_chunk_tokens = [1, 1, 2, 1, 1, 1, 3, 1, 1, 1]
tpot = [(l - t) / (o - f) for l, t, o, f in zip(lat, ttft, osl, first_chunk_tokens)]

window_ns = 11_250_000_000
duration_ns = 12_500_000_000
early = {"50.0": 52_500_000, "90.0": None, "99.0": None}

def report(legacy):
    n = len(lat)
    window = window_ns if legacy else None
    secs = (window_ns if legacy else duration_ns) / 1e9
    qps = (n - 1) / secs if legacy else n / secs
    return {
        "version": "0.1.0", "git_sha": "ea3327530376", "test_started_at": 0,
        "n_samples_issued": n, "n_samples_completed": n, "n_samples_failed": 0, "duration_ns": duration_ns,
        "state": "complete", "complete": True,
        "ttft": series(ttft, early), "tpot": series(tpot, {"50.0": None}), "latency": series(lat, {"50.0": 1_352_500_000, "90.0": None}),
        "output_sequence_lengths": series(osl), "input_sequence_lengths": series(isl),
        "legacy_loadgen_window_duration_ns": window, "qps": qps, "tps": sum(osl) / secs,
        "finish_reason_counts": {"stop": 7, "length": 3, "tool_calls": 0, "content_filter": 0, "function_call": 0, "other": 0},
        "run_config": {"load_pattern": {"type": "poisson", "target_qps": 0.8}, "warmup": {"enabled": True, "num_samples": 4},
                       "scheduler_random_seed": 42, "dataloader_random_seed": 42},
    }

with open("report/performance/result_summary.json", "w") as f:
    json.dump(report(True), f, indent=2)
native = report(False)
native["state"], native["complete"] = "interrupted", False
with open("result_summary_native_window.json", "w") as f:
    json.dump(native, f, indent=2)
with open("report/config.yaml", "w") as f:
    f.write("""# hand-written MLPerf Endpoints config for verdict's tests (the effective config the
# tool writes beside its results, secrets redacted)
name: online-demo
type: online
model_params:
  name: demo/model-8b
  max_new_tokens: 256
settings:
  runtime:
    min_duration_ms: 10000
  load_pattern:
    type: poisson
    target_qps: 0.8
endpoint_config:
  endpoints:
  - http://10.0.0.9:8000
  api_key: '<redacted>'
""")
