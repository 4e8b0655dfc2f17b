"""The deal of a game replayed from ``(seed, game id)``: the setup only (BI-S1..S4), no play.

The only chance in a game's setup is the Entrance shuffle (BI-S2); seats, keys and money are
the same for every seat (BI-S1, BI-S3) and seat 0 is the first player (BI-S4).  Replaying
``setup_game`` itself on the game's own stream gives the exact Entrance the game was played
with, at a tiny fraction of the cost of a game.
"""

from numba import njit, types

from ..index import nowrap
from ..rng import stream_key
from ..sigs import ST, I, sig
from . import layout as L
from .setup import setup_game

_OUT = types.int64[:, ::1]


@njit(sig(ST, I, I, _OUT), cache=True, error_model="numpy", _nrt=False)
def entrance_kinds(st, seed, first_game, out):
    """Fill ``out[g, i]`` with the card kind of the ``i``-th Entrance card (BI-S2, the top
    card first) of game ``first_game + g``; ``st`` is a state template (it is overwritten)."""
    st[L.G_LOG] = 0  # replaying the setup writes no events
    deck = st[L.G_DECK_SIZE]
    for g in range(out.shape[0]):
        gid = first_game + g
        st[L.G_GAME_ID] = gid
        # as the block kernel keys the game: duplicate deals share the deal's stream
        deal = gid // st[L.G_NLINEUP] if st[L.G_ROTATE] == L.ROTATE_DUPLICATE else gid
        st[L.G_RNG] = stream_key(seed, deal)
        setup_game(st)
        for i in range(deck):
            out[g, i] = st[nowrap(L.C_KIND + st[nowrap(L.ENT + i)])]
