#!/usr/bin/env python3
"""Reference values for stats.PolitisWhite (blocklength_test.go).

A literal, matrix-style transcription of the authors' MATLAB code for the
Politis-White (2004) automatic block length with the Patton-Politis-White
(2009) correction (Andrew Patton's opt_block_length_REV_dec07.m): the lag
matrix (mlag), MATLAB's corr and cov (ddof 1) on the common window, the
K_N-wide test of the correlations, the flat-top window lam, Ghat, DCBhat,
DSBhat and the two block lengths capped at Bmax. Pure Python (no numpy), so
it runs anywhere:

    python3 politis_white.py

The series are generated here by a fixed linear congruential generator, so
the Go test regenerates them bit for bit (lcgSeries in the test).
"""

import math


def lcg_series(n, phi, seed):
    """x[t] = phi*x[t-1] + e[t], e uniform on (-0.5, 0.5) from a 64-bit LCG."""
    state = seed
    x = []
    prev = 0.0
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        e = (state >> 11) / float(1 << 53) - 0.5
        prev = phi * prev + e
        x.append(prev)
    return x


def mlag(x, m):
    """MATLAB mlag: column j (1..m) is x lagged by j, zero-filled."""
    n = len(x)
    return [[x[t - j] if t - j >= 0 else 0.0 for j in range(1, m + 1)] for t in range(n)]


def mean(v):
    return sum(v) / len(v)


def cov(a, b):
    ma, mb = mean(a), mean(b)
    return sum((p - ma) * (q - mb) for p, q in zip(a, b)) / (len(a) - 1)


def corr(a, b):
    return cov(a, b) / math.sqrt(cov(a, a) * cov(b, b))


def lam(s):
    s = abs(s)
    return (1.0 if s < 0.5 else 0.0) + (2 * (1 - s) if 0.5 <= s <= 1 else 0.0)


def opt_block_length(data):
    n = len(data)
    KN = max(5, math.ceil(math.sqrt(math.log10(n))))
    mmax = math.ceil(math.sqrt(n)) + KN
    Bmax = math.ceil(min(3 * math.sqrt(n), n / 3))
    c = 2
    lags = mlag(data, mmax)[mmax:]
    y = data[mmax:]
    temp = [corr(y, [row[j] for row in lags]) for j in range(mmax)]  # lags 1..mmax
    crit = c * math.sqrt(math.log10(n) / n)
    # Columns KN+1..mmax+1 of [mlag(temp,KN)', temp(end-KN+1:end)]: column
    # c' holds the correlations at lags c'..c'+KN-1.
    counts = []
    for cc in range(1, mmax - KN + 2):
        counts.append(sum(1 for k in range(cc, cc + KN) if abs(temp[k - 1]) < crit))
    full = [i + 1 for i, v in enumerate(counts) if v == KN]
    if not full:
        mhat = max(k + 1 for k, v in enumerate(temp) if abs(v) > crit)
    else:
        mhat = full[0]
    M = mmax if 2 * mhat > mmax else 2 * mhat
    lagsM = mlag(data, M)[M:]
    yM = data[M:]
    acv = [cov(yM, yM)] + [cov(yM, [row[j] for row in lagsM]) for j in range(M)]
    kk = range(-M, M + 1)
    Ghat = sum(lam(k / M) * abs(k) * acv[abs(k)] for k in kk)
    s = sum(lam(k / M) * acv[abs(k)] for k in kk)
    DCBhat = 4 / 3 * s**2
    DSBhat = 2 * s**2
    bsb = min((2 * Ghat**2 / DSBhat) ** (1 / 3) * n ** (1 / 3), Bmax)
    bcb = min((2 * Ghat**2 / DCBhat) ** (1 / 3) * n ** (1 / 3), Bmax)
    return dict(n=n, KN=KN, mmax=mmax, Bmax=Bmax, mhat=mhat, M=M, R0=acv[0], g=s, G=Ghat, SB=bsb, CB=bcb)


if __name__ == "__main__":
    for name, n, phi, seed in [("ar05_n60", 60, 0.5, 1), ("ar09_n400", 400, 0.9, 2), ("walk_n200", 200, 1.0, 3), ("iid_n100", 100, 0.0, 4)]:
        r = opt_block_length(lcg_series(n, phi, seed))
        print(name, " ".join(f"{k}={r[k]!r}" for k in r))
    # A trend: every window of K_N correlations holds a significant one, so
    # m^ is the largest significant lag (the code's other branch).
    trend = [t / 100 + e for t, e in enumerate(lcg_series(100, 0.0, 5))]
    r = opt_block_length(trend)
    print("trend_n100", " ".join(f"{k}={r[k]!r}" for k in r))
