"""What a player may do: costs, targets, capacities (BI-N2..BI-N7).

These queries read only public information plus the asking player's own hand, so
strategies can use them freely.
"""

from numba import njit

from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def may(st, p, action):
    """Restricted play: whether ``p``'s run config lets it take ``action`` at all.

    ``ACTION.passing`` asks about laundering (BI-N7); the pass without laundering is
    always legal.  Every strategy generates its choices through this and ``can_build``,
    so a restricted seat is only ever offered the remaining legal choices.
    """
    return (st[nowrap(L.P_FORBID + p)] >> action) & 1 == 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def may_build_kind(st, p, k):
    """Restricted play: ``p`` may build annexes and is not barred from kind ``k``."""
    return may(st, p, L.ACTION.build) and (st[nowrap(L.P_NOBUILD + p)] >> k) & 1 == 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def discounted(st, p, action, raw_cost):
    """BI-N2: a discount annex lowers the cost by 1 (stacked duplicates by more), not below 0."""
    c = raw_cost - st[nowrap(L.P_DISCOUNT + p * L.NACT + action)]
    return c if c > 0 else 0


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def copy_list(st, l, off):
    """Copy card list ``l`` to ``st[off:]``; return its length."""
    n = st[nowrap(L.LIST_N + l)]
    base = L.LISTS + l * L.MAXC
    for i in range(n):
        st[nowrap(off + i)] = st[nowrap(base + i)]
    return n


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def list_hand(st, p, off):
    """Write player ``p``'s hand to ``st[off:]``; return the count."""
    return copy_list(st, L.L_HAND + p, off)


@njit(cache=True, error_model="numpy", _nrt=False)
def list_corpses(st, p, off):
    """Player ``p``'s unburied corpses to ``st[off:]``; return the count."""
    return copy_list(st, L.L_CORPSE + p, off)


@njit(cache=True, error_model="numpy", _nrt=False)
def list_bistro(st, off):
    """Peasants in the Bistro to ``st[off:]``; return the count."""
    return copy_list(st, L.L_BISTRO, off)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def annex_capacity(st, a):
    """BI-C3: an annex holds as many corpses as its rank."""
    return st[nowrap(L.C_RANK + a)]


@njit(cache=True, error_model="numpy", _nrt=False)
def free_space(st, dest):
    """Free burial places of a destination: an annex card, or ``BARN_SLOT - owner``."""
    if dest < 0:
        q = L.BARN_SLOT - dest
        return 1 - st[nowrap(L.P_BARN_FILL + q)]  # BI-C4: the Barn holds one corpse
    return annex_capacity(st, dest) - st[nowrap(L.C_FILL + dest)]


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def list_burial_places(st, off):
    """Every destination with free capacity, any owner (BI-N6); return the count."""
    n = 0
    for q in range(st[L.G_NP]):
        if st[nowrap(L.P_BARN_FILL + q)] < 1:
            st[nowrap(off + n)] = L.BARN_SLOT - q
            n += 1
    for q in range(st[L.G_NP]):
        base = L.LISTS + (L.L_ANNEX + q) * L.MAXC
        for i in range(st[nowrap(L.LIST_N + L.L_ANNEX + q)]):
            c = st[nowrap(base + i)]
            if annex_capacity(st, c) - st[nowrap(L.C_FILL + c)] > 0:
                st[nowrap(off + n)] = c
                n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def total_free_space(st):
    """Free burial places over every annex and Barn (kept by setup, build and bury)."""
    return st[L.G_FREE_SPACE]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def dest_owner(st, dest):
    if dest < 0:
        return L.BARN_SLOT - dest
    return st[nowrap(L.C_LOC + dest)] - L.LOC.annex


@njit(cache=True, error_model="numpy", _nrt=False)
def can_build(st, p, c):
    """BI-N4/BI-C3/BI-V3: ``c`` is in ``p``'s hand, can be an annex, is not owned already
    (unique annexes) and ``p`` can pay its rank with other cards."""
    if st[nowrap(L.C_LOC + c)] != L.LOC.hand + p:
        return False
    k = st[nowrap(L.C_KIND + c)]
    if st[nowrap(L.K_ANNEXABLE + k)] == 0 or not may_build_kind(st, p, k):
        return False
    if st[L.G_UNIQUE] != 0 and (st[nowrap(L.P_KINDS_OWNED + p)] >> k) & 1:
        return False
    return discounted(st, p, L.ACTION.build, st[nowrap(L.C_RANK + c)]) <= st[nowrap(L.P_HAND_N + p)] - 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def room_is_open(st, r):
    return st[nowrap(L.R_KEY + r)] != L.CLOSED


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def peasant_limit(st, p):
    """BI-N3: 1 or 2 peasants per bribe, up to the Brewery's limit."""
    return st[nowrap(L.P_PEAS_LIMIT + p)]


@njit(cache=True, error_model="numpy", _nrt=False)
def action_feasible(st, p, action):
    """Whether ``p`` has at least one legal way to take ``action`` now."""
    hand_n = st[nowrap(L.P_HAND_N + p)]
    if action == L.ACTION.passing:
        return True
    if not may(st, p, action):
        return False
    if action == L.ACTION.bribe or action == L.ACTION.kill:
        if st[L.G_BISTRO_N] > 0:
            return True  # a Bistro peasant: free bribe (BI-N3), rank-0 kill (BI-N5)
        for r in range(L.NROOMS):
            c = st[nowrap(L.R_CARD + r)]
            if c >= 0 and discounted(st, p, action, st[nowrap(L.C_RANK + c)]) <= hand_n:
                return True
        return False
    if action == L.ACTION.build:
        base = L.LISTS + (L.L_HAND + p) * L.MAXC
        for i in range(hand_n):
            if can_build(st, p, st[nowrap(base + i)]):
                return True
        return False
    # bury: an own corpse the player can pay for, and somewhere to put it
    if total_free_space(st) == 0:
        return False
    base = L.LISTS + (L.L_CORPSE + p) * L.MAXC
    for i in range(st[nowrap(L.LIST_N + L.L_CORPSE + p)]):
        c = st[nowrap(base + i)]
        raw = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
        if discounted(st, p, L.ACTION.bury, raw) <= hand_n:
            return True
    return False


@njit(cache=True, error_model="numpy", _nrt=False)
def launder_range(st, p):
    """BI-N7: (most cheques that may be cashed, most cheques that may be bought).

    (0, 0) for a seat whose run config forbids laundering (restricted play)."""
    if not may(st, p, L.ACTION.passing):
        return 0, 0
    cash = st[nowrap(L.P_CASH + p)]
    cash_out = min(st[nowrap(L.P_CHEQUES + p)], (st[L.G_CAP] - cash) // 10)
    if cash_out < 0:
        cash_out = 0
    return cash_out, cash // 10


@njit(cache=True, error_model="numpy", _nrt=False)
def police_in_inn(st):
    """BI-M1: enough police travellers in the rooms for an investigation (printed rules: at
    least one; ``rules.police_to_investigate``)."""
    return st[L.G_INN_POLICE] >= st[L.G_POLICE_MIN]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def is_white(st, r):
    return st[nowrap(L.R_KEY + r)] == L.WHITE


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room_ok(st, r):
    """Room Service (BI-C5, BI-V12): a token goes next to the key of an open room; with
    ``room_service_per_room = 1`` (the default) only on a room that holds no token yet."""
    if r < 0 or r >= L.NROOMS or st[nowrap(L.R_KEY + r)] == L.CLOSED:
        return False
    if st[L.G_RS_ANY] != 0:
        return True
    for q in range(L.MAXP):
        if st[nowrap(L.R_TOKENS + r * L.MAXP + q)] != 0:
            return False
    return True


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def list_token_rooms(st, off):
    """The rooms a Room-Service token may go to now (``token_room_ok``); return the count."""
    n = 0
    for r in range(L.NROOMS):
        if token_room_ok(st, r):
            st[nowrap(off + n)] = r
            n += 1
    return n
