"""The cards of one run, as the referee sees them: one :class:`Card` per card instance.

Instances are numbered as the log numbers them (the ``card`` column): the travellers in
card-table order, each repeated ``copies`` times, the whole repeated ``deck_copies`` times,
then the 8 peasants.  Card data come from the resolved config (the card table with the run's
what-if edits); the effect column (``name(arg;arg)+name(...)``, BI-C5, configs/bloody_inn/README.md)
is read here, apart from the adapter's card loader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TERM = re.compile(r"^([a-z_]+)(?:\(([^()]*)\))?$")


def parse_effect(text):
    """``"discount(bribe;2)+multi_target(bribe)"`` -> ``[("discount", ["bribe", 2]), ...]``
    (whole numbers as ``int``); the referee's own reading of the card table's effect column.

    Raises
    ------
    ValueError
        a term that is not ``name`` or ``name(args)``.
    """
    out = []
    for term in (text or "").split("+"):
        term = term.strip()
        if not term:
            continue
        m = _TERM.match(term)
        if m is None:
            raise ValueError(f"the card effect {text!r} has a term {term!r} that is not name(args)")
        args = [a.strip() for a in m.group(2).split(";")] if m.group(2) else []
        out.append((m.group(1), [int(a) if a.isdigit() else a for a in args]))
    return out


ACTIONS = ("bribe", "build", "kill", "bury")
PEASANTS = 8  # BI-C1


@dataclass(frozen=True)
class Card:
    """One card instance (static data)."""

    index: int
    kind: str  # card id of the table, e.g. "marquis"
    kind_index: int  # row of the table
    type: str  # merchant, artisan, religious, police, noble, peasant
    colour: str
    affinity: str  # bribe / build / kill / bury, or "" (nobles, peasants)
    rank: int
    pocket: int
    annex: str  # annex name, "" if the card cannot become one
    effects: tuple  # ((name, (args...)), ...) of its annex

    @property
    def is_peasant(self):
        return self.type == "peasant"

    @property
    def is_police(self):
        return self.type == "police"

    @property
    def annexable(self):
        """BI-C3: police and peasants cannot become annexes; others have an annex side."""
        return self.annex != "" and self.type not in ("police", "peasant")

    def effect_args(self, name):
        """Argument tuples of every effect ``name`` of this card's annex."""
        return [args for n, args in self.effects if n == name]


def card_instances(resolved):
    """The list of :class:`Card` of a resolved Bloody Inn config, indexed like the log."""
    table = [row for row in resolved["cards"] if row["type"] != "aid"]
    copies = resolved["rules"]["deck_copies"]
    order = []
    for _ in range(copies):
        for k, row in enumerate(table):
            if row["type"] != "peasant":
                order.extend([k] * int(row["copies"]))
    peasant_rows = [k for k, row in enumerate(table) if row["type"] == "peasant"]
    if len(peasant_rows) != 1:
        raise ValueError("the card table must have exactly one peasant row")
    order.extend([peasant_rows[0]] * PEASANTS)
    cards = []
    for i, k in enumerate(order):
        row = table[k]
        effects = tuple((name, tuple(args)) for name, args in parse_effect(row["effect"]))
        cards.append(
            Card(
                index=i,
                kind=row["id"],
                kind_index=k,
                type=row["type"],
                colour=row["colour"],
                affinity=row["affinity"] or "",
                rank=int(row["rank"]),
                pocket=int(row["pocket"]),
                annex=row["annex"] or "",
                effects=effects,
            )
        )
    return cards


def annex_bits(resolved):
    """Bit of the seats table's ``annex_mask`` column per card id: the rows of the table that
    have an annex side, numbered in table order.  The referee's own numbering, kept apart ON
    PURPOSE (the independent reading; the project's one source is
    ``sim.games.bloody_inn.adapter.annex_bits``, which a test compares with this)."""
    bits = {}
    for row in resolved["cards"]:
        if row["type"] != "aid" and row["annex"]:
            bits[row["id"]] = len(bits)
    return bits
