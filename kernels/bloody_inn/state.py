"""Primitive state operations shared by every rule: moving cards, money, the event log.

Every card move goes through ``move_card`` so the per-location counters can never drift
from the card locations (the invariant checks recount them independently).
"""

from numba import njit

from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def log_event(st, kind, seat, card, a, b, c):
    """Append one event row when the run asked for events.  The check is inlined at every
    call site and only a run with events calls ``append_event``: a 3-player game logs ~630
    events, and a run without them need not make a call for each to learn that."""
    if st[L.G_LOG] != 0:
        append_event(st, kind, seat, card, a, b, c)


@njit(sig(ST, I, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def append_event(st, kind, seat, card, a, b, c):
    """Write one event row to the state's event buffer (``log_event`` checks that events
    are on)."""
    n = st[L.G_EV_N]
    if n >= st[L.G_EV_CAP]:
        st[L.G_EV_OVERFLOW] = 1
        return
    o = L.EV_BASE + n * L.EV_FIELDS
    st[nowrap(o + L.EV_ROUND)] = st[L.G_ROUND]
    st[nowrap(o + L.EV_KIND)] = kind
    st[nowrap(o + L.EV_SEAT)] = seat
    st[nowrap(o + L.EV_CARD)] = card
    st[nowrap(o + L.EV_A)] = a
    st[nowrap(o + L.EV_B)] = b
    st[nowrap(o + L.EV_C)] = c
    if 0 <= seat < L.MAXP:
        st[nowrap(o + L.EV_CASH)] = st[nowrap(L.P_CASH + seat)]
        st[nowrap(o + L.EV_CHEQUES)] = st[nowrap(L.P_CHEQUES + seat)]
    else:
        st[nowrap(o + L.EV_CASH)] = -1
        st[nowrap(o + L.EV_CHEQUES)] = -1
    st[nowrap(o + L.EV_PHASE)] = st[L.G_PHASE]
    st[L.G_EV_N] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def list_id(loc):
    """The card list a location keeps (hands, corpses, annexes, Bistro, Exit), or -1."""
    if loc == L.LOC.bistro:
        return L.L_BISTRO
    if loc == L.LOC.exit:
        return L.L_EXIT
    if L.LOC.hand <= loc < L.LOC.hand + L.MAXP:
        return L.L_HAND + loc - L.LOC.hand
    if L.LOC.corpse <= loc < L.LOC.corpse + L.MAXP:
        return L.L_CORPSE + loc - L.LOC.corpse
    if L.LOC.annex <= loc < L.LOC.annex + L.MAXP:
        return L.L_ANNEX + loc - L.LOC.annex
    return -1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def seat_from_first(st, i):
    """The seat ``i >= 0`` places after this round's first player: ``(G_FIRST + i) % players``
    by subtraction (a division by the player count costs ~20 cycles in every turn's loop)."""
    np_ = st[L.G_NP]
    s = st[L.G_FIRST] + i
    while s >= np_:
        s -= np_
    return s


@njit(sig(ST, I, I, I), cache=True, error_model="numpy", _nrt=False)
def move_card(st, c, loc, slot):
    """Move card ``c`` to location ``loc`` (with ``slot``), keeping the lists exact."""
    old = list_id(st[nowrap(L.C_LOC + c)])
    if old >= 0:  # swap-remove from the old list
        base = L.LISTS + old * L.MAXC
        n = st[nowrap(L.LIST_N + old)] - 1
        i = st[nowrap(L.C_POS + c)]
        last = st[nowrap(base + n)]
        st[nowrap(base + i)] = last
        st[nowrap(L.C_POS + last)] = i
        st[nowrap(L.LIST_N + old)] = n
    st[nowrap(L.C_LOC + c)] = loc
    st[nowrap(L.C_SLOT + c)] = slot
    new = list_id(loc)
    if new >= 0:
        n = st[nowrap(L.LIST_N + new)]
        st[nowrap(L.LISTS + new * L.MAXC + n)] = c
        st[nowrap(L.C_POS + c)] = n
        st[nowrap(L.LIST_N + new)] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def list_card(st, l, i):
    """The ``i``-th card of list ``l``."""
    return st[nowrap(L.LISTS + l * L.MAXC + i)]


@njit(
    cache=True, error_model="numpy", _nrt=False, inline="always"
)  # one move_card call, not two nested calls
def discard_card(st, c):
    """BI-N2: a discarded peasant goes to the Bistro, any other card to the Exit (face up)."""
    move_card(st, c, L.LOC.bistro if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else L.LOC.exit, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def gain_cash(st, p, amount):
    """Add ``amount`` francs to player ``p``'s cash; return what was actually kept.

    BI-N8: cash never exceeds the cap, the excess is lost.  BI-V10 ``unlimited_wealth``:
    above the cap the player takes cap/10 cheques and moves the cash back by the cap.
    """
    if amount <= 0:
        return 0
    cap = st[L.G_CAP]
    cash = st[nowrap(L.P_CASH + p)] + amount
    if cash > cap:
        if st[L.G_UNLIMITED] != 0:
            tens = cap // 10
            while cash > cap:
                cash -= tens * 10
                st[nowrap(L.P_CHEQUES + p)] += tens
        else:
            amount -= cash - cap
            cash = cap
    st[nowrap(L.P_CASH + p)] = cash
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
    cash = st[nowrap(L.P_CASH + p)]
    hi = min(st[nowrap(L.P_CHEQUES + p)], tens)
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
    cash = st[nowrap(L.P_CASH + p)]
    cash_paid = min(cash, 10 * tens - 10 * cheques)
    if cash_paid < 0:
        cash_paid = 0
    st[nowrap(L.P_CASH + p)] = cash - cash_paid
    st[nowrap(L.P_CHEQUES + p)] -= cheques
    return cash_paid, cheques
