"""``random``: uniform over the legal choices at every decision — the rules fuzzer.

Hierarchical: first an action type uniformly among the feasible ones, then a target
uniformly among the legal ones, then a uniformly random payment.  Multi-target annexes
add each further affordable target with probability 1/2.
"""
from numba import njit

from .layout import (
    ACTION, LOC, NROOMS, NACT, C_LOC, C_RANK, G_NCARDS, G_BISTRO_N, G_VOLUNTARY,
    D_ACTION, D_DEST, D_LAUNDER, D_NPAY, D_NT, D_PAY, D_PEASANTS, D_T,
    P_HAND_N, P_PEAS_LIMIT, S_A, S_B, S_C,
)
from .legal import (action_feasible, can_build, discounted, launder_range, list_burial_places,
                    list_corpses, list_hand)
from .policy_tools import (bury_raw_cost, dest_room_left, empty_open_rooms, has_multi,
                           open_rooms, rand, room_candidates, shuffle_prefix,
                           targets_raw_cost, white_rooms)


@njit(cache=True, _nrt=False)
def place(st, pr, p, card):
    n = empty_open_rooms(st, S_A)
    return st[S_A + rand(st, n)]


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def action(st, pr, p):
    n = 0
    for a in range(NACT):
        if action_feasible(st, p, a):
            st[S_A + n] = a
            n += 1
    a = st[S_A + rand(st, n)]
    st[D_ACTION] = a
    hand_n = st[P_HAND_N + p]
    if a == ACTION.bribe or a == ACTION.kill:
        m = room_candidates(st, p, a, hand_n, S_B)
        if st[G_BISTRO_N] > 0:
            st[S_B + m] = -1                   # the Bistro option
            m += 1
        pick = st[S_B + rand(st, m)]
        if pick < 0:
            st[D_PEASANTS] = 1
            if a == ACTION.bribe:
                lim = min(st[P_PEAS_LIMIT + p], st[G_BISTRO_N])
                st[D_NT] = 1 + rand(st, lim)
            else:
                st[D_NT] = 1
            return
        st[D_T] = pick
        st[D_NT] = 1
        if has_multi(st, p, a):
            m = room_candidates(st, p, a, hand_n, S_B)
            shuffle_prefix(st, S_B, m, m)
            for j in range(m):
                c = st[S_B + j]
                if c == pick or rand(st, 2) == 0:
                    continue
                st[D_T + st[D_NT]] = c
                st[D_NT] += 1
                if discounted(st, p, a, targets_raw_cost(st)) > hand_n:
                    st[D_NT] -= 1
        return
    if a == ACTION.build:
        h = list_hand(st, p, S_B)
        m = 0
        for j in range(h):
            c = st[S_B + j]
            if can_build(st, p, c):
                st[S_B + m] = c
                m += 1
        st[D_T] = st[S_B + rand(st, m)]
        st[D_NT] = 1
        return
    if a == ACTION.bury:
        h = list_corpses(st, p, S_B)
        m = 0
        for j in range(h):
            c = st[S_B + j]
            st[D_T] = c
            st[D_NT] = 1
            if discounted(st, p, ACTION.bury, bury_raw_cost(st)) <= hand_n:
                st[S_B + m] = c
                m += 1
        st[D_T] = st[S_B + rand(st, m)]
        st[D_NT] = 1
        d, ok = _pick_dest(st, 0)
        st[D_DEST] = d
        if has_multi(st, p, ACTION.bury) and m > 1:
            shuffle_prefix(st, S_B, m, m)
            for j in range(m):
                c = st[S_B + j]
                if c == st[D_T] or rand(st, 2) == 0:
                    continue
                i = st[D_NT]
                d, ok = _pick_dest(st, i)
                if not ok:
                    break
                st[D_T + i] = c
                st[D_DEST + i] = d
                st[D_NT] = i + 1
                if discounted(st, p, ACTION.bury, bury_raw_cost(st)) > hand_n:
                    st[D_NT] = i
        return
    cash_out, cash_in = launder_range(st, p)
    st[D_LAUNDER] = rand(st, cash_out + cash_in + 1) - cash_out


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def token_room(st, pr, p):
    n = open_rooms(st, S_A)
    return st[S_A + rand(st, n)]


@njit(cache=True, _nrt=False)
def monk_room(st, pr, p):
    n = white_rooms(st, S_A)
    return st[S_A + rand(st, n)]


@njit(cache=True, _nrt=False)
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
