"""The verdict block: one sentence per answerable question, at the top of a report.

Each question offers its headline numbers (``key_numbers``: an estimate with its 95%
interval).  A question played at several strengths (a study's ladder: the same entry once
per rung, strongest first) gets one verdict spoken by the strongest rung whose intervals are
narrow enough to decide every number; the other rungs support it, or, when one of their
intervals separates from the speaking rung's, the verdict says the answer changes with
strength and names that rung and by how much.  A number decides when its interval excludes
0 (a clear advantage) or lies within +-``margin`` of 0 (no advantage worth a point); a level
(rounds per game, ``zero = False``) decides once its interval lies within +-``precision`` of
itself (default 1%; a description such as lead changes per game sets a coarser one).  A zero-width interval is a degenerate
arm (it cannot win, or always wins): flagged, never ranked.  Nothing here claims more than
the interval: "undecided" when the interval holds 0 and is wider than the margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

#: within this distance of 0 (a share difference) an interval says "no advantage"
MARGIN = 0.01


@dataclass
class Verdict:
    """One question's verdict: its title and the sentence."""

    question: str
    title: str
    sentence: str


def _fmt(k):
    unit = k.get("unit", "pts")
    scale = 100.0 if unit == "pts" else 1.0
    digits = k.get("digits", 1)
    sign = "+" if unit == "pts" else ""
    est = f"{scale * k['estimate']:{sign}.{digits}f}"
    if k.get("lo") is None or k.get("hi") is None or not math.isfinite(k["lo"]):
        return f"{est} {unit} (no interval)"
    lo, hi = f"{scale * k['lo']:{sign}.{digits}f}", f"{scale * k['hi']:{sign}.{digits}f}"
    return f"{est} {unit} [{lo}, {hi}]"


def degenerate(k) -> bool:
    """A zero-width interval: the number cannot vary (an arm that cannot win, or one seat
    always wins), so it is no finding."""
    if k.get("degenerate"):
        return True
    return k.get("lo") is not None and k.get("hi") is not None and k["hi"] - k["lo"] <= 1e-12


def classify(k, margin=MARGIN) -> str:
    """'degenerate', 'level', 'above', 'below', 'even' (within +-margin) or 'undecided'."""
    if k.get("lo") is None or k.get("hi") is None or not math.isfinite(k["lo"]):
        return "undecided"
    if degenerate(k):
        return "degenerate"
    if k.get("zero", True) is False:  # a level decides once it is known to +-precision of itself
        return "level" if k["hi"] - k["lo"] <= 2 * _precision(k) * abs(k["estimate"]) else "imprecise"
    if k["lo"] > 0:
        return "above"
    if k["hi"] < 0:
        return "below"
    if -margin <= k["lo"] and k["hi"] <= margin:
        return "even"
    return "undecided"


def _precision(k):
    """The relative half-width at which a level counts as known (default 1%)."""
    return k.get("precision", 0.01)


def _word(k, margin):
    """The words said after a number: its class, the imprecise one with the key's precision."""
    c = classify(k, margin)
    if c == "imprecise":
        return f"imprecise (the interval is wider than ±{100 * _precision(k):g}% of the value)"
    return _WORDS[c].format(m=100 * margin)


_WORDS = {
    "above": "above 0",
    "below": "below 0",
    "even": "within ±{m:.0f} pt of 0 (no advantage)",
    "undecided": "undecided (the interval holds 0 and is wider than ±{m:.0f} pt)",
    "degenerate": "degenerate (zero-width interval: cannot vary), not ranked",
    "level": "",
}


def _decides(k, margin):
    return classify(k, margin) not in ("undecided", "imprecise")


def speaking_rung(rungs, margin=MARGIN):
    """Index of the rung that speaks: the strongest (first) one that decides every number;
    else the one deciding the most (the strongest among equals)."""
    scores = [sum(_decides(k, margin) for k in keys) for _, keys in rungs]
    for i, ((_, keys), s) in enumerate(zip(rungs, scores)):
        if keys and s == len(keys):
            return i
    return max(range(len(rungs)), key=lambda i: (scores[i], -i))


def _games(keys):
    g = sorted({k.get("games") for k in keys if k.get("games")})
    if not g:
        return ""
    word = keys[0].get("count", "games")
    return f"{g[0]:,} {word} per cell" if len(g) == 1 else f"{g[0]:,}-{g[-1]:,} {word} per cell"


#: more numbers than this and a verdict counts them per class and names the extremes
MAX_LISTED = 4


def _parts(keys, margin, m):
    """Each number with its interval and class; many numbers as counts and extremes."""
    if len(keys) <= MAX_LISTED:
        out = []
        for k in keys:
            word = _word(k, margin)
            out.append(f"{k['key']} {_fmt(k)}" + (f", {word}" if word else ""))
        return out
    classes = {}
    for k in keys:
        classes.setdefault(classify(k, margin), []).append(k)
    names = {
        "above": "above 0",
        "below": "below 0",
        "even": "within ±1 pt of 0",
        "undecided": "undecided",
        "degenerate": "degenerate (not ranked)",
        "level": "measured",
        "imprecise": "imprecise (wider than their precision)",
    }
    counts = ", ".join(f"{len(v)} {names[c]}" for c, v in classes.items())
    ranked = [k for k in keys if not degenerate(k)]
    out = [f"{len(keys)} numbers: {counts}"]
    if ranked:
        lo, hi = min(ranked, key=lambda k: k["estimate"]), max(ranked, key=lambda k: k["estimate"])
        out.append(f"lowest {lo['key']} {_fmt(lo)}; highest {hi['key']} {_fmt(hi)}")
    return out


def verdict(question, title, rungs, scope="", margin=MARGIN) -> Verdict | None:
    """One question's verdict.

    Parameters
    ----------
    question, title : str
    rungs : list of (rung name or "", list of key-number dicts)
        Strongest first; one entry (name "") when the question was played at one strength.
    scope : str
        Who plays and what the data hold, said in the sentence (e.g. "every seat plays
        expert").

    Returns
    -------
    Verdict or None
        None when no rung has a number (the question does not apply).
    """
    rungs = [(r, keys) for r, keys in rungs if keys]
    if not rungs:
        return None
    i = speaking_rung(rungs, margin)
    name, keys = rungs[i]
    m = 100 * margin
    parts = _parts(keys, margin, m)
    head = f"under {name}" if name else "measured"
    where = ", ".join(x for x in (_games(keys), scope) if x)
    s = f"{head}" + (f" ({where})" if where else "") + ": " + "; ".join(parts) + "."
    others = [(r, ks) for j, (r, ks) in enumerate(rungs) if j != i]
    changes = _ladder_changes(rungs, keys, margin) if others else []
    if changes:
        s += " Changes with strength: " + "; ".join(changes) + "."
    elif others:
        s += " Support: " + ", ".join(r for r, _ in others) + " (no change between rungs shown)."
    s = s[0].upper() + s[1:]
    return Verdict(question, title, s)


def _ladder_changes(rungs, keys, margin):
    """The numbers of the speaking rung's ``keys`` that change with strength, by the ladder's
    test (:func:`analysis.ladder.verdicts`: adjacent-rung differences, Holm over the family),
    so the verdict and the ladder table never disagree; overlap or separation of two
    intervals is not the test."""
    from .ladder import verdicts as ladder_verdicts

    order = list(reversed(rungs))  # weakest first, as the ladder reads them
    rows = []
    for k in keys:
        row = []
        for _, ks in order:
            v = next((x for x in ks if x["key"] == k["key"]), None)
            row.append(None if v is None or degenerate(v) else v)
        rows.append(row)
    found = ladder_verdicts(rows, [r for r, _ in order], margin)
    return [f"{k['key']} {sentence}" for k, (word, sentence) in zip(keys, found) if word == "changes"]


def power_keys(table, names=None):
    """Key numbers of a causal-power table (``target``, ``power`` and its interval): an arm
    whose restricted seat never won is degenerate (its power is its whole share)."""
    names = names or {}
    out = []
    for r in table.sort("power", descending=True).iter_rows(named=True):
        cannot_win = r.get("share_restricted") == 0
        out.append(
            {
                "key": f"{names.get(r['target'], r['target'])}, {r['players']}p",
                "estimate": r["power"],
                "lo": r["power_lo"],
                "hi": r["power_hi"],
                "games": r.get("units"),
                "unit": "pts",
                "degenerate": cannot_win,
                "count": "paired deals",
            }
        )
    return out


def _rung_groups(sections):
    """Sections grouped per question and key set, in report order: a ladder's rungs (the
    same entry label with ``, <rung>`` appended, strongest first) form one group."""
    groups = {}
    for sec in sections:
        if sec.question == "power" and not sec.key_numbers:
            for name, _, _, df in sec.tables:
                if name == "causal_power" and {"target", "power", "power_lo", "power_hi"} <= set(df.columns):
                    sec.key_numbers = power_keys(df)
        if not sec.key_numbers or sec.question == "ladder":
            continue
        keyset = tuple(k["key"] for k in sec.key_numbers if not k.get("optional"))
        groups.setdefault((sec.question, keyset), []).append(sec)
    return list(groups.values())


def _rung_name(label, labels):
    """The rung part of a ladder entry's label (what follows the labels' common prefix)."""
    if len(labels) < 2:
        return ""
    pre = labels[0]
    for x in labels[1:]:
        while not x.startswith(pre):
            pre = pre[:-1]
    pre = pre[: pre.rfind(", ") + 2] if ", " in pre else ""
    return label[len(pre) :] or label


def _table(sec, name):
    return next((df for n, _, _, df in sec.tables if n == name), None)


def deck_verdict(sec) -> Verdict | None:
    """The deck-size verdict of a sweep section: per player count the official deck against
    the most even one (the bootstrap's set of decks not detectably worse is the interval: a
    deck outside it is detectably less even), with the game length each implies."""
    best, cells = _table(sec, "best_deck"), _table(sec, "deck_cells")
    if best is None or best.is_empty():
        return None
    rounds = {}
    if cells is not None and {"players", "deck_size", "rounds"} <= set(cells.columns):
        rounds = {(r["players"], r["deck_size"]): r["rounds"] for r in cells.iter_rows(named=True)}
    parts = []
    for r in best.iter_rows(named=True):
        p, b = r["players"], r["best"]

        def cards(d, p=p):
            return f"{d} cards" + (f" ({rounds[(p, d)]:.1f} rounds)" if (p, d) in rounds else "")

        near = r["best_set"].split(", ") if r["best_set"] else []
        s = (
            f"{p}p: most even {cards(b)}, best in {100 * r['p_best']:.0f}% of bootstrap replicates; "
            f"{len(near)} of {r['deck_sizes']} sizes not detectably less even"
        )
        if r.get("official") is None:
            s += "; the official deck is not in the grid"
        elif r["official"] != b:
            among = "among them" if r["official_in_set"] else "detectably less even"
            s += f", the official {cards(r['official'])} {among}"
        else:
            s += " (it is the official deck)"
        parts.append(s)
    games = sorted({int(g) for g in cells["games"].to_list()}) if cells is not None else []
    where = ", ".join(
        x
        for x in (
            (f"{games[0]:,} games per cell" if len(games) == 1 else "") if games else "",
            getattr(sec, "scope", ""),
        )
        if x
    )
    s = "Measured" + (f" ({where})" if where else "") + ": " + "; ".join(parts) + "."
    if all(x["p_best"] < 0.5 for x in best.iter_rows(named=True)):
        s += " No single deck is clearly the most even at any player count: read the sets, not the winners."
    return Verdict("deck", sec.title, s)


def _wilson(wins, n, z):
    if n <= 0:
        return 0.0, 1.0
    p, z2 = wins / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def spread_interval(wins, games, level=0.95):
    """The spread of several win shares (largest minus smallest) with an interval for the
    true spread: Wilson intervals simultaneous over the shares (Bonferroni, so it holds
    however the shares depend on each other, as characters of one game do); if every true
    share is in its interval, the true spread lies between the largest lower end minus the
    smallest upper end (at least 0) and the largest upper end minus the smallest lower end.

    Returns
    -------
    (spread, lo, hi)
    """
    k = len(wins)
    z = NormalDist().inv_cdf(1 - (1 - level) / (2 * k))
    shares = [w / n for w, n in zip(wins, games)]
    ends = [_wilson(w, n, z) for w, n in zip(wins, games)]
    lo = max(0.0, max(a for a, _ in ends) - min(b for _, b in ends))
    hi = max(b for _, b in ends) - min(a for a, _ in ends)
    return max(shares) - min(shares), lo, hi


def characters_verdict(sec) -> Verdict | None:
    """Per player count: how far apart the characters' win shares are (the spread in pts
    with its simultaneous 95% interval), the extremes named, beside the equal-shares test."""
    t, tests = _table(sec, "character_win_share"), _table(sec, "character_equality")
    if t is None or t.is_empty():
        return None
    by = [c for c in t.columns if c not in _CHARACTER_COLS and c != "arm_id"]
    parts, sizes = [], set()
    for key, g in t.group_by(by, maintain_order=True):
        if g.height < 2:
            continue
        g = g.sort(["share", "character"])
        d, lo, hi = spread_interval(g["wins"].to_list(), g["games"].to_list())
        low, top = g.row(0, named=True), g.row(-1, named=True)
        sizes.add(int(g["games"].min()))
        key = key if isinstance(key, tuple) else (key,)
        # a power run's arm reads by its name ('Bishopric barred'), another parameter as k=v
        cell = ", ".join(
            f"{v}p" if k == "players" else str(v) if k == "arm" else f"{k}={v}" for k, v in zip(by, key)
        )
        size = (
            f"the characters differ by at least {100 * lo:.1f} pts"
            if lo > 0
            else "no spread shown (the interval reaches 0)"
        )
        s = (
            f"{cell}: character win shares spread {100 * d:.1f} pts [{100 * lo:.1f}, {100 * hi:.1f}] "
            f"({low['character']} {100 * low['share']:.1f}% to {top['character']} {100 * top['share']:.1f}%): {size}"
        )
        if tests is not None and "p_value" in tests.columns:
            row = tests
            for k, v in zip(by, key):
                row = row.filter(row[k] == v)
            if row.height:
                p = row["p_value"][0]
                s += " (equal-characters test " + ("p < 0.001)" if p < 0.001 else f"p = {p:.3f})")
        parts.append(s)
    if not parts:
        return None
    games = f"{min(sizes):,} games per character" if sizes else ""
    where = ", ".join(
        x for x in (games, getattr(sec, "scope", ""), "interval simultaneous over the characters") if x
    )
    return Verdict("characters", sec.title, f"Measured ({where}): " + "; ".join(parts) + ".")


_CHARACTER_COLS = {"character", "games", "wins", "share", "share_lo", "share_hi", "fair", "gap"}
#: questions whose verdict is read from their tables, not from headline numbers
_TABLE_VERDICTS = {"deck": deck_verdict, "characters": characters_verdict}


def verdict_block(sections, scopes=None, margin=MARGIN):
    """The report's verdicts, one per answerable question (group of rungs).

    Parameters
    ----------
    sections : list of report.Section
    scopes : dict, optional
        question -> scope caveat said in the sentence (e.g. "association, not cause").

    Returns
    -------
    list of Verdict
    """
    scopes = scopes or {}
    # a deck sweep's answer first (what it was built for), then the seats, cause before association
    order = {"deck": -1, "seats": 0, "power": 1, "characters": 3, "cards": 4, "duration": 5}
    sections = sorted(sections, key=lambda s: order.get(s.question, 3))  # stable: rungs keep order
    out = []
    for sec in sections:  # a set of decks, a spread of characters: not one number each
        v = _TABLE_VERDICTS[sec.question](sec) if sec.question in _TABLE_VERDICTS else None
        if v is not None:
            if sec.dataset and len(set(s.dataset for s in sections)) > 1:
                v.sentence = f"{sec.dataset}: {v.sentence}"
            out.append((order.get(sec.question, 3), len(out), v))
    for secs in _rung_groups(sections):
        labels = [s.dataset for s in secs]
        rungs = [
            (_rung_name(s.dataset, labels), [k for k in s.key_numbers if not k.get("optional")]) for s in secs
        ]
        scope = scopes.get(secs[0].question, "")
        if len(secs) > 1:  # a ladder: self-play at each rung
            scope = ", ".join(x for x in ("every seat plays the rung's strategy", scope) if x)
        else:  # who plays (a recommendation holds for that player only)
            scope = ", ".join(x for x in (getattr(secs[0], "scope", ""), scope) if x)
        v = verdict(secs[0].question, secs[0].title, rungs, scope, margin)
        if v is not None:
            if len(secs) == 1 and secs[0].dataset and len(set(s.dataset for s in sections)) > 1:
                v.sentence = f"{secs[0].dataset}: {v.sentence}"
            out.append((order.get(secs[0].question, 3), len(out), v))
    return [v for *_, v in sorted(out, key=lambda x: x[:2])]
