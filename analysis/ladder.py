"""Strength ladders: the same study entry played by stronger and stronger players.

A study entry with ``ladder = ["heuristic", "expert"]`` is played once per rung (every
seat that strategy).  Each question offers its headline numbers (``key_numbers``: an
estimate with its 95% interval); this module lines them up rung by rung and gives each a
verdict from the differences between adjacent rungs (``stats.mover_difference``: the
difference of two independent estimates from their own intervals), never from whether two
intervals overlap:

* **changes with strength**: the difference between two adjacent rungs is clear of 0 at 5%
  after Holm's correction over every adjacent difference of the ladder's table (it says
  between which rungs, and by how much);
* **holds at every strength**: every rung's interval excludes 0 on the same side (a level
  such as rounds per game, ``zero = False``, has no side), and every adjacent difference is
  shown within the equivalence margin (two one-sided tests at 5%, the rungs together as an
  intersection-union test, Holm over the table's numbers): ``MARGIN`` (1 pt) for a number
  in pts, ``LEVEL_MARGIN`` (1%) of the value for a level;
* **undecided**: neither; it says about how many games per rung would decide it with 80%
  power (:func:`games_to_decide`), or that more games would not (a number whose interval
  is set by the spread between annexes).
"""

from __future__ import annotations

import math

import polars as pl

from .stats import Z95, equivalence_p_sides, holm, mover_difference
from .text import AnswerTable

#: a headline number in pts holds when adjacent rungs are shown within +-1 pt of each other
MARGIN = 0.01
#: a level (rounds per game) holds when adjacent rungs are shown within +-1% of its value
LEVEL_MARGIN = 0.01
#: the level of every test (changes, holds); the power asked of the games that would decide
ALPHA, POWER = 0.05, 0.80


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


def _fmt_diff(k, d):
    unit = k.get("unit", "pts")
    scale = 100.0 if unit == "pts" else 1.0
    g = k.get("digits", 1)
    return f"{scale * d['diff']:+.{g}f} {unit} [{scale * d['lo']:+.{g}f}, {scale * d['hi']:+.{g}f}]"


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _z(tail):
    """The normal quantile with upper tail ``tail``."""
    from scipy.special import ndtri

    return float(-ndtri(tail))


def _sides(v):
    """Per-side standard errors of a rung's estimate, read off its 95% interval."""
    return (v["estimate"] - v["lo"]) / Z95, (v["hi"] - v["estimate"]) / Z95


def _sign_p(v):
    """Two-sided p-value of "the rung's value is 0" that agrees with its interval."""
    e = v["estimate"]
    if e == 0:
        return 1.0
    se = _sides(v)[0 if e > 0 else 1]
    return math.erfc(abs(e) / se / math.sqrt(2.0)) if se > 0 else 0.0


def _margin(a, b, margin):
    if a.get("unit", "pts") == "pts":
        return margin
    return LEVEL_MARGIN * 0.5 * (abs(a["estimate"]) + abs(b["estimate"]))


def _measured(v):
    """A rung's number with a finite interval (an annex lift may have none)."""
    return (
        v is not None
        and v.get("lo") is not None
        and v.get("hi") is not None
        and all(math.isfinite(v[c]) for c in ("estimate", "lo", "hi"))
    )


class _Row:
    """One headline number across the rungs: its adjacent differences and tests."""

    def __init__(self, values, rungs, margin):
        self.pts = [(r, v) for r, v in zip(rungs, values) if _measured(v)]
        self.level = bool(self.pts) and not self.pts[0][1].get("zero", True)
        self.sides = [(*_sides(v), v.get("games")) for _, v in self.pts]
        self.diffs = []
        for (ra, a), (rb, b) in zip(self.pts, self.pts[1:]):
            d = mover_difference(a["estimate"], a["lo"], a["hi"], b["estimate"], b["lo"], b["hi"])
            m = _margin(a, b, margin)
            d.update(
                a=ra, b=rb, margin=m, p_equiv=equivalence_p_sides(d["diff"], d["se_down"], d["se_up"], m)
            )
            self.diffs.append(d)
        signs = {math.copysign(1.0, v["estimate"]) if v["estimate"] else 0.0 for _, v in self.pts}
        self.one_side = self.level or (len(signs) == 1 and 0.0 not in signs)
        ps = [d["p_equiv"] for d in self.diffs]
        if not self.level:
            ps += [_sign_p(v) for _, v in self.pts]
        # intersection-union: the number holds when every one of its tests does
        self.p_holds = max(ps) if self.one_side and ps else 1.0


def verdicts(rows, rungs, margin=MARGIN):
    """The verdicts for the headline numbers of one ladder table.

    Parameters
    ----------
    rows : list of list of (dict or None)
        Per headline number, per rung (weakest first): ``estimate``, ``lo``, ``hi``,
        ``games`` and optionally ``zero = False`` (a level with no sign), ``unit`` and
        ``scales = False`` (an interval that more games would not narrow).  None: not
        measured at that rung.
    rungs : list of str
        The rung names, weakest first.
    margin : float
        The equivalence margin of a number in pts (a share: 0.01 = 1 pt).

    Returns
    -------
    list of (word, sentence) : word is "holds", "changes" or "undecided"

    Notes
    -----
    The adjacent differences of every number form one family ("changes" claims, Holm) and
    the numbers another ("holds" claims, Holm on each number's intersection-union p-value).
    """
    table = [_Row(values, rungs, margin) for values in rows]
    used = [t for t in table if len(t.pts) >= 2]
    family = [d for t in used for d in t.diffs]
    for d, p in zip(family, holm([d["p_value"] for d in family])):
        d["p_holm"] = p
    for t, p in zip(used, holm([t.p_holds for t in used])):
        t.p_holds_holm = p
    out = []
    for t in table:
        if len(t.pts) < 2:
            out.append(("undecided", "measured at fewer than two rungs"))
            continue
        k = t.pts[0][1]
        moved = [d for d in t.diffs if d["p_holm"] < ALPHA]
        if moved:
            where = "; ".join(f"between {d['a']} and {d['b']}: {_fmt_diff(k, d)}" for d in moved)
            small = ""
            if all(-d["margin"] <= d["lo"] and d["hi"] <= d["margin"] for d in moved):
                small = f", each within {_scope(t, margin)}"
            out.append(("changes", f"changes with strength ({where}{small})"))
        elif t.p_holds_holm < ALPHA:
            out.append(("holds", f"holds at every strength (adjacent rungs within {_scope(t, margin)})"))
        elif any(v.get("scales") is False for _, v in t.pts):
            out.append(
                (
                    "undecided",
                    "undecided (more games would not decide it: the spread between annexes, "
                    "not the games, sets the interval)",
                )
            )
        else:
            n, route = games_to_decide(t, len(family), len(used))
            if not math.isfinite(n) or n > 1e9:
                how = "far more games than played would be needed to decide it"
            else:
                how = f"about {_round3(n):,} games per rung would decide it, with 80% power to show {route}"
            out.append(("undecided", f"undecided ({how})"))
    return out


def _scope(t, margin):
    if t.pts[0][1].get("unit", "pts") != "pts":
        return f"±{100 * LEVEL_MARGIN:g}% of the value"
    return f"±{100 * margin:g} pt"


def verdict(values, rungs, margin=MARGIN):
    """The verdict for one headline number on its own (its adjacent differences the only
    family): see :func:`verdicts`."""
    return verdicts([values], rungs, margin)[0]


def _round3(n):
    """``n`` rounded up to three significant figures."""
    n = math.ceil(n)
    if n < 1000:
        return n
    step = 10 ** (len(str(n)) - 3)
    return -(-n // step) * step


def _scaled(t, n):
    """Per rung: its two side standard errors at ``n`` games per rung (a rung that already
    has more keeps its own)."""
    out = []
    for lo, hi, g in t.sides:
        f = math.sqrt(g / max(g, n)) if g else 1.0
        out.append((lo * f, hi * f))
    return out


def _power_changes(t, n, z):
    """Chance at ``n`` games per rung that some adjacent difference is clear of 0 at the
    level of Holm's first step (normal approximation, the observed differences taken as
    true)."""
    s = _scaled(t, n)
    miss = 1.0
    for i, d in enumerate(t.diffs):
        if d["diff"] == 0:
            continue
        (a_lo, a_hi), (b_lo, b_hi) = s[i], s[i + 1]
        se = math.hypot(b_lo, a_hi) if d["diff"] > 0 else math.hypot(b_hi, a_lo)
        miss *= 1.0 - (_phi(abs(d["diff"]) / se - z) if se > 0 else 1.0)
    return 1.0 - miss


def _power_holds(t, n, z_sign, z_equiv):
    """Chance at ``n`` games per rung that every test of "holds" passes: each rung clear of
    0 on its side, each adjacent difference within its margin (TOST power), taken as
    independent."""
    if not t.one_side or any(abs(d["diff"]) >= d["margin"] for d in t.diffs):
        return 0.0
    s = _scaled(t, n)
    p = 1.0
    if not t.level:
        for (_, v), (lo, hi) in zip(t.pts, s):
            se = lo if v["estimate"] > 0 else hi
            p *= _phi(abs(v["estimate"]) / se - z_sign) if se > 0 else 1.0
    for i, d in enumerate(t.diffs):
        (a_lo, a_hi), (b_lo, b_hi) = s[i], s[i + 1]
        down, up = math.hypot(b_lo, a_hi), math.hypot(b_hi, a_lo)
        m, x = d["margin"], d["diff"]
        if down > 0 and up > 0:
            p *= max(0.0, _phi((m - x) / up - z_equiv) + _phi((m + x) / down - z_equiv) - 1.0)
    return p


def _smallest_n(power, lo=1.0, hi=1e10):
    """Smallest games per rung at which ``power(n)`` reaches ``POWER`` (it grows with n)."""
    if power(hi) < POWER:
        return math.inf
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if power(mid) < POWER else (lo, mid)
        if hi / lo < 1.0005:
            break
    return hi


def games_to_decide(t, family, numbers):
    """Games per rung (rungs that have more keep theirs) at which an undecided number would
    be decided with 80% power, taking the observed values as the truth, and which way.

    Each rung's standard errors shrink as ``sqrt(games / n)``.  "changes": the chance that
    some adjacent difference ``d`` clears 0 at Holm's first level ``0.05 / family``,
    ``1 - prod(1 - Phi(|d| / se_d(n) - z))``; "holds": the chance that every rung clears 0
    (``Phi(|est| / se(n) - z)``) and every difference is shown within its margin ``m``
    (``Phi((m - d) / se_d(n) - z') + Phi((m + d) / se_d(n) - z') - 1``, z' one-sided at
    ``0.05 / numbers``).  For one rung whose interval holds 0 this is
    ``n = games * ((1.96 + 0.84) * se / |est|)**2``.  The smaller of the two ways.

    Returns
    -------
    (games, "a change" or "that it holds")
    """
    z_c = _z(ALPHA / (2 * max(family, 1)))
    z_s, z_e = _z(ALPHA / (2 * max(numbers, 1))), _z(ALPHA / max(numbers, 1))
    n_c = _smallest_n(lambda n: _power_changes(t, n, z_c))
    n_h = _smallest_n(lambda n: _power_holds(t, n, z_s, z_e))
    return (n_c, "a change") if n_c <= n_h else (n_h, "that it holds")


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
    values = [[by_rung[key].get(r) for r in weak_first] for key in order]
    for key, (word, sentence) in zip(order, verdicts(values, weak_first)):
        rows.append(
            {"answer": key, **{r: _fmt(by_rung[key].get(r)) for r in rungs_top_first}, "verdict": sentence}
        )
        words.setdefault(word, []).append(key)
    table = pl.DataFrame(rows)
    caption = (
        "Each headline number at every rung of the ladder (strongest first; 95% intervals). "
        "Verdicts from the differences between adjacent rungs (each from the two rungs' "
        "intervals; in brackets, with its 95% interval): changes = a difference clear of 0 "
        "after Holm's correction over every difference in the table; holds = every rung "
        f"clear of 0 on the same side and every difference shown within ±{100 * MARGIN:g} pt "
        f"(a level: ±{100 * LEVEL_MARGIN:g}% of the value) by two one-sided tests, Holm over "
        "the table's numbers; undecided = neither, with the games per rung that would decide "
        "it with 80% power."
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
