"""What a player may do: costs, targets, capacities (BI-N2..BI-N7).

These queries read only public information plus the asking player's own hand, so
strategies can use them freely.
"""

from numba import njit

from kernels.sigs import ST, I, sig

from .layout import (
    ACTION,
    BARN_SLOT,
    C_FILL,
    C_KIND,
    C_LOC,
    C_RANK,
    C_TYPE,
    CLOSED,
    CTYPE,
    G_BISTRO_N,
    G_CAP,
    G_FREE_SPACE,
    G_INN_POLICE,
    G_NP,
    G_POLICE_MIN,
    G_RS_ANY,
    G_UNIQUE,
    K_ANNEXABLE,
    L_ANNEX,
    L_BISTRO,
    L_CORPSE,
    L_HAND,
    LIST_N,
    LISTS,
    LOC,
    MAXC,
    MAXP,
    NACT,
    NROOMS,
    P_BARN_FILL,
    P_CASH,
    P_CHEQUES,
    P_DISCOUNT,
    P_FORBID,
    P_HAND_N,
    P_KINDS_OWNED,
    P_NOBUILD,
    P_PEAS_LIMIT,
    R_CARD,
    R_KEY,
    R_TOKENS,
    WHITE,
)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def may(st, p, action):
    """Restricted play: whether ``p``'s run config lets it take ``action`` at all.

    ``ACTION.passing`` asks about laundering (BI-N7); the pass without laundering is
    always legal.  Every strategy generates its choices through this and ``can_build``,
    so a restricted seat is only ever offered the remaining legal choices.
    """
    return (st[P_FORBID + p] >> action) & 1 == 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def may_build_kind(st, p, k):
    """Restricted play: ``p`` may build annexes and is not barred from kind ``k``."""
    return may(st, p, ACTION.build) and (st[P_NOBUILD + p] >> k) & 1 == 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def discounted(st, p, action, raw_cost):
    """BI-N2: a discount annex lowers the cost by 1 (stacked duplicates by more), not below 0."""
    c = raw_cost - st[P_DISCOUNT + p * NACT + action]
    return c if c > 0 else 0


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def copy_list(st, l, off):
    """Copy card list ``l`` to ``st[off:]``; return its length."""
    n = st[LIST_N + l]
    base = LISTS + l * MAXC
    for i in range(n):
        st[off + i] = st[base + i]
    return n


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def list_hand(st, p, off):
    """Write player ``p``'s hand to ``st[off:]``; return the count."""
    return copy_list(st, L_HAND + p, off)


@njit(cache=True, error_model="numpy", _nrt=False)
def list_corpses(st, p, off):
    """Player ``p``'s unburied corpses to ``st[off:]``; return the count."""
    return copy_list(st, L_CORPSE + p, off)


@njit(cache=True, error_model="numpy", _nrt=False)
def list_bistro(st, off):
    """Peasants in the Bistro to ``st[off:]``; return the count."""
    return copy_list(st, L_BISTRO, off)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def annex_capacity(st, a):
    """BI-C3: an annex holds as many corpses as its rank."""
    return st[C_RANK + a]


@njit(cache=True, error_model="numpy", _nrt=False)
def free_space(st, dest):
    """Free burial places of a destination: an annex card, or ``BARN_SLOT - owner``."""
    if dest < 0:
        q = BARN_SLOT - dest
        return 1 - st[P_BARN_FILL + q]  # BI-C4: the Barn holds one corpse
    return annex_capacity(st, dest) - st[C_FILL + dest]


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def list_burial_places(st, off):
    """Every destination with free capacity, any owner (BI-N6); return the count."""
    n = 0
    for q in range(st[G_NP]):
        if st[P_BARN_FILL + q] < 1:
            st[off + n] = BARN_SLOT - q
            n += 1
    for q in range(st[G_NP]):
        base = LISTS + (L_ANNEX + q) * MAXC
        for i in range(st[LIST_N + L_ANNEX + q]):
            c = st[base + i]
            if annex_capacity(st, c) - st[C_FILL + c] > 0:
                st[off + n] = c
                n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def total_free_space(st):
    """Free burial places over every annex and Barn (kept by setup, build and bury)."""
    return st[G_FREE_SPACE]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def dest_owner(st, dest):
    if dest < 0:
        return BARN_SLOT - dest
    return st[C_LOC + dest] - LOC.annex


@njit(cache=True, error_model="numpy", _nrt=False)
def can_build(st, p, c):
    """BI-N4/BI-C3/BI-V3: ``c`` is in ``p``'s hand, can be an annex, is not owned already
    (unique annexes) and ``p`` can pay its rank with other cards."""
    if st[C_LOC + c] != LOC.hand + p:
        return False
    k = st[C_KIND + c]
    if st[K_ANNEXABLE + k] == 0 or not may_build_kind(st, p, k):
        return False
    if st[G_UNIQUE] != 0 and (st[P_KINDS_OWNED + p] >> k) & 1:
        return False
    return discounted(st, p, ACTION.build, st[C_RANK + c]) <= st[P_HAND_N + p] - 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def room_is_open(st, r):
    return st[R_KEY + r] != CLOSED


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def peasant_limit(st, p):
    """BI-N3: 1 or 2 peasants per bribe, up to the Brewery's limit."""
    return st[P_PEAS_LIMIT + p]


@njit(cache=True, error_model="numpy", _nrt=False)
def action_feasible(st, p, action):
    """Whether ``p`` has at least one legal way to take ``action`` now."""
    hand_n = st[P_HAND_N + p]
    if action == ACTION.passing:
        return True
    if not may(st, p, action):
        return False
    if action == ACTION.bribe or action == ACTION.kill:
        if st[G_BISTRO_N] > 0:
            return True  # a Bistro peasant: free bribe (BI-N3), rank-0 kill (BI-N5)
        for r in range(NROOMS):
            c = st[R_CARD + r]
            if c >= 0 and discounted(st, p, action, st[C_RANK + c]) <= hand_n:
                return True
        return False
    if action == ACTION.build:
        base = LISTS + (L_HAND + p) * MAXC
        for i in range(hand_n):
            if can_build(st, p, st[base + i]):
                return True
        return False
    # bury: an own corpse the player can pay for, and somewhere to put it
    if total_free_space(st) == 0:
        return False
    base = LISTS + (L_CORPSE + p) * MAXC
    for i in range(st[LIST_N + L_CORPSE + p]):
        c = st[base + i]
        raw = 0 if st[C_TYPE + c] == CTYPE.peasant else st[C_RANK + c]
        if discounted(st, p, ACTION.bury, raw) <= hand_n:
            return True
    return False


@njit(cache=True, error_model="numpy", _nrt=False)
def launder_range(st, p):
    """BI-N7: (most cheques that may be cashed, most cheques that may be bought).

    (0, 0) for a seat whose run config forbids laundering (restricted play)."""
    if not may(st, p, ACTION.passing):
        return 0, 0
    cash = st[P_CASH + p]
    cash_out = min(st[P_CHEQUES + p], (st[G_CAP] - cash) // 10)
    if cash_out < 0:
        cash_out = 0
    return cash_out, cash // 10


@njit(cache=True, error_model="numpy", _nrt=False)
def police_in_inn(st):
    """BI-M1: enough police travellers in the rooms for an investigation (printed rules: at
    least one; ``rules.police_to_investigate``)."""
    return st[G_INN_POLICE] >= st[G_POLICE_MIN]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def is_white(st, r):
    return st[R_KEY + r] == WHITE


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room_ok(st, r):
    """Room Service (BI-C5, BI-V12): a token goes next to the key of an open room; with
    ``room_service_per_room = 1`` (the default) only on a room that holds no token yet."""
    if r < 0 or r >= NROOMS or st[R_KEY + r] == CLOSED:
        return False
    if st[G_RS_ANY] != 0:
        return True
    for q in range(MAXP):
        if st[R_TOKENS + r * MAXP + q] != 0:
            return False
    return True


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def list_token_rooms(st, off):
    """The rooms a Room-Service token may go to now (``token_room_ok``); return the count."""
    n = 0
    for r in range(NROOMS):
        if token_room_ok(st, r):
            st[off + n] = r
            n += 1
    return n
