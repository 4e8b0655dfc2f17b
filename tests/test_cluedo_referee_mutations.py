"""Mutation tests: corrupt one event of a clean Cluedo kernel log; the referee must object,
naming the rule the corrupted log breaks and the corrupted event.

Every test starts from a log that replays cleanly (checked), changes the least it can and
checks the rule id.  Positions the mutations need (hands, pawn squares, distances) are
computed here from the log and the kernel adapter's board, not from the referee's code.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

import sim.games.cluedo.referee
from sim.api import simulate
from sim.games.cluedo import adapter as C
from sim.games.cluedo.referee import CluedoRules, replay_game
from sim.games.cluedo.referee.log import Ev, split_games

BOARD = C.load_board()
RECKLESS = {"strategy": "prob", "params": {"risk": 0.0, "exact": 0.0, "samples": 4.0}}


class Log:
    """The games of one simulation, ready to be corrupted and replayed one by one."""

    def __init__(self, config, games, seed):
        self.res = simulate(config, games=games, seed=seed, events=True)
        self.rules = CluedoRules.from_resolved(self.res.resolved)
        self.games = dict(split_games(self.res.events))
        self.rows = {r["game_id"]: r for r in self.res.games.to_pylist()}
        self.seats = {}
        for r in self.res.seats.to_pylist():
            self.seats.setdefault(r["game_id"], []).append(r)

    def replay(self, gid, events, game_row=None, seats=None):
        return replay_game(self.rules, gid, events, game_row or self.rows[gid], seats or self.seats[gid])

    def find(self, pred):
        """First (game id, events, index) where ``pred(gid, events, i)`` holds."""
        for gid, evs in self.games.items():
            for i in range(len(evs)):
                if pred(gid, evs, i):
                    return gid, evs, i
        raise AssertionError("no event of that shape in the sample: enlarge it")

    def objects(self, gid, evs, rule, seq=None, words=None):
        assert self.replay(gid, self.games[gid]) is None, "the clean log must replay clean"
        div = self.replay(gid, evs)
        assert div is not None, f"the referee accepted the corrupted log (expected {rule})"
        assert div.rule == rule, div.format()
        if seq is not None:
            assert div.event is not None and div.event["seq"] == seq, div.format()
        if words is not None:
            assert words in div.message, div.format()
        return div


def _cfg(players, seats, **rules):
    return {"game": "cluedo", "players": players, "seats": seats, "rules": rules}


@pytest.fixture(scope="module")
def logic4():  # exact moves (the default)
    return Log(_cfg(4, [{"strategy": "logic"}]), 200, 5)


@pytest.fixture(scope="module")
def upto():
    return Log(_cfg(4, [{"strategy": "naive"}], move_steps="up_to"), 200, 6)


@pytest.fixture(scope="module")
def reckless():
    return Log(_cfg(4, [RECKLESS]), 400, 7)


@pytest.fixture(scope="module")
def two_upto():
    return Log(_cfg(2, [{"strategy": "naive"}], move_steps="up_to"), 100, 9)


@pytest.fixture(scope="module")
def two():
    return Log(_cfg(2, [{"strategy": "logic"}, {"strategy": "naive"}]), 150, 8)


def changed(evs, i, **fields):
    out = list(evs)
    out[i] = out[i]._replace(**fields)
    return out


def inserted(evs, i, ev):
    """``ev`` inserted before index ``i``; later events renumbered."""
    out = list(evs[:i]) + [ev._replace(seq=i)] + [e._replace(seq=e.seq + 1) for e in evs[i:]]
    return out


def dropped(evs, i):
    return list(evs[:i]) + [e._replace(seq=e.seq - 1) for e in evs[i + 1 :]]


def hands(evs):
    out = {}
    for e in evs:
        if e.kind == "deal" and 0 <= e.seat < 6:
            out.setdefault(e.seat, set()).add(e.a)
    return out


def eliminated_before(evs, i):
    return {e.seat for e in evs[:i] if e.kind == "accuse" and e.d == 2}


def squares(evs, i):
    """Occupied squares just before event ``i`` (pawns start on their start squares, CL-S1)."""
    occ = list(BOARD.start)
    for e in evs[:i]:
        if e.kind == "move":
            occ[occ.index(e.a)] = e.b
    return {p for p in occ if p >= 9}


def bfs(start, blocked=frozenset()):
    """Blocked walking distance from ``start`` (rooms end a walk), on the adapter's graph."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        if u < 9 and u != start:
            continue
        for v in BOARD.adj[u]:
            v = int(v)
            if v < 0:
                break
            if v not in dist and v not in blocked:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


# --- the six mutations of the issue ------------------------------------------------------


def test_shown_card_the_shower_does_not_hold(logic4):
    """CL-T5: the card shown must be one the refuter holds."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "show" and evs[i - 1].kind == "suggest")
    sg, sh = evs[i - 1], evs[i]
    held = hands(evs)[sh.seat]
    other = next(c for c in (sg.a, sg.b, sg.c) if c not in held)  # one of the named cards
    div = logic4.objects(gid, changed(evs, i, a=other), "CL-T5", seq=sh.seq, words="does not hold")
    assert div.logged == {"card": other}


def test_walk_longer_than_the_dice(logic4):
    """CL-T1: a walk into a room at least 5 steps away, with the dice changed to 2 + 2."""

    def far_walk(g, evs, i):
        e = evs[i]
        return (
            e.kind == "move"
            and e.d == 0
            and e.b < 9
            and e.a >= 9
            and BOARD.sdist[e.b, e.a] >= 5
            and evs[i - 1].kind == "roll"
            and evs[i - 1].d == 0
        )

    gid, evs, i = logic4.find(far_walk)
    bad = changed(changed(evs, i - 1, a=2, b=2, c=0), i, c=4)
    logic4.objects(gid, bad, "CL-T1", seq=evs[i].seq, words="longer than the dice")


def test_move_through_an_occupied_square(upto):
    """CL-T1: a walk to a free square within the roll on the open board, but only through
    squares other pawns stand on (moving "up to" the roll, so only the blocking counts)."""
    found = {}

    def through(g, evs, i):
        e = evs[i]
        if e.kind != "move" or e.d != 0:
            return False
        occ = squares(evs, i) - {e.a}
        free, around = bfs(e.a), bfs(e.a, occ)
        for t, d in free.items():
            if t >= 9 and t not in occ and t != e.a and d <= e.c and around.get(t, 99) > e.c:
                found["to"] = t
                return True
        return False

    gid, evs, i = upto.find(through)
    upto.objects(gid, changed(evs, i, b=found["to"]), "CL-T1", seq=evs[i].seq, words="occupied by pawns")


def test_wrong_refuter_order(logic4):
    """CL-T5: the first player to the left who can refute must; the log names a later one."""
    n = 4

    def later_refuter(g, evs, i):
        e = evs[i]
        if e.kind != "suggest" or e.d < 0:
            return False
        h = hands(evs)
        order = [(e.seat + k) % n for k in range(1, n)]
        after = order[order.index(e.d) + 1 :]
        return any(h[j] & {e.a, e.b, e.c} for j in after)

    gid, evs, i = logic4.find(later_refuter)
    e, h = evs[i], hands(evs)
    order = [(e.seat + k) % n for k in range(1, n)]
    j = next(j for j in order[order.index(e.d) + 1 :] if h[j] & {e.a, e.b, e.c})
    card = min(h[j] & {e.a, e.b, e.c})
    bad = changed(changed(evs, i, d=j), i + 1, seat=j, a=card)
    div = logic4.objects(gid, bad, "CL-T5", seq=e.seq, words="first player to the left")
    assert div.expected == {"refuter": e.d} and div.logged == {"refuter": j}


def test_eliminated_player_acting(reckless):
    """CL-T6: a player who accused wrongly takes no more turns; here it rolls in the next
    turn of another player."""

    def after_elimination(g, evs, i):
        e = evs[i]
        out = eliminated_before(evs, i)
        return e.kind == "roll" and out and e.seat not in out and evs[i - 1].turn != e.turn

    gid, evs, i = reckless.find(after_elimination)
    q = min(eliminated_before(evs, i))
    reckless.objects(gid, changed(evs, i, seat=q), "CL-T6", seq=evs[i].seq, words="out of the game")


def test_wrong_accusation_judged_right(reckless):
    """CL-T6: the accusation is judged against the envelope."""
    gid, evs, i = reckless.find(lambda g, evs, i: evs[i].kind == "accuse" and evs[i].d == 2)
    div = reckless.objects(
        gid, changed(evs, i, d=1), "CL-T6", seq=evs[i].seq, words="judged against the envelope"
    )
    assert list(div.expected.values()) == [2]


# --- more ------------------------------------------------------------------------------


def test_right_accusation_judged_wrong(logic4):
    """CL-T6, the other way round."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "accuse" and evs[i].d == 1)
    logic4.objects(gid, changed(evs, i, d=2), "CL-T6", seq=evs[i].seq)


def test_suggestion_names_another_room(logic4):
    """CL-T5: the room of a suggestion is the room the player is in."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "suggest")
    other = 12 + (evs[i].c - 12 + 1) % 9
    logic4.objects(gid, changed(evs, i, c=other), "CL-T5", seq=evs[i].seq, words="room card")


def test_named_pawn_not_moved_in(logic4):
    """CL-T5: the named suspect's pawn moves into the room (its move event dropped)."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "move" and evs[i].d == 3)
    logic4.objects(gid, dropped(evs, i), "CL-T5", seq=evs[i + 1].seq - 1, words="not moved into the room")


def test_loupe_used_for_a_clue_card_still_counted(logic4):
    """CL-T2: a loupe used for its effect counts 0, so the walk allows one step less."""
    gid, evs, i = logic4.find(
        lambda g, evs, i: (
            evs[i].kind == "move"
            and evs[i].d == 0
            and any(e.kind == "roll" and e.d == 1 and e.turn == evs[i].turn for e in evs[i - 6 : i])
        )
    )
    logic4.objects(gid, changed(evs, i, c=evs[i].c + 1), "CL-T2", seq=evs[i].seq)


def test_clue_card_out_of_pile_order(logic4):
    """CL-T2: cards are drawn from the top of the pile (its order is logged at setup)."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "clue")
    other = evs[i].a % 29 + 1
    logic4.objects(gid, changed(evs, i, a=other), "CL-T2", seq=evs[i].seq)


def test_named_card_revealed_by_someone_else(logic4):
    """CL-K1: whoever holds the named card shows it."""

    def specific(g, evs, i):
        return (
            evs[i].kind == "reveal" and evs[i - 1].kind == "clue" and evs[i - 1].b == 0 and evs[i].seat >= 0
        )

    gid, evs, i = logic4.find(specific)
    logic4.objects(gid, changed(evs, i, seat=(evs[i].seat + 1) % 4), "CL-K1", seq=evs[i].seq)


def test_eliminated_player_chosen_or_revealing(reckless):
    """CL-K8: a player out of the game is not chosen by CL-K3 and takes no part in CL-K4."""

    def clue_after_elimination(g, evs, i):
        e = evs[i]
        return e.kind == "clue" and e.b in (4, 5) and eliminated_before(evs, i)

    gid, evs, i = reckless.find(clue_after_elimination)
    q = min(eliminated_before(evs, i))
    card = min(hands(evs)[q])
    if evs[i].b == 4:  # choose_player_reveals: the out player chosen instead
        bad = changed(changed(evs, i, c=q), i + 1, seat=q, a=card)
    else:  # all_reveal: the out player reveals too
        bad = inserted(evs, i + 1, Ev(0, evs[i].turn, q, "reveal", card, -1, 0, -1))
    reckless.objects(gid, bad, "CL-K8", seq=i + 1 if evs[i].b == 5 else evs[i].seq, words="out of the game")


def test_deal_not_clockwise(logic4):
    """CL-S2: the cards are dealt one at a time clockwise."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "deal" and evs[i - 1].kind == "deal")
    logic4.objects(gid, changed(evs, i, seat=evs[i - 1].seat), "CL-S2", seq=evs[i].seq, words="clockwise")


def test_face_down_card_outside_the_corner_rooms(two):
    """CL-2.1: with corner rooms (CL-V6 default) the face-down cards lie in the four corners."""
    gid, evs, i = two.find(lambda g, evs, i: evs[i].kind == "deal" and evs[i].seat == 7)
    used = {e.b for e in evs if e.kind == "deal" and e.seat == 7}
    other = next(r for r in range(9) if r not in used)
    two.objects(gid, changed(evs, i, b=other), "CL-2.1", seq=evs[i].seq, words="corner rooms")


def test_look_at_the_card_of_another_room(two):
    """CL-2.2: a player looks at the face-down card of the room its pawn is in."""
    gid, evs, i = two.find(lambda g, evs, i: evs[i].kind == "look")
    table = {e.b: e.a for e in evs if e.kind == "deal" and e.seat == 7}
    room = next(r for r in table if r != evs[i].b)
    two.objects(gid, changed(evs, i, a=table[room], b=room), "CL-2.2", seq=evs[i].seq)


def test_look_by_a_dragged_pawn_that_does_not_stay(two_upto):
    """CL-2.2: a pawn dragged into a face-down room by the opponent's suggestion looks at the
    card only if it stays to suggest there.  A dragged pawn's turn that looks and stays is
    turned into one that looks and then rolls (and stays put, moving "up to" the roll)."""

    def look_then_stay(g, evs, i):
        e = evs[i]
        return e.kind == "look" and evs[i - 1].turn != e.turn and evs[i + 1].kind in ("move", "suggest")

    gid, evs, i = two_upto.find(look_then_stay)
    turn = evs[i].turn
    rest = [e for e in evs[i + 1 :] if e.turn != turn]
    roll = Ev(i + 1, turn, evs[i].seat, "roll", 3, 4, 0, 0)
    bad = evs[: i + 1] + [roll] + [e._replace(seq=i + 2 + k) for k, e in enumerate(rest)]
    two_upto.objects(gid, bad, "CL-2.2", seq=evs[i].seq, words="only if it stays")


def test_look_missing_on_entering_a_face_down_room(two):
    """CL-2.2: a player who enters a room holding a face-down card looks at it; deleting the
    look (the player walked, took a passage or stayed there and logged none) is objected to
    at the event that came in its place."""
    gid, evs, i = two.find(lambda g, evs, i: evs[i].kind == "look")
    two.objects(gid, dropped(evs, i), "CL-2.2", seq=i, words="the log has no look")


def test_look_where_none_is_due(two):
    """CL-2.2: the look is logged the first time the player looks at a room's card; a look
    added when the player walks back into a face-down room it has looked at before is
    objected to (right card, right room, yet no look is due)."""

    def reentry(g, evs, i):
        e = evs[i]
        if e.kind != "move" or e.d not in (0, 1) or evs[i + 1].kind == "look":
            return False
        return any(x.kind == "look" and x.seat == e.seat and x.b == e.b and x.turn < e.turn for x in evs[:i])

    gid, evs, i = two.find(reentry)
    e = evs[i]
    card = next(x.a for x in evs if x.kind == "deal" and x.seat == 7 and x.b == e.b)
    bad = inserted(evs, i + 1, Ev(0, e.turn, e.seat, "look", card, e.b, -1, -1))
    two.objects(gid, bad, "CL-2.2", seq=i + 1, words="it did on turn")


def test_second_look_in_one_turn(two):
    """CL-2.2: one look at a face-down card: the same look logged twice in a turn is objected
    to at the second."""
    gid, evs, i = two.find(lambda g, evs, i: evs[i].kind == "look")
    two.objects(gid, inserted(evs, i + 1, evs[i]), "CL-2.2", seq=i + 1, words="this turn")


def test_exact_move_short_of_the_roll(logic4):
    """CL-T1 "move exactly the total" (default; ``move_steps = "up_to"`` is the classic
    reading): a walk ending on a square uses the whole roll; a step to a neighbouring square with an even roll cannot."""
    found = {}

    def even_walk(g, evs, i):
        e = evs[i]
        if e.kind != "move" or e.d != 0 or e.a < 9 or e.b < 9 or e.c % 2 or e.c < 4:
            return False
        occ = squares(evs, i)
        for v in BOARD.adj[e.a]:
            if v >= 9 and int(v) not in occ:
                found["to"] = int(v)
                return True
        return False

    gid, evs, i = logic4.find(even_walk)
    logic4.objects(gid, changed(evs, i, b=found["to"]), "CL-T1", seq=evs[i].seq, words="whole roll")


def test_log_goes_on_after_a_right_accusation(logic4):
    """LOG-4: the game ends with a right accusation (CL-T6); nothing may follow."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "accuse" and evs[i].d == 1)
    e = evs[i]
    bad = inserted(evs, len(evs), Ev(0, e.turn + 1, (e.seat + 1) % 4, "roll", 3, 4, 0, 0))
    logic4.objects(gid, bad, "LOG-4", seq=len(evs))


def test_tables_disagree(logic4):
    """RES-2 / RES-1: the games and seats tables must agree with the replay."""
    gid = next(iter(logic4.games))
    evs = logic4.games[gid]
    row = dict(logic4.rows[gid], winner=(logic4.rows[gid]["winner"] + 1) % 4)
    assert logic4.replay(gid, evs, game_row=row).rule == "RES-2"
    seats = [dict(r) for r in logic4.seats[gid]]
    seats[0]["suggestions"] += 1
    assert logic4.replay(gid, evs, seats=seats).rule == "RES-1"


def test_passage_to_a_room_without_one(logic4):
    """CL-T3: a secret passage joins only the rooms of passages.csv (and CL-K7's)."""
    gid, evs, i = logic4.find(
        lambda g, evs, i: (
            evs[i].kind == "move" and evs[i].d == 1 and not any(e.kind == "new_passage" for e in evs[:i])
        )
    )
    joined = {evs[i].a, evs[i].b}
    other = next(r for r in (1, 3, 4, 5, 7) if r not in joined)  # rooms without a passage
    logic4.objects(gid, changed(evs, i, b=other), "CL-T3", seq=evs[i].seq, words="no secret passage")


def test_walk_back_into_the_room_it_left(upto):
    """CL-T1: never the same square twice in a turn: a walk does not end in the room it
    started in."""
    gid, evs, i = upto.find(lambda g, evs, i: evs[i].kind == "move" and evs[i].d == 0 and evs[i].a < 9)
    upto.objects(gid, changed(evs, i, b=evs[i].a), "CL-T1", seq=evs[i].seq)


def test_new_passage_card_drawn_again(reckless):
    """CL-K7: the new-passage card stays in its room: it is never drawn again."""

    def later_clue(g, evs, i):
        return evs[i].kind == "clue" and any(e.kind == "clue" and e.b == 8 for e in evs[:i])

    gid, evs, i = reckless.find(later_clue)
    k7 = next(e.a for e in evs[:i] if e.kind == "clue" and e.b == 8)
    reckless.objects(gid, changed(evs, i, a=k7, b=8), "CL-K7", seq=evs[i].seq, words="left the pile")


def test_new_passage_to_another_room(logic4):
    """CL-K7: the passage goes to the room the drawer picked."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "new_passage")
    logic4.objects(gid, changed(evs, i, a=(evs[i].a + 1) % 9), "CL-K7", seq=evs[i].seq)


def _pawn_node(log, gid, evs, i, seat):
    """Node of ``seat``'s pawn just before event ``i`` (its last move, else its start)."""
    for e in reversed(evs[:i]):
        if e.kind == "move" and e.seat == seat:
            return e.b
    char = log.seats[gid][seat]["character"]
    return BOARD.start[BOARD.suspects.index(char)]


def test_keeping_the_room_by_card_16_is_no_stay(logic4):
    """CL-K9: a player who rolled, drew card 16 and kept the room it started in does not
    suggest there this turn.  The drawer's own card-16 move out of its room is dropped and
    the rest of its turn replaced by a suggestion in the room it kept."""

    def drawer_leaves_room(g, evs, i):
        e = evs[i]
        return (
            e.kind == "move"
            and e.d == 2
            and e.a < 9
            and any(
                x.kind == "clue" and x.b == 7 and x.seat == e.seat and x.turn == e.turn
                for x in evs[i - 8 : i]
            )
        )

    gid, evs, i = logic4.find(drawer_leaves_room)
    e = evs[i]
    j = i + 1
    while evs[j].kind == "move" and evs[j].d == 2:
        j += 1  # the other pawns' moves of card 16
    char = BOARD.suspects.index(logic4.seats[gid][e.seat]["character"])
    kept = evs[:i] + [x._replace(seq=x.seq - 1) for x in evs[i + 1 : j]]
    suggestion = Ev(len(kept), e.turn, e.seat, "suggest", char, 6, 12 + e.a, -1)
    rest = [x for x in evs[j:] if x.turn != e.turn]
    bad = kept + [suggestion] + [x._replace(seq=len(kept) + 1 + k) for k, x in enumerate(rest)]
    logic4.objects(gid, bad, "CL-K9", seq=len(kept))


def test_card_16_moves_no_pawn_of_a_player_out(reckless):
    """CL-K8: card 16 moves the pawns of the players still in the game only."""

    def k6_after_elimination(g, evs, i):
        return evs[i].kind == "clue" and evs[i].b == 7 and eliminated_before(evs, i)

    gid, evs, i = reckless.find(k6_after_elimination)
    q = min(eliminated_before(evs, i))
    node = _pawn_node(reckless, gid, evs, i, q)
    to = next(r for r in range(9) if r != node)
    bad = inserted(evs, i + 1, Ev(0, evs[i].turn, q, "move", node, to, 0, 2))
    reckless.objects(gid, bad, "CL-K8", seq=i + 1, words="out of the game")


def test_accusation_from_a_square(logic4):
    """CL-T6: an accusation is made with the pawn in a room; here a player whose pawn ended
    its walk on a square accuses."""
    gid, evs, i = logic4.find(
        lambda g, evs, i: (
            evs[i].kind == "move" and evs[i].d == 0 and evs[i].b >= 9 and evs[i + 1].turn != evs[i].turn
        )
    )
    e = evs[i]
    bad = inserted(evs, i + 1, Ev(0, e.turn, e.seat, "accuse", 0, 6, 12, 2))
    logic4.objects(gid, bad, "CL-T6", seq=i + 1, words="in a room")


def test_show_when_nobody_can_refute(logic4):
    """CL-T5: when no player to the left holds a named card, nobody shows one."""
    gid, evs, i = logic4.find(lambda g, evs, i: evs[i].kind == "suggest" and evs[i].d == -1)
    e = evs[i]
    bad = inserted(evs, i + 1, Ev(0, e.turn, (e.seat + 1) % 4, "show", e.a, e.seat, 0, -1))
    logic4.objects(gid, bad, "CL-T5", seq=i + 1, words="nobody shows")


# --- every event kind is read by a rule ----------------------------------------------------

REFEREE_DIR = Path(sim.games.cluedo.referee.__file__).parent

#: kinds whose loss alone the referee cannot see, with why: nothing else may be listed here
REDUNDANT = {
    "deal_start": "repeats the seat of the first `deal` row (CL-S2), checked against it when present"
}


def _strings(node):
    """The string constants of ``node``: a constant or a tuple / list / set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_strings(e) for e in node.elts))
    return set()


def referee_dispatch():
    """Event kinds the referee's code compares an event's ``kind`` with, or passes as the
    ``kind`` argument of its own readers (``expect``, ``_participants``): parsed from its
    source, so a kind nobody dispatches on is missing."""
    trees = [ast.parse(f.read_text()) for f in sorted(REFEREE_DIR.glob("*.py"))]
    takes_kind = {}  # function name -> index of its ``kind`` argument at a call site
    for tree in trees:
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef):
                names = [a.arg for a in fn.args.args]
                if "kind" in names:
                    takes_kind[fn.name] = names.index("kind") - (names[0] == "self")
    kinds = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(x, ast.Attribute) and x.attr == "kind" for x in sides):
                    kinds |= set().union(*(_strings(x) for x in sides))
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                k = takes_kind.get(name)
                if k is not None and k < len(node.args):
                    kinds |= _strings(node.args[k])
    return kinds


def logged_kinds(*logs):
    return {e.kind for log in logs for evs in log.games.values() for e in evs}


def test_every_event_kind_the_kernel_writes_is_read_by_a_rule(two, logic4, reckless):
    """The kinds the adapter declares and the kinds real 2- and 4-player logs hold are all
    dispatched on by the referee: a kind added to the kernel without a rule fails here."""
    declared = set(C.dataset_facts({})["event_kinds"])
    logged = logged_kinds(two, logic4, reckless)
    assert logged <= declared, f"logged kinds the adapter does not declare: {logged - declared}"
    missing = (declared | logged) - referee_dispatch()
    assert not missing, f"event kinds no rule of the referee reads: {sorted(missing)}"


def test_losing_any_event_kind_is_objected_to(two, logic4, reckless):
    """Deleting one event of any kind from a clean log (in up to 5 games per kind, each kind
    taken where real logs hold it) is objected to: a kind the referee reads only when it
    happens to be there, as the face-down look once was (CL-2.2), fails here."""
    declared = set(C.dataset_facts({})["event_kinds"])
    tried = {}
    for log in (two, logic4, reckless):
        for gid, evs in log.games.items():
            assert log.replay(gid, evs) is None, "the clean log must replay clean"
            for kind in {e.kind for e in evs}:
                if kind in REDUNDANT or len(tried.get(kind, [])) >= 5:
                    continue
                i = next(j for j, e in enumerate(evs) if e.kind == kind)
                div = log.replay(gid, dropped(evs, i))
                tried.setdefault(kind, []).append((gid, div))
    assert set(tried) == declared - set(REDUNDANT), "enlarge the samples: some kind never happens"
    accepted = {k: gids for k, v in tried.items() if (gids := [g for g, d in v if d is None])}
    assert not accepted, f"deletions the referee accepted (kind: games): {accepted}"
