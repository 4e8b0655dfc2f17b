"""Skill vs luck: how much of a game's outcome the strategies explain.

On duplicate deals (a ``deal`` column: every lineup entry plays every seat of a deal) with
different strategies in the lineup (a ``sim meta`` round-robin, a ``sim power`` arm), the
result ``y`` of a lineup entry in one game (its win share: 1, 1/k, 0) is decomposed as a
nested ANOVA (Searle, Casella & McCulloch, *Variance Components*, 1992, ch. 3-4):

    y = mu + a_c + b_cd + e_cdr

with ``c`` the *cell* (the pairing and the lineup entry: which strategy plays against
which), ``d`` the deal and ``r`` the rotation of the lineup (the seats).  The components,
from the mean squares of the balanced layout (C cells, D deals common to all, R rotations
= players; method of moments, a negative estimate set to 0):

- **skill** ``= (C - 1)/C * (MS_cell - MS_deal) / (D R)``: the variance of the strategies'
  true win shares over the cells (fixed effects, as omega squared is built: Hays 1963,
  Olejnik & Algina 2003);
- **deal** ``= (MS_deal - MS_within) / R``: how much the deal (shuffles, keys, first seat)
  moves an entry's result over all the seats it plays on that deal (a deal that suits one
  strategy better than the other);
- **within**: what differs between the rotations of one deal (which seat and hand of the
  deal the entry gets, and every die, shuffle or choice that the different decisions lead
  to).

``skill_share`` = skill / total and ``deal_share`` = deal / total, with ``total`` the results'
variance (SS_total / N); ``within_share`` = the rest, and luck = 1 - skill_share.  The
rotations of a deal can be anti-correlated (a deal that favours a seat or a hand, not an
entry: each entry gets the good and the bad side of it), which makes the deal's component
negative: it is set to 0 and that luck counts in ``within_share``.  A game
the stronger strategy always wins has ``skill_share`` 1; coin flips have about 0.  The
share depends on the strategies compared (a wider ladder explains more) and on the player
count: it answers "how much does the strategy matter between *these* strategies".
Intervals: 95% percentile bootstrap over deals (a deal resampled in every cell at once).

``heads_up`` lists each pairing's win shares (lineup entry 0 against the rest), with the
same decomposition inside the pairing.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..metrics import Metric, question, register
from ..stats import score_interval
from .experience import DESCRIBED

N_BOOT = 500
BOOT_SEED = 20_261_204
#: bootstrap replicates per block (bounds memory for datasets with many deals)
_BLOCK = 50


def _distinct_entries(ds):
    """Some point's lineup has two different strategies (or parameters)."""
    from ..dataset import manifest_config

    for man in ds.manifests.values():
        seats = manifest_config(man).get("seats") or []
        seats = seats if isinstance(seats, list) else [seats]
        # strategy and parameters: a restriction (sim power's arms) is not a different strategy
        if len({(s.get("strategy"), repr(s.get("params"))) for s in seats if isinstance(s, dict)}) > 1:
            return True
    return False


def applies(ds):
    return "deal" in ds.games_columns() and "lineup" in ds.seats_columns() and _distinct_entries(ds)


def _why_not(ds):
    if "deal" not in ds.games_columns():
        return (
            "skill vs luck needs duplicate deals (rotate = 'duplicate', e.g. sim meta): every "
            "strategy on the same deals"
        )
    if not _distinct_entries(ds):
        return "skill vs luck needs different strategies in one lineup; every entry here plays the same"
    return None


Q = question("skill", "Skill vs luck: how much of the outcome the strategy explains", applies=applies)
Q.why_not = _why_not


def cell_deal_table(y, cell, deal, rotations):
    """Per-(cell, deal) means and within-deal sums of squares on the deals common to every
    cell with all ``rotations`` played.

    Returns
    -------
    means, within_ss : (C, D) arrays
    """
    frame = pl.DataFrame({"y": np.asarray(y, np.float64), "c": np.asarray(cell), "d": np.asarray(deal)})
    g = frame.group_by("c", "d").agg(
        pl.col("y").mean().alias("m"),
        ((pl.col("y") - pl.col("y").mean()) ** 2).sum().alias("ss"),
        pl.len().alias("k"),
    )
    g = g.filter(pl.col("k") == rotations)
    n_cells = frame["c"].n_unique()
    full = g.group_by("d").agg(pl.len().alias("nc")).filter(pl.col("nc") == n_cells)["d"]
    g = g.filter(pl.col("d").is_in(full.implode())).sort("c", "d")
    cells = g["c"].unique().sort()
    C, D = cells.len(), full.len()
    if C == 0 or D == 0:
        return np.zeros((0, 0)), np.zeros((0, 0))
    return g["m"].to_numpy().reshape(C, D), g["ss"].to_numpy().reshape(C, D)


def components(means, within_ss, rotations, counts=None):
    """Skill, deal and within-deal variance components (see the module docstring).

    Parameters
    ----------
    means, within_ss : (C, D) arrays
        Per cell and deal: the mean result over the ``rotations`` games, and the sum of
        squares about it.
    counts : (B, D) array, optional
        Bootstrap multiplicities of the deals (each row sums to D); default: each deal once.

    Returns
    -------
    (skill, deal, total) : arrays of shape (B,) (or floats without ``counts``)
        The skill and deal components (each at least 0) and the total variance of the
        results, ``SS_total / N``: the within-deal part is what the other two leave of it.
    """
    C, D = means.shape
    R = rotations
    single = counts is None
    K = np.ones((1, D)) if single else np.asarray(counts, np.float64)
    cell_mean = K @ means.T / D  # (B, C)
    grand = cell_mean.mean(axis=1, keepdims=True)
    ss_cell = D * R * ((cell_mean - grand) ** 2).sum(axis=1)
    ss_deal = R * ((K @ (means**2).T).sum(axis=1) - D * (cell_mean**2).sum(axis=1))
    ss_within = (K @ within_ss.T).sum(axis=1)
    ms_cell = ss_cell / max(C - 1, 1)
    ms_deal = ss_deal / max(C * (D - 1), 1)
    ms_within = ss_within / max(C * D * (R - 1), 1)
    skill = np.maximum((C - 1) / C * (ms_cell - ms_deal) / (D * R), 0.0)
    deal = np.maximum((ms_deal - ms_within) / R, 0.0)
    total = (ss_cell + ss_deal + ss_within) / (C * D * R)
    if single:
        return float(skill[0]), float(deal[0]), float(total[0])
    return skill, deal, total


def decompose(means, within_ss, rotations, n_boot=N_BOOT, seed=BOOT_SEED):
    """Shares of skill, deal and within-deal variance with 95% bootstrap intervals.

    Returns
    -------
    dict with ``skill_share``, ``deal_share``, ``within_share`` (each with ``_lo``/``_hi``),
    ``variance`` (the results' total variance) and ``cells``, ``deals``.
    """
    C, D = means.shape
    out = {"cells": C, "deals": D}
    if C < 2 or D < 2:
        return None

    def shares_of(skill, deal, total):
        with np.errstate(invalid="ignore", divide="ignore"):
            sk, dl = np.minimum(skill / total, 1.0), np.minimum(deal / total, 1.0)
            return np.stack([sk, dl, np.maximum(1.0 - sk - dl, 0.0)], axis=-1)

    est = components(means, within_ss, rotations)
    shares = shares_of(*(np.array([v]) for v in est))[0]
    rng = np.random.default_rng(seed)
    boots = []
    for start in range(0, n_boot, _BLOCK):
        b = min(_BLOCK, n_boot - start)
        counts = np.stack([np.bincount(rng.integers(0, D, D), minlength=D) for _ in range(b)])
        boots.append(shares_of(*components(means, within_ss, rotations, counts)))
    boots = np.concatenate(boots)
    for k, name in enumerate(("skill_share", "deal_share", "within_share")):
        lo, hi = (
            np.nanpercentile(boots[:, k], [2.5, 97.5]) if np.isfinite(boots[:, k]).any() else (math.nan,) * 2
        )
        out.update({name: float(shares[k]), f"{name}_lo": float(lo), f"{name}_hi": float(hi)})
    out["variance"] = float(est[2])
    return out


def _by(metric, ds):
    # the pairing keys of a meta dataset are what the decomposition explains, not groups
    return [c for c in metric.by if c not in ("row", "col")]


def _frame(seats, by):
    return (
        seats.select(
            *dict.fromkeys([*by, "point", "deal", "lineup", "players"]),
            pl.col("win").cast(pl.Float64).alias("y"),
        )
        .with_columns(
            pl.concat_str([pl.col("point"), pl.lit("#"), pl.col("lineup").cast(pl.String)]).alias("cell")
        )
        .collect()
    )


@register("skill")
class SkillShare(Metric):
    """Share of outcome variance explained by the strategy (skill) vs the deal (luck)."""

    name = "skill_share"
    title = "Skill vs luck: share of outcome variance explained by the strategy, the deal and the seats"
    needs = ("deal", "lineup")
    note = (
        "A nested ANOVA of a lineup entry's result (win share) in one game over cell (pairing x "
        "entry: which strategy against which), deal within cell, and rotation (seats) within deal; "
        "skill_share = the strategies' variance / the total (1: the stronger always wins; 0: coin "
        "flips), deal_share = the deal's, within_share = what differs between a deal's seat "
        "rotations; lo/hi = 95% percentile bootstrap over deals (docs/analysis.md, skill vs luck)."
    )

    def compute(self, seats):
        by = _by(self, self.context.get("dataset"))
        frame = _frame(seats, by)
        rows = []
        for key, grp in frame.group_by(by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            players = int(grp["players"][0])
            means, ss = cell_deal_table(grp["y"], grp["cell"], grp["deal"], players)
            res = decompose(means, ss, players)
            if res is not None:
                rows.append({**dict(zip(by, key)), **res})
        return pl.DataFrame(rows).sort(by) if rows else None


@register("skill")
class HeadsUp(Metric):
    """Each pairing's win shares and the skill share inside the pairing."""

    name = "heads_up"
    title = "Pairings: lineup entry 0's win share against the rest, and the skill share inside each"
    needs = ("deal", "lineup")
    note = (
        "share = lineup entry 0's win share (the row strategy of a meta pairing) over the pairing's "
        "complete deals; lo/hi = Wilson's score interval at the effective number of deals; "
        "skill_share as in the table above, inside the pairing (its two or more entries)."
    )

    def compute(self, seats):
        ds = self.context.get("dataset")
        by = _by(self, ds)
        frame = _frame(seats, by)
        labels = _labels(ds)
        rows = []
        for point, grp in frame.group_by("point", maintain_order=True):
            point = point[0] if isinstance(point, tuple) else point
            players = int(grp["players"][0])
            means, ss = cell_deal_table(grp["y"], grp["lineup"], grp["deal"], players)
            if means.shape[1] < 2:
                continue
            row0 = means[0]
            m = float(row0.mean())
            lo, hi = score_interval(m, float(np.var(row0, ddof=1)), row0.size)
            res = decompose(means, ss, players, n_boot=200) or {}
            rows.append(
                {
                    **{k: grp[k][0] for k in by},
                    "pairing": labels.get(point, point),
                    "deals": means.shape[1],
                    "share": m,
                    "share_lo": lo,
                    "share_hi": hi,
                    **{k: res.get(k) for k in ("skill_share", "skill_share_lo", "skill_share_hi")},
                }
            )
        return pl.DataFrame(rows).sort([*by, "pairing"]) if rows else None


def _labels(ds):
    """Point -> 'row vs col' (a meta dataset) or the lineup's strategies."""
    from ..dataset import manifest_config

    pts = ds.points
    if {"row", "col"} <= set(pts.columns):
        return {p: f"{r} vs {c}" for p, r, c in pts.select("point", "row", "col").iter_rows()}
    out = {}
    for point, man in ds.manifests.items():
        seats = manifest_config(man).get("seats") or []
        out[point] = " vs ".join(str(s.get("strategy")) for s in seats if isinstance(s, dict)) + (
            f" ({point})" if point else ""
        )
    return out


def _headlines(ds, results):
    out = []
    t = results.get("skill_share")
    if t is not None:
        for r in t.iter_rows(named=True):
            extra = [f"{k} = {r[k]}" for k in t.columns if k not in ("players",) and k in ds.group_params()]
            where = ", ".join([f"{r['players']} players", *extra])
            out.append(
                f"{where}: the strategy explains {100 * r['skill_share']:.0f}% "
                f"[{100 * r['skill_share_lo']:.0f}, {100 * r['skill_share_hi']:.0f}] of the outcome variance, "
                f"the deal {100 * r['deal_share']:.0f}% [{100 * r['deal_share_lo']:.0f}, "
                f"{100 * r['deal_share_hi']:.0f}], the seats and the rest within a deal "
                f"{100 * r['within_share']:.0f}% [{100 * r['within_share_lo']:.0f}, {100 * r['within_share_hi']:.0f}] "
                f"({r['cells']} strategy cells, {r['deals']:,} deals; between these strategies only)."
            )
    return out


Q.headlines = _headlines


def _key_numbers(ds, results):
    """For the verdict: the skill share (a level, in % of the outcome variance)."""
    t = results.get("skill_share")
    if t is None:
        return []
    return [
        {
            "key": f"{r['players']} players, share of outcome variance explained by the strategy",
            "estimate": 100 * r["skill_share"],
            "lo": 100 * r["skill_share_lo"],
            "hi": 100 * r["skill_share_hi"],
            "games": r["deals"],
            "count": "deals",
            "unit": "%",
            "zero": False,
            "precision": DESCRIBED,
        }
        for r in t.iter_rows(named=True)
    ]


Q.key_numbers = _key_numbers
