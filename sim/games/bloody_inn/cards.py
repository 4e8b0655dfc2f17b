"""The Bloody Inn card table: load ``configs/bloody_inn/cards.csv``, check it against the
rules (BI-C1..C5), apply what-if edits, and parse the annex effects."""

from __future__ import annotations

import csv
import re

from ...config import data_dir
from ...errors import ConfigError

TYPES = ("merchant", "artisan", "religious", "police", "noble", "peasant")
COLOURS = ("blue", "red", "purple", "grey", "green", "yellow")
ACTIONS = ("bribe", "build", "kill", "bury")
POCKET_BY_RANK = {0: 8, 1: 12, 2: 18, 3: 26}  # BI-C2
COPIES_BY_RANK = {0: 4, 1: 4, 2: 3, 3: 3}  # BI-C1
EDITABLE = ("rank", "pocket", "copies", "effect")

#: effect name -> argument kinds ("colour", "action", "int"); trailing ints optional
EFFECTS = {
    "on_build_cash": ("int",),
    "on_build_cash_per_own_annex_of_colour": ("colour", "int?"),
    "discount": ("action", "int?"),
    "wage_reduction": ("int",),
    "leave_income": ("int",),
    "end_cash_per_exit_card_of_colour": ("colour", "int"),
    "end_cash_per_cheque": ("int",),
    "multi_target": ("action",),
    "room_service_token": (),
    "peasant_bribe_limit": ("int",),
    "replace_white_key": (),
    "bury_payment_returns": (),
    "police": (),
    "capacity_only": (),
}
_TERM = re.compile(r"^([a-z_]+)(?:\(([^()]*)\))?$")


def parse_effect(text, key="effect"):
    """Parse ``name(args)+name(args)`` into ``[(name, [args...]), ...]``.

    Raises ConfigError naming ``key`` for an unknown effect or a bad argument.
    """
    text = (text or "").strip()
    if not text:
        return []
    out = []
    for term in text.split("+"):
        m = _TERM.match(term.strip())
        if not m or m.group(1) not in EFFECTS:
            raise ConfigError(
                key, text, "effects " + ", ".join(sorted(EFFECTS)) + " joined by '+', e.g. on_build_cash(4)"
            )
        name, raw = m.group(1), m.group(2)
        args = [a.strip() for a in raw.split(";")] if raw else []
        spec = EFFECTS[name]
        need = sum(1 for s in spec if not s.endswith("?"))
        if not need <= len(args) <= len(spec):
            raise ConfigError(key, text, f"{name} takes {len(spec)} argument(s): {', '.join(spec)}")
        parsed = []
        for a, kind in zip(args, spec):
            kind = kind.rstrip("?")
            if kind == "colour" and a not in COLOURS:
                raise ConfigError(key, text, "a colour: " + ", ".join(COLOURS))
            if kind == "action" and a not in ACTIONS:
                raise ConfigError(key, text, "an action: " + ", ".join(ACTIONS))
            if kind == "int":
                if not re.fullmatch(r"\d{1,3}", a):
                    raise ConfigError(key, text, f"{name}: a whole number of francs 0..999")
                a = int(a)
            parsed.append(a)
        out.append((name, parsed))
    return out


#: the shipped card table (package data, see ``sim.config.data_dir``)
CARDS_CSV = data_dir() / "bloody_inn" / "cards.csv"


def load_table(path=None):
    """Read the card CSV (default: the shipped one) into a list of dicts with typed fields."""
    path = CARDS_CSV if path is None else path
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            rows.append(
                {
                    "id": row["id"],
                    "name": row["name"],
                    "type": row["type"],
                    "colour": row["colour"],
                    "affinity": row["affinity"],
                    "rank": int(row["rank"]),
                    "pocket": int(row["pocket"]),
                    "copies": int(row["copies"]),
                    "annex": row["annex"],
                    "effect": row["effect"],
                }
            )
    return rows


def check_table(rows):
    """BI-C1..C5 on the shipped table: 5 types x 14 cards with ranks 0/1/2/3 in 4/4/3/3
    copies, pocket money by rank, 8 peasants, police and peasants not annexes, effects
    parse.  Raises ConfigError naming the card and field."""
    by_type = {}
    for r in rows:
        key = f"cards.{r['id']}"
        if r["type"] == "aid":
            continue
        if r["type"] not in TYPES:
            raise ConfigError(key + ".type", r["type"], ", ".join(TYPES))
        parse_effect(r["effect"], key + ".effect")
        if r["type"] == "peasant":
            if (r["copies"], r["rank"], r["pocket"], r["annex"]) != (8, 0, 4, ""):
                raise ConfigError(key, r, "8 peasants of rank 0, pocket 4, no annex (BI-C1/C2)")
            continue
        if r["pocket"] != POCKET_BY_RANK.get(r["rank"]):
            raise ConfigError(key + ".pocket", r["pocket"], f"{POCKET_BY_RANK} by rank (BI-C2)")
        if (r["type"] == "police") != (r["annex"] == ""):
            raise ConfigError(key + ".annex", r["annex"], "police only cannot become annexes (BI-C3)")
        by_type.setdefault(r["type"], {}).setdefault(r["rank"], 0)
        by_type[r["type"]][r["rank"]] += r["copies"]
    for t in TYPES[:5]:
        if by_type.get(t) != COPIES_BY_RANK:
            raise ConfigError(f"cards[type={t}]", by_type.get(t), f"copies by rank {COPIES_BY_RANK} (BI-C1)")


def apply_edits(rows, edits):
    """Return a copy of ``rows`` with ``[cards.<id>]`` edits applied and checked."""
    rows = [dict(r) for r in rows]
    by_id = {r["id"]: r for r in rows if r["type"] != "aid"}
    if not isinstance(edits, dict):
        raise ConfigError("cards", edits, "a table of [cards.<id>] edits")
    for cid, edit in edits.items():
        if cid not in by_id:
            raise ConfigError("cards", cid, "a card id: " + ", ".join(by_id))
        if not isinstance(edit, dict):
            raise ConfigError(f"cards.{cid}", edit, "a table with " + ", ".join(EDITABLE))
        row = by_id[cid]
        for key, value in edit.items():
            full = f"cards.{cid}.{key}"
            if key not in EDITABLE:
                raise ConfigError(full, value, "one of " + ", ".join(EDITABLE))
            if row["type"] == "peasant" and key != "pocket":
                raise ConfigError(full, value, "only the pocket money of peasants can change")
            if key == "rank" and (isinstance(value, bool) or value not in (0, 1, 2, 3)):
                raise ConfigError(full, value, "0, 1, 2 or 3")
            if key == "pocket" and (
                isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 200
            ):
                raise ConfigError(full, value, "an integer from 0 to 200")
            if key == "copies" and (
                isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20
            ):
                raise ConfigError(full, value, "an integer from 0 to 20")
            if key == "effect":
                if not isinstance(value, str):
                    raise ConfigError(full, value, "an effect string")
                if row["type"] == "police":
                    raise ConfigError(full, value, "police cards have no annex (BI-C3)")
                parse_effect(value, full)
            row[key] = value
    return rows
