"""Commands ``analyse``, ``report`` and ``study`` (the analyses live in ``analysis/``)."""

from __future__ import annotations

import functools
import json
import math
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from ..errors import ConfigError, SimError

DirArg = Annotated[
    Path, typer.Argument(metavar="DIR", help="A run or sweep output directory.", show_default=False)
]


def _questions(values):
    from analysis.metrics import question_names

    known = question_names()
    if not values:
        return list(known)
    out = []
    for v in values:
        for q in v.split(","):
            q = q.strip()
            if q not in known:
                raise ConfigError("--question", q, " | ".join(known))
            if q not in out:
                out.append(q)
    return out


def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def analyse(
    directory: DirArg,
    question: Annotated[
        Optional[List[str]],
        typer.Option(
            "--question",
            "-q",
            help="seats | cards | deck | strategies | duration | characters | experience "
            "(repeat or comma-separate; default: all that apply).",
            show_default=False,
        ),
    ] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print JSON (headlines and tables) on stdout.")
    ] = False,
    csv: Annotated[
        bool, typer.Option("--csv", help="Print every table as CSV (a '# question/table' line before each).")
    ] = False,
    rows: Annotated[int, typer.Option(help="Rows shown per table in the terminal.")] = 60,
):
    """Answer balance questions on a run or sweep: tables on the terminal."""
    from analysis.dataset import open_dataset
    from analysis.report import answer
    from analysis.text import plain_table

    if json_ and csv:
        raise SimError("--json and --csv exclude each other")
    qs = _questions(question)
    ds = open_dataset(directory)
    sections = [s for s in (answer(ds, q, directory.name) for q in qs) if s is not None]
    if not sections:
        from analysis.metrics import QUESTIONS

        why = [r for r in (QUESTIONS[q].why_not(ds) for q in qs if QUESTIONS[q].why_not) if r]
        raise SimError(
            f"{directory}: none of the questions {', '.join(qs)} applies to this {ds.game} dataset"
            + (f" ({'; '.join(why)})" if why else "")
        )
    if json_:
        payload = {
            "dataset": str(directory),
            "game": ds.game,
            "kind": ds.kind,
            "params": ds.params,
            "warnings": ds.warnings,
            "questions": {},
        }
        for s in sections:
            payload["questions"][s.question] = {
                "title": s.title,
                "headlines": s.headlines,
                "tables": {
                    name: {
                        "title": t,
                        "note": note,
                        "rows": [{k: _clean(v) for k, v in r.items()} for r in df.to_dicts()],
                    }
                    for name, t, note, df in s.tables
                },
            }
        typer.echo(json.dumps(payload, indent=1))
        return
    if csv:
        for s in sections:
            for name, _, _, df in s.tables:
                typer.echo(f"# {s.question}/{name}")
                typer.echo(df.write_csv(), nl=False)
        return
    for w in ds.warnings:
        typer.echo(f"warning: {w}", err=True)
    for s in sections:
        typer.echo(f"== {s.title} ==")
        for h in s.headlines:
            typer.echo(f"* {h}")
        for _, title, note, df in s.tables:
            typer.echo(f"\n-- {title} --")
            if note:
                typer.echo(note)
            typer.echo(plain_table(df, max_rows=rows))
        typer.echo("")


def report(
    directory: DirArg,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="HTML file (default: DIR/report.html); the Markdown twin goes beside it.",
            show_default=False,
        ),
    ] = None,
    question: Annotated[
        Optional[List[str]],
        typer.Option(
            "--question", "-q", help="Questions to include (default: all that apply).", show_default=False
        ),
    ] = None,
    title: Annotated[Optional[str], typer.Option(help="Report title.", show_default=False)] = None,
):
    """Write a self-contained HTML report (and a Markdown twin) for a run or sweep."""
    from analysis.report import report_for_dir, write_report

    qs = _questions(question)
    rep = report_for_dir(directory, qs, title=title)
    target = out or (directory / "report.html")
    try:
        html_path, md_path = write_report(rep, target)
    except OSError as exc:
        from ..dataset import os_error_line

        raise SimError(os_error_line(exc, exc.filename or target, "writing the report")) from None
    typer.echo(f"report: {html_path} (Markdown: {md_path})")


def study(
    study_file: Annotated[
        Path, typer.Argument(metavar="STUDY", help="Study config (TOML).", show_default=False)
    ],
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="Output directory (default: the study's out, else results/<study name>/).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Re-run datasets that already exist.")] = False,
    report_only: Annotated[
        bool, typer.Option("--report-only", help="Run nothing; report on the datasets there.")
    ] = False,
    threads: Annotated[
        Optional[int], typer.Option(help="Numba threads (default: all cores).", show_default=False)
    ] = None,
    progress: Annotated[
        Optional[bool],
        typer.Option(
            "--progress/--no-progress",
            help="Progress bars on stderr (default: when stderr is a terminal).",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        str, typer.Option(help="Where chunks are played: 'local' or 'ray' (see docs/ray.md).")
    ] = "local",
    address: Annotated[
        Optional[str],
        typer.Option(
            help="Ray cluster address for --backend ray (default: start a local Ray instance).",
            show_default=False,
        ),
    ] = None,
    precision: Annotated[
        Optional[float],
        typer.Option(
            help="Every run and sweep point stops once the 95%% half-width of --precision-on is at most this.",
            show_default=False,
        ),
    ] = None,
    precision_on: Annotated[
        str, typer.Option(help="seat0 (first player's win share), seat<k>, entry<k> or rounds.")
    ] = "seat0",
    max_games: Annotated[
        Optional[int],
        typer.Option(
            "--max-games",
            help="Play at most this many games per run, sweep point and power arm (a quick look "
            "before the full study; the report states the games each answer rests on).",
            show_default=False,
        ),
    ] = None,
):
    """Run a study: its runs and sweeps (finished ones are skipped), analyses and report."""
    from analysis.study import load_study, run_study

    from ..config import config_path

    st = load_study(config_path(study_file), out)
    run_dataset = run_sweep = None
    bar = None
    if not report_only:
        from .. import backends, runner
        from .. import sweep as sweeps
        from ..progress import auto_enabled

        # Checked before anything runs: an unknown backend, a missing ray package or a wrong
        # address fails here in one line.
        backends.load(backend)
        backends.configure(backend, address=address)
        stop = {"precision": precision, "precision_on": precision_on} if precision is not None else {}
        if stop:
            from ..precision import check

            check(precision, precision_on)  # one line before anything runs
        if max_games is not None:
            runner.check_max_games(max_games)
            stop["max_games"] = max_games
        run_dataset = functools.partial(runner.run_dataset, backend=backend, **stop)
        run_sweep = functools.partial(sweeps.run_sweep, backend=backend, **stop)
        bar = auto_enabled() if progress is None else progress  # one bar per dataset
    from ..dataset import FolderLock

    t0 = time.perf_counter()
    # one writer per folder: a second `sim study` into the same out is refused in one line
    with FolderLock(st.out):
        html_path, md_path = run_study(
            st,
            run_dataset=run_dataset,
            run_sweep=run_sweep,
            force=force,
            threads=threads,
            progress=bar,
            report_only=report_only,
            echo=lambda m: typer.echo(m, err=True),
        )
    typer.echo(f"study {st.title!r} done in {time.perf_counter() - t0:.1f} s")
    typer.echo(f"report: {html_path} (Markdown: {md_path})")


def register(app):
    app.command("analyse")(analyse)
    app.command("analyze", hidden=True)(analyse)
    app.command("report")(report)
    app.command("study")(study)
