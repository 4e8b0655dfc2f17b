"""Evening (BI-E): the first player fills the inn; Room Service; season change; end trigger."""

from numba import njit

from ..index import nowrap
from . import layout as L
from .legal import copy_list
from .policy_tools import shuffle_prefix
from .search_hook import search_placement
from .state import gain_cash, log_event, move_card
from .strategies import ALL, SEARCH, decide_placement


@njit(cache=True, error_model="numpy", _nrt=False)
def season_change(st):
    """BI-E3: the Exit is shuffled into a new Entrance; the Exit restarts empty."""
    n = copy_list(st, L.L_EXIT, L.S_A)
    shuffle_prefix(st, L.S_A, n, n)
    for i in range(n):
        c = st[nowrap(L.S_A + i)]
        st[nowrap(L.ENT + i)] = c
        move_card(st, c, L.LOC.entrance, i)
        log_event(st, L.EVENT.season, -1, c, i, 0, 0)
    st[L.G_ENT_POS] = 0
    st[L.G_ENT_N] = n
    st[L.G_SEASON] += 1


@njit(cache=True, error_model="numpy", _nrt=False)
def travellers_in_inn(st):
    n = 0
    for r in range(L.NROOMS):
        if st[nowrap(L.R_CARD + r)] >= 0:
            n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def place_traveller(st, c, r):
    """Put ``c`` in room ``r``; BI-E2 Room Service pays each token's owner the rank."""
    st[nowrap(L.R_CARD + r)] = c
    st[L.G_INN] |= 1 << r
    st[L.G_INN_N] += 1
    if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police:
        st[L.G_INN_POLICE] += 1
    move_card(st, c, L.LOC.room, r)
    log_event(st, L.EVENT.place, st[L.G_FIRST], c, r, 0, 0)
    income = st[nowrap(L.C_RANK + c)] * st[L.G_ROOM_SERVICE]  # BI-E2: the rank (1 F per rank printed)
    for q in range(st[L.G_NP]):
        t = st[nowrap(L.R_TOKENS + r * L.MAXP + q)]
        if t > 0 and income > 0:
            got = gain_cash(st, q, income * t)
            log_event(st, L.EVENT.room_service, q, c, got, r, t)


@njit(cache=True, error_model="numpy", _nrt=False)
def open_empty_rooms(st):
    """The open rooms that are empty at nightfall (BI-E1), in ``R_EMPTY``."""
    n_empty = 0
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] != L.CLOSED and st[nowrap(L.R_CARD + r)] < 0:
            st[nowrap(L.R_EMPTY + n_empty)] = r
            n_empty += 1
    st[L.G_N_EMPTY] = n_empty


@njit(cache=True, error_model="numpy", _nrt=False)
def put_traveller(st, c, r):
    """Put the drawn traveller ``c`` in the empty room ``r`` the first player chose (BI-E1);
    BI-E3: the Exit becomes the Entrance right after the last card is placed."""
    k = -1
    for i in range(st[L.G_N_EMPTY]):
        if st[nowrap(L.R_EMPTY + i)] == r:
            k = i
    if k < 0:  # not an empty open room: a strategy bug
        if st[L.G_ERR] == 0:
            st[L.G_ERR] = 30
            st[L.G_ERR_ROUND] = st[L.G_ROUND]
        k = 0  # keep the game going
        r = st[L.R_EMPTY]
    st[L.G_N_EMPTY] -= 1
    st[nowrap(L.R_EMPTY + k)] = st[nowrap(L.R_EMPTY + st[L.G_N_EMPTY])]
    place_traveller(st, c, r)
    if st[L.G_ENT_POS] == st[L.G_ENT_N] and st[L.G_SEASON] < st[L.G_SEASONS] and st[L.G_SEASON_ON_DRAW] == 0:
        season_change(st)  # BI-E3: the last card is drawn


@njit(cache=True, error_model="numpy", _nrt=False)
def fill_inn(st, pr, search=None, strats=ALL):
    """Draw and place travellers until the inn is full (BI-E1), then BI-E4.  Returns True if
    the round is played (see :func:`evening`).  Continues a placement in progress: a
    rollout from a placement decision puts its traveller, then calls this.

    ``search`` is None unless the lineup has a ``search`` seat, whose placements then go
    through ``search_hook.search_placement`` (pruned at compile time otherwise); ``strats``: the
    lineup's policies (``strategies.lineup_strategies``; by default all)."""
    fp = st[L.G_FIRST]
    while st[L.G_N_EMPTY] > 0:
        if st[L.G_ENT_POS] == st[L.G_ENT_N]:
            if st[L.G_SEASON] < st[L.G_SEASONS]:
                season_change(st)
            if st[L.G_ENT_POS] == st[L.G_ENT_N]:
                st[L.G_LAST_ROUND] = 1
                break
        c = st[nowrap(L.ENT + st[L.G_ENT_POS])]
        st[L.G_ENT_POS] += 1
        r = -1
        if search is not None:
            if st[nowrap(L.P_STRAT + fp)] == SEARCH:
                r = search_placement(st, pr, fp, c)
        if r < 0:
            r = decide_placement(st, pr, fp, c, *strats)
        put_traveller(st, c, r)
    if st[L.G_LAST_ROUND] != 0:
        n = travellers_in_inn(st)
        played = st[L.G_STRICT] == 0 and n >= st[L.G_NP]
        log_event(st, L.EVENT.last_round, -1, -1, n, 1 if played else 0, 0)
        return played
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def evening(st, pr, search=None, strats=ALL):
    """BI-E1..E4.  Returns True if the round is played, False if the game ends now.
    ``search`` and ``strats`` as in :func:`fill_inn`.

    BI-E3: the first time the Entrance runs out (with 2 seasons), the Exit is shuffled into
    a new Entrance in the Evening the last card is drawn, right after it is placed; placing
    goes on from the new Entrance, and when that card filled the inn the round's survivors
    leave in the Morning to the new Exit.  BI-V11 ``season_change = on_next_draw``: the
    shuffle waits until the next card must be drawn (the next Evening when the inn was
    full).  BI-E4: when a traveller must be drawn in the last season and the Entrance is
    empty, the current round is the last: it is played unless fewer travellers than
    players are in the inn, or never with ``final_round = strict`` (BI-V6).
    """
    open_empty_rooms(st)
    return fill_inn(st, pr, search, strats)
