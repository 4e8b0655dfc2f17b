"""Runs that stop when precise enough: ``--precision H`` (issue 15).

The runner plays a run's chunks in game order and, after each, asks a :class:`PrecisionStop`
whether the 95% half-width of the key estimate is at most ``H``; if so it stops at that chunk
boundary.  The estimate is read back from the chunk files just written, and chunk boundaries
depend only on ``chunk_games`` (never on threads or backend), so the stopping point is the
same for a seed whatever the thread count.

Estimates (``--precision-on``):

- ``seat0`` (default): the first player's win share; ``seat<k>``: seat k's win share.
- ``entry<k>``: the win share of lineup entry k (whatever seat it plays).
- ``rounds``: the mean number of rounds.

The interval is the normal one, mean +- 1.96 sd / sqrt(units).  The unit is the game, or
with ``rotate = "duplicate"`` the deal (its rotations are not independent games): each
unit contributes the mean of its rows, so a deal split by a chunk boundary is only counted
once it is complete.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pyarrow.parquet as pq

from .errors import ConfigError

Z95 = 1.959963984540054
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
        unit = gid // self.players if self.duplicate else gid
        self._units.append(unit)
        self._values.append(val)
        self.games += entry["games"]
        self._update()

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
        self.value = float(means.mean())
        self.half_width = float(Z95 * means.std(ddof=1) / math.sqrt(n))

    def reached(self):
        return self.units >= 2 and self.half_width <= self.target

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
        }
