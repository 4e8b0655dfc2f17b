"""Chunks: a run's games split into ranges of consecutive game ids, each played on its own.

Every game draws from its own random stream keyed by (seed, game id), so a chunk's rows depend
only on the config and its game range: chunks are independent tasks for any backend
(:mod:`sim.backends`), and the data is identical whatever the chunk size or where it is played.
"""

from __future__ import annotations

from . import api, dataset
from .errors import ConfigError

DEFAULT_CHUNK_GAMES = 100_000
#: Event logs run to hundreds of rows per game; small chunks keep memory in check.
DEFAULT_CHUNK_GAMES_EVENTS = 1_000
MAX_CHUNK_GAMES = 10_000_000


def check_chunk_games(chunk_games, events=False):
    if chunk_games is None:
        return DEFAULT_CHUNK_GAMES_EVENTS if events else DEFAULT_CHUNK_GAMES
    if (
        isinstance(chunk_games, bool)
        or not isinstance(chunk_games, int)
        or not 1 <= chunk_games <= MAX_CHUNK_GAMES
    ):
        raise ConfigError("chunk-games", chunk_games, f"an integer from 1 to {MAX_CHUNK_GAMES}")
    return chunk_games


def plan_chunks(total, chunk_games):
    """``[(index, start, count), ...]`` covering games ``0 .. total-1``."""
    return [
        (i, start, min(chunk_games, total - start)) for i, start in enumerate(range(0, total, chunk_games))
    ]


def play_chunk_to_tables(resolved, start, count, events=False, trajectory=False):
    """Play games ``start .. start+count-1`` of a resolved config.

    Returns
    -------
    dict[str, pyarrow.Table]
        ``games``, ``seats``, (when ``events``) ``events`` and (when ``trajectory``)
        ``trajectory``, each with ``config_id``.
    """
    chunk = api.play_range(resolved, start, count, events=events, trajectory=trajectory)
    tables = {"games": chunk.games, "seats": chunk.seats}
    if events:
        tables["events"] = chunk.events
    if trajectory:
        tables["trajectory"] = chunk.trajectory
    return tables


def play_and_write_chunk(resolved, out, index, start, count, events=False, trajectory=False):
    """Play one chunk and write its files; return its manifest entry (for worker processes)."""
    tables = play_chunk_to_tables(resolved, start, count, events, trajectory)
    return dataset.write_chunk_files(out, index, start, count, tables)
