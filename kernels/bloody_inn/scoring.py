"""Game end and scoring (BI-G): final investigation, end-of-game annexes, places."""

from numba import njit

from ..index import nowrap
from . import layout as L
from .morning import investigate
from .state import gain_cash, list_card, log_event, move_card
from .strategies import ALL


@njit(cache=True, error_model="numpy", _nrt=False)
def _bonus(st, p, amount):
    """BI-G2/BI-V8: end bonuses respect the cap unless ``end_bonus_capped = false``."""
    if amount <= 0:
        return 0
    if st[L.G_END_CAPPED] != 0:
        return gain_cash(st, p, amount)
    st[nowrap(L.P_CASH + p)] += amount
    return amount


@njit(cache=True, error_model="numpy", _nrt=False)
def end_game(st, pr, strats=ALL):
    """BI-G1..G3 (and BI-X2 for the final investigation of a solo game).  ``strats``: the
    lineup's policies (``strategies.lineup_strategies``; by default all)."""
    np_ = st[L.G_NP]
    # BI-G1: travellers still in rooms go to the Exit; investigation regardless of police
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c >= 0:
            st[nowrap(L.R_CARD + r)] = -1
            move_card(st, c, L.LOC.exit, 0)
            log_event(st, L.EVENT.discard, -1, c, r, 0, 0)
    st[L.G_INN] = 0
    st[L.G_INN_N] = 0
    st[L.G_INN_POLICE] = 0
    if st[L.G_OVER] == 0:
        for p in range(np_):
            investigate(st, pr, p, L.EVENT.final_investigation, strats)
    # BI-G2: colour bonuses count the Exit; the Greenhouse counts the cheques held before
    # the end bonuses (BI-V10: with unlimited wealth a bonus above the cap turns into
    # cheques, and those do not count, whatever order the annexes were built in)
    for col in range(L.NCOL):
        st[nowrap(L.S_A + col)] = 0
    for i in range(st[L.LIST_N + L.L_EXIT]):
        st[nowrap(L.S_A + st[nowrap(L.C_COLOUR + list_card(st, L.L_EXIT, i))])] += 1
    for p in range(np_):
        st[nowrap(L.S_B + p)] = st[nowrap(L.P_CHEQUES + p)]
    for p in range(np_):
        if st[nowrap(L.P_SOLO_LOST + p)] != 0:
            continue
        for i in range(st[nowrap(L.LIST_N + L.L_ANNEX + p)]):
            c = list_card(st, L.L_ANNEX + p, i)
            k = st[nowrap(L.C_KIND + c)]
            col = st[nowrap(L.K_END_COLOUR + k)]
            if col >= 0:
                n = st[nowrap(L.S_A + col)]
                got = _bonus(st, p, st[nowrap(L.K_END_COLOUR_AMT + k)] * n)
                log_event(st, L.EVENT.end_bonus, p, c, got, n, 0)
            if st[nowrap(L.K_END_CHEQUE + k)] > 0:
                n = st[nowrap(L.S_B + p)]
                got = _bonus(st, p, st[nowrap(L.K_END_CHEQUE + k)] * n)
                log_event(st, L.EVENT.end_bonus, p, c, got, n, 1)
    # BI-G3: score, tie-break (BI-V9), shared places
    for p in range(np_):
        st[nowrap(L.P_SCORE + p)] = st[nowrap(L.P_CASH + p)] + 10 * st[nowrap(L.P_CHEQUES + p)]
    for p in range(np_):
        better = 0
        for q in range(np_):
            if _beats(st, q, p):
                better += 1
        st[nowrap(L.P_PLACE + p)] = better + 1
        if np_ == 1:
            st[nowrap(L.P_WINNER + p)] = 1 if st[nowrap(L.P_SOLO_LOST + p)] == 0 else 0
        else:
            st[nowrap(L.P_WINNER + p)] = 1 if better == 0 else 0
        log_event(
            st, L.EVENT.score, p, -1, st[nowrap(L.P_SCORE + p)], st[nowrap(L.P_PLACE + p)], _tiebreak(st, p)
        )


@njit(cache=True, error_model="numpy", _nrt=False)
def _tiebreak(st, p):
    if st[L.G_TIEBREAK_OWN] != 0:
        return st[nowrap(L.P_BURIED_OWN + p)]
    return st[nowrap(L.P_BURIED + p)]


@njit(cache=True, error_model="numpy", _nrt=False)
def _beats(st, q, p):
    """Whether ``q`` finishes strictly ahead of ``p``: higher score, or equal score and
    more corpses buried (BI-G3 / BI-V9)."""
    if st[nowrap(L.P_SCORE + q)] != st[nowrap(L.P_SCORE + p)]:
        return st[nowrap(L.P_SCORE + q)] > st[nowrap(L.P_SCORE + p)]
    return _tiebreak(st, q) > _tiebreak(st, p)
