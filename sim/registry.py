"""The game registry: one adapter per game.

An adapter turns a config into kernel arrays and kernel columns into Arrow tables.
Adding a game means one adapter module in ``sim/games/`` and one line in ``_ADAPTERS``:
the runner, the dataset writer, the CLI and the shared analyses do not change.

Adapter protocol (duck-typed)::

    name: str                     # registry key, e.g. "bloody_inn"
    title: str
    min_players: int; max_players: int
    def resolve(raw: dict) -> dict
        # validate every key (raise ConfigError naming key, value, allowed) and return the
        # complete resolved config (all defaults filled, JSON-serialisable)
    def strategies() -> list[dict]
        # [{"name", "description", "params": {name: default}}]
    def simulate_chunk(resolved: dict, start: int, count: int, *, events: bool) -> Chunk
        # play games start .. start+count-1 (game ids are global within the run);
        # the result depends only on (resolved, game ids), never on chunking or threads
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import pyarrow as pa

_ADAPTERS = {
    "bloody_inn": "sim.games.bloody_inn",
    "cluedo": "sim.games.cluedo",
}


@dataclass
class Chunk:
    """The tables of a range of games, without ``config_id`` (added by the runner)."""

    games: pa.Table
    seats: pa.Table
    events: pa.Table | None = None


def game_names():
    """Names of the registered games whose adapter imports."""
    names = []
    for name in _ADAPTERS:
        try:
            get_adapter(name)
        except ImportError:
            continue
        names.append(name)
    return names


def get_adapter(name):
    """The adapter object of game ``name`` (``ImportError`` if it is not available)."""
    module = importlib.import_module(_ADAPTERS[name])
    return module.ADAPTER
