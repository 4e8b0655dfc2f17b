"""Restricted play in a reader's words: what each ``sim power`` arm is called and the
forest plot that answers the causal question.

An arm is ``card:<id>`` (lineup entry 0 never builds that annex), ``action:<name>`` (never
takes that action), ``baseline`` or ``characters`` (the deal's characters rotated over the
seats).  A card arm reads by its annex's name from the card table as played (the dataset's
facts, the same names the ``cards`` lift plot uses); an action arm by the name its game's
adapter declares in the facts (``restricted_play``), else by its own id.  The adapter also
says what the family of arms is called (``kinds``) and titles the question (``title``).
"""

from __future__ import annotations

import polars as pl

from .game_facts import annex_kinds

#: what the arms of each kind are called when the game's facts say nothing
KIND_NAMES = {"card": "annexes", "action": "actions"}
TITLE = "Causal power of annexes and actions (restricted play)"
#: the restricted seat never won in the arm: its power is its whole share, not a size
NEVER_WON = "seat never won when barred: not ranked"


def restricted_play(ds) -> dict:
    """The adapter's words for its restricted play (``facts.restricted_play``), or {}."""
    return dict((getattr(ds, "facts", None) or {}).get("restricted_play") or {})


def title(ds) -> str:
    """The power question's title for this game."""
    return restricted_play(ds).get("title") or TITLE


def kind_names(ds) -> dict:
    """``{"card": "annexes", "action": <the game's word>}``."""
    return {**KIND_NAMES, **(restricted_play(ds).get("kinds") or {})}


def target_names(ds, kind) -> dict:
    """Target id -> name for the arms of one kind (annex names for cards)."""
    if kind == "card":
        return {k["id"]: k["annex"] for k in annex_kinds(ds)} if (ds.facts or {}).get("annex_bits") else {}
    return dict(restricted_play(ds).get("arms") or {})


def arm_label(ds, arm) -> str:
    """A reader's name for an arm: 'Bishopric barred', 'kill barred', 'baseline (nobody
    barred)', 'characters rotated over the seats'."""
    kind, _, target = str(arm).partition(":")
    if not target:
        return {
            "baseline": "baseline (nobody barred)",
            "characters": "characters rotated over the seats",
        }.get(kind, kind)
    return f"{target_names(ds, kind).get(target, target)} barred"


def name_targets(ds, table: pl.DataFrame) -> pl.DataFrame:
    """A causal-power table with ``target`` replaced by each arm's name (``kind`` kept)."""
    out = []
    for kind in table["kind"].unique(maintain_order=True).to_list():
        names = target_names(ds, kind)
        part = table.filter(pl.col("kind") == kind)
        out.append(part.with_columns(pl.col("target").replace(names)))
    return pl.concat(out) if out else table


def power_plots(ds, results):
    """One forest plot per kind of arm (annexes, actions): each arm's causal power with its
    paired 95% interval, sorted, a panel per player count."""
    from . import plots as P

    t = results.get("causal_power")
    if t is None or t.is_empty():
        return []
    t = name_targets(ds, t).with_columns((pl.col("share_restricted") == 0).alias("_never"))
    by = [c for c in ("players",) if c in t.columns]
    words = kind_names(ds)
    out = []
    for kind in ("card", "action"):
        sub = t.filter(pl.col("kind") == kind)
        if sub.is_empty():
            continue
        units = int(sub["units"].min())
        never = (
            f" Hollow: the barred seat never won, so its power is its whole share ({NEVER_WON})."
            if sub["_never"].any()
            else ""
        )
        caption = (
            f"Causal power of the {words[kind]}: the restricted seat's win share unrestricted "
            f"minus barred from each, in pts, paired over {units:,} deals (95% interval; dashed: "
            "no effect). Causal, unlike the associational lift." + never
        )
        svg = P.forest(
            sub,
            "target",
            panel=by[0] if by and sub[by[0]].n_unique() > 1 else None,
            flag="_never",
            flag_label=NEVER_WON,
            xlabel="causal power: win share unrestricted - barred (pts, 95% paired interval)",
        )
        out.append((caption, svg))
    return out + _character_plots(results)


def _character_plots(results):
    """The characters arm (Cluedo): each character's power with the seat order spread over
    it, beside the seats' own in the same games."""
    from . import plots as P

    t = results.get("character_power")
    if t is None or t.is_empty() or [c for c in t.columns if c in ("players",)] != ["players"]:
        return []
    out = []
    for kind, what in (("character", "starting character"), ("seat", "seat")):
        sub = t.filter(pl.col("kind") == kind)
        if sub.is_empty():
            continue
        caption = (
            f"Each {what}'s win share minus 1/n with the characters rotated over the seats, in pts "
            f"(95% interval, the deal as the unit, {int(sub['units'].min()):,} deals; dashed: fair)."
        )
        svg = P.forest(
            sub,
            "target",
            panel="players" if sub["players"].n_unique() > 1 else None,
            xlabel=f"{what}: win share - 1/n (pts, 95% interval over deals)",
        )
        out.append((caption, svg))
    return out
