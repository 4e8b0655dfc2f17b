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

from ..index import nowrap
from . import layout as L
from .state import list_id


@njit(cache=True, _nrt=False)
def check(st):
    """Return the first violated invariant's code, 0 if none."""
    n = st[L.G_NCARDS]
    np_ = st[L.G_NP]
    # per-location recount
    bistro = 0
    exit_ = 0
    ent = 0
    inroom = 0
    for q in range(L.MAXP):
        st[nowrap(L.S_C + q)] = 0  # hand
        st[nowrap(L.S_C + 8 + q)] = 0  # corpse
        st[nowrap(L.S_C + 16 + q)] = 0  # annex
        st[nowrap(L.S_C + 24 + q)] = 0  # barn fill
    for c in range(n):
        loc = st[nowrap(L.C_LOC + c)]
        t = st[nowrap(L.C_TYPE + c)]
        if loc == L.LOC.bistro:
            bistro += 1
            if t != L.CTYPE.peasant:
                return 6
        elif loc == L.LOC.exit:
            exit_ += 1
            if t == L.CTYPE.peasant:
                return 6
        elif loc == L.LOC.entrance:
            ent += 1
            if t == L.CTYPE.peasant:
                return 6
        elif loc == L.LOC.room:
            inroom += 1
            r = st[nowrap(L.C_SLOT + c)]
            if r < 0 or r >= L.NROOMS or st[nowrap(L.R_CARD + r)] != c or st[nowrap(L.R_KEY + r)] == L.CLOSED:
                return 3
        elif L.LOC.hand <= loc < L.LOC.hand + np_:
            st[nowrap(L.S_C + loc - L.LOC.hand)] += 1
        elif L.LOC.corpse <= loc < L.LOC.corpse + np_:
            st[nowrap(L.S_C + 8 + loc - L.LOC.corpse)] += 1
        elif L.LOC.annex <= loc < L.LOC.annex + np_:
            st[nowrap(L.S_C + 16 + loc - L.LOC.annex)] += 1
            if t == L.CTYPE.peasant or st[nowrap(L.K_ANNEXABLE + st[nowrap(L.C_KIND + c)])] == 0:
                return 6
            fill = 0
            for c2 in range(n):
                if st[nowrap(L.C_LOC + c2)] >= L.LOC.buried and st[nowrap(L.C_SLOT + c2)] == c:
                    fill += 1
            if fill != st[nowrap(L.C_FILL + c)] or fill > st[nowrap(L.C_RANK + c)]:
                return 4
        elif L.LOC.buried <= loc < L.LOC.buried + np_:
            d = st[nowrap(L.C_SLOT + c)]
            owner = loc - L.LOC.buried
            if d < 0:
                if L.BARN_SLOT - d != owner:
                    return 4
                st[nowrap(L.S_C + 24 + owner)] += 1
            elif st[nowrap(L.C_LOC + d)] != L.LOC.annex + owner:
                return 4
        elif loc != L.LOC.box:
            return 6
    if bistro != st[L.G_BISTRO_N] or exit_ != st[L.G_EXIT_N]:
        return 1
    for q in range(np_):
        if (
            st[nowrap(L.S_C + q)] != st[nowrap(L.P_HAND_N + q)]
            or st[nowrap(L.S_C + 8 + q)] != st[nowrap(L.P_CORPSE_N + q)]
        ):
            return 1
        if st[nowrap(L.S_C + 16 + q)] != st[nowrap(L.P_ANNEX_N + q)]:
            return 1
        if st[nowrap(L.S_C + 24 + q)] != st[nowrap(L.P_BARN_FILL + q)] or st[nowrap(L.P_BARN_FILL + q)] > 1:
            return 4
        if st[nowrap(L.P_CHEQUES + q)] < 0 or st[nowrap(L.P_CASH + q)] < 0:
            return 5
        if st[nowrap(L.P_CASH + q)] > st[L.G_CAP] and st[L.G_UNLIMITED] == 0:
            if not (st[L.G_END_CAPPED] == 0 and st[L.G_PHASE] == 3):  # BI-V8 end bonuses
                return 5
    # the card lists agree with the card locations (counts were compared above)
    for l in range(L.NLISTS):
        for i in range(st[nowrap(L.LIST_N + l)]):
            c = st[nowrap(L.LISTS + l * L.MAXC + i)]
            if c < 0 or c >= n or list_id(st[nowrap(L.C_LOC + c)]) != l or st[nowrap(L.C_POS + c)] != i:
                return 1
    # free burial places, per player (P_FREE_SPACE) and in all (G_FREE_SPACE)
    free = 0
    for q in range(np_):
        st[nowrap(L.S_C + 32 + q)] = 1 - st[nowrap(L.P_BARN_FILL + q)]
    for c in range(n):
        if L.LOC.annex <= st[nowrap(L.C_LOC + c)] < L.LOC.annex + np_:
            st[nowrap(L.S_C + 32 + st[nowrap(L.C_LOC + c)] - L.LOC.annex)] += (
                st[nowrap(L.C_RANK + c)] - st[nowrap(L.C_FILL + c)]
            )
    for q in range(np_):
        if st[nowrap(L.S_C + 32 + q)] != st[nowrap(L.P_FREE_SPACE + q)]:
            return 4
        free += st[nowrap(L.S_C + 32 + q)]
    if free != st[L.G_FREE_SPACE]:
        return 4
    if ent != st[L.G_ENT_N] - st[L.G_ENT_POS]:
        return 2
    for i in range(st[L.G_ENT_POS], st[L.G_ENT_N]):
        c = st[nowrap(L.ENT + i)]
        if st[nowrap(L.C_LOC + c)] != L.LOC.entrance:
            return 2
    in_inn = 0  # travellers and police in the rooms, against the rules' counts
    police = 0
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if (c >= 0) != ((st[L.G_INN] >> r) & 1 != 0):
            return 3  # the rooms' mask disagrees with the rooms
        if c >= 0:
            inroom -= 1
            in_inn += 1
            police += 1 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police else 0
            if st[nowrap(L.C_LOC + c)] != L.LOC.room or st[nowrap(L.C_SLOT + c)] != r:
                return 3
    if inroom != 0 or in_inn != st[L.G_INN_N] or police != st[L.G_INN_POLICE]:
        return 3
    for r in range(L.NROOMS):
        tokens = 0
        for q in range(L.MAXP):
            tokens += st[nowrap(L.R_TOKENS + r * L.MAXP + q)]
        if tokens > 0 and (st[nowrap(L.R_KEY + r)] == L.CLOSED or (st[L.G_RS_ANY] == 0 and tokens > 1)):
            return 7
    return 0


@njit(cache=True, _nrt=False)
def check_now(st):
    """Record the first violation (with its round) in ``G_ERR``."""
    if st[L.G_ERR] != 0:
        return
    e = check(st)
    if e != 0:
        st[L.G_ERR] = e
        st[L.G_ERR_ROUND] = st[L.G_ROUND]
