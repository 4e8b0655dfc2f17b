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
from ..stats import chi2_sf, clustered_shares, clustered_wilson, f64
from ..text import cell_label, pct, pct_ci, pval

Q = question("strategies", "Strategy strength")

BOOTSTRAP = 200
#: a detectable misfit smaller than this for every pair (a share) is reported, not warned about
FIT_TOLERANCE = 0.01
BOOTSTRAP_SEED = 20_240_601
ELO = 400.0 / np.log(10.0)


@register("strategies")
class StrategyWinShare(Metric):
    """Each strategy's win share over the seats it played."""

    name = "strategy_win_share"
    title = "Win share by strategy"
    needs = ("strategy",)
    note = (
        "share of its seat-games a strategy won (Wilson 95% at the game-clustered "
        "effective size: a strategy holding several seats of a game has dependent seats); "
        "fair_share = 1/players."
    )

    def compute(self, seats):
        by = self.by
        shares = clustered_shares(seats, [*by, "strategy"])
        means = (
            seats.group_by([*by, "strategy"])
            .agg(f64("place").mean().alias("mean_place"), f64("score").mean().alias("mean_score"))
            .collect()
        )
        return (
            shares.join(means, on=[*by, "strategy"], how="left")
            .with_columns((1.0 / f64("players")).alias("fair_share"))
            .select(
                [
                    *by,
                    "strategy",
                    "seat_games",
                    "wins",
                    "share",
                    "share_lo",
                    "share_hi",
                    "mean_place",
                    "mean_score",
                    "fair_share",
                ]
            )
            .sort([*by, "strategy"])
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
    note = "comparisons = (game, seat pair) meetings of the two strategies; Wilson 95% (game-clustered)."

    def compute(self, seats):
        by = self.by
        keys = [*by, "strategy", "strategy_o", "point", "game_id"]
        t = (
            _pairs(seats, by)
            .group_by(keys)
            .agg(pl.len().cast(pl.Float64).alias("n"), pl.col("ahead").sum().alias("s"))
            .collect()
        )
        if t.is_empty():
            return None
        flipped = t.select(
            [
                *by,
                pl.col("strategy_o").alias("strategy"),
                pl.col("strategy").alias("strategy_o"),
                "point",
                "game_id",
                "n",
                (pl.col("n") - pl.col("s")).alias("s"),
            ]
        )
        per_game = pl.concat([t, flipped]).group_by(keys).agg(pl.col("n").sum(), pl.col("s").sum())
        agg = (
            per_game.group_by([*by, "strategy", "strategy_o"])
            .agg(
                pl.col("n").sum().alias("comparisons"),
                pl.col("s").sum().alias("wins"),
                (pl.col("s") ** 2).sum().alias("_ss"),
                (pl.col("s") * pl.col("n")).sum().alias("_sn"),
                (pl.col("n") ** 2).sum().alias("_nn"),
                pl.len().alias("_g"),
            )
            .sort([*by, "strategy", "strategy_o"])
        )
        p, lo, hi, _ = clustered_wilson(
            agg["comparisons"], agg["wins"], agg["_ss"], agg["_sn"], agg["_nn"], agg["_g"]
        )
        return agg.select(
            [*by, "strategy", pl.col("strategy_o").alias("opponent"), pl.col("comparisons").cast(pl.Int64)]
        ).with_columns(pl.Series("ahead", p), pl.Series("ahead_lo", lo), pl.Series("ahead_hi", hi))


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
        "chance of beating a strategy of average strength; elo_vs_next = Elo difference to the "
        "next strategy down, with its bootstrap interval."
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
        # each strategy against the next one down the ranking: the bootstrap interval of
        # the difference (the ratings share their games, so not from the two intervals)
        order = np.argsort(-est, kind="mergesort")
        nxt = np.full(k, -1)
        nxt[order[:-1]] = order[1:]
        dl, dh = np.full(k, np.nan), np.full(k, np.nan)
        for a in range(k):
            if nxt[a] >= 0:
                dl[a], dh[a] = np.percentile((boots[:, a] - boots[:, nxt[a]]) * ELO, [2.5, 97.5])
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
                "next": [names[x] if x >= 0 else None for x in nxt],
                "elo_vs_next": [(est[a] - est[nxt[a]]) * ELO if nxt[a] >= 0 else np.nan for a in range(k)],
                "elo_vs_next_lo": dl,
                "elo_vs_next_hi": dh,
            }
        ).with_columns(pl.col(c).fill_nan(None) for c in ("elo_vs_next", "elo_vs_next_lo", "elo_vs_next_hi"))


def bt_goodness_of_fit(a, b, pair, game, ahead, meetings, k):
    """Do Bradley-Terry ratings describe the head-to-head results?  A game-clustered Wald
    test of transitivity.

    Bradley-Terry says logit(share of i ahead of j) = r_i - r_j for every pair, which
    leaves the "cyclic" combinations of the pairs' logits (A over B, B over C, C over A)
    at 0; the test asks whether they are, with the logits' covariance from per-game sums
    (the pairs of one game are dependent).

    Parameters
    ----------
    a, b : ndarray of int (pairs,)
        The two strategies of each unordered pair.
    pair, game : ndarray of int (rows,)
        One row per (game, pair) that met: the pair's index into ``a``/``b``, a 0-based
        game id.
    ahead, meetings : ndarray (rows,)
        Meetings that ``a`` finished ahead (ties half) and meetings in that game.
    k : int
        Strategies.

    Returns
    -------
    (observed, predicted, z, chi2, df, p_value) : per-pair arrays, then the test
    """
    n_pairs = a.size
    G = int(game.max()) + 1
    N = np.bincount(pair, weights=meetings, minlength=n_pairs)
    S = np.bincount(pair, weights=ahead, minlength=n_pairs)
    obs = S / N
    wins = np.zeros((k, k))
    wins[a, b] = S
    wins[b, a] = N - S
    rating = fit_bradley_terry(wins, prior=0.0)
    pred = 1.0 / (1.0 + np.exp(rating[b] - rating[a]))
    e = np.zeros((G, n_pairs))
    np.add.at(e, (game, pair), (ahead - obs[pair] * meetings) / N[pair])
    V = e.T @ e * (G / max(G - 1, 1))
    sd = np.sqrt(np.diag(V))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(sd > 0, (obs - pred) / sd, np.nan)
    inc = np.zeros((n_pairs, k))
    inc[np.arange(n_pairs), a] = 1.0
    inc[np.arange(n_pairs), b] = -1.0
    u, sv, _ = np.linalg.svd(inc)
    rank = int((sv > 1e-9).sum())
    C = u[:, rank:].T  # the cyclic combinations of the pairs
    if C.shape[0] == 0:
        return obs, pred, z, 0.0, 0, float("nan")
    o = np.clip(obs, 1e-6, 1 - 1e-6)
    y = np.log(o / (1 - o))
    d = 1.0 / (o * (1 - o))
    cy = C @ y
    M = C @ (V * np.outer(d, d)) @ C.T
    stat = float(cy @ np.linalg.pinv(M) @ cy)
    dof = C.shape[0]
    return obs, pred, z, stat, dof, chi2_sf(stat, dof)


@register("strategies")
class RatingFit(Metric):
    """Does the Bradley-Terry rating describe the head-to-head results?  Observed against
    predicted share per pair of strategies, and a test of transitivity."""

    name = "rating_fit"
    title = "Bradley-Terry goodness of fit: observed vs predicted head-to-head shares"
    needs = ("strategy", "place")
    note = (
        "predicted = share the ratings imply (1 / (1 + exp(r_opponent - r_strategy))); z = "
        "(observed - predicted) / its game-clustered standard error; chi2 = Wald test that "
        "the cyclic combinations of the pairs' logits are 0 (what Bradley-Terry assumes), "
        "game-clustered, df = pairs - (strategies - 1); a small p_fit means the ratings do "
        "not describe the results (a non-transitive field: read the head-to-head matrix)."
    )

    def compute(self, seats):
        by = self.by
        pairs = (
            _pairs(seats, by)
            .with_columns(
                pl.min_horizontal("strategy", "strategy_o").alias("_a"),
                pl.max_horizontal("strategy", "strategy_o").alias("_b"),
                pl.when(pl.col("strategy") < pl.col("strategy_o"))
                .then(pl.col("ahead"))
                .otherwise(1.0 - pl.col("ahead"))
                .alias("_s"),
            )
            .group_by([*by, "_a", "_b", "point", "game_id"])
            .agg(pl.len().cast(pl.Float64).alias("_n"), pl.col("_s").sum())
            .sort([*by, "_a", "_b", "point", "game_id"])
            .collect()
        )
        if pairs.is_empty():
            return None
        parts = []
        groups = pairs.group_by(by, maintain_order=True) if by else [((), pairs)]
        for key, grp in groups:
            key = key if isinstance(key, tuple) else (key,)
            names = sorted(set(grp["_a"].to_list()) | set(grp["_b"].to_list()))
            k = len(names)
            if k < 3:
                continue  # two strategies always fit exactly
            idx = {n: x for x, n in enumerate(names)}
            pair_keys = grp.select("_a", "_b").unique(maintain_order=True)
            a = np.array([idx[v] for v in pair_keys["_a"]])
            b = np.array([idx[v] for v in pair_keys["_b"]])
            pid = {(x, y): i for i, (x, y) in enumerate(pair_keys.iter_rows())}
            pair = np.array([pid[(x, y)] for x, y in zip(grp["_a"], grp["_b"])])
            game = grp.select((pl.struct(["point", "game_id"]).rank("dense") - 1).cast(pl.Int64)).to_series()
            obs, pred, z, stat, dof, p = bt_goodness_of_fit(
                a, b, pair, game.to_numpy(), grp["_s"].to_numpy(), grp["_n"].to_numpy(), k
            )
            n = np.bincount(pair, weights=grp["_n"].to_numpy(), minlength=a.size)
            parts.append(
                pl.DataFrame(
                    {
                        **{c: [v] * a.size for c, v in zip(by, key)},
                        "strategy": pair_keys["_a"],
                        "opponent": pair_keys["_b"],
                        "comparisons": n.astype(np.int64),
                        "observed": obs,
                        "predicted": pred,
                        "z": z,
                        "chi2": [stat] * a.size,
                        "df": [dof] * a.size,
                        "p_fit": [p] * a.size,
                    }
                )
            )
        return pl.concat(parts) if parts else None


def _separated(lo, hi):
    return lo is not None and hi is not None and (lo > 0 or hi < 0)


def _elo(r):
    return f"{r['strategy']} ({r['elo']:+.0f} Elo, 95% CI {r['elo_lo']:+.0f} to {r['elo_hi']:+.0f})"


def _rating_sentence(label, rows):
    """Strongest and weakest, each named only when it separates from its neighbour."""
    top, second = rows[0], rows[1]
    if _separated(top["elo_vs_next_lo"], top["elo_vs_next_hi"]):
        s = (
            f"{label}: strongest strategy {_elo(top)}, ahead of {second['strategy']} by "
            f"{top['elo_vs_next']:+.0f} Elo (95% CI {top['elo_vs_next_lo']:+.0f} to "
            f"{top['elo_vs_next_hi']:+.0f})"
        )
    else:
        s = (
            f"{label}: {top['strategy']} and {second['strategy']} are indistinguishable at the "
            f"top ({top['elo']:+.0f} and {second['elo']:+.0f} Elo; difference "
            f"{top['elo_vs_next']:+.0f}, 95% CI {top['elo_vs_next_lo']:+.0f} to "
            f"{top['elo_vs_next_hi']:+.0f})"
        )
    last, above = rows[-1], rows[-2]
    if len(rows) > 2 or _separated(top["elo_vs_next_lo"], top["elo_vs_next_hi"]):
        if _separated(above["elo_vs_next_lo"], above["elo_vs_next_hi"]):
            s += f"; weakest {_elo(last)}"
        else:
            s += f"; {above['strategy']} and {last['strategy']} are indistinguishable at the bottom"
    return s + "."


def headlines(ds, results):
    out = []
    rating = results.get("rating")
    fit = results.get("rating_fit")
    if rating is not None:
        by = ds.group_cols(rating.columns)
        for _key, grp in rating.group_by(by, maintain_order=True):
            rows = list(grp.iter_rows(named=True))
            label = cell_label(rows[0], by)
            if len(rows) >= 2:
                out.append(_rating_sentence(label, rows))
            if fit is not None:
                f = fit.filter(pl.all_horizontal([pl.col(k) == rows[0][k] for k in by])) if by else fit
                if f.height and f["p_fit"][0] < 0.01:
                    w = f.with_columns((pl.col("observed") - pl.col("predicted")).abs().alias("_d"))
                    w = w.sort("_d", descending=True).row(0, named=True)
                    detail = (
                        f"goodness of fit {pval(w['p_fit'])}; {w['strategy']} vs {w['opponent']}: "
                        f"observed {pct(w['observed'])}, predicted {pct(w['predicted'])}"
                    )
                    if w["_d"] >= FIT_TOLERANCE:
                        out.append(
                            f"Warning ({label}): the ratings do not describe the head-to-head "
                            f"results ({detail}): the field is not transitive, read the "
                            "head-to-head matrix, not the ranking."
                        )
                    else:
                        out.append(
                            f"{label}: the results depart detectably from what the ratings "
                            f"predict ({detail}), but by less than {100 * FIT_TOLERANCE:.0f} pt "
                            "for every pair: the ranking describes them."
                        )
        return out
    share = results.get("strategy_win_share")
    if share is not None and share["strategy"].n_unique() > 1:
        for r in share.iter_rows(named=True):
            by = ds.group_cols(share.columns)
            out.append(
                f"{cell_label(r, by)}: {r['strategy']} wins "
                f"{pct_ci(r['share'], r['share_lo'], r['share_hi'])} of its seats "
                f"(fair share {pct(r['fair_share'])})."
            )
    return out


def why_not(ds):
    """One line when the dataset cannot answer the question (self-play)."""
    if "strategy" not in ds.seats_columns():
        return "not answered: the dataset has no strategy column."
    labels = ds.seats.select(pl.col("strategy").unique()).collect()["strategy"].to_list()
    if len(labels) < 2:
        return (
            f"not answered: every seat plays {labels[0] if labels else 'the same strategy'} "
            "(self-play), so there is nothing to compare (its win share restates the seat shares)."
        )
    return None


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
                "share of meetings the row finished ahead"
                + (
                    " (only this group is drawn; the table has every group)"
                    if h2h.select(by).n_unique() > 1
                    else ""
                ),
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
            (
                f"Bradley-Terry ratings ({cell_label(first, by) if by else 'all games'}; 95% bootstrap intervals)"
                + (
                    " (only this group is drawn; the table has every group)"
                    if rating.select(by).n_unique() > 1
                    else ""
                ),
                P.rating_chart(sub),
            )
        )
    return out


Q.headlines = headlines
Q.plots = plots
Q.why_not = why_not
