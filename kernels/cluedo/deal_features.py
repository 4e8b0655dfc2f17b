"""The deal of a game replayed from ``(seed, game id)``: the setup only (CL-S1..S4, CL-2.1).

``setup`` itself runs on the game's own stream, so the characters, the envelope and the
hands are exactly those the game was played with; no turn is played.
"""

from numba import njit, types

from ..index import nowrap
from ..sigs import I, sig
from . import layout as L
from .rules import setup

_ARR = types.int64[::1]
_OUT = types.int64[:, :, ::1]


@njit(sig(_ARR, _ARR, I, I, _OUT), cache=True)
def seat_deals(st, tb, first_game, n, out):
    """Fill ``out[g, p]`` for game ``first_game + g`` and seat ``p`` with ``(character,
    hand as a card bit mask, seat dealt the first card)``; ``st`` is scratch state."""
    for g in range(out.shape[0]):
        setup(st, tb, first_game + g, n, 0)
        for p in range(n):
            out[g, p, 0] = st[nowrap(L.S_CHAR + p)]
            out[g, p, 1] = st[nowrap(L.S_TRUE + p)]
            out[g, p, 2] = st[L.S_DEAL_START]
