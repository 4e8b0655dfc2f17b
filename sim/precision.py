"""Runs that stop when precise enough: ``--precision H``.

The runner plays a run's chunks in game order and, after each, asks a :class:`PrecisionStop`
whether the 95% half-width of the key estimate is at most ``H``; if so it stops at that chunk
boundary.  The estimate is read back from the chunk files just written, and chunk boundaries
depend only on ``chunk_games`` (never on threads or backend), so the stopping point is the
same for a seed whatever the thread count.

Estimates (``--precision-on``):

- ``seat0`` (default): the first player's win share; ``seat<k>``: seat k's win share.
- ``entry<k>``: the win share of lineup entry k (whatever seat it plays).
- ``rounds``: the mean number of rounds.

The unit is the game, or with ``rotate = "duplicate"`` the deal (its rotations are not
independent games): each unit contributes the mean of its rows, so a deal split by a chunk
boundary is only counted once it is complete.  A win share's interval is Wilson's score
interval at the effective number of units (``analysis.stats.score_interval``), which does
not collapse to a point when every game so far was lost (or won); the run stops only once
it has seen at least ``MIN_OUTCOMES`` wins and as many games not won, so a few lost chunks
cannot end it.  For a win share of a game with deal covariates (``sim.deals``) the
cross-fitted control variate (``sim.variance``: unbiased, coefficients never fitted on the
unit they adjust) replaces it once its variance is at least ``MIN_GAIN`` below the plain
one's; the manifest's ``stop`` says which ``estimator`` was used, its ``variance_ratio`` and
the ``games_saved`` (the extra games the plain estimate needs for the same width).  The mean rounds' interval is the normal one, mean +- 1.96 sd / sqrt(units),
and needs ``MIN_UNITS`` units and a spread above 0.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pyarrow.parquet as pq

from . import deals, variance
from .errors import ConfigError
from .intervals import Z95, score_interval

#: a win share stops only after this many wins and this many games not won (counted in
#: games, a shared win by its share): below that the interval rests on a handful of events
MIN_OUTCOMES = 15
#: the mean rounds stops only after this many units, with a standard deviation above 0
MIN_UNITS = 30
#: the control variate is used once it cuts the variance by this share (below it, the deal
#: explains nothing worth a change of method)
MIN_GAIN = 0.02
#: games per chunk when --precision is given and --chunk-games is not (the stop granularity)
DEFAULT_PRECISION_CHUNK = 10_000


def check(precision, on):
    """Validate ``--precision`` / ``--precision-on``; return ``(H, kind, k)``."""
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < 1e6:
        raise ConfigError(
            "--precision", precision, "a half-width above 0 (0.005 = half a point of win share)"
        )
    m = re.fullmatch(r"(seat|entry)(\d)|rounds", on or "")
    if m is None:
        raise ConfigError(
            "--precision-on", on, "seat0 (first player's win share), seat<k>, entry<k> or rounds"
        )
    if on == "rounds":
        return float(precision), "rounds", 0
    return float(precision), m.group(1), int(m.group(2))


class PrecisionStop:
    """Accumulates the key estimate chunk by chunk and says when it is precise enough."""

    def __init__(self, resolved, precision, on="seat0"):
        self.target, self.kind, self.k = check(precision, on)
        self.on = on
        players = resolved.get("players", 1)
        if self.kind in ("seat", "entry") and self.k >= players:
            raise ConfigError("--precision-on", on, f"a seat or entry below {players} (the player count)")
        self.players = players
        self.duplicate = resolved.get("rotate") == "duplicate"
        self.max_games = resolved["games"]
        self._units = []
        self._values = []
        self.games = 0
        self.value = math.nan
        self.half_width = math.inf
        self.units = 0
        self._enough = False
        # the control variate: a win share of a game whose deals can be replayed
        self._resolved = resolved
        self._cv = self.kind in ("seat", "entry") and "seed" in resolved and deals.supported(resolved)
        self._mu = None
        self._sums = None
        self._pending = None  # rows of deals not complete yet (duplicate deals)
        self.estimator = "plain"
        self.variance_ratio = 1.0

    def _read(self, out, entry):
        if self.kind == "rounds":
            t = pq.read_table(out / entry["files"]["games"]["path"], columns=["game_id", "rounds"])
            return t["game_id"].to_numpy(), t["rounds"].to_numpy().astype(np.float64)
        col = "seat" if self.kind == "seat" else "lineup"
        t = pq.read_table(out / entry["files"]["seats"]["path"], columns=["game_id", col, "win"])
        keep = t[col].to_numpy() == self.k
        return t["game_id"].to_numpy()[keep], t["win"].to_numpy().astype(np.float64)[keep]

    def add(self, out, entry):
        """Count one finished chunk (its manifest ``entry``) in the estimate."""
        gid, val = self._read(out, entry)
        x = None
        if self._cv and len(gid):
            lo = int(gid.min())
            x = deals.covariates(self._resolved, lo, int(gid.max()) - lo + 1)[gid - lo]
        self.add_values(gid, val, entry["games"], x)

    def add_values(self, gid, val, games, x=None):
        """Count one chunk's rows: game ids and the estimate's value per row (a win, 1/k for
        a k-way shared win, or the rounds), and optionally each row's deal covariates."""
        unit = gid // self.players if self.duplicate else gid
        self._units.append(np.asarray(unit))
        self._values.append(np.asarray(val, dtype=np.float64))
        self.games += games
        if x is not None and self._cv:
            self._add_covariates(np.asarray(unit), np.asarray(val, dtype=np.float64), np.asarray(x))
        self._update()

    def _add_covariates(self, unit, val, x):
        if self._mu is None:
            self._mu = deals.deal_means(self._resolved)
            self._sums = variance.FoldSums(x.shape[1])
        if self._pending is not None:
            unit = np.concatenate([self._pending[0], unit])
            val = np.concatenate([self._pending[1], val])
            x = np.concatenate([self._pending[2], x])
        ids, inv, counts = np.unique(unit, return_inverse=True, return_counts=True)
        whole = counts == (self.players if self.duplicate else 1)
        keep = whole[inv]
        self._pending = (unit[~keep], val[~keep], x[~keep]) if (~keep).any() else None
        sums = np.bincount(inv, weights=val)[whole] / counts[whole]
        xs = np.stack([np.bincount(inv, weights=x[:, j]) for j in range(x.shape[1])], axis=1)
        xs = xs[whole] / counts[whole][:, None]
        self._sums.add(sums, xs - self._mu[0], ids[whole])

    def _update(self):
        unit = np.concatenate(self._units)
        val = np.concatenate(self._values)
        ids, inv, counts = np.unique(unit, return_inverse=True, return_counts=True)
        sums = np.bincount(inv, weights=val)
        whole = counts == (self.players if self.duplicate else 1)  # complete deals only
        means = sums[whole] / counts[whole]
        n = len(means)
        self.units = n
        if n < 2:
            return
        self.value, lo, hi, self._enough = stop_interval(
            self.kind, n, means.sum(), (means * means).sum(), val[whole[inv]].sum(), counts[whole].sum()
        )
        self.half_width = (hi - lo) / 2
        self.estimator, self.variance_ratio = "plain", 1.0
        if self._sums is not None:
            est = self._sums.estimate(self._mu[1], self._mu[2])
            if est.estimator == "control variate" and est.variance_ratio <= 1 - MIN_GAIN:
                self.value, self.half_width = est.value, est.half_width
                self.estimator, self.variance_ratio = est.estimator, est.variance_ratio

    @property
    def games_saved(self):
        """Games the plain estimate would need beyond those played for the same width."""
        if self.estimator == "plain" or not self.variance_ratio > 0:
            return 0
        return int(round(self.games * (1 / self.variance_ratio - 1)))

    def reached(self):
        return self.units >= 2 and self._enough and self.half_width <= self.target

    def record(self, met):
        """What the manifest keeps: the rule, the estimate and why the run stopped."""
        if met:
            reason = (
                f"precision reached: 95% half-width {self.half_width:.5f} <= {self.target} "
                f"after {self.games:,} games"
            )
        else:
            reason = (
                f"games cap reached ({self.max_games:,}) with 95% half-width {self.half_width:.5f} "
                f"> {self.target}"
            )
        return {
            "rule": "precision",
            "on": self.on,
            "target_half_width": self.target,
            "half_width": self.half_width if math.isfinite(self.half_width) else None,
            "estimate": self.value if math.isfinite(self.value) else None,
            "units": self.units,
            "unit": "deal" if self.duplicate else "game",
            "games": self.games,
            "max_games": self.max_games,
            "precision_met": bool(met),
            "reason": reason,
            "estimator": self.estimator,
            "variance_ratio": self.variance_ratio,
            "games_saved": self.games_saved,
        }


def stop_interval(kind, n, total, total_sq, outcome_sum=None, rows=None):
    """The estimate, its 95% interval and whether enough has been seen to stop on it, from
    ``n`` units' sum and sum of squares of their per-unit means (vectorised).

    Parameters
    ----------
    kind : str
        ``seat`` / ``entry`` (a win share: Wilson at the effective size, and at least
        ``MIN_OUTCOMES`` wins and games not won among the ``rows`` games whose wins sum to
        ``outcome_sum``) or ``rounds`` (normal, at least ``MIN_UNITS`` units and a spread).

    Returns
    -------
    (estimate, low, high, enough)
    """
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.asarray(total, dtype=np.float64) / n
        var = np.maximum(np.asarray(total_sq, dtype=np.float64) - n * m * m, 0.0) / (n - 1)
    if kind == "rounds":
        half = Z95 * np.sqrt(var / n)
        lo, hi, enough = m - half, m + half, (n >= MIN_UNITS) & (var > 0)
    else:
        lo, hi = score_interval(m, var, n)
        wins = np.asarray(outcome_sum, dtype=np.float64)
        enough = (wins >= MIN_OUTCOMES) & (np.asarray(rows, dtype=np.float64) - wins >= MIN_OUTCOMES)
    if np.ndim(m) == 0:
        return float(m), float(lo), float(hi), bool(enough)
    return m, lo, hi, enough
