#!/usr/bin/env python3
"""Time scipy.stats.bootstrap(method="BCa") for a p99 interval, to compare
with BenchmarkBCaP99_1M_10k (1,000,000 samples, 10,000 resamples).

Run with Debian's Python (numpy, scipy):

    /usr/bin/python3 scipy_bootstrap_timing.py > scipy_bootstrap_timing.txt

The target size cannot be run: scipy's BCa needs n leave-one-out
evaluations of the statistic, each O(n), so the jackknife alone is about
10^12 element operations, and the resampling another 10^10. Instead the two
parts are timed separately at sizes that finish, and each is extrapolated
along its own complexity:

  resampling  method="percentile" (no jackknife), 1,000 resamples, n up to
              10^5; time per resample per element, times 10^4 * 10^6.
  jackknife   BCa time minus percentile time at the same n and resamples;
              time per n^2, times (10^6)^2.

The statistic is vectorized (np.percentile along the last axis); batch
bounds memory. Timings are wall-clock on this machine, one run each.
"""

import time

import numpy as np
import scipy
import scipy.stats as st


def stat(x, axis=-1):
    return np.percentile(x, 99, axis=axis)


def timed(x, method, b, batch):
    t = time.perf_counter()
    st.bootstrap((x,), stat, n_resamples=b, method=method, batch=batch,
                 random_state=np.random.default_rng(2))
    return time.perf_counter() - t


def main():
    rng = np.random.default_rng(1)
    print(f"numpy {np.__version__}, scipy {scipy.__version__}")
    print("resampling (method=percentile), 1000 resamples:")
    per_elem = []
    for n in (10_000, 30_000, 100_000):
        x = rng.exponential(1, n)
        t = timed(x, "percentile", 1000, 100)
        per_elem.append(t / (1000 * n))
        print(f"  n={n:>7}: {t:8.3f} s  = {t / (1000 * n) * 1e9:.2f} ns per resample-element")
    print("jackknife (BCa minus percentile), 200 resamples:")
    per_sq = []
    for n in (8_000, 16_000, 32_000):
        x = rng.exponential(1, n)
        tb = timed(x, "BCa", 200, 200)
        tp = timed(x, "percentile", 200, 200)
        per_sq.append((tb - tp) / n ** 2)
        print(f"  n={n:>7}: BCa {tb:8.3f} s, percentile {tp:8.3f} s  = {(tb - tp) / n ** 2 * 1e9:.2f} ns per n^2")
    x = rng.exponential(1, 10_000)
    t = timed(x, "BCa", 10_000, 200)
    print(f"measured directly: n=10,000, 10,000 resamples, BCa: {t:.3f} s (BenchmarkBCaP99_10k_10k)")
    r = per_elem[-1] * 10_000 * 1_000_000
    j = per_sq[-1] * 1_000_000 ** 2
    print("extrapolated to n = 1,000,000, 10,000 resamples (largest measured size's rates):")
    print(f"  resampling {r:10.0f} s")
    print(f"  jackknife  {j:10.0f} s")
    print(f"  total      {r + j:10.0f} s  ({(r + j) / 3600:.1f} h)")


if __name__ == "__main__":
    main()
