"""Command ``meta``: a round-robin of strategies on duplicate deals (``sim/meta.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import backends
from .. import meta as mt
from ..errors import SimError
from .run import (
    BackendOpt,
    ChunkOpt,
    ForceOpt,
    ProgressOpt,
    ResumeOpt,
    ThreadsOpt,
    _check_overrides,
    _play_sweep,
    _rate,
    _shipped,
)

#: the questions a meta run answers and reports
QUESTIONS = ("meta", "skill")

MetaArg = Annotated[
    Path, typer.Argument(metavar="CONFIG", help="Meta config (TOML).", show_default=False, callback=_shipped)
]


def meta(
    config: MetaArg,
    games: Annotated[
        Optional[int],
        typer.Option(
            help="Games per pairing (default: the config's), rounded up to whole deals.", show_default=False
        ),
    ] = None,
    seed: Annotated[
        Optional[int], typer.Option(help="Override the config's seed.", show_default=False)
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out", "-o", help="Output directory (default: results/meta-<config name>/).", show_default=False
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_games: ChunkOpt = None,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    progress: ProgressOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the tables and answers as JSON.")] = False,
    backend: BackendOpt = "local",
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="Write OUT/report.html and its Markdown twin.")
    ] = True,
):
    """Round-robin of the config's strategies on duplicate deals (every deal once per seat
    rotation): the payoff table with 95% intervals, whether a strategy is dominant, the
    Nash-averaging and alpha-Rank ratings, and how much of the outcome skill explains."""
    from analysis.dataset import open_dataset
    from analysis.errors import AnalysisError
    from analysis.metrics import QUESTIONS as REGISTRY
    from analysis.metrics import run_question
    from analysis.text import plain_table

    _check_overrides(games, seed)
    plan = mt.plan(config, games=games, seed=seed)
    backends.configure(backend)
    out = out or Path("results") / f"meta-{Path(config).stem}"
    played, elapsed = _play_sweep(
        mt.as_sweep(plan),
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
        results = {q: run_question(ds, q) for q in QUESTIONS}
    except AnalysisError as exc:
        raise SimError(str(exc)) from None
    answers = [
        str(h) for q in QUESTIONS if REGISTRY[q].headlines for h in REGISTRY[q].headlines(ds, results[q])
    ]
    written = _write_report(plan, out) if report else None
    total = sum(r["games"] for _, _, r in plan.pairings)
    if json_:
        typer.echo(
            json.dumps(
                {
                    "out": str(out),
                    "pairings": len(plan.pairings),
                    "games_per_pairing": plan.pairings[0][2]["games"],
                    "games": total,
                    "games_played": played,
                    "elapsed_s": round(elapsed, 3),
                    "tables": {
                        name: t.to_dicts()
                        for q in QUESTIONS
                        for name, t in results[q].items()
                        if hasattr(t, "to_dicts")
                    },
                    "answers": answers,
                    "report": str(written[0]) if written else None,
                }
            )
        )
        return
    typer.echo(
        f"{len(plan.pairings)} pairings x {plan.pairings[0][2]['games']:,} games ({total:,}; "
        f"{played:,} played now) in {elapsed:.1f} s, {_rate(played, elapsed)}; dataset: {out}/"
    )
    rat = results["meta"].get("meta_ratings")
    if rat is not None:
        typer.echo(plain_table(rat))
    for line in answers:
        typer.echo(line if "\n" in line else "- " + line)
    if written:
        typer.echo(f"report: {written[0]} (Markdown: {written[1]})")


def _write_report(plan, out):
    """The round-robin's report in ``out`` (titled by the meta config's name)."""
    from analysis.report import report_for_dir, write_report

    from ..dataset import os_error_line

    name = plan.raw.get("name") or plan.source.stem
    intro = f"Round-robin of {', '.join(plan.names)} on duplicate deals (sim meta) from {plan.source}."
    if plan.raw.get("description"):
        intro += " " + str(plan.raw["description"])
    try:
        return write_report(
            report_for_dir(out, questions=QUESTIONS, title=f"Meta-game: {name}", intro=intro),
            out / "report.html",
        )
    except OSError as exc:
        raise SimError(
            os_error_line(exc, exc.filename or out / "report.html", "writing the report")
        ) from None


def register(app):
    app.command("meta")(meta)
