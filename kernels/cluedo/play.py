"""The batch entry point: play a range of Cluedo games in parallel.

The chunk's games are split into blocks; ``prange`` runs the blocks, each with its own state
array and its own copy of the run tables, playing its games in order.  Game ``g`` draws from
its own stream keyed by ``(seed, g)`` and writes only row ``g - start`` of the output
columns, so results do not depend on threads, blocks or chunking.  With the trajectory bit
the game also writes its rows of the trajectory columns (``trajectory.TrajCols``) from row
``tr_at[g - start]`` on, one per seat at the end of each round.
"""

import numpy as np
from numba import njit, prange

from ..index import nowrap
from . import layout as L
from . import rollout
from .knowledge import kbase, known_cards, low_card, popc, propagate
from .rules import check_invariants, setup, take_turn
from .trajectory import record_round

MODE_EVENTS_COUNT = 1
MODE_EVENTS_WRITE = 2
MODE_CHECK = 4
MODE_TRAJECTORY = 8


@njit(cache=True)
def _flush(st, ev, at):
    """Move the buffered events to the output rows from ``at`` (write mode) and count them."""
    k = st[L.S_NEV]
    if st[L.S_REC] == MODE_EVENTS_WRITE:
        base = at + st[L.S_EVSEQ]
        for i in range(k):
            o = L.S_EVB + i * L.EV_COLS
            for c in range(L.EV_COLS):
                ev[base + i, c] = st[nowrap(o + c)]
    st[L.S_EVSEQ] += k
    st[L.S_NEV] = 0


@njit(cache=True)
def play_one(st, tb, game_id, mode, ev, ev_at, traj, tr_at, rollouts):
    """Play one game to its end (or the CL-V7 cap) in ``st``; with ``MODE_TRAJECTORY`` each
    round's rows of ``traj`` from row ``tr_at`` on.  ``rollouts``: None unless a seat of the
    lineup may accuse by rollouts (``rollout.active``); None prunes that code at compile time."""
    record = mode & MODE_TRAJECTORY
    n = tb[L.T_NPLAYERS]
    setup(st, tb, game_id, n, mode & 3)  # clears st
    st[L.S_CHECK] = 1 if mode & MODE_CHECK else 0
    _flush(st, ev, ev_at)
    if st[L.S_CHECK]:
        st[L.S_VIOL] += check_invariants(st, tb)
    max_turns = tb[L.T_MAX_TURNS]
    while True:
        seat = st[L.S_CUR]
        if st[nowrap(L.S_ACTIVE + seat)]:
            roll = False
            if rollouts is not None:
                roll = rollout.active(st, seat)
            if roll:
                rollout.before_turn(st, tb, seat)  # CL-T6 by rollouts: the search player
            take_turn(st, tb, seat)
            if roll:
                rollout.after_turn(st, tb, seat)
            st[L.S_TURNS] += 1
            _flush(st, ev, ev_at)
            if st[L.S_CHECK]:
                st[L.S_VIOL] += check_invariants(st, tb)
        if st[L.S_OVER]:
            break
        if st[L.S_TURNS] >= max_turns:
            st[L.S_TRUNC] = 1  # CL-V7
            break
        seat = (seat + 1) % n
        if seat == 0:
            if record:
                record_round(st, tb, traj, tr_at)
            st[L.S_ROUNDS] += 1
        st[L.S_CUR] = seat
    if record:
        record_round(st, tb, traj, tr_at)  # the round the game ended in


@njit(cache=True)
def _write_rows(st, n, i, games, seats):
    """Row ``i`` of the game columns and rows ``i * n + seat`` of the seat columns from the
    finished game in ``st``.  A function of its own: Numba loses stores made through a named
    tuple's field in a ``prange`` body itself (kernels/layout_tools.py)."""
    games.rounds[i] = st[L.S_ROUNDS]
    games.turns[i] = st[L.S_TURNS]
    w = st[L.S_WINNER]
    games.winner[i] = w
    games.n_winners[i] = 1 if w >= 0 else 0
    games.truncated[i] = st[L.S_TRUNC]
    env = st[L.S_TRUE + L.ENVELOPE]
    games.solution_suspect[i] = low_card(env & L.CAT_SUSPECT)
    games.solution_weapon[i] = low_card(env & L.CAT_WEAPON) - 6
    games.solution_room[i] = low_card(env & L.CAT_ROOM) - L.FIRST_ROOM
    games.clue_cards_drawn[i] = st[L.S_CLUE_DRAWN]
    games.n_events[i] = st[L.S_EVSEQ]
    games.violations[i] = st[L.S_VIOL]
    games.clause_overflow[i] = st[L.S_CL_OVERFLOW]
    still = 0
    for s in range(n):
        if st[nowrap(L.S_ACTIVE + s)] and s != w:
            still += 1
    nw = 1 if w >= 0 else 0
    for s in range(n):
        r = i * n + s
        seats.character[r] = st[nowrap(L.S_CHAR + s)]
        seats.lineup[r] = st[nowrap(L.S_LINEUP + s)]
        seats.turns_taken[r] = st[nowrap(L.S_TTAKEN + s)]
        seats.suggestions[r] = st[nowrap(L.S_NSUGG + s)]
        seats.first_room_turn[r] = st[nowrap(L.S_FIRST_ROOM + s)]
        seats.accused[r] = st[nowrap(L.S_ACCUSED + s)]
        kb = kbase(s)
        if st[nowrap(L.S_AGENT + s)] != L.AGENT.NAIVE and st[nowrap(kb + L.K_DIRTY)]:
            propagate(st, kb)  # what a reasoning player knows at the end
        seats.known_cards[r] = popc(known_cards(st, kb))
        if s == w:
            seats.score[r] = 1
            seats.place[r] = 1
            seats.win[r] = 1.0
        else:
            seats.score[r] = 0
            seats.place[r] = 1 + nw if st[nowrap(L.S_ACTIVE + s)] else 1 + nw + still
            seats.win[r] = 0.0


@njit(cache=True, parallel=True, nogil=True)  # nogil: the runner writes the last chunk meanwhile
def play(tb, start, count, nblocks, mode, ev_at, ev, games, seats, tr_at, traj, rollouts):
    """Play games ``start .. start+count-1``; fill row ``g - start`` of the game columns
    ``games`` (``layout.GameCols``) and rows ``(g - start) * n + seat`` of the seat columns
    ``seats`` (``layout.SeatCols``), one typed 1-D array each.

    ``mode``: bit 0/1 event log (1 count into ``n_events``, 2 write into ``ev`` from row
    ``ev_at[i]``), bit 2 check invariants after every turn (into ``violations``), bit 3
    (``MODE_TRAJECTORY``) the trajectory rows of game ``i`` into ``traj`` from row ``tr_at[i]``
    (``rounds * players`` rows: the caller knows them from a first pass).  ``rollouts``: None,
    or an int when a seat may accuse by rollouts (:func:`play_one`).
    """
    n = tb[L.T_NPLAYERS]
    per = (count + nblocks - 1) // nblocks
    for b in prange(nblocks):
        lo = b * per
        hi = min(count, lo + per)
        if lo >= hi:
            continue
        st = np.zeros(L.STATE_SIZE, np.int64)
        tbl = tb.copy()
        for i in range(lo, hi):
            at = ev_at[i] if mode & 3 == MODE_EVENTS_WRITE else 0
            tr = tr_at[i] if mode & MODE_TRAJECTORY else 0
            play_one(st, tbl, start + i, mode, ev, at, traj, tr, rollouts)
            _write_rows(st, n, i, games, seats)
