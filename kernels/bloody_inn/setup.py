"""Setup (BI-S): keys, the Entrance, starting money, peasants and the Barn."""

from numba import njit

from ..index import nowrap
from . import layout as L
from .policy_tools import shuffle_prefix
from .state import log_event, move_card


@njit(cache=True, error_model="numpy", _nrt=False)
def _reset_players(st):
    for p in range(L.MAXP):
        for f in (
            L.P_CASH,
            L.P_CHEQUES,
            L.P_HAND_N,
            L.P_CORPSE_N,
            L.P_ANNEX_N,
            L.P_BARN_FILL,
            L.P_BURIED,
            L.P_BURIED_OWN,
            L.P_BURIED_MONEY,
            L.P_KILLS,
            L.P_BRIBES,
            L.P_BUILDS,
            L.P_FINES,
            L.P_WAGES,
            L.P_ANNEX_MASK,
            L.P_KINDS_OWNED,
            L.P_PEAS_BRIBED,
            L.P_PEAS_KILLED,
            L.P_SOLO_LOST,
            L.P_SCORE,
            L.P_PLACE,
            L.P_WINNER,
            L.P_WAGE_FREE,
            L.P_LEAVE_INCOME,
            L.P_CHAPEL,
            L.P_END_CHEQUE,
        ):
            st[nowrap(f + p)] = 0
        st[nowrap(L.P_PEAS_LIMIT + p)] = st[L.G_PEAS_BRIBE]  # BI-N3: 1 or 2 peasants per bribe
        for a in range(L.NACT):
            st[nowrap(L.P_DISCOUNT + p * L.NACT + a)] = 0
            st[nowrap(L.P_MULTI + p * L.NACT + a)] = 0
        for col in range(L.NCOL):
            st[nowrap(L.P_END_COLOUR + p * L.NCOL + col)] = 0
            st[nowrap(L.P_COL_ANNEX + p * L.NCOL + col)] = 0
        for r in range(4):
            st[nowrap(L.P_BRIBED_R + p * 4 + r)] = 0
            st[nowrap(L.P_KILLED_R + p * 4 + r)] = 0
            st[nowrap(L.P_BURIED_R + p * 4 + r)] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def setup_game(st):
    """BI-S1..S4 for the game whose RNG, id and rules are already in ``st``.

    Seat 0 is the (randomly chosen, BI-S4) first player; the lineup rotates over the seats
    from game to game when the config asks for it.
    """
    np_ = st[L.G_NP]
    for f in (
        L.G_ROUND,
        L.G_TURNS,
        L.G_LAST_ROUND,
        L.G_OVER,
        L.G_TRUNC,
        L.G_ERR,
        L.G_ERR_ROUND,
        L.G_EV_N,
        L.G_EV_OVERFLOW,
        L.G_FIRST,
        L.G_BISTRO_N,
        L.G_EXIT_N,
        L.G_PHASE,
    ):
        st[nowrap(f)] = 0
    st[L.G_SEASON] = 1
    _reset_players(st)
    # strategies per seat (lineup rotation)
    shift = st[L.G_GAME_ID] % st[L.G_NLINEUP] if st[L.G_ROTATE] != 0 else 0
    for p in range(np_):
        li = (p + shift) % st[L.G_NLINEUP]
        st[nowrap(L.P_LINEUP + p)] = li
        st[nowrap(L.P_STRAT + p)] = st[nowrap(L.L_STRAT + li)]
        st[nowrap(L.P_FORBID + p)] = st[nowrap(L.L_FORBID + li)]  # restricted play follows the lineup entry
        st[nowrap(L.P_NOBUILD + p)] = st[nowrap(L.L_NOBUILD + li)]
    # BI-S1: one own key per player, white keys; the rest of the rooms stay closed.
    # Rooms are interchangeable, so seat p keys room p and white keys follow.
    n_open = 0
    for r in range(L.NROOMS):
        st[nowrap(L.R_CARD + r)] = -1
        for q in range(L.MAXP):
            st[nowrap(L.R_TOKENS + r * L.MAXP + q)] = 0
        if r < np_:
            st[nowrap(L.R_KEY + r)] = r
        elif r < np_ + st[L.G_WHITE_KEYS]:
            st[nowrap(L.R_KEY + r)] = L.WHITE
        else:
            st[nowrap(L.R_KEY + r)] = L.CLOSED
        if st[nowrap(L.R_KEY + r)] != L.CLOSED:
            n_open += 1
    st[L.G_OPEN_ROOMS] = n_open
    st[L.G_INN] = 0  # every room empty
    st[L.G_INN_N] = 0
    st[L.G_INN_POLICE] = 0
    st[L.G_FREE_SPACE] = np_  # BI-C4: one Barn place per player
    for p in range(L.MAXP):
        st[nowrap(L.P_FREE_SPACE + p)] = 1 if p < np_ else 0
    # every card starts in the box
    ncards = st[L.G_NCARDS]
    for c in range(ncards):
        st[nowrap(L.C_LOC + c)] = L.LOC.box
        st[nowrap(L.C_SLOT + c)] = 0
        st[nowrap(L.C_FILL + c)] = 0
    # BI-S2: shuffle the travellers, deck_size of them form the face-up Entrance
    ntrav = st[L.G_NTRAV]
    for i in range(ntrav):
        st[nowrap(L.S_A + i)] = i
    deck = st[L.G_DECK_SIZE]
    shuffle_prefix(st, L.S_A, ntrav, deck)
    for i in range(deck):
        c = st[nowrap(L.S_A + i)]
        st[nowrap(L.ENT + i)] = c
        move_card(st, c, L.LOC.entrance, i)
        log_event(st, L.EVENT.deck, -1, c, i, 0, 0)
    for i in range(deck, ntrav):
        log_event(st, L.EVENT.box, -1, st[nowrap(L.S_A + i)], 0, 0, 0)
    st[L.G_ENT_POS] = 0
    st[L.G_ENT_N] = deck
    # BI-S3: 5 F, one cheque, 2 peasants each; solo: 2 peasants in the Bistro (BI-X1)
    pe = ntrav
    for p in range(np_):
        st[nowrap(L.P_CASH + p)] = st[L.G_START_CASH]
        st[nowrap(L.P_CHEQUES + p)] = st[L.G_START_CHEQUES]
        for _ in range(st[L.G_START_PEASANTS]):
            move_card(st, pe, L.LOC.hand + p, 0)
            log_event(st, L.EVENT.deal, p, pe, 0, 0, 0)
            pe += 1
    if np_ == 1:
        for _ in range(st[L.G_SOLO_BISTRO]):
            move_card(st, pe, L.LOC.bistro, 0)
            log_event(st, L.EVENT.bistro, -1, pe, 0, 0, 0)
            pe += 1
    for r in range(L.NROOMS):  # logged once the money is set
        if st[nowrap(L.R_KEY + r)] != L.CLOSED:
            log_event(
                st,
                L.EVENT.key,
                st[nowrap(L.R_KEY + r)] if st[nowrap(L.R_KEY + r)] != L.WHITE else -1,
                -1,
                r,
                0,
                0,
            )
