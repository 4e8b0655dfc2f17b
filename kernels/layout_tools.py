"""The layout helpers both games' ``layout.py`` use: an offset allocator for the flat state
and table arrays, the names of a ``NamedTuple`` enumeration, and the output columns.

Plain Python run at import time: the offsets it hands out are module-level ints that Numba
folds into constants (``kernels.source_hash`` covers this file, so a change recompiles).

Output columns (design.md: one typed 1-D array per column) are declared once per table as a
``NamedTuple`` whose fields are annotated with their NumPy dtype::

    class GameCols(NamedTuple):
        rounds: np.int16
        turns: np.int32

The adapter allocates one instance (``alloc_columns(GameCols, count)``: one zeroed 1-D array
of that dtype per field), the kernel writes ``games.rounds[g] = ...`` by name (a Numba named
tuple of arrays), and the adapter hands the arrays to Arrow as they are: no matrix addressed
by position and no narrowing copy.

Write a column table only in a function of its own called from the ``prange`` body (each
game's ``_write_rows``), never through ``games.rounds[g]`` in the body itself: Numba's parallel
lowering drops stores made through a named tuple's field there (numba#5872, numba#7135,
numba#10338, still open in 0.68), and a lost ``n_events`` count then sizes the event buffer
wrong.
"""

from __future__ import annotations

import typing

import numpy as np


class Alloc:
    """Hands out consecutive offsets: ``at = alloc(size)`` reserves ``size`` slots;
    ``alloc.n`` is the size so far."""

    def __init__(self):
        self.n = 0

    def __call__(self, size=1):
        at = self.n
        self.n += size
        return at


def enum_names(enum, **rename):
    """Names of an enumeration's members in code order, lower case (``rename``: member name
    -> another name), for the Arrow columns and the manifests."""
    return tuple(rename.get(f, f.lower()) for f in enum._fields)


def column_dtypes(columns):
    """``{name: numpy dtype}`` of a column table (a ``NamedTuple`` class whose fields are
    annotated with their dtype), in field order."""
    hints = typing.get_type_hints(columns)
    return {name: np.dtype(hints[name]) for name in columns._fields}


def alloc_columns(columns, rows):
    """An instance of the column table ``columns`` holding one zeroed 1-D array of ``rows``
    entries per field, each of the field's dtype (C-contiguous, so the kernel compiles one
    version)."""
    return columns(*(np.zeros(rows, dtype) for dtype in column_dtypes(columns).values()))


def block_count(games, threads, per_thread, min_games):
    """Blocks to split ``games`` games into for ``threads`` threads that each take the next
    block when done: ``per_thread`` blocks a thread, but no block under ``min_games`` games
    beyond one block a thread, and no empty block (at least one block)."""
    return max(1, min(threads * per_thread, max(threads, games // min_games), games))


def block_bounds(games, n_blocks, threads, min_games):
    """Where each block of a chunk starts, and the chunk's end: ``n_blocks`` blocks of
    ``ceil(games / n_blocks)`` games, but the last ``threads`` blocks' games split into
    blocks halving in size down to ``min_games``, so the threads end the chunk together
    (one waits at most for a block of ``min_games`` games rather than a whole one).  No
    block is larger than ``ceil(games / n_blocks)``: a block's buffers keep their size.

    Returns
    -------
    numpy.ndarray
        int64, increasing: block ``b`` is games ``bounds[b] .. bounds[b+1]-1``.
    """
    per = -(-games // n_blocks)
    if threads < 2 or per == 0:  # nobody waits for a lone thread; no games, one empty block
        sizes = [min(per, games - b * per) for b in range(n_blocks) if b * per < games] or [0]
        return np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))).astype(np.int64)
    sizes = [per] * min(max(0, n_blocks - threads), games // per)
    tail = games - sum(sizes)
    size = per // 2
    while tail > 0:
        size = max(size, min(min_games, per), 1)
        for _ in range(threads):
            take = min(size, tail)
            if take > 0:
                sizes.append(take)
                tail -= take
        size //= 2
    return np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))).astype(np.int64)
