"""BI-M1 fines for the scripted strategies: how many tens of a fine to pay by cheque.

Cash and cheques are worth the same at scoring, so a split only matters through what
comes after the fine (BI-M): the travellers-leave income is capped (BI-N8) and the wages
are paid in cash only (BI-M3); at the end of the game (BI-G1) the end bonuses are capped
(BI-V8) and the Greenhouse pays per cheque (BI-G2).  ``best_fine_cheques`` plays those
steps forward for every legal split and keeps the best one; between equal splits it pays
whole tens in cash first (the order the simulator used before fines became a choice).
Everything it reads is the player's own money and hand or public (rooms, keys, annexes,
the Exit).
"""

from numba import njit

from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L
from .state import list_card

#: francs an accomplice lost at wages costs (more than its franc of wages: it pays for
#: actions and may become an annex)
UNPAID_ACCOMPLICE = 5.0


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def _leave_income(st, p):
    """BI-M2 income of ``p`` this morning: own keyed rooms holding a traveller + Gardens."""
    n = 0
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] == p and st[nowrap(L.R_CARD + r)] >= 0:
            n += 1
    return n * st[L.G_LEAVE] + st[nowrap(L.P_LEAVE_INCOME + p)]


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def _colour_bonus(st, p):
    """BI-G2 colour bonuses of ``p``'s annexes over the Exit as it is now."""
    total = 0
    for i in range(st[L.LIST_N + L.L_EXIT]):
        col = st[nowrap(L.C_COLOUR + list_card(st, L.L_EXIT, i))]
        if col < L.NCOL:
            total += st[nowrap(L.P_END_COLOUR + p * L.NCOL + col)]
    return total


@njit(sig(ST, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def best_fine_cheques(st, p, tens, lo, hi, final):
    """The split (cheques paid, ``lo``..``hi``) that keeps the most value after the fine.

    In a Morning (``final == 0``): francs lost to the cap at BI-M2 and accomplices that the
    remaining cash cannot pay at BI-M3.  At the end (``final == 1``): the final score after
    the end bonuses (the Greenhouse counts the cheques held before them, BI-V10).
    """
    cash = st[nowrap(L.P_CASH + p)]
    cheques = st[nowrap(L.P_CHEQUES + p)]
    cap = st[L.G_CAP]
    unlimited = st[L.G_UNLIMITED] != 0
    if final != 0:
        colour = _colour_bonus(st, p)
        per_cheque = st[nowrap(L.P_END_CHEQUE + p)]
    else:
        income = _leave_income(st, p)
        wages = (st[nowrap(L.P_HAND_N + p)] - st[nowrap(L.P_WAGE_FREE + p)]) * st[L.G_WAGE]
    best = lo
    best_v = -1e18
    for k in range(lo, hi + 1):
        paid = min(cash, 10 * tens - 10 * k)
        c1 = cash - paid
        q1 = cheques - k
        if final != 0:
            c2 = c1 + colour + per_cheque * q1
            if st[L.G_END_CAPPED] != 0 and not unlimited and c2 > cap:
                c2 = cap
            v = float(c2 + 10 * q1)
        else:
            c2 = c1 + income
            lost = 0
            if not unlimited and c2 > cap:
                lost = c2 - cap
                c2 = cap
            unpaid = wages - c2
            if unpaid < 0:
                unpaid = 0
            v = -UNPAID_ACCOMPLICE * unpaid - lost
        if v > best_v:  # strict: ties keep the fewest cheques (cash first)
            best_v = v
            best = k
    return best
