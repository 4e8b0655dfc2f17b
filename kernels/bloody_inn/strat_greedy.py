"""``greedy``: takes the choice worth the most francs now.

Each candidate action is valued in francs: money it brings this turn (burial pocket
money, on-build cash, all capped at the wealth cap), minus the accomplices it costs
(cards whose affinity matches come back and cost nothing), plus a one-step view of what
a corpse, a burial place or an accomplice is worth and of the fine a corpse risks
tonight.  Ties are broken at random from the game's stream.  Parameters (``pr`` row):
"""

from numba import njit

from kernels.sigs import PR, ST, I, sig

from ..index import nowrap
from . import layout as L
from .legal import (
    can_build,
    dest_owner,
    discounted,
    free_space,
    launder_range,
    list_burial_places,
    list_corpses,
    list_hand,
    list_token_rooms,
    may,
    token_room_ok,
)
from .policy_tools import empty_open_rooms, has_multi, rand, white_rooms
from .strat_fines import best_fine_cheques

#: (name, default, meaning) of the parameters, in ``pr`` order.
PARAMS = (
    ("card_value", 1.0, "francs lost per discarded accomplice (peasants: peasant_value)"),
    ("peasant_value", 0.3, "francs lost per discarded peasant"),
    ("corpse_share", 0.6, "share of the pocket money a fresh corpse is worth now"),
    ("police_risk", 1.0, "weight of the 10 F fine a corpse risks tonight"),
    ("capacity_value", 2.0, "francs per burial place an annex adds"),
    ("accomplice_value", 1.5, "francs an accomplice in hand is worth"),
    ("launder_above", 30.0, "cash kept before spare tens become cheques when passing"),
    ("keep_max", 6.0, "most accomplices kept at wages"),
)

_NEG = -1e18


@njit(sig(ST, PR, I, I), cache=True, error_model="numpy", _nrt=False)
def _prm(st, pr, p, i):
    return pr[nowrap(st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM + i)]


@njit(cache=True, error_model="numpy", _nrt=False)
def _loss(st, pr, p, c, action):
    """Francs lost by paying with card ``c`` for ``action`` (BI-N2 affinity returns)."""
    if st[nowrap(L.C_AFF + c)] == action or (action == L.ACTION.bury and st[nowrap(L.P_CHAPEL + p)] != 0):
        return 0.0
    if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant:
        return _prm(st, pr, p, 1)
    return _prm(st, pr, p, 0) + 0.01 * st[nowrap(L.C_RANK + c)]


@njit(sig(ST, PR, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def _pay_loss(st, pr, p, action, cost, exclude):
    """Loss of the ``cost`` cheapest cards of the hand (selection, hands are small)."""
    if cost <= 0:
        return 0.0
    h = list_hand(st, p, L.S_C)
    total = 0.0
    for _ in range(cost):
        best = -1
        bv = 1e18
        for j in range(h):
            c = st[nowrap(L.S_C + j)]
            if c < 0 or c == exclude:
                continue
            v = _loss(st, pr, p, c, action)
            if v < bv:
                bv = v
                best = j
        if best < 0:
            return 1e9
        total += bv
        st[nowrap(L.S_C + best)] = -1
    return total


@njit(cache=True, error_model="numpy", _nrt=False)
def _capped(st, p, amount):
    room = st[L.G_CAP] - st[nowrap(L.P_CASH + p)]
    return float(amount if amount < room else (room if room > 0 else 0))


@njit(cache=True, error_model="numpy", _nrt=False)
def _police_count(st):
    n = 0
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c >= 0 and st[nowrap(L.C_TYPE + c)] == L.CTYPE.police:
            n += 1
    return n


@njit(sig(ST, I, I), cache=True, error_model="numpy", _nrt=False)
def _best_dest(st, p, upto):
    """Best burial place for a corpse: own (full pocket money) before others' (half)."""
    n = list_burial_places(st, L.S_B)
    best = 0
    found = 0
    for j in range(n):
        d = st[nowrap(L.S_B + j)]
        left = free_space(st, d)
        for i in range(upto):
            if st[nowrap(L.D_DEST + i)] == d:
                left -= 1
        if left <= 0:
            continue
        own = 1 if dest_owner(st, d) == p else 0
        if found == 0 or own > found - 1:
            best = d
            found = 1 + own
    return best, found


@njit(cache=True, error_model="numpy", _nrt=False)
def _effect_value(st, k):
    v = 0.0
    if st[nowrap(L.K_DISCOUNT_ACT + k)] >= 0:
        v += 2.0
    if st[nowrap(L.K_MULTI + k)] >= 0:
        v += 2.0
    v += 2.0 * st[nowrap(L.K_WAGE_FREE + k)] + 3.0 * st[nowrap(L.K_LEAVE_INCOME + k)]
    if st[nowrap(L.K_ROOM_SERVICE + k)] != 0:
        v += 3.0
    if st[nowrap(L.K_END_COLOUR + k)] >= 0:
        v += 4.0
    if st[nowrap(L.K_END_CHEQUE + k)] > 0:
        v += 3.0
    if st[nowrap(L.K_MONK + k)] != 0:
        v += 2.0
    if st[nowrap(L.K_CHAPEL + k)] != 0 or st[nowrap(L.K_PEASANT_LIMIT + k)] > 0:
        v += 1.0
    return v


@njit(cache=True, error_model="numpy", _nrt=False)
def place(st, pr, p, card):
    """Room-Service income now, and own rooms for the travellers worth keeping alive."""
    n = empty_open_rooms(st, L.S_A)
    rank = st[nowrap(L.C_RANK + card)]
    best = st[L.S_A]
    bv = _NEG
    for j in range(n):
        r = st[nowrap(L.S_A + j)]
        v = 0.0
        for q in range(st[L.G_NP]):
            t = st[nowrap(L.R_TOKENS + r * L.MAXP + q)]
            if q == p:
                v += t * rank
            else:
                v -= 0.5 * t * rank
        if st[nowrap(L.R_KEY + r)] == p:
            v += 1.0
        v += 0.001 * rand(st, 1000)
        if v > bv:
            bv = v
            best = r
    return best


@njit(cache=True, error_model="numpy", _nrt=False)
def action(st, pr, p):
    hand_n = st[nowrap(L.P_HAND_N + p)]
    police = _police_count(st)
    n_corpses = st[nowrap(L.P_CORPSE_N + p)]
    risk = st[L.G_FINE] * _prm(st, pr, p, 3)  # BI-M1: 10 F per corpse printed
    best_v = 0.0
    best_a = L.ACTION.passing
    best_t = -1
    best_d = 0
    # -- bury (BI-N6)
    if n_corpses > 0 and may(st, p, L.ACTION.bury):
        m = list_corpses(st, p, L.S_A)
        for j in range(m):
            c = st[nowrap(L.S_A + j)]
            raw = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
            cost = discounted(st, p, L.ACTION.bury, raw)
            if cost > hand_n:
                continue
            d, found = _best_dest(st, p, 0)
            if found == 0:
                break
            pocket = st[nowrap(L.C_POCKET + c)]
            gain = _capped(st, p, pocket if found == 2 else pocket - pocket // 2)
            v = gain - _pay_loss(st, pr, p, L.ACTION.bury, cost, -1)
            if police > 0:
                v += risk
            v += 0.001 * rand(st, 1000)
            if v > best_v:
                best_v, best_a, best_t, best_d = v, L.ACTION.bury, c, d
    # -- build (BI-N4)
    h = list_hand(st, p, L.S_A)
    for j in range(h):
        c = st[nowrap(L.S_A + j)]
        if not can_build(st, p, c):
            continue
        k = st[nowrap(L.C_KIND + c)]
        cost = discounted(st, p, L.ACTION.build, st[nowrap(L.C_RANK + c)])
        v = _capped(st, p, st[nowrap(L.K_BUILD_CASH + k)]) + _prm(st, pr, p, 4) * st[nowrap(L.C_RANK + c)]
        v += _effect_value(st, k) - _prm(st, pr, p, 5)
        v -= _pay_loss(st, pr, p, L.ACTION.build, cost, c)
        v += 0.001 * rand(st, 1000)
        if v > best_v:
            best_v, best_a, best_t = v, L.ACTION.build, c
    # -- kill (BI-N5) and bribe (BI-N3) of travellers in the inn
    space = list_burial_places(st, L.S_B) > 0
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c < 0:
            continue
        is_police = st[nowrap(L.C_TYPE + c)] == L.CTYPE.police
        lifts = is_police and police == 1  # the last officer: no investigation
        cost = discounted(st, p, L.ACTION.kill, st[nowrap(L.C_RANK + c)])
        if cost <= hand_n and may(st, p, L.ACTION.kill):
            v = _prm(st, pr, p, 2) * st[nowrap(L.C_POCKET + c)] if space else 0.0
            if lifts:
                v += risk * n_corpses
            elif police > 0:
                v -= risk
            v -= _pay_loss(st, pr, p, L.ACTION.kill, cost, -1)
            v += 0.001 * rand(st, 1000)
            if v > best_v:
                best_v, best_a, best_t = v, L.ACTION.kill, c
        cost = discounted(st, p, L.ACTION.bribe, st[nowrap(L.C_RANK + c)])
        if cost <= hand_n and may(st, p, L.ACTION.bribe):
            v = _prm(st, pr, p, 5) + 0.1 * st[nowrap(L.K_BUILD_CASH + st[nowrap(L.C_KIND + c)])]
            if lifts:
                v += risk * n_corpses
            v -= _pay_loss(st, pr, p, L.ACTION.bribe, cost, -1)
            v += 0.001 * rand(st, 1000)
            if v > best_v:
                best_v, best_a, best_t = v, L.ACTION.bribe, c
    # -- the Bistro: a free peasant corpse or free peasant accomplices
    if st[L.G_BISTRO_N] > 0:
        v = (_prm(st, pr, p, 2) * 4.0 if space else 0.0) - (risk if police > 0 else 0.0)
        if v > best_v and may(st, p, L.ACTION.kill):
            best_v, best_a, best_t = v, L.ACTION.kill, -2
        v = 0.5 * min(st[nowrap(L.P_PEAS_LIMIT + p)], st[L.G_BISTRO_N])
        if v > best_v and may(st, p, L.ACTION.bribe):
            best_v, best_a, best_t = v, L.ACTION.bribe, -2
    st[L.D_ACTION] = best_a
    if best_a == L.ACTION.passing:
        cash = st[nowrap(L.P_CASH + p)]
        cash_out, cash_in = launder_range(st, p)
        above = cash - int(_prm(st, pr, p, 6))
        k = 0
        if above > 0:
            k = (above + 9) // 10
            if k > cash_in:
                k = cash_in
        elif cash < hand_n and cash_out > 0:
            k = -1  # cash a cheque to pay the wages
        st[L.D_LAUNDER] = k
        return
    if best_t == -2:
        st[L.D_PEASANTS] = 1
        st[L.D_NT] = min(st[nowrap(L.P_PEAS_LIMIT + p)], st[L.G_BISTRO_N]) if best_a == L.ACTION.bribe else 1
        return
    st[L.D_T] = best_t
    st[L.D_NT] = 1
    st[L.D_DEST] = best_d
    if best_a == L.ACTION.bury and has_multi(st, p, L.ACTION.bury):
        _extend_bury(st, pr, p)
    elif best_a == L.ACTION.kill and has_multi(st, p, L.ACTION.kill):
        _extend_kill(st, pr, p)


@njit(cache=True, error_model="numpy", _nrt=False)
def _extend_bury(st, pr, p):
    """Crypt: add further corpses while each pays for itself."""
    hand_n = st[nowrap(L.P_HAND_N + p)]
    m = list_corpses(st, p, L.S_A)
    raw = st[nowrap(L.C_RANK + st[L.D_T])] if st[nowrap(L.C_TYPE + st[L.D_T])] != L.CTYPE.peasant else 0
    for j in range(m):
        c = st[nowrap(L.S_A + j)]
        if c == st[L.D_T]:
            continue
        r2 = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
        cost_old = discounted(st, p, L.ACTION.bury, raw)
        cost_new = discounted(st, p, L.ACTION.bury, raw + r2)
        if cost_new > hand_n:
            continue
        i = st[L.D_NT]
        d, found = _best_dest(st, p, i)
        if found == 0:
            break
        pocket = st[nowrap(L.C_POCKET + c)]
        gain = pocket if found == 2 else pocket - pocket // 2
        extra = _pay_loss(st, pr, p, L.ACTION.bury, cost_new, -1) - _pay_loss(
            st, pr, p, L.ACTION.bury, cost_old, -1
        )
        if gain - extra > 0:
            st[nowrap(L.D_T + i)] = c
            st[nowrap(L.D_DEST + i)] = d
            st[L.D_NT] = i + 1
            raw += r2


@njit(cache=True, error_model="numpy", _nrt=False)
def _extend_kill(st, pr, p):
    """Butcher's Shop: add further travellers while each pays for itself."""
    hand_n = st[nowrap(L.P_HAND_N + p)]
    raw = st[nowrap(L.C_RANK + st[L.D_T])]
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c < 0 or c == st[L.D_T]:
            continue
        cost_old = discounted(st, p, L.ACTION.kill, raw)
        cost_new = discounted(st, p, L.ACTION.kill, raw + st[nowrap(L.C_RANK + c)])
        if cost_new > hand_n:
            continue
        extra = _pay_loss(st, pr, p, L.ACTION.kill, cost_new, -1) - _pay_loss(
            st, pr, p, L.ACTION.kill, cost_old, -1
        )
        if _prm(st, pr, p, 2) * st[nowrap(L.C_POCKET + c)] - extra > 0:
            st[nowrap(L.D_T + st[L.D_NT])] = c
            st[L.D_NT] += 1
            raw += st[nowrap(L.C_RANK + c)]


@njit(sig(ST, PR, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def payment(st, pr, p, action_id, cost, exclude):
    """The ``cost`` cheapest cards: returning affinities, then peasants, then low ranks."""
    h = list_hand(st, p, L.S_B)
    for i in range(cost):
        best = -1
        bv = 1e18
        for j in range(h):
            c = st[nowrap(L.S_B + j)]
            if c < 0 or c == exclude:
                continue
            v = _loss(st, pr, p, c, action_id) + 0.0001 * c
            if v < bv:
                bv = v
                best = j
        st[nowrap(L.D_PAY + i)] = st[nowrap(L.S_B + best)]
        st[nowrap(L.S_B + best)] = -1
    st[L.D_NPAY] = cost


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room(st, pr, p):
    """Room Service on an own room if one may take it, else the first room that may (BI-V12)."""
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] == p and token_room_ok(st, r):
            return r
    list_token_rooms(st, L.S_A)
    return st[L.S_A]


@njit(sig(ST, PR, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def fine(st, pr, p, tens, lo, hi, final):
    """BI-M1: the split that keeps cash for the income cap and the wages (``strat_fines``)."""
    return best_fine_cheques(st, p, tens, lo, hi, final)


@njit(cache=True, error_model="numpy", _nrt=False)
def monk_room(st, pr, p):
    white_rooms(st, L.S_A)
    return st[L.S_A]


@njit(cache=True, error_model="numpy", _nrt=False)
def _keep_value(st, c):
    if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant:
        return 1.0
    v = 2.0 if st[nowrap(L.C_AFF + c)] >= 0 else 1.5
    return v + 0.1 * st[nowrap(L.K_BUILD_CASH + st[nowrap(L.C_KIND + c)])] + 0.01 * st[nowrap(L.C_RANK + c)]


@njit(cache=True, error_model="numpy", _nrt=False)
def wages(st, pr, p, max_keep):
    """Keep the most useful accomplices, at most ``keep_max`` and what can be paid."""
    h = list_hand(st, p, L.S_B)
    keep = min(h, max_keep)
    if st[L.G_VOLUNTARY] != 0:
        keep = min(keep, int(_prm(st, pr, p, 7)))
    n = 0
    for _ in range(h - keep):
        worst = -1
        wv = 1e18
        for j in range(h):
            c = st[nowrap(L.S_B + j)]
            if c < 0:
                continue
            v = _keep_value(st, c)
            if v < wv:
                wv = v
                worst = j
        st[nowrap(L.D_T + n)] = st[nowrap(L.S_B + worst)]
        st[nowrap(L.S_B + worst)] = -1
        n += 1
    st[L.D_NT] = n
