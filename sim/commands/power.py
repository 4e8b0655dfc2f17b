"""Command ``power``: causal power of annexes and actions by restricted play (``sim/power.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import backends
from .. import power as pw
from ..errors import SimError
from .run import (
    BackendOpt,
    ChunkOpt,
    ConfigArg,
    ForceOpt,
    ProgressOpt,
    ResumeOpt,
    ThreadsOpt,
    _check_overrides,
    _play_sweep,
    _rate,
)


def power(
    config: ConfigArg,
    cards: Annotated[
        Optional[str],
        typer.Option(help="ALL or comma-separated card ids: one arm per annex the seat never builds."),
    ] = None,
    actions: Annotated[
        bool, typer.Option("--actions", help="One arm per action the seat never takes (bribe ... launder).")
    ] = False,
    games: Annotated[
        Optional[int],
        typer.Option(
            help="Games per arm (default: the config's), rounded up to whole deals.", show_default=False
        ),
    ] = None,
    seed: Annotated[
        Optional[int], typer.Option(help="Override the config's seed.", show_default=False)
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="Output directory (default: results/power-<config name>/).",
            show_default=False,
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_games: ChunkOpt = None,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    progress: ProgressOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the power table as JSON on stdout.")] = False,
    backend: BackendOpt = "local",
    report: Annotated[
        bool,
        typer.Option(
            "--report/--no-report", help="Write OUT/report.html and its Markdown twin (verdicts first)."
        ),
    ] = True,
):
    """Baseline plus one arm per restriction on the same deals (lineup entry 0 restricted);
    prints the causal power (win share unrestricted - restricted, paired 95% interval)
    beside the associational lift, and writes a report beside the dataset.  Without --cards
    or --actions: every annex and action."""
    from analysis.dataset import open_dataset
    from analysis.errors import AnalysisError
    from analysis.metrics import run_question
    from analysis.questions.power import headlines
    from analysis.text import plain_table

    _check_overrides(games, seed)
    if cards is None and not actions:
        cards, actions = "ALL", True
    points = pw.plan(config, cards=cards, actions=actions, games=games, seed=seed)
    backends.configure(backend)
    out = out or Path("results") / f"power-{Path(config).stem}"
    played, elapsed = _play_sweep(
        pw.as_sweep(points, Path(config)),
        out,
        progress=progress,
        resume=resume,
        force=force,
        threads=threads,
        backend=backend,
        chunk_games=chunk_games,
    )
    try:
        ds = open_dataset(out)
        results = run_question(ds, "power")
    except AnalysisError as exc:
        raise SimError(str(exc)) from None
    table = results.get("causal_power")
    total = sum(r["games"] for _, r in points)
    written = _write_report(config, out) if report else None
    if json_:
        typer.echo(
            json.dumps(
                {
                    "out": str(out),
                    "arms": len(points),
                    "games_per_arm": points[0][1]["games"],
                    "games": total,
                    "games_played": played,
                    "elapsed_s": round(elapsed, 3),
                    "power": table.to_dicts() if table is not None else [],
                    "answers": headlines(ds, results),
                    "report": str(written[0]) if written else None,
                }
            )
        )
        return
    typer.echo(
        f"{len(points)} arms x {points[0][1]['games']:,} games ({total:,}; {played:,} played now) "
        f"in {elapsed:.1f} s, {_rate(played, elapsed)}; dataset: {out}/"
    )
    if table is not None:
        show = table.select(
            [c for c in table.columns if c not in ("se", "se_unpaired", "share_unrestricted", "kind")]
        )
        typer.echo(plain_table(show))
    for line in headlines(ds, results):
        typer.echo("- " + line)
    if written:
        typer.echo(f"report: {written[0]} (Markdown: {written[1]})")


def _write_report(config, out):
    """The experiment's report in ``out`` (titled by the run config's name)."""
    from analysis.report import report_for_dir, write_report

    from ..config import load_run_config
    from ..dataset import os_error_line

    raw, _ = load_run_config(config)
    name = raw.get("name") or Path(config).stem
    intro = f"Restricted play on the same deals (sim power) from {config}."
    if raw.get("description"):
        intro += " " + str(raw["description"])
    try:
        return write_report(
            report_for_dir(out, title=f"Causal power: {name}", intro=intro), out / "report.html"
        )
    except OSError as exc:
        raise SimError(
            os_error_line(exc, exc.filename or out / "report.html", "writing the report")
        ) from None


def register(app):
    app.command("power")(power)
