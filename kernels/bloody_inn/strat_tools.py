"""Helpers for the scripted strategies: the clock of the game, from public counts only.

Everything here reads only what any player may know: the public counters (Entrance and
Exit sizes, season, round, the turn counter) and the rooms.
"""

import numba
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from . import layout as L

#: share of the cards still to come in season 1 expected back in the season-2 Entrance
#: (travellers that leave alive plus discarded accomplices); a rough public estimate.
SEASON2_SHARE = 0.65

if numba.config.DISABLE_JIT:  # plain Python (``sim bench``'s JIT table): no LLVM intrinsic

    def lowest_set_bit(mask):
        """Index of the lowest set bit of ``mask`` > 0 (a room of the ``G_INN`` mask)."""
        m = int(mask)
        return (m & -m).bit_length() - 1

else:

    @intrinsic
    def lowest_set_bit(typingctx, mask):
        """Index of the lowest set bit of ``mask`` > 0 (a room of the ``G_INN`` mask): one
        ``tzcnt`` instruction (``llvm.cttz``) in compiled code, through numba's public
        extension API."""
        if not isinstance(mask, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return mask(mask), codegen


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _turn_of_round(turns, np_):
    """``turns % (2 * np_)``: the action of the night ``turns`` is at (BI-N1), divided by a
    constant for each player count (a multiply), not by a variable (a ~20-cycle division)."""
    if np_ == 3:
        return turns % 6
    if np_ == 4:
        return turns % 8
    if np_ == 2:
        return turns % 4
    return turns % (2 * np_)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # three callers, ~120 calls a game
def clock(st):
    """(rounds left incl. this one, travellers in the inn, police among them, actions the
    acting player has left after this one, no round after this one), all public."""
    n = st[L.G_INN_N]  # counted by the rules as travellers enter and leave the rooms
    police = st[L.G_INN_POLICE]
    np_ = st[L.G_NP]
    my_left = 1 if _turn_of_round(st[L.G_TURNS], np_) < np_ else 0  # BI-N1: two passes a round
    ent_left = st[L.G_ENT_N] - st[L.G_ENT_POS]
    final_season = st[L.G_SEASON] >= st[L.G_SEASONS]
    # BI-E4: in the last season an Entrance with fewer cards than players ends the game
    last = st[L.G_LAST_ROUND] != 0 or (final_season and ent_left < np_)
    if st[L.G_LAST_ROUND] != 0:
        rl = 1.0
    else:
        rooms = st[L.G_OPEN_ROOMS] if st[L.G_OPEN_ROOMS] > 0 else 1
        rl = 1.0 + ent_left / rooms
        if not final_season:
            rl += (st[L.G_EXIT_N] + SEASON2_SHARE * (ent_left + n)) / rooms
    return rl, n, police, my_left, last
