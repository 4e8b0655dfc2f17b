"""Sweeps: a base run config played over the cartesian product of a grid of dotted keys.

::

    base = "../bloody_inn/long-3p.toml"     # relative to the sweep file
    games = 200_000                         # optional: override the base's games / seed
    [grid]
    players = [2, 3, 4]
    "rules.deck_size" = [20, 30, 40]
    "seats.0.params.aggression" = [0.5, 1.0]

Every grid point is resolved (validated) before anything runs.  Each point is one dataset under
``<out>/<point>/``; ``<out>/points.parquet`` maps point → parameter values and ``<out>/sweep.json``
records the sweep and its status.

Seeds: every grid point uses the base config's seed (common random numbers): game ``g`` of
every point starts from the same random stream, so differences between points come from the
parameters, not from luck.  Put ``seed`` in the grid to vary it.

A grid value ``"default"`` is the game's own default for that point, as its resolver sets it
(``"rules.deck_size" = [20, 40, "default"]``: the official deck for each player count, BI-S2),
recorded under the value it resolves to; a point that equals another of the grid is played
once.  So the official setup is always in the grid, whatever the grid's round numbers.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import api, backends, dataset, runner
from .chunks import check_chunk_games
from .config import MAX_GAMES, MAX_SEED, check_keys, config_id, get_int, load_toml
from .errors import ConfigError, RunInterrupted, SimError
from .progress import make_progress

SWEEP_KEYS = ("base", "grid", "name", "description", "games", "seed")
SWEEP_FORMAT = "boardsim-sweep"
SWEEP_MANIFEST = "sweep.json"
POINTS = "points.parquet"
MAX_POINTS = 10_000


class GridError(ConfigError):
    """One or more grid points are invalid; ``errors`` lists every one of them (the first
    one's key, value and allowed values are this error's)."""

    def __init__(self, errors):
        self.errors = list(errors)
        first = self.errors[0]
        super().__init__(first.key, first.value, first.allowed, first.source)

    def _format(self):
        more = len(self.errors) - 1
        return str(self.errors[0]) + (f" (and {more} more invalid grid points)" if more else "")

    def with_source(self, source):
        return self


@dataclass
class Point:
    name: str
    values: dict
    resolved: dict


@dataclass
class Sweep:
    path: Path | None
    base: Path
    grid: dict
    points: list = field(default_factory=list)


def is_sweep(raw):
    """A TOML document is a sweep when it has a ``base`` or a ``grid``."""
    return isinstance(raw, dict) and ("grid" in raw or "base" in raw)


def set_dotted(raw, key, value, players=None):
    """Set ``a.b.0.c`` in nested tables/lists, creating missing tables.

    A one-entry ``seats`` list (one entry for every seat) is expanded to one entry per seat
    before a single seat is changed.
    """
    parts = key.split(".")
    node = raw
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            if not part.isdigit():
                raise ConfigError(f"grid.{key}", part, f"a list index at {where}")
            i = int(part)
            if (
                i >= len(node)
                and len(node) == 1
                and parts[depth - 1 : depth] == ["seats"]
                and isinstance(players, int)
                and i < players
            ):
                node.extend(copy.deepcopy(node[0]) for _ in range(players - 1))
            if i >= len(node):
                raise ConfigError(
                    f"grid.{key}",
                    i,
                    f"an index below {len(node)} "
                    f"(the base config has {len(node)} entries at "
                    f"{'.'.join(parts[:depth])})",
                )
            if last:
                node[i] = value
            else:
                node = node[i]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if part not in node:
                    node[part] = [{}] if part == "seats" else {}
                node = node[part]
        else:
            raise ConfigError(f"grid.{key}", node, f"a table or list at {'.'.join(parts[:depth])}")


#: a grid value meaning "the game's default here" (recorded as what it resolves to)
DEFAULT = "default"


def _resolved_value(resolved, key):
    """The value at dotted ``key`` of a resolved config (``"default"`` if it is not there)."""
    node = resolved
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return DEFAULT
    return node if isinstance(node, (bool, int, float, str)) else DEFAULT


def point_name(index, values):
    """``p003_players=2_rules.deck_size=30``: sortable, readable, safe as a directory name."""
    body = "_".join(f"{k}={v}" for k, v in values.items())
    body = re.sub(r"[^A-Za-z0-9._=+-]+", "-", body)
    return f"p{index:03d}_{body}"[:200]


def _check_grid(grid):
    if not isinstance(grid, dict) or not grid:
        raise ConfigError("grid", grid, "a table of dotted keys -> non-empty lists of values")
    for key, values in grid.items():
        if not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", key):
            raise ConfigError(f"grid.{key}", key, "a dotted key such as rules.deck_size")
        if key.split(".")[0] in ("game", "name", "description"):
            raise ConfigError(f"grid.{key}", values, "a key other than game, name, description")
        if not isinstance(values, list) or not values:
            raise ConfigError(f"grid.{key}", values, "a non-empty list of values")
        for v in values:
            if not isinstance(v, (bool, int, float, str)):
                raise ConfigError(f"grid.{key}", v, "numbers, strings or booleans")
        if len(set(map(repr, values))) != len(values):
            raise ConfigError(f"grid.{key}", values, "a list without repeated values")


def load(path, base_overrides=None):
    """Read and validate a sweep file; every grid point is resolved. Returns a :class:`Sweep`.

    ``base_overrides`` replaces top-level keys of the base run config before the grid is
    applied (a study's strength ladder sets ``seats`` this way).

    Raises
    ------
    ConfigError
        for a bad sweep key (naming the sweep file).
    GridError
        when grid points are invalid; lists every invalid point.
    """
    path = Path(path)
    raw = load_toml(path)
    try:
        check_keys(raw, SWEEP_KEYS)
        base = raw.get("base")
        if not isinstance(base, str):
            raise ConfigError("base", base, "the path of a run config, relative to the sweep file")
        grid = raw.get("grid")
        _check_grid(grid)
        overrides = {}
        if "games" in raw:
            overrides["games"] = get_int(raw, "games", None, 1, MAX_GAMES)
        if "seed" in raw:
            overrides["seed"] = get_int(raw, "seed", None, 0, MAX_SEED)
        n_points = 1
        for values in grid.values():
            n_points *= len(values)
        if n_points > MAX_POINTS:
            raise ConfigError("grid", f"{n_points} points", f"at most {MAX_POINTS} points")
    except ConfigError as exc:
        raise exc.with_source(str(path)) from None
    base_path = Path(os.path.normpath(path.parent / base))
    if not base_path.is_file():
        raise ConfigError("base", base, f"an existing run config ({base_path} not found)", source=str(path))
    base_raw = load_toml(base_path)
    base_raw.update(copy.deepcopy(base_overrides or {}))

    keys = list(grid)
    # Set "players" (and other plain keys) before per-seat keys so seat lists can expand.
    order = sorted(keys, key=lambda k: (k.split(".")[0] == "seats", keys.index(k)))
    points, errors, names = [], [], set()
    for index, combo in enumerate(itertools.product(*(grid[k] for k in keys))):
        values = dict(zip(keys, combo))
        name = point_name(index, values)
        label = ", ".join(f"{k}={v!r}" for k, v in values.items())
        pt = copy.deepcopy(base_raw)
        pt.update(overrides)
        try:
            for k in order:
                set_dotted(pt, k, values[k], players=pt.get("players"))
            pt["name"] = f"{path.stem}/{name}"
            resolved = api.resolve(pt)
        except ConfigError as exc:
            errors.append(
                ConfigError(
                    exc.key, exc.value, exc.allowed, source=f"{path} (grid point {label}; base {base_path})"
                )
            )
            continue
        if any(v == DEFAULT for v in values.values()):
            values = {k: _resolved_value(resolved, k) if v == DEFAULT else v for k, v in values.items()}
            if any(p.values == values for p in points):
                continue  # the default is one of the grid's own values: played once
            name = point_name(index, values)
        names.add(name)
        points.append(Point(name, values, resolved))
    if errors:
        raise GridError(errors)
    return Sweep(path, base_path, grid, points)


def load_sweep(path):
    """Validate a sweep file; return ``[(point_name, resolved_config), ...]``.

    Every grid point is resolved before this returns, so an invalid combination is reported
    before anything runs.
    """
    return [(p.name, p.resolved) for p in load(path).points]


# --- running ------------------------------------------------------------------------


def _points_table(sweep, out):
    cols = {
        "point": [p.name for p in sweep.points],
        "config_id": [config_id(p.resolved) for p in sweep.points],
        "path": [p.name for p in sweep.points],
        "games": [p.resolved["games"] for p in sweep.points],
        "seed": [p.resolved["seed"] for p in sweep.points],
    }
    arrays = {k: pa.array(v) for k, v in cols.items()}
    for key in sweep.grid:
        vals = [p.values.get(key) for p in sweep.points]
        if key in arrays:  # "seed" or "games" in the grid: same numbers
            continue
        try:
            arrays[key] = pa.array(vals)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[key] = pa.array([str(v) for v in vals])
    return pa.table(arrays)


def _write_json(path, obj):
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _sweep_manifest(sweep, status, points_sha256=None):
    return {
        "format": SWEEP_FORMAT,
        "format_version": 1,
        "status": status,
        "source": str(sweep.path) if sweep.path else None,
        "base": str(sweep.base) if sweep.base else None,
        "grid": sweep.grid,
        "seed_policy": "common random numbers: every point uses the base seed unless the grid varies seed",
        "points": [
            {
                "point": p.name,
                "config_id": config_id(p.resolved),
                "values": p.values,
                "games": p.resolved["games"],
                "seed": p.resolved["seed"],
            }
            for p in sweep.points
        ],
        "points_sha256": points_sha256,
        "versions": dataset.package_versions(),
        "git": dataset.git_state(),
        "updated": dataset.now_iso(),
    }


def _open_sweep_dir(out, sweep, resume, force):
    if dataset.manifest_path(out).exists() or (out / "games").exists():
        raise SimError(f"{out} holds a run's dataset (manifest.json); a sweep needs a folder of its own")
    mpath = out / SWEEP_MANIFEST
    if not mpath.is_file():
        return
    try:
        old = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {"status": "unreadable", "points": []}
    if force:
        _clear_sweep(out, old)
        return
    if not resume:
        what = "a complete sweep" if old.get("status") == "complete" else "an unfinished sweep"
        raise SimError(
            f"{out} already holds {what}; use --resume to "
            f"{'keep' if old.get('status') == 'complete' else 'complete'} it "
            "or --force to overwrite it"
        )
    old_ids = [(p["point"], p["config_id"]) for p in old.get("points", [])]
    new_ids = [(p.name, config_id(p.resolved)) for p in sweep.points]
    if old_ids != new_ids:
        raise SimError(
            f"{out} was made from a different sweep; --resume needs the same "
            "sweep file, or use --force to start over"
        )


def _clear_sweep(out, old):
    """``--force``: remove the old sweep's every point dataset (those its sweep.json lists and
    any other sub-folder holding a dataset), its index and its manifest."""
    listed = {p.get("point") for p in old.get("points", []) if isinstance(p, dict)}
    for sub in sorted(out.iterdir()):
        if sub.is_dir() and (sub.name in listed or dataset.manifest_path(sub).exists()):
            with dataset.FolderLock(sub):  # a point some other process still writes is refused
                dataset.clear_dataset(sub)
    (out / POINTS).unlink(missing_ok=True)
    (out / SWEEP_MANIFEST).unlink()


def capped(sweep, max_games):
    """``sweep`` with every point's games at most ``max_games``."""
    runner.check_max_games(max_games)
    points = [
        replace(p, resolved={**p.resolved, "games": min(p.resolved["games"], max_games)})
        for p in sweep.points
    ]
    return replace(sweep, points=points)


def _run_points(sweep, out, *, progress, **kwargs):
    """Play every grid point into ``out/<point>/`` (each point locks its own folder)."""
    bar, owned = make_progress(progress)
    bar.expect(sum(p.resolved["games"] for p in sweep.points))
    sub = bar.nested()
    source = str(sweep.path) if sweep.path else None
    runs = [
        (p.resolved, out / p.name, dict(name=p.name, source=source, progress=sub, **kwargs))
        for p in sweep.points
    ]
    try:
        # A backend may play several grid points at once (Ray: the cluster does not idle
        # between points); otherwise they run one after the other.
        run_points = getattr(backends.get_backend(kwargs["backend"]), "run_points", None)
        if run_points is not None:
            run_points(runs, runner.run_resolved)
        else:
            for resolved, point_out, kw in runs:
                runner.run_resolved(resolved, point_out, **kw)
    except KeyboardInterrupt:  # RunInterrupted from a point, or Ctrl-C between the points' steps
        try:
            _write_json(out / SWEEP_MANIFEST, _sweep_manifest(sweep, "interrupted"))
        except OSError:
            pass
        raise RunInterrupted(
            f"interrupted: finished grid points and chunks are kept in {out}; "
            "run the same command with --resume to complete the sweep"
        ) from None
    finally:
        if owned:
            bar.close()


def _finish_sweep(sweep, out):
    """Write ``points.parquet`` and mark the sweep complete (with the index's sha256)."""
    try:
        tmp = out / ("." + POINTS + ".tmp")
        pq.write_table(_points_table(sweep, out), tmp, compression=dataset.COMPRESSION)
        os.replace(tmp, out / POINTS)
        digest = dataset.sha256_file(out / POINTS)
        _write_json(out / SWEEP_MANIFEST, _sweep_manifest(sweep, "complete", digest))
    except OSError as exc:
        raise SimError(
            dataset.os_error_line(exc, out / POINTS)
            + f"; every point is on disk in {out}, and the same command with --resume completes the sweep"
        ) from None


def run_sweep(
    sweep,
    out=None,
    *,
    resume=False,
    force=False,
    threads=None,
    backend="local",
    progress=None,
    chunk_games=None,
    events=False,
    precision=None,
    precision_on="seat0",
    base_overrides=None,
    max_games=None,
    trajectory=False,
):
    """Run every grid point of a sweep into ``out/<point>/`` and write ``out/points.parquet``.

    Parameters
    ----------
    sweep : path | Sweep | list of (point_name, resolved)
        A sweep file (default ``out``: ``results/<sweep file stem>/``), a loaded sweep, or the
        list :func:`load_sweep` returns (then ``out`` is required).
    resume, force, threads, backend, progress, chunk_games, events, precision, precision_on, trajectory
        As for :func:`sim.runner.run_dataset`, applied to every point (with ``precision``
        each point stops on its own).
    base_overrides : dict, optional
        With a sweep file: top-level keys of its base config replaced (see :func:`load`).
    max_games : int, optional
        Play at most this many games per point (a quick look at a long sweep); the sweep's
        manifest and every point's manifest record the games actually asked for.

    Returns
    -------
    pathlib.Path
        The sweep's output directory.
    """
    if isinstance(sweep, (str, Path)):
        sweep = load(sweep, base_overrides)
    elif isinstance(sweep, list):
        sweep = Sweep(None, None, {}, [Point(n, {}, r) for n, r in sweep])
    if max_games is not None:
        sweep = capped(sweep, max_games)
    if out is None:
        if sweep.path is None:
            raise SimError("run_sweep needs out= when given a list of points")
        out = Path("results") / runner.safe_name(sweep.path.stem)
    out = Path(out)
    backends.get_backend(backend)
    if threads is not None and backend == "local":
        api.set_threads(threads)  # bad options fail before anything is written
    if chunk_games is not None:
        check_chunk_games(chunk_games, events)
    if resume and force:
        raise SimError("--resume and --force exclude each other")
    runner.check_out_path(out)
    with dataset.FolderLock(out):
        _open_sweep_dir(out, sweep, resume, force)
        try:
            _write_json(out / SWEEP_MANIFEST, _sweep_manifest(sweep, "running"))
        except OSError as exc:
            raise SimError(dataset.os_error_line(exc, out / SWEEP_MANIFEST)) from None
        _run_points(
            sweep,
            out,
            progress=progress,
            threads=threads,
            chunk_games=chunk_games,
            events=events,
            resume=resume,
            force=force,
            backend=backend,
            precision=precision,
            precision_on=precision_on,
            **({"trajectory": True} if trajectory else {}),
        )
        _finish_sweep(sweep, out)
    return out
