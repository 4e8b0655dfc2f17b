"""The layout helpers both games' ``layout.py`` use: an offset allocator for the flat state
and table arrays, and the names of a ``NamedTuple`` enumeration.

Plain Python run at import time: the offsets it hands out are module-level ints that Numba
folds into constants (``kernels.source_hash`` covers this file, so a change recompiles).
"""

from __future__ import annotations


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
