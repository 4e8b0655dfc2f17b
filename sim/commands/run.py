"""Commands ``run``, ``sweep``, ``validate``, ``games`` and ``strategies``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import api, backends, registry, runner
from .. import sweep as sweeps
from ..config import (
    MAX_GAMES,
    MAX_SEED,
    config_id,
    default_seats_note,
    load_manifest,
    load_toml,
    manifest_file,
)
from ..errors import ConfigError, SimError
from ..progress import Progress, auto_enabled
from . import validate_specs as specs


def _shipped(path):
    """A config named on the command line, or the shipped one of that name (any folder)."""
    from ..config import config_path

    return None if path is None else config_path(path)


ConfigArg = Annotated[
    Path, typer.Argument(metavar="CONFIG", help="Run config (TOML).", show_default=False, callback=_shipped)
]
OutOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--out", "-o", help="Output directory (default: results/<config file name>/).", show_default=False
    ),
]
ThreadsOpt = Annotated[
    Optional[int],
    typer.Option(
        help="Numba threads (default: all cores); the data does not depend on it.", show_default=False
    ),
]
ChunkOpt = Annotated[
    Optional[int],
    typer.Option(
        "--chunk-games",
        help="Games per chunk file (default: 100000, 1000 with --events); the data does not depend on it.",
        show_default=False,
    ),
]
EventsOpt = Annotated[bool, typer.Option("--events", help="Also write the event log.")]
TrajectoryOpt = Annotated[
    bool,
    typer.Option(
        "--trajectory",
        help="Also write the trajectory table: each seat's state after every round (The Bloody Inn: "
        "cash, cheques, score so far, annexes, hand; Cluedo: cards known, envelope candidates left).",
    ),
]
ResumeOpt = Annotated[
    bool,
    typer.Option(
        "--resume", help="Complete an interrupted dataset (same config); a complete one is kept as it is."
    ),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Delete the dataset in the output directory and start over.")
]
ProgressOpt = Annotated[
    Optional[bool],
    typer.Option(
        "--progress/--no-progress",
        help="Progress bar on stderr (default: only when stderr is a terminal).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")]
BackendOpt = Annotated[
    str, typer.Option(help="Where chunks are played: 'local' (this machine) or 'ray' (see docs/ray.md).")
]
PrecisionOpt = Annotated[
    Optional[float],
    typer.Option(
        help="Stop at the first chunk where the 95%% half-width of the key estimate is at most "
        "this (games becomes a cap; chunks of 10000 unless --chunk-games); see sim/precision.py.",
        show_default=False,
    ),
]
MaxGamesOpt = Annotated[
    Optional[int],
    typer.Option(
        "--max-games",
        help="Play at most this many games per run or grid point (a quick look before the full job).",
        show_default=False,
    ),
]
PrecisionOnOpt = Annotated[
    str,
    typer.Option(
        help="The estimate --precision watches: seat0 (first player's win share), seat<k>, entry<k>, rounds."
    ),
]
AddressOpt = Annotated[
    Optional[str],
    typer.Option(
        help="Ray cluster address for --backend ray (default: start a local Ray instance); see docs/ray.md.",
        show_default=False,
    ),
]


def _progress(flag):
    return Progress(enabled=auto_enabled() if flag is None else flag)


def _play_sweep(sweep, out, *, progress, **options):
    """Play ``sweep`` into ``out`` (``sim.sweep.run_sweep`` with ``options``) under a progress
    bar; the games it played now and the seconds it took."""
    bar = _progress(progress)
    t0 = time.perf_counter()
    try:
        sweeps.run_sweep(sweep, out, progress=bar, **options)
    finally:
        bar.close()
    return bar.played, time.perf_counter() - t0


def _check_overrides(games, seed):
    if games is not None and not 1 <= games <= MAX_GAMES:
        raise ConfigError("--games", games, f"an integer from 1 to {MAX_GAMES}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ConfigError("--seed", seed, f"an integer from 0 to {MAX_SEED}")


def _rate(games, seconds):
    return f"{games / seconds:,.0f} games/s" if seconds else "-"


def run(
    config: ConfigArg,
    games: Annotated[
        Optional[int], typer.Option(help="Override the config's games.", show_default=False)
    ] = None,
    seed: Annotated[
        Optional[int], typer.Option(help="Override the config's seed.", show_default=False)
    ] = None,
    out: OutOpt = None,
    threads: ThreadsOpt = None,
    chunk_games: ChunkOpt = None,
    events: EventsOpt = False,
    trajectory: TrajectoryOpt = False,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    progress: ProgressOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    precision: PrecisionOpt = None,
    precision_on: PrecisionOnOpt = "seat0",
):
    """Play a run config and write a dataset (manifest, games/, seats/, events/, trajectory/).

    CONFIG may also be a dataset's manifest.json (or its folder): the same games are played
    again into --out, row for row.
    """
    _check_overrides(games, seed)
    manifest_path = manifest_file(config)
    raw = load_toml(config) if manifest_path is None else None
    if manifest_path is None and sweeps.is_sweep(raw):
        raise ConfigError(
            "config",
            str(config),
            f"a run config; this is a sweep (it has base and [grid]): run it with `sim sweep {config}`",
        )
    if manifest_path is not None and out is None:
        raise SimError(f"a rerun of {manifest_path} needs --out NEW: the folder for the new copy")
    backends.configure(backend, address=address)
    resolved = api.resolve(config, games=games, seed=seed)
    name = runner.config_name(config, resolved)
    if manifest_path is not None:
        original = _rerun_original(manifest_path)
        name = original.get("name") or Path(manifest_path).parent.name
        # the original's layout too, so the chunk files come out byte for byte the same
        events = events or bool(original.get("events"))
        trajectory = trajectory or bool(original.get("trajectory"))
        chunk_games = chunk_games or original.get("chunk_games")
    out = out or runner.default_out(config, resolved)
    bar = _progress(progress)
    try:
        manifest = runner.run_resolved(
            resolved,
            out,
            name=name,
            source=str(config),
            threads=threads,
            chunk_games=chunk_games,
            events=events,
            resume=resume,
            force=force,
            progress=bar,
            backend=backend,
            precision=precision,
            precision_on=precision_on,
            trajectory=trajectory,
        )
    finally:
        bar.close()
    s = runner.summary(manifest, out)
    if json_:
        typer.echo(json.dumps(s))
        return
    note = default_seats_note(raw, resolved)
    if note:  # the lineup nobody wrote down, said on the summary's first line
        typer.echo(note)
    if manifest.get("nothing_to_do"):
        typer.echo(f"{out} is already complete ({s['games']:,} games); nothing to do")
        return
    resumed = (
        "" if s["games_played"] == s["games"] else f" ({s['games_played']:,} played now, the rest resumed)"
    )
    typer.echo(
        f"{s['games']:,} games{resumed} in {s['elapsed_s']:.2f} s, "
        f"{_rate(s['games_played'], s['elapsed_s'])}; seed {s['seed']}, "
        f"config_id {s['config_id']}"
    )
    chunks = f"{s['chunks']} chunk" + ("" if s["chunks"] == 1 else "s")
    typer.echo(f"dataset: {out}/ ({', '.join(s['tables'])}; {chunks})")
    if "stop" in s:
        typer.echo(f"stopped: {s['stop']['reason']} (estimate {s['stop']['estimate']:.4f})")


def _rerun_original(manifest_path):
    """The manifest a rerun copies; warns when today's code is not the original's."""
    from ..dataset import git_state

    original = load_manifest(manifest_path)
    then = (original.get("git") or {}).get("commit")
    now = git_state()["commit"]
    if then and now and then != now:
        runner.warn(
            f"{manifest_path} was made with the code at commit {then[:12]}, this is {now[:12]}: "
            "the rows are the same only if the rules and strategies did not change in between"
        )
    return original


def rerun(
    directory: Annotated[
        Path,
        typer.Argument(metavar="DIR", help="A dataset folder (or its manifest.json).", show_default=False),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for the new copy (required).", show_default=False)
    ],
    threads: ThreadsOpt = None,
    chunk_games: ChunkOpt = None,
    events: EventsOpt = False,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    progress: ProgressOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
):
    """Play a dataset again from its manifest into --out (the same rows; `sim run DIR/manifest.json`)."""
    if manifest_file(directory) is None:
        raise ConfigError("DIR", str(directory), "a dataset folder or its manifest.json")
    run(
        directory,
        games=None,
        seed=None,
        out=out,
        threads=threads,
        chunk_games=chunk_games,
        events=events,
        resume=resume,
        force=force,
        progress=progress,
        json_=json_,
        backend=backend,
        address=address,
    )


def sweep(
    sweep_file: Annotated[
        Path,
        typer.Argument(
            metavar="SWEEP",
            help="Sweep config (TOML with base and [grid]).",
            show_default=False,
            callback=_shipped,
        ),
    ],
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out", "-o", help="Output directory (default: results/<sweep file name>/).", show_default=False
        ),
    ] = None,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    threads: ThreadsOpt = None,
    chunk_games: ChunkOpt = None,
    events: EventsOpt = False,
    trajectory: TrajectoryOpt = False,
    progress: ProgressOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    precision: PrecisionOpt = None,
    precision_on: PrecisionOnOpt = "seat0",
    max_games: MaxGamesOpt = None,
):
    """Run a base config over a grid: one dataset per point plus points.parquet."""
    raw = load_toml(sweep_file)
    if not sweeps.is_sweep(raw) and "game" in raw:
        raise ConfigError(
            "sweep",
            str(sweep_file),
            f"a sweep config (base and [grid]); this is a run config: run it with `sim run {sweep_file}`",
        )
    sw = sweeps.load(sweep_file)
    if max_games is not None:
        sw = sweeps.capped(sw, max_games)
    backends.configure(backend, address=address)
    t0 = time.perf_counter()
    bar = _progress(progress)
    try:
        out_dir = sweeps.run_sweep(
            sw,
            out,
            resume=resume,
            force=force,
            threads=threads,
            backend=backend,
            progress=bar,
            chunk_games=chunk_games,
            events=events,
            precision=precision,
            precision_on=precision_on,
            trajectory=trajectory,
        )
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    total = sum(p.resolved["games"] for p in sw.points)
    s = {
        "out": str(out_dir),
        "points": len(sw.points),
        "games": total,
        "games_played": bar.played,
        "elapsed_s": round(elapsed, 3),
        "games_per_s": round(bar.played / elapsed, 1) if elapsed else None,
        "points_file": str(Path(out_dir) / sweeps.POINTS),
    }
    if json_:
        typer.echo(json.dumps(s))
        return
    typer.echo(
        f"{len(sw.points)} grid points, {total:,} games ({bar.played:,} played now) in "
        f"{elapsed:.2f} s, {_rate(bar.played, elapsed)}"
    )
    typer.echo(f"datasets: {out_dir}/<point>/; index: {s['points_file']}")


def validate(
    target: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG|SWEEP|STUDY|BALANCE|META",
            help="A run, sweep, study, balance or meta config.",
            show_default=False,
            callback=_shipped,
        ),
    ],
    json_: Annotated[bool, typer.Option("--json", help="Print the resolved config(s) as JSON.")] = False,
):
    """Check a run, sweep, study, balance or meta config (or a dataset's manifest.json) without running it."""
    raw = {} if manifest_file(target) is not None else load_toml(target)
    if "data" in raw and "game" not in raw:
        _validate_study(target, json_)
        return
    if specs.is_balance_spec(raw):
        specs.validate_balance(target, json_)
        return
    if specs.is_meta_config(raw):
        specs.validate_meta(target, json_)
        return
    if sweeps.is_sweep(raw):
        try:
            sw = sweeps.load(target)
        except sweeps.GridError as exc:
            for err in exc.errors:
                typer.echo(f"error: {err}", err=True)
            raise typer.Exit(2) from None
        if json_:
            typer.echo(
                json.dumps(
                    {
                        "kind": "sweep",
                        "points": [
                            {
                                "point": p.name,
                                "values": p.values,
                                "config_id": config_id(p.resolved),
                                "resolved": p.resolved,
                            }
                            for p in sw.points
                        ],
                    },
                    indent=1,
                )
            )
            return
        games = sum(p.resolved["games"] for p in sw.points)
        typer.echo(
            f"ok: {target}: sweep of {len(sw.points)} grid points over "
            f"{', '.join(sw.grid)} ({games:,} games in all; base {sw.base})"
        )
        return
    resolved = api.resolve(target)
    if json_:
        typer.echo(
            json.dumps({"kind": "run", "config_id": config_id(resolved), "resolved": resolved}, indent=1)
        )
        return
    typer.echo(
        f"ok: {target}: {resolved['game']}, {resolved.get('players', '?')} players, "
        f"{resolved['games']:,} games, seed {resolved['seed']}, "
        f"config_id {config_id(resolved)}"
    )
    note = default_seats_note(raw, resolved)
    if note:
        typer.echo(note)


def _validate_study(target, json_):
    """A study: its own keys, then every run and sweep it names (as ``sim study`` runs them)."""
    from analysis.errors import AnalysisError
    from analysis.study import load_study

    try:
        st = load_study(target)
    except AnalysisError as exc:
        raise SimError(str(exc)) from None
    rows = []
    for spec in st.data:
        if spec.kind == "power":
            from analysis.study import power_plan

            arms = power_plan(spec)  # a bad card id or config key fails here in one line
            rows.append(
                {
                    "name": spec.name,
                    "kind": "power",
                    "config": str(spec.config),
                    "points": len(arms),
                    "games": sum(r["games"] for _, r in arms),
                }
            )
        elif spec.kind == "meta":
            from analysis.study import meta_plan

            pairings = meta_plan(spec).pairings  # a bad strategy or parameter fails here in one line
            rows.append(
                {
                    "name": spec.name,
                    "kind": "meta",
                    "config": str(spec.config),
                    "points": len(pairings),
                    "games": sum(r["games"] for _, _, r in pairings),
                }
            )
        elif spec.kind == "run":
            resolved = api.resolve(spec.config, games=spec.games, seed=spec.seed)
            # a ladder plays the run once per rung, each with its own games when it sets them
            rung_games = [(r.games if r and r.games else resolved["games"]) for r in spec.ladder or (None,)]
            rows.append(
                {
                    "name": spec.name,
                    "kind": "run",
                    "config": str(spec.config),
                    "rungs": len(spec.ladder) or 1,
                    "games": sum(rung_games),
                    "config_id": config_id(resolved),
                }
            )
        else:
            # every rung of a ladder is loaded as `sim study` plays it (its seats and games)
            games, points = 0, 0
            for rung in spec.ladder or (None,):
                over = None
                if rung is not None:
                    over = {"seats": rung.seats(), **({"games": rung.games} if rung.games else {})}
                try:
                    sw = sweeps.load(spec.config, over)
                except sweeps.GridError as exc:
                    for err in exc.errors:
                        typer.echo(f"error: {spec.name}: {err}", err=True)
                    raise typer.Exit(2) from None
                points = len(sw.points)
                games += sum(p.resolved["games"] for p in sw.points)
            rows.append(
                {
                    "name": spec.name,
                    "kind": "sweep",
                    "config": str(spec.config),
                    "points": points,
                    "rungs": len(spec.ladder) or 1,
                    "games": games,
                }
            )
    if json_:
        typer.echo(
            json.dumps({"kind": "study", "title": st.title, "out": str(st.out), "data": rows}, indent=1)
        )
        return
    total = sum(r["games"] for r in rows)
    typer.echo(
        f"ok: {target}: study {st.title!r}, {len(rows)} datasets ({total:,} games in "
        f"all; report to {st.out / st.report_file})"
    )
    for r in rows:
        rungs = f" x {r['rungs']} ladder rungs" if r.get("rungs", 1) > 1 else ""
        what = {
            "sweep": f"sweep of {r.get('points')} points" + rungs,
            "power": f"power experiment of {r.get('points')} arms",
            "meta": f"round-robin of {r.get('points')} pairings",
        }
        what = what.get(r["kind"], "run" + rungs)
        typer.echo(f"  {r['name']}: {what}, {r['games']:,} games ({r['config']})")


def games(json_: Annotated[bool, typer.Option("--json", help="JSON output.")] = False):
    """List the games."""
    rows = []
    for name in registry.game_names():
        a = registry.get_adapter(name)
        rows.append(
            {
                "game": name,
                "title": getattr(a, "title", name),
                "min_players": getattr(a, "min_players", None),
                "max_players": getattr(a, "max_players", None),
            }
        )
    if json_:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        typer.echo(f"{r['game']:<12} {r['title']}  ({r['min_players']}-{r['max_players']} players)")


def strategies(
    game: Annotated[
        str, typer.Argument(metavar="GAME", help="Game name (see `sim games`).", show_default=False)
    ],
    json_: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
):
    """List a game's strategies with their parameters and defaults."""
    names = registry.game_names()
    if game not in names:
        raise ConfigError("game", game, " | ".join(repr(n) for n in names))
    rows = registry.get_adapter(game).strategies()
    if json_:
        typer.echo(json.dumps(rows))
        return
    for s in rows:
        typer.echo(f"{s['name']}: {s.get('description', '')}")
        helps = s["param_help"]
        for k, v in s["params"].items():
            typer.echo(f"    {k} = {v:g}    # {helps[k]}")


def register(app):
    app.command("run")(run)
    app.command("rerun")(rerun)
    app.command("sweep")(sweep)
    app.command("validate")(validate)
    app.command("games")(games)
    app.command("strategies")(strategies)
