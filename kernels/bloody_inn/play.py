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

from kernels import compile_once
from kernels.rng import stream_key

from ..index import nowrap
from . import CACHE_DIR
from . import layout as L
from .loop import advance, check
from .setup import setup_game
from .strategies import ON, SEARCH, lineup_strategies


# inline: one library less that re-optimises the whole game at cold compile
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def play_one(st, pr, search=None, checks=1, with_heur=ON, with_greedy=ON, with_random=ON, traj=None, row0=0):
    """Play the game set up in ``st`` to its end (BI-S .. BI-G): ``setup_game``, then the game
    loop (``loop.advance``) without stops.

    ``search`` is None unless the lineup has a ``search`` seat; ``checks`` None when the
    rules do not ask for invariant checks (by default they are run when ``G_CHECK`` says
    so); ``with_*`` the policies the lineup plays (``strategies.lineup_strategies``; by
    default all).  A None-typed argument prunes its ``is not None`` branch at compile time,
    so a run without search seats never compiles the search and its rollouts, nor a run
    without checks the invariants, nor an all-``expert`` run the ``greedy`` and ``random``
    policies.  (Three arguments, not the ``strats`` tuple the rules take: inlined, their
    branches are pruned on the block kernel's own arguments, which a tuple's items are
    not.)  ``traj`` is None, or the trajectory columns (``trajectory.TrajCols``) that get
    game's rows from ``row0`` on, one per seat at the end of each round: None compiles no
    recording.
    """
    setup_game(st)
    check(st, checks)
    advance(st, pr, None, None, search, checks, with_heur, with_greedy, with_random, traj, row0)


# inline: its own library would link and optimise it once more, and build a
# Python wrapper unboxing the two named tuples of ~40 arrays, which nothing calls
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _write_rows(st, g, games, seats):
    """Row ``g`` of the games columns and rows ``g * players + seat`` of the seat columns
    (``layout.GameCols`` / ``layout.SeatCols``, each a typed 1-D array: a store narrows).
    A function of its own: Numba loses stores made through a named tuple's field in a
    ``prange`` body itself (kernels/layout_tools.py); the block kernel has no ``prange``."""
    np_ = st[L.G_NP]
    n_win = 0
    winner = -1
    mask = 0
    for p in range(np_):
        if st[nowrap(L.P_WINNER + p)] != 0:
            n_win += 1
            winner = p
            mask |= 1 << p
    games.rounds[g] = st[L.G_ROUND]
    games.turns[g] = st[L.G_TURNS]
    games.winner[g] = winner if n_win == 1 else -1  # a shared win names no seat (design.md)
    games.n_winners[g] = n_win
    games.truncated[g] = st[L.G_TRUNC]
    games.winners[g] = mask  # bit p: seat p is among the winners
    games.deck_size[g] = st[L.G_DECK_SIZE]
    games.open_rooms[g] = st[L.G_OPEN_ROOMS]
    games.seasons_played[g] = st[L.G_SEASON]
    games.invariant_error[g] = st[L.G_ERR]
    games.error_round[g] = st[L.G_ERR_ROUND]
    for p in range(np_):
        r = g * np_ + p
        seats.score[r] = st[nowrap(L.P_SCORE + p)]
        seats.place[r] = st[nowrap(L.P_PLACE + p)]
        # BI-G3: each of the k seats sharing the win gets 1/k (design.md)
        seats.win[r] = 1.0 / n_win if st[nowrap(L.P_WINNER + p)] != 0 else 0.0
        seats.lineup[r] = st[nowrap(L.P_LINEUP + p)]
        seats.cash[r] = st[nowrap(L.P_CASH + p)]
        seats.cheques[r] = st[nowrap(L.P_CHEQUES + p)]
        seats.buried[r] = st[nowrap(L.P_BURIED + p)]
        seats.buried_money[r] = st[nowrap(L.P_BURIED_MONEY + p)]
        seats.kills[r] = st[nowrap(L.P_KILLS + p)]
        seats.bribes[r] = st[nowrap(L.P_BRIBES + p)]
        seats.builds[r] = st[nowrap(L.P_BUILDS + p)]
        seats.fines[r] = st[nowrap(L.P_FINES + p)]
        seats.wages[r] = st[nowrap(L.P_WAGES + p)]
        seats.solo_lost[r] = st[nowrap(L.P_SOLO_LOST + p)]
        seats.annex_mask[r] = st[nowrap(L.P_ANNEX_MASK + p)]
        b = L.P_BRIBED_R + p * 4  # by rank 0..3
        seats.bribed_r0[r] = st[nowrap(b)]
        seats.bribed_r1[r] = st[nowrap(b + 1)]
        seats.bribed_r2[r] = st[nowrap(b + 2)]
        seats.bribed_r3[r] = st[nowrap(b + 3)]
        k = L.P_KILLED_R + p * 4
        seats.killed_r0[r] = st[nowrap(k)]
        seats.killed_r1[r] = st[nowrap(k + 1)]
        seats.killed_r2[r] = st[nowrap(k + 2)]
        seats.killed_r3[r] = st[nowrap(k + 3)]
        u = L.P_BURIED_R + p * 4
        seats.buried_r0[r] = st[nowrap(u)]
        seats.buried_r1[r] = st[nowrap(u + 1)]
        seats.buried_r2[r] = st[nowrap(u + 2)]
        seats.buried_r3[r] = st[nowrap(u + 3)]
        seats.peasants_bribed[r] = st[nowrap(L.P_PEAS_BRIBED + p)]
        seats.peasants_killed[r] = st[nowrap(L.P_PEAS_KILLED + p)]


def play_games(
    template,
    params,
    seed,
    first_game,
    n_games,
    bounds,
    ev_rows_per_block,
    ev_game_cap,
    games,
    seats,
    ev_out,
    ev_count,
    traj=None,
    tr_rows_per_block=0,
    tr_count=None,
):
    """Play games ``first_game .. first_game + n_games - 1``.

    Parameters
    ----------
    bounds : int64[n_blocks + 1]
        Where each block of games starts, then ``n_games`` (``kernels.layout_tools.block_bounds``);
        no block has more games than the per-block buffers hold.
    template : int64[:]
        A state array with the tables and rules filled in (``sim.games.bloody_inn``).
    params : float64[:]
        Strategy parameters, ``MAXPARAM`` per lineup entry, then as much room again (a
        search seat writes its rollout policy's parameters there).
    games : layout.GameCols
        One 1-D array of ``n_games`` entries per games column, each of its own dtype
        (``kernels.layout_tools.alloc_columns``).
    seats : layout.SeatCols
        The same for the seat columns, ``n_games * players`` entries (row ``g * players + seat``).
    ev_out : int64[n_blocks * ev_rows_per_block, EV_FIELDS + 1]
        Event rows per block (first column: game index within the chunk); only written
        when the template asks for events.
    ev_game_cap : int
        Event rows one game may log.
    ev_count : int64[n_blocks]
        Event rows written by each block; -1 if the block's buffer overflowed, -2 if one
        game logged more than ``ev_game_cap`` rows (the caller retries with larger buffers —
        results are deterministic, so a retry is exact).
    traj : trajectory.TrajCols or None
        Trajectory rows (one per seat and round), ``tr_rows_per_block`` per block, each
        with its game id; None records none (and compiles no recording).
    tr_count : int64[n_blocks]
        Trajectory rows written by each block; -1 if the block's rows did not fit.

    Only a lineup with a ``search`` seat gets the kernel compiled with the search (its
    scratch and hook), only rules with ``check_invariants`` with the invariant checks.
    The block kernel releases the GIL, so Python can write the last chunk meanwhile.
    """
    lineup = template[L.L_STRAT : L.L_STRAT + template[L.G_NLINEUP]]
    search = None
    if (lineup == SEARCH).any():
        search = np.int64(L.SEARCH_SCRATCH)
        # import (and so compile, its signatures are explicit) the search before the block
        # kernel: typing the hook inside that compile would otherwise compile the search's
        # rollouts there, re-entering the Evening's dispatcher mid-compile, which leaves its
        # no-search version an unresolved symbol ("LLVM ERROR: Symbol not found")
        from . import strat_search  # noqa: F401
    checks = np.int64(1) if template[L.G_CHECK] != 0 else None
    strats = lineup_strategies(lineup)
    n_blocks = len(bounds) - 1
    ev_cap = ev_game_cap if template[L.G_LOG] != 0 else 0
    scratch = L.SEARCH_SCRATCH if search is not None else 0
    if tr_count is None:
        tr_count = np.zeros(n_blocks, dtype=np.int64)

    def play_block(b, lo=None, hi=None):
        # the block's own copies: the threads never share a cache line or a refcount
        st = np.empty(L.STATE_END + ev_cap * L.EV_FIELDS + scratch, dtype=np.int64)
        st[: L.STATE_END] = template[: L.STATE_END]
        st[L.G_SEARCH_AT] = L.STATE_END + ev_cap * L.EV_FIELDS if scratch > 0 else 0
        st[L.G_EV_CAP] = ev_cap
        lo = bounds[b] if lo is None else lo
        _play_block(
            st,
            params.copy(),
            np.int64(seed),
            np.int64(first_game),
            np.int64(lo),
            np.int64(bounds[b + 1] if hi is None else hi),
            np.int64(b),
            np.int64(ev_rows_per_block),
            games,
            seats,
            ev_out,
            ev_count,
            traj,
            np.int64(tr_rows_per_block),
            tr_count,
            search,
            checks,
            *strats,
        )

    # compile (or load) this variant first, one process at a time: a block of no games
    key = ("play", search is None, checks is None, traj is None) + tuple(s is None for s in strats)
    compile_once(CACHE_DIR, key, lambda: play_block(0, 0, 0))
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


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _play_block(
    st,
    pr,
    seed,
    first_game,
    lo,
    hi,
    b,
    ev_rows_per_block,
    games,
    seats,
    ev_out,
    ev_count,
    traj,
    tr_rows_per_block,
    tr_count,
    search,
    checks,
    with_heur,
    with_greedy,
    with_random,
):
    """Block ``b`` of :func:`play_games`: games ``lo .. hi-1`` of the chunk (game id
    ``first_game + g``) on the block's own state ``st`` and parameters ``pr``; ``search`` is
    None or the search scratch size, ``checks`` 1 or None, ``with_*`` the lineup's
    policies (see :func:`play_one`), ``traj`` None or the trajectory columns
    (``tr_rows_per_block`` rows a block from ``b * tr_rows_per_block``)."""
    log = st[L.G_LOG] != 0
    base = b * ev_rows_per_block
    used = 0
    tr_base = b * tr_rows_per_block
    tr_used = 0
    for g in range(lo, hi):
        gid = first_game + g
        st[L.G_GAME_ID] = gid
        # duplicate deals: the games of one deal (one per rotation of the lineup) share
        # the stream, so the shuffle, keys and first seat are the same in each
        deal = gid // st[L.G_NLINEUP] if st[L.G_ROTATE] == L.ROTATE_DUPLICATE else gid
        st[L.G_RNG] = stream_key(seed, deal)
        play_one(st, pr, search, checks, with_heur, with_greedy, with_random, traj, tr_base + tr_used)
        _write_rows(st, g, games, seats)
        if traj is not None:
            n = st[L.G_ROUND] * st[L.G_NP]  # a row per seat for every round played
            if tr_used + n > tr_rows_per_block:
                tr_used = -1  # the caller plays the chunk again with larger arrays
                break
            tr_used += n
        if log:
            n = st[L.G_EV_N]
            if st[L.G_EV_OVERFLOW] != 0:
                used = -2
                break
            if used + n > ev_rows_per_block:
                used = -1
                break
            for i in range(n):
                o = L.EV_BASE + i * L.EV_FIELDS
                ev_out[base + used + i, 0] = g
                for f in range(L.EV_FIELDS):
                    ev_out[base + used + i, 1 + f] = st[nowrap(o + f)]
            used += n
    ev_count[b] = used
    tr_count[b] = tr_used
