"""Deck size by player count (games with a ``deck_size`` column: The Bloody Inn).

Read from a sweep over deck size x players: per cell the game length, the winning score,
the score spread, the first player's advantage and the tie rate, with the official deck
sizes (rule BI-S2) marked, and per player count the deck size that makes seats most even.
"""

from __future__ import annotations

import polars as pl

from ..bloody_inn import official_deck
from ..metrics import Metric, question, register
from ..stats import chi2_equal, f64, wilson_exprs
from ..text import cell_label, pct


def _has_deck_column(ds):
    return "deck_size" in ds.games_columns()


def _applies(ds):
    # a deck-size table needs several deck sizes (a sweep over rules.deck_size); the games
    # column is used when the game writes one, else the swept parameter
    if _has_deck_column(ds):
        return ds.games.select(pl.col("deck_size").n_unique()).collect().item() > 1
    return "rules.deck_size" in ds.params


Q = question("deck", "Deck size by player count", applies=_applies)


def _cell_keys(ds):
    return ["players", *ds.group_params(exclude=("rules.deck_size",)), "deck_size"]


@register("deck")
class DeckCells(Metric):
    """One row per (player count, deck size[, other swept parameters])."""

    name = "deck_cells"
    title = "Deck size x players"
    note = (
        "rounds/winning score/spread are means per game (spread = best - worst score); "
        "seat0_share = first player's win share (Wilson 95%), seat0_gap = minus 1/n; "
        "imbalance = largest minus smallest seat win share; p_value = chi-square test of "
        "equal seats; tie_rate = games whose top score was tied before the tiebreak; "
        "shared_rate = games still shared after it; official = the BI-S2 deck size."
    )

    @classmethod
    def from_dataset(cls, ds):
        return cls(by=_cell_keys(ds), dataset=ds)

    def compute(self, seats):
        ds = self.context["dataset"]
        by = self.by
        if not _has_deck_column(ds):
            seats = seats.with_columns(pl.col("rules.deck_size").alias("deck_size"))
        per_game = seats.group_by([*by, "point", "game_id"]).agg(
            f64("score").max().alias("best"),
            f64("score").min().alias("worst"),
            (pl.col("score") == pl.col("score").max()).sum().alias("at_top"),
            f64("rounds").first().alias("rounds"),
            f64("n_winners").first().alias("n_winners"),
            f64("truncated").first().alias("truncated"),
        )
        cells = (
            per_game.group_by(by)
            .agg(
                pl.len().alias("games"),
                pl.col("rounds").mean().alias("rounds"),
                pl.col("rounds").std().alias("rounds_sd"),
                pl.col("best").mean().alias("winning_score"),
                (pl.col("best") - pl.col("worst")).mean().alias("spread"),
                ((pl.col("at_top") > 1) & (f64("players") > 1)).mean().alias("tie_rate"),
                (pl.col("n_winners") > 1).mean().alias("shared_rate"),
                pl.col("truncated").mean().alias("truncated"),
            )
            .sort(by)
            .collect()
        )
        seat = (
            seats.group_by([*by, "seat"])
            .agg(pl.len().alias("n"), f64("win").sum().alias("wins"))
            .sort([*by, "seat"])
            .collect()
        )
        rows = []
        for key, grp in seat.group_by(by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            shares = grp["wins"] / grp["n"]
            _, _, p = chi2_equal(grp["wins"].to_numpy())
            s0 = grp.filter(pl.col("seat") == 0)
            rows.append(
                {
                    **dict(zip(by, key)),
                    "seat0_wins": float(s0["wins"][0]),
                    "imbalance": float(shares.max() - shares.min()),
                    "p_value": p,
                }
            )
        seat_cells = pl.DataFrame(rows)
        out = (
            cells.join(seat_cells, on=by, how="left")
            .with_columns(*wilson_exprs("seat0_wins", "games", prefix="seat0_share"))
            .with_columns((pl.col("seat0_share") - 1.0 / f64("players")).alias("seat0_gap"))
            .drop("seat0_wins")
        )
        out = out.with_columns(
            pl.Series(
                "official",
                [_is_official(ds, r) for r in out.select(by).iter_rows(named=True)],
                dtype=pl.Boolean,
            )
        )
        return out.select(
            [
                *by,
                "official",
                "games",
                "rounds",
                "rounds_sd",
                "winning_score",
                "spread",
                "seat0_share",
                "seat0_share_lo",
                "seat0_share_hi",
                "seat0_gap",
                "imbalance",
                "p_value",
                "tie_rate",
                "shared_rate",
                "truncated",
            ]
        ).sort(by)


def _is_official(ds, row):
    rules = ds.config.get("rules", {})
    length = row.get("rules.length", rules.get("length", "long"))
    copies = row.get("rules.deck_copies", rules.get("deck_copies", 1))
    official = official_deck(ds, length, int(row["players"]), copies)
    return official is not None and int(row["deck_size"]) == official


@register("deck")
class BestDeck(Metric):
    """Per player count: the deck size whose seats are most even."""

    name = "best_deck"
    title = "Most balanced deck size per player count"
    source = "result:deck_cells"
    note = (
        "best = deck size with the smallest imbalance (largest minus smallest seat win "
        "share); even_sizes = deck sizes whose chi-square test does not reject equal seats "
        "(p >= 0.05); official_* = the same numbers for the official deck size."
    )

    @classmethod
    def from_dataset(cls, ds):
        return cls(by=[k for k in _cell_keys(ds) if k != "deck_size"], dataset=ds)

    def compute(self, cells):
        rows = []
        for key, grp in cells.group_by(self.by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            if int(dict(zip(self.by, key))["players"]) < 2:
                continue
            g = grp.sort(["imbalance", "deck_size"])
            best = g.row(0, named=True)
            off = grp.filter(pl.col("official"))
            even = grp.filter(pl.col("p_value") >= 0.05)["deck_size"].sort().to_list()
            rows.append(
                {
                    **dict(zip(self.by, key)),
                    "deck_sizes": grp.height,
                    "best": int(best["deck_size"]),
                    "best_imbalance": best["imbalance"],
                    "best_seat0_gap": best["seat0_gap"],
                    "official": int(off["deck_size"][0]) if off.height else None,
                    "official_imbalance": off["imbalance"][0] if off.height else None,
                    "official_seat0_gap": off["seat0_gap"][0] if off.height else None,
                    "even_sizes": ", ".join(str(x) for x in even) or "none",
                }
            )
        if not rows:
            return None
        return pl.DataFrame(rows).sort(self.by)


def headlines(ds, results):
    best = results.get("best_deck")
    if best is None:
        return []
    out = []
    by = ds.group_cols(best.columns)
    for r in best.iter_rows(named=True):
        if r["deck_sizes"] < 2:
            continue
        s = (
            f"{cell_label(r, by)}: the most even seats come with a {r['best']}-card deck "
            f"(largest seat gap {pct(r['best_imbalance'])}, first-player gap "
            f"{100 * r['best_seat0_gap']:+.1f} points)"
        )
        if r["official"] is not None:
            s += (
                f"; the official {r['official']}-card deck has a largest gap of "
                f"{pct(r['official_imbalance'])}"
            )
        s += f"; deck sizes not distinguishable from even seats: {r['even_sizes']}."
        out.append(s)
    return out


def plots(ds, results):
    from .. import plots as P

    cells = results.get("deck_cells")
    if cells is None or cells["deck_size"].n_unique() < 2:
        return []
    extra = [c for c in cells.columns if c in ds.params and c not in ("players", "rules.deck_size")]
    if extra:  # one heatmap per combination of the other swept parameters would be many
        first = cells.select(extra).row(0, named=True)
        for k, v in first.items():
            cells = cells.filter(pl.col(k) == v)
    out = [
        (
            "First player's win share minus 1/n, by deck size and player count (framed: official deck size)",
            P.heatmap(
                cells, "players", "deck_size", "seat0_gap", title="seat-0 gap", mark="official", center=0.0
            ),
        ),
        (
            "Seat imbalance (largest minus smallest seat win share)",
            P.heatmap(cells, "players", "deck_size", "imbalance", title="imbalance", mark="official"),
        ),
        (
            "Rounds per game",
            P.heatmap(
                cells, "players", "deck_size", "rounds", title="rounds", percent=False, mark="official"
            ),
        ),
    ]
    return out


Q.headlines = headlines
Q.plots = plots
