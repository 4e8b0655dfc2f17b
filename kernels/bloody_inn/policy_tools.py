"""Building blocks shared by the strategies: candidate lists, sampling, payment choice.

Everything here reads only what the deciding player may know: their own hand and
corpses, the public table (rooms, keys, tokens, annexes and their fill, cash, cheques,
Bistro, Exit) and the top Entrance card (BI rules: the Entrance is face up).
"""

from numba import njit

from kernels.rng import randint
from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L
from .legal import discounted, free_space


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def rand(st, n):
    """Uniform integer in [0, n) from the game's own stream."""
    return randint(st, L.G_RNG, n)


@njit(sig(ST, I, I, I), cache=True, error_model="numpy", _nrt=False)
def shuffle_prefix(st, off, n, k):
    """Partial Fisher-Yates: a uniform random ``k``-subset of ``st[off:off+n]`` moved to the front."""
    for i in range(k):
        j = i + rand(st, n - i)
        t = st[nowrap(off + i)]
        st[nowrap(off + i)] = st[nowrap(off + j)]
        st[nowrap(off + j)] = t


@njit(cache=True, error_model="numpy", _nrt=False)
def room_candidates(st, p, action, budget, off):
    """Travellers in the inn whose discounted single cost is within ``budget``."""
    n = 0
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c >= 0 and discounted(st, p, action, st[nowrap(L.C_RANK + c)]) <= budget:
            st[nowrap(off + n)] = c
            n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def targets_raw_cost(st):
    raw = 0
    for i in range(st[L.D_NT]):
        raw += st[nowrap(L.C_RANK + st[nowrap(L.D_T + i)])]
    return raw


@njit(cache=True, error_model="numpy", _nrt=False)
def bury_raw_cost(st):
    raw = 0
    for i in range(st[L.D_NT]):
        c = st[nowrap(L.D_T + i)]
        if st[nowrap(L.C_TYPE + c)] != L.CTYPE.peasant:
            raw += st[nowrap(L.C_RANK + c)]
    return raw


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def dest_room_left(st, d, upto):
    """Free places of destination ``d`` after the first ``upto`` choices of this action."""
    left = free_space(st, d)
    for i in range(upto):
        if st[nowrap(L.D_DEST + i)] == d:
            left -= 1
    return left


@njit(cache=True, error_model="numpy", _nrt=False)
def empty_open_rooms(st, off):
    """The open rooms still empty during the evening's placement (BI-E1)."""
    n = st[L.G_N_EMPTY]
    for i in range(n):
        st[nowrap(off + i)] = st[nowrap(L.R_EMPTY + i)]
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def open_rooms(st, off):
    n = 0
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] != L.CLOSED:
            st[nowrap(off + n)] = r
            n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def white_rooms(st, off):
    n = 0
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] == L.WHITE:
            st[nowrap(off + n)] = r
            n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def has_multi(st, p, action):
    return st[nowrap(L.P_MULTI + p * L.NACT + action)] != 0
