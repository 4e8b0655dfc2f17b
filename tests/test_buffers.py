"""``sim.buffers.ColumnPool``: kernel output columns reused between chunks, never while a
table lent from them is alive."""

from __future__ import annotations

import gc

import numpy as np
import pyarrow as pa

from kernels.bloody_inn.trajectory import TrajCols
from sim import api
from sim.buffers import ColumnPool

EXPERT = "configs/bloody_inn/strategies/expert-3p.toml"


def test_a_set_comes_back_only_when_every_view_is_gone():
    pool = ColumnPool(TrajCols)
    first = pool.take(100)
    table = pa.table(pool.lend(first, 60))
    assert pool.take(100) is not first  # the table still holds views of it
    del table
    gc.collect()
    again = pool.take(100)
    assert again is first
    assert pool.take(100) is not first  # handed out once
    assert len(pool.take(50).game_id) == 50  # another size: a new set


def test_the_pool_keeps_at_most_keep_free_sets():
    pool = ColumnPool(TrajCols, keep=1)
    sets = [pool.take(10) for _ in range(3)]
    for cols in sets:
        pool.lend(cols, 5)  # views dropped at once: each set comes back
    gc.collect()
    assert pool.take(10) is sets[-1]
    fresh = pool.take(10)
    assert all(fresh is not cols for cols in sets)


def test_a_kept_trajectory_does_not_change_when_more_games_are_played():
    """A caller that keeps a chunk's trajectory table keeps its rows: the next chunks write
    into other arrays, and tables dropped in between have their arrays reused."""
    kept = api.simulate(EXPERT, games=300, seed=5, trajectory=True).trajectory
    copy = pa.table({name: np.array(kept[name]) for name in kept.column_names})
    for seed in (6, 7, 8):
        api.simulate(EXPERT, games=300, seed=seed, trajectory=True)  # dropped at once
        gc.collect()
    assert kept.equals(copy)
    again = api.simulate(EXPERT, games=300, seed=5, trajectory=True).trajectory
    assert again.equals(kept)


def test_the_cli_writes_with_arrow_jemalloc_unless_told_otherwise(monkeypatch):
    """``sim``'s entry point switches Arrow to its jemalloc pool (pages kept for reuse between
    chunks), and leaves Arrow alone when ``ARROW_DEFAULT_MEMORY_POOL`` names a pool."""
    from sim import cli

    before = pa.default_memory_pool()
    try:
        pa.set_memory_pool(pa.system_memory_pool())
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
        cli._arrow_memory_pool()
        assert pa.default_memory_pool().backend_name == "system"
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")
        cli._arrow_memory_pool()
        try:
            pa.jemalloc_memory_pool()
        except NotImplementedError:
            assert pa.default_memory_pool().backend_name == "system"  # nothing to switch to
        else:
            assert pa.default_memory_pool().backend_name == "jemalloc"
    finally:
        pa.set_memory_pool(before)
