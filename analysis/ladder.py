"""Strength ladders: the same study entry played by stronger and stronger players.

A study entry with ``ladder = ["heuristic", "expert"]`` is played once per rung (every
seat that strategy).  Each question offers its headline numbers (``key_numbers``: an
estimate with its 95% interval); this module lines them up rung by rung and gives each a
verdict:

* **holds at every strength**: every estimate has the same sign, every interval excludes
  0, and the intervals of the top two rungs overlap (for a level such as rounds per
  game, ``zero = False``: the top two rungs' intervals overlap);
* **changes with strength**: the top two rungs' intervals separate, or the sign flips
  between rungs whose intervals exclude 0 (it says between which rungs);
* **undecided**: neither (an interval includes 0); it says about how many games per
  rung would decide it (the games that would shrink that interval to exclude 0 at the
  estimate seen).
"""

from __future__ import annotations

import math

import polars as pl

from .stats import Z95
from .text import AnswerTable


def _fmt(k):
    if k is None:
        return "n/a"
    unit = k.get("unit", "pts")
    scale = 100.0 if unit == "pts" else 1.0
    digits = k.get("digits", 1)
    if k.get("lo") is None or k.get("hi") is None or not math.isfinite(k["lo"]):
        return f"{scale * k['estimate']:+.{digits}f} {unit}"
    sign = "+" if unit == "pts" else ""
    return (
        f"{scale * k['estimate']:{sign}.{digits}f} {unit} "
        f"({scale * k['lo']:{sign}.{digits}f} to {scale * k['hi']:{sign}.{digits}f})"
    )


def _separate(a, b):
    return a["hi"] < b["lo"] or b["hi"] < a["lo"]


def verdict(values, rungs):
    """The verdict for one headline number.

    Parameters
    ----------
    values : list of dict or None
        Per rung, weakest first: ``estimate``, ``lo``, ``hi``, ``games`` and optionally
        ``zero = False`` for a level (rounds per game) that has no sign (None: not
        measured at that rung).
    rungs : list of str
        The rung names, weakest first.

    Returns
    -------
    (word, sentence) : word is "holds", "changes" or "undecided"
    """
    pts = [(r, v) for r, v in zip(rungs, values) if v is not None and v.get("lo") is not None]
    if len(pts) < 2:
        return "undecided", "measured at fewer than two rungs"
    seps = [(a[0], b[0]) for a, b in zip(pts, pts[1:]) if _separate(a[1], b[1])]
    where = "; ".join(f"between {a} and {b}" for a, b in seps)
    top_two_apart = _separate(pts[-2][1], pts[-1][1])
    level = not pts[0][1].get("zero", True)
    clear = [(r, v) for r, v in pts if not (v["lo"] <= 0 <= v["hi"])]
    flips = len({math.copysign(1.0, v["estimate"]) for _, v in clear}) > 1
    if top_two_apart or (not level and flips):
        if not where:  # a sign flip between rungs that do not neighbour
            where = "between " + " and ".join(r for r, _ in clear)
        return "changes", f"changes with strength ({where})"
    if level or len(clear) == len(pts):
        extra = f"; it moved {where} below the top" if where else ""
        return "holds", f"holds at every strength{extra}"
    if any(v.get("scales") is False for _, v in pts):
        return "undecided", (
            "undecided (an interval includes 0; more games would not decide it: the spread "
            "between annexes, not the games, sets the interval)"
        )
    need = 0
    for _, v in pts:
        if v["lo"] <= 0 <= v["hi"]:
            se = (v["hi"] - v["lo"]) / (2 * Z95)
            if v["estimate"] == 0 or se <= 0:
                need = math.inf
                break
            need = max(need, math.ceil(v["games"] * (Z95 * se / abs(v["estimate"])) ** 2))
    if need == math.inf or need > 1e9:
        how = "far more games than played would be needed to decide it"
    else:
        how = f"about {need:,} games per rung would decide it"
    return "undecided", f"undecided (an interval includes 0: {how})"


def ladder_section(label, targets, sections):
    """The ladder's answer: one table (a row per headline number, a column per rung,
    strongest first) and one sentence per verdict that is not "holds".

    Parameters
    ----------
    label : str
        The study entry's label.
    targets : list of (rung, entry label)
        Strongest rung first, as the entries were added to the report.
    sections : list of report.Section
    """
    from .report import Section

    rungs_top_first = [r for r, _ in targets]
    by_rung = {}
    order = []
    for i, (rung, entry_label) in enumerate(targets):
        for sec in sections:
            if sec.dataset != entry_label:
                continue
            for k in sec.key_numbers:
                key = k["key"]
                by_rung.setdefault(key, {})[rung] = k
                # an optional number (one annex's lift) is shown when it is a headline at
                # the strongest rung, then looked up at every other rung
                if key not in order and (not k.get("optional") or (i == 0 and k.get("headline"))):
                    order.append(key)
    if not order:
        return None
    weak_first = list(reversed(rungs_top_first))
    rows, words = [], {}
    for key in order:
        vals = [by_rung[key].get(r) for r in weak_first]
        word, sentence = verdict(vals, weak_first)
        rows.append(
            {"answer": key, **{r: _fmt(by_rung[key].get(r)) for r in rungs_top_first}, "verdict": sentence}
        )
        words.setdefault(word, []).append(key)
    table = pl.DataFrame(rows)
    caption = (
        "Each headline number at every rung of the ladder (strongest first; 95% intervals). "
        "holds = same sign and clear of 0 at every rung, the top two rungs' intervals "
        "overlap; changes = the top two rungs separate or the sign flips; undecided = an "
        "interval includes 0."
    )
    head = [AnswerTable(table, caption)]
    held = len(words.get("holds", []))
    s = f"{held} of {len(rows)} headline numbers hold at every strength from {weak_first[0]} to {weak_first[-1]}"
    if words.get("changes"):
        s += "; they change with strength: " + "; ".join(words["changes"])
    if words.get("undecided"):
        s += "; undecided: " + "; ".join(words["undecided"])
    head.append(s + ".")
    return Section(
        "ladder",
        "Strength ladder: do the answers hold for stronger players?",
        label,
        head,
        [("ladder", "Headline numbers per rung", caption, table)],
        [],
    )
