"""The Python API: ``simulate(config, ...)`` plays games in memory and returns Arrow tables."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import pyarrow as pa

from . import registry
from .config import (
    MAX_SEED,
    config_id,
    get_int,
    load_run_config,
    manifest_file,
    resolve_common,
    resolve_manifest,
)
from .errors import ConfigError


@dataclass
class Result:
    """Tables of one simulation: ``games`` and ``seats`` (core columns of design.md first),
    ``events`` (or None), and the fully ``resolved`` config they came from; ``trajectory``
    (or None) the score-relevant state of each seat after each round."""

    games: pa.Table
    seats: pa.Table
    events: pa.Table | None
    resolved: dict
    config_id: str
    trajectory: pa.Table | None = None


def resolve(config, *, games=None, seed=None):
    """Validate a run config (path or dict) and return the complete resolved dict.

    A dataset's ``manifest.json`` (or its folder) gives back the resolved config it records,
    checked by :func:`sim.config.resolve_manifest`, so the same dataset can be played again.

    Raises
    ------
    ConfigError
        naming the file, the key, the bad value and what is allowed.
    """
    manifest = manifest_file(config)
    if manifest is not None:  # a dataset's manifest: play that dataset again
        return resolve_manifest(
            manifest,
            registry.game_names(),
            _resolve_default,
            games=games,
            seed=seed,
            printed_constants=_printed_constants,
        )
    raw, source = load_run_config(config)
    if games is not None:
        raw["games"] = games
    if seed is not None:
        raw["seed"] = seed
    try:
        name, common = resolve_common(raw, registry.game_names())
        adapter = registry.get_adapter(name)
        resolved = adapter.resolve(raw)
        resolved.update(common)
        if common["rotate"] == "duplicate" and not getattr(adapter, "duplicate_deals", False):
            raise ConfigError("rotate", "duplicate", f"true or false for {name} (no duplicate deals)")
    except ConfigError as exc:
        raise exc.with_source(source) from None
    return resolved


def _printed_constants(game, current):
    """The game's ``[rules]`` constants and their printed values (its dataset facts)."""
    facts = registry.get_adapter(game).dataset_facts(current).get("rule_constants", {})
    return {name: fact["printed"] for name, fact in facts.items()}


def _resolve_default(game, players):
    raw = {"game": game}
    if isinstance(players, int) and not isinstance(players, bool):
        raw["players"] = players
    try:
        return resolve(raw)
    except ConfigError:
        return resolve({"game": game})


def read_table(path, table="games", columns=None):
    """One table of a run folder as an Arrow table, after its files were checked against the
    manifest (:func:`sim.dataset.read_table`)."""
    from . import dataset

    return dataset.read_table(path, table, columns)


def add_config_id(table, cid):
    """Insert the ``config_id`` column right after ``game_id``."""
    return table.add_column(1, "config_id", _config_id_column(cid, table.num_rows))


_CONFIG_ID_COLUMNS = {}


def _config_id_column(cid, rows):
    """``rows`` copies of ``cid``: a slice (no copy) of one array kept per config id and grown
    as needed, since Arrow arrays never change; building it afresh for every table cost a
    trajectory chunk's 4.5 million strings (a fault and a zeroing per page of new memory)."""
    col = _CONFIG_ID_COLUMNS.get(cid)
    if col is None or len(col) < rows:
        col = pa.repeat(pa.scalar(cid, pa.string()), max(rows, 2 * len(col) if col is not None else 0))
        if len(_CONFIG_ID_COLUMNS) >= 4:  # a sweep's points: only the latest few are kept
            _CONFIG_ID_COLUMNS.clear()
        _CONFIG_ID_COLUMNS[cid] = col
    return col.slice(0, rows)


def set_threads(threads):
    """Set Numba's thread count (``None``: all cores)."""
    if threads is None:
        threads = numba.config.NUMBA_NUM_THREADS
    if not isinstance(threads, int) or not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ConfigError("threads", threads, f"an integer from 1 to {numba.config.NUMBA_NUM_THREADS}")
    numba.set_num_threads(threads)
    return threads


def check_trajectory(game):
    """Refuse ``trajectory`` for a game whose adapter cannot write the table."""
    if not getattr(registry.get_adapter(game), "trajectory", False):
        raise ConfigError("--trajectory", True, f"a game that records trajectories (not {game})")


def play_range(resolved, start, count, *, events=False, trajectory=False):
    """Play games ``start .. start+count-1`` of a resolved config; return a ``Chunk`` with
    ``config_id`` columns (``trajectory``: also the trajectory table, games that record it)."""
    adapter = registry.get_adapter(resolved["game"])
    cid = config_id(resolved)
    if trajectory:
        check_trajectory(resolved["game"])
        chunk = adapter.simulate_chunk(resolved, start, count, events=events, trajectory=True)
        chunk.trajectory = add_config_id(chunk.trajectory, cid)
    else:
        chunk = adapter.simulate_chunk(resolved, start, count, events=events)
    chunk.games = add_config_id(chunk.games, cid)
    chunk.seats = add_config_id(chunk.seats, cid)
    if chunk.events is not None:
        chunk.events = add_config_id(chunk.events, cid)
    return chunk


def simulate(config, *, games=None, seed=None, threads=None, events=False, trajectory=False):
    """Play a run config in memory.

    Parameters
    ----------
    config : str | pathlib.Path | dict
        A TOML run config or a dict of the same shape, or a dataset's ``manifest.json`` (or
        its folder) to play the same games again.
    games, seed : int, optional
        Override the config's ``games`` / ``seed``.
    threads : int, optional
        Numba threads (default: all cores).  Results do not depend on it.
    events : bool
        Also return the event log (one row per event).
    trajectory : bool
        Also return the trajectory table (one row per game, round and seat; The Bloody Inn).

    Returns
    -------
    Result
    """
    resolved = resolve(config, games=games, seed=seed)
    set_threads(threads)
    get_int(resolved, "seed", 0, 0, MAX_SEED)
    chunk = play_range(resolved, 0, resolved["games"], events=events, trajectory=trajectory)
    return Result(chunk.games, chunk.seats, chunk.events, resolved, config_id(resolved), chunk.trajectory)
