"""Night: the five actions with payment, affinity returns, discounts and annex effects (BI-N).

The acting player's strategy fills the decision scratch (``D_*``); this module checks the
decision against the rules and applies it.  An illegal decision is a strategy bug: it is
recorded in ``G_ERR`` (the invariant tests require zero) and the player passes instead.
"""

import numpy as np
from numba import njit

from kernels.sigs import ST, I, sig

from .layout import (
    ACTION,
    BARN_SLOT,
    C_AFF,
    C_COLOUR,
    C_FILL,
    C_KIND,
    C_LOC,
    C_POCKET,
    C_RANK,
    C_SLOT,
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
    EVENT,
    G_BISTRO_N,
    G_ERR,
    G_ERR_ROUND,
    G_FREE_SPACE,
    G_INN,
    G_INN_N,
    G_INN_POLICE,
    G_NCARDS,
    G_NP,
    G_ROUND,
    G_TURNS,
    K_ANNEX_BIT,
    K_BUILD_CASH,
    K_CHAPEL,
    K_DISCOUNT_ACT,
    K_DISCOUNT_AMT,
    K_END_CHEQUE,
    K_END_COLOUR,
    K_END_COLOUR_AMT,
    K_LEAVE_INCOME,
    K_MONK,
    K_MULTI,
    K_PEASANT_LIMIT,
    K_PER_COLOUR,
    K_PER_COLOUR_AMT,
    K_ROOM_SERVICE,
    K_WAGE_FREE,
    L_BISTRO,
    LOC,
    MAXP,
    NACT,
    NCOL,
    NROOMS,
    P_ANNEX_MASK,
    P_BARN_FILL,
    P_BRIBED_R,
    P_BRIBES,
    P_BUILDS,
    P_BURIED,
    P_BURIED_MONEY,
    P_BURIED_OWN,
    P_BURIED_R,
    P_CASH,
    P_CHAPEL,
    P_CHEQUES,
    P_COL_ANNEX,
    P_DISCOUNT,
    P_END_CHEQUE,
    P_END_COLOUR,
    P_FREE_SPACE,
    P_HAND_N,
    P_KILLED_R,
    P_KILLS,
    P_KINDS_OWNED,
    P_LEAVE_INCOME,
    P_MULTI,
    P_PEAS_BRIBED,
    P_PEAS_KILLED,
    P_PEAS_LIMIT,
    P_WAGE_FREE,
    R_CARD,
    R_KEY,
    R_TOKENS,
    S_A,
    S_BARNCAP,
    S_CAP,
    WHITE,
)
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
    if st[G_ERR] == 0:
        st[G_ERR] = code
        st[G_ERR_ROUND] = st[G_ROUND]


@njit(cache=True, error_model="numpy", _nrt=False)
def _room_of(st, c):
    """Room index of a traveller in the inn, or -1."""
    if st[C_LOC + c] != LOC.room:
        return -1
    return st[C_SLOT + c]


@njit(cache=True, error_model="numpy", _nrt=False)
def _targets_cost(st, p, action):
    """Sum of the targets' ranks after the discount (BI-N2); -1 if a target is not legal."""
    nt = st[D_NT]
    if nt < 1:
        return -1
    if nt > 1 and st[P_MULTI + p * NACT + action] == 0:
        return -1  # BI-N3/N5/N6: several targets need Store/Butcher/Crypt
    raw = 0
    for i in range(nt):
        c = st[D_T + i]
        if c < 0 or c >= st[G_NCARDS]:
            return -1
        for j in range(i):
            if st[D_T + j] == c:
                return -1
        if action == ACTION.bury:
            if st[C_LOC + c] != LOC.corpse + p:
                return -1
            if st[C_TYPE + c] != CTYPE.peasant:
                raw += st[C_RANK + c]  # BI-N6: a peasant corpse costs 0
        else:
            if st[C_LOC + c] != LOC.room:  # BI-N9: hands and annexes are safe
                return -1
            raw += st[C_RANK + c]
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
        log_event(st, EVENT.action, p, exclude, action, nt, 0)
        return True
    st[D_NPAY] = 0
    decide_payment(st, pr, p, action, cost, exclude, *strats)
    if st[D_NPAY] != cost:
        return False
    for i in range(cost):
        c = st[D_PAY + i]
        if c < 0 or c >= st[G_NCARDS] or c == exclude or st[C_LOC + c] != LOC.hand + p:
            return False
        for j in range(i):
            if st[D_PAY + j] == c:
                return False
    log_event(st, EVENT.action, p, exclude, action, nt, cost)
    chapel = action == ACTION.bury and st[P_CHAPEL + p] != 0
    for i in range(cost):
        c = st[D_PAY + i]
        back = chapel or st[C_AFF + c] == action
        log_event(st, EVENT.pay, p, c, 1 if back else 0, action, 0)
        if not back:
            discard_card(st, c)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def _take_from_inn(st, pr, p, action, strats):
    """Bribe (BI-N3) or kill (BI-N5) the travellers ``D_T``: check, pay, then each leaves
    its room for the player's hand (bribe) or the player's unburied corpses (kill)."""
    cost = _targets_cost(st, p, action)
    if cost < 0 or cost > st[P_HAND_N + p]:
        return False
    if not _pay(st, pr, p, action, cost, NO_CARD, st[D_NT], strats):
        return False
    bribing = action == ACTION.bribe
    for i in range(st[D_NT]):
        c = st[D_T + i]
        r = st[C_SLOT + c]
        st[R_CARD + r] = -1
        st[G_INN] &= ~(1 << r)
        st[G_INN_N] -= 1
        if st[C_TYPE + c] == CTYPE.police:
            st[G_INN_POLICE] -= 1
        rank = st[C_RANK + c]
        if bribing:
            move_card(st, c, LOC.hand + p, 0)
            st[P_BRIBES + p] += 1
            st[P_BRIBED_R + p * 4 + rank] += 1
            log_event(st, EVENT.bribe, p, c, r, cost, 0)
        else:
            move_card(st, c, LOC.corpse + p, 0)
            st[P_KILLS + p] += 1
            st[P_KILLED_R + p * 4 + rank] += 1
            log_event(st, EVENT.kill, p, c, r, cost, 0)
    return True


@njit(sig(ST, I, I, I), cache=True, error_model="numpy", _nrt=False)
def _take_from_bistro(st, p, action, n):
    """Bribe (BI-N3) or kill (BI-N5) ``n`` Bistro peasants, free: each goes to the player's
    hand (bribe) or unburied corpses (kill).  The caller has checked ``n``."""
    log_event(st, EVENT.action, p, -1, action, n, 0)
    bribing = action == ACTION.bribe
    for _ in range(n):
        c = list_card(st, L_BISTRO, st[G_BISTRO_N] - 1)
        if bribing:
            move_card(st, c, LOC.hand + p, 0)
            st[P_PEAS_BRIBED + p] += 1
            st[P_BRIBES + p] += 1
            log_event(st, EVENT.bribe, p, c, -1, 0, 0)
        else:
            move_card(st, c, LOC.corpse + p, 0)
            st[P_KILLS + p] += 1
            st[P_PEAS_KILLED + p] += 1
            log_event(st, EVENT.kill, p, c, -1, 0, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def bribe(st, pr, p, strats=ALL):
    """BI-N3: a traveller (or several with the Store) into hand, or 1-2 peasants (up to the
    Brewery's limit) from the Bistro for free."""
    if st[D_PEASANTS] != 0:
        n = st[D_NT]
        if n < 1 or n > st[P_PEAS_LIMIT + p] or n > st[G_BISTRO_N]:
            return False
        _take_from_bistro(st, p, ACTION.bribe, n)
        return True
    return _take_from_inn(st, pr, p, ACTION.bribe, strats)


@njit(cache=True, error_model="numpy", _nrt=False)
def kill(st, pr, p, strats=ALL):
    """BI-N5: a traveller (several with the Butcher's Shop) or a Bistro peasant (cost 0)
    becomes an unburied corpse in front of the player."""
    if st[D_PEASANTS] != 0:
        if st[D_NT] != 1 or st[G_BISTRO_N] < 1:
            return False
        _take_from_bistro(st, p, ACTION.kill, 1)
        return True
    return _take_from_inn(st, pr, p, ACTION.kill, strats)


@njit(cache=True, error_model="numpy", _nrt=False)
def bury(st, pr, p, strats=ALL):
    """BI-N6: own corpses (several with the Crypt) under annexes with free capacity, own or
    another player's; pocket money to the burier, or split with the annex's owner."""
    nt = st[D_NT]
    cost = _targets_cost(st, p, ACTION.bury)
    if cost < 0 or cost > st[P_HAND_N + p]:
        return False
    # capacity check over all destinations of this action at once
    for i in range(nt):
        d = st[D_DEST + i]
        if d >= 0:
            if d >= st[G_NCARDS]:
                return False
            loc = st[C_LOC + d]
            if loc < LOC.annex or loc >= LOC.annex + MAXP:
                return False
            st[S_CAP + d] = st[C_RANK + d] - st[C_FILL + d]
        else:
            q = BARN_SLOT - d
            if q < 0 or q >= st[G_NP]:
                return False
            st[S_BARNCAP + q] = 1 - st[P_BARN_FILL + q]
    for i in range(nt):
        d = st[D_DEST + i]
        if d >= 0:
            st[S_CAP + d] -= 1
            if st[S_CAP + d] < 0:
                return False
        else:
            q = BARN_SLOT - d
            st[S_BARNCAP + q] -= 1
            if st[S_BARNCAP + q] < 0:
                return False
    if not _pay(st, pr, p, ACTION.bury, cost, NO_CARD, nt, strats):
        return False
    for i in range(nt):
        c = st[D_T + i]
        d = st[D_DEST + i]
        owner = dest_owner(st, d)
        if d >= 0:
            st[C_FILL + d] += 1
        else:
            st[P_BARN_FILL + owner] += 1
        st[G_FREE_SPACE] -= 1
        st[P_FREE_SPACE + owner] -= 1
        move_card(st, c, LOC.buried + owner, d)
        pocket = st[C_POCKET + c]
        st[P_BURIED + p] += 1
        st[P_BURIED_OWN + owner] += 1
        if st[C_TYPE + c] != CTYPE.peasant:
            st[P_BURIED_R + p * 4 + st[C_RANK + c]] += 1
        if owner == p:
            got = gain_cash(st, p, pocket)
            st[P_BURIED_MONEY + p] += got
            log_event(st, EVENT.bury, p, c, d, owner, got)
        else:
            # split in half; with an odd (edited) value the burier takes the larger half
            mine = pocket - pocket // 2
            got = gain_cash(st, p, mine)
            st[P_BURIED_MONEY + p] += got
            log_event(st, EVENT.bury, p, c, d, owner, got)
            share = gain_cash(st, owner, pocket // 2)
            log_event(st, EVENT.bury_share, owner, c, share, p, 0)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def build(st, pr, p, strats=ALL):
    """BI-N4: a card from hand becomes an annex; its rank is paid with other cards; an
    "immediately" effect fires now, a "from now on" effect is registered (BI-C5)."""
    if st[D_NT] != 1:
        return False
    c = st[D_T]
    if c < 0 or c >= st[G_NCARDS] or not can_build(st, p, c):
        return False
    cost = discounted(st, p, ACTION.build, st[C_RANK + c])
    if not _pay(st, pr, p, ACTION.build, cost, c, ONE, strats):
        return False
    move_card(st, c, LOC.annex + p, 0)
    st[C_FILL + c] = 0
    st[G_FREE_SPACE] += st[C_RANK + c]  # BI-C3: capacity = rank
    st[P_FREE_SPACE + p] += st[C_RANK + c]
    k = st[C_KIND + c]
    st[P_BUILDS + p] += 1
    st[P_KINDS_OWNED + p] |= 1 << k
    bit = st[K_ANNEX_BIT + k]
    if bit >= 0:
        st[P_ANNEX_MASK + p] |= 1 << bit
    colour = st[C_COLOUR + c]
    st[P_COL_ANNEX + p * NCOL + colour] += 1
    log_event(st, EVENT.build, p, c, cost, 0, 0)
    # "from now on" effects
    act = st[K_DISCOUNT_ACT + k]
    if act >= 0:
        st[P_DISCOUNT + p * NACT + act] += st[K_DISCOUNT_AMT + k]
    act = st[K_MULTI + k]
    if act >= 0:
        st[P_MULTI + p * NACT + act] = 1
    st[P_WAGE_FREE + p] += st[K_WAGE_FREE + k]
    st[P_LEAVE_INCOME + p] += st[K_LEAVE_INCOME + k]
    if st[K_PEASANT_LIMIT + k] > st[P_PEAS_LIMIT + p]:
        st[P_PEAS_LIMIT + p] = st[K_PEASANT_LIMIT + k]
    if st[K_CHAPEL + k] != 0:
        st[P_CHAPEL + p] = 1
    st[P_END_CHEQUE + p] += st[K_END_CHEQUE + k]
    col = st[K_END_COLOUR + k]
    if col >= 0:
        st[P_END_COLOUR + p * NCOL + col] += st[K_END_COLOUR_AMT + k]
    # "immediately" effects
    amount = st[K_BUILD_CASH + k]
    col = st[K_PER_COLOUR + k]
    if col >= 0:
        amount += st[K_PER_COLOUR_AMT + k] * st[P_COL_ANNEX + p * NCOL + col]
    if amount > 0:
        got = gain_cash(st, p, amount)
        log_event(st, EVENT.effect_cash, p, c, got, amount, 0)
    if st[K_ROOM_SERVICE + k] != 0 and list_token_rooms(st, S_A) > 0:
        # BI-V12: with one token per room and every open room taken, the token is lost
        r = decide_token_room(st, pr, p, *strats)
        if not token_room_ok(st, r):
            _illegal(st, 21)
        else:
            st[R_TOKENS + r * MAXP + p] += 1
            log_event(st, EVENT.token, p, c, r, 0, 0)
    if st[K_MONK + k] != 0:
        any_white = False
        for r in range(NROOMS):
            if st[R_KEY + r] == WHITE:
                any_white = True
        if any_white:
            r = decide_monk_room(st, pr, p, *strats)
            if r < 0 or r >= NROOMS or st[R_KEY + r] != WHITE:
                _illegal(st, 22)
            else:
                st[R_KEY + r] = p
                log_event(st, EVENT.monk_key, p, c, r, 0, 0)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def launder(st, pr, p):
    """BI-N7: pass, buying cheques with whole tens of cash or cashing cheques (cap kept)."""
    k = st[D_LAUNDER]
    cash_out, cash_in = launder_range(st, p)
    if k > cash_in or -k > cash_out:
        return False
    log_event(st, EVENT.action, p, -1, ACTION.passing, 0, 0)
    st[P_CASH + p] -= 10 * k
    st[P_CHEQUES + p] += k
    if k != 0:
        log_event(st, EVENT.launder, p, -1, k, 0, 0)
    else:
        log_event(st, EVENT.passing, p, -1, 0, 0, 0)
    return True


# inline: one library less that re-optimises the whole game at cold compile
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def take_action(st, pr, p, with_heur=ON, with_greedy=ON, with_random=ON):
    """One night action of player ``p`` (BI-N1): ask the strategy, check, apply.
    ``with_*``: the lineup's policies (``strategies.lineup_strategies``; by default all),
    as three arguments (see ``play.play_one``)."""
    strats = (with_heur, with_greedy, with_random)
    st[D_NT] = 0
    st[D_PEASANTS] = 0
    st[D_LAUNDER] = 0
    decide_action(st, pr, p, with_heur, with_greedy, with_random)
    a = st[D_ACTION]
    if 0 <= a < ACTION.passing and not may(st, p, a):
        ok = False  # restricted play: the strategy took a forbidden action (a bug)
    elif a == ACTION.bribe:
        ok = bribe(st, pr, p, strats)
    elif a == ACTION.build:
        ok = build(st, pr, p, strats)
    elif a == ACTION.kill:
        ok = kill(st, pr, p, strats)
    elif a == ACTION.bury:
        ok = bury(st, pr, p, strats)
    elif a == ACTION.passing:
        ok = launder(st, pr, p)
    else:
        ok = False
    if not ok:
        _illegal(st, 10 + (a if 0 <= a < NACT else NACT))
        log_event(st, EVENT.passing, p, -1, -1, a, 0)
    st[G_TURNS] += 1
