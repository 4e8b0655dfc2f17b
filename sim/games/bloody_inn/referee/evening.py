"""Round start (BI-M4, BI-G4) and the Evening (BI-E1..E4)."""

from __future__ import annotations

from .divergence import fail
from .state import Place


def start_round(g):
    """The ``round`` event, or ``truncated`` at the safety cap (BI-G4).  False: game over."""
    cfg, s = g.cfg, g.s
    if s.round >= cfg.max_rounds:
        ev = g.expect("truncated", "BI-G4", f"the safety cap: round {s.round} reached rules.max_rounds")
        g.check_value("BI-G4", "rounds at truncation", s.round, ev.a)
        g.truncated = True
        return False
    if g.peek().kind == "truncated":
        g.current = g.peek()
        fail("BI-G4", f"game truncated after {s.round} rounds; the cap is {cfg.max_rounds}")
    s.round += 1
    g.phase = "evening"
    ev = g.expect("round", "LOG-2", f"round {s.round} to start")
    g.check_value("LOG-2", "round number", s.round, ev.a)
    g.check_value("BI-M4" if s.round > 1 else "BI-S4", "first player", s.first, ev.seat)
    g.check_value("BI-E3", "season", s.season, ev.b)
    return True


def evening(g):
    """BI-E1..E4.  Returns True if the round is played.

    BI-E3: the first time the Entrance runs out (with 2 seasons) the Exit becomes the new
    Entrance at the moment its last card is drawn (after that card is placed), and placing
    goes on from it; BI-V11 ``on_next_draw``: only when the next card must be drawn.  When a
    card must be drawn in the last season and none is left, the round is the last (BI-E4).
    """
    cfg, s = g.cfg, g.s
    while s.has_empty_open_room():
        if not s.entrance:
            if s.season < cfg.seasons:
                season_change(g, "BI-V11" if cfg.season_on_next_draw else "BI-E3")
            if not s.entrance:
                s.last_round = True
                break
        place(g, s.entrance[0])
        if not s.entrance and s.season < cfg.seasons and not cfg.season_on_next_draw:
            season_change(g, "BI-E3")  # the last card is drawn: shuffle now
    if not s.last_round:
        nxt = g.peek()
        if nxt.kind in ("last_round", "season"):
            g.current = nxt
            fail(
                "BI-E4" if nxt.kind == "last_round" else "BI-E3",
                f"'{nxt.kind}' logged but the inn is full and the Entrance has {len(s.entrance)} cards left",
            )
        return True
    ev = g.expect("last_round", "BI-E4", "the end trigger (the Entrance ran out again)")
    n = s.travellers_in_inn()
    played = not cfg.strict_final_round and n >= cfg.players
    g.check_value("BI-E4", "travellers in the inn", n, ev.a)
    g.check_value("BI-V6" if cfg.strict_final_round else "BI-E4", "last round played", int(played), ev.b)
    return played


def season_change(g, rule):
    """BI-E3: the Exit, shuffled, becomes the new Entrance; the Exit restarts empty.
    ``rule`` names the timing that asked for it (BI-E3 or BI-V11)."""
    s = g.s
    new = []
    if g.peek().kind != "season" and s.exit:
        g.current = g.peek()
        fail(
            rule,
            f"the Entrance ran out (season {s.season}) and the Exit ({len(s.exit)} cards) should "
            f"become the new Entrance now; the log has '{g.peek().kind}'",
            {"kind": "season"},
            {"kind": g.peek().kind},
        )
    while g.peek().kind == "season":
        ev = g.take()
        g.check_value("BI-E3", "position in the new Entrance", len(new), ev.a)
        if ev.card not in s.exit:
            fail(
                "BI-E3",
                f"card {ev.card} enters the new Entrance but is not in the Exit "
                f"(it is in {s.where.get(ev.card)})",
            )
        new.append(ev.card)
        s.move(ev.card, Place("entrance", -1, len(new) - 1))
    if s.exit:
        fail(
            "BI-E3",
            f"{len(s.exit)} cards of the Exit are missing from the new Entrance",
            {"exit": len(s.exit) + len(new)},
            {"new_entrance": len(new)},
        )
    s.entrance = new
    s.season += 1
    g.seasons_played = s.season


def place(g, card):
    """BI-E1: the first player puts the top Entrance card in an empty open room."""
    s = g.s
    ev = g.expect("place", "BI-E1", f"the next traveller (card {card}) to be placed")
    g.check_value("BI-E1", "player placing travellers (the first player)", s.first, ev.seat)
    g.check_value("BI-E1", "card drawn (the top of the Entrance)", card, ev.card)
    room = ev.a
    if not (0 <= room < 8 and s.rooms[room].key is not None and s.rooms[room].traveller is None):
        fail(
            "BI-E1",
            f"room {room} is not an empty open room",
            {"empty_open_rooms": s.empty_open_rooms()},
            {"room": room},
        )
    s.move(card, Place("room", room))
    g.check_money(ev, "BI-E1")
    room_service(g, card, room)


def room_service(g, card, room):
    """BI-E2: every Room-Service token on the room pays its owner the traveller's rank (in
    francs times ``rules.room_service_per_rank``, 1 printed)."""
    s = g.s
    tokens = s.rooms[room].tokens
    income = s.cards[card].rank * g.cfg.room_service_per_rank
    if not tokens or income == 0:
        owed = {}
    else:
        owed = {q: income * t for q, t in tokens.items() if t > 0}
    paid = set()
    while g.peek().kind == "room_service":
        ev = g.take()
        q = ev.seat
        if q not in owed or q in paid:
            fail(
                "BI-E2",
                f"room service paid to seat {q}, who has no (other) token on room "
                f"{room}, or the traveller earns nothing (rank 0, or room_service_per_rank 0)",
                {"owed": owed},
                {"seat": q},
            )
        g.check_value("BI-E2", "room-service card and room", (card, room), (ev.card, ev.b))
        g.check_value("BI-E2", "tokens of the owner on the room", tokens[q], ev.c)
        got = s.gain(q, owed[q])
        g.check_value("BI-E2", "room-service gain (rank x rate x tokens, cap)", got, ev.a)
        g.check_money(ev, "BI-E2")
        paid.add(q)
    for q in owed:
        if q not in paid and s.would_gain(q, owed[q]) > 0:
            # an event that would move no money may be left out of the log, no other
            fail(
                "BI-E2",
                f"room service of {owed[q]} F to seat {q} (token on room {room}) is not logged",
                {"room_service": owed[q]},
                {"room_service": None},
            )
