"""Number formatting shared by the terminal tables, the headlines and the reports.

One place decides how a value prints, so the same data always give the same text.
"""

from __future__ import annotations

import math

import polars as pl

# Columns holding proportions (printed as percentages).  A column is a proportion when its
# name is listed here, or ends in ``_lo``/``_hi`` after one of these names.
PROPORTIONS = {
    "share",
    "fair",
    "gap",
    "balance",
    "advantage",
    "shared",
    "no_winner",
    "completion",
    "truncated",
    "tie_rate",
    "shared_rate",
    "build_rate",
    "lift",
    "builders_share",
    "others_share",
    "seat0_share",
    "seat0_gap",
    "imbalance",
    "ahead",
    "win_share",
    "fair_share",
    "mean_lift",
    "min_lift",
    "max_lift",
    "best_imbalance",
    "best_seat0_gap",
    "official_imbalance",
    "official_seat0_gap",
    "p_beats_avg",
    "observed",
    "predicted",
    "se",
    "slope",
    "vs_next",
    "p_best",
    "margin",
    "power",
    "share_unrestricted",
    "share_restricted",
    "share_baseline",
    "gain",
    "se_unpaired",
    "difference",
}


# Proportions that are differences of two shares: printed in percentage points ("pts").
DIFFERENCES = {
    "gap",
    "seat0_gap",
    "lift",
    "mean_lift",
    "min_lift",
    "max_lift",
    "imbalance",
    "best_imbalance",
    "official_imbalance",
    "best_seat0_gap",
    "official_seat0_gap",
    "vs_next",
    "slope",
    "se",
    "margin",
    "power",  # causal power: unrestricted share - restricted share
    "gain",  # a best response's share above the fair share
    "se_unpaired",
    "difference",  # a variant's share - the first point's (variants)
}


def is_difference(col: str) -> bool:
    for suffix in ("", "_lo", "_hi"):
        if suffix and not col.endswith(suffix):
            continue
        if (col[: -len(suffix)] if suffix else col) in DIFFERENCES:
            return True
    return False


def is_proportion(col: str) -> bool:
    if col in PROPORTIONS:
        return True
    for suffix in ("_lo", "_hi"):
        if col.endswith(suffix) and col[: -len(suffix)] in PROPORTIONS:
            return True
    return False


def pct(x, digits=1):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:.{digits}f}%"


def pct_ci(p, lo, hi, digits=1):
    return f"{pct(p, digits)} (95% CI {pct(lo, digits)}-{pct(hi, digits)})"


def pval(p):
    if p is None or p != p:
        return "p = n/a"
    if p < 1e-4:
        return "p < 0.0001"
    return f"p = {p:.4f}"


def fmt_value(col, v):
    """Format one cell."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if is_difference(col):
            return f"{100 * v:.2f} pts" if col in ("imbalance", "se", "margin") else f"{100 * v:+.2f} pts"
        if is_proportion(col):
            return f"{100 * v:.2f}%"
        if col in ("p_value", "p_perm", "p_holm", "equiv_p", "equiv_p_holm", "p_fit", "p_perm_mc"):
            return "<0.0001" if v < 1e-4 else f"{v:.4f}"
        a = abs(v)
        if col == "wins":  # fractional counts (a shared win counts 1/k)
            return f"{v:,.1f}"
        if a == 0:
            return "0"
        if a >= 1000:
            return f"{v:,.0f}"
        if a >= 100:
            return f"{v:.1f}"
        if a >= 1:
            return f"{v:.3f}"
        return f"{v:.4f}"
    if isinstance(v, int):
        return (
            f"{v:,}"
            if col in ("games", "wins", "comparisons", "seat_games", "builders", "others", "events")
            else str(v)
        )
    return str(v)


def format_rows(df: pl.DataFrame):
    """Header and formatted string rows of a table."""
    header = list(df.columns)
    rows = [[fmt_value(c, v) for c, v in zip(header, r)] for r in df.iter_rows()]
    return header, rows


def plain_table(df: pl.DataFrame, max_rows=200) -> str:
    """Fixed-width text table for the terminal."""
    header, rows = format_rows(df.head(max_rows))
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    line = "  ".join(h.rjust(w) for h, w in zip(header, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
    if df.height > max_rows:
        out.append(f"... {df.height - max_rows} more rows (use --csv or --json for all)")
    return "\n".join(out)


def cell_label(row, by):
    """'3 players' or '3 players, rules.deck_size=40' for a group of a table."""
    parts = []
    for k in by:
        v = row[k]
        if k == "players":
            parts.insert(0, "solo (1 player)" if v == 1 else f"{v} players")
        else:
            parts.append(f"{k}={v}")
    if not parts:
        return "All games"
    s = ", ".join(parts)
    return s[0].upper() + s[1:]


def pts(x, digits=1):
    """A difference of shares in percentage points: '+1.2 pts'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:+.{digits}f} pts"


def pts_ci(x, lo, hi, digits=1):
    """'+1.2 pts (95% CI -0.3 to +2.7)'; the interval is left out when unknown."""
    if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{pts(x, digits)} (no interval)"
    return f"{pts(x, digits)} (95% CI {100 * lo:+.{digits}f} to {100 * hi:+.{digits}f})"


def pval_mc(p, n):
    """A Monte Carlo p-value with its Monte Carlo error and the number of draws behind it:
    'p = 0.012, Monte Carlo error ±0.002 over 2,000 draws'."""
    if p is None or p != p:
        return "p = n/a"
    se = math.sqrt(max(p * (1 - p), 0.0) / n) if n else float("nan")
    digits = 3 if se >= 0.0005 else 4
    return f"p = {p:.{digits}f}, Monte Carlo error ±{se:.{digits}f} over {n:,} draws"


def join_names(names):
    """'A', 'A and B', 'A, B and C'."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class AnswerTable(str):
    """A compact table among a question's headlines: prints as a text table (terminal, JSON)
    and renders as a table in the reports (``.table``)."""

    table: pl.DataFrame

    def __new__(cls, table: pl.DataFrame, caption: str = ""):
        text = (caption + "\n" if caption else "") + plain_table(table)
        obj = super().__new__(cls, text)
        obj.table = table
        obj.caption = caption
        return obj


#: more groups than this and a question's Answers become one compact table
MAX_SENTENCES = 6


def answer_grid(rows, by, cell, caption):
    """One compact table of a value per group: a row per player count, a column per value
    of the last other grouping column (e.g. ``rules.deck_size``); with no other column,
    one column.

    Parameters
    ----------
    rows : list of dict
        One per group, holding the ``by`` keys.
    cell : callable
        row -> the cell's text.
    """
    other = [k for k in by if k != "players"]
    col = other[-1] if other else None
    keep = [k for k in other if k != col]
    table = {}
    cols = []
    for r in rows:
        key = tuple(r[k] for k in ["players", *keep] if k in r)
        name = str(r[col]) if col else "value"
        if name not in cols:
            cols.append(name)
        table.setdefault(key, {})[name] = cell(r)
    if col:  # the columns in the parameter's order (a grid point added late sits in its place)
        value = {str(r[col]): r[col] for r in rows}
        numeric = all(isinstance(v, (int, float)) for v in value.values())
        cols.sort(key=lambda c: value[c] if numeric else c)
    head = f"players \\ {col}" if col and not keep else "players"
    out = [{**dict(zip([head, *keep], k)), **{c: v.get(c, "") for c in cols}} for k, v in table.items()]
    frame = pl.DataFrame(out).with_columns(pl.col(n).cast(pl.String) for n in [head, *keep])
    return AnswerTable(frame, caption)
