"""First-player advantage and seat balance (every game).

A seat's win share counts a k-way shared win as 1/k (the ``win`` column), so the shares of
a player count add up to the share of games that had a winner.
"""

from __future__ import annotations

import polars as pl

from ..metrics import Metric, question, register
from ..stats import chi2_equal, f64, wilson_exprs
from ..text import MAX_SENTENCES, answer_grid, cell_label, pct, pct_ci, pts_ci, pval

Q = question("seats", "First-player advantage and seat balance")


@register("seats")
class SeatWinShare(Metric):
    """Win share per seat with its Wilson 95% interval and the gap to the fair share 1/n."""

    name = "seat_win_share"
    title = "Win share by seat"
    note = (
        "share = wins / games (a k-way shared win counts 1/k); lo/hi = Wilson 95% "
        "interval; gap = share - 1/players."
    )

    def compute(self, seats):
        by = self.by
        out = (
            seats.group_by([*by, "seat"])
            .agg(
                pl.len().alias("games"),
                f64("win").sum().alias("wins"),
                f64("place").mean().alias("mean_place"),
                f64("score").mean().alias("mean_score"),
            )
            .with_columns(*wilson_exprs("wins", "games"))
            .with_columns((1.0 / f64("players")).alias("fair"))
            .with_columns(
                (pl.col("share") - pl.col("fair")).alias("gap"),
                (pl.col("share_lo") - pl.col("fair")).alias("gap_lo"),
                (pl.col("share_hi") - pl.col("fair")).alias("gap_hi"),
            )
            .sort([*by, "seat"])
            .collect()
        )
        return out.select(
            [
                *by,
                "seat",
                "games",
                "wins",
                "share",
                "share_lo",
                "share_hi",
                "fair",
                "gap",
                "gap_lo",
                "gap_hi",
                "mean_place",
                "mean_score",
            ]
        )


@register("seats")
class SeatEqualityTest(Metric):
    """Chi-square test that every seat has the same win share."""

    name = "seat_equality"
    title = 'Test of "all seats win equally often"'
    source = "result:seat_win_share"
    note = (
        "chi-square goodness of fit of the wins per seat against equal shares "
        "(df = players - 1); a small p-value means the seats are not equal."
    )

    def compute(self, table):
        def row(grp):
            stat, df, p = chi2_equal(grp["wins"].to_numpy())
            return {"games": int(grp["games"].min()), "chi2": stat, "df": df, "p_value": p}

        return self.per_group(table, row)


@register("seats")
class StrategySeatWinShare(Metric):
    """A strategy's win share in each seat (is the seat effect the same for everyone?)."""

    name = "strategy_seat_win_share"
    title = "Win share by strategy and seat"
    needs = ("strategy",)
    note = "share of the games a strategy played in that seat that it won (Wilson 95%)."

    def compute(self, seats):
        by = self.by
        return (
            seats.group_by([*by, "strategy", "seat"])
            .agg(pl.len().alias("games"), f64("win").sum().alias("wins"))
            .with_columns(*wilson_exprs("wins", "games"))
            .sort([*by, "strategy", "seat"])
            .collect()
        )


@register("seats")
class LudiiSummary(Metric):
    """Ludii-style one-line summaries per player count: balance, advantage, shared wins,
    completion."""

    name = "seat_summary"
    title = "Balance summary (Ludii-style)"
    source = "result:seat_win_share"
    note = (
        "balance = 1 - largest gap between two seats' win shares; advantage = seat 0 "
        "win share; shared = games with a shared win; no_winner = games nobody won "
        "(truncated or solo loss); completion = games not truncated."
    )

    def compute(self, table):
        ds = self.context["dataset"]
        games = (
            ds.seats.filter(pl.col("seat") == 0)
            .group_by(self.by)
            .agg(
                pl.len().alias("games"),
                (f64("n_winners") > 1).mean().alias("shared"),
                (pl.col("n_winners") == 0).mean().alias("no_winner"),
                (1.0 - f64("truncated")).mean().alias("completion"),
            )
            .collect()
        )
        seat_stats = (
            table.group_by(self.by)
            .agg((1.0 - (pl.col("share").max() - pl.col("share").min())).alias("balance"))
            .join(
                table.filter(pl.col("seat") == 0).select(
                    [
                        *self.by,
                        pl.col("share").alias("advantage"),
                        pl.col("share_lo").alias("advantage_lo"),
                        pl.col("share_hi").alias("advantage_hi"),
                    ]
                ),
                on=self.by,
            )
        )
        return (
            games.join(seat_stats, on=self.by, how="left")
            .select(
                [
                    *self.by,
                    "games",
                    "balance",
                    "advantage",
                    "advantage_lo",
                    "advantage_hi",
                    "shared",
                    "no_winner",
                    "completion",
                ]
            )
            .sort(self.by)
        )


def headlines(ds, results):
    """Plain sentences: the first player's win share and gap to 1/n per player count."""
    table = results.get("seat_win_share")
    if table is None or table.is_empty():
        return []
    tests = results.get("seat_equality")
    by = [c for c in table.columns if c not in SeatWinShare_cols]
    firsts = table.filter(pl.col("seat") == 0)
    if firsts.height > MAX_SENTENCES:
        return _sweep_headlines(firsts, by)
    out = []
    for row in table.filter(pl.col("seat") == 0).iter_rows(named=True):
        label = cell_label(row, by)
        n = int(row["players"])
        if n == 1:
            out.append(
                f"{label}: the solo player wins {pct_ci(row['share'], row['share_lo'], row['share_hi'])} "
                f"of {row['games']:,} games."
            )
            continue
        gap = pts_ci(row["gap"], row["gap_lo"], row["gap_hi"])
        if row["gap_lo"] > 0:
            lead = f"{label}: the first player has an advantage of {gap}"
        elif row["gap_hi"] < 0:
            lead = f"{label}: the first player has a disadvantage of {gap}"
        else:
            lead = f"{label}: no detectable first-player advantage or disadvantage, {gap}"
        sentence = (
            f"{lead}: wins {pct_ci(row['share'], row['share_lo'], row['share_hi'])} of "
            f"{row['games']:,} games against a fair {pct(row['fair'])}"
        )
        if n >= 3:
            grp = table.filter(pl.all_horizontal([pl.col(k) == row[k] for k in by])) if by else table
            lo = grp.sort(["share", "seat"]).row(0, named=True)
            hi = grp.sort(["share", "seat"], descending=[True, False]).row(0, named=True)
            sentence += (
                f"; seat shares run from {pct(lo['share'])} (seat {lo['seat']}) to "
                f"{pct(hi['share'])} (seat {hi['seat']})"
            )
        if tests is not None:
            t = tests.filter(pl.all_horizontal([pl.col(k) == row[k] for k in by]))
            if t.height:
                p = t["p_value"][0]
                verdict = "the seats are not equal" if p < 0.05 else "no evidence that the seats differ"
                sentence += f"; all-seats-equal test: {pval(p)} ({verdict})"
        out.append(sentence + ".")
    return out


def _gap_word(r):
    return "advantage" if r["gap_lo"] > 0 else "disadvantage" if r["gap_hi"] < 0 else "none"


def _sweep_headlines(firsts, by):
    """A sweep: one table of the first player's gap per cell, and the counts."""
    rows = [r for r in firsts.iter_rows(named=True) if r["players"] > 1]
    if not rows:
        return []
    grid = answer_grid(
        rows,
        by,
        lambda r: f"{100 * r['gap']:+.1f} ({100 * r['gap_lo']:+.1f} to {100 * r['gap_hi']:+.1f})",
        "First player's win share minus 1/n, in pts (95% CI), per cell of the sweep.",
    )
    words = [_gap_word(r) for r in rows]
    s = (
        f"Over the {len(rows)} cells the first player has a disadvantage in "
        f"{words.count('disadvantage')}, an advantage in {words.count('advantage')} and no "
        f"detectable gap in {words.count('none')}"
    )
    lo = min(rows, key=lambda r: r["gap"])
    hi = max(rows, key=lambda r: r["gap"])
    s += (
        f"; the gaps run from {pts_ci(lo['gap'], lo['gap_lo'], lo['gap_hi'])} ({cell_label(lo, by)}) "
        f"to {pts_ci(hi['gap'], hi['gap_lo'], hi['gap_hi'])} ({cell_label(hi, by)})."
    )
    return [grid, s]


SeatWinShare_cols = {
    "seat",
    "games",
    "wins",
    "share",
    "share_lo",
    "share_hi",
    "fair",
    "gap",
    "gap_lo",
    "gap_hi",
    "mean_place",
    "mean_score",
}


def plots(ds, results):
    from .. import plots as P

    table = results.get("seat_win_share")
    if table is None or table.is_empty():
        return []
    by = [c for c in table.columns if c not in SeatWinShare_cols]
    figs = P.seat_gaps(table, by)
    n = len(figs)
    solo = (
        " Solo games are left out (no fair share to compare with)." if (table["players"] == 1).any() else ""
    )
    return [
        (
            "Each seat's win share minus the fair share 1/n, in pts (95% Wilson intervals; one "
            "scale for every panel; dashed: a fair seat)"
            + (f", part {i + 1} of {n}" if n > 1 else "")
            + "."
            + solo,
            svg,
        )
        for i, svg in enumerate(figs)
    ]


Q.headlines = headlines
Q.plots = plots


def key_numbers(ds, results):
    """The first player's gap to 1/n per player count (for strength ladders)."""
    table = results.get("seat_win_share")
    if table is None:
        return []
    by = [c for c in table.columns if c not in SeatWinShare_cols]
    out = []
    for r in table.filter((pl.col("seat") == 0) & (pl.col("players") > 1)).iter_rows(named=True):
        out.append(
            {
                "key": f"first-player gap, {cell_label(r, by).lower()}",
                "estimate": r["gap"],
                "lo": r["gap_lo"],
                "hi": r["gap_hi"],
                "games": r["games"],
                "unit": "pts",
            }
        )
    return out


Q.key_numbers = key_numbers
