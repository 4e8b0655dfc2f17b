"""Command ``replay``: the independent referee replays a dataset's logged games."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import ConfigError
from ..progress import Progress, auto_enabled

EXIT_DIVERGENCE = 1


def replay(directory: Annotated[Path, typer.Argument(
               metavar="DIR", help="Dataset written by `sim run CONFIG --events`.",
               show_default=False)],
           games: Annotated[Optional[int], typer.Option(
               help="Replay only the first N games.", show_default=False)] = None,
           show: Annotated[int, typer.Option(
               help="Divergences printed in full (the rest are counted).")] = 10,
           json_: Annotated[bool, typer.Option(
               "--json", help="Print the report as JSON on stdout.")] = False,
           progress: Annotated[Optional[bool], typer.Option(
               "--progress/--no-progress", help="Progress bar on stderr (default: only when "
               "stderr is a terminal).", show_default=False)] = None):
    """Replay every logged game with the referee's own rules and check every event.

    Reports the first divergence of each game (rule id, event, both states) and exits
    with status 1 if any game diverges.
    """
    from ..dataset import read_manifest
    from ..referee import replay_dataset

    if games is not None and games < 1:
        raise ConfigError("--games", games, "a positive number of games")
    if show < 0:
        raise ConfigError("--show", show, "0 or more")
    manifest = read_manifest(directory)
    total = manifest.get("games_done", 0) if manifest else 0
    bar = Progress(enabled=auto_enabled() if progress is None else progress)
    bar.expect(min(total, games) if games else total)
    seen = [0]

    def on_chunk(report):
        bar.advance(report.games - seen[0])
        seen[0] = report.games

    try:
        report = replay_dataset(directory, max_games=games, on_chunk=on_chunk)
    finally:
        bar.close()
    if json_:
        typer.echo(json.dumps(report.to_dict()))
    else:
        for div in report.divergences[:show]:
            typer.echo(div.format())
        if len(report.divergences) > show:
            typer.echo(f"... and {len(report.divergences) - show:,} more divergent games")
        typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(EXIT_DIVERGENCE)


def register(app):
    app.command("replay")(replay)
