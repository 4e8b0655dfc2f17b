"""Command ``tune``: improve a strategy's parameters by simulation (``sim/tune.py``)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from .. import tune as tuner

ConfigArg = Annotated[
    Path,
    typer.Argument(
        metavar="CONFIG",
        help="Run config: players, rules and card edits are taken from it.",
        show_default=False,
    ),
]


def _split(values):
    out = []
    for v in values or []:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def tune(
    config: ConfigArg,
    strategy: Annotated[str, typer.Option(help="Strategy whose parameters are tuned.")] = "heuristic",
    against: Annotated[
        Optional[List[str]],
        typer.Option(
            help="Opponent strategy (repeat or comma-separate; cycled over the other "
            "seats). Not used with 1 player.",
            show_default=False,
        ),
    ] = None,
    generations: Annotated[int, typer.Option(help="Generations.")] = 8,
    population: Annotated[
        int, typer.Option(help="Candidates per generation (the search mean included).")
    ] = 12,
    games: Annotated[
        int, typer.Option(help="Games per candidate (the same games for every candidate of a generation).")
    ] = 2000,
    elite: Annotated[float, typer.Option(help="Share of candidates that moves the search.")] = 0.25,
    sigma: Annotated[float, typer.Option(help="Initial spread, share of each parameter's range.")] = 0.25,
    seed: Annotated[int, typer.Option(help="Seed of the candidates and the games.")] = 0,
    start: Annotated[
        Optional[Path],
        typer.Option(
            help="TOML with a [params] table to start from (default: the strategy's defaults).",
            show_default=False,
        ),
    ] = None,
    objective: Annotated[
        str, typer.Option(help="auto | win | score (auto: win share; mean score with 1 player).")
    ] = "auto",
    only: Annotated[
        Optional[List[str]],
        typer.Option(help="Tune only these parameters (repeat or comma-separate).", show_default=False),
    ] = None,
    validation_games: Annotated[
        Optional[int],
        typer.Option(help="Games for the final comparison (default 4 x --games).", show_default=False),
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="Where to write the best parameters (default: results/tune/<config>-<strategy>.toml).",
            show_default=False,
        ),
    ] = None,
    threads: Annotated[
        Optional[int], typer.Option(help="Numba threads; results do not depend on it.", show_default=False)
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
):
    """Improve a strategy's parameters by simulation (cross-entropy method, common random
    numbers); print each generation's best with its 95% interval and write the best
    parameters to a TOML file a config can name (params_file)."""
    from ..config import config_path

    config = config_path(config)
    t0 = time.perf_counter()

    def report(gen):
        if json_:
            return
        b, m = gen.best, gen.mean_eval
        typer.echo(
            f"generation {gen.index}: best {b.value:.4f} [{b.lo:.4f}, {b.hi:.4f}]  "
            f"mean-params {m.value:.4f} [{m.lo:.4f}, {m.hi:.4f}]  ({b.games:,} games "
            f"each, seed {gen.seed})"
        )

    res = tuner.tune(
        config,
        strategy,
        _split(against),
        generations=generations,
        population=population,
        games=games,
        elite=elite,
        sigma=sigma,
        seed=seed,
        start=start,
        objective=objective,
        validation_games=validation_games,
        only=_split(only),
        threads=threads,
        report=report,
    )
    out = out or Path("results") / "tune" / f"{Path(config).stem}-{strategy}.toml"
    command = (
        "sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        if sys.argv and sys.argv[0].endswith("sim")
        else None
    )
    tuner.write(res, out, command=command)
    v, s = res.validation, res.start_validation
    elapsed = time.perf_counter() - t0
    if json_:
        typer.echo(
            json.dumps(
                {
                    "out": str(out),
                    "strategy": strategy,
                    "params": res.params,
                    "validation": vars(v),
                    "start_validation": vars(s),
                    "generations": [
                        {"index": g.index, "best": vars(g.best), "mean": vars(g.mean_eval)}
                        for g in res.history
                    ],
                    "elapsed_s": round(elapsed, 2),
                }
            )
        )
        return
    typer.echo(
        f"validation ({v.games:,} fresh games): best {v.value:.4f} [{v.lo:.4f}, "
        f"{v.hi:.4f}]; start {s.value:.4f} [{s.lo:.4f}, {s.hi:.4f}]"
    )
    typer.echo(f"best parameters written to {out} ({elapsed:.1f} s)")


def register(app):
    app.command("tune")(tune)
