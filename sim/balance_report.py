"""What ``sim balance`` leaves behind: the dataset (candidates, games, estimates, confirmation,
manifest) and a report that opens with the answer and the front as a plot."""

from __future__ import annotations

import hashlib
import html
import json
import math
import platform
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import dataset
from .balance import BALANCE_FORMAT

FILES = ("candidates.parquet", "estimates.parquet", "games.parquet", "confirmation.parquet")


def _f(x, digits=1, sign=False):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def interval_text(row, digits=1):
    """``-4.9 [-5.6, -4.3]``."""
    sign = row["metric"] in ("first_player_gap",)
    return (
        f"{_f(row['estimate'], digits, sign)} [{_f(row['lo'], digits, sign)}, {_f(row['hi'], digits, sign)}]"
    )


def target_text(row):
    lo, hi = row["target_lo"], row["target_hi"]
    if not math.isfinite(lo):
        return f"<= {hi:g}"
    if not math.isfinite(hi):
        return f">= {lo:g}"
    return f"[{lo:g}, {hi:g}]"


# --- tables ------------------------------------------------------------------------------------


def candidate_rows(search):
    spec = search.spec
    front = {c.id for c in search.front()}
    rows = []
    for c in search.order:
        ev = c.final
        row = {
            "candidate": c.id,
            "edit": spec.describe(c.values),
            "n_changes": len(c.changes),
            "changes": ";".join(c.changes),
            "cards_changed": ";".join(spec.changed_cards(c.values)),
            "rung": c.rung,
            "games": c.games,
            "dropped": c.dropped,
            "loss": ev["loss"] if ev else None,
            "loss_lo": ev["loss_lo"] if ev else None,
            "loss_hi": ev["loss_hi"] if ev else None,
            "meets_in_search": ev["meets"] if ev else None,
            "on_front": c.id in front,
        }
        for e in spec.edits:
            row[e.label] = str(c.values[e.label])
        rows.append(row)
    return rows


def estimate_rows(search):
    rows = []
    for c in search.order:
        for rung, ev in enumerate(c.evals):
            for r in ev["rows"]:
                rows.append(
                    {"candidate": c.id, "rung": rung, "games_per_player_count": search.rungs[rung], **r}
                )
    return rows


def confirmation_rows(search):
    rows = []
    for c, ev in search.confirmation:
        for r in ev["rows"]:
            rows.append(
                {
                    "candidate": c.id,
                    "edit": search.spec.describe(c.values),
                    "n_changes": len(c.changes),
                    "official": c is search.official,
                    "all_met": ev["meets"],
                    "seed": search.spec.confirm["seed"],
                    "games_per_player_count": search.spec.confirm["games"],
                    "strategy": search.spec.confirm["strategy"],
                    **r,
                }
            )
    return rows


def game_rows(search):
    keep = {c.key: c.id for c in search.order}
    rows = []
    for rec in search.store.blocks.values():
        if rec["cand"] not in keep:
            continue
        rows.append(
            {
                "candidate": keep[rec["cand"]],
                "phase": rec["phase"],
                "experiment": rec["exp_key"],
                "seed": rec["seed"],
                "first": rec["start"],
                "count": rec["count"],
                "games": rec["games"],
                "stats": json.dumps(rec["stats"], sort_keys=True),
            }
        )
    rows.sort(key=lambda r: (r["phase"] != "search", r["candidate"], r["experiment"], r["first"]))
    return rows


def _write_parquet(path, rows):
    table = pa.Table.from_pylist(rows) if rows else pa.table({"candidate": pa.array([], pa.int64())})
    pq.write_table(table, path)


# --- the answer ----------------------------------------------------------------------------


def _by_objective(ev):
    return {r["objective"]: r for r in ev["rows"]}


def _missed(ev):
    return sum(1 for r in ev["rows"] if not r["meets"])


def answer(search):
    """The report's opening sentence(s)."""
    spec = search.spec
    if not search.confirmation:
        return "The search was interrupted before the confirmation; no edit is confirmed yet."
    official_ev = search.confirmation[0][1]
    proposals = search.confirmation[1:]
    passed = [(c, ev) for c, ev in proposals if ev["meets"]]
    strat = spec.confirm["strategy"]
    games = spec.confirm["games"]
    base = _by_objective(official_ev)
    if passed:
        c, ev = min(passed, key=lambda t: (len(t[0].changes), t[1]["loss"]))
        lead = f"Change {spec.describe(c.values)}"
        verdict = "every target met on fresh deals"
    elif proposals:
        # the closest: the fewest targets missed, then the lowest loss, then the fewest changes
        c, ev = min(proposals, key=lambda t: (_missed(t[1]), t[1]["loss"], len(t[0].changes)))
        lead = f"No edit tried meets every target on fresh deals; the closest is: change {spec.describe(c.values)}"
        verdict = "targets missed: " + ", ".join(r["objective"] for r in ev["rows"] if not r["meets"])
    else:
        return "No edit beat the official rules in the search; official rules on fresh deals: " + "; ".join(
            f"{r['objective']} {interval_text(r)}" for r in official_ev["rows"]
        )
    mine = _by_objective(ev)
    parts = [
        f"{k}: {interval_text(base[k])} -> {interval_text(mine[k])} (target {target_text(mine[k])})"
        for k in mine
    ]
    return (
        f"{lead}: " + "; ".join(parts) + f" ({verdict}; {strat} at every seat, {games:,} fresh games per "
        "player count, 95% intervals, official rules first)."
    )


# --- the plot ------------------------------------------------------------------------------


def plot_front(search, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = search.full()
    front = search.front()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    ax.scatter(
        [len(c.changes) for c in done],
        [c.final["loss"] for c in done],
        s=12,
        color="#bbbbbb",
        label="fully played candidates",
    )
    xs = [len(c.changes) for c in front]
    ys = [c.final["loss"] for c in front]
    lo = [c.final["loss"] - c.final["loss_lo"] for c in front]
    ax.step(xs, ys, where="post", color="#1f5fa8", lw=1.5)
    ax.scatter(xs, ys, color="#1f5fa8", zorder=3, label="front (search deals)")
    confirmed = {c.id: ev for c, ev in search.confirmation}
    for c in front:
        ev = confirmed.get(c.id)
        if ev is not None:
            ax.scatter(
                [len(c.changes)],
                [ev["loss"]],
                marker="D" if ev["meets"] else "x",
                color="#2a8f3c" if ev["meets"] else "#c0392b",
                zorder=4,
                s=40,
            )
    ax.scatter([], [], marker="D", color="#2a8f3c", label="confirmed: every target met")
    ax.scatter([], [], marker="x", color="#c0392b", label="confirmed: a target missed")
    del lo
    ax.set_xlabel("number of changes from the official rules")
    ax.set_ylabel("loss (distance outside the targets)")
    ax.set_title(f"{search.spec.name}: the front")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# --- writing ----------------------------------------------------------------------------------


def _sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def summary(search):
    """The front and the confirmation runs as JSON-ready dicts (``--json``)."""
    spec = search.spec
    conf = {c.id: ev for c, ev in search.confirmation}
    return {
        "name": spec.name,
        "status": search.status,
        "answer": answer(search),
        "candidates": len(search.order),
        "fully_played": len(search.full()),
        "games": search.games,
        "front": [
            {
                "candidate": c.id,
                "edit": spec.describe(c.values),
                "values": c.values,
                "n_changes": len(c.changes),
                "loss": c.final["loss"],
                "search": c.final["rows"],
                "confirmed": conf[c.id]["meets"] if c.id in conf else None,
            }
            for c in search.front()
        ],
        "confirmation": [
            {
                "candidate": c.id,
                "edit": spec.describe(c.values),
                "official": c is search.official,
                "all_met": ev["meets"],
                "rows": ev["rows"],
            }
            for c, ev in search.confirmation
        ],
    }


def write_outputs(search, out, *, command=None, elapsed=None):
    """Write the dataset, the manifest and the report into ``out``; return the report path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    spec = search.spec
    (out / "spec.toml").write_text(spec.text, encoding="utf-8")
    _write_parquet(out / "candidates.parquet", candidate_rows(search))
    _write_parquet(out / "estimates.parquet", estimate_rows(search))
    _write_parquet(out / "games.parquet", game_rows(search))
    _write_parquet(out / "confirmation.parquet", confirmation_rows(search))
    if search.full():
        plot_front(search, out / "front.png")
    _write_configs(search, out)
    summ = summary(search)
    (out / "front.json").write_text(json.dumps(summ, indent=1, default=str), encoding="utf-8")
    manifest = {
        "format": BALANCE_FORMAT,
        "name": spec.name,
        "status": search.status,
        "spec": "spec.toml",
        "spec_digest": spec.digest(),
        "optimizer": search.optimizer_name,
        "racing": search.racing,
        "search_seed": spec.search["seed"],
        "confirm": spec.confirm,
        "games_search": search.games,
        "games_played_this_process": search.fresh_games,
        "blocks_reused": search.store.reused,
        "elapsed_s": None if elapsed is None else round(elapsed, 1),
        "stopped_because": search.stopped_because,
        "backend": search.player.name,
        # the same candidates, games and front: the search is deterministic given the spec,
        # the optimiser's seed and a games budget (a time budget stops at a batch boundary,
        # which this games budget reproduces)
        "rerun": f"sim balance {out / 'spec.toml'} --budget-games {search.games} --out <new folder>",
        "command": command,
        "git": dataset.git_state(),
        "python": platform.python_version(),
        "files": {},
    }
    for name in (*FILES, "spec.toml", "front.json", BLOCKS_NAME):
        if (out / name).is_file():
            manifest["files"][name] = _sha(out / name)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str), encoding="utf-8")
    report = _report_md(search, summ, manifest)
    (out / "report.md").write_text(report, encoding="utf-8")
    (out / "report.html").write_text(_report_html(report, out), encoding="utf-8")
    return out / "report.md"


BLOCKS_NAME = "blocks.jsonl"


def _write_configs(search, out):
    """A run config per confirmed candidate and player count: ``sim run`` plays its
    confirmation games again, row for row."""
    from .balance_spec import run_config
    from .toml_writer import dumps

    folder = out / "configs"
    folder.mkdir(exist_ok=True)
    spec = search.spec
    for c, _ in search.confirmation:
        for n in spec.players:
            raw = run_config(
                spec,
                c.values,
                n,
                seats=[{"strategy": spec.confirm["strategy"]}],
                games=spec.confirm["games"],
                seed=spec.confirm["seed"],
            )
            raw["name"] = f"{spec.name}-c{c.id}-{n}p"
            head = [f"sim balance confirmation of candidate {c.id}: {spec.describe(c.values)}"]
            (folder / f"c{c.id}-{n}p.toml").write_text(dumps(raw, header=head), encoding="utf-8")


def _md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def _report_md(search, summ, manifest):
    spec = search.spec
    lines = [f"# {spec.name}: what to change", "", f"**{summ['answer']}**", ""]
    if search.status != "complete":
        lines += [f"_Status: {search.status}; `--resume` continues the search._", ""]
    if (Path(manifest.get("spec", "")).name) and search.full():
        lines += ["![the front](front.png)", ""]
    # confirmation
    if search.confirmation:
        lines += [
            "## Confirmation on fresh deals",
            "",
            f"{spec.confirm['games']:,} games per player count, seed {spec.confirm['seed']} (never played by "
            f"the search), `{spec.confirm['strategy']}` at every seat; estimate [95% interval]. "
            "A target is met only when the whole interval lies inside it.",
            "",
        ]
        objs = [r["objective"] for r in search.confirmation[0][1]["rows"]]
        header = ["edit", "changes", *objs, "all met"]
        rows = []
        for c, ev in search.confirmation:
            by = _by_objective(ev)
            cells = [interval_text(by[o]) + ("" if by[o]["meets"] else " ✗") for o in objs]
            rows.append([spec.describe(c.values), len(c.changes), *cells, "yes" if ev["meets"] else "no"])
        targets = search.confirmation[0][1]["rows"]
        rows.append(["target", "", *[target_text(r) for r in targets], ""])
        lines += [_md_table(header, rows), ""]
    # front
    lines += [
        "## The front: loss against the number of changes",
        "",
        "Loss: the weighted distance of the estimates outside their targets, in target half-widths, "
        "plus a small distance from the targets' centres (0 is perfect). Each point is the best fully "
        "played candidate with that many changes that beats every candidate with fewer; estimates "
        f"on the search's own deals ({search.rungs[-1]:,} games per player count, seed {spec.search['seed']}).",
        "",
    ]
    front_rows = []
    for f in summ["front"]:
        front_rows.append(
            [
                f["n_changes"],
                f["edit"],
                _f(f["loss"], 3),
                "; ".join(f"{r['objective']} {interval_text(r)}" for r in f["search"]),
                {True: "met", False: "missed", None: "not confirmed"}[f["confirmed"]],
            ]
        )
    lines += [_md_table(["changes", "edit", "loss", "search estimates", "confirmation"], front_rows), ""]
    # search
    dropped = {"test": 0, "halving": 0, "invalid": 0}
    for c in search.order:
        if c.dropped:
            dropped[c.dropped.split(":")[0]] += 1
    lines += [
        "## The search",
        "",
        f"- optimiser: `{search.optimizer_name}`, seed {spec.search['seed']}, batches of "
        f"{spec.search['batch']}, change cost {spec.search['change_cost']:g} per change",
        f"- racing: rungs {search.rungs} games per player count, keep {search.racing['keep']:.2f} per rung, "
        f"sequential test {'on' if search.racing['test'] else 'off'}; {len(search.order)} candidates, "
        f"{len(search.full())} played to the last rung, {dropped['test']} dropped by the test, "
        f"{dropped['halving']} by halving",
        f"- games: {search.games:,} in the search; {search.fresh_games:,} played by this process, confirmation included "
        f"({search.store.reused} blocks taken from a previous run)",
        f"- stopped: {search.stopped_because or search.status}",
        f"- edit space: {len(spec.edits)} edits: "
        + ", ".join(f"`{e.label}` ({len(e.values)} values, official {e.official})" for e in spec.edits),
        f"- rerun: `{manifest['rerun']}`",
        "",
        "Files: `candidates.parquet` (every candidate, its rung and loss), `estimates.parquet` "
        "(every objective of every candidate at every rung it reached, with 95% intervals), "
        "`games.parquet` (every block of games played: candidate, experiment, seed, game range, "
        "statistics), `confirmation.parquet`, `configs/` (run configs replaying each confirmation "
        "with `sim run`), `manifest.json`.",
        "",
    ]
    return "\n".join(lines)


def _report_html(md, out):
    import base64

    body = []
    for line in md.splitlines():
        if line.startswith("![") and (out / "front.png").is_file():
            data = base64.b64encode((out / "front.png").read_bytes()).decode()
            body.append(f'<img alt="the front" src="data:image/png;base64,{data}">')
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("|"):
            if set(line.replace("|", "")) <= set("-"):
                continue
            cells = [html.escape(x.strip()) for x in line.strip("|").split("|")]
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        elif line.strip():
            body.append(f"<p>{html.escape(line.strip('*_'))}</p>")
    text, rows, out_html = "\n".join(body), [], []
    del rows
    in_table = False
    for line in text.splitlines():
        if line.startswith("<tr>") and not in_table:
            out_html.append("<table>")
            in_table = True
        if not line.startswith("<tr>") and in_table:
            out_html.append("</table>")
            in_table = False
        out_html.append(line)
    if in_table:
        out_html.append("</table>")
    style = (
        "body{font-family:sans-serif;max-width:72em;margin:2em auto}td{border:1px solid #ccc;padding:2px 6px}"
    )
    return f"<!doctype html><meta charset=utf-8><style>{style}</style>" + "\n".join(out_html)
