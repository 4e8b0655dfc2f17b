"""Card ranks and card power (The Bloody Inn).

What happens to travellers of each rank (bribed, killed, buried, built), how often each
annex is built, and the win-share lift of building it: builders against non-builders *at
the same seat, player count and strategy* (and the same swept parameters), combined over those strata
with the builders' counts as weights.  A lift is an association, not a cause: good
positions both build more and win more, so read the ranking, not the size, as the signal.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..bloody_inn import annex_kinds
from ..metrics import Metric, question, register
from ..stats import Z95, permutation_p, spearman, wilson_exprs
from ..text import pct

Q = question("cards", "Card ranks and card power (Bloody Inn)", applies=lambda ds: ds.game == "bloody_inn")

_RANK_ACTIONS = ("bribed", "killed", "buried")


def _bit(i):
    return (pl.col("annex_mask").cast(pl.Int64) // (1 << i)) % 2


@register("cards")
class RankFlow(Metric):
    """Travellers bribed, killed and buried per game by rank, and annexes built by rank."""

    name = "rank_flow"
    title = "What happens to each rank (per game, all players together)"
    games = ("bloody_inn",)
    needs = ("annex_mask", "bribed_r0", "killed_r0", "buried_r0")
    note = (
        "mean count per game summed over the players; 'built' counts annexes of that "
        "rank (the Barn excluded); peasants are rank 0 but listed apart."
    )

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        aggs = [pl.col("game_id").n_unique().alias("games")]
        for what in _RANK_ACTIONS:
            for r in range(4):
                aggs.append(pl.col(f"{what}_r{r}").cast(pl.Int64).sum().alias(f"{what}_{r}"))
        for r in range(4):
            bits = [k["bit"] for k in kinds if k["rank"] == r]
            expr = pl.lit(0, dtype=pl.Int64)
            for b in bits:
                expr = expr + _bit(b)
            aggs.append(expr.sum().alias(f"built_{r}"))
        for c in ("peasants_bribed", "peasants_killed"):
            aggs.append(
                pl.col(c).cast(pl.Int64).sum().alias(c)
                if c in self.context["dataset"].seats_columns()
                else pl.lit(None, dtype=pl.Int64).alias(c)
            )
        # one group per (point, game) set: n_unique game_id per group needs the point too
        frame = seats.with_columns(
            (pl.col("point") + ":" + pl.col("game_id").cast(pl.String)).alias("game_id")
        )
        wide = frame.group_by(self.by).agg(aggs).sort(self.by).collect()
        rows = []
        for r in wide.iter_rows(named=True):
            g = r["games"]
            key = {k: r[k] for k in self.by}
            for rank in range(4):
                rows.append(
                    {
                        **key,
                        "rank": str(rank),
                        "games": g,
                        **{w: r[f"{w}_{rank}"] / g for w in _RANK_ACTIONS},
                        "built": r[f"built_{rank}"] / g,
                    }
                )
            rows.append(
                {
                    **key,
                    "rank": "peasant",
                    "games": g,
                    "bribed": (r["peasants_bribed"] or 0) / g,
                    "killed": (r["peasants_killed"] or 0) / g,
                    "buried": float("nan"),
                    "built": float("nan"),
                }
            )
        return pl.DataFrame(rows)


def _lift_aggs(kinds):
    aggs = [
        pl.len().alias("n"),
        pl.col("win").cast(pl.Float64).sum().alias("s"),
        (pl.col("win").cast(pl.Float64) ** 2).sum().alias("q"),
    ]
    for k in kinds:
        b = _bit(k["bit"]).cast(pl.Float64)
        w = pl.col("win").cast(pl.Float64)
        i = k["bit"]
        aggs += [b.sum().alias(f"n{i}"), (w * b).sum().alias(f"s{i}"), (w * w * b).sum().alias(f"q{i}")]
    return aggs


def _mean_var(n, s, q):
    """Mean and variance of the mean from count, sum and sum of squares."""
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s / n
        var = np.where(n > 1, (q - n * m * m) / np.maximum(n - 1, 1), 0.0) / n
    return m, np.maximum(var, 0.0)


def _lift_table(strata, kinds, z=Z95):
    """Combine per-stratum builder/non-builder means into one lift per annex kind."""
    n, s, q = (strata[c].to_numpy().astype(float) for c in ("n", "s", "q"))
    rows = []
    for k in kinds:
        i = k["bit"]
        nb, sb, qb = (strata[f"{c}{i}"].to_numpy() for c in ("n", "s", "q"))
        no, so, qo = n - nb, s - sb, q - qb
        ok = (nb > 0) & (no > 0)
        mb, vb = _mean_var(nb, sb, qb)
        mo, vo = _mean_var(no, so, qo)
        w = np.where(ok, nb, 0.0)
        wsum = w.sum()
        row = {
            "annex": k["annex"],
            "card": k["id"],
            "rank": k["rank"],
            "colour": k["colour"],
            "builders": int(nb.sum()),
            "others": int(no.sum()),
            "build_rate": float(nb.sum() / n.sum()) if n.sum() else float("nan"),
        }
        if wsum > 0:
            lift = float((w * (np.where(ok, mb, 0) - np.where(ok, mo, 0))).sum() / wsum)
            se = math.sqrt(float((w * w * np.where(ok, vb + vo, 0)).sum())) / wsum
            bshare = float((w * np.where(ok, mb, 0)).sum() / wsum)
            oshare = float((w * np.where(ok, mo, 0)).sum() / wsum)
            row.update(
                builders_share=bshare,
                others_share=oshare,
                lift=lift,
                lift_lo=lift - z * se,
                lift_hi=lift + z * se,
            )
        else:
            row.update(builders_share=None, others_share=None, lift=None, lift_lo=None, lift_hi=None)
        rows.append(row)
    return pl.DataFrame(
        rows,
        schema_overrides={
            c: pl.Float64
            for c in ("build_rate", "builders_share", "others_share", "lift", "lift_lo", "lift_hi")
        },
    )


@register("cards")
class AnnexBuildRate(Metric):
    """Share of player-games in which each annex was built, per player count."""

    name = "annex_build_rate"
    title = "Annex build rate per player count"
    games = ("bloody_inn",)
    needs = ("annex_mask",)
    note = "share of (game, player) pairs that built the annex (Wilson 95%)."

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        aggs = [pl.len().alias("seat_games")] + [_bit(k["bit"]).sum().alias(f"b{k['bit']}") for k in kinds]
        wide = seats.group_by(self.by).agg(aggs).sort(self.by).collect()
        names = {f"b{k['bit']}": k["annex"] for k in kinds}
        long = (
            wide.unpivot(index=[*self.by, "seat_games"], variable_name="b", value_name="built")
            .with_columns(pl.col("b").replace_strict(names).alias("annex"))
            .with_columns(*wilson_exprs("built", "seat_games", prefix="build_rate"))
        )
        return long.select(
            [*self.by, "annex", "seat_games", "built", "build_rate", "build_rate_lo", "build_rate_hi"]
        )


def _strata(by, seats):
    # compare like with like: same seat, player count, swept parameters and strategy
    cols = [*by, "seat"]
    if "strategy" in seats.collect_schema().names():
        cols.append("strategy")
    return cols


@register("cards")
class AnnexLift(Metric):
    """Win-share lift of building each annex (all player counts together), ranked."""

    name = "annex_lift"
    title = "Annex power: win-share lift of building it (ranked)"
    games = ("bloody_inn",)
    needs = ("annex_mask",)
    note = (
        "lift = win share of builders - win share of non-builders, compared within the "
        "same seat, player count, strategy and swept parameters and averaged with the "
        "builders' counts as weights; normal 95% interval. An association, not a cause."
    )

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        strata = seats.group_by(_strata(self.by, seats)).agg(_lift_aggs(kinds)).collect()
        return _lift_table(strata, kinds).sort(["lift", "annex"], descending=[True, False], nulls_last=True)


@register("cards")
class AnnexLiftByPlayers(Metric):
    """The same lift per player count (and swept parameters)."""

    name = "annex_lift_by_players"
    title = "Annex lift per player count"
    games = ("bloody_inn",)
    needs = ("annex_mask",)
    note = "as above, one row per annex and player count."

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        strata = seats.group_by(_strata(self.by, seats)).agg(_lift_aggs(kinds)).collect()
        parts = []
        for key, grp in strata.sort(self.by).group_by(self.by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            t = _lift_table(grp, kinds)
            parts.append(t.select([pl.lit(v).alias(k) for k, v in zip(self.by, key)] + [pl.all()]))
        return pl.concat(parts).sort(
            [*self.by, "lift"], descending=[False] * len(self.by) + [True], nulls_last=True
        )


@register("cards")
class RankPower(Metric):
    """Does cost track power?  Mean lift per rank and the Spearman correlation of rank and
    lift over the annexes (permutation p-value, fixed seed)."""

    name = "rank_power"
    title = "Does an annex's rank (its cost) track its power?"
    source = "result:annex_lift"
    games = ("bloody_inn",)
    needs = ("annex_mask",)
    note = (
        "mean lift of the annexes of each rank; spearman = rank correlation of rank and "
        "lift over all annexes, p_perm its two-sided permutation p-value (2000 shuffles, "
        "fixed seed)."
    )

    def compute(self, lift):
        t = lift.filter(pl.col("lift").is_finite())
        if t.height < 3:
            return None
        by_rank = (
            t.group_by("rank")
            .agg(
                pl.len().alias("annexes"),
                pl.col("lift").mean().alias("mean_lift"),
                pl.col("lift").min().alias("min_lift"),
                pl.col("lift").max().alias("max_lift"),
            )
            .sort("rank")
        )
        rho = spearman(t["rank"].to_numpy(), t["lift"].to_numpy())
        p = permutation_p(t["rank"].to_numpy(), t["lift"].to_numpy())
        return by_rank.with_columns(pl.lit(rho).alias("spearman"), pl.lit(p).alias("p_perm"))


@register("cards")
class CardEvents(Metric):
    """Per card kind (event logs only): how often each kind of event touches it."""

    name = "card_events"
    title = "Events per card kind (per game)"
    source = "events"
    games = ("bloody_inn",)
    needs = ("card_kind", "kind")
    note = "count of events of each kind naming the card, divided by the games."

    def compute(self, events):
        games = events.select(["point", "game_id"]).unique().select(pl.len()).collect().item()
        t = (
            events.filter(pl.col("card_kind").is_not_null() & (pl.col("card_kind") != ""))
            .group_by(["card_kind", "kind"])
            .agg(pl.len().alias("events"))
            .collect()
        )
        if t.is_empty():
            return None
        return (
            t.with_columns((pl.col("events") / games).alias("per_game"))
            .pivot(on="kind", index="card_kind", values="per_game")
            .fill_null(0.0)
            .sort("card_kind")
        )


#: the headlines rank only annexes built (and not built) at least this often
MIN_BUILDERS = 100


def headlines(ds, results):
    lift = results.get("annex_lift")
    if lift is None:
        return []
    t = lift.filter(
        pl.col("lift").is_finite() & (pl.col("builders") >= MIN_BUILDERS) & (pl.col("others") >= MIN_BUILDERS)
    )
    out = []
    if t.height:
        top = t.sort(["lift", "annex"], descending=[True, False]).head(3)
        low = t.sort(["lift", "annex"]).head(3)
        out.append(
            f"Most powerful annexes (win-share lift of building them against not, same "
            f"seat, player count and strategy; annexes built at least {MIN_BUILDERS} "
            "times): " + "; ".join(_lift_str(r) for r in top.iter_rows(named=True)) + "."
        )
        out.append("Least powerful: " + "; ".join(_lift_str(r) for r in low.iter_rows(named=True)) + ".")
    never = lift.filter(pl.col("builders") == 0)["annex"].to_list()
    rare = lift.filter((pl.col("builders") > 0) & (pl.col("builders") < MIN_BUILDERS))
    if never:
        out.append("Never built in these games: " + ", ".join(sorted(never)) + ".")
    if rare.height:
        out.append(
            f"Built fewer than {MIN_BUILDERS} times (too rare to rank; see the table): "
            + ", ".join(sorted(rare["annex"].to_list()))
            + "."
        )
    rp = results.get("rank_power")
    if rp is not None and rp.height:
        rho, p = rp["spearman"][0], rp["p_perm"][0]
        means = ", ".join(f"rank {r}: {_pp(m)}" for r, m in zip(rp["rank"], rp["mean_lift"]))
        verdict = (
            "cost tracks power"
            if p < 0.05 and rho > 0
            else "cost runs against power"
            if p < 0.05
            else "no clear link between cost and power"
        )
        out.append(
            f"Does rank track power? Mean lift by rank: {means}; Spearman rho = {rho:.2f} "
            f"(permutation p = {p:.4f}): {verdict}."
        )
    return out


def _pp(x):
    return f"{100 * x:+.1f} pts"


def _lift_str(r):
    return (
        f"{r['annex']} (rank {r['rank']}) {_pp(r['lift'])} "
        f"[{100 * r['lift_lo']:+.1f}, {100 * r['lift_hi']:+.1f}], built in "
        f"{pct(r['build_rate'])} of player-games"
    )


def plots(ds, results):
    from .. import plots as P

    lift = results.get("annex_lift")
    if lift is None or lift.filter(pl.col("lift").is_finite()).is_empty():
        return []
    return [("Annex lift (95% intervals)", P.lift_chart(lift))]


Q.headlines = headlines
Q.plots = plots
