"""Variants of one lineup entry compared game by game: the points of a sweep over a seat's
strategy or parameters (``"seats.0.params.tells" = [0.0, 0.3, 0.5]``).

A sweep plays every point with the base config's seed (common random numbers): game ``g``
of each point has the same deal, keys, first seat and dice stream, and the games part only
where the changed decisions lead them apart.  So the difference between two variants is
estimated from per-game differences (the unit is the game, or the deal with duplicate
deals), which cancel what the deal and the luck did to both:

    difference = win share of the entry at a point - its win share at the first point,

with the paired 95% interval of ``stats.paired_diff_interval`` (as ``sim power``'s arms).
Beside it: the interval the same games would give taken as independent runs, and what the
pairing saves — ``games_factor`` = (unpaired se / paired se)², how many times more
independent games the same precision would need.

The dataset is a sweep whose swept keys include a ``seats.<i>.…`` key, played with one seed;
the compared entry is that ``i``.  Other swept keys (players, a rule) group the comparison.
"""

from __future__ import annotations

import polars as pl

from ..dataset import manifest_config
from ..metrics import Metric, question, register
from ..text import cell_label
from .power import _iv, _pts, paired_power


def variant_keys(ds):
    """The swept keys that change a lineup entry (``seats.<i>.strategy`` / ``.params.<p>``)."""
    return [p for p in ds.group_params() if p.startswith("seats.")]


def _one_seed(ds):
    seeds = {manifest_config(man).get("seed") for man in ds.manifests.values()}
    return len(seeds) == 1


def is_variant_sweep(ds):
    """A sweep over a lineup entry's strategy or parameters, every point on the same seed."""
    return ds.kind == "sweep" and bool(variant_keys(ds)) and "arm" not in ds.params and _one_seed(ds)


def _entry(ds):
    return int(variant_keys(ds)[0].split(".")[1])


def _unit(ds):
    """The pairing unit: the deal with duplicate deals, else the game."""
    return "deal" if "deal" in ds.seats_columns() else "game_id"


def _cells(ds, columns):
    """The columns a comparison is made within: players and the swept keys that are not
    the entry's."""
    return [c for c in ds.group_cols(columns) if c not in variant_keys(ds)]


def _label(row, keys):
    """``params.tells=0.3``; with keys of several entries each keeps its entry (``1.strategy=…``)."""
    one_entry = len({k.split(".")[1] for k in keys}) == 1
    return ", ".join(f"{k.split('.', 2)[2] if one_entry else k.split('.', 1)[1]}={row[k]}" for k in keys)


Q = question("variants", "Variants of a lineup entry, compared game by game", applies=is_variant_sweep)


@register("variants")
class PairedVariants(Metric):
    """Each point's difference from the sweep's first point, paired game by game."""

    name = "paired_variants"
    title = "Variants of the entry against the first point, paired game by game"
    needs = ("lineup", "win")
    note = (
        "difference = win share of the lineup entry the sweep varies at this point - at the "
        "sweep's first point, on the same games (one seed: common random numbers); paired 95% "
        "interval over games (or deals): Newcombe's paired hybrid score interval on the positive "
        "and negative parts of the per-game differences; differing_units = games whose result "
        "for the entry changed; se_unpaired = the same games taken as independent runs; "
        "games_factor = (se_unpaired / se)^2, the independent games the same precision needs "
        "per paired game."
    )

    @classmethod
    def from_dataset(cls, ds):
        keys = variant_keys(ds)
        return cls(by=["players", *ds.group_params(exclude=keys)], dataset=ds, keys=keys)

    def compute(self, seats):
        ds = self.context["dataset"]
        keys = self.context["keys"]
        labels = {r["point"]: _label(r, keys) for r in ds.points.iter_rows(named=True)}
        base = labels[ds.points["point"][0]]
        if seats.select(pl.col("lineup").max()).collect().item() == 0:
            return None  # one entry at every seat: its share is the fair share whatever it does
        unit = _unit(ds)
        arms = seats.with_columns(pl.col("point").replace_strict(labels, return_dtype=pl.String).alias("arm"))
        table = paired_power(arms, self.by, unit, entry=_entry(ds), baseline=base)
        if table is None:
            return None
        order = {lab: i for i, lab in enumerate(dict.fromkeys(labels.values()))}
        return (
            table.with_columns(
                pl.lit(base).alias("baseline"),
                (-pl.col("power")).alias("difference"),
                (-pl.col("power_hi")).alias("difference_lo"),
                (-pl.col("power_lo")).alias("difference_hi"),
                pl.when(pl.col("se") > 0)
                .then((pl.col("se_unpaired") / pl.col("se")) ** 2)
                .otherwise(None)
                .alias("games_factor"),
                pl.col("arm").replace_strict(order, return_dtype=pl.Int64).alias("_order"),
            )
            .rename({"arm": "variant", "share_unrestricted": "share_baseline", "share_restricted": "share"})
            .sort([*self.by, "_order"])
            .select(
                *self.by,
                "variant",
                "baseline",
                "units",
                "differing_units",
                "share_baseline",
                "share",
                "difference",
                "difference_lo",
                "difference_hi",
                "p_value",
                "se",
                "se_unpaired",
                "games_factor",
            )
        )


def headlines(ds, results):
    """One sentence per variant: its difference from the first point, where its interval
    lies, and what the pairing saved."""
    table = results.get("paired_variants")
    if table is None or table.is_empty():
        return []
    entry = _entry(ds)
    by = _cells(ds, table.columns)
    units = "deals" if _unit(ds) == "deal" else "games"
    out = []
    for r in table.iter_rows(named=True):
        lo, hi = r["difference_lo"], r["difference_hi"]
        verdict = "better" if lo > 0 else ("worse" if hi < 0 else "not separated (the interval holds 0)")
        factor = r["games_factor"]
        saved = (
            f"; pairing needs {factor:.1f}x fewer games than independent runs"
            if factor is not None and factor == factor and factor >= 1.05
            else ""
        )
        out.append(
            f"{cell_label(r, by)}: lineup entry {entry} with {r['variant']} against {r['baseline']}: "
            f"{_pts(r['difference'])} {_iv(lo, hi)} ({verdict}; "
            f"{r['share']:.1%} against {r['share_baseline']:.1%}, paired over "
            f"{r['units']:,} {units}{saved})"
        )
    return out


def key_numbers(ds, results):
    """Each variant's paired difference from the first point (a share difference: its
    verdict says above / below 0 only when the interval excludes 0)."""
    table = results.get("paired_variants")
    if table is None:
        return []
    by = _cells(ds, table.columns)
    out = []
    for r in table.iter_rows(named=True):
        out.append(
            {
                "key": f"{r['variant']} - {r['baseline']}, {cell_label(r, by).lower()}",
                "estimate": r["difference"],
                "lo": r["difference_lo"],
                "hi": r["difference_hi"],
                "games": r["units"],
                "count": "paired games",
            }
        )
    return out


Q.headlines = headlines
Q.key_numbers = key_numbers
