"""The Cluedo board (CL-C3) and movement legality (CL-T1) on hand-built positions."""

import numpy as np
import pytest

from kernels.cluedo import layout as L
from kernels.cluedo.board import exact_end, reach, reach_exact, reached_steps
from sim.games.cluedo import adapter as C

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


# --- CL-T1 "move exactly the total" (default; the classic "up to" is move_steps = "up_to") -----


def saw_ends(start, total, occupied):
    """Independent reference: {square: True} for squares a walk of exactly ``total`` steps
    reaches without a square twice, a pawn or a room; and the longest such walk (<= total)."""
    ends = {}
    longest = 0

    def go(u, depth, seen):
        nonlocal longest
        if depth:
            longest = max(longest, depth)
            ends.setdefault(depth, set()).add(u)
        if depth == total:
            return
        for v in B.adj[u]:
            v = int(v)
            if v < 0:
                break
            if v >= 9 and v not in seen and v not in occupied:
                seen.add(v)
                go(v, depth + 1, seen)
                seen.discard(v)

    go(start, 0, {start})
    return ends.get(longest, set()), longest


def legal_ends(st, tb, start, total):
    n = reach_exact(st, tb, start, total)
    nodes = [int(st[L.X_QUEUE + i]) for i in range(1, n)]
    return {v for v in nodes if v >= 9}, {v for v in nodes if v < 9}


@pytest.mark.parametrize("seed", range(6))
def test_exact_move_ends_are_the_walks_of_the_whole_roll(seed):
    """CL-T1 / move_steps exact: the end squares are exactly those a walk of the whole roll
    reaches (no square twice, no pawn crossed; an independent enumeration agrees), and the
    rooms are those within the roll (entering ends the move)."""
    rng = np.random.default_rng(seed)
    squares = list(range(9, B.n_nodes))
    for _ in range(8):
        st, tb = state()
        spots = rng.choice(squares, 6, replace=False)
        for ch in range(6):
            park(st, ch, int(spots[ch]))
        start = int(spots[0])
        if rng.random() < 0.3:
            start = int(rng.integers(9))
            park(st, 0, start)
        total = int(rng.integers(2, 9))
        occupied = {int(x) for x in spots[1:]}
        got_sq, got_rooms = legal_ends(st, tb, start, total)
        want_sq, longest = saw_ends(start, total, occupied)
        assert got_sq == want_sq
        reach(st, tb, start, total)
        assert got_rooms == {r for r in range(9) if r != start and reached_steps(st, r) > 0}
        free = [v for v in squares if v not in occupied and v != start]
        for v in rng.choice(free, 12, replace=False).tolist() + sorted(want_sq)[:4]:
            want = v in want_sq and longest == total
            assert (exact_end(st, tb, start, total, v, 10**6) == 1) == want


def test_exact_move_cannot_stop_short_but_up_to_can():
    """CL-T1 "move exactly the total": from Scarlett's start a roll of 4 cannot end on the
    next square, which the flag ``move_steps = "up_to"`` allows; 4 squares out is fine either way."""
    st, tb = state()
    start = B.start[0]
    ends, _ = legal_ends(st, tb, start, 4)
    assert sq(7, 23) not in ends and sq(7, 20) in ends
    reach(st, tb, start, 4)
    assert reached_steps(st, sq(7, 23)) == 1  # legal "up to" the roll


def test_exact_move_of_a_boxed_in_pawn_goes_as_far_as_it_can():
    """move_steps exact: a pawn that cannot use the whole roll walks its longest walk."""
    st, tb = state()
    start = B.start[0]  # Scarlett (7,24): one way out
    reach(st, tb, start, 3)
    ring = [int(st[L.X_QUEUE + i]) for i in range(1, reach(st, tb, start, 3))]
    blockers = [v for v in ring if reached_steps(st, v) == 3 and v >= 9]
    assert 1 <= len(blockers) <= 5
    for ch, v in enumerate(blockers, start=1):
        park(st, ch, v)
    ends, rooms = legal_ends(st, tb, start, 6)
    want, longest = saw_ends(start, 6, set(blockers))
    assert longest < 6 and ends == want and not rooms
