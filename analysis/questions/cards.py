"""Card ranks and card power (The Bloody Inn).

What happens to travellers of each rank (bribed, killed, buried, built), how often each
annex is built, and the win-share lift of building it: builders against non-builders *at
the same seat, player count and strategy* (and the same swept parameters), combined over those strata
with the builders' counts as weights.  A lift is an association, not a cause: good
positions both build more and win more, so read the ranking, not the size, as the signal.
"""

from __future__ import annotations

import math

import polars as pl

from ..game_facts import annex_kinds
from ..metrics import Metric, asked_by_game, question, register
from ..stats import (
    N_PERM,
    Z95,
    clustered_wilson,
    influence_diff,
    mc_error,
    meta_regression,
    permutation_p,
    spearman,
    stratified_lift,
    weighted_mean,
)
from ..text import join_names, pct, pts_ci, pval_mc

Q = question("cards", "Card ranks and card power", applies=asked_by_game("cards"))

_RANK_ACTIONS = ("bribed", "killed", "buried")

#: the headlines rank (and rank-vs-power uses) only annexes built and not built at least
#: this often
MIN_BUILDERS = 100


def _bit(i):
    return (pl.col("annex_mask").cast(pl.Int64) // (1 << i)) % 2


@register("cards")
class RankFlow(Metric):
    """Travellers bribed, killed and buried per game by rank, and annexes built by rank."""

    name = "rank_flow"
    title = "What happens to each rank (per game, all players together)"
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


#: below this many builders (or non-builders) no interval is shown: the stratified
#: estimate is too noisy to be useful (docs/analysis.md gives the measured coverage)
MIN_INTERVAL_BUILDERS = 20


def _lift_arrays(seats, strata_cols):
    """The columns a lift needs, as NumPy arrays: win, annex mask, stratum id, game id."""
    df = (
        seats.select([*strata_cols, "point", "game_id", "win", "annex_mask"])
        .with_columns(
            (pl.struct(strata_cols).rank("dense") - 1).cast(pl.Int64).alias("_stratum"),
            (pl.struct(["point", "game_id"]).rank("dense") - 1).cast(pl.Int64).alias("_game"),
        )
        .collect()
    )
    return df


def _lift_table(df, kinds, z=Z95):
    """One lift per annex kind (stratified, game-clustered; see ``stats.stratified_lift``)
    and, for the annexes ranked in the headlines, the difference to the next one down."""
    win = df["win"].cast(pl.Float64).to_numpy()
    mask = df["annex_mask"].cast(pl.Int64).to_numpy()
    stratum = df["_stratum"].to_numpy()
    game = df["_game"].to_numpy()
    n_games, n_strata = int(game.max()) + 1, int(stratum.max()) + 1
    n_total = win.size
    rows, infl = [], {}
    for k in kinds:
        built = (mask >> k["bit"]) & 1 == 1
        r = stratified_lift(win, built, stratum, game, n_games, n_strata, z)
        row = {
            "annex": k["annex"],
            "card": k["id"],
            "rank": k["rank"],
            "colour": k["colour"],
            "builders": r["builders"],
            "others": r["others"],
            "build_rate": r["builders"] / n_total if n_total else float("nan"),
            "builders_share": r["builders_share"],
            "others_share": r["others_share"],
            "lift": r["lift"],
            "lift_lo": r["lift_lo"],
            "lift_hi": r["lift_hi"],
            "se": r["se"],
            "why_no_interval": None,
        }
        if r["builders"] == 0:
            row["why_no_interval"] = "never built"
        elif not math.isfinite(r["lift"]):
            row["why_no_interval"] = "no stratum with both builders and non-builders"
        elif min(r["builders"], r["others"]) < MIN_INTERVAL_BUILDERS:
            row["why_no_interval"] = f"fewer than {MIN_INTERVAL_BUILDERS} builders"
        if row["why_no_interval"]:
            row.update(lift_lo=None, lift_hi=None, se=None)
        else:
            infl[k["annex"]] = r["influence"]
        rows.append(row)
    t = pl.DataFrame(
        rows,
        schema_overrides={
            c: pl.Float64
            for c in ("build_rate", "builders_share", "others_share", "lift", "lift_lo", "lift_hi", "se")
        }
        | {"why_no_interval": pl.String},
    ).with_columns(pl.col(c).fill_nan(None) for c in ("builders_share", "others_share", "lift"))
    return _with_next_gap(t, infl, z)


def _with_next_gap(t, infl, z=Z95):
    """Add ``vs_next``/``vs_next_lo``/``vs_next_hi``: among the annexes ranked in the
    headlines, the difference of the lift to the next annex down the ranking, with its
    game-clustered interval (the two lifts share their games)."""
    ranked = (
        t.filter(
            (pl.col("builders") >= MIN_BUILDERS)
            & (pl.col("others") >= MIN_BUILDERS)
            & pl.col("se").is_not_null()
        )
        .sort(["lift", "annex"], descending=[True, False])
        .select("annex", "lift")
        .rows()
    )
    gaps = {}
    for (a, la), (b, lb) in zip(ranked, ranked[1:]):
        d, lo, hi, _ = influence_diff(la, infl[a], lb, infl[b], z)
        gaps[a] = (b, d, lo, hi)
    return t.with_columns(
        pl.Series("next_annex", [gaps.get(a, (None,) * 4)[0] for a in t["annex"]], dtype=pl.String),
        *[
            pl.Series(name, [gaps.get(a, (None,) * 4)[i] for a in t["annex"]], dtype=pl.Float64)
            for i, name in ((1, "vs_next"), (2, "vs_next_lo"), (3, "vs_next_hi"))
        ],
    )


@register("cards")
class AnnexBuildRate(Metric):
    """Share of player-games in which each annex was built, per player count."""

    name = "annex_build_rate"
    title = "Annex build rate per player count"
    needs = ("annex_mask",)
    note = "share of (game, player) pairs that built the annex (Wilson 95%, game-clustered)."

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        per_game = seats.group_by([*self.by, "point", "game_id"]).agg(
            [pl.len().cast(pl.Float64).alias("_n")]
            + [_bit(k["bit"]).cast(pl.Float64).sum().alias(f"b{k['bit']}") for k in kinds]
        )
        aggs = [
            pl.col("_n").sum().alias("_n"),
            (pl.col("_n") ** 2).sum().alias("_nn"),
            pl.len().alias("_g"),
        ]
        for k in kinds:
            b = pl.col(f"b{k['bit']}")
            aggs += [
                b.sum().alias(f"s{k['bit']}"),
                (b * b).sum().alias(f"ss{k['bit']}"),
                (b * pl.col("_n")).sum().alias(f"sn{k['bit']}"),
            ]
        wide = per_game.group_by(self.by).agg(aggs).sort(self.by).collect()
        parts = []
        for k in kinds:
            i = k["bit"]
            p, lo, hi, _ = clustered_wilson(
                wide["_n"], wide[f"s{i}"], wide[f"ss{i}"], wide[f"sn{i}"], wide["_nn"], wide["_g"]
            )
            parts.append(
                wide.select(
                    [
                        *self.by,
                        pl.col("_n").cast(pl.Int64).alias("seat_games"),
                        pl.col(f"s{i}").cast(pl.Int64).alias("built"),
                    ]
                ).with_columns(
                    pl.lit(k["annex"]).alias("annex"),
                    pl.Series("build_rate", p),
                    pl.Series("build_rate_lo", lo),
                    pl.Series("build_rate_hi", hi),
                )
            )
        return pl.concat(parts).select(
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
    title = "Annex lift: win share of builders minus non-builders (an association, ranked)"
    needs = ("annex_mask",)
    note = (
        "lift = win share of builders - win share of non-builders, compared within the "
        "same seat, player count, strategy and swept parameters and averaged with the "
        "builders' counts as weights. 95% interval: Newcombe (Wilson-based) for the two "
        "stratified shares, scaled by the game-clustered design effect; none below "
        f"{MIN_INTERVAL_BUILDERS} builders (why_no_interval). vs_next = difference to the "
        "next annex down among those built at least "
        f"{MIN_BUILDERS} times (game-clustered interval). An association, not a cause."
    )

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        df = _lift_arrays(seats, _strata(self.by, seats))
        return _lift_table(df, kinds).sort(["lift", "annex"], descending=[True, False], nulls_last=True)


@register("cards")
class AnnexLiftByPlayers(Metric):
    """The same lift per player count (and swept parameters)."""

    name = "annex_lift_by_players"
    title = "Annex lift per player count (an association)"
    needs = ("annex_mask",)
    note = "as above, one row per annex and player count."

    def compute(self, seats):
        kinds = annex_kinds(self.context["dataset"].config)
        df = _lift_arrays(seats, _strata(self.by, seats))
        parts = []
        for key, grp in df.sort(self.by).group_by(self.by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            grp = grp.with_columns(
                (pl.col("_stratum").rank("dense") - 1).cast(pl.Int64),
                (pl.col("_game").rank("dense") - 1).cast(pl.Int64),
            )
            t = _lift_table(grp, kinds)
            parts.append(t.select([pl.lit(v).alias(k) for k, v in zip(self.by, key)] + [pl.all()]))
        return pl.concat(parts).sort(
            [*self.by, "lift"], descending=[False] * len(self.by) + [True], nulls_last=True
        )


@register("cards")
class RankPower(Metric):
    """Does cost track power?  Over the annexes built (and not built) at least
    ``MIN_BUILDERS`` times: the inverse-variance weighted mean lift per rank, a
    meta-regression of lift on rank weighted by 1/SE², and the Spearman correlation with a
    permutation p-value."""

    name = "rank_power"
    title = "Does an annex's rank (its cost) track its lift?"
    source = "result:annex_lift"
    needs = ("annex_mask",)
    note = (
        f"only annexes built and not built at least {MIN_BUILDERS} times (the headline "
        "threshold); mean_lift = random-effects mean lift of the rank's annexes "
        "(DerSimonian-Laird between-annex variance, Hartung-Knapp interval; empty for a rank "
        "with one annex: the spread between annexes cannot be estimated from one); tau = the "
        "annexes' spread around the rank line beyond their sampling error; slope = change "
        "in lift per rank step, random-effects meta-regression (weights 1/(SE² + tau²), "
        "Hartung-Knapp t interval); spearman over the same annexes, p_perm its permutation "
        f"p-value ({N_PERM} shuffles, fixed seed) and p_perm_mc that p-value's Monte Carlo "
        "error."
    )

    def compute(self, lift):
        t = lift.filter(
            pl.col("lift").is_not_null()
            & pl.col("se").is_not_null()
            & (pl.col("builders") >= MIN_BUILDERS)
            & (pl.col("others") >= MIN_BUILDERS)
        )
        if t.height < 3:
            return None
        rows = []
        for (rank,), grp in t.sort("rank").group_by(["rank"], maintain_order=True):
            m, lo, hi = weighted_mean(grp["lift"].to_numpy(), grp["se"].to_numpy())
            if grp.height < 2:  # one annex says nothing of the spread between a rank's annexes
                m = lo = hi = None
            rows.append(
                {
                    "rank": rank,
                    "annexes": grp.height,
                    "mean_lift": m,
                    "mean_lift_lo": lo,
                    "mean_lift_hi": hi,
                    "min_lift": grp["lift"].min(),
                    "max_lift": grp["lift"].max(),
                }
            )
        x, y, se = (t[c].to_numpy().astype(float) for c in ("rank", "lift", "se"))
        reg = meta_regression(x, y, se)
        rho = spearman(x, y)
        p = permutation_p(x, y)
        schema = {c: pl.Float64 for c in ("mean_lift", "mean_lift_lo", "mean_lift_hi")}
        return pl.DataFrame(rows, schema_overrides=schema).with_columns(
            pl.lit(reg["tau"]).alias("tau"),
            pl.lit(reg["slope"]).alias("slope"),
            pl.lit(reg["slope_lo"]).alias("slope_lo"),
            pl.lit(reg["slope_hi"]).alias("slope_hi"),
            pl.lit(reg["p_value"]).alias("p_value"),
            pl.lit(rho).alias("spearman"),
            pl.lit(p).alias("p_perm"),
            pl.lit(mc_error(p, N_PERM)).alias("p_perm_mc"),
            pl.lit(t.height).alias("annexes_used"),
            pl.lit(lift.height - t.height).alias("annexes_left_out"),
        )


@register("cards")
class CardEvents(Metric):
    """Per card kind (event logs only): how often each kind of event touches it."""

    name = "card_events"
    title = "Events per card kind (per game)"
    source = "events"
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


def _ranked(lift):
    return lift.filter(
        pl.col("lift").is_not_null()
        & pl.col("lift_lo").is_not_null()
        & (pl.col("builders") >= MIN_BUILDERS)
        & (pl.col("others") >= MIN_BUILDERS)
    ).sort(["lift", "annex"], descending=[True, False])


def _separated(row):
    lo, hi = row["vs_next_lo"], row["vs_next_hi"]
    return lo is not None and (lo > 0 or hi < 0)


def _end_sentence(rows, which):
    """The top (or bottom) of the ranking: one annex when its lift separates from the
    next one's, else the leading group that cannot be told apart."""
    if which == "top":
        group = [rows[0]]
        while len(group) < len(rows) and not _separated(group[-1]):
            group.append(rows[len(group)])
        gap_row = group[-1]
        word = "Largest"
    else:
        group = [rows[-1]]
        while len(group) < len(rows) and not _separated(rows[len(rows) - len(group) - 1]):
            group.append(rows[len(rows) - len(group) - 1])
        gap_row = rows[len(rows) - len(group) - 1] if len(group) < len(rows) else None
        word = "Smallest"
    head = (
        f"{word} lift of building an annex on winning (builders' win share minus "
        "non-builders', same seat, player count and strategy: an association, not a causal "
        "effect): "
    )
    if len(group) == len(rows):
        return head + f"none of the {len(rows)} ranked annexes separates from the others."
    if len(group) == 1:
        r = group[0]
        nxt = gap_row["next_annex"] if which == "top" else gap_row["annex"]
        d = (gap_row["vs_next"], gap_row["vs_next_lo"], gap_row["vs_next_hi"])
        return (
            head
            + f"{_lift_str(r)}; {'above the next' if which == 'top' else 'below the next one up'} ({nxt}) by "
            f"{pts_ci(*d)}."
        )
    shown = group[:4]
    names = [r["annex"] for r in shown] + ([f"{len(group) - 4} more"] if len(group) > 4 else [])
    names = join_names(names)
    return (
        head
        + f"{names}, indistinguishable (no lift separates from the next one's): "
        + "; ".join(_lift_str(r) for r in shown)
        + "."
    )


def headlines(ds, results):
    lift = results.get("annex_lift")
    if lift is None:
        return []
    out = []
    rows = list(_ranked(lift).iter_rows(named=True))
    if len(rows) >= 2:
        out.append(_end_sentence(rows, "top"))
        out.append(_end_sentence(rows, "bottom"))
    elif rows:
        out.append(
            f"Only one annex was built (and not built) at least {MIN_BUILDERS} times, so a ranking "
            f"cannot be estimated: {_lift_str(rows[0])}."
        )
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
        r0 = rp.row(0, named=True)
        means = ", ".join(_rank_mean(r) for r in rp.iter_rows(named=True))
        tau = f", tau = {100 * r0['tau']:.1f} pts" if math.isfinite(r0["tau"]) else ""
        lo, hi = r0["slope_lo"], r0["slope_hi"]
        verdict = (
            "a higher rank goes with a larger lift"
            if lo > 0
            else "a higher rank goes with a smaller lift"
            if hi < 0
            else "no detectable link between rank and lift"
        )
        out.append(
            f"Does rank (cost) track the lift? Over the {r0['annexes_used']} annexes built "
            f"at least {MIN_BUILDERS} times, the lift changes by "
            f"{pts_ci(r0['slope'], lo, hi)} per rank step (random-effects meta-regression "
            f"weighted by 1/(SE² + tau²){tau}): {verdict}; mean lift "
            f"by rank: {means}; Spearman rho = "
            f"{r0['spearman']:.2f} ({pval_mc(r0['p_perm'], N_PERM)})."
        )
    return out


def _rank_mean(r):
    """A rank's mean lift, or why it has none (one annex: its own sampling interval would
    leave out the spread between annexes)."""
    if r["mean_lift"] is None or r["mean_lift_lo"] is None:
        return f"rank {r['rank']}: cannot be estimated (one annex)"
    return f"rank {r['rank']}: {pts_ci(r['mean_lift'], r['mean_lift_lo'], r['mean_lift_hi'])}"


def _lift_str(r):
    return (
        f"{r['annex']} (rank {r['rank']}) {pts_ci(r['lift'], r['lift_lo'], r['lift_hi'])}, "
        f"built in {pct(r['build_rate'])} of player-games"
    )


def plots(ds, results):
    from .. import plots as P

    lift = results.get("annex_lift")
    if lift is None or lift.filter(pl.col("lift").is_not_null()).is_empty():
        return []
    return [
        (
            "Annex lift, an association not a cause (95% intervals; hollow: fewer than "
            f"{MIN_INTERVAL_BUILDERS} builders, no interval; never-built annexes left out)",
            P.lift_chart(lift),
        )
    ]


Q.headlines = headlines
Q.plots = plots


def key_numbers(ds, results):
    """For strength ladders: the rank-vs-lift slope and the lifts of the top and bottom
    ranked annexes (associations)."""
    out = []
    rp = results.get("rank_power")
    lift = results.get("annex_lift")
    games = ds.games.select(pl.len()).collect().item()
    if rp is not None and rp.height:
        r = rp.row(0, named=True)
        out.append(
            {
                "key": "lift per rank step (association)",
                "estimate": r["slope"],
                "lo": r["slope_lo"],
                "hi": r["slope_hi"],
                "games": games,
                "unit": "pts",
                "scales": False,
            }
        )
    if lift is not None:
        rows = list(_ranked(lift).iter_rows(named=True))
        ends = {rows[0]["annex"], rows[-1]["annex"]} if rows else set()
        for r in lift.filter(pl.col("lift_lo").is_not_null()).iter_rows(named=True):
            out.append(
                {
                    "key": f"lift of {r['annex']} (association)",
                    "estimate": r["lift"],
                    "lo": r["lift_lo"],
                    "hi": r["lift_hi"],
                    "games": games,
                    "unit": "pts",
                    "optional": True,
                    "headline": r["annex"] in ends,
                }
            )
    return out


Q.key_numbers = key_numbers
Q.why_not = lambda ds: (
    None if Q.applies(ds) else "not answered: this game has no annexes (cards built into the inn)."
)
