"""Interval primitives shared by the runner's stopping rules, tuning and the analyses.

The base of the statistics: :mod:`analysis.stats` builds every report interval on these, and
``sim`` (``--precision``, ``sim tune``, ``sim balance``) uses them without importing the
analyses.  Every interval is a 95% interval unless a caller asks otherwise.
"""

from __future__ import annotations

import math

import numpy as np

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


_ERFC = np.vectorize(math.erfc, otypes=[np.float64])


def norm_sf(x):
    """Upper tail P(Z >= x) of the standard normal (vectorised)."""
    out = 0.5 * _ERFC(np.asarray(x, dtype=np.float64) / math.sqrt(2.0))
    return float(out) if np.ndim(out) == 0 else out


def poisson_lower(x, alpha):
    """Exact (Garwood) lower confidence bound of a Poisson mean seen as ``x`` events
    (fractional ``x`` allowed; 0 at ``x = 0``)."""
    from scipy.special import gammaincinv

    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, gammaincinv(np.maximum(x, 1e-300), alpha), 0.0)


#: below this many (effective) events Wilson's bound on the rare side is replaced by the exact
#: Poisson one: Wilson's lower bound at 1-3 events sits above rates that still give 1 event
#: often, and its coverage dips to about 90% there (Brown, Cai & DasGupta 2001, section 4.1.1)
FEW_EVENTS = 3.0


def score_interval(mean, var, n, z=Z95):
    """Interval for the mean of a quantity in [0, 1] from ``n`` independent units: Wilson's
    score interval at the effective size ``n / deff`` (``deff`` = observed variance over the
    Bernoulli one ``mean (1 - mean)``, 1 when either is 0), with the exact Poisson bound on a
    side that holds at most ``FEW_EVENTS`` effective events.  Vectorised.

    Unlike the normal interval it does not collapse when every unit has the same value (all 0:
    ``[0, z² / (n + z²)]``) or when only a few units differ from the rest.

    Returns
    -------
    (low, high)
    """
    m = np.clip(np.asarray(mean, dtype=np.float64), 0.0, 1.0)
    var = np.asarray(var, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    bern = m * (1.0 - m)
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = np.where((bern > 0) & (var > 0), np.minimum(var / bern, 1.0), 1.0)
        ne = n / deff
    lo, hi = wilson(m * ne, ne, z)
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    alpha = norm_sf(z)  # one tail
    x, y = m * ne, (1.0 - m) * ne  # effective events on each side
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where((x > 0) & (x <= FEW_EVENTS), np.minimum(lo, poisson_lower(x, alpha) / ne), lo)
        hi = np.where((y > 0) & (y <= FEW_EVENTS), np.maximum(hi, 1.0 - poisson_lower(y, alpha) / ne), hi)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi
