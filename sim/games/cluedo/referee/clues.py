"""Clue cards (CL-T2 pile, CL-K1..K9).

The pile's order is not logged; the referee checks what the log makes checkable: a card
is drawn from the top and goes under the pile (CL-T2), so until every card has been drawn
once no card comes twice, and from then on the draws repeat the order in which the cards
went under; the new-passage card stays in its room and leaves the pile for good (CL-K7).
"""

from __future__ import annotations

from .data import EFFECT_RULE, EFFECTS, N_ROOMS, ROOM_CARDS, SUSPECTS, WEAPONS
from .divergence import fail
from .log import CLUE_MOVE

CATEGORY = {1: SUSPECTS, 2: WEAPONS, 3: ROOM_CARDS}
K6, K7 = EFFECTS.index("all_move_to_room"), EFFECTS.index("new_passage")


def draw(g, p):
    """The clue card ``p`` draws (after a roll with ``d = 1``).  Returns ``"moved"`` if a
    CL-K6 card moved the drawer's pawn into another room, ``"stayed"`` if it kept its room,
    else None."""
    ev = g.expect("clue", "CL-T2", "the clue card drawn with the loupe", seat=p)
    data = g.data
    row = ev.a
    g.check(1 <= row <= len(data.clue), "CL-T2", f"clue card {row} is not in the deck of {len(data.clue)}")
    _from_pile(g, row)
    card = data.clue[row - 1]
    rule = EFFECT_RULE[card.effect]
    g.check_value(rule, f"effect of clue card {row}", card.effect, ev.b)
    g.clue_drawn += 1
    if card.effect != K7:
        g.under.append(row)  # CL-T2: it goes under the pile
    else:
        g.left_pile.add(row)  # CL-K7: it stays in the chosen room
    eff = EFFECTS[card.effect]
    if eff == "show_specific":
        g.check_value("CL-K1", "card named by the clue card", card.target, ev.c)
        show_named(g, ev.c, "CL-K1")
    elif eff in ("name_suspect", "name_weapon", "name_room"):
        g.check(ev.c in CATEGORY[card.effect], "CL-K2", f"the drawer names a card of the kind {eff[5:]}")
        show_named(g, ev.c, "CL-K2")
    elif eff == "choose_player_reveals":
        _choose_player(g, p, ev)
    elif eff == "all_reveal":
        _all_reveal(g, p, ev)
    elif eff == "all_show_left":
        _all_show_left(g, p, ev)
    elif eff == "all_move_to_room":
        return _all_move(g, p, ev)
    else:
        _new_passage(g, p, ev)
    return None


def _from_pile(g, row):
    if g.unseen:
        if row not in g.unseen:
            fail(
                "CL-K7" if row in g.left_pile else "CL-T2",
                f"clue card {row} left the pile (CL-K7: it stays in its room)"
                if row in g.left_pile
                else f"clue card {row} is drawn again before the pile has gone round",
                {"one of": sorted(g.unseen)},
                {"card": row},
            )
        g.unseen.discard(row)
        g.unseen_left -= 1
        if g.unseen_left == 0:  # CL-C2: every card of the pile drawn once; the rest are boxed
            g.unseen.clear()
        return
    if not g.under or g.under[0] != row:
        fail(
            "CL-K7" if row in g.left_pile else "CL-T2",
            f"clue card {row} left the pile (CL-K7: it stays in its room)"
            if row in g.left_pile
            else "the next card is the top of the pile (drawn cards go under it)",
            {"card": g.under[0] if g.under else None},
            {"card": row},
        )
    g.under.popleft()


def show_named(g, card, rule):
    """CL-K1 / CL-K2: whoever holds ``card`` shows it to everyone (players out of the game
    too, CL-K8); if no player holds it, the log says so (seat -1, c = 1)."""
    ev = g.expect("reveal", rule, "the named card revealed")
    holder = g.owner[card]
    if isinstance(holder, int):
        g.check_value(rule, "seat holding the named card", holder, ev.seat)
        g.check_value(rule, "no-holder flag", 0, ev.c)
    else:
        g.check_value(rule, "seat holding the named card (nobody)", -1, ev.seat)
        g.check_value(rule, "no-holder flag", 1, ev.c)
    g.check_value(rule, "card revealed", card, ev.a)
    g.check_value(rule, "seen by (-1: everyone)", -1, ev.b)


def _in_game(g):
    return [q for q in range(g.n) if g.active[q]]


def _reveal_own(g, q, rule):
    ev = g.expect("reveal", rule, f"seat {q} reveals a card", seat=q)
    if ev.a not in g.hands[q]:
        fail(rule, f"seat {q} reveals a card it does not hold", {"hand": sorted(g.hands[q])}, {"card": ev.a})
    g.check_value(rule, "no-holder flag", 0, ev.c)
    g.check_value(rule, "seen by (-1: everyone)", -1, ev.b)


def _choose_player(g, p, ev):
    """CL-K3: the drawer picks another player still in the game (CL-K8), who reveals a card."""
    q = ev.c
    choices = [s for s in _in_game(g) if s != p]
    if not choices:
        g.check_value("CL-K8", "chosen player (nobody else is in the game)", -1, q)
        return
    if 0 <= q < g.n and not g.active[q]:
        fail("CL-K8", f"seat {q} is out of the game and cannot be chosen", {"one of": choices}, {"seat": q})
    g.check(
        q in choices, "CL-K3", f"the drawer picks another player, not {q}", {"one of": choices}, {"seat": q}
    )
    _reveal_own(g, q, "CL-K3")


def _participants(g, kind, rule, count, accept):
    """Read ``count`` events of ``kind`` from distinct players still in the game (CL-K8)."""
    seen = set()
    out = []
    for _ in range(count):
        ev = g.peek()
        if ev.kind != kind or not g.in_turn():
            g.current = ev
            fail(
                rule,
                f"every player still in the game takes part ({len(seen)} of {count} so far)",
                {"kind": kind},
                {"kind": ev.kind},
            )
        if 0 <= ev.seat < g.n and not g.active[ev.seat]:
            g.take()
            fail("CL-K8", f"seat {ev.seat} is out of the game and does not take part in this clue card")
        if not (0 <= ev.seat < g.n) or ev.seat in seen:
            g.take()
            fail(rule, "each player still in the game takes part once", {}, {"seat": ev.seat})
        if not accept(ev):
            break
        seen.add(ev.seat)
        out.append(g.take())
    ev = g.peek()
    if ev.kind == kind and g.in_turn() and 0 <= ev.seat < g.n and not g.active[ev.seat]:
        g.take()
        fail("CL-K8", f"seat {ev.seat} is out of the game and does not take part in this clue card")
    return out


def _all_reveal(g, p, ev):
    """CL-K4: every player still in the game reveals a card of its choice."""
    g.check_value("CL-K4", "choice of an all-reveal card", -1, ev.c)
    players = _in_game(g)
    for r in _participants(g, "reveal", "CL-K4", len(players), lambda e: True):
        g.current = r
        if r.a not in g.hands[r.seat]:
            fail(
                "CL-K4",
                f"seat {r.seat} reveals a card it does not hold",
                {"hand": sorted(g.hands[r.seat])},
                {"card": r.a},
            )
        g.check_value("CL-K4", "no-holder flag", 0, r.c)
        g.check_value("CL-K4", "seen by (-1: everyone)", -1, r.b)


def left_in_game(g, q):
    """The next player to the left of ``q`` still in the game (CL-K5 with CL-K8)."""
    for k in range(1, g.n + 1):
        j = (q + k) % g.n
        if g.active[j]:
            return j
    return q


def _all_show_left(g, p, ev):
    """CL-K5: every player still in the game privately shows a card to its left neighbour."""
    g.check_value("CL-K5", "choice of an all-show card", -1, ev.c)
    players = _in_game(g)
    if len(players) < 2:
        players = []  # nobody else to show to
    for s in _participants(g, "show", "CL-K5", len(players), lambda e: True):
        g.current = s
        if s.a not in g.hands[s.seat]:
            fail(
                "CL-K5",
                f"seat {s.seat} shows a card it does not hold",
                {"hand": sorted(g.hands[s.seat])},
                {"card": s.a},
            )
        to = left_in_game(g, s.seat)
        if s.b != to and 0 <= s.b < g.n and not g.active[s.b]:
            fail("CL-K8", f"seat {s.b} is out of the game and is not shown a card", {"to": to}, {"to": s.b})
        g.check_value("CL-K5", "seat shown to (the left neighbour in the game)", to, s.b)
    ev = g.peek()
    if ev.kind == "show" and g.in_turn():
        g.take()
        out = [q for q in (ev.seat, ev.b) if 0 <= q < g.n and not g.active[q]]
        if out:
            fail("CL-K8", f"seat {out[0]} is out of the game and takes no part in this clue card")
        fail("CL-K5", "every player still in the game shows one card, to its left neighbour")


def _all_move(g, p, ev):
    """CL-K6: the pawn of every player still in the game moves to a room of its choice
    (staying in its room is a choice; a pawn on a square must move)."""
    g.check_value("CL-K6", "choice of an all-move card", -1, ev.c)
    players = _in_game(g)
    moved = set()
    while g.in_turn() and g.peek().kind == "move" and g.peek().d == CLUE_MOVE:
        mv = g.take()
        q = mv.seat
        if 0 <= q < g.n and not g.active[q]:
            fail("CL-K8", f"seat {q} is out of the game: its pawn is not moved by this clue card")
        g.check(
            q in players and q not in moved,
            "CL-K6",
            "each player still in the game moves its own pawn once",
            {"one of": players},
            {"seat": q},
        )
        ch = g.chars[q]
        g.check_value("CL-K6", "moved pawn's node", g.pos[ch], mv.a)
        g.check(
            0 <= mv.b < N_ROOMS and mv.b != mv.a,
            "CL-K6",
            "the pawn moves to another room",
            {"to": "a room"},
            {"to": mv.b},
        )
        g.check_value("CL-K6", "steps of a clue-card move", 0, mv.c)
        g.pos[ch] = mv.b
        if q != p:
            g.moved[ch] = True  # may suggest there on its next turn, as CL-T4
        moved.add(q)
    for q in players:
        if q not in moved and g.pos[g.chars[q]] >= N_ROOMS:
            g.current = g.peek()
            fail("CL-K6", f"seat {q}'s pawn is on a square and must move to a room")
    if p in moved:
        return "moved"
    return "stayed"


def _new_passage(g, p, ev):
    """CL-K7: the drawer joins a room to the secret-passage network (every room that has a
    passage); the card stays in that room, out of the pile."""
    room = ev.c
    free = [r for r in range(N_ROOMS) if not g.passages[r]]
    if room == -1:
        g.check(not free, "CL-K7", "the drawer picks a room", {"one of": free}, {"room": -1})
        return
    g.check(0 <= room < N_ROOMS, "CL-K7", f"the drawer picks a room, not {room}")
    nv = g.expect("new_passage", "CL-K7", "the new passage", seat=p)
    g.check_value("CL-K7", "room given the passage", room, nv.a)
    for q in range(N_ROOMS):
        if q != room and g.passages[q]:
            g.passages[q].add(room)
            g.passages[room].add(q)
