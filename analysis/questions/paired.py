"""Duplicate deals in the seat and strategy questions.

With ``rotate = "duplicate"`` the games of one deal (``deal`` column) share the shuffle, the
keys and the first seat, and the lineup is rotated once per game, so every entry plays every
seat on the same deal.  The games of a deal are therefore not independent: these metrics take
the deal as the unit, with a normal 95% interval over per-deal means, and put beside it the
width the same games would give if they were independent (the Wilson / unpaired one):

- ``duplicate_seat_share`` (seats question): each seat's win share, deal-clustered.  With the
  same strategy at every seat the rotations of a deal are the *same game* (the stream is the
  deal's), so a deal carries one game's information: duplicate deals widen the first-player
  interval by about sqrt(players) there; they pay off when entries differ.
- ``duplicate_entry_gap`` (strategies question): for each pair of lineup entries, the win-share
  difference paired deal by deal (both entries played every seat of the deal), against the
  unpaired interval of the same games; ``variance_reduction`` = 1 - (paired / unpaired)^2.
"""

from __future__ import annotations

import itertools
import math

import polars as pl

from ..metrics import QUESTIONS, Metric, register
from ..report_power import arm_label
from ..stats import Z95, wilson
from . import seats as _seats  # noqa: F401  (their headlines first; these are appended)
from . import strategies as _strategies  # noqa: F401

_NOTE_SEAT = (
    "share = the seat's win share; lo/hi = normal 95% interval over per-deal means (the unit is "
    "the deal: its rotations are not independent games); wilson_lo/hi = the interval if the "
    "games were independent; width_ratio = deal-clustered width / Wilson width."
)


@register("seats")
class DuplicateSeatShare(Metric):
    """Seat win shares with the deal as the unit (duplicate deals only)."""

    name = "duplicate_seat_share"
    title = "Win share by seat, duplicate deals (deal-clustered interval)"
    needs = ("deal",)
    note = _NOTE_SEAT

    def compute(self, seats):
        by = self.by
        per_deal = (
            seats.group_by([*by, "seat", "deal"])
            .agg(pl.col("win").cast(pl.Float64).mean().alias("w"), pl.len().alias("k"))
            .group_by([*by, "seat"])
            .agg(
                pl.len().alias("deals"),
                pl.col("k").sum().alias("games"),
                pl.col("w").mean().alias("share"),
                pl.col("w").std().alias("sd"),
            )
            .sort([*by, "seat"])
            .collect()
        )
        rows = []
        for r in per_deal.iter_rows(named=True):
            half = Z95 * (r["sd"] or 0.0) / math.sqrt(r["deals"]) if r["deals"] > 1 else math.nan
            wlo, whi = wilson(r["share"] * r["games"], r["games"])
            rows.append(
                {
                    **{k: r[k] for k in by},
                    "seat": r["seat"],
                    "deals": r["deals"],
                    "games": r["games"],
                    "share": r["share"],
                    "share_lo": r["share"] - half,
                    "share_hi": r["share"] + half,
                    "wilson_lo": wlo,
                    "wilson_hi": whi,
                    "width_ratio": (2 * half) / (whi - wlo) if whi > wlo else math.nan,
                }
            )
        return pl.DataFrame(rows) if rows else None


@register("strategies")
class DuplicateEntryGap(Metric):
    """Pairwise win-share gaps of lineup entries, paired deal by deal."""

    name = "duplicate_entry_gap"
    title = "Lineup entries compared on the same deals (paired interval)"
    needs = ("deal", "lineup", "strategy")
    note = (
        "gap = win share of entry a - entry b (both play every game); lo/hi = normal 95% interval "
        "over per-deal mean differences (both played every seat of each deal); unpaired_half = "
        "the half-width from per-game differences, as if the games were independent draws (what "
        "plain rotation gives); variance_reduction = 1 - (paired / unpaired)^2."
    )

    def compute(self, seats):
        by = self.by
        # every entry plays every game (one entry per seat), so each game gives a difference
        per_game = (
            seats.group_by([*by, "deal", "game_id", "lineup"])
            .agg(pl.col("win").cast(pl.Float64).sum().alias("w"), pl.col("strategy").first())
            .collect()
        )
        names = dict(per_game.select("lineup", "strategy").unique().iter_rows())
        wide = per_game.pivot(on="lineup", index=[*by, "deal", "game_id"], values="w")
        rows = []
        for key, grp in wide.group_by(by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            for a, b in itertools.combinations(sorted(names), 2):
                ca, cb = str(a), str(b)
                if ca not in grp.columns or cb not in grp.columns:
                    continue
                g = grp.select("deal", (pl.col(ca) - pl.col(cb)).alias("d")).drop_nulls()
                deal_d = g.group_by("deal").agg(pl.col("d").mean())["d"]
                if deal_d.len() < 2:
                    continue
                se = float(deal_d.std()) / math.sqrt(deal_d.len())
                # the same games taken as independent draws (the pairing over deals ignored)
                se_u = float(g["d"].std()) / math.sqrt(g.height)
                mean = float(g["d"].mean())
                rows.append(
                    {
                        **dict(zip(by, key)),
                        "entry_a": f"{a}:{names[a]}",
                        "entry_b": f"{b}:{names[b]}",
                        "deals": deal_d.len(),
                        "games": g.height,
                        "gap": mean,
                        "gap_lo": mean - Z95 * se,
                        "gap_hi": mean + Z95 * se,
                        "unpaired_half": Z95 * se_u,
                        "variance_reduction": 1.0 - (se / se_u) ** 2 if se_u > 0 else math.nan,
                    }
                )
        return pl.DataFrame(rows).sort([*by, "entry_a", "entry_b"]) if rows else None


def _cell(ds, r):
    """'players = 3' and every other grouping key of the row, a power arm by its name."""
    parts = [f"players = {r['players']}"]
    for k in ds.group_params():
        if k in r:
            parts.append(arm_label(ds, r[k]) if k == "arm" else f"{k} = {r[k]}")
    return ", ".join(parts)


def _headlines(ds, results):
    out = []
    t = results.get("duplicate_seat_share")
    if t is not None and t.height:
        s0 = t.filter(pl.col("seat") == 0)
        for r in s0.iter_rows(named=True):
            if not (r["width_ratio"] is not None and math.isfinite(r["width_ratio"])):
                continue
            out.append(
                f"{_cell(ds, r)}: with duplicate deals the first player wins "
                f"{100 * r['share']:.1f}% [{100 * r['share_lo']:.1f}, {100 * r['share_hi']:.1f}] over "
                f"{r['deals']:,} deals ({r['games']:,} games); the interval is {r['width_ratio']:.2f} times "
                "as wide as if the games were independent."
            )
    g = results.get("duplicate_entry_gap")
    if g is not None and g.height:
        for r in g.iter_rows(named=True):
            vr = r["variance_reduction"]
            change = (
                f"pairing changes the variance by {-round(100 * vr):+d}%"
                if vr is not None and math.isfinite(vr)
                else "no variance either way"
            )
            out.append(
                f"{_cell(ds, r)}: entry {r['entry_a']} - {r['entry_b']} "
                f"{100 * r['gap']:+.1f} pts [{100 * r['gap_lo']:+.1f}, {100 * r['gap_hi']:+.1f}] paired over "
                f"{r['deals']:,} deals (unpaired: +-{100 * r['unpaired_half']:.1f} pts; {change})."
            )
    return out


def _extend_headlines(name, metric_names):
    """Append the duplicate-deal sentences to a question's own headlines (once)."""
    q = QUESTIONS[name]
    own = q.headlines
    if getattr(own, "_duplicate_deals", False):
        return

    def headlines(ds, results):
        base = own(ds, results) if own else []
        return base + _headlines(ds, {k: v for k, v in results.items() if k in metric_names})

    headlines._duplicate_deals = True
    q.headlines = headlines


_extend_headlines("seats", {"duplicate_seat_share"})
_extend_headlines("strategies", {"duplicate_entry_gap"})
