"""Rollouts: play a Bloody Inn game on from any copied state.

``play_from`` continues a game from where its state stands: before a night action (the
acting seat and the actions left follow from the turn counter, BI-N1: two passes of one
action each) or at the start of a round (a fresh state after ``setup_game``, or a state
between rounds).  It is the game loop of ``play.play_one`` without the search hook, so a
search's rollouts never search again; from a fresh state it plays exactly the game
``play_one`` plays (tests/test_bloody_inn_search.py).

``copy_game`` copies the game part of a state (counters, players, rooms, the used part
of every card list, the card locations and the Entrance) and leaves the tables and the
decision scratch alone: a rollout costs a copy of about a thousand integers, not of the
whole array.
"""

from numba import njit

from kernels.sigs import PR, ST, I, sig

from .evening import evening, fill_inn, put_traveller
from .invariants import check_now
from .layout import (
    C_FILL,
    C_LOC,
    C_POS,
    C_SLOT,
    ENT,
    EVENT,
    G_CHECK,
    G_FIRST,
    G_LAST_ROUND,
    G_MAX_ROUNDS,
    G_NCARDS,
    G_NP,
    G_OVER,
    G_PHASE,
    G_ROUND,
    G_SEASON,
    G_TRUNC,
    G_TURNS,
    LIST_N,
    LISTS,
    MAXC,
    NLISTS,
    TABLES_END,
)
from .morning import morning
from .night import take_action
from .scoring import end_game
from .state import log_event

NO_STOP = 1 << 40


@njit(sig(ST, ST), cache=True, _nrt=False)
def copy_game(dst, src):
    """Copy the game state of ``src`` into ``dst`` (same tables, scratch not copied)."""
    for i in range(TABLES_END, LISTS):  # counters, lineup, players, rooms, list lengths
        dst[i] = src[i]
    for lst in range(NLISTS):
        o = LISTS + lst * MAXC
        for i in range(src[LIST_N + lst]):
            dst[o + i] = src[o + i]
    n = src[G_NCARDS]
    for i in range(n):
        dst[C_POS + i] = src[C_POS + i]
        dst[C_LOC + i] = src[C_LOC + i]
        dst[C_SLOT + i] = src[C_SLOT + i]
        dst[C_FILL + i] = src[C_FILL + i]
        dst[ENT + i] = src[ENT + i]


@njit(sig(ST, PR), cache=True, _nrt=False)
def _rest_of_night(st, pr):
    """The night actions still to take this round, then the morning (BI-N1, BI-M)."""
    check = st[G_CHECK] != 0
    np_ = st[G_NP]
    for k in range(st[G_TURNS] % (2 * np_), 2 * np_):
        take_action(st, pr, (st[G_FIRST] + k % np_) % np_)
        if check:
            check_now(st)
    st[G_PHASE] = 2
    morning(st, pr)
    if check:
        check_now(st)


@njit(sig(ST, PR, I), cache=True, _nrt=False)
def play_from(st, pr, stop_round):
    """Play the game in ``st`` on to its end (BI-G), or until round ``stop_round`` is over,
    with the strategies of ``st``'s seats and the parameters ``pr``; then score it
    (``end_game``: a stopped game is scored as if it ended there).  Returns True if the
    game reached its own end."""
    check = st[G_CHECK] != 0
    ended = False
    if st[G_PHASE] == 1:  # inside a night
        _rest_of_night(st, pr)
        ended = st[G_OVER] != 0 or st[G_LAST_ROUND] != 0
    elif st[G_PHASE] == 3:
        return True
    while not ended:
        if st[G_ROUND] >= stop_round:
            break
        if st[G_ROUND] >= st[G_MAX_ROUNDS]:
            st[G_TRUNC] = 1  # BI-G4
            log_event(st, EVENT.truncated, -1, -1, st[G_ROUND], 0, 0)
            ended = True
            break
        st[G_ROUND] += 1
        st[G_PHASE] = 0
        log_event(st, EVENT.round, st[G_FIRST], -1, st[G_ROUND], st[G_SEASON], 0)
        played = evening(st, pr)
        if check:
            check_now(st)
        if not played:
            st[G_ROUND] -= 1  # the trigger round is not played
            ended = True
            break
        st[G_PHASE] = 1
        _rest_of_night(st, pr)
        ended = st[G_OVER] != 0 or st[G_LAST_ROUND] != 0
    st[G_PHASE] = 3
    end_game(st, pr)
    if check:
        check_now(st)
    return ended


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
    played = fill_inn(st, pr)
    if st[G_CHECK] != 0:
        check_now(st)
    if not played:
        st[G_ROUND] -= 1  # the trigger round is not played
        st[G_PHASE] = 3
        end_game(st, pr)
        if st[G_CHECK] != 0:
            check_now(st)
        return True
    st[G_PHASE] = 1
    return play_from(st, pr, stop_round)


# --- a rollout that stops at a seat's next night action (ISMCTS, strat_search) -------------


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def _night_to_seat(st, pr, p, skip):
    """``_rest_of_night`` that stops before seat ``p``'s night action (not the one at the
    current turn when ``skip`` is 1: it is being played).  Returns 1 if it stopped."""
    check = st[G_CHECK] != 0
    np_ = st[G_NP]
    for k in range(st[G_TURNS] % (2 * np_), 2 * np_):
        seat = (st[G_FIRST] + k % np_) % np_
        if seat == p and skip == 0:
            return 1
        skip = 0
        take_action(st, pr, seat)
        if check:
            check_now(st)
    st[G_PHASE] = 2
    morning(st, pr)
    if check:
        check_now(st)
    return 0


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def play_to_seat(st, pr, p, stop_round):
    """``play_from`` that stops before seat ``p``'s next night action (BI-N1), the state
    left inside the night just before it; the action at the current turn (a decision stashed
    for ``p``, or another seat's) is played first.  Returns 1 if it stopped there, 0 if the
    game ended or reached ``stop_round`` and was scored (``end_game``) as ``play_from`` does."""
    check = st[G_CHECK] != 0
    ended = False
    if st[G_PHASE] == 1:
        if _night_to_seat(st, pr, p, 1):
            return 1
        ended = st[G_OVER] != 0 or st[G_LAST_ROUND] != 0
    elif st[G_PHASE] == 3:
        return 0
    while not ended:
        if st[G_ROUND] >= stop_round:
            break
        if st[G_ROUND] >= st[G_MAX_ROUNDS]:
            st[G_TRUNC] = 1  # BI-G4
            log_event(st, EVENT.truncated, -1, -1, st[G_ROUND], 0, 0)
            break
        st[G_ROUND] += 1
        st[G_PHASE] = 0
        log_event(st, EVENT.round, st[G_FIRST], -1, st[G_ROUND], st[G_SEASON], 0)
        played = evening(st, pr)
        if check:
            check_now(st)
        if not played:
            st[G_ROUND] -= 1  # the trigger round is not played
            break
        st[G_PHASE] = 1
        if _night_to_seat(st, pr, p, 0):
            return 1
        ended = st[G_OVER] != 0 or st[G_LAST_ROUND] != 0
    st[G_PHASE] = 3
    end_game(st, pr)
    if check:
        check_now(st)
    return 0
