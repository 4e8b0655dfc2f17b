"""The game loop: rounds of Evening, Night and Morning (BI-E, BI-N, BI-M) to the game end (BI-G).

:func:`advance` is the only loop over rounds and night actions.  A batch game
(``play.play_one``) runs it from a fresh state with every hook it asks for; a rollout
(``rollout.play_from``, ``rollout.play_to_seat``) runs it from a copied state, inside a night
or between rounds, with stops and without the search.  Its stops and hooks are arguments a
caller passes as None when it does not use them: numba prunes the ``is not None`` branch of
a None-typed argument before typing, so what a caller does not use is never compiled.
"""

from numba import njit

from ..index import nowrap
from . import layout as L
from .evening import evening
from .invariants import check_now
from .morning import morning
from .night import take_action
from .scoring import end_game
from .search_hook import search_action
from .state import log_event, seat_from_first
from .strategies import SEARCH
from .trajectory import record_round

#: What :func:`advance` returns: the game was scored after ``stop_round``; the game reached
#: its own end (BI-E4, BI-G4, BI-X2) and was scored; it stopped, not scored, before
#: ``stop_seat``'s night action.
STOPPED, ENDED, AT_SEAT = 0, 1, 2


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def check(st, checks):
    """Check the invariants if the rules ask for it (``G_CHECK``); with ``checks`` None (the
    caller knows they do not) nothing is compiled here."""
    if checks is not None:
        if st[L.G_CHECK] != 0:
            check_now(st)


# inline: each caller prunes the stops and hooks it passes as None (a function of its own
# would compile once per combination of them)
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def advance(st, pr, stop_round, stop_seat, search, checks, with_heur, with_greedy, with_random, traj, row0):
    """Play the game in ``st`` on from where it stands: between rounds (a fresh state after
    ``setup_game`` too) or inside a night, before the action at turn ``G_TURNS`` (BI-N1: two
    passes of one action each).  Scores the game (``end_game``) when it ends or stops at
    ``stop_round``; returns ``ENDED``, ``STOPPED`` or ``AT_SEAT``.

    Parameters
    ----------
    stop_round : int or None
        Stop (and score as if the game ended there) once round ``stop_round`` is over.
    stop_seat : int or None
        Stop before seat ``stop_seat``'s next night action, the state left inside the night
        just before it (not scored); ``-1`` never stops.  A state resumed inside a night
        plays the action at its current turn first, whoever's it is.
    search : int or None
        Not None if a seat plays ``search``: it decides its night actions ahead
        (``search_hook``) and its placements in the Evening.
    checks : int or None
        Not None to check the invariants when ``G_CHECK`` says so.
    with_heur, with_greedy, with_random : int or None
        The lineup's policies (``strategies.lineup_strategies``).
    traj : trajectory.TrajCols or None
        Record a row per seat at the end of each round, from row ``row0`` on.
    """
    if st[L.G_PHASE] == 3:
        return ENDED
    in_night = st[L.G_PHASE] == 1  # resumed inside a night: no Evening first
    skip = in_night  # the action at the current turn is played, even ``stop_seat``'s
    ended = True
    while True:
        if not in_night:
            if stop_round is not None:
                if st[L.G_ROUND] >= stop_round:
                    ended = False
                    break
            if st[L.G_ROUND] >= st[L.G_MAX_ROUNDS]:
                st[L.G_TRUNC] = 1  # BI-G4
                log_event(st, L.EVENT.truncated, -1, -1, st[L.G_ROUND], 0, 0)
                break
            st[L.G_ROUND] += 1
            st[L.G_PHASE] = 0
            log_event(st, L.EVENT.round, st[L.G_FIRST], -1, st[L.G_ROUND], st[L.G_SEASON], 0)
            played = evening(st, pr, search, (with_heur, with_greedy, with_random))
            check(st, checks)
            if not played:
                st[L.G_ROUND] -= 1  # the trigger round is not played
                break
            st[L.G_PHASE] = 1
        in_night = False
        np_ = st[L.G_NP]
        for k in range(st[L.G_TURNS] % (2 * np_), 2 * np_):  # BI-N1
            seat = seat_from_first(st, k)
            if stop_seat is not None:
                if seat == stop_seat and not skip:
                    return AT_SEAT
            skip = False
            if search is not None:
                if st[nowrap(L.P_STRAT + seat)] == SEARCH:
                    search_action(st, pr, seat)  # decided ahead: take_action plays it
            take_action(st, pr, seat, with_heur, with_greedy, with_random)
            check(st, checks)
        st[L.G_PHASE] = 2
        morning(st, pr, (with_heur, with_greedy, with_random))
        check(st, checks)
        if traj is not None:
            record_round(st, traj, row0)
        if st[L.G_OVER] != 0 or st[L.G_LAST_ROUND] != 0:
            break
    st[L.G_PHASE] = 3
    end_game(st, pr, (with_heur, with_greedy, with_random))
    check(st, checks)
    return ENDED if ended else STOPPED
