"""``search`` at placement (BI-E1): the first player's rooms for the drawn travellers.

A rollout can start at a placement decision (``play_from_placement``: put the traveller,
fill the rest of the inn, play on) and then plays exactly the game the kernel plays; the
candidates are the heuristic's rooms of distinct value, its own first; the search's rooms
are legal (invariant checks on), do not depend on threads or chunks, and ignore every card
its seat cannot see; with ``placement`` 0 the heuristic places.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_bloody_inn_search import (  # the night-action tests' helpers and twins
    _hide_and_shuffle,
    cfg,
    fresh,
    seat,
    template,
)

from kernels.bloody_inn import layout as L
from kernels.bloody_inn.evening import open_empty_rooms, put_traveller
from kernels.bloody_inn.morning import morning
from kernels.bloody_inn.night import take_action
from kernels.bloody_inn.play import play_one
from kernels.bloody_inn.rollout import NO_STOP, play_from_placement
from kernels.bloody_inn.search_params import search_index
from kernels.bloody_inn.setup import setup_game
from kernels.bloody_inn.strat_heuristic import place, room_value
from kernels.bloody_inn.strat_search import C_TAB, C_W, place_candidates, search_placement
from kernels.bloody_inn.strategies import SEARCH, decide_placement
from sim import api
from sim.games.bloody_inn.adapter import ADAPTER

FAST = {"determinizations": 3, "candidates": 3, "placement": 1}
PLACEMENT = search_index("placement")


def _to_placement(st, pr, rounds, placed):
    """Advance a fresh game (the kernel's phases, as ``play_one`` orders them) to the
    Evening of round ``rounds + 1`` with ``placed`` travellers already placed there, then
    draw the next one; return it, or None if the game ends or the Entrance runs out first
    (a season change mid-placement is left to the other tests)."""
    setup_game(st)
    np_ = st[L.G_NP]
    for _ in range(rounds):
        st[L.G_ROUND] += 1
        st[L.G_PHASE] = 0
        open_empty_rooms(st)
        if not _place(st, pr, st[L.G_N_EMPTY]):
            return None
        st[L.G_PHASE] = 1
        for k in range(2 * np_):
            take_action(st, pr, (st[L.G_FIRST] + k % np_) % np_)
        st[L.G_PHASE] = 2
        morning(st, pr)
        if st[L.G_OVER] or st[L.G_LAST_ROUND]:
            return None
    st[L.G_ROUND] += 1
    st[L.G_PHASE] = 0
    open_empty_rooms(st)
    if st[L.G_N_EMPTY] <= placed or not _place(st, pr, placed):
        return None
    if st[L.G_ENT_N] - st[L.G_ENT_POS] < 2:
        return None
    c = st[L.ENT + st[L.G_ENT_POS]]
    st[L.G_ENT_POS] += 1
    return c


def _place(st, pr, n):
    for _ in range(n):
        if st[L.G_ENT_N] - st[L.G_ENT_POS] < 2:
            return False
        c = st[L.ENT + st[L.G_ENT_POS]]
        st[L.G_ENT_POS] += 1
        put_traveller(st, c, decide_placement(st, pr, st[L.G_FIRST], c))
    return True


@pytest.mark.parametrize("players", [1, 3])
def test_a_rollout_from_a_placement_is_the_game(players):
    """Stopped at a placement, put where the seat's own strategy puts it, and played on
    with ``play_from_placement``: the very game ``play_one`` plays (BI-E1..G)."""
    lineup = ["expert", "greedy", "banker"][:players]
    checked = 0
    for gid in range(10):
        full, pr = template(players, lineup, 13)
        play_one(fresh(full, 13, gid), pr)
        st, _ = template(players, lineup, 13)
        c = _to_placement(fresh(st, 13, gid), pr, 1 + gid % 4, gid % 3)
        if c is None:
            continue
        room = decide_placement(st, pr, st[L.G_FIRST], c)
        play_from_placement(st, pr, c, room, NO_STOP)
        for f in (L.P_SCORE, L.P_CASH, L.P_CHEQUES, L.P_WINNER, L.P_KILLS, L.P_BUILDS, L.P_SOLO_LOST):
            assert (st[f : f + players] == full[f : f + players]).all(), (gid, f)
        assert st[L.G_ROUND] == full[L.G_ROUND] and st[L.G_TURNS] == full[L.G_TURNS]
        checked += 1
    assert checked >= 6


def _search_seat_at_placement(players, lineup, seed, gid, rounds, placed):
    st, pr = template(players, lineup, seed, search=True)
    fresh(st, seed, gid)
    st[L.G_ROTATE] = 0
    c = _to_placement(st, pr, rounds, placed)
    if c is None:
        return None
    p = st[L.G_FIRST]
    st[L.P_STRAT + p] = SEARCH
    st[L.P_LINEUP + p] = 0  # the search's parameter block
    base = 0 * L.MAXPARAM
    pr[base + PLACEMENT] = 1.0
    pr[base + search_index("determinizations")] = 4.0
    return st, pr, p, c


def test_candidates_are_rooms_of_distinct_value_the_heuristics_first():
    seen = 0
    for gid in range(12):
        got = _search_seat_at_placement(2, ["search", "expert"], 31, gid, 1 + gid % 5, gid % 2)
        if got is None:
            continue
        st, pr, p, c = got
        n = place_candidates(st, pr, p, c, 8, 1000.0)
        rooms = [st[C_TAB + k * C_W] for k in range(n)]
        share = pr[14]
        values = [room_value(st, p, share, st[L.C_RANK + c], r) for r in rooms]
        assert rooms[0] == place(st, pr, p, c)
        assert all(a > b for a, b in zip(values, values[1:]))  # distinct, best first
        for r in rooms:
            assert st[L.R_KEY + r] != L.CLOSED and st[L.R_CARD + r] < 0  # open and empty
        open_values = {
            room_value(st, p, share, st[L.C_RANK + c], r)
            for r in range(L.NROOMS)
            if st[L.R_KEY + r] != L.CLOSED and st[L.R_CARD + r] < 0
        }
        assert set(values) == open_values  # every value class once (kmax 8 > classes here)
        seen += n > 1
    assert seen >= 4


def test_placement_off_leaves_the_room_to_the_heuristic():
    got = _search_seat_at_placement(1, ["search"], 5, 2, 2, 0)
    assert got is not None
    st, pr, p, c = got
    pr[PLACEMENT] = 0.0
    assert search_placement(st, pr, p, c) == -1
    pr[PLACEMENT] = 1.0
    pr[search_index("candidates")] = 1  # one candidate: the heuristic's room, nothing played
    assert search_placement(st, pr, p, c) == place(st, pr, p, c)


@pytest.mark.parametrize("entrance_only", [False, True], ids=["hands-corpses-box", "entrance-order"])
def test_search_rooms_ignore_hidden_information(entrance_only):
    """The same room on a state and on twins that differ in hidden cards only (the others'
    hands and corpses, the box, the Entrance below its face-up top card, BI-E1); and the
    search really chose among several rooms (else the test proves nothing)."""
    rng = np.random.default_rng(4)
    checked = searched = differs = 0
    for gid in range(14):
        got = _search_seat_at_placement(3, ["search", "expert", "killer"], 23, gid, 1 + gid % 6, gid % 2)
        if got is None:
            continue
        st, pr, p, c = got
        twins = [_hide_and_shuffle(st, p, rng, entrance_only) for _ in range(2)]
        differs += any(
            (t[L.C_LOC : L.C_LOC + 300] != st[L.C_LOC : L.C_LOC + 300]).any()
            or (t[L.ENT : L.ENT + 300] != st[L.ENT : L.ENT + 300]).any()
            for t in twins
        )
        rooms = [search_placement(s_, pr.copy(), p, c) for s_ in (st.copy(), *twins)]
        assert rooms[0] == rooms[1] == rooms[2], (gid, rooms)
        searched += place_candidates(st.copy(), pr.copy(), p, c, 4, 30.0) > 1
        checked += 1
    assert checked >= 8 and searched >= 4 and differs >= 6


@pytest.mark.parametrize("players", [1, 2, 4])
def test_placement_search_is_legal_and_does_not_depend_on_threads_or_chunks(players):
    others = ["expert", "random", "greedy"]
    c = cfg(
        players, [seat("search", **FAST)] + [seat(n) for n in others[: players - 1]], 30, seed=40 + players
    )
    a = api.simulate(c, threads=1)
    g = pl.from_arrow(a.games)
    assert (g["invariant_error"] == 0).all() and (g["truncated"] == 0).all()
    b = api.simulate(c, threads=2)
    resolved = api.resolve(c)
    parts = [ADAPTER.simulate_chunk(resolved, s0, n) for s0, n in ((0, 11), (11, 19))]
    for col in ("score", "win", "kills", "builds", "cash"):
        x = a.seats.column(col).to_numpy()
        assert (x == b.seats.column(col).to_numpy()).all()
        assert (x == np.concatenate([p.seats.column(col).to_numpy() for p in parts])).all()


def test_placement_search_changes_the_rooms_it_should():
    """With ``placement`` 1 a solo search seat (always the first player) plays other games
    than with 0 on the same deals: the search does choose other rooms than the heuristic."""
    base = cfg(1, [seat("search", determinizations=3, candidates=3, placement=0)], 12, seed=9)
    on = cfg(1, [seat("search", **FAST)], 12, seed=9)
    a = pl.from_arrow(api.simulate(base).seats)["score"].to_numpy()
    b = pl.from_arrow(api.simulate(on).seats)["score"].to_numpy()
    assert (a != b).any()
