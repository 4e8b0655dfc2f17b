"""Matplotlib figures rendered to deterministic inline SVG.

The same table always gives the same SVG bytes: fixed hash salt for element ids, no date
in the metadata, text kept as text (no font subsetting), no XML prologue.
"""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from cycler import cycler  # noqa: E402

#: the one palette of every figure: Okabe & Ito's colour-blind-safe colours (black last, for
#: lines that need a colour beyond the seven), each series with its own marker too, so a
#: series reads without colour
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: a single series' points, their intervals, and reference lines (0, a fair share)
POINT = PALETTE[0]
INTERVAL = "#333333"
REFERENCE = "#888888"
#: heat maps: a diverging map around a centre and a sequential one (both colour-blind safe)
DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"

_RC = {
    "axes.prop_cycle": cycler(color=list(PALETTE), marker=list(MARKERS)),
    "lines.markersize": 4,
    "svg.hashsalt": "boardsim-report",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
}


def to_svg(fig, tight=True) -> str:
    """Serialise and close a figure; return the bare ``<svg>`` element.  ``tight = False``
    keeps the figure's own margins (a big grid laid out by hand: measuring every tick label
    of tens of panels twice is most of its cost)."""
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(
            buf,
            format="svg",
            metadata={"Date": None, "Creator": None},
            bbox_inches="tight" if tight else None,
        )
    plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    return svg.strip() + "\n"


def _figure(w=6.4, h=3.4):
    with matplotlib.rc_context(_RC):
        return plt.subplots(figsize=(w, h))


def _label(row, keys):
    return ", ".join(f"{k}={row[k]}" for k in keys)


#: panels per seat figure; more groups make more figures (never a silent cut)
MAX_PANELS = 12
#: panels per row of a players x parameter grid
GRID_COLS = 7


def seat_gaps(table: pl.DataFrame, by, max_panels=MAX_PANELS):
    """Each seat's win share minus the fair share 1/n, in pts, as a point with its 95%
    interval: one small panel per group (player count and swept parameters), every panel
    on the same scale so they can be compared, 0 (a fair seat) as a line.  With one swept
    parameter beside the player count (a deck-size sweep) the panels form one grid, a row
    per player count and a column per value, in order.

    Returns
    -------
    list of str
        One SVG per ``max_panels`` groups (every group is drawn); one SVG for a grid.
    """
    if "players" in table.columns:  # a solo game has no fair share to compare with
        table = table.filter(pl.col("players") > 1)
    if table.is_empty():
        return []
    groups = table.select(by).unique(maintain_order=True).rows(named=True) if by else [{}]
    t = table.with_columns(
        (pl.col("share") - pl.col("fair")).alias("_g"),
        (pl.col("share_lo") - pl.col("fair")).alias("_lo"),
        (pl.col("share_hi") - pl.col("fair")).alias("_hi"),
    )
    span = float(max(abs(t["_lo"].min() or 0.0), abs(t["_hi"].max() or 0.0), 0.01)) * 100
    lim = (-1.1 * span, 1.1 * span)
    if len(by) == 2 and by[0] == "players":
        rows = {}
        for g in sorted(groups, key=lambda g: (g["players"], g[by[1]])):
            rows.setdefault(g["players"], []).append(g)
        # a long row (many values) continues on the next line rather than shrinking the panels
        grid = [r[i : i + GRID_COLS] for r in rows.values() for i in range(0, len(r), GRID_COLS)]
        return [_seat_gap_figure(t, grid, lim)]
    out = []
    for start in range(0, len(groups), max_panels):
        chunk = groups[start : start + max_panels]
        ncols = min(4, len(chunk))
        out.append(_seat_gap_figure(t, [chunk[i : i + ncols] for i in range(0, len(chunk), ncols)], lim))
    return out


def _seat_gap_figure(t, grid, lim):
    """``grid``: the panels' groups, one list per row."""
    with matplotlib.rc_context(_RC):
        nrows, ncols = len(grid), max(len(r) for r in grid)
        w, h = 1.9 * ncols + 0.8, 1.9 * nrows + 0.3
        fig, axes = plt.subplots(nrows, ncols, figsize=(w, h), squeeze=False, sharey=True)
        for i, row in enumerate(grid):
            for ax in axes[i, len(row) :]:
                ax.set_visible(False)
            for ax, g in zip(axes[i], row):
                _seat_panel(ax, t, g, lim)
        for j in range(ncols):  # the x label under the lowest panel of each column
            low = max(i for i, row in enumerate(grid) if j < len(row))
            axes[low, j].set_xlabel("seat (0 = first)", fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel("win share - 1/n (pts)", fontsize=8)
        if nrows * ncols <= MAX_PANELS:
            fig.tight_layout()
            return to_svg(fig)
        # margins in inches, as tight_layout would leave them for 7-8 pt labels
        fig.subplots_adjust(
            left=0.75 / w, right=1 - 0.1 / w, bottom=0.5 / h, top=1 - 0.3 / h, wspace=0.18, hspace=0.45
        )
        return to_svg(fig, tight=False)


def _seat_panel(ax, t, g, lim):
    sub = t
    for k, v in g.items():
        sub = sub.filter(pl.col(k) == v)
    x = sub["seat"].to_numpy()
    y = 100 * sub["_g"].to_numpy()
    # rounding can put an end a hair inside the estimate (a 0-of-n share): never negative
    err = np.maximum(np.vstack([y - 100 * sub["_lo"].to_numpy(), 100 * sub["_hi"].to_numpy() - y]), 0)
    ax.axhline(0.0, color=REFERENCE, ls="dashed", lw=0.8)
    ax.errorbar(x, y, yerr=err, fmt="o", ms=4, color=POINT, ecolor=INTERVAL, capsize=3, lw=0.9)
    ax.set_xticks(x, [str(v) for v in x])
    ax.set_xlim(-0.6, max(x) + 0.6 if x.size else 0.6)
    ax.set_ylim(*lim)
    ax.set_title(_group_name(g), fontsize=8)
    ax.tick_params(labelsize=7)


def _group_name(g):
    parts = []
    for k, v in g.items():
        # a power run's arm reads as its name ("Bishopric barred"), a swept key by its last part
        parts.append(f"{v}p" if k == "players" else str(v) if k == "arm" else f"{k.rsplit('.', 1)[-1]} {v}")
    return ", ".join(parts) or "all"


def heatmap(
    table: pl.DataFrame,
    row: str,
    col: str,
    value: str,
    *,
    title="",
    percent=True,
    mark=None,
    center=None,
    sig=None,
    unit="%",
    interval=None,
):
    """A row x col heatmap of ``value`` with numbers in the cells; cells where the boolean
    column ``mark`` is true get a thick black frame, and cells where the boolean column
    ``sig`` is true a star after the number.  ``interval = (lo column, hi column)`` prints
    each cell's 95% interval under its number.  ``percent`` values are shares printed x 100
    (``unit`` "%" for a share, "pts" for a difference of shares)."""
    with matplotlib.rc_context(_RC):
        rows = sorted(table[row].unique().to_list())
        cols = sorted(table[col].unique().to_list())
        grid = np.full((len(rows), len(cols)), np.nan)
        bounds = np.full((len(rows), len(cols), 2), np.nan)
        marks = np.zeros_like(grid, dtype=bool)
        stars = np.zeros_like(grid, dtype=bool)
        for r in table.iter_rows(named=True):
            i, j = rows.index(r[row]), cols.index(r[col])
            grid[i, j] = r[value]
            if interval and r.get(interval[0]) is not None and r.get(interval[1]) is not None:
                bounds[i, j] = (r[interval[0]], r[interval[1]])
            if mark and r.get(mark):
                marks[i, j] = True
            if sig and r.get(sig):
                stars[i, j] = True
        widest = max(len(str(c)) for c in cols)
        cell_w = 0.9 if interval else max(0.6, 0.09 * widest)
        fig, ax = _figure(
            max(4.0, cell_w * len(cols) + 2.0), max(2.0, (0.62 if interval else 0.5) * len(rows) + 1.2)
        )
        if center is not None:
            span = np.nanmax(np.abs(grid - center)) if np.isfinite(grid).any() else 1.0
            span = span or 1.0
            im = ax.imshow(grid, cmap=DIVERGING, vmin=center - span, vmax=center + span, aspect="auto")
        else:
            im = ax.imshow(grid, cmap=SEQUENTIAL, aspect="auto")
        for i in range(len(rows)):
            for j in range(len(cols)):
                v = grid[i, j]
                if np.isnan(v):
                    continue
                signed = unit == "pts" and center is not None  # a gap either way, not a size
                if percent:
                    fmt = (lambda x: f"{100 * x:+.1f}") if signed else (lambda x: f"{100 * x:.1f}")
                else:
                    fmt = lambda x: f"{x:.3g}"  # noqa: E731
                txt = fmt(v) + ("*" if stars[i, j] else "")
                lo, hi = im.get_clim()
                frac = (v - lo) / (hi - lo) if hi > lo else 0.5
                dark = (frac < 0.2 or frac > 0.8) if center is not None else frac < 0.45
                colour = "white" if dark else "black"
                if np.isfinite(bounds[i, j]).all():
                    ax.text(j, i - 0.13, txt, ha="center", va="center", fontsize=8, color=colour)
                    b = f"[{fmt(bounds[i, j, 0])}, {fmt(bounds[i, j, 1])}]"
                    ax.text(j, i + 0.2, b, ha="center", va="center", fontsize=6.5, color=colour)
                else:
                    ax.text(j, i, txt, ha="center", va="center", fontsize=8, color=colour)
                if marks[i, j]:
                    ax.add_patch(
                        matplotlib.patches.Rectangle(
                            (j - 0.46, i - 0.46), 0.92, 0.92, fill=False, lw=2.5, ec="black", zorder=3
                        )
                    )
        ax.set_xticks(
            range(len(cols)),
            [str(c) for c in cols],
            rotation=30 if widest > 6 else 0,
            ha="right" if widest > 6 else "center",
        )
        ax.set_yticks(range(len(rows)), [str(r) for r in rows])
        ax.set_xlabel(col)
        ax.set_ylabel(row)
        if title:
            ax.set_title(title if "(" in title or not percent else f"{title} ({unit})")
        cb = fig.colorbar(im, ax=ax, shrink=0.8)
        if percent:
            cb.ax.yaxis.set_major_formatter(
                matplotlib.ticker.FuncFormatter(
                    lambda v, _: (
                        (f"{100 * v:+.0f}" if center is not None else f"{100 * v:.0f}")
                        if unit == "pts"
                        else f"{100 * v:.0f}%"
                    )
                )
            )
        return to_svg(fig)


def lift_chart(table: pl.DataFrame, label: str = "annex"):
    """Each annex's lift as a point with its 95% interval, largest on top; annexes with no
    interval (too few builders) as hollow points."""
    with matplotlib.rc_context(_RC):
        t = table.filter(pl.col("lift").is_not_null() & pl.col("lift").is_finite()).sort("lift")
        fig, ax = _figure(6.8, max(2.0, 0.24 * t.height + 0.9))
        y = np.arange(t.height)
        x = 100 * t["lift"].to_numpy()
        lo = 100 * t["lift_lo"].fill_null(float("nan")).to_numpy()
        hi = 100 * t["lift_hi"].fill_null(float("nan")).to_numpy()
        has = np.isfinite(lo)
        err = np.maximum(np.vstack([x[has] - lo[has], hi[has] - x[has]]), 0)
        ax.axvline(0, color=REFERENCE, lw=0.8, ls="dashed")
        ax.errorbar(x[has], y[has], xerr=err, fmt="o", ms=4, color=POINT, ecolor=INTERVAL, capsize=2, lw=0.8)
        if (~has).any():
            ax.plot(
                x[~has],
                y[~has],
                "o",
                ms=4,
                mfc="white",
                mec=REFERENCE,
                label="no interval (too few builders)",
            )
            ax.legend(fontsize=7, frameon=False, loc="lower right")
        labels = (
            [f"{a} (r{r})" for a, r in zip(t[label].to_list(), t["rank"].to_list())]
            if "rank" in t.columns
            else t[label].to_list()
        )
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_ylim(-0.7, t.height - 0.3)
        ax.set_xlabel("lift: builders' win share - non-builders' (pts; same seat, player count and strategy)")
        return to_svg(fig)


def matrix(table: pl.DataFrame, row: str, col: str, value: str, title=""):
    """Square strategy matrix (share of ``row`` finishing ahead of ``col``)."""
    return heatmap(table, row, col, value, title=title, percent=True, center=0.5)


def histogram(
    table: pl.DataFrame, x: str, y: str, group: str | None = None, xlabel="", ylabel="share of games"
):
    """Bars of a pre-binned distribution: one panel per group (e.g. per player count), the
    panels stacked on one x scale, so each distribution reads on its own."""
    with matplotlib.rc_context(_RC):
        groups = sorted(table[group].unique().to_list()) if group else [None]
        fig, axes = plt.subplots(
            len(groups), 1, figsize=(6.4, 1.5 * len(groups) + 0.9), squeeze=False, sharex=True, sharey=True
        )
        for n, (ax, g) in enumerate(zip(axes[:, 0], groups)):
            sub = (table if g is None else table.filter(pl.col(group) == g)).sort(x)
            colour = PALETTE[n % len(PALETTE)]
            ax.bar(sub[x].to_numpy(), sub[y].to_numpy(), width=0.85, color=colour, edgecolor="none")
            if g is not None:
                name = f"{g} players" if group == "players" else f"{group} = {g}"
                ax.set_title(name, fontsize=8, loc="left")
            ax.set_ylabel(ylabel, fontsize=8)
            ax.tick_params(labelsize=7)
        axes[-1, 0].set_xlabel(xlabel or x)
        if np.issubdtype(table[x].to_numpy().dtype, np.integer):  # rounds: ticks on whole values
            axes[-1, 0].xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        fig.tight_layout()
        return to_svg(fig)


def lines(table: pl.DataFrame, x: str, y: str, group: str, xlabel="", ylabel=""):
    """One line per group (e.g. money over rounds per strategy)."""
    with matplotlib.rc_context(_RC):
        fig, ax = _figure()
        for g in sorted(table[group].unique().to_list()):
            sub = table.filter(pl.col(group) == g).sort(x)
            ax.plot(sub[x].to_numpy(), sub[y].to_numpy(), label=str(g), lw=1.2)
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel or y)
        ax.legend(fontsize=7, frameon=False)
        return to_svg(fig)


def rating_chart(table: pl.DataFrame):
    """Strategy ratings with bootstrap intervals."""
    with matplotlib.rc_context(_RC):
        t = table.sort("elo")
        fig, ax = _figure(6.4, max(1.8, 0.35 * t.height + 0.8))
        y = np.arange(t.height)
        x = t["elo"].to_numpy()
        err = np.vstack([x - t["elo_lo"].to_numpy(), t["elo_hi"].to_numpy() - x])
        ax.errorbar(x, y, xerr=err, fmt="o", color=POINT, ecolor=INTERVAL, capsize=3)
        ax.set_yticks(y, t["strategy"].to_list())
        ax.axvline(0, color=REFERENCE, lw=0.8)
        ax.set_xlabel("Bradley-Terry rating (Elo scale, mean 0; 95% bootstrap interval)")
        return to_svg(fig)


def forest(
    table: pl.DataFrame,
    label: str,
    value: str = "power",
    lo: str = "power_lo",
    hi: str = "power_hi",
    *,
    panel: str | None = None,
    flag: str | None = None,
    flag_label: str = "",
    xlabel: str = "",
):
    """A forest plot: per row of ``table`` a point (``value``) with its 95% interval
    (``lo``..``hi``), sorted largest on top, 0 as a dashed line; one panel per value of
    ``panel`` (e.g. the player count), on one x scale.  Rows where the boolean column
    ``flag`` is true (a degenerate arm) are drawn hollow and grey, named ``flag_label`` in
    the legend.  Each panel's points are one SVG group, ``forest-points-<panel index>``.
    """
    with matplotlib.rc_context(_RC):
        t = table.filter(pl.col(value).is_not_null() & pl.col(value).is_finite())
        keys = sorted(t[panel].unique().to_list()) if panel else [None]
        heights = [t.height if k is None else t.filter(pl.col(panel) == k).height for k in keys]
        fig, axes = plt.subplots(
            len(keys),
            1,
            figsize=(6.8, sum(0.24 * h + 0.7 for h in heights) + 0.3),
            squeeze=False,
            sharex=True,
            gridspec_kw={"height_ratios": [max(h, 1) + 2 for h in heights]},
        )
        for n, (ax, k) in enumerate(zip(axes[:, 0], keys)):
            sub = (t if k is None else t.filter(pl.col(panel) == k)).sort(
                [value, label], descending=[False, True]
            )
            y = np.arange(sub.height)
            x = 100 * sub[value].to_numpy()
            a = 100 * sub[lo].fill_null(float("nan")).to_numpy()
            b = 100 * sub[hi].fill_null(float("nan")).to_numpy()
            odd = sub[flag].fill_null(False).to_numpy() if flag else np.zeros(sub.height, bool)
            ax.axvline(0, color=REFERENCE, lw=0.8, ls="dashed")
            ax.hlines(y, a, b, color=INTERVAL, lw=1.0)
            ax.plot(x[~odd], y[~odd], "o", ms=5, color=POINT, ls="none", gid=f"forest-points-{n}")
            if odd.any():
                ax.plot(
                    x[odd],
                    y[odd],
                    "o",
                    ms=5,
                    mfc="white",
                    mec=REFERENCE,
                    ls="none",
                    label=flag_label,
                    gid=f"forest-flagged-{n}",
                )
                # beside the panel, never over a point
                ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            ax.set_yticks(y, sub[label].to_list(), fontsize=8)
            ax.set_ylim(-0.7, sub.height - 0.3)
            if k is not None:
                ax.set_title(f"{k} players" if panel == "players" else f"{panel} = {k}", fontsize=9)
        axes[-1, 0].set_xlabel(xlabel or f"{value} (pts, 95% interval)")
        fig.tight_layout()
        return to_svg(fig)
