"""Kernel output columns reused from one chunk to the next.

A chunk's trajectory table is views of the arrays the kernel filled (no copy).  Arrays that
large, allocated afresh for every chunk, cost the operating system a page fault and a page
zeroing for every page the kernel touches — as much CPU as encoding the rows to Parquet (a
profile of an ``expert`` run with ``--trajectory``).  A :class:`ColumnPool` hands out column
sets (``kernels.layout_tools.alloc_columns``) and takes a set back once every view lent from
it has been garbage-collected (the chunk's table written and dropped), so the next chunk
writes into memory already mapped.  A set still referenced is never handed out again: the
data of a table a caller keeps cannot change.
"""

from __future__ import annotations

import threading
import weakref

from kernels.layout_tools import alloc_columns


class ColumnPool:
    """Reusable instances of one column table (a ``NamedTuple`` of 1-D arrays).

    Parameters
    ----------
    columns : type
        The column table (``kernels.layout_tools`` convention: one dtype per field).
    keep : int
        Free sets kept for reuse (a run has one chunk playing while the last one is written).
    """

    def __init__(self, columns, keep=2):
        self.columns = columns
        self.keep = keep
        self._free = []
        self._lock = threading.Lock()

    def take(self, rows):
        """A column set of ``rows`` rows (contents undefined): a free one of that size, else
        a new zeroed one."""
        with self._lock:
            for i, cols in enumerate(self._free):
                if len(cols[0]) == rows:
                    return self._free.pop(i)
        return alloc_columns(self.columns, rows)

    def lend(self, cols, rows):
        """Views of the first ``rows`` rows of every column of ``cols`` (by field name); ``cols``
        comes back to the pool once all of them are gone."""
        views = {name: col[:rows] for name, col in cols._asdict().items()}
        left = [len(views)]

        def gone():
            with self._lock:
                left[0] -= 1
                if left[0] == 0:
                    self._free.append(cols)
                    del self._free[: -self.keep]

        for view in views.values():
            weakref.finalize(view, gone)
        return views
