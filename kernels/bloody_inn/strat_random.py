"""``random``: uniform over the legal choices at every decision — the rules fuzzer.

Hierarchical: first an action type uniformly among the feasible ones, then a target
uniformly among the legal ones, then a uniformly random payment.  Multi-target annexes
add each further affordable target with probability 1/2.
"""

from numba import njit

from kernels.sigs import PR, ST, I, sig

from ..index import nowrap
from . import layout as L
from .legal import (
    can_build,
    discounted,
    launder_range,
    list_burial_places,
    list_hand,
    list_token_rooms,
    may,
)
from .policy_tools import (
    dest_room_left,
    has_multi,
    rand,
    shuffle_prefix,
    white_rooms,
)


@njit(cache=True, error_model="numpy", _nrt=False)
def place(st, pr, p, card):
    return st[nowrap(L.R_EMPTY + rand(st, st[L.G_N_EMPTY]))]


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def _pick_dest(st, i):
    """A uniformly random destination with room left for the i-th corpse of this action."""
    n = list_burial_places(st, L.S_C)
    m = 0
    for j in range(n):
        d = st[nowrap(L.S_C + j)]
        if dest_room_left(st, d, i) > 0:
            st[nowrap(L.S_C + m)] = d
            m += 1
    if m == 0:
        return 0, False
    return st[nowrap(L.S_C + rand(st, m))], True


@njit(cache=True, error_model="numpy", _nrt=False)
def action(st, pr, p):
    """One pass over the rooms, the hand and the corpses lists every legal target of each
    action; then an action uniformly among those with a target, then a target."""
    hand_n = st[nowrap(L.P_HAND_N + p)]
    bistro = st[L.G_BISTRO_N]
    db = st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.bribe)]
    dk = st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.kill)]
    nb = 0  # bribable travellers -> S_B
    nk = 0  # killable travellers -> S_C
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c >= 0:
            rank = st[nowrap(L.C_RANK + c)]
            if rank - db <= hand_n:
                st[nowrap(L.S_B + nb)] = c
                nb += 1
            if rank - dk <= hand_n:
                st[nowrap(L.S_C + nk)] = c
                nk += 1
    nbuild = 0  # buildable cards in hand -> S_D
    hb = L.LISTS + (L.L_HAND + p) * L.MAXC
    for i in range(hand_n):
        c = st[nowrap(hb + i)]
        if can_build(st, p, c):
            st[nowrap(L.S_D + nbuild)] = c
            nbuild += 1
    nbury = 0  # affordable own corpses -> S_E
    if st[L.G_FREE_SPACE] > 0:
        cb = L.LISTS + (L.L_CORPSE + p) * L.MAXC
        for i in range(st[nowrap(L.P_CORPSE_N + p)]):
            c = st[nowrap(cb + i)]
            raw = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
            if discounted(st, p, L.ACTION.bury, raw) <= hand_n:
                st[nowrap(L.S_E + nbury)] = c
                nbury += 1
    n = 0
    if (nb > 0 or bistro > 0) and may(st, p, L.ACTION.bribe):
        st[nowrap(L.S_A + n)] = L.ACTION.bribe
        n += 1
    if nbuild > 0:
        st[nowrap(L.S_A + n)] = L.ACTION.build
        n += 1
    if (nk > 0 or bistro > 0) and may(st, p, L.ACTION.kill):
        st[nowrap(L.S_A + n)] = L.ACTION.kill
        n += 1
    if nbury > 0 and may(st, p, L.ACTION.bury):
        st[nowrap(L.S_A + n)] = L.ACTION.bury
        n += 1
    st[nowrap(L.S_A + n)] = L.ACTION.passing
    n += 1
    a = st[nowrap(L.S_A + rand(st, n))]
    st[L.D_ACTION] = a
    if a == L.ACTION.bribe or a == L.ACTION.kill:
        off = L.S_B if a == L.ACTION.bribe else L.S_C
        m = nb if a == L.ACTION.bribe else nk
        k = rand(st, m + (1 if bistro > 0 else 0))
        if k == m:  # the Bistro option
            st[L.D_PEASANTS] = 1
            if a == L.ACTION.bribe:
                lim = min(st[nowrap(L.P_PEAS_LIMIT + p)], bistro)
                st[L.D_NT] = 1 + rand(st, lim)
            else:
                st[L.D_NT] = 1
            return
        pick = st[nowrap(off + k)]
        st[L.D_T] = pick
        st[L.D_NT] = 1
        if has_multi(st, p, a) and m > 1:
            shuffle_prefix(st, off, m, m)
            raw = st[nowrap(L.C_RANK + pick)]
            for j in range(m):
                c = st[nowrap(off + j)]
                if c == pick or rand(st, 2) == 0:
                    continue
                if discounted(st, p, a, raw + st[nowrap(L.C_RANK + c)]) <= hand_n:
                    st[nowrap(L.D_T + st[L.D_NT])] = c
                    st[L.D_NT] += 1
                    raw += st[nowrap(L.C_RANK + c)]
        return
    if a == L.ACTION.build:
        st[L.D_T] = st[nowrap(L.S_D + rand(st, nbuild))]
        st[L.D_NT] = 1
        return
    if a == L.ACTION.bury:
        first = st[nowrap(L.S_E + rand(st, nbury))]
        st[L.D_T] = first
        st[L.D_NT] = 1
        d, ok = _pick_dest(st, 0)
        st[L.D_DEST] = d
        if has_multi(st, p, L.ACTION.bury) and nbury > 1:
            shuffle_prefix(st, L.S_E, nbury, nbury)
            raw = 0 if st[nowrap(L.C_TYPE + first)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + first)]
            for j in range(nbury):
                c = st[nowrap(L.S_E + j)]
                if c == first or rand(st, 2) == 0:
                    continue
                r2 = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
                if discounted(st, p, L.ACTION.bury, raw + r2) > hand_n:
                    continue
                i = st[L.D_NT]
                d, ok = _pick_dest(st, i)
                if not ok:
                    break
                st[nowrap(L.D_T + i)] = c
                st[nowrap(L.D_DEST + i)] = d
                st[L.D_NT] = i + 1
                raw += r2
        return
    cash_out, cash_in = launder_range(st, p)
    st[L.D_LAUNDER] = rand(st, cash_out + cash_in + 1) - cash_out


@njit(sig(ST, PR, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def payment(st, pr, p, action_id, cost, exclude):
    h = list_hand(st, p, L.S_B)
    m = 0
    for j in range(h):
        c = st[nowrap(L.S_B + j)]
        if c != exclude:
            st[nowrap(L.S_B + m)] = c
            m += 1
    shuffle_prefix(st, L.S_B, m, cost)
    for i in range(cost):
        st[nowrap(L.D_PAY + i)] = st[nowrap(L.S_B + i)]
    st[L.D_NPAY] = cost


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room(st, pr, p):
    """Uniform over the rooms a token may go to (BI-V12)."""
    n = list_token_rooms(st, L.S_A)
    return st[nowrap(L.S_A + rand(st, n))]


@njit(sig(ST, PR, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def fine(st, pr, p, tens, lo, hi, final):
    """BI-M1: cheques paid, uniform over the legal splits ``lo..hi``."""
    return lo + rand(st, hi - lo + 1)


@njit(cache=True, error_model="numpy", _nrt=False)
def monk_room(st, pr, p):
    n = white_rooms(st, L.S_A)
    return st[nowrap(L.S_A + rand(st, n))]


@njit(cache=True, error_model="numpy", _nrt=False)
def wages(st, pr, p, max_keep):
    """Cards to dismiss into ``D_T``: with voluntary dismissal each card is kept with
    probability 1/2; at most ``max_keep`` are kept, the unpaid ones chosen at random."""
    h = list_hand(st, p, L.S_B)
    shuffle_prefix(st, L.S_B, h, h)
    keep = h if h < max_keep else max_keep
    if st[L.G_VOLUNTARY] != 0:
        k = 0
        for j in range(keep):
            if rand(st, 2) == 1:
                t = st[nowrap(L.S_B + k)]
                st[nowrap(L.S_B + k)] = st[nowrap(L.S_B + j)]
                st[nowrap(L.S_B + j)] = t
                k += 1
        keep = k
    n = 0
    for j in range(keep, h):
        st[nowrap(L.D_T + n)] = st[nowrap(L.S_B + j)]
        n += 1
    st[L.D_NT] = n
