"""Small statistics helpers (pure NumPy / Python, no SciPy).

Every interval in the reports is a 95% interval unless a caller asks otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl


def f64(col):
    """Column ``col`` as Float64 (the datasets store counts and flags as narrow integers)."""
    return pl.col(col).cast(pl.Float64)


Z95 = 1.959963984540054


def wilson(successes, n, z=Z95):
    """Wilson score interval for a proportion.

    Parameters
    ----------
    successes, n : float or array_like
        Number of successes (may be fractional: a shared win counts 1/k) and trials.
    z : float
        Normal quantile (1.96 for 95%).

    Returns
    -------
    (low, high) : tuple of float or ndarray
        NaN where ``n == 0``.
    """
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    low = np.where(n > 0, low, np.nan)
    high = np.where(n > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def wilson_exprs(wins: str, n: str, prefix: str = "share", z: float = Z95):
    """Polars expressions: ``{prefix}``, ``{prefix}_lo``, ``{prefix}_hi`` (Wilson interval)
    from a column of successes and a column of trials."""
    s = pl.col(wins).cast(pl.Float64)
    nn = pl.col(n).cast(pl.Float64)
    p = s / nn
    z2 = z * z
    centre = (p + z2 / (2 * nn)) / (1 + z2 / nn)
    half = z * ((p * (1 - p) / nn + z2 / (4 * nn * nn)).sqrt()) / (1 + z2 / nn)
    return [
        p.alias(prefix),
        (centre - half).clip(0.0, 1.0).alias(f"{prefix}_lo"),
        (centre + half).clip(0.0, 1.0).alias(f"{prefix}_hi"),
    ]


def _gamma_series(a, x):
    term = 1.0 / a
    total = term
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_cf(a, x):
    # Lentz's continued fraction for the upper incomplete gamma (Numerical Recipes 6.2).
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(stat, df):
    """Survival function P(X >= stat) of the chi-square distribution with ``df`` degrees
    of freedom (regularised upper incomplete gamma Q(df/2, stat/2))."""
    if df <= 0 or stat != stat:
        return float("nan")
    if stat <= 0:
        return 1.0
    a, x = df / 2.0, stat / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_series(a, x))
    return min(1.0, _gamma_cf(a, x))


def chi2_equal(observed):
    """Chi-square goodness-of-fit test of "all categories equal".

    Parameters
    ----------
    observed : array_like
        Counts per category (wins per seat; shared wins count 1/k).

    Returns
    -------
    (stat, df, p_value)
    """
    obs = np.asarray(observed, dtype=np.float64)
    k = obs.size
    total = obs.sum()
    if k < 2 or total <= 0:
        return float("nan"), max(k - 1, 0), float("nan")
    expected = total / k
    stat = float(((obs - expected) ** 2 / expected).sum())
    return stat, k - 1, chi2_sf(stat, k - 1)


def diff_interval(p1, var1, p2, var2, z=Z95):
    """Normal interval for a difference of two means given their sampling variances."""
    d = p1 - p2
    se = math.sqrt(max(var1 + var2, 0.0))
    return d, d - z * se, d + z * se


def spearman(x, y):
    """Spearman rank correlation (average ranks for ties)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size < 3:
        return float("nan")
    rx = _avg_ranks(x)
    ry = _avg_ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _avg_ranks(v):
    order = np.argsort(v, kind="mergesort")
    ranks = np.empty(v.size, dtype=np.float64)
    sv = v[order]
    i = 0
    while i < v.size:
        j = i
        while j + 1 < v.size and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0
        i = j + 1
    return ranks


def permutation_p(x, y, stat=spearman, n_perm=2000, seed=12345):
    """Two-sided permutation p-value of ``stat(x, y)`` against shuffled ``y`` (fixed seed,
    so the same data give the same p-value)."""
    observed = stat(x, y)
    if observed != observed:
        return float("nan")
    rng = np.random.default_rng(seed)
    y = np.asarray(y, dtype=np.float64)
    hits = 0
    for _ in range(n_perm):
        if abs(stat(x, rng.permutation(y))) >= abs(observed) - 1e-12:
            hits += 1
    return (hits + 1) / (n_perm + 1)
