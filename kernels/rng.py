"""Counter-based per-game random streams (splitmix64).

Every game owns an independent stream keyed by ``(run seed, game id)``, so results
never depend on thread count, chunk size, process or machine.

The stream state is one ``int64`` slot inside a game's flat state array (``st[slot]``);
it is reinterpreted as ``uint64`` for the arithmetic.  Keeping the state in the game's
own array means helpers take a single array argument (cheap reference counting) and
two threads never share a cache line.
"""

import numpy as np
from numba import njit

from .index import nowrap

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def _mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def stream_key(seed, game_id):
    """Initial stream state for game ``game_id`` of a run seeded with ``seed``.

    Two rounds of mixing keep neighbouring game ids (and seeds) uncorrelated.
    """
    a = _mix64(np.uint64(seed) + _GOLDEN)
    b = _mix64(a ^ (np.uint64(game_id) * _M2 + _GOLDEN))
    return np.int64(b)


@njit(cache=True, inline="always")
def next_u64(st, slot):
    """Advance the stream stored in ``st[slot]``; return 64 random bits (uint64)."""
    u = np.uint64(st[nowrap(slot)]) + _GOLDEN
    st[nowrap(slot)] = np.int64(u)
    return _mix64(u)


@njit(cache=True, inline="always")
def randint(st, slot, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (Lemire's multiply-shift)."""
    x = next_u64(st, slot) >> _S32
    return np.int64((x * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(st, slot):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(st, slot) >> _S11) * _INV53
