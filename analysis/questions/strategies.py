"""Strategy strength: win shares, a head-to-head matrix and a Bradley-Terry rating.

Head-to-head and the rating use every pair of seats holding *different* strategies in a
game: the one with the better finishing place beats the other (equal places: half a win
each).  This "rank breaking" of the finishing order gives Bradley-Terry the same ordering
information a Plackett-Luce fit would use.  Intervals come from a Poisson bootstrap over
games with a fixed seed, so the same data give the same intervals.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..metrics import Metric, question, register
from ..stats import f64, wilson_exprs
from ..text import cell_label, pct, pct_ci

Q = question("strategies", "Strategy strength")

BOOTSTRAP = 200
BOOTSTRAP_SEED = 20_240_601
ELO = 400.0 / np.log(10.0)


@register("strategies")
class StrategyWinShare(Metric):
    """Each strategy's win share over the seats it played."""

    name = "strategy_win_share"
    title = "Win share by strategy"
    needs = ("strategy",)
    note = "share of its seat-games a strategy won (Wilson 95%); fair_share = 1/players."

    def compute(self, seats):
        by = self.by
        return (
            seats.group_by([*by, "strategy"])
            .agg(
                pl.len().alias("seat_games"),
                f64("win").sum().alias("wins"),
                f64("place").mean().alias("mean_place"),
                f64("score").mean().alias("mean_score"),
            )
            .with_columns(*wilson_exprs("wins", "seat_games"))
            .with_columns((1.0 / f64("players")).alias("fair_share"))
            .sort([*by, "strategy"])
            .collect()
        )


def _pairs(seats, by):
    cols = ["point", "game_id", "seat", "strategy", "place"]
    left = seats.select(list(dict.fromkeys([*by, *cols])))
    right = seats.select(cols)
    return (
        left.join(right, on=["point", "game_id"], suffix="_o")
        .filter((pl.col("seat") < pl.col("seat_o")) & (pl.col("strategy") != pl.col("strategy_o")))
        .with_columns(
            (
                (pl.col("place") < pl.col("place_o")).cast(pl.Float64)
                + 0.5 * (pl.col("place") == pl.col("place_o")).cast(pl.Float64)
            ).alias("ahead")
        )
    )


@register("strategies")
class HeadToHead(Metric):
    """Share of games in which a strategy finished ahead of another (ties count half)."""

    name = "head_to_head"
    title = "Head-to-head: share of meetings the row strategy finished ahead of the column one"
    needs = ("strategy", "place")
    note = "comparisons = (game, seat pair) meetings of the two strategies; Wilson 95%."

    def compute(self, seats):
        by = self.by
        t = (
            _pairs(seats, by)
            .group_by([*by, "strategy", "strategy_o"])
            .agg(pl.len().alias("comparisons"), pl.col("ahead").sum().alias("wins"))
            .collect()
        )
        if t.is_empty():
            return None
        flipped = t.select(
            [
                *by,
                pl.col("strategy_o").alias("strategy"),
                pl.col("strategy").alias("strategy_o"),
                "comparisons",
                (pl.col("comparisons") - pl.col("wins")).alias("wins"),
            ]
        )
        both = (
            pl.concat([t, flipped])
            .group_by([*by, "strategy", "strategy_o"])
            .agg(pl.col("comparisons").sum(), pl.col("wins").sum())
        )
        return (
            both.with_columns(*wilson_exprs("wins", "comparisons", prefix="ahead"))
            .rename({"strategy_o": "opponent"})
            .select([*by, "strategy", "opponent", "comparisons", "ahead", "ahead_lo", "ahead_hi"])
            .sort([*by, "strategy", "opponent"])
        )


def fit_bradley_terry(wins, prior=0.5, iters=5000, tol=1e-12):
    """Bradley-Terry strengths by Hunter's MM algorithm.

    Parameters
    ----------
    wins : ndarray (K, K)
        ``wins[i, j]`` = times i beat j (may be fractional).
    prior : float
        Pseudo-wins added both ways to every pair that met, so a strategy that never wins
        still gets a finite rating.

    Returns
    -------
    ndarray (K,)
        Log-strengths with mean 0.
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    met = (w + w.T) > 0
    np.fill_diagonal(met, False)
    w = w + prior * met
    n = w + w.T
    total = w.sum(axis=1)
    p = np.ones(w.shape[0])
    for _ in range(iters):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), p)
        new = np.where(new > 0, new, 1e-300)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    r = np.log(p)
    return r - r.mean()


@register("strategies")
class BradleyTerry(Metric):
    """Bradley-Terry rating from finishing places, with bootstrap intervals."""

    name = "rating"
    title = "Bradley-Terry rating (Elo scale, mean 0)"
    needs = ("strategy", "place")
    note = (
        "fit on every meeting of two different strategies in a game (better place wins, "
        "equal places half); elo = 400 log10(strength); lo/hi = 2.5%/97.5% of a "
        f"{BOOTSTRAP}-sample Poisson bootstrap over games (fixed seed); p_beats_avg = "
        "chance of beating a strategy of average strength."
    )

    def compute(self, seats):
        by = self.by
        pairs = (
            _pairs(seats, by)
            .select([*by, "point", "game_id", "strategy", "strategy_o", "ahead"])
            .sort([*by, "point", "game_id", "strategy", "strategy_o"])
            .collect()
        )
        if pairs.is_empty():
            return None
        parts = []
        groups = pairs.group_by(by, maintain_order=True) if by else [((), pairs)]
        for key, grp in groups:
            key = key if isinstance(key, tuple) else (key,)
            parts.append(
                self._fit_group(grp).select([pl.lit(v).alias(k) for k, v in zip(by, key)] + [pl.all()])
            )
        return pl.concat(parts).sort([*by, "elo"], descending=[False] * len(by) + [True])

    def _fit_group(self, grp):
        names = sorted(set(grp["strategy"].to_list()) | set(grp["strategy_o"].to_list()))
        idx = {s: i for i, s in enumerate(names)}
        k = len(names)
        i = np.array([idx[s] for s in grp["strategy"].to_list()], dtype=np.int64)
        j = np.array([idx[s] for s in grp["strategy_o"].to_list()], dtype=np.int64)
        s = grp["ahead"].to_numpy().astype(np.float64)
        game_key = grp["point"] + ":" + grp["game_id"].cast(pl.String)
        game = game_key.rank("dense").to_numpy().astype(np.int64) - 1
        n_games = int(game.max()) + 1

        def matrix(weight):
            a = np.bincount(i * k + j, weights=weight * s, minlength=k * k)
            b = np.bincount(j * k + i, weights=weight * (1.0 - s), minlength=k * k)
            return (a + b).reshape(k, k)

        est = fit_bradley_terry(matrix(np.ones_like(s)))
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        boots = np.empty((BOOTSTRAP, k))
        for b in range(BOOTSTRAP):
            wg = rng.poisson(1.0, n_games).astype(np.float64)
            boots[b] = fit_bradley_terry(matrix(wg[game]))
        lo, hi = np.percentile(boots, [2.5, 97.5], axis=0)
        counts = np.bincount(i, minlength=k) + np.bincount(j, minlength=k)
        return pl.DataFrame(
            {
                "strategy": names,
                "comparisons": counts.astype(np.int64),
                "rating": est,
                "rating_lo": lo,
                "rating_hi": hi,
                "elo": est * ELO,
                "elo_lo": lo * ELO,
                "elo_hi": hi * ELO,
                "p_beats_avg": 1.0 / (1.0 + np.exp(-est)),
            }
        )


def headlines(ds, results):
    out = []
    rating = results.get("rating")
    by = ds.group_cols(rating.columns if rating is not None else ())
    if rating is not None:
        for _key, grp in rating.group_by(by, maintain_order=True):
            row = grp.row(0, named=True)
            last = grp.row(grp.height - 1, named=True)
            out.append(
                f"{cell_label(row, by)}: strongest strategy {row['strategy']} "
                f"(rating {row['elo']:+.0f} Elo, 95% CI {row['elo_lo']:+.0f} to "
                f"{row['elo_hi']:+.0f}); weakest {last['strategy']} ({last['elo']:+.0f}, "
                f"{last['elo_lo']:+.0f} to {last['elo_hi']:+.0f})."
            )
        return out
    share = results.get("strategy_win_share")
    if share is not None:
        for r in share.iter_rows(named=True):
            by = ds.group_cols(share.columns)
            out.append(
                f"{cell_label(r, by)}: {r['strategy']} wins "
                f"{pct_ci(r['share'], r['share_lo'], r['share_hi'])} of its seats "
                f"(fair share {pct(r['fair_share'])})."
            )
    return out


def plots(ds, results):
    from .. import plots as P

    out = []
    h2h = results.get("head_to_head")
    if h2h is not None and h2h.height:
        by = ds.group_cols(h2h.columns)
        first = h2h.select(by).row(0, named=True) if by else {}
        sub = h2h
        for k, v in first.items():
            sub = sub.filter(pl.col(k) == v)
        out.append(
            (
                f"Head-to-head matrix ({cell_label(first, by) if by else 'all games'}): "
                "share of meetings the row finished ahead",
                P.matrix(sub, "strategy", "opponent", "ahead", title="row ahead of column"),
            )
        )
    rating = results.get("rating")
    if rating is not None and rating.height:
        by = ds.group_cols(rating.columns)
        first = rating.select(by).row(0, named=True) if by else {}
        sub = rating
        for k, v in first.items():
            sub = sub.filter(pl.col(k) == v)
        out.append(
            (f"Bradley-Terry ratings ({cell_label(first, by) if by else 'all games'})", P.rating_chart(sub))
        )
    return out


Q.headlines = headlines
Q.plots = plots
