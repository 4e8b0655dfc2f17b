"""Advantage by character and start square (games whose seats carry a ``character``).

In Cluedo each suspect starts on its own square (CL-S3), so the character is also the start
square: a character's win share answers "does where I start matter?", and its mean
``first_room_turn`` shows how far that square is from the first room.  Characters are
random by default (``rules.characters = "random"``), so the comparison is not confounded
with the seat order; with fixed characters, read it together with the seat question.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..metrics import Metric, question, register
from ..stats import Z95, chi2_sf, clustered_equal_shares, f64, wilson_exprs
from ..text import cell_label, pct, pct_ci, pval


def _has_characters(ds):
    return "character" in ds.seats_columns()


Q = question("characters", "Advantage by character and start square", applies=_has_characters)


@register("characters")
class CharacterWinShare(Metric):
    """Win share per character with its Wilson 95% interval and the gap to 1/n."""

    name = "character_win_share"
    title = "Win share by character"
    needs = ("character",)
    note = (
        "share = wins / games played as that character (a k-way shared win counts 1/k); "
        "lo/hi = Wilson 95% interval; gap = share - 1/players."
    )

    def compute(self, seats):
        by = self.by
        return (
            seats.group_by([*by, "character"])
            .agg(pl.len().alias("games"), f64("win").sum().alias("wins"))
            .with_columns(*wilson_exprs("wins", "games"))
            .with_columns((1.0 / f64("players")).alias("fair"))
            .with_columns((pl.col("share") - pl.col("fair")).alias("gap"))
            .sort([*by, "character"])
            .collect()
        )


@register("characters")
class CharacterEqualityTest(Metric):
    """Do all characters win equally often?  A game-clustered Wald test.

    Several characters play in every game and at most one wins, so their win counts are
    negatively dependent: the plain 2 x K homogeneity table (``chi2_homogeneity``) assumes
    independent seats and rejects a true null too often.  The Wald test takes the win
    shares' covariance from per-game sums (``stats.clustered_equal_shares``); its size is
    checked in tests/test_analysis_coverage.py."""

    name = "character_equality"
    title = 'Test of "every character wins equally often"'
    needs = ("character",)
    note = (
        "Wald test of equal win shares across characters with a game-clustered covariance "
        "(df = characters - 1; the seats of one game are dependent, only one can win); a "
        "small p-value means the characters are not equal."
    )

    def compute(self, seats):
        df = (
            seats.select([*self.by, "point", "game_id", "character", "win"])
            .with_columns(
                (pl.col("character").rank("dense") - 1).cast(pl.Int64).alias("_c"),
            )
            .collect()
        )

        def row(grp):
            game = grp.select((pl.struct(["point", "game_id"]).rank("dense") - 1).cast(pl.Int64)).to_series()
            stat, dof, p = clustered_equal_shares(
                grp["win"].cast(pl.Float64).to_numpy(), grp["_c"].to_numpy(), game.to_numpy()
            )
            return {
                "characters": grp["character"].n_unique(),
                "games": int(game.max()) + 1,
                "wald": stat,
                "df": dof,
                "p_value": p,
            }

        return self.per_group(df, row)


@register("characters")
class CharacterFirstRoom(Metric):
    """How soon each character reaches its first room (the start square's distance)."""

    name = "character_first_room"
    title = "Turn of the first room by character"
    needs = ("character", "first_room_turn")
    note = (
        "mean of the player's own turn number at its first room, over the seats that "
        "reached one (lo/hi: normal 95% interval); never = share of seats that never did."
    )

    def compute(self, seats):
        by = self.by
        reached = pl.col("first_room_turn") > 0
        t = f64("first_room_turn")
        out = (
            seats.group_by([*by, "character"])
            .agg(
                pl.len().alias("seats"),
                t.filter(reached).mean().alias("mean_turn"),
                t.filter(reached).std().alias("_sd"),
                reached.sum().alias("_n"),
                (~reached).mean().alias("never"),
            )
            .with_columns((Z95 * pl.col("_sd") / pl.col("_n").cast(pl.Float64).sqrt()).alias("_h"))
            .with_columns(
                (pl.col("mean_turn") - pl.col("_h")).alias("turn_lo"),
                (pl.col("mean_turn") + pl.col("_h")).alias("turn_hi"),
            )
            .sort([*by, "character"])
            .collect()
        )
        return out.select([*by, "character", "seats", "mean_turn", "turn_lo", "turn_hi", "never"])


def chi2_homogeneity(wins, games):
    """Chi-square test of homogeneity of ``wins`` out of ``games`` across categories.

    Right for independent samples; not for characters that share games (see
    ``CharacterEqualityTest``), kept to show in the tests how far off it is there.

    Returns
    -------
    (stat, df, p_value)
    """
    w = np.asarray(wins, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    keep = n > 0
    w, n = w[keep], n[keep]
    k = w.size
    total = n.sum()
    rate = w.sum() / total if total > 0 else 0.0
    if k < 2 or rate <= 0.0 or rate >= 1.0:
        return float("nan"), max(k - 1, 0), float("nan")
    ew = n * rate
    el = n * (1.0 - rate)
    stat = float((((w - ew) ** 2) / ew).sum() + ((((n - w) - el) ** 2) / el).sum())
    return stat, k - 1, chi2_sf(stat, k - 1)


def headlines(ds, results):
    """Per player count: the best and worst character with intervals, and the test."""
    table = results.get("character_win_share")
    if table is None or table.is_empty():
        return []
    tests = results.get("character_equality")
    rooms = results.get("character_first_room")
    by = [c for c in table.columns if c not in _SHARE_COLS]
    out = []
    groups = table.select(by).unique(maintain_order=True).rows(named=True) if by else [{}]
    for g in groups:
        cond = pl.all_horizontal([pl.col(k) == v for k, v in g.items()]) if g else pl.lit(True)
        grp = table.filter(cond)
        if grp.height < 2:
            continue
        hi = grp.sort(["share", "character"], descending=[True, False]).row(0, named=True)
        lo = grp.sort(["share", "character"]).row(0, named=True)
        # the extremes of several noisy shares: named as the range, not as "the best"
        s = (
            f"{cell_label(g, by)}: character win shares run from "
            f"{pct_ci(lo['share'], lo['share_lo'], lo['share_hi'])} ({lo['character']}) to "
            f"{pct_ci(hi['share'], hi['share_lo'], hi['share_hi'])} ({hi['character']}) "
            f"(fair {pct(hi['fair'])})"
        )
        if tests is not None:
            t = tests.filter(cond)
            if t.height:
                p = t["p_value"][0]
                verdict = (
                    "the characters are not equal" if p < 0.05 else "no evidence that the characters differ"
                )
                s += f"; equal-characters test (game-clustered Wald): {pval(p)} ({verdict})"
        if rooms is not None:
            r = rooms.filter(cond).drop_nulls("mean_turn")
            if r.height >= 2:
                fast = r.sort(["mean_turn", "character"]).row(0, named=True)
                slow = r.sort(["mean_turn", "character"], descending=[True, False]).row(0, named=True)
                s += (
                    f"; first room at own turn {fast['mean_turn']:.2f} for "
                    f"{fast['character']} to {slow['mean_turn']:.2f} for {slow['character']}"
                )
        out.append(s + ".")
    return out


_SHARE_COLS = {"character", "games", "wins", "share", "share_lo", "share_hi", "fair", "gap"}

Q.headlines = headlines


def plots(ds, results):
    """Each character's win share minus 1/n with its interval, sorted (a forest plot)."""
    from .. import plots as P

    t = results.get("character_win_share")
    if t is None or t.is_empty() or [c for c in t.columns if c not in _SHARE_COLS] != ["players"]:
        return []  # a sweep's other parameters: the table has every cell
    t = t.with_columns(
        (pl.col("share_lo") - pl.col("fair")).alias("gap_lo"),
        (pl.col("share_hi") - pl.col("fair")).alias("gap_hi"),
    )
    svg = P.forest(
        t,
        "character",
        "gap",
        "gap_lo",
        "gap_hi",
        panel="players" if t["players"].n_unique() > 1 else None,
        xlabel="win share - 1/n (pts, 95% Wilson interval)",
    )
    return [
        (
            "Each character's win share minus the fair share 1/n, in pts, sorted (95% Wilson "
            "intervals, each character on its own; dashed: a fair character).",
            svg,
        )
    ]


Q.plots = plots


def why_not(ds):
    """One line when the dataset cannot answer the question."""
    return None if _has_characters(ds) else "not answered: the seats have no character (a Cluedo question)."


Q.why_not = why_not
