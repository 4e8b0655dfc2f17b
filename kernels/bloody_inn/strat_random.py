"""``random``: uniform over the legal choices at every decision — the rules fuzzer.

Hierarchical: first an action type uniformly among the feasible ones, then a target
uniformly among the legal ones, then a uniformly random payment.  Multi-target annexes
add each further affordable target with probability 1/2.
"""

from numba import njit

from kernels.sigs import PR, ST, I, sig

from .layout import (
    ACTION,
    C_RANK,
    C_TYPE,
    CTYPE,
    D_ACTION,
    D_DEST,
    D_LAUNDER,
    D_NPAY,
    D_NT,
    D_PAY,
    D_PEASANTS,
    D_T,
    G_BISTRO_N,
    G_FREE_SPACE,
    G_N_EMPTY,
    G_VOLUNTARY,
    L_CORPSE,
    L_HAND,
    LISTS,
    MAXC,
    NACT,
    NROOMS,
    P_CORPSE_N,
    P_DISCOUNT,
    P_HAND_N,
    P_PEAS_LIMIT,
    R_CARD,
    R_EMPTY,
    S_A,
    S_B,
    S_C,
    S_D,
    S_E,
)
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
    return st[R_EMPTY + rand(st, st[G_N_EMPTY])]


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def _pick_dest(st, i):
    """A uniformly random destination with room left for the i-th corpse of this action."""
    n = list_burial_places(st, S_C)
    m = 0
    for j in range(n):
        d = st[S_C + j]
        if dest_room_left(st, d, i) > 0:
            st[S_C + m] = d
            m += 1
    if m == 0:
        return 0, False
    return st[S_C + rand(st, m)], True


@njit(cache=True, error_model="numpy", _nrt=False)
def action(st, pr, p):
    """One pass over the rooms, the hand and the corpses lists every legal target of each
    action; then an action uniformly among those with a target, then a target."""
    hand_n = st[P_HAND_N + p]
    bistro = st[G_BISTRO_N]
    db = st[P_DISCOUNT + p * NACT + ACTION.bribe]
    dk = st[P_DISCOUNT + p * NACT + ACTION.kill]
    nb = 0  # bribable travellers -> S_B
    nk = 0  # killable travellers -> S_C
    for r in range(NROOMS):
        c = st[R_CARD + r]
        if c >= 0:
            rank = st[C_RANK + c]
            if rank - db <= hand_n:
                st[S_B + nb] = c
                nb += 1
            if rank - dk <= hand_n:
                st[S_C + nk] = c
                nk += 1
    nbuild = 0  # buildable cards in hand -> S_D
    hb = LISTS + (L_HAND + p) * MAXC
    for i in range(hand_n):
        c = st[hb + i]
        if can_build(st, p, c):
            st[S_D + nbuild] = c
            nbuild += 1
    nbury = 0  # affordable own corpses -> S_E
    if st[G_FREE_SPACE] > 0:
        cb = LISTS + (L_CORPSE + p) * MAXC
        for i in range(st[P_CORPSE_N + p]):
            c = st[cb + i]
            raw = 0 if st[C_TYPE + c] == CTYPE.peasant else st[C_RANK + c]
            if discounted(st, p, ACTION.bury, raw) <= hand_n:
                st[S_E + nbury] = c
                nbury += 1
    n = 0
    if (nb > 0 or bistro > 0) and may(st, p, ACTION.bribe):
        st[S_A + n] = ACTION.bribe
        n += 1
    if nbuild > 0:
        st[S_A + n] = ACTION.build
        n += 1
    if (nk > 0 or bistro > 0) and may(st, p, ACTION.kill):
        st[S_A + n] = ACTION.kill
        n += 1
    if nbury > 0 and may(st, p, ACTION.bury):
        st[S_A + n] = ACTION.bury
        n += 1
    st[S_A + n] = ACTION.passing
    n += 1
    a = st[S_A + rand(st, n)]
    st[D_ACTION] = a
    if a == ACTION.bribe or a == ACTION.kill:
        off = S_B if a == ACTION.bribe else S_C
        m = nb if a == ACTION.bribe else nk
        k = rand(st, m + (1 if bistro > 0 else 0))
        if k == m:  # the Bistro option
            st[D_PEASANTS] = 1
            if a == ACTION.bribe:
                lim = min(st[P_PEAS_LIMIT + p], bistro)
                st[D_NT] = 1 + rand(st, lim)
            else:
                st[D_NT] = 1
            return
        pick = st[off + k]
        st[D_T] = pick
        st[D_NT] = 1
        if has_multi(st, p, a) and m > 1:
            shuffle_prefix(st, off, m, m)
            raw = st[C_RANK + pick]
            for j in range(m):
                c = st[off + j]
                if c == pick or rand(st, 2) == 0:
                    continue
                if discounted(st, p, a, raw + st[C_RANK + c]) <= hand_n:
                    st[D_T + st[D_NT]] = c
                    st[D_NT] += 1
                    raw += st[C_RANK + c]
        return
    if a == ACTION.build:
        st[D_T] = st[S_D + rand(st, nbuild)]
        st[D_NT] = 1
        return
    if a == ACTION.bury:
        first = st[S_E + rand(st, nbury)]
        st[D_T] = first
        st[D_NT] = 1
        d, ok = _pick_dest(st, 0)
        st[D_DEST] = d
        if has_multi(st, p, ACTION.bury) and nbury > 1:
            shuffle_prefix(st, S_E, nbury, nbury)
            raw = 0 if st[C_TYPE + first] == CTYPE.peasant else st[C_RANK + first]
            for j in range(nbury):
                c = st[S_E + j]
                if c == first or rand(st, 2) == 0:
                    continue
                r2 = 0 if st[C_TYPE + c] == CTYPE.peasant else st[C_RANK + c]
                if discounted(st, p, ACTION.bury, raw + r2) > hand_n:
                    continue
                i = st[D_NT]
                d, ok = _pick_dest(st, i)
                if not ok:
                    break
                st[D_T + i] = c
                st[D_DEST + i] = d
                st[D_NT] = i + 1
                raw += r2
        return
    cash_out, cash_in = launder_range(st, p)
    st[D_LAUNDER] = rand(st, cash_out + cash_in + 1) - cash_out


@njit(sig(ST, PR, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def payment(st, pr, p, action_id, cost, exclude):
    h = list_hand(st, p, S_B)
    m = 0
    for j in range(h):
        c = st[S_B + j]
        if c != exclude:
            st[S_B + m] = c
            m += 1
    shuffle_prefix(st, S_B, m, cost)
    for i in range(cost):
        st[D_PAY + i] = st[S_B + i]
    st[D_NPAY] = cost


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room(st, pr, p):
    """Uniform over the rooms a token may go to (BI-V12)."""
    n = list_token_rooms(st, S_A)
    return st[S_A + rand(st, n)]


@njit(sig(ST, PR, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def fine(st, pr, p, tens, lo, hi, final):
    """BI-M1: cheques paid, uniform over the legal splits ``lo..hi``."""
    return lo + rand(st, hi - lo + 1)


@njit(cache=True, error_model="numpy", _nrt=False)
def monk_room(st, pr, p):
    n = white_rooms(st, S_A)
    return st[S_A + rand(st, n)]


@njit(cache=True, error_model="numpy", _nrt=False)
def wages(st, pr, p, max_keep):
    """Cards to dismiss into ``D_T``: with voluntary dismissal each card is kept with
    probability 1/2; at most ``max_keep`` are kept, the unpaid ones chosen at random."""
    h = list_hand(st, p, S_B)
    shuffle_prefix(st, S_B, h, h)
    keep = h if h < max_keep else max_keep
    if st[G_VOLUNTARY] != 0:
        k = 0
        for j in range(keep):
            if rand(st, 2) == 1:
                t = st[S_B + k]
                st[S_B + k] = st[S_B + j]
                st[S_B + j] = t
                k += 1
        keep = k
    n = 0
    for j in range(keep, h):
        st[D_T + n] = st[S_B + j]
        n += 1
    st[D_NT] = n
