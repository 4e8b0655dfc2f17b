"""The Cluedo board (CL-C3) and movement legality (CL-T1) on hand-built positions."""

import numpy as np
import pytest

from kernels.cluedo import layout as L
from kernels.cluedo.board import reach, reached_steps
from sim.games import cluedo as C

B = C.load_board()


def state(players=4):
    res = C.resolve(
        {
            "players": players,
            "seats": [{"strategy": "logic"}],
            "rules": {"characters": ["scarlett", "mustard", "white", "green", "peacock", "plum"][:players]},
        }
    )
    res.update(seed=0)
    return C.new_state(res)


def park(st, ch, node):
    st[L.S_POS + ch] = node


def sq(col, row):
    return B.node(col, row)


def room(name):
    return B.room(name)


def test_board_matches_reference_counts():
    """CL-C3: 182 corridor squares + 6 start squares, 17 doors, the two secret passages."""
    assert B.n_nodes - 9 == 182 + 6
    doors = sum(int((B.adj[r] >= 0).sum()) for r in range(9))
    assert doors == 17
    assert B.passages[room("kitchen")] == 1 << room("study")
    assert B.passages[room("conservatory")] == 1 << room("lounge")
    assert B.passages[room("ballroom")] == 0


@pytest.mark.parametrize(
    "suspect,dist,rooms",
    [
        ("scarlett", 8, {"lounge"}),
        ("mustard", 8, {"dining_room", "lounge"}),
        ("white", 8, {"ballroom"}),
        ("green", 8, {"ballroom"}),
        ("peacock", 7, {"conservatory"}),
        ("plum", 8, {"study"}),
    ],
)
def test_start_square_distances(suspect, dist, rooms):
    """Derived facts of the rules contract: nearest room from each start square, door step included."""
    start = B.start[B.suspects.index(suspect)]
    d = B.sdist[:, start]
    assert d.min() == dist
    assert {B.rooms[r] for r in np.flatnonzero(d == dist)} == rooms


def test_room_to_room_walking_distance():
    # Kitchen door (4,6)|(4,7) to Ballroom door (8,5)|(7,5): out 1 + 5 squares + in 1
    assert B.sdist[room("kitchen"), room("ballroom")] == 7
    assert B.sdist[room("ballroom"), room("kitchen")] == 7


def test_move_up_to_the_roll_enters_a_room_only_at_full_distance():
    """CL-T1: from Scarlett's start the Lounge is 8 steps away (7 squares + the door)."""
    st, tb = state()
    start = B.start[0]
    reach(st, tb, start, 7)
    assert reached_steps(st, room("lounge")) == -1
    assert reached_steps(st, sq(6, 18)) == 7  # the Lounge's door square
    assert reached_steps(st, sq(7, 20)) == 4  # fewer steps than the roll is allowed
    reach(st, tb, start, 8)
    assert reached_steps(st, room("lounge")) == 8


def test_pawns_block_squares_and_paths():
    """CL-T1: no moving onto or through an occupied square."""
    st, tb = state()
    start = B.start[0]  # Scarlett (7,24): one way out, (7,23)
    park(st, 1, sq(7, 23))
    n = reach(st, tb, start, 12)
    assert n == 1  # nowhere to go
    park(st, 1, sq(7, 20))  # a pawn in the 2-wide corridor
    reach(st, tb, start, 12)
    assert reached_steps(st, sq(7, 20)) == -1
    assert reached_steps(st, sq(8, 20)) == 5  # beside it is free
    assert reached_steps(st, sq(7, 19)) == 7  # around it: 5 with the square free


def test_occupied_door_square_blocks_the_door_both_ways():
    """CL-T1: a door whose corridor square is occupied is blocked."""
    st, tb = state()
    lounge = room("lounge")
    park(st, 0, lounge)
    park(st, 1, sq(6, 18))  # the Lounge's only door square
    assert reach(st, tb, lounge, 12) == 1  # cannot leave
    st2, tb2 = state()
    park(st2, 0, sq(6, 17))
    park(st2, 1, sq(6, 18))
    reach(st2, tb2, sq(6, 17), 12)
    assert reached_steps(st2, lounge) == -1  # cannot enter


def test_leaving_costs_the_door_step_and_rooms_hold_many_pawns():
    st, tb = state()
    lounge = room("lounge")
    park(st, 0, lounge)
    park(st, 2, room("hall"))  # a pawn already in the Hall
    reach(st, tb, lounge, 6)
    assert reached_steps(st, sq(6, 18)) == 1
    assert reached_steps(st, sq(6, 17)) == 2
    # Lounge door square (6,18) -> Hall door square (11,17): 6 squares, +1 out, +1 in
    assert reached_steps(st, room("hall")) == -1
    reach(st, tb, lounge, 8)
    assert reached_steps(st, room("hall")) == 8


def test_no_reentering_the_room_left_and_no_walking_through_rooms():
    """A room is a dead end of a move (entering ends it) and the room left this turn is not
    entered again (no square twice in a turn)."""
    st, tb = state()
    ball = room("ballroom")
    park(st, 0, ball)
    n = reach(st, tb, ball, 12)
    reached = [int(st[L.X_QUEUE + i]) for i in range(n)]
    assert reached.count(ball) == 1 and reached[0] == ball
    # from the square outside the west door, the square outside the east door is far:
    # through the Ballroom it would be 2 steps, walking round it (rows 6-8) takes 15
    st2, tb2 = state()
    west = sq(7, 5)
    park(st2, 0, west)
    reach(st2, tb2, west, 14)
    assert reached_steps(st2, sq(16, 5)) == -1
    reach(st2, tb2, west, 15)
    assert reached_steps(st2, sq(16, 5)) == 15
    assert reached_steps(st2, ball) == 1


def test_all_six_pawns_start_on_their_squares_whatever_the_player_count():
    """CL-S1."""
    for players in (2, 3, 6):
        st, tb = state(players)
        assert [int(st[L.S_POS + c]) for c in range(6)] == list(B.start)
        rooms = [int(st[L.S_WROOM + w]) for w in range(6)]
        assert len(set(rooms)) == 6 and all(0 <= r < 9 for r in rooms)
