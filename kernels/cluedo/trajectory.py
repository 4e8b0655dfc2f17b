"""The trajectory table's kernel side: what every seat knows at the end of each round.

``TrajCols`` is the table's columns (one typed 1-D array each, ``kernels.layout_tools``);
``record_round`` fills one row per seat when a round ends (after the last seat's turn, CL-S4
order) and when the game ends during a round, so a game of ``rounds`` rounds has
``rounds * players`` rows.  A reasoning seat's knowledge is read after propagation, done on
the scratch block ``S_XK`` so that the seat's own block (its clause order, its dirty flag)
and therefore the play are unchanged; a naive seat's as it holds it.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ..index import nowrap
from . import layout as L
from .knowledge import copy_block, envelope_candidates, kbase, known_cards, popc, propagate


class TrajCols(NamedTuple):
    round: np.int16
    seat: np.int8
    known: np.int8
    candidates: np.int16
    active: np.int8


@njit(cache=True)
def record_round(st, tb, traj, row0):
    """Rows ``row0 + (round - 1) * players + seat`` of ``traj`` for the round in progress."""
    n = tb[L.T_NPLAYERS]
    at = row0 + (st[L.S_ROUNDS] - 1) * n
    for s in range(n):
        r = at + s
        copy_block(st, kbase(s), L.S_XK)
        if st[nowrap(L.S_AGENT + s)] != L.AGENT.NAIVE:
            propagate(st, L.S_XK)  # what a reasoning player can deduce now (CL-T5)
        known = known_cards(st, L.S_XK)
        # a card seen in a hand is not in the envelope, deduced or not (a naive seat's facts)
        cand = envelope_candidates(st, L.S_XK) & ~(known & ~st[L.S_XK + L.K_HAS + L.ENVELOPE])
        traj.round[r] = st[L.S_ROUNDS]
        traj.seat[r] = s
        traj.known[r] = popc(known)
        # envelope triples the seat has not ruled out (CL-S2: one card of each category)
        traj.candidates[r] = popc(cand & L.CAT_SUSPECT) * popc(cand & L.CAT_WEAPON) * popc(cand & L.CAT_ROOM)
        traj.active[r] = st[nowrap(L.S_ACTIVE + s)]
