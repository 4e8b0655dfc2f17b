"""Deck size by player count (games with a ``deck_size`` column: The Bloody Inn).

Read from a sweep over deck size x players: per cell the game length, the winning score,
the score spread, the first player's advantage and the tie rate, with the official deck
sizes (rule BI-S2) marked, and per player count the deck size that makes seats most even.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..game_facts import official_deck
from ..metrics import Metric, question, register
from ..stats import best_set, chi2_equal, equivalence_p, f64, holm, imbalance_bootstrap, wilson_exprs
from ..text import AnswerTable, cell_label, pct


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
        "equal seats, p_holm the same Holm-adjusted across every cell of the sweep; "
        "equiv_p = equivalence test (two one-sided tests, every seat within +/- margin of "
        "1/n), equiv_p_holm Holm-adjusted, even = equivalence shown (equiv_p_holm < 0.05); "
        "tie_rate = games whose top score was tied before the tiebreak; "
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
            .agg(pl.len().alias("n"), f64("win").sum().alias("wins"), (f64("win") ** 2).sum().alias("q"))
            .sort([*by, "seat"])
            .collect()
        )
        margin = float(self.context.get("options", {}).get("equivalence_margin", 0.01))
        rows = []
        for key, grp in seat.group_by(by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            n = grp["n"].to_numpy().astype(float)
            wins = grp["wins"].to_numpy()
            shares = wins / n
            # one seat per game: the games of a cell are independent draws for each seat
            se = np.sqrt(np.maximum(grp["q"].to_numpy() / n - shares**2, 0.0) / np.maximum(n - 1, 1))
            _, _, p = chi2_equal(wins)
            fair = 1.0 / n.size
            # intersection-union: the cell is even when every seat is within the margin
            eq = float(np.max(equivalence_p(shares - fair, se, margin))) if n.size > 1 else float("nan")
            s0 = grp.filter(pl.col("seat") == 0)
            rows.append(
                {
                    **dict(zip(by, key)),
                    "seat0_wins": float(s0["wins"][0]),
                    "imbalance": float(shares.max() - shares.min()),
                    "p_value": p,
                    "equiv_p": eq,
                    "margin": margin,
                }
            )
        seat_cells = pl.DataFrame(rows)
        # Holm across every cell of the sweep (the family of claims the report makes)
        seat_cells = seat_cells.with_columns(
            pl.Series("p_holm", holm(seat_cells["p_value"].to_numpy())),
            pl.Series("equiv_p_holm", holm(seat_cells["equiv_p"].to_numpy())),
        ).with_columns((pl.col("equiv_p_holm") < 0.05).fill_null(False).alias("even"))
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
                "p_holm",
                "equiv_p",
                "equiv_p_holm",
                "even",
                "margin",
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


#: bootstrap replicates behind "best deck" (its Monte Carlo error is printed with it)
N_BOOT = 1000


@register("deck")
class BestDeck(Metric):
    """Per player count: the deck sizes not detectably less even than the most even one,
    each deck's probability of being the most even, and the decks shown to be even."""

    name = "best_deck"
    title = "Most balanced deck sizes per player count"
    source = "result:deck_cells"
    note = (
        "imbalance = largest minus smallest seat win share; best = smallest observed "
        "imbalance; best_set = deck sizes not detectably worse than it (paired bootstrap "
        f"over game ids, {N_BOOT} replicates, Bonferroni over the comparisons: the truly "
        "most even deck is in the set at least 95% of the time); p_best = share of "
        "replicates in which each deck is the most even (Monte Carlo error up to "
        f"{100 * 0.5 / N_BOOT**0.5:.1f} pts); even_sizes = decks whose seats are shown to "
        "be within the margin of 1/n (equivalence test, Holm across the sweep). The sweep's "
        "points share one seed: the bootstrap resamples each game id in every cell together."
    )

    @classmethod
    def from_dataset(cls, ds):
        return cls(by=[k for k in _cell_keys(ds) if k != "deck_size"], dataset=ds)

    def compute(self, cells):
        ds = self.context["dataset"]
        seats = ds.seats
        if not _has_deck_column(ds):
            seats = seats.with_columns(pl.col("rules.deck_size").alias("deck_size"))
        keys = [*self.by, "deck_size"]
        wins = (
            seats.select([*keys, "game_id", "seat", pl.col("win").cast(pl.Float64)])
            .collect()
            .sort([*keys, "game_id", "seat"])
        )
        rows = []
        for key, grp in cells.group_by(self.by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            group = dict(zip(self.by, key))
            players = int(group["players"])
            if players < 2:
                continue
            grp = grp.sort("deck_size")
            cond = pl.all_horizontal([pl.col(k) == v for k, v in group.items()])
            sub = wins.filter(cond)
            ids = sub["game_id"].unique().sort()
            arrays, games = [], []
            for d in grp["deck_size"].to_list():
                cell = sub.filter(pl.col("deck_size") == d)
                gid = cell["game_id"].to_numpy()[::players]
                arrays.append(cell["win"].to_numpy().reshape(-1, players))
                games.append(np.searchsorted(ids.to_numpy(), gid))
            boots = imbalance_bootstrap(arrays, games, ids.len(), n_boot=N_BOOT)
            best, in_set, prob = best_set(grp["imbalance"].to_numpy(), boots)
            decks = grp["deck_size"].to_list()
            off = grp.filter(pl.col("official"))
            even = grp.filter(pl.col("even"))["deck_size"].to_list()
            b = grp.row(best, named=True)
            rows.append(
                {
                    **group,
                    "deck_sizes": grp.height,
                    "best": int(b["deck_size"]),
                    "best_imbalance": b["imbalance"],
                    "best_seat0_gap": b["seat0_gap"],
                    "p_best": float(prob[best]),
                    "best_set": ", ".join(str(d) for d, ok in zip(decks, in_set) if ok),
                    "p_best_all": " ".join(f"{d}:{100 * p:.0f}%" for d, p in zip(decks, prob) if p >= 0.005),
                    "official": int(off["deck_size"][0]) if off.height else None,
                    "official_imbalance": off["imbalance"][0] if off.height else None,
                    "official_seat0_gap": off["seat0_gap"][0] if off.height else None,
                    "official_in_set": bool(in_set[decks.index(off["deck_size"][0])]) if off.height else None,
                    "even_sizes": ", ".join(str(x) for x in even) or "none",
                    "margin": float(grp["margin"][0]),
                }
            )
        if not rows:
            return None
        return pl.DataFrame(rows).sort(self.by)


def headlines(ds, results):
    """One compact table (a row per player count) and the sentences that matter."""
    best = results.get("best_deck")
    if best is None:
        return []
    by = ds.group_cols(best.columns)
    rows = [r for r in best.iter_rows(named=True) if r["deck_sizes"] >= 2]
    if not rows:
        return []
    margin = rows[0]["margin"]
    table = pl.DataFrame(
        [
            {
                "cell": cell_label(r, by),
                "official deck": "n/a"
                if r["official"] is None
                else f"{r['official']} (gap {100 * r['official_imbalance']:.1f} pts"
                + ("" if r["official_in_set"] else ", detectably worse")
                + ")",
                "most even (chance best)": f"{r['best']} ({pct(r['p_best'], 0)})",
                "not detectably worse": r["best_set"],
                f"even within ±{100 * margin:.0f} pt": r["even_sizes"],
            }
            for r in rows
        ]
    )
    out = [
        AnswerTable(
            table,
            "Deck size: gap = largest minus smallest seat win share; 'most even' is the "
            "smallest observed gap and the share of bootstrap replicates in which it is "
            "smallest; 'not detectably worse' = decks the bootstrap cannot tell from it; "
            f"'even' = every seat shown within ±{100 * margin:.0f} pt of 1/n (equivalence "
            "test, Holm across the sweep).",
        )
    ]
    none_even = [cell_label(r, by) for r in rows if r["even_sizes"] == "none"]
    if none_even:
        out.append(
            f"No deck size is shown to give even seats (within ±{100 * margin:.0f} pt) at: "
            + "; ".join(none_even)
            + "."
        )
    worse = [f"{cell_label(r, by)} ({r['official']} cards)" for r in rows if r["official_in_set"] is False]
    if worse:
        out.append(
            "The official deck is detectably less even than the most even deck at: " + "; ".join(worse) + "."
        )
    split = [r for r in rows if r["p_best"] < 0.5]
    if split:
        out.append(
            "No single deck size is clearly the most even at "
            + "; ".join(f"{cell_label(r, by)} (best in {pct(r['p_best'], 0)} of replicates)" for r in split)
            + ": read the set, not the winner."
        )
    return out


def plots(ds, results):
    from .. import plots as P

    cells = results.get("deck_cells")
    if cells is None or cells["deck_size"].n_unique() < 2:
        return []
    extra = [c for c in cells.columns if c in ds.params and c not in ("players", "rules.deck_size")]
    shown = ""
    if extra:  # one heatmap per combination of the other swept parameters would be many
        first = cells.select(extra).row(0, named=True)
        for k, v in first.items():
            cells = cells.filter(pl.col(k) == v)
        shown = (
            " Only "
            + ", ".join(f"{k}={v}" for k, v in first.items())
            + " is drawn; the table has every cell."
        )
    cells = cells.with_columns(
        (pl.col("seat0_share_lo") - 1.0 / f64("players")).alias("_gap_lo"),
        (pl.col("seat0_share_hi") - 1.0 / f64("players")).alias("_gap_hi"),
    ).join(_imbalance_intervals(ds, cells), on=["players", "deck_size"], how="left")
    frame = " Framed: the official deck size (BI-S2)."
    return [
        (
            "First player's win share minus 1/n, in pts, by deck size and player count, each "
            "cell with its 95% interval (Wilson)." + frame + shown,
            P.heatmap(
                cells,
                "players",
                "deck_size",
                "seat0_gap",
                title="first-player gap (pts)",
                percent=True,
                mark="official",
                center=0.0,
                unit="pts",
                interval=("_gap_lo", "_gap_hi"),
            ),
        ),
        (
            "Seat imbalance (largest minus smallest seat win share), in pts, each cell with a "
            "95% interval for the true imbalance (Wilson intervals simultaneous over the seats)."
            + frame
            + shown,
            P.heatmap(
                cells,
                "players",
                "deck_size",
                "imbalance",
                title="imbalance (pts)",
                mark="official",
                unit="pts",
                interval=("_imb_lo", "_imb_hi"),
            ),
        ),
        (
            "Mean rounds per game." + frame + shown,
            P.heatmap(
                cells, "players", "deck_size", "rounds", title="rounds", percent=False, mark="official"
            ),
        ),
    ]


def _imbalance_intervals(ds, cells):
    """Per drawn cell (players, deck size) the imbalance's interval from the seats' wins
    (:func:`analysis.verdicts.spread_interval`: it holds though a game's seats depend)."""
    from ..verdicts import spread_interval

    seats = ds.seats
    if not _has_deck_column(ds):
        seats = seats.with_columns(pl.col("rules.deck_size").alias("deck_size"))
    other = [
        c for c in cells.columns if c in ds.params and c not in ("players", "deck_size", "rules.deck_size")
    ]
    keep = cells.select("players", "deck_size", *other)
    wins = (
        seats.group_by(["players", "deck_size", *keep.columns[2:], "seat"])
        .agg(pl.len().alias("n"), f64("win").sum().alias("w"))
        .collect()
        .join(keep, on=keep.columns, how="semi")
        .sort(["players", "deck_size", "seat"])
    )
    rows = []
    for (p, d), g in wins.group_by(["players", "deck_size"], maintain_order=True):
        _, lo, hi = spread_interval(g["w"].to_list(), g["n"].to_list())
        rows.append({"players": p, "deck_size": d, "_imb_lo": lo, "_imb_hi": hi})
    schema = {"_imb_lo": pl.Float64, "_imb_hi": pl.Float64}
    out = pl.DataFrame(rows, schema_overrides=schema) if rows else None
    if out is None:
        return pl.DataFrame(
            schema={"players": cells["players"].dtype, "deck_size": cells["deck_size"].dtype, **schema}
        )
    return out.cast({"players": cells["players"].dtype, "deck_size": cells["deck_size"].dtype})


Q.headlines = headlines
Q.plots = plots


def why_not(ds):
    """One line when the dataset cannot answer the question."""
    if _applies(ds):
        return None
    return "not answered: every game used the same deck size (a sweep over rules.deck_size answers it)."


Q.why_not = why_not
