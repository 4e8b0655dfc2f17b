"""Night: the five actions with payment, affinity returns, discounts and annex effects (BI-N).

The acting player's strategy fills the decision scratch (``D_*``); this module checks the
decision against the rules and applies it.  An illegal decision is a strategy bug: it is
recorded in ``G_ERR`` (the invariant tests require zero) and the player passes instead.
"""

import numpy as np
from numba import njit

from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L
from .legal import can_build, dest_owner, discounted, launder_range, list_token_rooms, may, token_room_ok
from .state import discard_card, gain_cash, list_card, log_event, move_card
from .strategies import ALL, ON, decide_action, decide_monk_room, decide_payment, decide_token_room

#: int64 constants for the arguments of ``_pay`` (no explicit signature: it takes the
#: lineup's policies, whose types vary; a plain ``int`` constant would be typed as a
#: literal and compile a version of its own, kernels/sigs.py)
NO_CARD = np.int64(-1)
ONE = np.int64(1)


@njit(sig(ST, I), cache=True, error_model="numpy", _nrt=False)
def _illegal(st, code):
    if st[L.G_ERR] == 0:
        st[L.G_ERR] = code
        st[L.G_ERR_ROUND] = st[L.G_ROUND]


@njit(cache=True, error_model="numpy", _nrt=False)
def _room_of(st, c):
    """Room index of a traveller in the inn, or -1."""
    if st[nowrap(L.C_LOC + c)] != L.LOC.room:
        return -1
    return st[nowrap(L.C_SLOT + c)]


@njit(cache=True, error_model="numpy", _nrt=False)
def _targets_cost(st, p, action):
    """Sum of the targets' ranks after the discount (BI-N2); -1 if a target is not legal."""
    nt = st[L.D_NT]
    if nt < 1:
        return -1
    if nt > 1 and st[nowrap(L.P_MULTI + p * L.NACT + action)] == 0:
        return -1  # BI-N3/N5/N6: several targets need Store/Butcher/Crypt
    raw = 0
    for i in range(nt):
        c = st[nowrap(L.D_T + i)]
        if c < 0 or c >= st[L.G_NCARDS]:
            return -1
        for j in range(i):
            if st[nowrap(L.D_T + j)] == c:
                return -1
        if action == L.ACTION.bury:
            if st[nowrap(L.C_LOC + c)] != L.LOC.corpse + p:
                return -1
            if st[nowrap(L.C_TYPE + c)] != L.CTYPE.peasant:
                raw += st[nowrap(L.C_RANK + c)]  # BI-N6: a peasant corpse costs 0
        else:
            if st[nowrap(L.C_LOC + c)] != L.LOC.room:  # BI-N9: hands and annexes are safe
                return -1
            raw += st[nowrap(L.C_RANK + c)]
    return discounted(st, p, action, raw)


@njit(cache=True, error_model="numpy", _nrt=False)
def _pay(st, pr, p, action, cost, exclude, nt, strats):
    """BI-N2: ask for ``cost`` cards, check them, return matching affinities to hand and
    discard the others.  Returns False (nothing paid, nothing logged) if the choice is
    illegal; otherwise the action's ``action`` event is logged before its payments.
    ``strats``: the lineup's policies (``strategies.lineup_strategies``), as in every rules
    function that asks for a decision; ``exclude`` and ``nt`` int64 (no literal constants:
    one compiled version)."""
    if cost == 0:
        log_event(st, L.EVENT.action, p, exclude, action, nt, 0)
        return True
    st[L.D_NPAY] = 0
    decide_payment(st, pr, p, action, cost, exclude, *strats)
    if st[L.D_NPAY] != cost:
        return False
    for i in range(cost):
        c = st[nowrap(L.D_PAY + i)]
        if c < 0 or c >= st[L.G_NCARDS] or c == exclude or st[nowrap(L.C_LOC + c)] != L.LOC.hand + p:
            return False
        for j in range(i):
            if st[nowrap(L.D_PAY + j)] == c:
                return False
    log_event(st, L.EVENT.action, p, exclude, action, nt, cost)
    chapel = action == L.ACTION.bury and st[nowrap(L.P_CHAPEL + p)] != 0
    for i in range(cost):
        c = st[nowrap(L.D_PAY + i)]
        back = chapel or st[nowrap(L.C_AFF + c)] == action
        log_event(st, L.EVENT.pay, p, c, 1 if back else 0, action, 0)
        if not back:
            discard_card(st, c)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def _take_from_inn(st, pr, p, action, strats):
    """Bribe (BI-N3) or kill (BI-N5) the travellers ``D_T``: check, pay, then each leaves
    its room for the player's hand (bribe) or the player's unburied corpses (kill)."""
    cost = _targets_cost(st, p, action)
    if cost < 0 or cost > st[nowrap(L.P_HAND_N + p)]:
        return False
    if not _pay(st, pr, p, action, cost, NO_CARD, st[L.D_NT], strats):
        return False
    bribing = action == L.ACTION.bribe
    for i in range(st[L.D_NT]):
        c = st[nowrap(L.D_T + i)]
        r = st[nowrap(L.C_SLOT + c)]
        st[nowrap(L.R_CARD + r)] = -1
        st[L.G_INN] &= ~(1 << r)
        st[L.G_INN_N] -= 1
        if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police:
            st[L.G_INN_POLICE] -= 1
        rank = st[nowrap(L.C_RANK + c)]
        if bribing:
            move_card(st, c, L.LOC.hand + p, 0)
            st[nowrap(L.P_BRIBES + p)] += 1
            st[nowrap(L.P_BRIBED_R + p * 4 + rank)] += 1
            log_event(st, L.EVENT.bribe, p, c, r, cost, 0)
        else:
            move_card(st, c, L.LOC.corpse + p, 0)
            st[nowrap(L.P_KILLS + p)] += 1
            st[nowrap(L.P_KILLED_R + p * 4 + rank)] += 1
            log_event(st, L.EVENT.kill, p, c, r, cost, 0)
    return True


@njit(sig(ST, I, I, I), cache=True, error_model="numpy", _nrt=False)
def _take_from_bistro(st, p, action, n):
    """Bribe (BI-N3) or kill (BI-N5) ``n`` Bistro peasants, free: each goes to the player's
    hand (bribe) or unburied corpses (kill).  The caller has checked ``n``."""
    log_event(st, L.EVENT.action, p, -1, action, n, 0)
    bribing = action == L.ACTION.bribe
    for _ in range(n):
        c = list_card(st, L.L_BISTRO, st[L.G_BISTRO_N] - 1)
        if bribing:
            move_card(st, c, L.LOC.hand + p, 0)
            st[nowrap(L.P_PEAS_BRIBED + p)] += 1
            st[nowrap(L.P_BRIBES + p)] += 1
            log_event(st, L.EVENT.bribe, p, c, -1, 0, 0)
        else:
            move_card(st, c, L.LOC.corpse + p, 0)
            st[nowrap(L.P_KILLS + p)] += 1
            st[nowrap(L.P_PEAS_KILLED + p)] += 1
            log_event(st, L.EVENT.kill, p, c, -1, 0, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def bribe(st, pr, p, strats=ALL):
    """BI-N3: a traveller (or several with the Store) into hand, or 1-2 peasants (up to the
    Brewery's limit) from the Bistro for free."""
    if st[L.D_PEASANTS] != 0:
        n = st[L.D_NT]
        if n < 1 or n > st[nowrap(L.P_PEAS_LIMIT + p)] or n > st[L.G_BISTRO_N]:
            return False
        _take_from_bistro(st, p, L.ACTION.bribe, n)
        return True
    return _take_from_inn(st, pr, p, L.ACTION.bribe, strats)


@njit(cache=True, error_model="numpy", _nrt=False)
def kill(st, pr, p, strats=ALL):
    """BI-N5: a traveller (several with the Butcher's Shop) or a Bistro peasant (cost 0)
    becomes an unburied corpse in front of the player."""
    if st[L.D_PEASANTS] != 0:
        if st[L.D_NT] != 1 or st[L.G_BISTRO_N] < 1:
            return False
        _take_from_bistro(st, p, L.ACTION.kill, 1)
        return True
    return _take_from_inn(st, pr, p, L.ACTION.kill, strats)


@njit(cache=True, error_model="numpy", _nrt=False)
def bury(st, pr, p, strats=ALL):
    """BI-N6: own corpses (several with the Crypt) under annexes with free capacity, own or
    another player's; pocket money to the burier, or split with the annex's owner."""
    nt = st[L.D_NT]
    cost = _targets_cost(st, p, L.ACTION.bury)
    if cost < 0 or cost > st[nowrap(L.P_HAND_N + p)]:
        return False
    # capacity check over all destinations of this action at once
    for i in range(nt):
        d = st[nowrap(L.D_DEST + i)]
        if d >= 0:
            if d >= st[L.G_NCARDS]:
                return False
            loc = st[nowrap(L.C_LOC + d)]
            if loc < L.LOC.annex or loc >= L.LOC.annex + L.MAXP:
                return False
            st[nowrap(L.S_CAP + d)] = st[nowrap(L.C_RANK + d)] - st[nowrap(L.C_FILL + d)]
        else:
            q = L.BARN_SLOT - d
            if q < 0 or q >= st[L.G_NP]:
                return False
            st[nowrap(L.S_BARNCAP + q)] = 1 - st[nowrap(L.P_BARN_FILL + q)]
    for i in range(nt):
        d = st[nowrap(L.D_DEST + i)]
        if d >= 0:
            st[nowrap(L.S_CAP + d)] -= 1
            if st[nowrap(L.S_CAP + d)] < 0:
                return False
        else:
            q = L.BARN_SLOT - d
            st[nowrap(L.S_BARNCAP + q)] -= 1
            if st[nowrap(L.S_BARNCAP + q)] < 0:
                return False
    if not _pay(st, pr, p, L.ACTION.bury, cost, NO_CARD, nt, strats):
        return False
    for i in range(nt):
        c = st[nowrap(L.D_T + i)]
        d = st[nowrap(L.D_DEST + i)]
        owner = dest_owner(st, d)
        if d >= 0:
            st[nowrap(L.C_FILL + d)] += 1
        else:
            st[nowrap(L.P_BARN_FILL + owner)] += 1
        st[L.G_FREE_SPACE] -= 1
        st[nowrap(L.P_FREE_SPACE + owner)] -= 1
        move_card(st, c, L.LOC.buried + owner, d)
        pocket = st[nowrap(L.C_POCKET + c)]
        st[nowrap(L.P_BURIED + p)] += 1
        st[nowrap(L.P_BURIED_OWN + owner)] += 1
        if st[nowrap(L.C_TYPE + c)] != L.CTYPE.peasant:
            st[nowrap(L.P_BURIED_R + p * 4 + st[nowrap(L.C_RANK + c)])] += 1
        if owner == p:
            got = gain_cash(st, p, pocket)
            st[nowrap(L.P_BURIED_MONEY + p)] += got
            log_event(st, L.EVENT.bury, p, c, d, owner, got)
        else:
            # split in half; with an odd (edited) value the burier takes the larger half
            mine = pocket - pocket // 2
            got = gain_cash(st, p, mine)
            st[nowrap(L.P_BURIED_MONEY + p)] += got
            log_event(st, L.EVENT.bury, p, c, d, owner, got)
            share = gain_cash(st, owner, pocket // 2)
            log_event(st, L.EVENT.bury_share, owner, c, share, p, 0)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def build(st, pr, p, strats=ALL):
    """BI-N4: a card from hand becomes an annex; its rank is paid with other cards; an
    "immediately" effect fires now, a "from now on" effect is registered (BI-C5)."""
    if st[L.D_NT] != 1:
        return False
    c = st[L.D_T]
    if c < 0 or c >= st[L.G_NCARDS] or not can_build(st, p, c):
        return False
    cost = discounted(st, p, L.ACTION.build, st[nowrap(L.C_RANK + c)])
    if not _pay(st, pr, p, L.ACTION.build, cost, c, ONE, strats):
        return False
    move_card(st, c, L.LOC.annex + p, 0)
    st[nowrap(L.C_FILL + c)] = 0
    st[L.G_FREE_SPACE] += st[nowrap(L.C_RANK + c)]  # BI-C3: capacity = rank
    st[nowrap(L.P_FREE_SPACE + p)] += st[nowrap(L.C_RANK + c)]
    k = st[nowrap(L.C_KIND + c)]
    st[nowrap(L.P_BUILDS + p)] += 1
    st[nowrap(L.P_KINDS_OWNED + p)] |= 1 << k
    bit = st[nowrap(L.K_ANNEX_BIT + k)]
    if bit >= 0:
        st[nowrap(L.P_ANNEX_MASK + p)] |= 1 << bit
    colour = st[nowrap(L.C_COLOUR + c)]
    st[nowrap(L.P_COL_ANNEX + p * L.NCOL + colour)] += 1
    log_event(st, L.EVENT.build, p, c, cost, 0, 0)
    # "from now on" effects
    act = st[nowrap(L.K_DISCOUNT_ACT + k)]
    if act >= 0:
        st[nowrap(L.P_DISCOUNT + p * L.NACT + act)] += st[nowrap(L.K_DISCOUNT_AMT + k)]
    act = st[nowrap(L.K_MULTI + k)]
    if act >= 0:
        st[nowrap(L.P_MULTI + p * L.NACT + act)] = 1
    st[nowrap(L.P_WAGE_FREE + p)] += st[nowrap(L.K_WAGE_FREE + k)]
    st[nowrap(L.P_LEAVE_INCOME + p)] += st[nowrap(L.K_LEAVE_INCOME + k)]
    if st[nowrap(L.K_PEASANT_LIMIT + k)] > st[nowrap(L.P_PEAS_LIMIT + p)]:
        st[nowrap(L.P_PEAS_LIMIT + p)] = st[nowrap(L.K_PEASANT_LIMIT + k)]
    if st[nowrap(L.K_CHAPEL + k)] != 0:
        st[nowrap(L.P_CHAPEL + p)] = 1
    st[nowrap(L.P_END_CHEQUE + p)] += st[nowrap(L.K_END_CHEQUE + k)]
    col = st[nowrap(L.K_END_COLOUR + k)]
    if col >= 0:
        st[nowrap(L.P_END_COLOUR + p * L.NCOL + col)] += st[nowrap(L.K_END_COLOUR_AMT + k)]
    # "immediately" effects
    amount = st[nowrap(L.K_BUILD_CASH + k)]
    col = st[nowrap(L.K_PER_COLOUR + k)]
    if col >= 0:
        amount += st[nowrap(L.K_PER_COLOUR_AMT + k)] * st[nowrap(L.P_COL_ANNEX + p * L.NCOL + col)]
    if amount > 0:
        got = gain_cash(st, p, amount)
        log_event(st, L.EVENT.effect_cash, p, c, got, amount, 0)
    if st[nowrap(L.K_ROOM_SERVICE + k)] != 0 and list_token_rooms(st, L.S_A) > 0:
        # BI-V12: with one token per room and every open room taken, the token is lost
        r = decide_token_room(st, pr, p, *strats)
        if not token_room_ok(st, r):
            _illegal(st, 21)
        else:
            st[nowrap(L.R_TOKENS + r * L.MAXP + p)] += 1
            log_event(st, L.EVENT.token, p, c, r, 0, 0)
    if st[nowrap(L.K_MONK + k)] != 0:
        any_white = False
        for r in range(L.NROOMS):
            if st[nowrap(L.R_KEY + r)] == L.WHITE:
                any_white = True
        if any_white:
            r = decide_monk_room(st, pr, p, *strats)
            if r < 0 or r >= L.NROOMS or st[nowrap(L.R_KEY + r)] != L.WHITE:
                _illegal(st, 22)
            else:
                st[nowrap(L.R_KEY + r)] = p
                log_event(st, L.EVENT.monk_key, p, c, r, 0, 0)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def launder(st, pr, p):
    """BI-N7: pass, buying cheques with whole tens of cash or cashing cheques (cap kept)."""
    k = st[L.D_LAUNDER]
    cash_out, cash_in = launder_range(st, p)
    if k > cash_in or -k > cash_out:
        return False
    log_event(st, L.EVENT.action, p, -1, L.ACTION.passing, 0, 0)
    st[nowrap(L.P_CASH + p)] -= 10 * k
    st[nowrap(L.P_CHEQUES + p)] += k
    if k != 0:
        log_event(st, L.EVENT.launder, p, -1, k, 0, 0)
    else:
        log_event(st, L.EVENT.passing, p, -1, 0, 0, 0)
    return True


# inline: one library less that re-optimises the whole game at cold compile
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def take_action(st, pr, p, with_heur=ON, with_greedy=ON, with_random=ON):
    """One night action of player ``p`` (BI-N1): ask the strategy, check, apply.
    ``with_*``: the lineup's policies (``strategies.lineup_strategies``; by default all),
    as three arguments (see ``play.play_one``)."""
    strats = (with_heur, with_greedy, with_random)
    st[L.D_NT] = 0
    st[L.D_PEASANTS] = 0
    st[L.D_LAUNDER] = 0
    decide_action(st, pr, p, with_heur, with_greedy, with_random)
    a = st[L.D_ACTION]
    if 0 <= a < L.ACTION.passing and not may(st, p, a):
        ok = False  # restricted play: the strategy took a forbidden action (a bug)
    elif a == L.ACTION.bribe:
        ok = bribe(st, pr, p, strats)
    elif a == L.ACTION.build:
        ok = build(st, pr, p, strats)
    elif a == L.ACTION.kill:
        ok = kill(st, pr, p, strats)
    elif a == L.ACTION.bury:
        ok = bury(st, pr, p, strats)
    elif a == L.ACTION.passing:
        ok = launder(st, pr, p)
    else:
        ok = False
    if not ok:
        _illegal(st, 10 + (a if 0 <= a < L.NACT else L.NACT))
        log_event(st, L.EVENT.passing, p, -1, -1, a, 0)
    st[L.G_TURNS] += 1
