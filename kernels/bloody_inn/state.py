"""Primitive state operations shared by every rule: moving cards, money, the event log.

Every card move goes through ``move_card`` so the per-location counters can never drift
from the card locations (the invariant checks recount them independently).
"""

from numba import njit

from kernels.sigs import ST, I, sig

from .layout import (
    C_LOC,
    C_POS,
    C_SLOT,
    C_TYPE,
    CTYPE,
    EV_A,
    EV_B,
    EV_BASE,
    EV_C,
    EV_CARD,
    EV_CASH,
    EV_CHEQUES,
    EV_FIELDS,
    EV_KIND,
    EV_PHASE,
    EV_ROUND,
    EV_SEAT,
    G_CAP,
    G_EV_CAP,
    G_EV_N,
    G_EV_OVERFLOW,
    G_FIRST,
    G_LOG,
    G_NP,
    G_PHASE,
    G_ROUND,
    G_UNLIMITED,
    L_ANNEX,
    L_BISTRO,
    L_CORPSE,
    L_EXIT,
    L_HAND,
    LIST_N,
    LISTS,
    LOC,
    MAXC,
    MAXP,
    P_CASH,
    P_CHEQUES,
)


@njit(sig(ST, I, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def log_event(st, kind, seat, card, a, b, c):
    """Append one event row (when the run asked for events)."""
    if st[G_LOG] == 0:
        return
    n = st[G_EV_N]
    if n >= st[G_EV_CAP]:
        st[G_EV_OVERFLOW] = 1
        return
    o = EV_BASE + n * EV_FIELDS
    st[o + EV_ROUND] = st[G_ROUND]
    st[o + EV_KIND] = kind
    st[o + EV_SEAT] = seat
    st[o + EV_CARD] = card
    st[o + EV_A] = a
    st[o + EV_B] = b
    st[o + EV_C] = c
    if 0 <= seat < MAXP:
        st[o + EV_CASH] = st[P_CASH + seat]
        st[o + EV_CHEQUES] = st[P_CHEQUES + seat]
    else:
        st[o + EV_CASH] = -1
        st[o + EV_CHEQUES] = -1
    st[o + EV_PHASE] = st[G_PHASE]
    st[G_EV_N] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def list_id(loc):
    """The card list a location keeps (hands, corpses, annexes, Bistro, Exit), or -1."""
    if loc == LOC.bistro:
        return L_BISTRO
    if loc == LOC.exit:
        return L_EXIT
    if LOC.hand <= loc < LOC.hand + MAXP:
        return L_HAND + loc - LOC.hand
    if LOC.corpse <= loc < LOC.corpse + MAXP:
        return L_CORPSE + loc - LOC.corpse
    if LOC.annex <= loc < LOC.annex + MAXP:
        return L_ANNEX + loc - LOC.annex
    return -1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def seat_from_first(st, i):
    """The seat ``i >= 0`` places after this round's first player: ``(G_FIRST + i) % players``
    by subtraction (a division by the player count costs ~20 cycles in every turn's loop)."""
    np_ = st[G_NP]
    s = st[G_FIRST] + i
    while s >= np_:
        s -= np_
    return s


@njit(sig(ST, I, I, I), cache=True, error_model="numpy", _nrt=False)
def move_card(st, c, loc, slot):
    """Move card ``c`` to location ``loc`` (with ``slot``), keeping the lists exact."""
    old = list_id(st[C_LOC + c])
    if old >= 0:  # swap-remove from the old list
        base = LISTS + old * MAXC
        n = st[LIST_N + old] - 1
        i = st[C_POS + c]
        last = st[base + n]
        st[base + i] = last
        st[C_POS + last] = i
        st[LIST_N + old] = n
    st[C_LOC + c] = loc
    st[C_SLOT + c] = slot
    new = list_id(loc)
    if new >= 0:
        n = st[LIST_N + new]
        st[LISTS + new * MAXC + n] = c
        st[C_POS + c] = n
        st[LIST_N + new] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def list_card(st, l, i):
    """The ``i``-th card of list ``l``."""
    return st[LISTS + l * MAXC + i]


@njit(
    cache=True, error_model="numpy", _nrt=False, inline="always"
)  # one move_card call, not two nested calls
def discard_card(st, c):
    """BI-N2: a discarded peasant goes to the Bistro, any other card to the Exit (face up)."""
    move_card(st, c, LOC.bistro if st[C_TYPE + c] == CTYPE.peasant else LOC.exit, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def gain_cash(st, p, amount):
    """Add ``amount`` francs to player ``p``'s cash; return what was actually kept.

    BI-N8: cash never exceeds the cap, the excess is lost.  BI-V10 ``unlimited_wealth``:
    above the cap the player takes cap/10 cheques and moves the cash back by the cap.
    """
    if amount <= 0:
        return 0
    cap = st[G_CAP]
    cash = st[P_CASH + p] + amount
    if cash > cap:
        if st[G_UNLIMITED] != 0:
            tens = cap // 10
            while cash > cap:
                cash -= tens * 10
                st[P_CHEQUES + p] += tens
        else:
            amount -= cash - cap
            cash = cap
    st[P_CASH + p] = cash
    return amount


@njit(cache=True, error_model="numpy", _nrt=False)
def fine_range(st, p, tens):
    """BI-M1: the legal splits of a fine of ``tens`` times 10 F (10 F per corpse printed), as
    (fewest, most) cheques.

    Any number of cheques from ``lo`` to ``hi`` may pay part of the fine and cash pays the
    rest.  A player who can pay in full must pay exactly the fine (cash covers what the
    cheques leave, so at least ``tens - cash // 10`` cheques); a player who is short pays
    what they can: every cheque and all their cash (then ``lo == hi``).
    """
    cash = st[P_CASH + p]
    hi = min(st[P_CHEQUES + p], tens)
    lo = tens - cash // 10
    if lo < 0:
        lo = 0
    if lo > hi:  # short: the only split is everything
        lo = hi
    return lo, hi


@njit(cache=True, error_model="numpy", _nrt=False)
def pay_fine(st, p, tens, cheques):
    """BI-M1: pay a fine of ``tens`` times 10 F with ``cheques`` cheques (a split within
    ``fine_range``) and cash for the rest, as far as the cash goes.  Returns (cash paid,
    cheques paid)."""
    cash = st[P_CASH + p]
    cash_paid = min(cash, 10 * tens - 10 * cheques)
    if cash_paid < 0:
        cash_paid = 0
    st[P_CASH + p] = cash - cash_paid
    st[P_CHEQUES + p] -= cheques
    return cash_paid, cheques
