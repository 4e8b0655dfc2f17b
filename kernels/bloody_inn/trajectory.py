"""The trajectory table's kernel side: the score-relevant state of every seat after each round.

``TrajCols`` is the table's columns (one typed 1-D array each, ``kernels.layout_tools``);
``record_round`` fills one row per seat at the end of a round (after its morning, BI-M), so a
game of ``rounds`` rounds has ``rounds * players`` rows.  ``score`` is cash + 10 x cheques as
BI-G3 counts it, before the end of the game: the last round's row does not include the final
investigation (BI-G1) nor the end-of-game annex bonuses (BI-G2); the seats table has the final
score.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ..index import nowrap
from . import layout as L


class TrajCols(NamedTuple):
    game_id: np.int64
    round: np.int16
    seat: np.int8
    cash: np.int16
    cheques: np.int16
    score: np.int32
    annexes: np.int8
    hand: np.int8


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def record_round(st, traj, row0):
    """Rows ``row0 + (round - 1) * players + seat`` of ``traj`` for the round just played in
    the game ``G_GAME_ID``; rows past the arrays' end are not written (the caller sees the game's rows
    do not fit and retries with larger arrays)."""
    np_ = st[L.G_NP]
    at = row0 + (st[L.G_ROUND] - 1) * np_
    if at + np_ > len(traj.cash):
        return
    for p in range(np_):
        r = at + p
        traj.game_id[r] = st[L.G_GAME_ID]
        traj.round[r] = st[L.G_ROUND]
        traj.seat[r] = p
        traj.cash[r] = st[nowrap(L.P_CASH + p)]
        traj.cheques[r] = st[nowrap(L.P_CHEQUES + p)]
        traj.score[r] = st[nowrap(L.P_CASH + p)] + 10 * st[nowrap(L.P_CHEQUES + p)]  # BI-G3, before BI-G1/G2
        traj.annexes[r] = st[nowrap(L.P_ANNEX_N + p)]
        traj.hand[r] = st[nowrap(L.P_HAND_N + p)]
