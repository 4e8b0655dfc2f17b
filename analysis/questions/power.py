"""Causal power of annexes and actions (The Bloody Inn; Cluedo's modern elements) and of
the starting character (Cluedo), from restricted play on duplicate deals.

``sim power`` plays a baseline and one *arm* per restriction on the same deals: in an arm,
lineup entry 0 may never build one annex (``card:<id>``) or never take one action
(``action:<name>``); every other entry, and entry 0 in the baseline, plays unrestricted.
The *causal power* of the annex or action is what taking it away costs:

    power = win share of entry 0 unrestricted - win share of entry 0 restricted,

paired deal by deal (game ids, hence shuffles, keys and seats, are the same in every arm;
with duplicate deals the unit is the deal, all its rotations together), with a 95% interval
from the per-deal differences that holds when they are sparse or constant
(``stats.paired_diff_interval``).  Beside it stands the *associational lift* of the
baseline (win share of player-games that built the annex / took the action against those
that did not, same seat and strategy): the number the ``cards`` question ranks, which mixes
the card's effect with the positions in which players take it.

The ``characters`` arm (Cluedo) restricts nobody: the same deals are played with the deal's
characters rotated over the seats game by game (``rules.characters = "permute"``), so every
character of a deal plays from every seat once.  A character's power is its win share there
minus the fair share 1/players, with the deal as the unit: the seat order's effect is spread
evenly over the characters instead of mixed into them, and the seats' own shares in the same
arm stand beside it.

The dataset is a sweep whose only swept key is ``arm`` (``baseline`` plus the arms).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import tomllib

from ..dataset import manifest_config
from ..game_facts import annex_kinds
from ..metrics import Metric, asked_by_game, question, register
from ..report_power import kind_names, name_targets
from ..stats import Z95, holm, paired_diff_interval, paired_diff_p, stratified_lift
from ..text import join_names

BASELINE = "baseline"
#: the arm with the characters rotated over the seats (Cluedo)
CHARACTERS = "characters"
#: the lift is shown only for annexes / actions taken (and not taken) at least this often
MIN_TAKERS = 100
#: the lineup entry that is restricted in the arms
RESTRICTED = 0
#: seat columns that say a player took an action at least once (launder has none)
ACTION_COLUMNS = {
    "bribe": ("bribes", "peasants_bribed"),
    "build": ("builds",),
    "kill": ("kills", "peasants_killed"),
    "bury": ("buried",),
}


def is_power_dataset(ds):
    """A ``sim power`` dataset: a sweep over ``arm`` with a ``baseline`` arm."""
    if not asked_by_game("power")(ds) or "arm" not in ds.points.columns:
        return False
    return BASELINE in ds.points["arm"].cast(pl.String).to_list()


Q = question("power", "Causal power of annexes and actions (restricted play)", applies=is_power_dataset)


def parse_arm(arm):
    """``"card:grocer"`` -> ``("card", "grocer")``; ``"baseline"`` -> ``("baseline", "")``."""
    kind, _, target = str(arm).partition(":")
    return (kind, target) if target else (kind, "")


def _by(metric):
    return [c for c in metric.by if c != "arm"]


def paired_power(seats, by, unit, entry=RESTRICTED, baseline=BASELINE):
    """Per arm: lineup entry ``entry``'s win share in the ``baseline`` arm and in the arm,
    and their paired difference (baseline - arm) over ``unit`` (``deal`` or ``game_id``) with
    its 95% interval (:func:`analysis.stats.paired_diff_interval`: it holds when the
    differences are sparse, most deals unchanged by the restriction, or constant, a seat that
    never wins) and the p-value that agrees with it.

    Also the unpaired standard error of the same difference (every game taken as an
    independent draw, the pairing ignored), so what the pairing buys can be read off.
    """
    mine = seats.filter((pl.col("lineup") == entry) & (pl.col("arm") != CHARACTERS))
    per_unit = (
        mine.group_by([*by, "arm", unit]).agg(pl.col("win").cast(pl.Float64).mean().alias("w")).collect()
    )
    per_game = (
        mine.group_by([*by, "arm"])
        .agg(pl.len().alias("n_games"), pl.col("win").cast(pl.Float64).var().alias("var_game"))
        .with_columns((pl.col("var_game") / pl.col("n_games")).alias("v"))
        .collect()
    )
    v_base = per_game.filter(pl.col("arm") == baseline).select(*by, pl.col("v").alias("v_base"))
    v_arm = per_game.filter(pl.col("arm") != baseline).select(*by, "arm", "v", "n_games")
    base = per_unit.filter(pl.col("arm") == baseline).drop("arm").rename({"w": "w_base"})
    arms = per_unit.filter(pl.col("arm") != baseline)
    joined = arms.join(base, on=[*by, unit], how="inner").with_columns(
        (pl.col("w_base") - pl.col("w")).alias("d")
    )
    if joined.is_empty():
        return None
    pos, neg = pl.col("d").clip(lower_bound=0.0), (-pl.col("d")).clip(lower_bound=0.0)
    agg = (
        joined.group_by([*by, "arm"])
        .agg(
            pl.len().alias("units"),
            (pl.col("d") != 0).sum().alias("differing_units"),
            pl.col("w_base").mean().alias("share_unrestricted"),
            pl.col("w").mean().alias("share_restricted"),
            pl.col("d").mean().alias("power"),
            pl.col("d").std().alias("sd_d"),
            pos.sum().alias("_ps"),
            (pos * pos).sum().alias("_pq"),
            pos.max().alias("_pm"),
            neg.sum().alias("_ns"),
            (neg * neg).sum().alias("_nq"),
            neg.max().alias("_nm"),
        )
        .join(v_arm, on=[*by, "arm"], how="left")
        .join(v_base, on=by, how="left")
        .with_columns(
            (pl.col("sd_d") / pl.col("units").cast(pl.Float64).sqrt()).alias("se"),
            (pl.col("v") + pl.col("v_base")).sqrt().alias("se_unpaired"),
        )
        .with_columns((1.0 - (pl.col("se") / pl.col("se_unpaired")) ** 2).alias("variance_reduction"))
    )
    sums = [agg[c].to_numpy().astype(np.float64) for c in ("units", "_ps", "_pq", "_pm", "_ns", "_nq", "_nm")]
    _, lo, hi = paired_diff_interval(*sums)
    agg = agg.with_columns(
        pl.Series("power_lo", np.atleast_1d(lo)),
        pl.Series("power_hi", np.atleast_1d(hi)),
        pl.Series("p_value", np.atleast_1d(paired_diff_p(*sums))),
    )
    return agg.drop("sd_d", "v", "v_base", "_ps", "_pq", "_pm", "_ns", "_nq", "_nm")


def _lift_of(grp, flag, strata):
    """The ``cards`` lift (:func:`analysis.stats.stratified_lift`: stratified, Newcombe
    interval with the game-clustered design effect) of the player-games where ``flag`` holds."""
    df = grp.select(
        pl.col("win").cast(pl.Float64),
        flag.fill_null(False).alias("_f"),
        (pl.struct(strata).rank("dense") - 1).cast(pl.Int64).alias("_s"),
        (pl.struct(["point", "game_id"]).rank("dense") - 1).cast(pl.Int64).alias("_g"),
    )
    f = df["_f"].to_numpy()
    r = stratified_lift(df["win"].to_numpy(), f, df["_s"].to_numpy(), df["_g"].to_numpy())
    if not math.isfinite(r["lift"]):
        return None, None, None, r["builders"]
    return r["lift"], r["lift_lo"], r["lift_hi"], r["builders"]


def associational_lift(seats, by, arms, kinds):
    """Lift of each arm's annex or action in the baseline arm (every lineup entry): the
    same lift as the ``cards`` question's, stratified by seat and strategy."""
    base = seats.filter(pl.col("arm") == BASELINE).collect()
    strata = [*by, "seat"]
    if "strategy" in base.columns:
        strata.append("strategy")
    bit_of = {k["id"]: k["bit"] for k in kinds}
    rows = []
    for arm in arms:
        kind, target = parse_arm(arm)
        flag = None
        if kind == "card" and target in bit_of:
            flag = (pl.col("annex_mask").cast(pl.Int64) // (1 << bit_of[target])) % 2 == 1
        elif kind == "action" and target in ACTION_COLUMNS:
            # strong players take every action in nearly every game, so "took it at all" has
            # no contrast: compare player-games that took it more often than their stratum's
            # median with the rest
            count = pl.lit(0, dtype=pl.Int64)
            for c in ACTION_COLUMNS[target]:
                count = count + pl.col(c).cast(pl.Int64)
            flag = count > count.median().over(strata)
        if flag is None:  # launder (Cluedo's elements): no seat column records it
            for key, _ in base.group_by(by, maintain_order=True) if by else [((), None)]:
                key = key if isinstance(key, tuple) else (key,)
                none = {"lift": None, "lift_lo": None, "lift_hi": None, "takers": None}
                rows.append({**dict(zip(by, key)), "arm": arm, **none})
            continue
        # per player count (and other grouping keys) separately
        for key, grp in base.group_by(by, maintain_order=True) if by else [((), base)]:
            key = key if isinstance(key, tuple) else (key,)
            lift, lo, hi, n1 = _lift_of(grp, flag, strata)
            rows.append(
                {**dict(zip(by, key)), "arm": arm, "lift": lift, "lift_lo": lo, "lift_hi": hi, "takers": n1}
            )
    return rows


def _sign(lo, hi):
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return 0
    return 1 if lo > 0 else -1 if hi < 0 else 0


#: the causal-power table's columns after the group keys, in order
TABLE_COLS = (
    "kind",
    "target",
    "units",
    "share_unrestricted",
    "share_restricted",
    "power",
    "power_lo",
    "power_hi",
    "p_value",
    "p_holm",
    "differing_units",
    "lift",
    "lift_lo",
    "lift_hi",
    "takers",
    "signs",
    "se",
    "se_unpaired",
    "variance_reduction",
)


@register("power")
class CausalPower(Metric):
    """Causal power per arm (paired over deals) beside the associational lift."""

    name = "causal_power"
    title = "Causal power (restricted play) beside the associational lift"
    needs = ("lineup", "win")
    note = (
        "power = win share of lineup entry 0 unrestricted - the same entry barred from the "
        "annex (card:) or action (action:), on the same deals; paired 95% interval over deals "
        "(units): Newcombe's paired hybrid score interval on the positive and negative parts "
        "of the per-deal differences (it keeps its width when few deals differ, "
        "differing_units, or all differ alike); p_value agrees with it, p_holm = Holm-adjusted "
        "over the arms of one kind (annexes, actions): help / hurt counts use p_holm < 0.05. "
        "lift = the cards question's associational lift of building it / taking it in the "
        "baseline (builders against others; for actions, player-games above their stratum's "
        "median count against the rest; same seat and strategy; game-clustered): not a cause; none "
        "for launder (no seat column records it). signs: 'disagree' when both intervals "
        "exclude 0 with opposite signs. variance_reduction = 1 - (paired se / unpaired se)^2, "
        "unpaired = the same games taken as independent draws."
    )

    def compute(self, seats):
        ds = self.context["dataset"]
        by = _by(self)
        unit = "deal" if "deal" in seats.collect_schema().names() else "game_id"
        table = paired_power(seats, by, unit)
        if table is None:
            return None
        arms = sorted(set(table["arm"].to_list()))
        has_annex = "annex_mask" in seats.collect_schema().names()
        lift = associational_lift(seats, by, arms, annex_kinds(ds.config) if has_annex else [])
        schema = {c: pl.Float64 for c in ("lift", "lift_lo", "lift_hi")}
        lift_t = pl.DataFrame(lift, schema_overrides={**schema, "takers": pl.Int64})
        table = table.join(lift_t, on=[*by, "arm"], how="left")
        rows = []
        for r in table.iter_rows(named=True):
            kind, target = parse_arm(r["arm"])
            if r["takers"] is not None and r["takers"] < MIN_TAKERS:
                r.update(lift=None, lift_lo=None, lift_hi=None)  # too rare to rank (as in cards)
            sp, sl = _sign(r["power_lo"], r["power_hi"]), _sign(r["lift_lo"], r["lift_hi"])
            if r["lift"] is None:
                signs = "no lift" if not r["takers"] else f"taken {r['takers']}x: too rare"
            elif sp and sl:
                signs = "agree" if sp == sl else "disagree"
            else:
                signs = "unclear"
            rows.append({**r, "kind": kind, "target": target, "signs": signs})
        out = pl.DataFrame(rows, schema_overrides={**schema, "takers": pl.Int64})
        # "helps" / "hurts" is claimed for a family of arms at once (24 annexes, 5 actions):
        # Holm keeps the chance of any false claim in the family at 5%
        out = out.with_columns(pl.col("p_value").fill_nan(1.0)).with_columns(
            pl.col("p_value")
            .map_batches(lambda p: pl.Series(holm(p.to_numpy())), return_dtype=pl.Float64)
            .over([*by, "kind"])
            .alias("p_holm")
        )
        out = out.select([*by, *TABLE_COLS])
        return out.sort([*by, "power", "target"], descending=[False] * len(by) + [True, False])


@register("power")
class CharacterPower(Metric):
    """Win share by character and by seat in the ``characters`` arm, deal-clustered."""

    name = "character_power"
    title = "Starting character and seat, separated (characters rotated over the seats)"
    needs = ("character", "win", "deal")
    note = (
        "characters arm: each deal is played once per rotation of its characters over the seats, "
        "so each character of the deal plays every seat once. share = win share; power = share - "
        "1/players; 95% normal interval with the deal as the unit (a deal's games are dependent). "
        "kind = character: the character's effect with the seat order spread evenly over it; kind = "
        "seat: the seat's effect in the same games."
    )

    def compute(self, seats):
        by = [c for c in _by(self) if c != "players"]
        arm = seats.filter(pl.col("arm") == CHARACTERS)
        out = []
        for kind, col in (("character", "character"), ("seat", "seat")):
            per_deal = (
                arm.group_by([*by, "players", col, "deal"])
                .agg(pl.col("win").cast(pl.Float64).mean().alias("w"))
                .group_by([*by, "players", col])
                .agg(
                    pl.len().alias("units"),
                    pl.col("w").mean().alias("share"),
                    pl.col("w").std().alias("sd"),
                )
                .with_columns(
                    pl.lit(kind).alias("kind"),
                    pl.col(col).cast(pl.String).alias("target"),
                    (pl.col("share") - 1.0 / pl.col("players").cast(pl.Float64)).alias("power"),
                    (pl.col("sd") / pl.col("units").cast(pl.Float64).sqrt()).alias("se"),
                )
                .with_columns(
                    (pl.col("power") - Z95 * pl.col("se")).alias("power_lo"),
                    (pl.col("power") + Z95 * pl.col("se")).alias("power_hi"),
                )
                .select([*by, "players", "kind", "target", "units", "share", "power", "power_lo", "power_hi"])
                .collect()
            )
            out.append(per_deal)
        table = pl.concat(out)
        if table.is_empty():
            return None
        return table.sort([*by, "players", "kind", "power"], descending=[False] * (len(by) + 2) + [True])


def character_headlines(results):
    t = results.get("character_power")
    if t is None or t.is_empty():
        return []
    out = []
    by = [
        c for c in t.columns if c not in ("kind", "target", "units", "share", "power", "power_lo", "power_hi")
    ]
    for key, grp in t.group_by(by, maintain_order=True):
        cell = ", ".join(f"{k} = {v}" for k, v in zip(by, key if isinstance(key, tuple) else (key,)))
        for kind, label in (("character", "starting character"), ("seat", "seat order")):
            g = grp.filter(pl.col("kind") == kind).sort("power", descending=True)
            if g.is_empty():
                continue
            rows = g.to_dicts()
            pos = [r["target"] for r in rows if r["power_lo"] > 0]
            neg = [r["target"] for r in rows if r["power_hi"] < 0]
            top, low = rows[0], rows[-1]
            clear = [f"above the fair share: {', '.join(pos)}"] if pos else []
            clear += [f"below: {', '.join(neg)}"] if neg else []
            verdict = "; ".join(clear) or "no character/seat is clear of the fair share"
            out.append(
                f"{cell}: {label} with the characters rotated over the seats "
                f"(paired over {int(g['units'].min()):,} deals): best {top['target']} "
                f"{_pts(top['power'])} {_iv(top['power_lo'], top['power_hi'])}, worst {low['target']} "
                f"{_pts(low['power'])} {_iv(low['power_lo'], low['power_hi'])}; {verdict}"
                + (" (seat order separated out)." if kind == "character" else ".")
            )
    return out


def _pts(x):
    return f"{100 * x:+.1f} pts"


def _iv(lo, hi):
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


def leaders(rows):
    """Rows (sorted by power, descending) whose interval overlaps the top one's: the arms
    that cannot be told apart from the strongest."""
    if not rows:
        return []
    top = rows[0]
    return [r for r in rows if r["power_hi"] >= top["power_lo"]]


def _restricted_strategy(ds):
    """The strategy lineup entry 0 plays (the restricted one), in backticks; "the" if unknown."""
    for man in ds.manifests.values():
        seats = manifest_config(man).get("seats") or []
        seats = seats if isinstance(seats, list) else [seats]
        if seats and seats[0].get("strategy"):
            return f"`{seats[0]['strategy']}`"
    return "restricted"


def never_wins(r):
    """An arm whose restricted seat never won: its power is the seat's whole unrestricted
    share, not a size to rank."""
    return r["share_restricted"] == 0


def _power_sentence(rows, label, units):
    """Rank (only where intervals separate, arms whose seat never wins set apart) and count
    the arms that help and hurt (Holm-adjusted over the family)."""
    alive = [r for r in rows if not never_wins(r)]
    dead = [r for r in rows if never_wins(r)]
    lead = leaders(alive)
    if len(lead) == 1 and len(alive) > 1:
        r = lead[0]
        rank = (
            f"{r['target']} has the largest causal power, {_pts(r['power'])} "
            f"{_iv(r['power_lo'], r['power_hi'])} (its interval is clear of every other)"
        )
    elif len(alive) == 1:
        r = alive[0]
        rank = (
            f"one arm to rank, so a ranking cannot be estimated: {r['target']} {_pts(r['power'])} "
            f"{_iv(r['power_lo'], r['power_hi'])}"
        )
    elif lead:
        rank = (
            "no single largest: "
            + ", ".join(
                f"{r['target']} {_pts(r['power'])} {_iv(r['power_lo'], r['power_hi'])}" for r in lead[:6]
            )
            + (" have overlapping intervals" if len(lead) > 1 else "")
        )
    else:
        rank = "none ranked"
    if dead:
        rank += (
            f"; barred from {join_names([r['target'] for r in dead])} the seat never won "
            f"(power = its whole share, {_pts(dead[0]['share_unrestricted'])}: not ranked)"
        )
    pos = [r for r in rows if r["p_holm"] < 0.05 and r["power"] > 0]
    neg = [r for r in rows if r["p_holm"] < 0.05 and r["power"] < 0]
    raw = sum(1 for r in rows if r["power_lo"] > 0 or r["power_hi"] < 0)
    hurt = f"{len(neg)} hurt" + (
        f" ({join_names([r['target'] for r in neg])}: barring them raises the win share, so the "
        "strategy takes them to its cost)"
        if neg
        else ""
    )
    return (
        f"causal power of {label} (win share unrestricted - barred, paired over {units:,} deals): "
        f"{rank}; {len(pos)} of {len(rows)} help and {hurt}, at 5% with Holm's correction over the "
        f"{len(rows)} {label} ({raw} intervals exclude 0 one by one)."
    )


def headlines(ds, results):
    return _restriction_headlines(ds, results) + character_headlines(results)


def _restriction_headlines(ds, results):
    t = results.get("causal_power")
    if t is None or t.is_empty():
        return []
    # an annex arm reads by its annex's name (the card table as played), an action by the
    # name its game declares; the family of arms by the game's word for it
    t = name_targets(ds, t)
    words = kind_names(ds)
    by = [c for c in t.columns if c not in TABLE_COLS]
    out = []
    for key, grp in t.group_by(by, maintain_order=True) if by else [((), t)]:
        key = key if isinstance(key, tuple) else (key,)
        cell = ", ".join(f"{k} = {v}" for k, v in zip(by, key))
        units = int(grp["units"].min())
        intro = f"{cell}: " if cell else ""
        for kind, label in (("card", words["card"]), ("action", words["action"])):
            g = grp.filter(pl.col("kind") == kind).sort(["power", "target"], descending=[True, False])
            if g.is_empty():
                continue
            rows = g.to_dicts()
            out.append(intro + _power_sentence(rows, label, units))
            dis = [r for r in rows if r["signs"] == "disagree"]
            if dis:
                out.append(
                    f"{intro}causal power and associational lift disagree in sign for "
                    + "; ".join(
                        f"{r['target']} (power {_pts(r['power'])}, lift {_pts(r['lift'])})" for r in dis
                    )
                    + " — the lift is not a measure of power."
                )
        kill = grp.filter((pl.col("kind") == "action") & (pl.col("target") == "kill"))
        if kill.height:
            r = kill.row(0, named=True)
            verdict = (
                "murder pays"
                if r["power_lo"] > 0
                else "honest play pays"
                if r["power_hi"] < 0
                else "no measurable difference"
            )
            who = _restricted_strategy(ds)
            out.append(
                f"{intro}does murder pay? Causal power of the kill action {_pts(r['power'])} "
                f"{_iv(r['power_lo'], r['power_hi'])}: a seat that never kills wins "
                f"{100 * r['share_restricted']:.1f}% instead of {100 * r['share_unrestricted']:.1f}% — {verdict} "
                f"for one {who} seat with killing barred and its play not re-tuned for the "
                "restriction (the cost to this player, not what a policy built for honest play "
                "would win)."
            )
        vr = grp["variance_reduction"].drop_nulls().drop_nans()  # NaN: an arm with no variance
        if vr.len():
            out.append(
                f"{intro}pairing the arms on the same deals cut the variance of the differences "
                f"by {round(100 * float(vr.median()))}% (median over arms) against independent deals."
            )
    return out


def plots(ds, results):
    from ..report_power import power_plots

    return power_plots(ds, results)


Q.headlines = headlines
Q.plots = plots


# --- exploitability (recorded) ------------------------------------------------------------

#: gains of best responses found by ``sim tune`` against a field of one strategy, per game:
#: ``<shipped configs>/<game>/strategies/exploitability.toml`` (package data, so an installed
#: ``sim`` finds it too)
EXPLOITABILITY_FILE = ("strategies", "exploitability.toml")


def exploitability_file(game):
    """The shipped exploitability records of ``game`` (the path; it may not exist)."""
    from sim.config import data_dir

    return data_dir().joinpath(game, *EXPLOITABILITY_FILE)


def exploitability_records(path):
    """The ``[[record]]`` tables of the exploitability file (empty if there is none)."""
    try:
        with open(path, "rb") as fh:
            return list(tomllib.load(fh).get("record", []))
    except OSError:
        return []


def _field(ds):
    """``(strategy, players)`` when every lineup entry of every point plays one strategy."""
    names, players = set(), set()
    for man in ds.manifests.values():
        cfg = manifest_config(man)
        names |= {s.get("strategy") for s in cfg.get("seats", [])}
        players.add(cfg.get("players"))
    return (names.pop(), players) if len(names) == 1 else (None, players)


def _records_for(ds):
    strategy, players = _field(ds)
    return [
        r
        for r in exploitability_records(exploitability_file(ds.game))
        if r.get("strategy") == strategy and r.get("players") in players
    ]


QX = question(
    "exploitability",
    "Exploitability of a field of one strategy (recorded best responses)",
    applies=lambda ds: bool(_records_for(ds)),
)


@register("exploitability")
class Exploitability(Metric):
    """The recorded gain of a ``sim tune`` best response against this dataset's strategy."""

    name = "exploitability"
    title = "Exploitability: what a best response found by sim tune gains against the field"
    source = "games"
    note = (
        "gain = the best response's win share against a field of this strategy - the fair "
        "share 1/players, on the tuner's fresh validation games (Wilson 95%); recorded in "
        "configs/<game>/strategies/exploitability.toml, not computed from this dataset."
    )

    def compute(self, games):
        rows = _records_for(self.context["dataset"])
        cols = ("strategy", "players", "gain", "gain_lo", "gain_hi", "games", "source")
        return pl.DataFrame([{c: r.get(c) for c in cols} for r in rows]) if rows else None


def exploitability_headlines(ds, results):
    t = results.get("exploitability")
    if t is None:
        return []
    out = []
    for r in t.iter_rows(named=True):
        iv = f" {_iv(r['gain_lo'], r['gain_hi'])}" if r["gain_lo"] is not None else " (interval not recorded)"
        if r["gain_hi"] is not None and r["gain_hi"] < 0:
            # the tuner found no exploit: its best response still loses to the field
            verdict = (
                f"falls {_pts(-r['gain']).lstrip('+')} short of the fair share{iv} against a field of "
                f"{r['strategy']}: no exploit found"
            )
        else:
            verdict = f"wins {_pts(r['gain'])}{iv} over the fair share against a field of {r['strategy']}"
        out.append(
            f"players = {r['players']}: a best response found by sim tune {verdict} (recorded: {r['source']})."
        )
    return out


QX.headlines = exploitability_headlines
