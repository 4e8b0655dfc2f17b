"""Command ``replay``: the independent referee replays a dataset's logged games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import registry
from ..errors import ConfigError, SimError
from ..progress import Progress, auto_enabled

EXIT_DIVERGENCE = 1


def _datasets(directory):
    """``directory`` itself, or (a sweep) every sub-directory holding a dataset; each one
    verified against its manifest before anything is replayed."""
    from ..dataset import read_manifest, verify

    manifest = read_manifest(directory)
    if manifest is not None:
        return [(Path(directory), verify(directory, manifest))]
    subs = sorted(p.parent for p in Path(directory).glob("*/manifest.json"))
    found = [(p, verify(p, read_manifest(p))) for p in subs]
    if not found:
        raise SimError(f"{directory}: no manifest.json; not a dataset (nor a sweep of datasets)")
    return found


def _warnings(path, manifest):
    """What ``analyse`` and ``report`` warn about too: chunk files the manifest does not list (never
    replayed) and a dataset that is not complete (only its finished games are replayed)."""
    from ..dataset import effective_status, unlisted_files

    out = []
    status = effective_status(path, manifest)
    if status is not None and status != "complete":
        out.append(
            f"dataset {path} is {status}, not complete: only its {manifest.get('games_done', 0):,} "
            f"finished games of {manifest.get('games', 0):,} are replayed"
        )
    extra = unlisted_files(path, manifest)
    if extra:
        more = ", ..." if len(extra) > 1 else ""
        out.append(f"{path}: {len(extra)} chunk file(s) not in its manifest were ignored ({extra[0]}{more})")
    return out


def _referee(path, manifest):
    """The referee of the dataset's game, from its adapter (its ``ReplayReport``); one-line
    error for a game without one."""
    game = manifest.get("game")
    ref = registry.referee(game) if game in registry.game_names() else None
    if ref is None:
        with_one = [g for g in registry.game_names() if registry.referee(g) is not None]
        raise SimError(
            f"{path}: manifest.json game = {game!r} has no referee; allowed: {', '.join(with_one)}"
        )
    return ref


def replay(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="Dataset written by `sim run CONFIG --events` (or a sweep directory of such datasets).",
            show_default=False,
        ),
    ],
    games: Annotated[
        Optional[int],
        typer.Option(help="Replay only the first N games (of each dataset).", show_default=False),
    ] = None,
    show: Annotated[int, typer.Option(help="Divergences printed in full (the rest are counted).")] = 10,
    json_: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
    progress: Annotated[
        Optional[bool],
        typer.Option(
            "--progress/--no-progress",
            help="Progress bar on stderr (default: only when stderr is a terminal).",
            show_default=False,
        ),
    ] = None,
):
    """Replay every logged game with the referee's own rules and check every event.

    Reports the first divergence of each game (rule id, event, both states) and exits
    with status 1 if any game diverges.
    """
    if games is not None and games < 1:
        raise ConfigError("--games", games, "a positive number of games")
    if show < 0:
        raise ConfigError("--show", show, "0 or more")
    found = _datasets(directory)
    for path, manifest in found:
        for line in _warnings(path, manifest):
            typer.echo(f"warning: {line}", err=True)
    referees = [_referee(path, manifest) for path, manifest in found]
    bar = Progress(enabled=auto_enabled() if progress is None else progress)
    for _, manifest in found:
        done = manifest.get("games_done", 0)
        bar.expect(min(done, games) if games else done)
    total = referees[0].ReplayReport()
    parts = []
    try:
        for path, _ in found:
            seen = [0]

            def on_chunk(report, seen=seen):
                bar.advance(report.games - seen[0])
                seen[0] = report.games

            report = registry.replay_dataset(path, max_games=games, on_chunk=on_chunk)
            parts.append((path, report))
            total.merge(report)
    finally:
        bar.close()
    if json_:
        out = total.to_dict()
        if len(parts) > 1:
            out["datasets"] = {str(p): r.to_dict() for p, r in parts}
        typer.echo(json.dumps(out))
    else:
        for div in total.divergences[:show]:
            typer.echo(div.format())
        if len(total.divergences) > show:
            typer.echo(f"... and {len(total.divergences) - show:,} more divergent games")
        if len(parts) > 1:
            for path, report in parts:
                typer.echo(f"{path}: {report.summary()}")
        typer.echo(total.summary())
    if not total.ok:
        raise typer.Exit(EXIT_DIVERGENCE)


def register(app):
    app.command("replay")(replay)
