"""Reports: one self-contained HTML file and its Markdown twin.

Order: the answers (headline sentences with their intervals), then per question the tables
and plots, then the provenance block (configs, seeds, git commit, package versions, dataset
checksums).  Everything above the provenance block depends only on the data: the same data
give the same bytes (sorted tables, fixed number formats, deterministic SVG).  The
provenance block sits between ``PROVENANCE_START`` and ``PROVENANCE_END`` markers.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
import textwrap
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import polars as pl

from . import report_power
from .dataset import Dataset, manifest_config, open_dataset
from .metrics import QUESTIONS, question_names, run_question
from .text import AnswerTable, format_rows
from .verdicts import power_keys, verdict_block

#: scope caveats said in a question's verdict
SCOPES = {"cards": "association, not cause", "power": "causal: restricted play on the same deals"}

PROVENANCE_START = "<!-- provenance:start -->"
PROVENANCE_END = "<!-- provenance:end -->"
DEFAULT_QUESTIONS = (
    "seats",
    "strategies",
    "cards",
    "deck",
    "duration",
    "power",
    "exploitability",
    "meta",
    "skill",
    "experience",
)
#: tables longer than this are folded (HTML <details>) or, in Markdown, moved to the appendix
FOLD_ROWS = 30
#: a text cell longer than this wraps (a sentence); shorter ones (numbers, names) never do
PROSE_CHARS = 40
#: a table with more columns than this says that it scrolls sideways
WIDE_COLUMNS = 8
#: the order of a dataset's sections: what the experiment was built to answer (a round-robin,
#: restricted play, a deck sweep) first, then the seats, the causal answer before the associations
SECTION_ORDER = (
    "meta",
    "skill",
    "power",
    "deck",
    "seats",
    "characters",
    "strategies",
    "cards",
    "duration",
    "experience",
    "exploitability",
)


@dataclass
class Section:
    """One question answered on one dataset."""

    question: str
    title: str
    dataset: str
    headlines: list
    tables: list  # (metric name, title, note, DataFrame)
    plots: list  # (caption, svg)
    #: the question's headline numbers (estimate and interval), for strength ladders
    key_numbers: list = field(default_factory=list)
    #: who plays, said with the verdict and above the answers ("every seat plays random")
    scope: str = ""


@dataclass
class Report:
    title: str
    intro: str
    sections: list
    provenance: list  # per dataset dict
    warnings: list = field(default_factory=list)


@dataclass
class Entry:
    """A dataset in a report: its label, the open dataset and the questions to answer."""

    label: str
    dataset: Dataset
    questions: tuple = DEFAULT_QUESTIONS
    options: dict = field(default_factory=dict)


def answer(ds: Dataset, name: str, label: str = "", options=None):
    """Run one question on a dataset; return a :class:`Section` (or None if it does not
    apply).  ``options`` overrides ``analysis.metrics.OPTIONS``."""
    q = QUESTIONS[name]
    reason = q.why_not(ds) if q.why_not else None
    if reason:  # an unanswerable question is not shown
        return None
    results = run_question(ds, name, options)
    if not results:
        return None
    tables = []
    for cls in q.metrics:
        out = results.get(cls.name)
        if isinstance(out, pl.DataFrame) and out.height:
            tables.append((cls.name, cls.title, cls.note, out))
    heads = q.headlines(ds, results) if q.headlines else []
    plots = q.plots(ds, _arms_named(ds, results) if "arm" in ds.params else results) if q.plots else []
    keys = q.key_numbers(ds, results) if q.key_numbers else []
    title = q.title
    if name == "power":  # the game names its restricted play and its arms
        title = report_power.title(ds)
        power = results.get("causal_power")
        tables = [
            (n, t, note, _with_names(ds, df) if n == "causal_power" else df) for n, t, note, df in tables
        ]
        if not keys and isinstance(power, pl.DataFrame) and power.height:
            keys = power_keys(report_power.name_targets(ds, power))
    if "arm" in ds.params:  # a power run's arms by their names in every sentence, grid and table
        heads, keys = _name_arms(ds, heads, keys)
        tables = [(n, t, note, _arm_column_named(ds, df)) for n, t, note, df in tables]
    return Section(name, title, label, heads, tables, plots, keys, who_plays(ds))


def _arms_named(ds, results):
    """Results with each table's ``arm`` values as a reader names them (for the figures)."""
    arms = ds.points["arm"].cast(pl.String).unique().to_list()
    names = {a: report_power.arm_label(ds, a) for a in arms}
    out = {}
    for k, v in results.items():
        if isinstance(v, pl.DataFrame) and "arm" in v.columns:
            v = v.with_columns(pl.col("arm").cast(pl.String).replace(names))
        out[k] = v
    return out


def _arm_column_named(ds, df):
    """A metric table with ``arm`` read as its name ('Bishopric barred') and the arm's id
    kept as the last column, ``arm_id`` (what the points' ``arm`` holds, for joins)."""
    if "arm" not in df.columns:
        return df
    ids = df["arm"].cast(pl.String)
    names = {a: report_power.arm_label(ds, a) for a in ids.unique().to_list()}
    return df.with_columns(pl.col("arm").cast(pl.String).replace(names), ids.alias("arm_id"))


def _with_names(ds, df):
    """The causal-power table with each arm's name beside its id (``name`` after ``target``)."""
    if "target" not in df.columns or "kind" not in df.columns:
        return df
    named = report_power.name_targets(ds, df.select("kind", "target"))["target"].alias("name")
    out = df.with_columns(named)
    cols = list(df.columns)
    cols.insert(cols.index("target") + 1, "name")
    return out.select(cols)


def _name_arms(ds, heads, keys):
    """Headlines and key numbers with ``arm=card:bishop`` read as ``Bishopric barred``."""
    arms = sorted(ds.points["arm"].cast(pl.String).unique().to_list(), key=len, reverse=True)
    names = {a: report_power.arm_label(ds, a) for a in arms}

    def text(s):
        for a in arms:
            s = s.replace(f"arm={a}", names[a])
        return s

    out = []
    for h in heads:
        if isinstance(h, AnswerTable):
            table = h.table.rename({c: names[c] for c in h.table.columns if c in names})
            out.append(AnswerTable(table, text(h.caption)))
        else:
            out.append(text(h))
    return out, [{**k, "key": text(k["key"])} if "key" in k else k for k in keys]


def who_plays(ds) -> str:
    """'every seat plays random' when one strategy plays every seat of every point, else
    the lineup ('lineup: a, b, c') when every point has the same one, else ''."""
    lineups = set()
    for man in ds.manifests.values():
        seats = manifest_config(man).get("seats") or []
        seats = seats if isinstance(seats, list) else [seats]
        lineups.add(tuple(str(s.get("strategy")) for s in seats if isinstance(s, dict)))
    names = {n for lineup in lineups for n in lineup}
    if len(names) == 1:
        return f"every seat plays {names.pop()}"
    if len(lineups) == 1:
        return "lineup: " + ", ".join(lineups.pop())
    return ""


def build_report(entries, title="Balance report", intro=""):
    """Answer every entry's questions.

    Parameters
    ----------
    entries : list of Entry
    title, intro : str

    Returns
    -------
    Report
    """
    question_names()
    sections, warnings = [], []
    for e in entries:
        warnings += [f"{e.label}: {w}" for w in e.dataset.warnings]
        sections += [s for s in (answer(e.dataset, name, e.label, e.options) for name in e.questions) if s]
    # one question's sections together (a ladder's rungs keep their order: the sort is stable),
    # the questions in SECTION_ORDER: restricted play before the associations, whatever entry
    rank = {q: i for i, q in enumerate(SECTION_ORDER)}
    sections.sort(key=lambda s: rank.get(s.question, len(rank)))
    prov = [provenance(e.label, e.dataset) for e in entries]
    return Report(title, intro, sections, prov, warnings)


def report_for_dir(path, questions=DEFAULT_QUESTIONS, title=None, intro=None):
    """A report on one run or sweep directory (``title`` and ``intro`` default to the
    config's name and description)."""
    ds = open_dataset(path)
    label = Path(path).resolve().name
    kind = "sweep" if ds.kind == "sweep" else "run"
    # a run is named by its config; a sweep's points carry point names, so its folder names it
    cfg = manifest_config(next(iter(ds.manifests.values()))) if ds.manifests and kind == "run" else {}
    name = cfg.get("name") or label
    title = title or f"Balance report: {name}"
    desc = cfg.get("description") or ""
    if intro is None:
        intro = f"{ds.game} {kind} {name}" + (f" over {', '.join(ds.params)}" if ds.params else "") + "."
        if desc:
            intro += " " + desc
    return build_report([Entry(label, ds, tuple(questions))], title, intro)


# --- provenance ------------------------------------------------------------------------


def _digests(manifest):
    """Every (path, sha256) pair a manifest records, sorted."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("sha256"), str):
                found.append((str(node.get("path") or node.get("file") or ""), node["sha256"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(manifest.get("chunks", []))
    return sorted(found)


def _short_config(cfg):
    """The resolved config with the card table replaced by its digest (it is long)."""
    cfg = dict(cfg)
    for key in ("cards",):
        if isinstance(cfg.get(key), list):
            blob = json.dumps(cfg[key], sort_keys=True).encode()
            cfg[key] = f"<{len(cfg[key])} rows, sha256 {hashlib.sha256(blob).hexdigest()[:16]}>"
    return cfg


def provenance(label, ds: Dataset):
    """Facts that identify the data behind a report."""
    points = []
    for name, man in sorted(ds.manifests.items()):
        digests = _digests(man)
        combined = hashlib.sha256("\n".join(f"{p} {d}" for p, d in digests).encode()).hexdigest()
        git = man.get("git") or {}
        points.append(
            {
                "point": name or "(the run)",  # a run has one point and no grid name
                "status": man.get("status"),
                "games": man.get("games"),
                "seed": man.get("seed", manifest_config(man).get("seed")),
                "config_id": man.get("config_id"),
                "chunk_files": len(digests),
                "data_sha256": combined,
                "git_commit": git.get("commit") if isinstance(git, dict) else git,
                "git_dirty": git.get("dirty") if isinstance(git, dict) else None,
                "stop": stop_line(man.get("stop")),
            }
        )
    first = next(iter(ds.manifests.values()))
    sweep = None
    if ds.kind == "sweep":
        try:
            sweep = json.loads((ds.root / "sweep.json").read_text())
            sweep = {k: sweep.get(k) for k in ("source", "base", "grid", "seed_policy")}
        except (OSError, json.JSONDecodeError):
            sweep = {"grid": {p: ds.points[p].unique().sort().to_list() for p in ds.params}}
    return {
        "label": label,
        "path": str(ds.root),
        "kind": ds.kind,
        "game": ds.game,
        "config": _short_config(manifest_config(first)),
        "sweep": sweep,
        "versions": first.get("versions"),
        "points": points,
    }


def stop_line(stop):
    """One sentence on a ``--precision`` stop: the rule's reason, the estimator it used and
    the games that estimator saved (None for a run that played all its games)."""
    if not stop or stop.get("rule") != "precision":
        return None
    est = stop.get("estimator", "plain")
    if est == "control variate":
        how = (
            f"control variate on the deal covariates, cross-fitted (variance ratio "
            f"{stop['variance_ratio']:.3f}: {stop['games_saved']:,} games saved)"
        )
    else:
        how = "plain (Wilson score interval; 0 games saved)"
    return f"{stop['reason']}; estimator: {how}."


def _stop_lines(p):
    return [f"{r['point']}: {r['stop']}" for r in p["points"] if r.get("stop")]


def _report_versions():
    out = {}
    for name in ("boardsim", "polars", "matplotlib", "numpy", "pyarrow"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    try:
        here = Path(__file__).resolve().parent
        r = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        out["git_commit"] = r.stdout.strip() if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        out["git_commit"] = None
    return out


# --- HTML --------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin-bottom:.3em}
table{border-collapse:collapse;font-size:.82em;margin:.4em 0 1em}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:.85em;margin:.1em 0 .3em}.answers li{margin:.3em 0}
.warn{background:#fff4e0;border:1px solid #e0b050;padding:.5em 1em}
figure{margin:1em 0}figcaption{font-size:.85em;color:#444}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
.scroll{overflow-x:auto;max-width:100%}.verdicts li{margin:.4em 0}
td.t,th.t{text-align:left}td{white-space:nowrap}td.w{white-space:normal;min-width:18em}
.prov .scroll{overflow-x:visible}.prov table{width:100%}
.prov td{word-break:break-all;text-align:left;white-space:normal}
code{overflow-wrap:anywhere}
svg{max-width:100%;height:auto}
"""


def _e(s):
    return html.escape(str(s), quote=True)


def _html_table(df):
    header, rows = format_rows(df)
    # text columns read left-aligned, numbers right-aligned
    text = [df[c].dtype == pl.String and i > 0 for i, c in enumerate(df.columns)]
    # a number or a short phrase never wraps; a column of sentences does (class w)
    prose = [t and max((len(r[i]) for r in rows), default=0) > PROSE_CHARS for i, t in enumerate(text)]
    cls = [' class="t w"' if w else ' class="t"' if t else "" for t, w in zip(text, prose)]
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th{c}>{_e(h)}</th>" for h, c in zip(header, cls)]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td{c}>{_e(v)}</td>" for v, c in zip(r, cls)) + "</tr>")
    out.append("</tbody></table></div>")
    if len(header) > WIDE_COLUMNS:  # cells do not wrap: a wide table scrolls in its box
        out.append(f'<p class="note">{len(header)} columns: the table scrolls sideways.</p>')
    return "".join(out)


def _html_answers(headlines):
    """Sentences as a list; an ``AnswerTable`` as a compact table with its caption."""
    o, items = [], []
    for h in headlines:
        if isinstance(h, AnswerTable):
            if items:
                o.append('<ul class="answers">' + "".join(items) + "</ul>")
                items = []
            o.append(_html_table(h.table))
            if h.caption:
                o.append(f'<p class="note">{_e(h.caption)}</p>')
        else:
            items.append(f"<li>{_e(h)}</li>")
    if items:
        o.append('<ul class="answers">' + "".join(items) + "</ul>")
    return "".join(o)


def _section_id(i, sec):
    return f"s{i}-{sec.question}"


def render_html(report: Report) -> str:
    """The whole report as one HTML document (inline CSS and SVG, no external resource)."""
    o = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(report.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(report.title)}</h1>",
    ]
    if report.intro:
        o.append(f"<p>{_e(report.intro)}</p>")
    if report.warnings:
        o.append(
            '<div class="warn"><b>Warnings</b><ul>'
            + "".join(f"<li>{_e(w)}</li>" for w in report.warnings)
            + "</ul></div>"
        )
    verdicts = verdict_block(report.sections, SCOPES)
    if verdicts:
        o.append('<h2 id="verdicts">Verdicts</h2><ul class="verdicts">')
        o += [f"<li><b>{_e(v.title)}</b>: {_e(v.sentence)}</li>" for v in verdicts]
        o.append("</ul>")
    o.append('<h2 id="answers">Answers</h2>')
    for i, sec in enumerate(report.sections):
        if not sec.headlines:
            continue
        o.append(
            f'<h3><a href="#{_section_id(i, sec)}">{_e(sec.title)}</a>'
            + (f" &mdash; {_e(sec.dataset)}" if sec.dataset else "")
            + "</h3>"
        )
        if sec.scope:
            o.append(f'<p class="note">Who plays: {_e(sec.scope)}.</p>')
        o.append(_html_answers(sec.headlines))
    for i, sec in enumerate(report.sections):
        o.append(
            f'<h2 id="{_section_id(i, sec)}">{_e(sec.title)}'
            + (f" &mdash; {_e(sec.dataset)}" if sec.dataset else "")
            + "</h2>"
        )
        for caption, svg in sec.plots:
            o.append(f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>")
        for _, title, note, df in sec.tables:
            o.append(f"<h3>{_e(title)}</h3>")
            if note:
                o.append(f'<p class="note">{_e(note)}</p>')
            if df.height > FOLD_ROWS:
                o.append(f"<details><summary>{df.height} rows</summary>{_html_table(df)}</details>")
            else:
                o.append(_html_table(df))
    o.append(PROVENANCE_START)
    o.append('<h2 id="provenance">Provenance</h2>')
    o.append(_html_provenance(report))
    o.append(PROVENANCE_END)
    o.append("</body></html>")
    return "\n".join(o) + "\n"


def _html_provenance(report):
    o = []
    rv = _report_versions()
    o.append("<p>Report built with " + _e(", ".join(f"{k} {v}" for k, v in rv.items())) + ".</p>")
    for p in report.provenance:
        o.append(f"<h3>{_e(p['label'])} ({_e(p['kind'])} of {_e(p['game'])})</h3>")
        o.append(
            f"<p>Path: <code>{_e(p['path'])}</code>. Simulator versions: "
            f"{_e(json.dumps(p['versions'], sort_keys=True))}.</p>"
        )
        cols = [
            "point",
            "status",
            "games",
            "seed",
            "config_id",
            "chunk_files",
            "data_sha256",
            "git_commit",
            "git_dirty",
        ]
        df = pl.DataFrame(
            [{c: (None if r.get(c) is None else str(r.get(c))) for c in cols} for r in p["points"]],
            schema={c: pl.String for c in cols},
        )
        # long digests and ids wrap inside their cells: the table fits the page
        o.append('<div class="prov">' + _html_table(df) + "</div>")
        o += [f"<p>{_e(line)}</p>" for line in _stop_lines(p)]
        if p["sweep"]:
            o.append(
                "<details><summary>sweep</summary><pre>"
                + _e(json.dumps(p["sweep"], indent=1, sort_keys=True))
                + "</pre></details>"
            )
        o.append(
            "<details><summary>resolved config (first point)</summary><pre>"
            + _e(json.dumps(p["config"], indent=1, sort_keys=True))
            + "</pre></details>"
        )
    return "\n".join(o)


# --- Markdown ----------------------------------------------------------------------------


def _md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


#: Markdown is read as plain text too: lines wrap at this width, wider tables are split
MD_WIDTH = 100


def _md_wrap(text, first="", rest=""):
    """``text`` wrapped at ``MD_WIDTH`` (words are never broken: a long path stays whole)."""
    return textwrap.wrap(
        text,
        MD_WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _md_rows(head, cells, left):
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]

    def line(vals):
        return (
            "| " + " | ".join(v.ljust(w) if lf else v.rjust(w) for v, w, lf in zip(vals, widths, left)) + " |"
        )

    rule = (
        "|"
        + "|".join((":" + "-" * (w + 1)) if lf else ("-" * (w + 1) + ":") for w, lf in zip(widths, left))
        + "|"
    )
    return [line(head), rule] + [line(r) for r in cells]


_MEASURE = re.compile(r"\d\.\d|%")


def _is_key(col, texts):
    """An identifier column (a player count, a kind, a card or strategy name), not a measure:
    integers, or text holding no decimal number or percentage."""
    if col.dtype.is_integer():
        return True
    return col.dtype == pl.String and not any(_MEASURE.search(t) for t in texts)


def _md_table(df, keys=None):
    """A padded Markdown table; one wider than ``MD_WIDTH`` is split into several tables
    over its columns, each repeating the ``keys`` leading key columns (default: the leading
    identifier columns, :func:`_is_key`, at most 4 and half the width)."""
    header, rows = format_rows(df)
    head = [_md_escape(h) for h in header]
    cells = [[_md_escape(v) for v in r] for r in rows]
    left = [i == 0 or df[c].dtype == pl.String for i, c in enumerate(df.columns)]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]
    if sum(w + 3 for w in widths) + 1 <= MD_WIDTH or len(head) <= 2:
        return "\n".join(_md_rows(head, cells, left))
    if keys is None:  # the leading identifier columns, within half the width
        keys = 1
        while (
            keys < min(4, len(head) - 1)
            and _is_key(df[df.columns[keys]], [r[keys] for r in cells])
            and sum(w + 3 for w in widths[: keys + 1]) <= MD_WIDTH // 2
        ):
            keys += 1
    base = sum(widths[i] + 3 for i in range(keys)) + 1
    groups, cur, used = [], [], base
    for i in range(keys, len(head)):
        if cur and used + widths[i] + 3 > MD_WIDTH:
            groups.append(cur)
            cur, used = [], base
        cur.append(i)
        used += widths[i] + 3
    groups.append(cur)
    blocks = []
    for g in groups:
        cols = list(range(keys)) + g
        blocks.append(
            "\n".join(
                _md_rows(
                    [head[i] for i in cols], [[r[i] for i in cols] for r in cells], [left[i] for i in cols]
                )
            )
        )
    return "\n\n".join(blocks)


def render_markdown(report: Report, plot_dir: str):
    """The Markdown twin; plots are referenced as files under ``plot_dir`` (relative).
    Readable as plain text: lines wrap at ``MD_WIDTH``, tables are padded, each caption is
    printed once, tables longer than ``FOLD_ROWS`` rows are in the appendix.

    Returns
    -------
    (text, {file name: svg})
    """
    files = {}
    o = [f"# {report.title}", ""]
    if report.intro:
        o += _md_wrap(report.intro) + [""]
    if report.warnings:
        o += (
            ["> **Warnings**", ">"] + [x for w in report.warnings for x in _md_wrap(w, "> - ", ">   ")] + [""]
        )
    verdicts = verdict_block(report.sections, SCOPES)
    if verdicts:
        o += ["## Verdicts", ""]
        for v in verdicts:  # wrapped: readable as plain text
            o += _md_wrap(f"**{v.title}**: {v.sentence}", "- ", "  ")
        o.append("")
    o += ["## Answers", ""]
    for sec in report.sections:
        if not sec.headlines:
            continue
        o += [f"### {sec.title}" + (f" — {sec.dataset}" if sec.dataset else ""), ""]
        if sec.scope:
            o += _md_wrap(f"Who plays: {sec.scope}.") + [""]
        for h in sec.headlines:
            if isinstance(h, AnswerTable):
                o += ["", _md_table(h.table, keys=1), ""] + (
                    _md_wrap(f"*{h.caption}*") + [""] if h.caption else []
                )
            else:
                o += _md_wrap(str(h), "- ", "  ")
        o.append("")
    appendix = []
    for i, sec in enumerate(report.sections):
        o += [f"## {sec.title}" + (f" — {sec.dataset}" if sec.dataset else ""), ""]
        for j, (caption, svg) in enumerate(sec.plots):
            name = f"{i:02d}-{sec.question}-{j}.svg"
            files[name] = svg
            o += [f"![{sec.title}, figure {j + 1}]({plot_dir}/{name})", ""] + _md_wrap(f"*{caption}*") + [""]
        for _, title, note, df in sec.tables:
            o += [f"### {title}", ""]
            if note:
                o += _md_wrap(f"*{note}*") + [""]
            if df.height > FOLD_ROWS:
                ref = f"A{len(appendix) + 1}"
                appendix.append((ref, f"{sec.title}: {title}", df))
                o += [f"{df.height} rows: table {ref} in the appendix.", ""]
            else:
                o += [_md_table(df), ""]
    if appendix:
        o += ["## Appendix: the long tables", ""]
        for ref, title, df in appendix:
            o += [f"### {ref}. {title}", "", _md_table(df), ""]
    o += [PROVENANCE_START, "", "## Provenance", ""]
    rv = _report_versions()
    o += _md_wrap("Report built with " + ", ".join(f"{k} {v}" for k, v in rv.items()) + ".") + [""]
    for p in report.provenance:
        o += [f"### {p['label']} ({p['kind']} of {p['game']})", ""]
        o += [f"Path: `{p['path']}`.", ""]
        versions = ", ".join(f"{k} {v}" for k, v in sorted((p["versions"] or {}).items()))
        o += _md_wrap(f"Simulator versions: {versions}.") + [""]
        cols = [
            "point",
            "status",
            "games",
            "seed",
            "config_id",
            "chunk_files",
            "data_sha256",
            "git_commit",
            "git_dirty",
        ]
        df = pl.DataFrame(
            [{c: (None if r.get(c) is None else str(r.get(c))) for c in cols} for r in p["points"]],
            schema={c: pl.String for c in cols},
        )
        o += [_md_table(df, keys=1), ""]
        for line in _stop_lines(p):
            o += _md_wrap(line) + [""]
        if p["sweep"]:
            o += ["Sweep:", "", "```json", json.dumps(p["sweep"], indent=1, sort_keys=True), "```", ""]
        o += [
            "Resolved config (first point):",
            "",
            "```json",
            json.dumps(p["config"], indent=1, sort_keys=True),
            "```",
            "",
        ]
    o += [PROVENANCE_END, ""]
    return "\n".join(o), files


def write_report(report: Report, out):
    """Write ``out`` (HTML), its Markdown twin (same stem, ``.md``) and the twin's plot files
    (``<stem>_plots/``).

    Returns
    -------
    (html_path, md_path)
    """
    out = Path(out)
    if out.suffix.lower() not in (".html", ".htm"):
        out = out.with_suffix(".html")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(report), encoding="utf-8")
    plot_dir = f"{out.stem}_plots"
    text, files = render_markdown(report, plot_dir)
    md = out.with_suffix(".md")
    md.write_text(text, encoding="utf-8")
    pdir = out.parent / plot_dir
    if files:
        pdir.mkdir(exist_ok=True)
        for old in pdir.glob("*.svg"):
            if old.name not in files:
                old.unlink()
        for name, svg in files.items():
            (pdir / name).write_text(svg, encoding="utf-8")
    return out, md


def strip_provenance(text: str) -> str:
    """The report text without its provenance block (what must not depend on the run)."""
    a = text.find(PROVENANCE_START)
    b = text.find(PROVENANCE_END)
    if a < 0 or b < 0:
        return text
    return text[:a] + text[b + len(PROVENANCE_END) :]
