"""The meta-game of a round-robin of strategies (a ``sim meta`` dataset).

A ``sim meta`` dataset is a sweep over the pairings (points with ``row`` and ``col``; lineup
entry 0 plays ``row``, every other entry ``col``), all on the same duplicate deals
(``sim/meta.py``).  The unit of every interval is the deal (all rotations of the lineup
together): a pairing's win share is the mean over deals of the entry's per-deal win share,
with Wilson's score interval at the effective number of deals
(:func:`analysis.stats.score_interval`), so it keeps a width when one strategy wins every
deal.

- ``payoff_table``: 2 players, the win share of each strategy against each other (both
  directions of every pairing); 3-4 players, the deviator's win share alone in a field of
  another strategy, and its ``gain`` = share - 1/n.
- ``meta_ratings``: Nash averaging (the maximum-entropy Nash equilibrium of the
  antisymmetric meta-game, each strategy's payoff against it) and alpha-Rank (single
  population, OpenSpiel's defaults alpha = 100, m = 50), from :mod:`analysis.meta`, with
  95% percentile intervals from a bootstrap over deals: the pairings share their deals, so
  a deal is resampled in every pairing at once.

A strategy is *dominant* when its interval against every other strategy lies above the fair
share (1/2 heads-up; 1/n for the deviator): the intervals separate, not the point estimates.
The answers depend on the strategies in the table: a strategy dominant here may not be
against a stronger one left out.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from .. import meta as games_theory
from ..metrics import Metric, question, register
from ..stats import score_interval
from ..text import AnswerTable

#: bootstrap replicates over deals for the rating intervals
N_BOOT = 200
BOOT_SEED = 20_261_203


def is_meta_dataset(ds):
    """A ``sim meta`` dataset: a sweep whose points carry ``row`` and ``col``."""
    if ds.kind != "sweep" or not {"row", "col"} <= set(ds.points.columns):
        return False
    return "deal" in ds.games_columns() and "lineup" in ds.seats_columns()


def _why_not(ds):
    if ds.kind == "sweep" and {"row", "col"} <= set(ds.points.columns) and "deal" not in ds.games_columns():
        return "the meta-game needs duplicate deals (a deal column), which this dataset lacks"
    return None


Q = question("meta", "Meta-game: payoff table, dominance and ratings", applies=is_meta_dataset)
Q.why_not = _why_not


class MetaData:
    """Per-deal results of every pairing of one player count, on the deals all share.

    Attributes
    ----------
    players : int
    names : list of str
        The strategies in config order.
    pairs : list of (row index, col index)
    row, col : (pairings, deals) arrays
        Per deal, the row entry's win share and a column entry's (the field's per seat).
    games : list of int
        Games per pairing on the common deals.
    """

    def __init__(self, players, names, pairs, row, col, games):
        self.players, self.names, self.pairs = players, names, pairs
        self.row, self.col, self.games = row, col, games

    @property
    def deals(self):
        return self.row.shape[1]


def meta_data(ds, seats):
    """One :class:`MetaData` per player count of a meta dataset."""
    pts = ds.points.select("point", pl.col("row").cast(pl.String), pl.col("col").cast(pl.String))
    names = list(dict.fromkeys(v for r in pts.sort("point").iter_rows() for v in r[1:]))
    per_deal = (
        seats.select("point", "players", "deal", "game_id", "lineup", pl.col("win").cast(pl.Float64))
        .with_columns((pl.col("lineup") == 0).alias("is_row"))
        .group_by("point", "players", "deal", "is_row")
        .agg(pl.col("win").sum().alias("w"), pl.col("game_id").n_unique().alias("k"), pl.len().alias("n"))
        .collect()
        .join(pts, on="point")
    )
    out = []
    for (players,), grp in per_deal.group_by(["players"], maintain_order=True):
        n = int(players)
        # complete deals only (every rotation played), common to every pairing
        grp = grp.filter(pl.col("k") == n)
        points = sorted(grp["point"].unique().to_list())
        common = None
        for p in points:
            d = set(grp.filter(pl.col("point") == p)["deal"].to_list())
            common = d if common is None else common & d
        deals = np.array(sorted(common or ()), dtype=np.int64)
        if deals.size < 2:
            continue
        pos = {int(d): i for i, d in enumerate(deals)}
        pairs, row, col, games = [], [], [], []
        by_point = dict(zip(pts["point"], zip(pts["row"], pts["col"])))
        for p in points:
            r, c = by_point[p]
            g = grp.filter((pl.col("point") == p) & pl.col("deal").is_in(deals.tolist()))
            vr, vc = np.full(deals.size, np.nan), np.full(deals.size, np.nan)
            for d, is_row, w, k in g.select("deal", "is_row", "w", "k").iter_rows():
                # the row entry's share of the deal's games; a field entry's, per seat it holds
                (vr if is_row else vc)[pos[int(d)]] = w / k if is_row else w / (k * (n - 1))
            pairs.append((names.index(r), names.index(c)))
            row.append(vr)
            col.append(vc)
            games.append(int(deals.size * n))
        out.append(MetaData(n, names, pairs, np.array(row), np.array(col), games))
    return out


def payoff_matrix(md, row_means, col_means):
    """The meta-game's tables from per-pairing mean shares.

    Returns
    -------
    M : (k, k) array
        ``M[i, j]``: ``i``'s win share against ``j`` (heads-up), or as the deviator in a
        field of ``j``; ``1/n`` on the diagonal (self-play, where by duplicate deals every
        entry gets the same share).
    A : (k, k) array
        The antisymmetric meta-game: ``(G - G.T) / 2`` of the gains ``G = M - 1/n``.
    """
    k = len(md.names)
    fair = 1.0 / md.players
    M = np.full((k, k), fair)
    for (i, j), r, c in zip(md.pairs, row_means, col_means):
        M[i, j] = r
        if md.players == 2:
            M[j, i] = c
    return M, games_theory.antisymmetric(M - fair)


def ratings(md, row_means, col_means):
    """Nash-averaging mix and ratings, and alpha-Rank's mass, for one table."""
    M, A = payoff_matrix(md, row_means, col_means)
    p, r = games_theory.nash_average(A)
    return p, r, games_theory.alpharank(M)


def bootstrap(md, n_boot=N_BOOT, seed=BOOT_SEED):
    """Replicates of (Nash mix, Nash rating, alpha-Rank mass), deals resampled jointly."""
    rng = np.random.default_rng(seed)
    D = md.deals
    row = np.nan_to_num(md.row)
    col = np.nan_to_num(md.col)
    out = []
    for _ in range(n_boot):
        counts = np.bincount(rng.integers(0, D, D), minlength=D).astype(np.float64)
        out.append(ratings(md, row @ counts / D, col @ counts / D))
    return [np.array([o[i] for o in out]) for i in range(3)]


def _interval(mean, per_deal):
    per_deal = per_deal[np.isfinite(per_deal)]
    if per_deal.size < 2:
        return math.nan, math.nan
    return score_interval(mean, float(np.var(per_deal, ddof=1)), per_deal.size)


@register("meta")
class PayoffTable(Metric):
    """Each strategy's win share against each other, deal-clustered 95% interval."""

    name = "payoff_table"
    title = "Payoff table: row strategy's win share against the column (duplicate deals)"
    needs = ("deal", "lineup")
    note = (
        "share = the row strategy's win share against the column strategy (2 players), or alone "
        "in a field of the column strategy (3-4 players: one deviator, every other seat the "
        "column); gain = share - 1/players; lo/hi = Wilson's score interval at the effective "
        "number of deals (the deal, all its seat rotations together, is the unit); deals and "
        "games are those common to every pairing."
    )

    def compute(self, seats):
        rows = []
        for md in meta_data(self.context["dataset"], seats):
            fair = 1.0 / md.players
            for (i, j), r, c, g in zip(md.pairs, md.row, md.col, md.games):
                sides = [(i, j, r)] + ([(j, i, c)] if md.players == 2 else [])
                for a, b, v in sides:
                    m = float(np.nanmean(v))
                    lo, hi = _interval(m, v)
                    rows.append(
                        {
                            "players": md.players,
                            "row": md.names[a],
                            "col": md.names[b],
                            "deals": md.deals,
                            "games": g,
                            "share": m,
                            "share_lo": lo,
                            "share_hi": hi,
                            "gain": m - fair,
                            "gain_lo": lo - fair,
                            "gain_hi": hi - fair,
                        }
                    )
        if not rows:
            return None
        order = {n: i for i, n in enumerate(md.names)}
        return (
            pl.DataFrame(rows)
            .with_columns(
                pl.col("row").replace_strict(order).alias("_r"),
                pl.col("col").replace_strict(order).alias("_c"),
            )
            .sort("players", "_r", "_c")
            .drop("_r", "_c")
        )


@register("meta")
class MetaRatings(Metric):
    """Nash averaging and alpha-Rank of the payoff table, bootstrap intervals over deals."""

    name = "meta_ratings"
    title = "Meta-game ratings: Nash averaging and alpha-Rank"
    needs = ("deal", "lineup")
    note = (
        "nash_mass = the strategy's probability in the maximum-entropy Nash equilibrium of the "
        "antisymmetric meta-game (Balduzzi et al. 2018); support_share = share of bootstrap "
        "replicates in which it is in the support; nash_rating = its payoff against that "
        "equilibrium mix (0 in the support, below 0 outside; heads-up: its win share against the mix "
        "- 1/2); alpharank_mass = "
        "its mass in single-population alpha-Rank's stationary distribution (Omidshafiei et al. "
        f"2019; alpha = {games_theory.ALPHA:g}, population {games_theory.POPULATION}); lo/hi = 95% "
        f"percentile intervals from {N_BOOT} bootstrap replicates over deals (every pairing's "
        "games of a deal resampled together; a share that is 0 or 1 on every deal has no spread "
        "to resample, so its rating's interval is a point: the payoff table's interval is the one to read)."
    )

    def compute(self, seats):
        rows = []
        for md in meta_data(self.context["dataset"], seats):
            p, r, pi = ratings(md, np.nanmean(md.row, axis=1), np.nanmean(md.col, axis=1))
            bp, br, bpi = bootstrap(md)
            osp = games_theory.alpharank_openspiel(payoff_matrix(md, *_means(md))[0])
            for i, name in enumerate(md.names):
                (plo, phi), (rlo, rhi), (alo, ahi) = (
                    np.percentile(a[:, i], [2.5, 97.5]) for a in (bp, br, bpi)
                )
                rows.append(
                    {
                        "players": md.players,
                        "strategy": name,
                        "nash_mass": float(p[i]),
                        "nash_mass_lo": float(plo),
                        "nash_mass_hi": float(phi),
                        "support_share": float(np.mean(bp[:, i] > games_theory.SUPPORT_TOL * 1e3)),
                        "nash_rating": float(r[i]),
                        "nash_rating_lo": float(rlo),
                        "nash_rating_hi": float(rhi),
                        "alpharank_mass": float(pi[i]),
                        "alpharank_mass_lo": float(alo),
                        "alpharank_mass_hi": float(ahi),
                        **({"alpharank_openspiel": float(osp[i])} if osp is not None else {}),
                    }
                )
        return pl.DataFrame(rows) if rows else None


def _means(md):
    return np.nanmean(md.row, axis=1), np.nanmean(md.col, axis=1)


def _fmt(v, lo, hi, pts=False):
    if pts:
        return f"{100 * v:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    return f"{100 * v:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def matrix_table(table, players):
    """The payoff table as a matrix of 'share [lo, hi]' strings (rows against columns)."""
    t = table.filter(pl.col("players") == players)
    names = list(dict.fromkeys(t["row"].to_list() + t["col"].to_list()))
    fair = 1.0 / players
    cells = {(r["row"], r["col"]): r for r in t.iter_rows(named=True)}
    rows = []
    for a in names:
        row = {"row \\ col": a}
        for b in names:
            c = cells.get((a, b))
            if a == b:
                row[b] = "-"
            elif c is None:
                row[b] = ""
            elif players == 2:
                row[b] = _fmt(c["share"], c["share_lo"], c["share_hi"])
            else:
                row[b] = _fmt(c["share"] - fair, c["share_lo"] - fair, c["share_hi"] - fair, pts=True)
        rows.append(row)
    return pl.DataFrame(rows)


def dominance(table, players):
    """``(dominant strategies, strategies that beat every other on the estimates only)``."""
    t = table.filter(pl.col("players") == players)
    fair = 1.0 / players
    names = list(dict.fromkeys(t["row"].to_list() + t["col"].to_list()))
    dom, nominal = [], []
    for a in names:
        mine = t.filter(pl.col("row") == a)
        if mine.height < len(names) - 1 or mine.height == 0:
            continue
        if (mine["share_lo"] > fair).all():
            dom.append(a)
        elif (mine["share"] > fair).all():
            nominal.append(a)
    return dom, nominal


def _headlines(ds, results):
    table, rat = results.get("payoff_table"), results.get("meta_ratings")
    out = []
    if table is None:
        return out
    for players in table["players"].unique().sort().to_list():
        fair = "1/2" if players == 2 else f"1/{players}"
        what = (
            "win share against the column"
            if players == 2
            else f"gain over the fair share {fair} alone in a field of the column (pts)"
        )
        out.append(
            AnswerTable(
                matrix_table(table, players),
                f"{players} players: row strategy's {what}, 95% interval, duplicate deals",
            )
        )
        dom, nominal = dominance(table, players)
        if dom:
            out.append(
                f"{players} players: {', '.join(dom)} is dominant: its 95% interval against every other "
                f"strategy lies above {fair}."
            )
        elif nominal:
            out.append(
                f"{players} players: no strategy is dominant: {', '.join(nominal)} beats every other on "
                f"the estimates, but not every interval lies above {fair}."
            )
        else:
            out.append(f"{players} players: no strategy is dominant (none beats every other).")
        if rat is None:
            continue
        r = rat.filter(pl.col("players") == players)
        support = r.filter(pl.col("nash_mass") > 1e-3)
        parts = [
            f"{s['strategy']} {100 * s['nash_mass']:.0f}% [{100 * s['nash_mass_lo']:.0f}, "
            f"{100 * s['nash_mass_hi']:.0f}]"
            for s in support.iter_rows(named=True)
        ]
        out.append(
            f"{players} players: the maximum-entropy Nash equilibrium plays {'; '.join(parts)} "
            f"(mass with its bootstrap 95% interval; in the support in "
            + ", ".join(
                f"{100 * s['support_share']:.0f}% of the replicates for {s['strategy']}"
                for s in r.filter(pl.col("support_share") > 0).iter_rows(named=True)
            )
            + "); "
            + (
                "every strategy outside it loses against the mix: "
                + ", ".join(
                    f"{s['strategy']} {_fmt(s['nash_rating'], s['nash_rating_lo'], s['nash_rating_hi'], True)}"
                    " pts"
                    for s in r.filter(pl.col("nash_mass") <= 1e-3).iter_rows(named=True)
                )
                if support.height < r.height
                else "it mixes every strategy"
            )
            + "."
        )
        top = r.sort("alpharank_mass", descending=True)
        out.append(
            f"{players} players: alpha-Rank puts "
            + ", ".join(
                f"{s['strategy']} {100 * s['alpharank_mass']:.0f}% [{100 * s['alpharank_mass_lo']:.0f}, "
                f"{100 * s['alpharank_mass_hi']:.0f}]"
                for s in top.iter_rows(named=True)
                if s["alpharank_mass_hi"] > 0.005
            )
            + " of its mass (95% bootstrap intervals; strategies whose interval stays below 0.5% left "
            "out); these answers hold for the "
            "strategies in this table only."
        )
    return out


Q.headlines = _headlines


def _key_numbers(ds, results):
    """For the verdict: the top strategy (most Nash mass, then alpha-Rank mass) against the
    rival whose interval comes lowest, as its gain over the fair share; above 0 means
    dominant."""
    table, rat = results.get("payoff_table"), results.get("meta_ratings")
    if table is None or rat is None:
        return []
    out = []
    for players in table["players"].unique().sort().to_list():
        r = rat.filter(pl.col("players") == players).sort(["nash_mass", "alpharank_mass"], descending=True)
        top = r["strategy"][0]
        mine = table.filter((pl.col("players") == players) & (pl.col("row") == top)).sort("gain_lo")
        if mine.is_empty():
            continue
        w = mine.row(0, named=True)
        out.append(
            {
                "key": f"{players} players, {top} (top rated) against its closest rival {w['col']} "
                f"(win share - 1/{players}; above 0 for every rival = dominant)",
                "estimate": w["gain"],
                "lo": w["gain_lo"],
                "hi": w["gain_hi"],
                "games": w["games"],
                "unit": "pts",
            }
        )
    return out


Q.key_numbers = _key_numbers
