"""``sim bench``: the command line of :mod:`sim.bench` (its options, their checks, the output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from .. import bench as B
from ..bench import MAX_GAMES, MIN_GAMES, QUICK_SECONDS, ROUNDS
from ..errors import ConfigError


def bench(
    ctx: typer.Context,
    game: Annotated[
        Optional[List[str]],
        typer.Option("--game", help="Game to measure (repeatable; default: every game).", show_default=False),
    ] = None,
    players: Annotated[
        Optional[List[int]],
        typer.Option(
            "--players", help="Player count (repeatable; default: every count).", show_default=False
        ),
    ] = None,
    mix: Annotated[
        Optional[List[str]],
        typer.Option(
            "--mix",
            help="Strategy mix: 'mixed' (the game's strategies in turn over the "
            "seats) or a strategy at every seat (repeatable; default: mixed at every "
            "player count, and each strategy alone at the game's default count).",
            show_default=False,
        ),
    ] = None,
    seconds: Annotated[
        float, typer.Option(help="Target duration of each all-cores pass (the 1-thread pass takes longer).")
    ] = 1.0,
    games: Annotated[
        Optional[int], typer.Option(help="Fixed games per pass instead of --seconds.", show_default=False)
    ] = None,
    rounds: Annotated[
        int,
        typer.Option(
            help="Pairs of passes (1 thread, then all cores) per row; the speed-up is the "
            "median of their ratios, which keeps a VM's drifting speed out of it."
        ),
    ] = ROUNDS,
    py_games: Annotated[
        int, typer.Option("--py-games", help="Games played with the JIT disabled (0: skip).")
    ] = 20,
    startup_: Annotated[
        bool, typer.Option("--startup/--no-startup", help="Time cold compile and warm start of sim run.")
    ] = True,
    targets_: Annotated[
        bool,
        typer.Option(
            "--targets",
            help="Also time each game's throughput targets (1,000,000 games of a reference config, see benchmarks/README.md) through sim run.",
        ),
    ] = False,
    target_games: Annotated[int, typer.Option("--target-games", help="Games per target run.")] = 1_000_000,
    target_sittings: Annotated[
        int,
        typer.Option(
            "--target-sittings",
            help="Runs of each target, each between two yardstick readings (shared with its "
            "neighbours): the median run and ratio, and a 95% interval of the mean ratio from 2 runs up.",
        ),
    ] = 1,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help=f"A bench of well under a minute: each game at its default player count with the "
            f"mixed lineup, one pair of passes of --seconds {QUICK_SECONDS:g}, no start-up, "
            "JIT-disabled or target runs (an option given as well still applies).",
        ),
    ] = False,
    yardstick: Annotated[
        Optional[Path],
        typer.Option(
            help="The yardstick kernel file, read before and after the rows, each row's games/s "
            "given as a ratio to it (default: $BOARDSIM_YARDSTICK, else ../shared/bench/yardstick.py "
            "beside the project, skipped when absent).",
            show_default=False,
        ),
    ] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the results as JSON (with the machine description).")
    ] = False,
):
    """Measure games/s (1 thread, all cores), where the time goes, start-up, memory, JIT gain."""
    if quick:
        # by name: Typer may bring its own copy of Click, whose enum is not click's
        given = lambda name: getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"  # noqa: E731
        seconds = seconds if given("seconds") else QUICK_SECONDS
        rounds = rounds if given("rounds") else 1
        py_games = py_games if given("py_games") else 0
        startup_ = startup_ if given("startup_") else False
    if games is not None and not MIN_GAMES <= games <= MAX_GAMES:
        raise ConfigError("--games", games, f"an integer from {MIN_GAMES} to {MAX_GAMES}")
    if not 0.05 <= seconds <= 600:
        raise ConfigError("--seconds", seconds, "a number from 0.05 to 600")
    if not 1 <= rounds <= 20:
        raise ConfigError("--rounds", rounds, "an integer from 1 to 20")
    if not 0 <= py_games <= 10_000:
        raise ConfigError("--py-games", py_games, "an integer from 0 to 10000")
    if not 1 <= target_games <= 100_000_000:
        raise ConfigError("--target-games", target_games, "an integer from 1 to 100000000")
    if not 1 <= target_sittings <= 20:
        raise ConfigError("--target-sittings", target_sittings, "an integer from 1 to 20")
    if yardstick is not None and not yardstick.is_file():
        raise ConfigError(
            "--yardstick", str(yardstick), "an existing file (the project's shared/bench/yardstick.py)"
        )
    yard_path = yardstick or B.default_yardstick()
    if yard_path is not None and not yard_path.is_file():
        raise ConfigError(
            "BOARDSIM_YARDSTICK", str(yard_path), "an existing file (shared/bench/yardstick.py)"
        )
    settings = {
        "quick": quick,
        "seconds": seconds,
        "games": games,
        "rounds": rounds,
        "py_games": py_games,
        "startup": startup_,
        "targets": targets_,
        "target_games": target_games if targets_ else None,
        "target_sittings": target_sittings if targets_ else None,
    }
    result = B.run(
        game, players, mix, settings=settings, yardstick=yard_path, say=lambda m: typer.echo(m, err=True)
    )
    if json_:
        typer.echo(json.dumps(result, indent=1))
    else:
        typer.echo(B.render(result))


def register(app):
    app.command("bench")(bench)
