"""One player's turn (CL-T1..T7, CL-2.2): stay, passage or roll and move; suggestion and
refutation; accusation.

A turn's events are the events stamped with its turn number.  The turn is read as: an
optional look (CL-2.2) and accusation (CL-T6) at its start, then one action, then an
optional accusation.  The action is a stay (a suggestion without a move, CL-T3/CL-T4), a
passage (a ``move`` with how 1, CL-T3) or a roll (CL-T1/CL-T2) with its clue card and walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import clues
from .data import FIRST_ROOM, N_ROOMS, ROOM_CARDS, SUSPECTS, WEAPONS, exact_walk, longest_walk, reachable
from .divergence import fail
from .log import PASSAGE, SUGGESTION_MOVE, WALK

ACTOR_KINDS = ("roll", "accuse", "suggest", "look", "clue")


@dataclass
class TurnCtx:
    seat: int
    start: int  # node of the pawn at the start of the turn
    may_stay: bool  # CL-T3 / CL-T4 / CL-V4
    entered: set = field(default_factory=set)  # rooms entered this turn by the player's own move
    pending_look: object = None  # a look (CL-2.2) in a room not entered: needs a stay there
    stayed: bool = False


def play(g, p):
    """Replay the turn of seat ``p`` (in the game, its turn by CL-S4)."""
    g.turns_taken[p] += 1
    ch = g.chars[p]
    pos = g.pos[ch]
    moved = g.moved[ch]
    g.moved[ch] = False
    in_room = pos < N_ROOMS
    g.ctx = TurnCtx(p, pos, in_room and (g.rules.stay_allowed or moved))
    _check_actor(g, p)
    if in_room:
        _mark_room(g, p)
    _looks(g, p)
    if _accuses_next(g, p):  # accuse() objects unless the pawn is in a room (CL-T6)
        accuse(g, p)
        _end_turn(g, p)
        return
    ev = g.peek()
    if ev.kind == "roll" and g.in_turn():
        _roll(g, p)
    elif ev.kind == "move" and ev.d == PASSAGE and g.in_turn():
        g.check(not g.rules.stay_rolls, "CL-T3", "roll_every_turn: a passage comes after the roll")
        _passage(g, p)
    elif _suggestion_next(g):
        g.current = ev
        g.check(not g.rules.stay_rolls, "CL-T3", "roll_every_turn: a stay comes after the roll")
        _stay(g, p)
    else:
        g.current = ev
        fail(
            "CL-T1",
            "a turn is a roll, a stay in the room or a passage"
            + (" (an unrolled walk)" if ev.kind == "move" and ev.d == WALK else ""),
            {"kind": "roll | suggest | move (passage)"},
            {"kind": ev.kind, "seat": ev.seat, "how": ev.d if ev.kind == "move" else None},
        )
    _end_turn(g, p)


def _stay(g, p):
    """CL-T3 / CL-T4 / CL-V4: stay in the room the turn started in and suggest there."""
    ctx = g.ctx
    pos = g.pos[g.chars[p]]
    g.check(
        pos < N_ROOMS, "CL-T5", "a suggestion is made in the room the player is in; its pawn is on a square"
    )
    g.check(pos == ctx.start, "CL-T3", "only the room the turn started in can be stayed in")
    g.check(ctx.may_stay, "CL-T3", _no_stay_reason(g))
    ctx.stayed = True
    _looks(g, p)
    _look_due(g, p, pos, "staying in the room to suggest")
    suggest(g, p, pos)


def _no_stay_reason(g):
    if not g.rules.stay_allowed:
        return "classic rules (CL-V4): staying to suggest needs a pawn moved in by someone else (CL-T4)"
    return "staying to suggest needs the pawn to start the turn in the room"


def _check_actor(g, p):
    """The turn's first acting event must be seat ``p``'s: another seat acting is out of
    turn (CL-S4), or a player out of the game acting (CL-T6)."""
    ev = g.peek()
    if not g.in_turn():
        g.current = ev
        if ev.kind == "(end of log)":
            fail("LOG-4", f"the log ends before seat {p}'s turn {g.turn}")
        fail("LOG-1", f"seat {p}'s turn {g.turn} has no events", {"turn": g.turn}, {"turn": ev.turn})
    j = g.i
    if ev.kind == "move" and ev.d == SUGGESTION_MOVE:
        j += 1  # a stay: the named suspect's pawn moves first, then the suggestion
    e = g.events[j]
    actor = e.seat if (e.kind in ACTOR_KINDS or (e.kind == "move" and e.d in (WALK, PASSAGE))) else p
    if actor != p and e.turn == g.turn:
        g.current = e
        if 0 <= actor < g.n and not g.active[actor]:
            fail(
                "CL-T6",
                f"seat {actor} accused wrongly and is out of the game, yet it takes a turn",
                {"seat": p},
                {"seat": actor},
            )
        fail("CL-S4", f"turn {g.turn} is seat {p}'s (clockwise from seat 0)", {"seat": p}, {"seat": actor})


def _mark_room(g, p):
    """``first_room_turn``: the player's first own turn spent in a room."""
    if g.first_room[p] < 0:
        g.first_room[p] = g.turns_taken[p]


def _enter(g, p, room):
    """The player's pawn entered ``room`` by its own move this turn (walk, passage, clue)."""
    g.ctx.entered.add(room)
    _mark_room(g, p)
    _looks(g, p)
    _look_due(g, p, room, "entering the room on its own turn")


def _looks(g, p):
    """CL-2.2: a player may look at the face-down card of the room its pawn is in when it
    entered the room on its own turn, or when it stays there to suggest."""
    while g.in_turn() and g.peek().kind == "look":
        ev = g.take()
        room = g.pos[g.chars[p]]
        g.check(g.n == 2, "CL-2.2", "face-down cards exist only in the 2-player game (CL-2.1)")
        g.check_value("CL-2.2", "looking seat", p, ev.seat)
        g.check_value("CL-2.2", "room of the looking pawn", room, ev.b)
        g.check_value("CL-2.2", "face-down card of the room", g.face_down.get(room), ev.a)
        before = g.looked.get((p, room))
        if before is not None:
            fail(
                "CL-2.2",
                "a look is logged the first time the player looks at a face-down card; "
                + ("it already looked at it this turn" if before == g.turn else f"it did on turn {before}"),
                {"look": None},
                {"look": ev.a, "room": room},
            )
        g.looked[(p, room)] = g.turn
        if room not in g.ctx.entered:
            g.ctx.pending_look = ev


def _look_due(g, p, room, how):
    """CL-2.2: a player entering a room that holds a face-down card (or staying there to
    suggest) looks at it; the look is logged the first time, right then."""
    if room in g.face_down and (p, room) not in g.looked:
        g.current = g.peek()
        fail(
            "CL-2.2",
            f"{how}, the player looks at the face-down card of the {g.data.node_name(room)}; "
            "the log has no look",
            {"kind": "look", "a": g.face_down[room], "b": room},
            {"kind": g.current.kind, "seat": g.current.seat},
        )


def _accuses_next(g, p):
    ev = g.peek()
    return g.in_turn() and ev.kind == "accuse"


def _suggestion_next(g):
    ev = g.peek()
    if not g.in_turn():
        return False
    if ev.kind == "suggest":
        return True
    if ev.kind == "move" and ev.d == SUGGESTION_MOVE:
        nxt = g.events[g.i + 1]
        return nxt.kind == "suggest" and nxt.turn == g.turn
    return False


def _end_turn(g, p):
    """After the action: an optional accusation from a room (CL-T6); then the turn is over."""
    if not g.over and g.active[p] and g.in_turn() and g.peek().kind == "accuse":
        accuse(g, p)  # one accusation per turn: a wrong one puts the player out (CL-T6)
    look = g.ctx.pending_look
    if look is not None and not g.ctx.stayed:
        g.current = look
        fail(
            "CL-2.2",
            "a pawn moved in by someone else looks at the face-down card only if it stays to suggest there",
        )
    if g.in_turn():
        ev = g.take()
        if ev.kind in ("suggest", "move") and ev.seat == p and not g.in_room(p):
            fail("CL-T5", "a suggestion is made only in a room the player entered or stays in")
        if ev.kind == "accuse" and ev.seat == p:
            fail("CL-T6", "one accusation per turn, with the pawn in a room, by a player still in the game")
        fail("LOG-2", f"an event the turn does not call for ('{ev.kind}' after the turn's action)")


# --- the actions ----------------------------------------------------------------------


def _passage(g, p):
    """CL-T3: a secret passage (or one made by CL-K7) is the whole move."""
    ev = g.take()
    ch = g.chars[p]
    pos = g.pos[ch]
    g.check_value("CL-T3", "seat of the pawn taking the passage", p, ev.seat)
    g.check(pos < N_ROOMS, "CL-T3", "a passage is taken from a room")
    g.check_value("CL-T3", "passage start (the pawn's room)", pos, ev.a)
    if ev.b not in g.passages[pos]:
        fail(
            "CL-T3",
            f"no secret passage joins the {g.data.node_name(pos)} to {g.data.node_name(ev.b)}",
            {"to": sorted(g.data.rooms[q] for q in g.passages[pos])},
            {"to": g.data.node_name(ev.b)},
        )
    g.check_value("CL-T3", "steps allowed of a passage", 0, ev.c)
    g.pos[ch] = ev.b
    _enter(g, p, ev.b)
    _maybe_suggest(g, p)


def _roll(g, p):
    """CL-T1 / CL-T2: roll, maybe draw a clue card with a loupe, then walk.  With
    ``roll_every_turn`` a player in a room may also roll and then stay or take a passage."""
    ev = g.take()
    r = g.rules
    g.check_value("CL-T1", "rolling seat", p, ev.seat)
    d1, d2, loupes, draw = ev.a, ev.b, ev.c, ev.d
    faces = r.die_faces  # CL-C2: six printed (rules.die_faces)
    if not 1 <= d1 <= faces:
        fail("CL-C2", f"a die shows 1 to {faces}, not {d1}", {"faces": faces}, {"die": d1})
    if r.dice == 2 and not 1 <= d2 <= faces:
        fail("CL-C2", f"a die shows 1 to {faces}, not {d2}", {"faces": faces}, {"die": d2})
    if r.dice != 2:
        g.check_value("CL-V2", "second die (one die)", 0, d2)
    want = int(r.loupe_dice >= 1 and d1 == 1) + int(r.loupe_dice >= 2 and d2 == 1)
    g.check_value("CL-V1" if r.loupe_dice < 2 else "CL-T2", "loupes shown", want, loupes)
    g.check(draw in (0, 1), "CL-T2", "at most one clue card per turn")
    if draw:
        g.check(loupes > 0, "CL-T2", "a clue card is drawn only with a loupe")
        g.check(r.clue_cards, "CL-V3", "no clue cards in this ruleset")
        g.check(bool(g.unseen or g.under), "CL-K7", "the clue pile is empty")
    ch = g.chars[p]
    roll = d1 + d2 + r.extra_steps[ch]  # CL-T1, plus the what-if rules.extra_steps (0 by the rules)
    total = roll - draw  # a loupe used for its effect counts 0 (CL-T2)
    placed = clues.draw(g, p) if draw else None
    if placed == "moved":  # CL-K6 moved the drawer into a room: that ends its move
        _enter(g, p, g.pos[ch])
        _maybe_suggest(g, p)
        return
    ev = g.peek()
    if g.in_turn() and ev.kind == "move" and ev.d == WALK:
        _walk(g, p, total, roll)
        if g.pos[ch] < N_ROOMS:
            _enter(g, p, g.pos[ch])
            _maybe_suggest(g, p)
        return
    if g.in_turn() and ev.kind == "move" and ev.d == PASSAGE:
        g.current = ev
        g.check(r.stay_rolls, "CL-T3", "a passage replaces the roll (roll_every_turn is off)")
        _passage(g, p)
        return
    if _suggestion_next(g) or (g.in_turn() and ev.kind == "look"):
        g.current = ev
        if placed == "stayed" and not r.stay_rolls:
            fail(
                "CL-K9",
                "a player who rolled and keeps its room by a clue card does not suggest there this "
                "turn (a clue card never turns the move into a stay)",
            )
        g.check(r.stay_rolls, "CL-T3", "staying to suggest replaces the roll (roll_every_turn is off)")
        _stay(g, p)
        return
    _no_move(g, p, total)


def _no_move(g, p, total):
    """The pawn stays where it is after rolling: always allowed moving "up to" the roll; with
    exact moves only when no room is within the roll and no square can be stepped on."""
    if not g.rules.exact_roll:
        return
    ch = g.chars[p]
    pos = g.pos[ch]
    blocked = g.blocked_for(ch)
    dist = reachable(g.data, pos, blocked, total)
    if len(dist) > 1:
        g.current = g.peek()
        rooms = sorted(g.data.node_name(v) for v in dist if v < N_ROOMS and v != pos)
        fail(
            "CL-T1",
            "move_steps = exact: a pawn that can move uses the roll; it did not move",
            {"move to": rooms or "a square at the end of the roll"},
            {"move": None},
        )


def _walk(g, p, total, dice):
    ev = g.take()
    ch = g.chars[p]
    pos = g.pos[ch]
    d = g.data
    g.check_value("CL-T1", "seat of the walking pawn", p, ev.seat)
    g.check_value("CL-T1", "walk start (the pawn's node)", pos, ev.a)
    if ev.c != total:
        rule = "CL-T2" if ev.c == dice and total == dice - 1 else "CL-T1"
        fail(
            rule,
            "steps allowed = the dice (plus rules.extra_steps), a loupe used for a clue card counting 0",
            {"steps": total},
            {"steps": ev.c},
        )
    dest = ev.b
    g.check(
        0 <= dest < d.n_nodes and dest != pos,
        "CL-T1",
        f"a walk ends on another node of the board, not {dest}",
    )
    blocked = g.blocked_for(ch)
    if dest in blocked:
        fail(
            "CL-T1",
            f"the walk ends on {d.node_name(dest)}, occupied by another pawn",
            {"to": "a free square or a room"},
            {"to": d.node_name(dest)},
        )
    dist = reachable(d, pos, blocked, total)
    ok = dest in dist
    if ok and g.rules.exact_roll and dest >= N_ROOMS and dist[dest] != total:
        ok = _exact_end(g, pos, dest, blocked, total)
        if not ok:
            fail(
                "CL-T1",
                f"move_steps = exact: no walk of the whole roll ({total}) ends on {d.node_name(dest)} "
                "without a square twice or a pawn crossed, and the pawn is not boxed in",
                {"steps": total},
                {"to": d.node_name(dest), "shortest": dist[dest]},
            )
    if ok:
        g.pos[ch] = dest
        return
    free = reachable(d, pos, set(), 99).get(dest)
    around = reachable(d, pos, blocked, 99).get(dest)
    if free is not None and free <= total:
        msg = f"{d.node_name(dest)} is {free} steps away only through squares occupied by pawns ({around} around them)"
    elif dest == g.ctx.start:
        msg = "a pawn never re-enters the room it left this turn"
    else:
        msg = f"the walk to {d.node_name(dest)} needs {around if around is not None else free} steps, longer than the dice"
    need = around if around is not None else free
    fail("CL-T1", msg, {"steps": total}, {"steps_needed": need, "to": d.node_name(dest)})


def _exact_end(g, pos, dest, blocked, total):
    """Exact moves: ``dest`` (a square) ends a walk of the whole roll on a path without a
    square twice; a pawn boxed in (no such walk anywhere) walks as far as it can."""
    d = g.data
    if exact_walk(d, pos, dest, blocked, total):
        return True
    longest = longest_walk(d, pos, blocked, total)
    return longest < total and exact_walk(d, pos, dest, blocked, longest)


def _maybe_suggest(g, p):
    """After entering a room the player may suggest there (CL-T5)."""
    if _suggestion_next(g):
        suggest(g, p, g.pos[g.chars[p]])


# --- suggestion and refutation (CL-T5) ----------------------------------------------------


def suggest(g, p, room):
    """A suggestion by ``p`` in ``room``: the named pawn and weapon move in, the players to
    the left are asked in order and the first who can shows one matching card."""
    drag = g.take() if g.peek().kind == "move" and g.peek().d == SUGGESTION_MOVE else None
    ev = g.expect("suggest", "CL-T5", "the suggestion", seat=p)
    s, w, rc, refuter = ev.a, ev.b, ev.c, ev.d
    d = g.data
    g.check_value("CL-T5", "room card (the room the player is in)", FIRST_ROOM + room, rc)
    g.check(s in SUSPECTS and w in WEAPONS, "CL-T5", "a suggestion names a suspect and a weapon")
    need = g.pos[s] != room
    if drag is None and need:
        fail(
            "CL-T5",
            f"the named suspect's pawn ({d.suspects[s]}) is not moved into the room",
            {"move": "how 3"},
            {"move": None},
        )
    if drag is not None:
        g.current = drag
        g.check(need, "CL-T5", "the named pawn is already in the room: no move")
        g.check_value("CL-T5", "pawn seat of the moved suspect", g.seat_of[s], drag.seat)
        g.check_value("CL-T5", "moved pawn's node (the named suspect's)", g.pos[s], drag.a)
        g.check_value("CL-T5", "node the named pawn moves to", room, drag.b)
        g.check_value("CL-T5", "steps of a suggestion move", 0, drag.c)
        g.current = ev
    if need:
        g.pos[s] = room
        if s != g.chars[p]:
            g.moved[s] = True  # CL-T4
    g.weapon_room[w - 6] = room
    named = {s, w, rc}
    want = -1
    for k in range(1, g.n):
        j = (p + k) % g.n  # to the left, in order; players out of the game still show (CL-T6)
        if g.hands[j] & named:
            want = j
            break
    if refuter != want:
        fail(
            "CL-T5",
            "the first player to the left who holds a named card must show one",
            {"refuter": want},
            {"refuter": refuter},
        )
    g.suggestions[p] += 1
    look = g.ctx.pending_look
    if look is not None and look.b == room and g.ctx.stayed:
        g.ctx.pending_look = None
    if want >= 0:
        sh = g.expect("show", "CL-T5", f"seat {want} shows a card", seat=want)
        if sh.a not in g.hands[want]:
            fail(
                "CL-T5",
                f"seat {want} shows a card it does not hold",
                {"hand": sorted(g.hands[want])},
                {"card": sh.a},
            )
        if sh.a not in named:
            fail(
                "CL-T5",
                "the card shown is not one of the three named",
                {"named": sorted(named)},
                {"card": sh.a},
            )
        g.check_value("CL-T5", "card shown to", p, sh.b)
    elif g.in_turn() and g.peek().kind == "show":
        g.take()
        fail("CL-T5", "nobody to the left holds a named card: nobody shows one")


# --- accusation (CL-T6, CL-T7) ------------------------------------------------------------


def accuse(g, p):
    ev = g.expect("accuse", "CL-T6", "an accusation", seat=p)
    g.check(g.in_room(p), "CL-T6", "an accusation is made with the pawn in a room")
    g.check(
        ev.a in SUSPECTS and ev.b in WEAPONS and ev.c in ROOM_CARDS,
        "CL-T6",
        "an accusation names a suspect, a weapon and a room",
    )
    right = (ev.a, ev.b, ev.c) == g.envelope
    g.check_value("CL-T6", "verdict (1 right, 2 wrong; judged against the envelope)", 1 if right else 2, ev.d)
    g.accused[p] = 1 if right else 2
    if right:
        g.winner = p
        g.over = True
        return
    g.active[p] = False  # out; the pawn stays, it still shows cards (CL-T6)
    if not any(g.active):
        g.over = True  # CL-T7: nobody wins
