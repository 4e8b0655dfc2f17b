"""Command ``balance``: the smallest rule edits that meet a spec's targets (``sim/balance.py``)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..config import config_path
from ..errors import ConfigError, SimError


def balance(
    spec: Annotated[
        Path, typer.Argument(help="A balance spec (TOML), e.g. configs/balance/bloody_inn-fair-seats.toml.")
    ],
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out", "-o", help="Output folder (default: results/balance-<spec name>/).", show_default=False
        ),
    ] = None,
    budget_games: Annotated[
        Optional[int],
        typer.Option(
            help="Games the search may play (default: the spec's search.budget_games).", show_default=False
        ),
    ] = None,
    budget_minutes: Annotated[
        Optional[float],
        typer.Option(help="Wall-clock minutes for the search and the confirmation.", show_default=False),
    ] = None,
    optimizer: Annotated[
        Optional[str],
        typer.Option(
            help="tpe | nsga2 | ngopt | random (default: the spec's search.optimizer).", show_default=False
        ),
    ] = None,
    backend: Annotated[
        str, typer.Option(help="Where candidates are played: 'local' or 'ray' (Ray tasks).")
    ] = "local",
    threads: Annotated[
        Optional[int], typer.Option(help="Numba threads (local backend).", show_default=False)
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue an interrupted search in --out (same spec): the same front."),
    ] = False,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the front and the confirmation runs as JSON.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress lines on stderr.")
    ] = True,
):
    """Search rule edits (card fields, deck size, rule constants) that bring the spec's
    objectives inside their targets, racing candidates on common deals; report the front
    (loss against the number of changes) and confirm it on fresh deals with the strong player."""
    from .. import balance as bal
    from .. import balance_report as rep
    from ..balance_spec import OPTIMIZERS, load_spec

    if budget_games is not None and budget_minutes is not None:
        raise ConfigError("--budget-games/--budget-minutes", "both", "one of them")
    if budget_games is not None and budget_games < 1:
        raise ConfigError("--budget-games", budget_games, "a positive integer")
    if budget_minutes is not None and budget_minutes <= 0:
        raise ConfigError("--budget-minutes", budget_minutes, "a positive number of minutes")
    if optimizer is not None and optimizer not in OPTIMIZERS:
        raise ConfigError("--optimizer", optimizer, " | ".join(OPTIMIZERS))
    if backend not in ("local", "ray"):
        raise ConfigError("--backend", backend, "'local' | 'ray'")
    s = load_spec(config_path(spec))
    out = out or Path("results") / f"balance-{s.name}"
    _check_out(out, s, resume)
    out.mkdir(parents=True, exist_ok=True)
    (out / "state.json").write_text(json.dumps({"spec_digest": s.digest(), "name": s.name}), encoding="utf-8")
    player = bal.RayPlayer() if backend == "ray" else None
    from .. import api

    api.set_threads(threads)
    search = bal.Search(
        s,
        out=out,
        budget_games=budget_games,
        budget_minutes=budget_minutes,
        player=player,
        resume=resume,
        progress=progress,
        optimizer=optimizer,
    )
    # argv[1:] starts with the command's own name when run as `sim balance ...`
    args = sys.argv[1:]
    if args[:1] == ["balance"]:
        args = args[1:]
    command = "sim balance " + " ".join(shlex.quote(a) for a in args) if sys.argv else None
    t0 = time.monotonic()
    try:
        search.run()
    except KeyboardInterrupt:
        rep.write_outputs(search, out, command=command, elapsed=time.monotonic() - t0)
        raise bal.BalanceInterrupted(
            f"interrupted: kept {len(search.order)} candidates and {len(search.store.blocks)} blocks of games "
            f"in {out}/; `sim balance {spec} --out {out} --resume` continues"
        ) from None
    report = rep.write_outputs(search, out, command=command, elapsed=time.monotonic() - t0)
    if json_:
        typer.echo(json.dumps(rep.summary(search), default=str))
        return
    typer.echo(rep.answer(search))
    typer.echo(f"report: {report}  (dataset: {out}/)")


def _check_out(out, spec, resume):
    state = out / "state.json"
    if resume:
        if not state.is_file():
            raise SimError(f"{out}: no search to resume here (no state.json); run without --resume")
        try:
            digest = json.loads(state.read_text(encoding="utf-8")).get("spec_digest")
        except ValueError:
            digest = None
        if digest != spec.digest():
            raise SimError(
                f"{out}: holds a search of another spec (digest {digest}, this spec {spec.digest()}); "
                "resume with the same spec or choose another --out"
            )
        return
    if out.exists() and any(out.iterdir()):
        raise SimError(f"{out}: not empty; --resume continues the search there, or choose another --out")


def register(app):
    app.command("balance")(balance)
