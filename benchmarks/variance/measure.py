"""Measure the deal control variate on a finished run: variance ratio and coverage.

    python benchmarks/variance/measure.py DATASET [--seat 0] [--reps 1000] [--n 2000]

Reads the run's seat rows, replays every game's deal (``sim.deals``), and prints

- the plain and the control-variate estimate of the seat's win share minus 1/players, with
  their 95% intervals, and the variance ratio with a 95% delta-method interval;
- coverage by repetition: ``--reps`` samples of ``--n`` games drawn with replacement from
  the run (whose mean is then the truth), the share of the control-variate intervals that
  hold it, with its Wilson interval;
- the sequential test "first-player effect of at least d" (d = 1 pt) on the games in play
  order: when it stops, against the games a fixed-sample design for +-0.5 pts plays.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import polars as pl

from sim import deals, sequential, variance
from sim.intervals import wilson


def load(path, seat, entry=None):
    m = json.loads((Path(path) / "manifest.json").read_text())
    r = m["resolved"]
    s = pl.read_parquet(Path(path) / "seats" / "*.parquet").filter(
        pl.col("seat") == seat if entry is None else pl.col("lineup") == entry
    )
    s = s.sort("game_id")
    gid = s["game_id"].to_numpy()
    y = s["win"].to_numpy().astype(np.float64) - 1.0 / r["players"]
    x = deals.covariates(r, 0, int(gid.max()) + 1)[gid]
    mu, cov, k = deals.deal_means(r)
    return r, gid, y, x, mu, cov, k


def ratio_interval(y, x, mu, gid, folds=variance.FOLDS):
    """95% interval of var(adjusted) / var(y) by the delta method, the cross-fitted slopes
    held fixed: per game (adj - mean)^2 - ratio (y - mean)^2, over var(y)."""
    fold = gid % folds
    adj = np.empty(len(y))
    for f in range(folds):
        tr = fold != f
        beta = variance.fit_beta(y[tr], x[tr])
        adj[~tr] = y[~tr] - (x[~tr] - mu) @ beta
    # on the residual degrees of freedom, as sim.variance does
    vy, va = y.var(ddof=1), adj.var(ddof=x.shape[1] + 1)
    r = va / vy
    infl = ((adj - adj.mean()) ** 2 - r * (y - y.mean()) ** 2) / vy
    half = 1.959963984540054 * infl.std(ddof=1) / np.sqrt(len(y))
    return r - half, r + half


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--seat", type=int, default=0)
    ap.add_argument("--entry", type=int, default=None, help="a lineup entry instead of a seat")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--d", type=float, default=0.01)
    a = ap.parse_args()
    r, gid, y, x, mu, cov, k = load(a.dataset, a.seat, a.entry)
    n = len(y)
    plain = variance.plain_mean(y)
    cv = variance.control_variate(y, x, mu, cov, k, gid)
    print(f"{r['game']} {r['players']}p {r['seats'][0]['strategy']}: {n} games, seat {a.seat}")
    print(f"plain  {plain.value * 100:+.2f} pts [{plain.low * 100:+.2f}, {plain.high * 100:+.2f}]")
    print(f"control {cv.value * 100:+.2f} pts [{cv.low * 100:+.2f}, {cv.high * 100:+.2f}]")
    rng = np.random.default_rng(1)
    lo, hi = ratio_interval(y, x, mu, gid)
    print(
        f"variance ratio {cv.variance_ratio:.4f} [{lo:.4f}, {hi:.4f}] (games needed: x{cv.variance_ratio:.3f})"
    )
    truth = y.mean()
    hits_cv = hits_plain = 0
    for _ in range(a.reps):
        i = rng.integers(0, n, a.n)
        e = variance.control_variate(y[i], x[i], mu, cov, k, gid[i])
        p = variance.plain_mean(y[i])
        hits_cv += e.low <= truth <= e.high
        hits_plain += p.low <= truth <= p.high
    for name, h in (("control", hits_cv), ("plain", hits_plain)):
        lo, hi = wilson(h, a.reps)
        print(
            f"coverage {name}: {h / a.reps * 100:.1f}% [{lo * 100:.1f}, {hi * 100:.1f}] ({a.reps} x {a.n} games)"
        )
    fixed = int(np.ceil((1.959963984540054 * y.std() / 0.005) ** 2))
    t = sequential.effect_test(y, a.d, planned_units=2000, looks=np.arange(100, n + 1, 100))
    print(
        f"sequential test (|effect| >= {a.d * 100:.1f} pt?): {t['decision']} after {t['units']} games "
        f"({t['estimate'] * 100:+.2f} [{t['low'] * 100:+.2f}, {t['high'] * 100:+.2f}]); "
        f"fixed design for +-0.5 pts: {fixed} games"
    )


if __name__ == "__main__":
    main()
