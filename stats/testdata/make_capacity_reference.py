#!/usr/bin/env python3
"""Reference capacities for the Go test TestReferenceCapacity (verdict/stats).

Run from this directory with Debian's Python, which has numpy:

    /usr/bin/python3 make_capacity_reference.py > capacity_reference.json

It was run with numpy 1.24.2 (recorded in the output). Each case is a sweep
of per-request latencies drawn here (lognormal, seeded numpy Generator,
rounded to 1e-6 s so the JSON holds them exactly as used). Everything is
computed with numpy, never by the Go code under test, following the rule
stats.CapacityUnderLimits documents:

  - a limit's statistic at a load point is numpy.quantile(method="linear")
    of each run's values, averaged over the runs of a repeated point;
  - the capacity is read from the leading run of passing points (every
    statistic <= its bound);
  - between the last passing load a and the first failing load b, each
    limit failing at b is interpolated linearly in load with numpy.interp
    (the load at which its straight line from a to b reaches the bound),
    and the capacity is the smallest of those loads; its limit binds.
"""

import json

import numpy as np

rng = np.random.default_rng(20261203)


def lognormal(median, sigma, n):
    return np.round(median * rng.lognormal(0.0, sigma, n), 6)


def point_stat(runs, p):
    return float(np.mean([np.quantile(np.asarray(r), p, method="linear") for r in runs]))


def read(loads, stats, bounds):
    """stats[i][j]: limit j at load i. Returns status, capacity, last pass, first fail, binding."""
    last = -1
    while last + 1 < len(loads) and all(stats[last + 1][j] <= bounds[j] for j in range(len(bounds))):
        last += 1
    if last < 0:
        return "never_met", None, None, float(loads[0]), -1
    if last == len(loads) - 1:
        return "not_reached", float(loads[-1]), float(loads[-1]), None, -1
    a, b = last, last + 1
    best, binding = None, -1
    for j, bound in enumerate(bounds):
        if stats[b][j] <= bound:
            continue
        # numpy.interp needs increasing x: the statistic rises from a to b
        # across the bound here (it passes at a, fails at b).
        load = float(np.interp(bound, [stats[a][j], stats[b][j]], [loads[a], loads[b]]))
        if best is None or load < best:
            best, binding = load, j
    return "bracketed", best, float(loads[a]), float(loads[b]), binding


def case(name, loads, medians, sigmas, n, limits, repeats=None):
    """medians[m][i]: the median latency of metric m at load i."""
    repeats = repeats or {}
    points = []
    for i, load in enumerate(loads):
        runs = []
        for _ in range(repeats.get(i, 1)):
            runs.append({m: lognormal(medians[m][i], sigmas[m], n).tolist() for m in medians})
        points.append({"load": load, "runs": runs})
    stats = [[point_stat([r[l["metric"]] for r in p["runs"]], l["p"]) for l in limits] for p in points]
    status, cap, last, first, binding = read(loads, stats, [l["bound"] for l in limits])
    return {"name": name, "limits": limits, "points": points, "statistics": stats, "status": status,
            "capacity": cap, "last_pass": last, "first_fail": first, "binding": binding}


cases = [
    # TTFT p99 binds between 8 and 12 req/s; TPOT p90 would bind later.
    case("ttft p99 binds", [2, 4, 8, 12, 16],
         {"ttft": [0.12, 0.15, 0.22, 0.45, 0.9], "tpot": [0.020, 0.022, 0.026, 0.031, 0.040]},
         {"ttft": 0.35, "tpot": 0.15}, 400,
         [{"metric": "ttft", "p": 0.99, "bound": 0.6}, {"metric": "tpot", "p": 0.9, "bound": 0.036}]),
    # TPOT p50 binds; a repeated load point (three runs at 6) is averaged.
    case("tpot p50 binds, repeats", [1, 3, 6, 9],
         {"ttft": [0.1, 0.12, 0.14, 0.2], "tpot": [0.018, 0.024, 0.033, 0.05]},
         {"ttft": 0.3, "tpot": 0.2}, 300,
         [{"metric": "ttft", "p": 0.99, "bound": 1.0}, {"metric": "tpot", "p": 0.5, "bound": 0.04}],
         repeats={2: 3}),
    case("not reached", [2, 4, 6], {"e2e": [1.0, 1.2, 1.5]}, {"e2e": 0.2}, 300,
         [{"metric": "e2e", "p": 0.95, "bound": 10.0}]),
    case("never met", [2, 4, 6], {"e2e": [3.0, 4.0, 6.0]}, {"e2e": 0.2}, 300,
         [{"metric": "e2e", "p": 0.95, "bound": 1.0}]),
]
print(json.dumps({"numpy": np.__version__, "cases": cases}, separators=(",", ":")))
