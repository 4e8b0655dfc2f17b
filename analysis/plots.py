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

_RC = {
    "svg.hashsalt": "boardsim-report",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
}


def to_svg(fig) -> str:
    """Serialise and close a figure; return the bare ``<svg>`` element."""
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
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


def seat_gaps(table: pl.DataFrame, by, max_panels=MAX_PANELS):
    """Each seat's win share minus the fair share 1/n, in pts, as a point with its 95%
    interval: one small panel per group (player count and swept parameters), every panel
    on the same scale so they can be compared, 0 (a fair seat) as a line.

    Returns
    -------
    list of str
        One SVG per ``max_panels`` groups (every group is drawn).
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
    out = []
    for start in range(0, len(groups), max_panels):
        out.append(_seat_gap_figure(t, groups[start : start + max_panels], lim))
    return out


def _seat_gap_figure(t, groups, lim):
    with matplotlib.rc_context(_RC):
        ncols = min(4, len(groups))
        nrows = -(-len(groups) // ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(2.3 * ncols + 0.8, 2.2 * nrows + 0.3), squeeze=False, sharey=True
        )
        for ax in axes.flat[len(groups) :]:
            ax.set_visible(False)
        for ax, g in zip(axes.flat, groups):
            sub = t
            for k, v in g.items():
                sub = sub.filter(pl.col(k) == v)
            x = sub["seat"].to_numpy()
            y = 100 * sub["_g"].to_numpy()
            # rounding can put an end a hair inside the estimate (a 0-of-n share): never negative
            err = np.maximum(np.vstack([y - 100 * sub["_lo"].to_numpy(), 100 * sub["_hi"].to_numpy() - y]), 0)
            ax.axhline(0.0, color="grey", ls="dashed", lw=0.8)
            ax.errorbar(x, y, yerr=err, fmt="o", ms=4, color="#2e86c1", ecolor="black", capsize=3, lw=0.9)
            ax.set_xticks(x, [str(v) for v in x])
            ax.set_xlim(-0.6, max(x) + 0.6 if x.size else 0.6)
            ax.set_ylim(*lim)
            ax.set_title(_group_name(g), fontsize=9)
            ax.tick_params(labelsize=8)
        for ax in axes[-1]:
            ax.set_xlabel("seat (0 = first player)", fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel("win share - 1/n (pts)")
        fig.tight_layout()
        return to_svg(fig)


def _group_name(g):
    parts = []
    for k, v in g.items():
        parts.append(f"{v}p" if k == "players" else f"{k}={v}")
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
):
    """A row x col heatmap of ``value`` with numbers in the cells; cells where the boolean
    column ``mark`` is true get a thick black frame, and cells where the boolean column
    ``sig`` is true a star after the number.  ``percent`` values are shares printed x 100
    (``unit`` "%" for a share, "pts" for a difference of shares)."""
    with matplotlib.rc_context(_RC):
        rows = sorted(table[row].unique().to_list())
        cols = sorted(table[col].unique().to_list())
        grid = np.full((len(rows), len(cols)), np.nan)
        marks = np.zeros_like(grid, dtype=bool)
        stars = np.zeros_like(grid, dtype=bool)
        for r in table.iter_rows(named=True):
            i, j = rows.index(r[row]), cols.index(r[col])
            grid[i, j] = r[value]
            if mark and r.get(mark):
                marks[i, j] = True
            if sig and r.get(sig):
                stars[i, j] = True
        widest = max(len(str(c)) for c in cols)
        fig, ax = _figure(
            max(4.0, max(0.6, 0.09 * widest) * len(cols) + 2.0), max(2.0, 0.5 * len(rows) + 1.2)
        )
        if center is not None:
            span = np.nanmax(np.abs(grid - center)) if np.isfinite(grid).any() else 1.0
            span = span or 1.0
            im = ax.imshow(grid, cmap="RdBu_r", vmin=center - span, vmax=center + span, aspect="auto")
        else:
            im = ax.imshow(grid, cmap="viridis", aspect="auto")
        for i in range(len(rows)):
            for j in range(len(cols)):
                v = grid[i, j]
                if np.isnan(v):
                    continue
                txt = (f"{100 * v:.1f}" if percent else f"{v:.3g}") + ("*" if stars[i, j] else "")
                lo, hi = im.get_clim()
                frac = (v - lo) / (hi - lo) if hi > lo else 0.5
                dark = (frac < 0.2 or frac > 0.8) if center is not None else frac < 0.45
                ax.text(j, i, txt, ha="center", va="center", fontsize=8, color="white" if dark else "black")
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
                    lambda v, _: f"{100 * v:+.0f}" if unit == "pts" else f"{100 * v:.0f}%"
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
        ax.axvline(0, color="grey", lw=0.8, ls="dashed")
        ax.errorbar(
            x[has], y[has], xerr=err, fmt="o", ms=4, color="#2e86c1", ecolor="black", capsize=2, lw=0.8
        )
        if (~has).any():
            ax.plot(
                x[~has], y[~has], "o", ms=4, mfc="white", mec="grey", label="no interval (too few builders)"
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
    """Step plot of a pre-binned distribution (one line per group)."""
    with matplotlib.rc_context(_RC):
        fig, ax = _figure()
        groups = sorted(table[group].unique().to_list()) if group else [None]
        for g in groups:
            sub = table if g is None else table.filter(pl.col(group) == g)
            sub = sub.sort(x)
            ax.step(
                sub[x].to_numpy(), sub[y].to_numpy(), where="mid", label=None if g is None else f"{group}={g}"
            )
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel)
        if group:
            ax.legend(fontsize=7, frameon=False)
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
        ax.errorbar(x, y, xerr=err, fmt="o", color="#2e86c1", ecolor="black", capsize=3)
        ax.set_yticks(y, t["strategy"].to_list())
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel("Bradley-Terry rating (Elo scale, mean 0; 95% bootstrap interval)")
        return to_svg(fig)
