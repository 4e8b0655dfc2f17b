"""Duration and economy: game length, score and money distributions (every game), and
money over rounds per strategy when the dataset has an event log."""

from __future__ import annotations

import polars as pl

from ..metrics import Metric, question, register
from ..stats import Z95, f64
from ..text import MAX_SENTENCES, answer_grid, cell_label, pct

Q = question("duration", "Duration and economy")

# Per-seat numeric columns summarised when present (Bloody Inn economy, Cluedo effort).
ECONOMY = (
    "cash",
    "cheques",
    "buried",
    "buried_money",
    "kills",
    "bribes",
    "builds",
    "fines",
    "wages",
    "turns_taken",
    "suggestions",
    "known_cards",
)


def _dist(col):
    x = f64(col)
    return [
        x.mean().alias(f"{col}_mean"),
        x.std().alias(f"{col}_sd"),
        x.quantile(0.05, "nearest").alias(f"{col}_p5"),
        x.median().alias(f"{col}_p50"),
        x.quantile(0.95, "nearest").alias(f"{col}_p95"),
        x.max().alias(f"{col}_max"),
    ]


@register("duration")
class GameLength(Metric):
    """Rounds and turns per game, and how many games hit the safety cap."""

    name = "game_length"
    title = "Game length"
    source = "games"
    note = (
        "rounds and turns (player actions) per game: mean, sd, 5th/50th/95th percentile, "
        "max; truncated = games stopped by the safety cap."
    )

    def compute(self, games):
        return (
            games.group_by(self.by)
            .agg(
                pl.len().alias("games"),
                *_dist("rounds"),
                f64("turns").mean().alias("turns_mean"),
                f64("truncated").mean().alias("truncated"),
            )
            .sort(self.by)
            .collect()
        )


@register("duration")
class RoundsHistogram(Metric):
    """Distribution of rounds per game."""

    name = "rounds_histogram"
    title = "Rounds per game (distribution)"
    source = "games"

    def compute(self, games):
        return (
            games.group_by([*self.by, "rounds"])
            .agg(pl.len().alias("games"))
            .with_columns((pl.col("games") / pl.col("games").sum().over(self.by)).alias("share"))
            .sort([*self.by, "rounds"])
            .collect()
        )


@register("duration")
class ScoreByStrategy(Metric):
    """Score distribution per strategy, and the winners' scores."""

    name = "score_by_strategy"
    title = "Scores by strategy"
    needs = ("strategy", "score")
    note = "score per seat-game: mean, sd, 5th/50th/95th percentile, max."

    def compute(self, seats):
        return (
            seats.group_by([*self.by, "strategy"])
            .agg(pl.len().alias("seat_games"), *_dist("score"))
            .sort([*self.by, "strategy"])
            .collect()
        )


@register("duration")
class Economy(Metric):
    """Means of the game's economy columns per strategy (whatever the game writes)."""

    name = "economy"
    title = "Economy per strategy (means per seat-game)"
    needs = ("strategy",)

    def compute(self, seats):
        cols = [c for c in ECONOMY if c in seats.collect_schema().names()]
        if not cols:
            return None
        return (
            seats.group_by([*self.by, "strategy"])
            .agg(pl.len().alias("seat_games"), *[f64(c).mean().alias(c) for c in cols])
            .sort([*self.by, "strategy"])
            .collect()
        )


@register("duration")
class MoneyOverRounds(Metric):
    """Event logs only: mean money (cash + 10 x cheques) at the end of each round by
    strategy."""

    name = "money_over_rounds"
    title = "Money over rounds per strategy (event logs)"
    source = "events"
    needs = ("round", "cash", "cheques", "seat", "seq")
    note = (
        "money = cash + 10 x cheques after the seat's last event of the round; rounds a "
        "seat had no event in are left out."
    )

    def compute(self, events):
        # cash/cheques of -1 mark events that carry no money reading
        last = (
            events.filter((pl.col("seat") >= 0) & (pl.col("cash") >= 0) & (pl.col("cheques") >= 0))
            .sort(["point", "game_id", "seq"])
            .group_by(["point", "game_id", "round", "seat"])
            .agg(
                pl.col("strategy").last(),
                pl.col("players").last(),
                *[pl.col(p).last() for p in self.by if p != "players"],
                (f64("cash") + 10.0 * f64("cheques")).last().alias("money"),
            )
        )
        return (
            last.group_by([*self.by, "strategy", "round"])
            .agg(pl.len().alias("seat_games"), pl.col("money").mean().alias("money"))
            .sort([*self.by, "strategy", "round"])
            .collect()
        )


def headlines(ds, results):
    t = results.get("game_length")
    if t is None:
        return []
    by = ds.group_cols(t.columns)
    if t.height > MAX_SENTENCES:
        rows = list(t.iter_rows(named=True))
        grid = answer_grid(
            rows,
            by,
            lambda r: f"{r['rounds_mean']:.1f} ({r['rounds_p5']:.0f}-{r['rounds_p95']:.0f})",
            "Mean rounds per game (5th-95th percentile), per cell of the sweep.",
        )
        lo = min(rows, key=lambda r: r["rounds_mean"])
        hi = max(rows, key=lambda r: r["rounds_mean"])
        s = (
            f"Games last from {lo['rounds_mean']:.1f} rounds on average ({cell_label(lo, by)}) to "
            f"{hi['rounds_mean']:.1f} ({cell_label(hi, by)})"
        )
        cap = [r for r in rows if r["truncated"] > 0]
        s += f"; {len(cap)} cells have games stopped by the safety cap." if cap else "."
        return [grid, s]
    out = []
    for r in t.iter_rows(named=True):
        s = f"{cell_label(r, by)}: a game lasts {r['rounds_mean']:.1f} rounds on average " + (
            f"(90% of games between {r['rounds_p5']:.0f} and {r['rounds_p95']:.0f})"
            if round(r["rounds_p5"]) != round(r["rounds_p95"])
            else f"(90% of games last {r['rounds_p5']:.0f} rounds)"
        )
        if r["truncated"] > 0:
            s += f"; {pct(r['truncated'], 2)} of games hit the safety cap"
        out.append(s + ".")
    return out


def plots(ds, results):
    from .. import plots as P

    out = []
    h = results.get("rounds_histogram")
    if h is not None and h.height:
        others = [c for c in ds.group_cols(h.columns) if c != "players"]
        caption = "Rounds per game"
        if others:  # pooled over the other swept parameters (the table has every cell)
            h = (
                h.group_by(["players", "rounds"])
                .agg(pl.col("games").sum())
                .with_columns((pl.col("games") / pl.col("games").sum().over("players")).alias("share"))
                .sort(["players", "rounds"])
            )
            caption += f" (every {', '.join(others)} pooled per player count; the table has each cell)"
        out.append(
            (
                caption,
                P.histogram(
                    h,
                    "rounds",
                    "share",
                    group="players" if h["players"].n_unique() > 1 else None,
                    xlabel="rounds",
                ),
            )
        )
    m = results.get("money_over_rounds")
    if m is not None and m.height:
        first = m.select(ds.group_cols(m.columns)).row(0, named=True)
        sub = m
        for k, v in first.items():
            sub = sub.filter(pl.col(k) == v)
        more = m.select(ds.group_cols(m.columns)).n_unique() > 1
        out.append(
            (
                "Money over rounds (mean cash + 10 x cheques)"
                + (f" ({cell_label(first, list(first))} only; the table has every group)" if more else ""),
                P.lines(sub, "round", "money", "strategy", ylabel="money (F)"),
            )
        )
    return out


Q.headlines = headlines
Q.plots = plots


def key_numbers(ds, results):
    """Mean rounds per game per player count, with a normal 95% interval (a level: no
    sign to keep across a ladder)."""
    t = results.get("game_length")
    if t is None:
        return []
    by = ds.group_cols(t.columns)
    out = []
    for r in t.iter_rows(named=True):
        h = Z95 * (r["rounds_sd"] or 0.0) / max(r["games"], 1) ** 0.5
        out.append(
            {
                "key": f"rounds per game, {cell_label(r, by).lower()}",
                "estimate": r["rounds_mean"],
                "lo": r["rounds_mean"] - h,
                "hi": r["rounds_mean"] + h,
                "games": r["games"],
                "unit": "rounds",
                "zero": False,
                "digits": 2,
            }
        )
    return out


Q.key_numbers = key_numbers
