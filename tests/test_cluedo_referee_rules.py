"""The Cluedo referee's own board data and movement search on small explicit situations.

The referee parses ``configs/cluedo/`` itself (CL-C1..C3) and searches walks itself (CL-T1);
these tests check that reading against the rules contract's derived facts, and that its
numbering is the log's (the adapter's), square for square.
"""

from __future__ import annotations

import subprocess
import sys

from sim.games.cluedo.referee.data import N_ROOMS, exact_walk, load_data, longest_walk, reachable

D = load_data()


def room(name):
    return D.rooms.index(name)


def test_board_matches_the_contract():
    """CL-C1..C3: 21 cards, 182 corridor + 6 start squares, 17 doors, two secret passages,
    29 clue cards."""
    assert len(D.cards) == 21 and len(D.clue) == 29
    assert D.n_nodes - N_ROOMS == 188
    doors = sum(len(D.neighbours[r]) for r in range(N_ROOMS))
    assert doors == 17
    assert D.passages[room("kitchen")] == {room("study")}
    assert D.passages[room("conservatory")] == {room("lounge")}
    assert sum(1 for p in D.passages if p) == 4


def test_start_distances_of_the_contract():
    """Derived facts: shortest distance from each start square to its nearest room, counting
    the step through the door: Scarlett 8 (Lounge), Mustard 8 (Dining Room or Lounge), White 8
    and Green 8 (Ballroom), Peacock 7 (Conservatory), Plum 8 (Study)."""
    want = {
        "scarlett": (8, {"lounge"}),
        "mustard": (8, {"dining_room", "lounge"}),
        "white": (8, {"ballroom"}),
        "green": (8, {"ballroom"}),
        "peacock": (7, {"conservatory"}),
        "plum": (8, {"study"}),
    }
    for s, (steps, rooms) in want.items():
        dist = reachable(D, D.start[D.suspects.index(s)], set(), 30)
        near = min(d for v, d in dist.items() if v < N_ROOMS)
        assert near == steps, s
        assert {D.rooms[v] for v, d in dist.items() if v < N_ROOMS and d == near} == rooms, s


def test_numbering_is_the_logs():
    """The referee numbers nodes as the log does (the adapter's board), edge for edge."""
    from sim.games.cluedo.adapter import load_board

    b = load_board()
    assert b.n_nodes == D.n_nodes and tuple(b.start) == D.start
    for u in range(D.n_nodes):
        assert {int(v) for v in b.adj[u] if v >= 0} == set(D.neighbours[u]), u
        if u >= N_ROOMS:
            assert b.node_xy[u] == D.square_xy[u]


def test_occupied_door_square_blocks_the_door():
    """CL-T1: a door whose corridor square is occupied is blocked (both ways)."""
    kitchen = room("kitchen")
    (door,) = D.neighbours[kitchen]  # the Kitchen has one door
    assert door not in reachable(D, kitchen, {door}, 12)
    assert len(reachable(D, kitchen, {door}, 12)) == 1  # boxed in: nothing else reachable
    outside = next(v for v in D.neighbours[door] if v >= N_ROOMS)
    assert kitchen not in reachable(D, outside, {door}, 12)
    assert reachable(D, outside, set(), 12)[kitchen] == 2


def test_rooms_end_a_walk_and_are_not_crossed():
    """CL-T1: entering a room ends the move, so a walk never passes through a room: from the
    square outside one Ballroom door to the square outside another is 2 steps through the
    room, but the walk has to go round it."""
    a, b = (D.neighbours[room("ballroom")][i] for i in (0, -1))
    assert D.square_xy[a] != D.square_xy[b]
    dist = reachable(D, a, set(), 40)
    assert dist[room("ballroom")] == 1
    assert dist[b] > 2


def test_exact_walks_never_visit_a_square_twice():
    """CL-T1 (move_steps = exact): from a start square (one neighbour) a walk of 3 steps
    cannot end on that neighbour (it would step on it twice); 1 step can; a pawn whose only
    way out is blocked walks 0 steps."""
    s = D.start[D.suspects.index("scarlett")]
    (n1,) = [v for v in D.neighbours[s]]
    assert exact_walk(D, s, n1, set(), 1)
    assert not exact_walk(D, s, n1, set(), 3)
    assert longest_walk(D, s, {n1}, 12) == 0
    assert longest_walk(D, s, set(), 12) == 12


def test_referee_imports_nothing_of_the_kernel():
    """The referee is independent: replaying a game imports neither ``kernels.cluedo`` (nor
    any game's kernels: only the ``kernels`` package itself, which ``sim`` imports first to set
    the compile cache's directory) nor the adapter ``sim.games.cluedo.adapter``: of the game
    packages only the referee and the packages holding it (which import nothing)."""
    code = (
        "import sys, pyarrow as pa, sim.dataset, sim.games.cluedo.referee as R\n"
        "resolved = {'game': 'cluedo', 'players': 3, 'rules': {}, 'seats': [{'strategy': 'logic'}] * 3}\n"
        "ev = pa.table({'game_id': [0], 'seq': [0], 'turn': [0], 'seat': [-1], 'kind': ['weapon'],"
        " 'a': [6], 'b': [0], 'c': [-1], 'd': [-1]})\n"
        "seats = pa.table({'game_id': [0, 0, 0], 'seat': [0, 1, 2], 'character': ['plum', 'white', 'green']})\n"
        "report = R.replay_tables(resolved, None, seats, ev)\n"
        "assert report.games == 1 and report.divergences[0].rule == 'CL-S1', report.divergences\n"
        "home = ('sim.games', 'sim.games.cluedo')\n"
        "bad = [m for m in sys.modules if m.startswith(('kernels.', 'sim.games')) and m not in home\n"
        "       and not m.startswith('sim.games.cluedo.referee')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_data_of_another_run_is_refused():
    """A run played with other data files (e.g. an edited clue deck) is not replayed with
    these: one clear error naming both digests."""
    import pytest

    from sim.errors import SimError
    from sim.games.cluedo.referee import CluedoRules

    resolved = {"game": "cluedo", "players": 3, "rules": {}, "seats": [{"strategy": "logic"}] * 3}
    assert CluedoRules.from_resolved(dict(resolved, data={"sha256": D.sha256})).players == 3
    with pytest.raises(SimError, match="data files differ"):
        CluedoRules.from_resolved(dict(resolved, data={"sha256": "0" * 64}))
