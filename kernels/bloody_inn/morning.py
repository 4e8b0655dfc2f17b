"""Morning (BI-M), in order: investigation, travellers leave, wages, first player passes."""

from numba import njit

from ..index import nowrap
from . import layout as L
from .legal import police_in_inn
from .state import (
    discard_card,
    fine_range,
    gain_cash,
    list_card,
    log_event,
    move_card,
    pay_fine,
    seat_from_first,
)
from .strat_tools import lowest_set_bit
from .strategies import ALL, decide_fine, decide_wages


@njit(cache=True, error_model="numpy", _nrt=False)
def investigate(st, pr, p, kind, strats=ALL):
    """Fine ``p`` for each unburied corpse (10 F printed: ``G_FINE`` in a Morning,
    ``G_FINAL_FINE`` at the end, BI-G1) and box the corpses.  BI-M1: cash or cheques is
    the player's choice (``decide_fine``; a short player pays what they can).
    Solo (BI-X2): an unburied corpse at an investigation loses the game at once."""
    n = st[nowrap(L.P_CORPSE_N + p)]
    if n == 0:
        return
    if st[L.G_NP] == 1:
        st[nowrap(L.P_SOLO_LOST + p)] = 1
        st[L.G_OVER] = 1
        log_event(st, L.EVENT.solo_lost, p, -1, n, 0, 0)
        return
    final = 1 if kind == L.EVENT.final_investigation else 0
    tens = n * (st[L.G_FINAL_FINE] if final != 0 else st[L.G_FINE]) // 10
    lo, hi = fine_range(st, p, tens)
    k = lo
    if hi > lo:  # a choice only when there is one (no draw from the stream otherwise)
        k = decide_fine(st, pr, p, tens, lo, hi, final, *strats)
        if k < lo or k > hi:  # not a legal split: a strategy bug
            if st[L.G_ERR] == 0:
                st[L.G_ERR] = 41
                st[L.G_ERR_ROUND] = st[L.G_ROUND]
            k = lo
    cash_paid, cheques_paid = pay_fine(st, p, tens, k)
    st[nowrap(L.P_FINES + p)] += cash_paid + 10 * cheques_paid
    log_event(st, kind, p, -1, n, cash_paid, cheques_paid)
    while st[nowrap(L.P_CORPSE_N + p)] > 0:
        c = list_card(st, L.L_CORPSE + p, st[nowrap(L.P_CORPSE_N + p)] - 1)
        move_card(st, c, L.LOC.box, 0)
        log_event(st, L.EVENT.corpse_boxed, p, c, 0, 0, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def travellers_leave(st):
    """BI-M2: 1 F (``G_LEAVE``) per own-keyed room holding a traveller (+ Gardens), then the
    inn empties."""
    np_ = st[L.G_NP]
    for q in range(np_):
        st[nowrap(L.S_A + q)] = 0
    # the rooms holding a traveller are the bits of G_INN (kept beside R_CARD), visited in
    # ascending order: no branch per room that the CPU cannot predict
    inn = st[L.G_INN]
    rooms = inn
    while rooms != 0:  # one pass: occupied rooms per key owner
        r = lowest_set_bit(rooms)
        rooms &= rooms - 1
        owner = st[nowrap(L.R_KEY + r)]
        if 0 <= owner < np_:
            st[nowrap(L.S_A + owner)] += 1
    for i in range(np_):
        p = seat_from_first(st, i)
        rooms = st[nowrap(L.S_A + p)]
        income = rooms * st[L.G_LEAVE] + st[nowrap(L.P_LEAVE_INCOME + p)]
        if income > 0:
            got = gain_cash(st, p, income)
            log_event(st, L.EVENT.leave_income, p, -1, got, rooms, st[nowrap(L.P_LEAVE_INCOME + p)])
    rooms = inn
    while rooms != 0:  # the Exit receives them in room order, as before
        r = lowest_set_bit(rooms)
        rooms &= rooms - 1
        c = st[nowrap(L.R_CARD + r)]
        st[nowrap(L.R_CARD + r)] = -1
        move_card(st, c, L.LOC.exit, 0)
        log_event(st, L.EVENT.to_exit, -1, c, r, 0, 0)
    st[L.G_INN] = 0
    st[L.G_INN_N] = 0
    st[L.G_INN_POLICE] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def pay_wages(st, pr, p, strats=ALL):
    """BI-M3: 1 F (``G_WAGE``) cash per accomplice (never cheques; Distillery: some free).
    Unpaid accomplices leave; with BI-V5 the player may also dismiss ones they could pay."""
    h = st[nowrap(L.P_HAND_N + p)]
    if h == 0:
        return
    free = st[nowrap(L.P_WAGE_FREE + p)]
    wage = st[L.G_WAGE]
    cash = st[nowrap(L.P_CASH + p)]
    max_keep = free
    paid = wage
    while max_keep < h and paid <= cash:  # as many as the cash pays (no division)
        max_keep += 1
        paid += wage
    if max_keep > h:
        max_keep = h
    st[L.D_NT] = 0
    decide_wages(st, pr, p, max_keep, *strats)
    n = st[L.D_NT]
    must = h - max_keep
    ok = n >= must and (st[L.G_VOLUNTARY] != 0 or n == must) and n <= h
    if ok:
        for i in range(n):
            c = st[nowrap(L.D_T + i)]
            if c < 0 or c >= st[L.G_NCARDS] or st[nowrap(L.C_LOC + c)] != L.LOC.hand + p:
                ok = False
                break
            for j in range(i):
                if st[nowrap(L.D_T + j)] == c:
                    ok = False
    if not ok:
        if st[L.G_ERR] == 0:
            st[L.G_ERR] = 40
            st[L.G_ERR_ROUND] = st[L.G_ROUND]
        # keep the game going: dismiss the highest-numbered cards that cannot be paid
        n = 0
        for c in range(st[L.G_NCARDS] - 1, -1, -1):
            if n == must:
                break
            if st[nowrap(L.C_LOC + c)] == L.LOC.hand + p:
                st[nowrap(L.D_T + n)] = c
                n += 1
    for i in range(n):
        c = st[nowrap(L.D_T + i)]
        discard_card(st, c)
        log_event(st, L.EVENT.dismiss, p, c, 0, 0, 0)
    kept = h - n
    cost = kept - free
    if cost < 0:
        cost = 0
    cost *= wage
    st[nowrap(L.P_CASH + p)] -= cost
    st[nowrap(L.P_WAGES + p)] += cost
    log_event(st, L.EVENT.wages, p, -1, cost, kept, min(free, kept))


@njit(cache=True, error_model="numpy", _nrt=False)
def morning(st, pr, strats=ALL):
    """BI-M1..M4.  Sets ``G_OVER`` if a solo player is caught (BI-X2).  ``strats``: the
    lineup's policies (``strategies.lineup_strategies``; by default all)."""
    np_ = st[L.G_NP]
    if police_in_inn(st):
        for i in range(np_):
            investigate(st, pr, seat_from_first(st, i), L.EVENT.investigation, strats)
        if st[L.G_OVER] != 0:
            return
    travellers_leave(st)
    for i in range(np_):
        pay_wages(st, pr, seat_from_first(st, i), strats)
    st[L.G_FIRST] = seat_from_first(st, 1)
    log_event(st, L.EVENT.first_player, st[L.G_FIRST], -1, 0, 0, 0)
