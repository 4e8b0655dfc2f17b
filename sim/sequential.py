"""A sequential test: "is the first player's effect at least ``d``?", looked at after every chunk.

A fixed-sample 95% interval looked at after every chunk, stopping the first time it
excludes something, is wrong far more often than 5% of the time.  A *confidence sequence*
holds the truth at every look at once with probability 95%, so a run may stop the first
time it decides.  This one is the normal-mixture boundary (Robbins 1970; the asymptotic
confidence sequence of Waudby-Smith, Arnold, Wu, Ramdas and Howard, "Time-uniform central
limit theory", 2021, Theorem 2.2): after ``t`` units with mean ``m`` and variance ``s2``,

    m +- sqrt( 2 (t s2 rho2 + 1) / (t^2 rho2) * log( sqrt(t s2 rho2 + 1) / alpha ) )

``rho2`` is fixed before the run (:func:`rho2_for`: the boundary is narrowest near the
planned number of units).  The test: "at least d" when the sequence lies wholly beyond
``+-d`` (``|effect| >= d``), "below d" when it lies wholly inside ``(-d, d)``, else go on.
Each wrong call has probability at most ``alpha`` (the sequence would have to miss).

The units' values may be control-variate adjusted (:mod:`sim.variance`) as long as each
unit's coefficients come from earlier units only (:func:`predictable_adjusted`): the
adjusted values then keep the mean of the raw ones at every step.
"""

from __future__ import annotations

import math

import numpy as np

from .variance import fit_beta


def rho2_for(planned_units, alpha=0.05):
    """The mixture's ``rho2`` that makes the boundary narrowest at ``planned_units`` units
    (per unit of variance; Howard et al. 2021, eq. 3.5 with ``s2`` folded in)."""
    la = -2.0 * math.log(alpha)
    return (la + math.log(la + 1.0)) / planned_units


def boundary(t, s2, rho2, alpha=0.05):
    """Half-width of the confidence sequence after ``t`` units of variance ``s2`` (the
    mixture is on ``rho2 / s2``, so the width scales with ``sqrt(s2)`` like an interval)."""
    t = np.asarray(t, dtype=np.float64)
    v = t * rho2  # t * s2 * (rho2 / s2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(s2) * np.sqrt(2.0 * (v + 1.0) / (t * t * (rho2)) * np.log(np.sqrt(v + 1.0) / alpha))


def confidence_sequence(values, rho2, alpha=0.05, looks=None):
    """The running mean and the sequence's bounds after each look.

    Parameters
    ----------
    values : (n,) array
        One value per unit, in the order played.
    looks : array of int, optional
        Units seen at each look (default: after every unit).

    Returns
    -------
    (t, mean, low, high) : arrays, one entry per look
    """
    v = np.asarray(values, dtype=np.float64)
    t = np.arange(1, len(v) + 1) if looks is None else np.asarray(looks, dtype=np.int64)
    cs = np.cumsum(v)[t - 1]
    cs2 = np.cumsum(v * v)[t - 1]
    mean = cs / t
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.maximum(cs2 - t * mean * mean, 0.0) / np.maximum(t - 1, 1)
    half = boundary(t, s2, rho2, alpha)
    half = np.where(t < 2, np.inf, half)
    return t, mean, mean - half, mean + half


def decide(low, high, d):
    """``"at least d"``, ``"below d"`` or ``"undecided"`` from the sequence's bounds."""
    if low >= d or high <= -d:
        return "at least d"
    if low > -d and high < d:
        return "below d"
    return "undecided"


def effect_test(values, d, planned_units, alpha=0.05, looks=None, offset=0.0):
    """Run the sequential test on ``values`` (a unit's result minus the fair share, in
    play order) and stop at the first look that decides.

    Returns
    -------
    dict
        ``decision``, ``units`` used, the ``estimate`` and its ``low`` / ``high`` bounds
        there (``offset`` is added to every value first).
    """
    rho2 = rho2_for(planned_units, alpha)
    t, mean, lo, hi = confidence_sequence(np.asarray(values, dtype=np.float64) + offset, rho2, alpha, looks)
    for i in range(len(t)):
        if np.isfinite(lo[i]):
            call = decide(lo[i], hi[i], d)
            if call != "undecided":
                return {
                    "decision": call,
                    "units": int(t[i]),
                    "estimate": mean[i],
                    "low": lo[i],
                    "high": hi[i],
                }
    i = len(t) - 1
    return {"decision": "undecided", "units": int(t[i]), "estimate": mean[i], "low": lo[i], "high": hi[i]}


def predictable_adjusted(y, x, mu, chunks):
    """Control-variate adjusted values in which chunk ``c`` uses coefficients fitted on the
    chunks before it only (the first chunk is not adjusted): ``chunks`` are the units per
    chunk.  Each adjusted value then has the raw value's mean given everything before it."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64).reshape(len(y), -1)
    out = y.copy()
    edges = np.concatenate([[0], np.cumsum(chunks)])
    for c in range(1, len(edges) - 1):
        a, b = edges[c], edges[c + 1]
        beta = fit_beta(y[:a], x[:a])
        out[a:b] = y[a:b] - (x[a:b] - mu) @ beta
    return out
