#!/usr/bin/env python3
"""Reference values for the Go package verdict/stats.

Run from this directory with Debian's Python, which has numpy and scipy:

    /usr/bin/python3 make_reference.py > reference.json

It was run with numpy 1.24.2 and scipy 1.10.1 (recorded in the output).
Everything here is computed by numpy/scipy or by a literal transcription
of a tool's own Python code (GuideLLM, Locust), never by the Go code under
test. Sections:

  percentiles   numpy.quantile(method="linear"); GuideLLM's np.unique +
                np.cumsum + np.searchsorted; LoadGen's x[int(n*p)]; Locust's
                round() bucketing and top-down walk.
  locust_round  Python's round(x) / round(x, -k) as Locust applies it.
  bca_fed       BCa intervals from replicates drawn here and fed to
                scipy.stats.bootstrap(n_resamples=0, bootstrap_result=...),
                so Go can compute the interval from the *same* replicates
                and compare to rounding error; z0 and the acceleration are
                also computed directly with numpy (Efron-Tibshirani 14.14,
                14.15 and scipy's multi-sample form).
  bca_full      scipy.stats.bootstrap(method="BCa") with its own resampling;
                Go resamples differently, so the Go test compares within a
                Monte Carlo tolerance stated there.
  mannwhitneyu  scipy.stats.mannwhitneyu(alternative="two-sided").
  ks_2samp      scipy.stats.ks_2samp (method="auto").
"""

import json
import sys

import numpy as np
import scipy
import scipy.stats as st
from scipy.special import ndtr, ndtri
from scipy.stats._resampling import BootstrapResult

PS = [0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.66, 0.75, 0.9, 0.95, 0.98, 0.99, 0.999, 1]


def guidellm_percentile(values, p):
    """GuideLLM DistributionSummary.from_values (unit weights) + Percentiles.from_pdf."""
    v = np.sort(np.asarray(values, dtype=float))
    unique_values, inverse = np.unique(v, return_inverse=True)
    weights = np.zeros_like(unique_values, dtype=float)
    np.add.at(weights, inverse, np.ones_like(v))
    probs = weights / np.sum(weights)
    cdf = np.cumsum(probs)
    i = np.searchsorted(cdf, p, side="left")
    i = min(int(i), len(unique_values) - 1)  # GuideLLM would raise past the end
    return float(unique_values[i])


def locust_round(rt):
    """locust/stats.py StatsEntry._log_response_time."""
    if rt < 100:
        return float(round(rt))
    if rt < 1000:
        return float(round(rt, -1))
    if rt < 10000:
        return float(round(rt, -2))
    return float(round(rt, -3))


def locust_percentile(values, p):
    """locust/stats.py calculate_response_time_percentile over the rounded dict."""
    response_times = {}
    for rt in values:
        k = locust_round(rt)
        response_times[k] = response_times.get(k, 0) + 1
    num_requests = len(values)
    num_of_request = int(num_requests * p)
    processed = 0
    for rt in sorted(response_times.keys(), reverse=True):
        processed += response_times[rt]
        if num_requests - processed <= num_of_request:
            return rt
    return 0.0


def percentiles():
    rng = np.random.default_rng(20261201)
    sets = {
        "shared": [10.0 * i for i in range(1, 11)],
        "one": [3.5],
        "two": [1.0, 2.0],
        "lognormal37": list(rng.lognormal(3, 1, 37)),
        "ties1000": list(np.round(rng.exponential(200, 1000)) / 4),
        "ms_mixed": list(rng.choice([3, 7.5, 99.5, 145, 155, 870, 999.5, 1050, 9950, 12345, 60000], 200))
        + list(rng.uniform(0, 20000, 300)),
    }
    out = []
    for name, xs in sets.items():
        xs = [float(x) for x in xs]
        s = sorted(xs)
        n = len(s)
        case = {"name": name, "data": xs, "p": PS, "linear": [], "cumulative": [], "floor": [], "locust": []}
        for p in PS:
            case["linear"].append(float(np.quantile(np.array(xs), p, method="linear")))
            case["cumulative"].append(guidellm_percentile(xs, p))
            case["floor"].append(s[min(int(n * p), n - 1)])
            case["locust"].append(float(locust_percentile(xs, p)))
        out.append(case)
    return out


def locust_rounds():
    xs = [0.0, 0.5, 1.5, 2.5, 49.5, 98.5, 99.49, 99.5, 100.0, 104.99, 105.0, 115.0, 145.0, 155.0,
          147.3, 999.4, 999.5, 1049.9, 1050.0, 1150.0, 3432.0, 9949.0, 9950.0, 9999.9, 10000.0,
          10500.0, 11500.0, 58760.0, 123456.7]
    xs += [np.nextafter(145.0, 0), np.nextafter(145.0, 200), np.nextafter(10500.0, 0), np.nextafter(10500.0, 2e4)]
    return [{"in": float(x), "out": locust_round(float(x))} for x in xs]


def jackknife(data, stat):
    n = len(data)
    return np.array([stat(np.delete(data, i)) for i in range(n)])


def direct_bca(theta_hat, reps, jacks, confidence):
    """BCa pieces computed directly: z0 from the mid-rank share of
    replicates below the estimate, a from the jackknife (scipy's
    multi-sample form, which is Efron-Tibshirani 14.15 for one sample)."""
    b = len(reps)
    share = ((reps < theta_hat).sum() + (reps <= theta_hat).sum()) / (2 * b)
    z0 = ndtri(share)
    num = den = 0.0
    for j in jacks:
        n = len(j)
        u = (n - 1) * (j.mean() - j)
        num += (u ** 3).sum() / n ** 3
        den += (u ** 2).sum() / n ** 2
    a = num / (6 * den ** 1.5)
    alpha = (1 - confidence) / 2
    za = ndtri(alpha)
    a1 = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
    a2 = ndtr(z0 + (z0 - za) / (1 - a * (z0 - za)))
    return float(z0), float(a), float(np.percentile(reps, a1 * 100)), float(np.percentile(reps, a2 * 100))


def bca_fed():
    rng = np.random.default_rng(7)
    B = 1000
    out = []
    one_sample = [
        ("mean", "mean", lambda x, axis=-1: np.mean(x, axis=axis), rng.lognormal(0, 1, 30)),
        ("median", "median", lambda x, axis=-1: np.median(x, axis=axis), rng.lognormal(0, 1, 51)),
        ("p90", "p90_linear", lambda x, axis=-1: np.quantile(x, 0.9, axis=axis), rng.exponential(1, 200)),
        ("p99_floor", "p99_floor",
         lambda x, axis=-1: np.take_along_axis(np.sort(x, axis=axis),
                                               np.full(x.shape[:-1] + (1,), min(int(x.shape[-1] * 0.99), x.shape[-1] - 1)),
                                               axis=-1)[..., 0],
         rng.exponential(1, 150)),
        ("std", "std_ddof1", lambda x, axis=-1: np.std(x, ddof=1, axis=axis), rng.normal(5, 2, 40)),
    ]
    for name, stat_name, stat, data in one_sample:
        data = np.asarray(data, dtype=float)
        idx = rng.integers(0, len(data), (B, len(data)))
        reps = stat(data[idx], axis=-1)
        theta = float(stat(data))
        for conf in (0.95, 0.9):
            res = st.bootstrap((data,), stat, n_resamples=0, method="BCa", confidence_level=conf,
                               bootstrap_result=BootstrapResult(confidence_interval=None,
                                                                bootstrap_distribution=reps,
                                                                standard_error=None))
            z0, a, lo, hi = direct_bca(theta, reps, [jackknife(data, stat)], conf)
            out.append({"name": name, "statistic": stat_name, "samples": [list(map(float, data))],
                        "estimate": theta, "replicates": list(map(float, reps)), "confidence": conf,
                        "lo": float(res.confidence_interval.low), "hi": float(res.confidence_interval.high),
                        "direct_z0": z0, "direct_a": a, "direct_lo": lo, "direct_hi": hi})
    # Two samples: difference of medians, new - old.
    old = rng.lognormal(0, 0.5, 41)
    new = rng.lognormal(0.2, 0.5, 36)
    diff = lambda x, y, axis=-1: np.median(y, axis=axis) - np.median(x, axis=axis)
    i1 = rng.integers(0, len(old), (B, len(old)))
    i2 = rng.integers(0, len(new), (B, len(new)))
    reps = diff(old[i1], new[i2])
    theta = float(diff(old, new))
    res = st.bootstrap((old, new), diff, n_resamples=0, method="BCa", confidence_level=0.95,
                       bootstrap_result=BootstrapResult(confidence_interval=None, bootstrap_distribution=reps,
                                                        standard_error=None))
    med = np.median
    jacks = [jackknife(old, lambda x: med(new) - med(x)), jackknife(new, lambda y: med(y) - med(old))]
    z0, a, lo, hi = direct_bca(theta, reps, jacks, 0.95)
    out.append({"name": "median_diff", "statistic": "median_diff", "samples": [list(map(float, old)), list(map(float, new))],
                "estimate": theta, "replicates": list(map(float, reps)), "confidence": 0.95,
                "lo": float(res.confidence_interval.low), "hi": float(res.confidence_interval.high),
                "direct_z0": z0, "direct_a": a, "direct_lo": lo, "direct_hi": hi})
    return out


def bca_full():
    rng = np.random.default_rng(11)
    B = 100000
    cases = [
        ("mean", "mean", lambda x, axis=-1: np.mean(x, axis=axis), rng.lognormal(0, 1, 100), "BCa"),
        ("p90", "p90_linear", lambda x, axis=-1: np.quantile(x, 0.9, axis=axis), rng.lognormal(0, 1, 300), "BCa"),
        ("median_percentile", "median", lambda x, axis=-1: np.median(x, axis=axis), rng.lognormal(0, 1, 101),
         "percentile"),
    ]
    out = []
    for name, stat_name, stat, data, method in cases:
        res = st.bootstrap((data,), stat, n_resamples=B, method=method, confidence_level=0.95,
                           random_state=np.random.default_rng(5), batch=2000)
        out.append({"name": name, "statistic": stat_name, "method": method.lower(), "data": list(map(float, data)),
                    "resamples": B, "estimate": float(stat(data)),
                    "lo": float(res.confidence_interval.low), "hi": float(res.confidence_interval.high),
                    "stderr": float(res.standard_error)})
    return out


def mannwhitney():
    rng = np.random.default_rng(3)
    cases = {
        "exact_5_7": (rng.normal(0, 1, 5), rng.normal(1, 1, 7)),
        "exact_8_8": (rng.normal(0, 1, 8), rng.normal(0.5, 1, 8)),
        "exact_3_40": (rng.normal(0, 1, 3), rng.normal(0.8, 1, 40)),
        "exact_6_300_separated": (rng.normal(10, 1, 6), rng.normal(0, 1, 300)),
        "exact_4_4_identical_ranks": (np.array([1.0, 4, 5, 8]), np.array([2.0, 3, 6, 7])),
        "asymp_no_ties_30_40": (rng.normal(0, 1, 30), rng.normal(0.3, 1, 40)),
        "asymp_ties_20_25": (np.round(rng.normal(5, 2, 20)), np.round(rng.normal(6, 2, 25))),
        "asymp_ties_small_5_6": (np.array([1.0, 2, 2, 3, 5]), np.array([2.0, 3, 3, 4, 6, 7])),
        "asymp_separated_50_60": (rng.normal(0, 1, 50), rng.normal(5, 1, 60)),
        "all_equal": (np.ones(12), np.ones(9)),
    }
    out = []
    for name, (x, y) in cases.items():
        r = st.mannwhitneyu(x, y, alternative="two-sided")
        out.append({"name": name, "x": list(map(float, x)), "y": list(map(float, y)),
                    "u": float(r.statistic), "p": float(r.pvalue)})
    return out


def ks():
    rng = np.random.default_rng(4)
    cases = {
        "equal_50": (rng.normal(0, 1, 50), rng.normal(0.5, 1, 50)),
        "equal_200_same": (rng.normal(0, 1, 200), rng.normal(0, 1, 200)),
        "unequal_40_65": (rng.normal(0, 1, 40), rng.normal(0.4, 1.2, 65)),
        "unequal_ties": (np.round(rng.exponential(5, 120)), np.round(rng.exponential(6, 90))),
        "disjoint_7_9": (rng.uniform(0, 1, 7), rng.uniform(2, 3, 9)),
        "identical": (np.arange(20.0), np.arange(20.0)),
        "unequal_3000_2000": (rng.lognormal(0, 1, 3000), rng.lognormal(0.05, 1, 2000)),
    }
    out = []
    for name, (x, y) in cases.items():
        r = st.ks_2samp(x, y)
        out.append({"name": name, "x": list(map(float, x)), "y": list(map(float, y)),
                    "d": float(r.statistic), "p": float(r.pvalue)})
    # Large samples (asymptotic in scipy) from a formula Go reproduces bit
    # for bit, so the data need not be stored: frac(i*phi) and 1.05*frac(j*sqrt2).
    phi, s2 = 0.6180339887498949, 1.4142135623730951
    for name, n1, n2, scale in (("large_12000_15000", 12000, 15000, 1.05), ("large_20000_11000", 20000, 11000, 1.01)):
        x = np.array([(i * phi) % 1.0 for i in range(1, n1 + 1)])
        y = np.array([scale * ((j * s2) % 1.0) for j in range(1, n2 + 1)])
        r = st.ks_2samp(x, y)
        out.append({"name": name, "formula": {"n1": n1, "n2": n2, "scale": scale},
                    "d": float(r.statistic), "p": float(r.pvalue)})
    return out


def main():
    ref = {
        "generator": "stats/testdata/make_reference.py",
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "percentiles": percentiles(),
        "locust_round": locust_rounds(),
        "bca_fed": bca_fed(),
        "bca_full": bca_full(),
        "mannwhitneyu": mannwhitney(),
        "ks_2samp": ks(),
    }
    json.dump(ref, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
