"""The batch entry point: ``play_games`` plays a range of games in parallel (threads).

Games are split into blocks (a few per thread); each block owns one flat state array
(tables copied in once, then the game state, the decision scratch and an event buffer)
and plays its games in order.  Game ``g`` draws only from its own stream keyed by
(seed, g) and writes only row ``g`` of the output columns, so results do not depend on
the number of threads or on how a run is chunked.
"""

import threading

import numba
import numpy as np
from numba import njit

from kernels.rng import stream_key

from .evening import evening
from .invariants import check_now
from .layout import (
    EV_BASE,
    EV_FIELDS,
    EVENT,
    G_CHECK,
    G_DECK_SIZE,
    G_ERR,
    G_ERR_ROUND,
    G_EV_CAP,
    G_EV_N,
    G_EV_OVERFLOW,
    G_FIRST,
    G_GAME_ID,
    G_LAST_ROUND,
    G_LOG,
    G_MAX_ROUNDS,
    G_NLINEUP,
    G_NP,
    G_OPEN_ROOMS,
    G_OVER,
    G_PHASE,
    G_RNG,
    G_ROTATE,
    G_ROUND,
    G_SEARCH_AT,
    G_SEASON,
    G_TRUNC,
    G_TURNS,
    L_STRAT,
    P_ANNEX_MASK,
    P_BRIBED_R,
    P_BRIBES,
    P_BUILDS,
    P_BURIED,
    P_BURIED_MONEY,
    P_BURIED_R,
    P_CASH,
    P_CHEQUES,
    P_FINES,
    P_KILLED_R,
    P_KILLS,
    P_LINEUP,
    P_PEAS_BRIBED,
    P_PEAS_KILLED,
    P_PLACE,
    P_SCORE,
    P_SOLO_LOST,
    P_STRAT,
    P_WAGES,
    P_WINNER,
    ROTATE_DUPLICATE,
    SEARCH_SCRATCH,
    STATE_END,
)
from .morning import morning
from .night import take_action
from .scoring import end_game
from .setup import setup_game
from .state import log_event
from .strategies import SEARCH

#: The search seat's hook (``strat_search.search_action``), bound by :func:`load_search` only
#: for a lineup with a search seat: importing strat_search compiles the search and its
#: rollouts (their functions have explicit signatures, so they compile at import), which a
#: run without search seats must not pay for.  Only ``play_one`` with ``search`` not None
#: reads it, and numba takes a global's value when it compiles.
search_action = None


def load_search():
    """Bind :data:`search_action` (imports ``strat_search``); before ``play_one`` with a
    ``search`` argument is first called or compiled."""
    global search_action
    if search_action is None:
        from .strat_search import search_action as hook

        search_action = hook


# games columns (int64 matrix rows, converted to narrow types by the adapter)
GAME_COLS = (
    "rounds",
    "turns",
    "winner",
    "n_winners",
    "truncated",
    "deck_size",
    "open_rooms",
    "seasons_played",
    "invariant_error",
    "error_round",
    "winners",
)
# seat columns
SEAT_COLS = (
    "score",
    "place",
    "winner",
    "lineup",
    "cash",
    "cheques",
    "buried",
    "buried_money",
    "kills",
    "bribes",
    "builds",
    "fines",
    "wages",
    "solo_lost",
    "annex_mask",
    "bribed_r0",
    "bribed_r1",
    "bribed_r2",
    "bribed_r3",
    "killed_r0",
    "killed_r1",
    "killed_r2",
    "killed_r3",
    "buried_r0",
    "buried_r1",
    "buried_r2",
    "buried_r3",
    "peasants_bribed",
    "peasants_killed",
)


@njit(cache=True, _nrt=False)
def _check(st, checks):
    """Check the invariants if the rules ask for it (``G_CHECK``); with ``checks`` None (the
    caller knows they do not) nothing is compiled here."""
    if checks is not None:
        if st[G_CHECK] != 0:
            check_now(st)


@njit(cache=True, _nrt=False)
def play_one(st, pr, search=None, checks=1):
    """Play the game set up in ``st`` to its end (BI-S .. BI-G).

    ``search`` is None unless the lineup has a ``search`` seat (then :func:`load_search`
    first); ``checks`` None when the rules do not ask for invariant checks (by default they
    are run when ``G_CHECK`` says so).  A None-typed argument prunes its ``is not None``
    branch at compile time, so a run without search seats never compiles the search and
    its rollouts, nor a run without checks the invariants.
    """
    setup_game(st)
    _check(st, checks)
    while True:
        if st[G_ROUND] >= st[G_MAX_ROUNDS]:
            st[G_TRUNC] = 1  # BI-G4
            log_event(st, EVENT.truncated, -1, -1, st[G_ROUND], 0, 0)
            break
        st[G_ROUND] += 1
        st[G_PHASE] = 0
        log_event(st, EVENT.round, st[G_FIRST], -1, st[G_ROUND], st[G_SEASON], 0)
        played = evening(st, pr)
        _check(st, checks)
        if not played:
            st[G_ROUND] -= 1  # the trigger round is not played
            break
        st[G_PHASE] = 1
        np_ = st[G_NP]
        for _ in range(2):  # BI-N1: two passes of one action each
            for i in range(np_):
                seat = (st[G_FIRST] + i) % np_
                if search is not None:
                    if st[P_STRAT + seat] == SEARCH:
                        search_action(st, pr, seat)  # decided ahead: take_action plays it
                take_action(st, pr, seat)
                _check(st, checks)
        st[G_PHASE] = 2
        morning(st, pr)
        _check(st, checks)
        if st[G_OVER] != 0 or st[G_LAST_ROUND] != 0:
            break
    st[G_PHASE] = 3
    end_game(st, pr)
    _check(st, checks)


@njit(cache=True, _nrt=False)
def _write_rows(st, g, games_out, seats_out):
    np_ = st[G_NP]
    n_win = 0
    winner = -1
    mask = 0
    for p in range(np_):
        if st[P_WINNER + p] != 0:
            n_win += 1
            winner = p
            mask |= 1 << p
    row = games_out[g]
    row[0] = st[G_ROUND]
    row[1] = st[G_TURNS]
    row[2] = winner if n_win == 1 else -1  # a shared win names no seat (design.md)
    row[3] = n_win
    row[4] = st[G_TRUNC]
    row[5] = st[G_DECK_SIZE]
    row[6] = st[G_OPEN_ROOMS]
    row[7] = st[G_SEASON]
    row[8] = st[G_ERR]
    row[9] = st[G_ERR_ROUND]
    row[10] = mask  # bit p: seat p is among the winners
    for p in range(np_):
        r = seats_out[g * np_ + p]
        r[0] = st[P_SCORE + p]
        r[1] = st[P_PLACE + p]
        r[2] = st[P_WINNER + p]
        r[3] = st[P_LINEUP + p]
        r[4] = st[P_CASH + p]
        r[5] = st[P_CHEQUES + p]
        r[6] = st[P_BURIED + p]
        r[7] = st[P_BURIED_MONEY + p]
        r[8] = st[P_KILLS + p]
        r[9] = st[P_BRIBES + p]
        r[10] = st[P_BUILDS + p]
        r[11] = st[P_FINES + p]
        r[12] = st[P_WAGES + p]
        r[13] = st[P_SOLO_LOST + p]
        r[14] = st[P_ANNEX_MASK + p]
        for k in range(4):
            r[15 + k] = st[P_BRIBED_R + p * 4 + k]
            r[19 + k] = st[P_KILLED_R + p * 4 + k]
            r[23 + k] = st[P_BURIED_R + p * 4 + k]
        r[27] = st[P_PEAS_BRIBED + p]
        r[28] = st[P_PEAS_KILLED + p]


def play_games(
    template,
    params,
    seed,
    first_game,
    n_games,
    n_blocks,
    ev_rows_per_block,
    ev_game_cap,
    games_out,
    seats_out,
    ev_out,
    ev_count,
):
    """Play games ``first_game .. first_game + n_games - 1``.

    Parameters
    ----------
    template : int64[:]
        A state array with the tables and rules filled in (``sim.games.bloody_inn``).
    params : float64[:]
        Strategy parameters, ``MAXPARAM`` per lineup entry, then as much room again (a
        search seat writes its rollout policy's parameters there).
    games_out : int64[n_games, len(GAME_COLS)]
    seats_out : int64[n_games * players, len(SEAT_COLS)]
    ev_out : int64[n_blocks * ev_rows_per_block, EV_FIELDS + 1]
        Event rows per block (first column: game index within the chunk); only written
        when the template asks for events.
    ev_game_cap : int
        Event rows one game may log.
    ev_count : int64[n_blocks]
        Event rows written by each block; -1 if the block's buffer overflowed, -2 if one
        game logged more than ``ev_game_cap`` rows (the caller retries with larger buffers —
        results are deterministic, so a retry is exact).

    Only a lineup with a ``search`` seat gets the kernel compiled with the search (its
    scratch and hook), only rules with ``check_invariants`` with the invariant checks.
    The block kernel releases the GIL, so Python can write the last chunk meanwhile.
    """
    lineup = template[L_STRAT : L_STRAT + template[G_NLINEUP]]
    search = None
    if (lineup == SEARCH).any():
        load_search()
        search = np.int64(SEARCH_SCRATCH)
    checks = np.int64(1) if template[G_CHECK] != 0 else None
    per = (n_games + n_blocks - 1) // n_blocks
    ev_cap = ev_game_cap if template[G_LOG] != 0 else 0
    scratch = SEARCH_SCRATCH if search is not None else 0

    def play_block(b):
        # the block's own copies: the threads never share a cache line or a refcount
        st = np.empty(STATE_END + ev_cap * EV_FIELDS + scratch, dtype=np.int64)
        st[:STATE_END] = template[:STATE_END]
        st[G_SEARCH_AT] = STATE_END + ev_cap * EV_FIELDS if scratch > 0 else 0
        st[G_EV_CAP] = ev_cap
        lo = b * per
        _play_block(
            st,
            params.copy(),
            np.int64(seed),
            np.int64(first_game),
            np.int64(lo),
            np.int64(min(n_games, lo + per)),
            np.int64(b),
            np.int64(ev_rows_per_block),
            games_out,
            seats_out,
            ev_out,
            ev_count,
            search,
            checks,
        )

    run_blocks(n_blocks, play_block)


def run_blocks(n_blocks, play_block):
    """Call ``play_block(b)`` for blocks ``0 .. n_blocks-1`` on ``numba.get_num_threads()``
    threads (this one included), each thread taking the next block not yet taken.

    Plain threads instead of a ``prange`` loop: the block kernel releases the GIL, so they
    run in parallel all the same, and the kernel is compiled once as an ordinary function
    instead of as a parallel function plus its gufunc (each of which optimised and emitted
    the whole game again: about a fifth of the cold compile).  Which thread plays a block
    does not matter: a block's games and rows are the same whoever plays them.
    """
    blocks = iter(range(n_blocks))  # next() is atomic under the GIL: each block once
    failed = []

    def work():
        try:
            for b in blocks:
                play_block(b)
        except BaseException as exc:  # passed on to the caller below
            failed.append(exc)

    helpers = [
        threading.Thread(target=work, daemon=True) for _ in range(min(numba.get_num_threads(), n_blocks) - 1)
    ]
    for t in helpers:
        t.start()
    try:
        work()
    finally:
        for t in helpers:
            t.join()
    if failed:
        raise failed[0]


@njit(cache=True, nogil=True, _nrt=False)
def _play_block(
    st,
    pr,
    seed,
    first_game,
    lo,
    hi,
    b,
    ev_rows_per_block,
    games_out,
    seats_out,
    ev_out,
    ev_count,
    search,
    checks,
):
    """Block ``b`` of :func:`play_games`: games ``lo .. hi-1`` of the chunk (game id
    ``first_game + g``) on the block's own state ``st`` and parameters ``pr``; ``search`` is
    None or the search scratch size, ``checks`` 1 or None (see :func:`play_one`)."""
    log = st[G_LOG] != 0
    base = b * ev_rows_per_block
    used = 0
    for g in range(lo, hi):
        gid = first_game + g
        st[G_GAME_ID] = gid
        # duplicate deals: the games of one deal (one per rotation of the lineup) share
        # the stream, so the shuffle, keys and first seat are the same in each
        deal = gid // st[G_NLINEUP] if st[G_ROTATE] == ROTATE_DUPLICATE else gid
        st[G_RNG] = stream_key(seed, deal)
        play_one(st, pr, search, checks)
        _write_rows(st, g, games_out, seats_out)
        if log:
            n = st[G_EV_N]
            if st[G_EV_OVERFLOW] != 0:
                used = -2
                break
            if used + n > ev_rows_per_block:
                used = -1
                break
            for i in range(n):
                o = EV_BASE + i * EV_FIELDS
                ev_out[base + used + i, 0] = g
                for f in range(EV_FIELDS):
                    ev_out[base + used + i, 1 + f] = st[o + f]
            used += n
    ev_count[b] = used
