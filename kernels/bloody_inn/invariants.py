"""Invariant checks, recounted independently of the incremental counters.

Codes (``G_ERR``; 1-9 here, 10+ illegal strategy decisions, see night/evening/morning):
1 a location counter or card list disagrees with the card locations; 2 the Entrance list disagrees;
3 a room and its traveller disagree, or the mask or counts of the rooms holding one do; 4 an
annex or Barn holds more than its capacity, its fill disagrees with its corpses, or a count of
free places (per player or in all) disagrees with them; 5 cash outside 0..cap or negative
cheques; 6 a card in an impossible place (peasant in a room, police as annex, ...); 7 a room
holds more than one Room-Service token under ``room_service_per_room = 1`` (BI-V12) or a
token on a closed room.
"""

from numba import njit

from .layout import (
    BARN_SLOT,
    C_FILL,
    C_KIND,
    C_LOC,
    C_POS,
    C_RANK,
    C_SLOT,
    C_TYPE,
    CLOSED,
    CTYPE,
    ENT,
    G_BISTRO_N,
    G_CAP,
    G_END_CAPPED,
    G_ENT_N,
    G_ENT_POS,
    G_ERR,
    G_ERR_ROUND,
    G_EXIT_N,
    G_FREE_SPACE,
    G_INN,
    G_INN_N,
    G_INN_POLICE,
    G_NCARDS,
    G_NP,
    G_PHASE,
    G_ROUND,
    G_RS_ANY,
    G_UNLIMITED,
    K_ANNEXABLE,
    LIST_N,
    LISTS,
    LOC,
    MAXC,
    MAXP,
    NLISTS,
    NROOMS,
    P_ANNEX_N,
    P_BARN_FILL,
    P_CASH,
    P_CHEQUES,
    P_CORPSE_N,
    P_FREE_SPACE,
    P_HAND_N,
    R_CARD,
    R_KEY,
    R_TOKENS,
    S_C,
)
from .state import list_id


@njit(cache=True, _nrt=False)
def check(st):
    """Return the first violated invariant's code, 0 if none."""
    n = st[G_NCARDS]
    np_ = st[G_NP]
    # per-location recount
    bistro = 0
    exit_ = 0
    ent = 0
    inroom = 0
    for q in range(MAXP):
        st[S_C + q] = 0  # hand
        st[S_C + 8 + q] = 0  # corpse
        st[S_C + 16 + q] = 0  # annex
        st[S_C + 24 + q] = 0  # barn fill
    for c in range(n):
        loc = st[C_LOC + c]
        t = st[C_TYPE + c]
        if loc == LOC.bistro:
            bistro += 1
            if t != CTYPE.peasant:
                return 6
        elif loc == LOC.exit:
            exit_ += 1
            if t == CTYPE.peasant:
                return 6
        elif loc == LOC.entrance:
            ent += 1
            if t == CTYPE.peasant:
                return 6
        elif loc == LOC.room:
            inroom += 1
            r = st[C_SLOT + c]
            if r < 0 or r >= NROOMS or st[R_CARD + r] != c or st[R_KEY + r] == CLOSED:
                return 3
        elif LOC.hand <= loc < LOC.hand + np_:
            st[S_C + loc - LOC.hand] += 1
        elif LOC.corpse <= loc < LOC.corpse + np_:
            st[S_C + 8 + loc - LOC.corpse] += 1
        elif LOC.annex <= loc < LOC.annex + np_:
            st[S_C + 16 + loc - LOC.annex] += 1
            if t == CTYPE.peasant or st[K_ANNEXABLE + st[C_KIND + c]] == 0:
                return 6
            fill = 0
            for c2 in range(n):
                if st[C_LOC + c2] >= LOC.buried and st[C_SLOT + c2] == c:
                    fill += 1
            if fill != st[C_FILL + c] or fill > st[C_RANK + c]:
                return 4
        elif LOC.buried <= loc < LOC.buried + np_:
            d = st[C_SLOT + c]
            owner = loc - LOC.buried
            if d < 0:
                if BARN_SLOT - d != owner:
                    return 4
                st[S_C + 24 + owner] += 1
            elif st[C_LOC + d] != LOC.annex + owner:
                return 4
        elif loc != LOC.box:
            return 6
    if bistro != st[G_BISTRO_N] or exit_ != st[G_EXIT_N]:
        return 1
    for q in range(np_):
        if st[S_C + q] != st[P_HAND_N + q] or st[S_C + 8 + q] != st[P_CORPSE_N + q]:
            return 1
        if st[S_C + 16 + q] != st[P_ANNEX_N + q]:
            return 1
        if st[S_C + 24 + q] != st[P_BARN_FILL + q] or st[P_BARN_FILL + q] > 1:
            return 4
        if st[P_CHEQUES + q] < 0 or st[P_CASH + q] < 0:
            return 5
        if st[P_CASH + q] > st[G_CAP] and st[G_UNLIMITED] == 0:
            if not (st[G_END_CAPPED] == 0 and st[G_PHASE] == 3):  # BI-V8 end bonuses
                return 5
    # the card lists agree with the card locations (counts were compared above)
    for l in range(NLISTS):
        for i in range(st[LIST_N + l]):
            c = st[LISTS + l * MAXC + i]
            if c < 0 or c >= n or list_id(st[C_LOC + c]) != l or st[C_POS + c] != i:
                return 1
    # free burial places, per player (P_FREE_SPACE) and in all (G_FREE_SPACE)
    free = 0
    for q in range(np_):
        st[S_C + 32 + q] = 1 - st[P_BARN_FILL + q]
    for c in range(n):
        if LOC.annex <= st[C_LOC + c] < LOC.annex + np_:
            st[S_C + 32 + st[C_LOC + c] - LOC.annex] += st[C_RANK + c] - st[C_FILL + c]
    for q in range(np_):
        if st[S_C + 32 + q] != st[P_FREE_SPACE + q]:
            return 4
        free += st[S_C + 32 + q]
    if free != st[G_FREE_SPACE]:
        return 4
    if ent != st[G_ENT_N] - st[G_ENT_POS]:
        return 2
    for i in range(st[G_ENT_POS], st[G_ENT_N]):
        c = st[ENT + i]
        if st[C_LOC + c] != LOC.entrance:
            return 2
    in_inn = 0  # travellers and police in the rooms, against the rules' counts
    police = 0
    for r in range(NROOMS):
        c = st[R_CARD + r]
        if (c >= 0) != ((st[G_INN] >> r) & 1 != 0):
            return 3  # the rooms' mask disagrees with the rooms
        if c >= 0:
            inroom -= 1
            in_inn += 1
            police += 1 if st[C_TYPE + c] == CTYPE.police else 0
            if st[C_LOC + c] != LOC.room or st[C_SLOT + c] != r:
                return 3
    if inroom != 0 or in_inn != st[G_INN_N] or police != st[G_INN_POLICE]:
        return 3
    for r in range(NROOMS):
        tokens = 0
        for q in range(MAXP):
            tokens += st[R_TOKENS + r * MAXP + q]
        if tokens > 0 and (st[R_KEY + r] == CLOSED or (st[G_RS_ANY] == 0 and tokens > 1)):
            return 7
    return 0


@njit(cache=True, _nrt=False)
def check_now(st):
    """Record the first violation (with its round) in ``G_ERR``."""
    if st[G_ERR] != 0:
        return
    e = check(st)
    if e != 0:
        st[G_ERR] = e
        st[G_ERR_ROUND] = st[G_ROUND]
