"""Rollouts: play a Bloody Inn game on from any copied state.

``play_from`` continues a game from where its state stands: before a night action (the
acting seat and the actions left follow from the turn counter, BI-N1: two passes of one
action each) or at the start of a round (a fresh state after ``setup_game``, or a state
between rounds).  It is the game loop (``loop.advance``) of ``play.play_one`` without the
search, so a search's rollouts never search again; from a fresh state it plays exactly the
game ``play_one`` plays (tests/test_bloody_inn_search.py).

``copy_game`` copies the game part of a state (counters, players, rooms, the used part
of every card list, the card locations and the Entrance) and leaves the tables and the
decision scratch alone: a rollout costs a copy of about a thousand integers, not of the
whole array.
"""

from numba import njit

from kernels.sigs import PR, ST, I, sig

from ..index import nowrap
from . import layout as L
from .evening import fill_inn, put_traveller
from .loop import AT_SEAT, ENDED, advance, check
from .scoring import end_game
from .strategies import ALL, ON

NO_STOP = 1 << 40


@njit(sig(ST, ST), cache=True, _nrt=False)
def copy_game(dst, src):
    """Copy the game state of ``src`` into ``dst`` (same tables, scratch not copied)."""
    for i in range(L.TABLES_END, L.LISTS):  # counters, lineup, players, rooms, list lengths
        dst[nowrap(i)] = src[nowrap(i)]
    for lst in range(L.NLISTS):
        o = L.LISTS + lst * L.MAXC
        for i in range(src[nowrap(L.LIST_N + lst)]):
            dst[nowrap(o + i)] = src[nowrap(o + i)]
    n = src[L.G_NCARDS]
    for i in range(n):
        dst[nowrap(L.C_POS + i)] = src[nowrap(L.C_POS + i)]
        dst[nowrap(L.C_LOC + i)] = src[nowrap(L.C_LOC + i)]
        dst[nowrap(L.C_SLOT + i)] = src[nowrap(L.C_SLOT + i)]
        dst[nowrap(L.C_FILL + i)] = src[nowrap(L.C_FILL + i)]
        dst[nowrap(L.ENT + i)] = src[nowrap(L.ENT + i)]


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def _rollout(st, pr, stop_round, stop_seat):
    """``loop.advance`` with every policy, the invariant checks the rules ask for, no search
    (a search's rollouts never search again) and the stops as numbers (``stop_seat`` -1: none):
    the one compiled loop behind every rollout."""
    return advance(st, pr, stop_round, stop_seat, None, ON, ON, ON, ON, None, 0)


@njit(sig(ST, PR, I), cache=True, _nrt=False)
def play_from(st, pr, stop_round):
    """Play the game in ``st`` on to its end (BI-G), or until round ``stop_round`` is over,
    with the strategies of ``st``'s seats and the parameters ``pr``; then score it
    (``end_game``: a stopped game is scored as if it ended there).  Returns True if the
    game reached its own end."""
    return _rollout(st, pr, stop_round, -1) == ENDED


@njit(sig(ST, PR), cache=True, _nrt=False)
def play_to_end(st, pr):
    """``play_from`` without a stop."""
    return play_from(st, pr, NO_STOP)


@njit(sig(ST, PR, I, I, I), cache=True, _nrt=False)
def play_from_placement(st, pr, card, room, stop_round):
    """``play_from`` a placement decision (BI-E1): the first player has drawn ``card``;
    put it in ``room``, fill the rest of the inn with the seats' own strategies, then play
    on as ``play_from`` does (the round the Evening belongs to is played unless BI-E4 ends
    the game here)."""
    put_traveller(st, card, room)
    played = fill_inn(st, pr, None, ALL)
    check(st, ON)
    if not played:
        st[L.G_ROUND] -= 1  # the trigger round is not played
        st[L.G_PHASE] = 3
        end_game(st, pr, ALL)
        check(st, ON)
        return True
    st[L.G_PHASE] = 1
    return play_from(st, pr, stop_round)


# --- a rollout that stops at a seat's next night action (ISMCTS, strat_search) -------------


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def play_to_seat(st, pr, p, stop_round):
    """``play_from`` that stops before seat ``p``'s next night action (BI-N1), the state
    left inside the night just before it; the action at the current turn (a decision stashed
    for ``p``, or another seat's) is played first.  Returns 1 if it stopped there, 0 if the
    game ended or reached ``stop_round`` and was scored (``end_game``) as ``play_from`` does."""
    return 1 if _rollout(st, pr, stop_round, p) == AT_SEAT else 0
