"""Setup (CL-S1..S4, CL-2.1, CL-V5, CL-V6): weapons, envelope, deal, characters."""

from __future__ import annotations

from .data import N_ROOMS, ROOM_CARDS, SUSPECTS, WEAPONS
from .divergence import fail
from .log import TABLE_HOLDER


def run(g):
    _characters(g)
    _weapons(g)
    _envelope(g)
    if g.n == 2:
        _face_down(g)
    _deal(g)
    _pile(g)


def _characters(g):
    """CL-S3 / CL-V5: one distinct suspect per seat (from the seats table); classic order
    seats the characters in Scarlett's order; configured characters are as configured (with
    the classic order, the configured suspects in Scarlett's order)."""
    rows = g.seat_rows
    if not rows:
        fail("RES-1", "the game has no seats rows: the referee needs each seat's character")
    names = g.data.suspects
    chars = []
    for r in rows:
        if r["character"] not in names:
            fail(
                "RES-1",
                f"seat {r['seat']}: unknown character",
                {"character": names},
                {"character": r["character"]},
            )
        chars.append(names.index(r["character"]))
    if len(chars) != g.n or len(set(chars)) != g.n:
        fail("CL-S3", "every seat plays one distinct suspect", {"seats": g.n}, {"characters": chars})
    want = g.rules.characters
    if want is not None and g.rules.first_classic:
        want = tuple(sorted(want))  # the kernel's reading: the list names who plays, CL-V5 seats them
    if want is not None and tuple(chars) != want:
        fail(
            "CL-S3",
            "the characters are not the configured ones",
            {"characters": list(want)},
            {"characters": chars},
        )
    if g.rules.first_classic and chars != sorted(chars):
        fail(
            "CL-V5",
            "classic first player: seats follow the character order from Scarlett",
            {"characters": sorted(chars)},
            {"characters": chars},
        )
    g.chars = chars
    for s, c in enumerate(chars):
        g.seat_of[c] = s


def _weapons(g):
    """CL-S1: each weapon in a different room."""
    rooms = set()
    for _ in range(6):
        ev = g.expect("weapon", "CL-S1", "a weapon placed at setup", seat=-1)
        w, r = ev.a, ev.b
        if w not in WEAPONS or g.weapon_room[w - 6] is not None:
            fail(
                "CL-S1",
                "each of the six weapons is placed once",
                {"weapon": "a weapon not placed yet"},
                {"weapon": w},
            )
        if not 0 <= r < N_ROOMS or r in rooms:
            fail(
                "CL-S1",
                "each weapon goes into a different room",
                {"room": "a room without a weapon"},
                {"room": r},
            )
        rooms.add(r)
        g.weapon_room[w - 6] = r


def _envelope(g):
    """CL-S2: one suspect, one weapon and one room card in the envelope."""
    ev = g.expect("envelope", "CL-S2", "the envelope", seat=-1)
    if ev.a not in SUSPECTS or ev.b not in WEAPONS or ev.c not in ROOM_CARDS:
        fail("CL-S2", "the envelope holds a suspect, a weapon and a room", {}, {"cards": (ev.a, ev.b, ev.c)})
    g.envelope = (ev.a, ev.b, ev.c)
    for c in g.envelope:
        g.owner[c] = "envelope"


def _face_down(g):
    """CL-2.1 / CL-V6: 4 of the 18 cards face down, one in each of 4 rooms (the corners)."""
    for _ in range(4):
        ev = g.expect("deal", "CL-2.1", "a face-down card (2 players)", seat=TABLE_HOLDER)
        card, room = ev.a, ev.b
        if not 0 <= card < 21 or g.owner[card] is not None:
            fail("CL-2.1", "a face-down card is one of the cards not yet placed", {}, {"card": card})
        if not 0 <= room < N_ROOMS or room in g.face_down:
            fail("CL-2.1", "one face-down card in each of 4 different rooms", {}, {"room": room})
        if not g.rules.two_random_rooms and room not in g.data.corners:
            fail(
                "CL-2.1",
                "the face-down cards go into the corner rooms",
                {"rooms": sorted(g.data.rooms[r] for r in g.data.corners)},
                {"room": g.data.rooms[room]},
            )
        g.face_down[room] = card
        g.owner[card] = "table"


def _deal(g):
    """CL-S2: the other cards are all dealt, one at a time clockwise, from some seat (the
    deal comes before the roll for the first player, so its first seat is not tied to
    seat 0; the batch tests check its distribution)."""
    left = sum(1 for c in g.owner if c is None)
    prev = None
    start = None
    if g.peek().kind == "deal_start":  # the log names the seat dealt first (and the count)
        ev = g.expect("deal_start", "CL-S2", "the deal's first seat", seat=-1)
        g.check(0 <= ev.a < g.n, "CL-S2", f"the deal starts at a seat, not {ev.a}")
        g.check_value("CL-S2", "cards dealt to the players", left, ev.b)
        start = ev.a
    for _ in range(left):
        ev = g.expect("deal", "CL-S2", "a card dealt to a player")
        p, card = ev.seat, ev.a
        if not 0 <= p < g.n:
            fail("CL-S2", "cards are dealt to the players", {"seat": f"0..{g.n - 1}"}, {"seat": p})
        if prev is None:
            g.deal_start = p
            if start is not None:
                g.check_value("CL-S2", "seat dealt the first card", start, p)
        elif p != (prev + 1) % g.n:
            fail(
                "CL-S2", "the deal goes one card at a time clockwise", {"seat": (prev + 1) % g.n}, {"seat": p}
            )
        if not 0 <= card < 21 or g.owner[card] is not None:
            fail("CL-S2", "each card is dealt once and none from the envelope", {}, {"card": card})
        g.owner[card] = p
        g.hands[p].add(card)
        prev = p
    ev = g.peek()
    if ev.kind in ("deal", "weapon", "envelope", "deal_start"):
        g.current = ev
        fail("CL-S2", "every card is already placed", {"kind": "a turn's first event"}, {"kind": ev.kind})


def _pile(g):
    """CL-C2 / CL-T2: the clue pile's order, when the log gives it (``pile`` events, top
    first): ``rules.clue_pile`` distinct cards of the deck (all 29 printed; the rest stay in
    the box).  Without them the referee knows only that the cards come in some order and go
    under the pile."""
    if g.peek().kind != "pile":
        return
    n = g.rules.clue_pile
    order = []
    for i in range(n):
        ev = g.expect("pile", "CL-C2", f"clue card {i + 1} of {n} in the pile's order", seat=-1)
        g.check_value("CL-T2", "position in the pile", i, ev.b)
        g.check(ev.a in g.unseen, "CL-T2", f"clue card {ev.a} is not in the deck, or twice in the pile")
        g.unseen.discard(ev.a)
        order.append(ev.a)
    g.under.extend(order)
    g.unseen.clear()  # the cards not in the pile stay in the box
    g.unseen_left = 0
    if g.peek().kind == "pile":
        g.current = g.peek()
        fail(
            "CL-C2",
            f"the pile holds {n} clue cards (rules.clue_pile)",
            {"pile": n},
            {"pile": f"more than {n}"},
        )
