"""Setup (BI-S): keys, the Entrance, starting money, peasants and the Barn."""

from numba import njit

from .layout import (
    C_FILL,
    C_LOC,
    C_SLOT,
    CLOSED,
    ENT,
    EVENT,
    G_BISTRO_N,
    G_DECK_SIZE,
    G_ENT_N,
    G_ENT_POS,
    G_ERR,
    G_ERR_ROUND,
    G_EV_N,
    G_EV_OVERFLOW,
    G_EXIT_N,
    G_FIRST,
    G_FREE_SPACE,
    G_GAME_ID,
    G_INN,
    G_INN_N,
    G_INN_POLICE,
    G_LAST_ROUND,
    G_NCARDS,
    G_NLINEUP,
    G_NP,
    G_NTRAV,
    G_OPEN_ROOMS,
    G_OVER,
    G_PEAS_BRIBE,
    G_PHASE,
    G_ROTATE,
    G_ROUND,
    G_SEASON,
    G_SOLO_BISTRO,
    G_START_CASH,
    G_START_CHEQUES,
    G_START_PEASANTS,
    G_TRUNC,
    G_TURNS,
    G_WHITE_KEYS,
    L_FORBID,
    L_NOBUILD,
    L_STRAT,
    LOC,
    MAXP,
    NACT,
    NCOL,
    NROOMS,
    P_ANNEX_MASK,
    P_ANNEX_N,
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
    P_CORPSE_N,
    P_DISCOUNT,
    P_END_CHEQUE,
    P_END_COLOUR,
    P_FINES,
    P_FORBID,
    P_FREE_SPACE,
    P_HAND_N,
    P_KILLED_R,
    P_KILLS,
    P_KINDS_OWNED,
    P_LEAVE_INCOME,
    P_LINEUP,
    P_MULTI,
    P_NOBUILD,
    P_PEAS_BRIBED,
    P_PEAS_KILLED,
    P_PEAS_LIMIT,
    P_PLACE,
    P_SCORE,
    P_SOLO_LOST,
    P_STRAT,
    P_WAGE_FREE,
    P_WAGES,
    P_WINNER,
    R_CARD,
    R_KEY,
    R_TOKENS,
    S_A,
    WHITE,
)
from .policy_tools import shuffle_prefix
from .state import log_event, move_card


@njit(cache=True, error_model="numpy", _nrt=False)
def _reset_players(st):
    for p in range(MAXP):
        for f in (
            P_CASH,
            P_CHEQUES,
            P_HAND_N,
            P_CORPSE_N,
            P_ANNEX_N,
            P_BARN_FILL,
            P_BURIED,
            P_BURIED_OWN,
            P_BURIED_MONEY,
            P_KILLS,
            P_BRIBES,
            P_BUILDS,
            P_FINES,
            P_WAGES,
            P_ANNEX_MASK,
            P_KINDS_OWNED,
            P_PEAS_BRIBED,
            P_PEAS_KILLED,
            P_SOLO_LOST,
            P_SCORE,
            P_PLACE,
            P_WINNER,
            P_WAGE_FREE,
            P_LEAVE_INCOME,
            P_CHAPEL,
            P_END_CHEQUE,
        ):
            st[f + p] = 0
        st[P_PEAS_LIMIT + p] = st[G_PEAS_BRIBE]  # BI-N3: 1 or 2 peasants per bribe
        for a in range(NACT):
            st[P_DISCOUNT + p * NACT + a] = 0
            st[P_MULTI + p * NACT + a] = 0
        for col in range(NCOL):
            st[P_END_COLOUR + p * NCOL + col] = 0
            st[P_COL_ANNEX + p * NCOL + col] = 0
        for r in range(4):
            st[P_BRIBED_R + p * 4 + r] = 0
            st[P_KILLED_R + p * 4 + r] = 0
            st[P_BURIED_R + p * 4 + r] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def setup_game(st):
    """BI-S1..S4 for the game whose RNG, id and rules are already in ``st``.

    Seat 0 is the (randomly chosen, BI-S4) first player; the lineup rotates over the seats
    from game to game when the config asks for it.
    """
    np_ = st[G_NP]
    for f in (
        G_ROUND,
        G_TURNS,
        G_LAST_ROUND,
        G_OVER,
        G_TRUNC,
        G_ERR,
        G_ERR_ROUND,
        G_EV_N,
        G_EV_OVERFLOW,
        G_FIRST,
        G_BISTRO_N,
        G_EXIT_N,
        G_PHASE,
    ):
        st[f] = 0
    st[G_SEASON] = 1
    _reset_players(st)
    # strategies per seat (lineup rotation)
    shift = st[G_GAME_ID] % st[G_NLINEUP] if st[G_ROTATE] != 0 else 0
    for p in range(np_):
        li = (p + shift) % st[G_NLINEUP]
        st[P_LINEUP + p] = li
        st[P_STRAT + p] = st[L_STRAT + li]
        st[P_FORBID + p] = st[L_FORBID + li]  # restricted play follows the lineup entry
        st[P_NOBUILD + p] = st[L_NOBUILD + li]
    # BI-S1: one own key per player, white keys; the rest of the rooms stay closed.
    # Rooms are interchangeable, so seat p keys room p and white keys follow.
    n_open = 0
    for r in range(NROOMS):
        st[R_CARD + r] = -1
        for q in range(MAXP):
            st[R_TOKENS + r * MAXP + q] = 0
        if r < np_:
            st[R_KEY + r] = r
        elif r < np_ + st[G_WHITE_KEYS]:
            st[R_KEY + r] = WHITE
        else:
            st[R_KEY + r] = CLOSED
        if st[R_KEY + r] != CLOSED:
            n_open += 1
    st[G_OPEN_ROOMS] = n_open
    st[G_INN] = 0  # every room empty
    st[G_INN_N] = 0
    st[G_INN_POLICE] = 0
    st[G_FREE_SPACE] = np_  # BI-C4: one Barn place per player
    for p in range(MAXP):
        st[P_FREE_SPACE + p] = 1 if p < np_ else 0
    # every card starts in the box
    ncards = st[G_NCARDS]
    for c in range(ncards):
        st[C_LOC + c] = LOC.box
        st[C_SLOT + c] = 0
        st[C_FILL + c] = 0
    # BI-S2: shuffle the travellers, deck_size of them form the face-up Entrance
    ntrav = st[G_NTRAV]
    for i in range(ntrav):
        st[S_A + i] = i
    deck = st[G_DECK_SIZE]
    shuffle_prefix(st, S_A, ntrav, deck)
    for i in range(deck):
        c = st[S_A + i]
        st[ENT + i] = c
        move_card(st, c, LOC.entrance, i)
        log_event(st, EVENT.deck, -1, c, i, 0, 0)
    for i in range(deck, ntrav):
        log_event(st, EVENT.box, -1, st[S_A + i], 0, 0, 0)
    st[G_ENT_POS] = 0
    st[G_ENT_N] = deck
    # BI-S3: 5 F, one cheque, 2 peasants each; solo: 2 peasants in the Bistro (BI-X1)
    pe = ntrav
    for p in range(np_):
        st[P_CASH + p] = st[G_START_CASH]
        st[P_CHEQUES + p] = st[G_START_CHEQUES]
        for _ in range(st[G_START_PEASANTS]):
            move_card(st, pe, LOC.hand + p, 0)
            log_event(st, EVENT.deal, p, pe, 0, 0, 0)
            pe += 1
    if np_ == 1:
        for _ in range(st[G_SOLO_BISTRO]):
            move_card(st, pe, LOC.bistro, 0)
            log_event(st, EVENT.bistro, -1, pe, 0, 0, 0)
            pe += 1
    for r in range(NROOMS):  # logged once the money is set
        if st[R_KEY + r] != CLOSED:
            log_event(st, EVENT.key, st[R_KEY + r] if st[R_KEY + r] != WHITE else -1, -1, r, 0, 0)
