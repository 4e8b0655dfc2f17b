"""Game end and scoring (BI-G1..G3, BI-X2)."""

from __future__ import annotations

from collections import Counter

from .divergence import fail
from .morning import investigation
from .state import EXIT


def end_game(g):
    s = g.s
    g.phase = "end"
    # BI-G1: travellers still in rooms go to the Exit ...
    while g.peek().kind == "discard":
        ev = g.take()
        if not (0 <= ev.a < 8 and s.rooms[ev.a].traveller == ev.card):
            fail("BI-G1", f"card {ev.card} discarded from room {ev.a} but is not its traveller")
        s.move(ev.card, EXIT)
    left = [i for i, r in enumerate(s.rooms) if r.traveller is not None]
    if left:
        g.current = g.peek()
        fail(
            "BI-G1", f"travellers left in rooms {left} at the end", {"rooms_empty": True}, {"occupied": left}
        )
    # ... and an investigation happens at once regardless of police (not after a solo loss)
    if not s.over:
        investigation(g, final=True)
    end_bonuses(g)
    scores(g)


def end_bonuses(g):
    """BI-G2: 4 F per Exit card of the annex's colour (Park, Grocery, Bishopric, Stables),
    3 F per cheque (Greenhouse); capped unless ``end_bonus_capped`` is off (BI-V8).  The
    Greenhouse counts the cheques held before the end bonuses (BI-V10: cheques an
    unlimited-wealth bonus makes do not count, in whatever order the annexes were built)."""
    s = g.s
    exit_colours = Counter(s.cards[c].colour for c in s.exit)
    cheques_before = [seat.cheques for seat in s.seats]
    owed = {}  # (seat, annex card, 0 colour / 1 cheque) -> (F per unit, colour)
    for p, seat in enumerate(s.seats):
        if seat.solo_lost:
            continue
        for a in seat.annexes:
            for colour, per in s.cards[a].effect_args("end_cash_per_exit_card_of_colour"):
                owed[(p, a, 0)] = (int(per), colour)
            for (per,) in s.cards[a].effect_args("end_cash_per_cheque"):
                owed[(p, a, 1)] = (int(per), None)
    capped = g.cfg.end_bonus_capped
    rule = "BI-G2" if capped else "BI-V8"
    done = set()
    while g.peek().kind == "end_bonus":
        ev = g.take()
        key = (ev.seat, ev.card, ev.c)
        if key not in owed or key in done:
            fail(
                "BI-G2",
                f"end bonus to seat {ev.seat} from card {ev.card}, which gives none (or gave it already)",
            )
        per, colour = owed[key]
        count = exit_colours[colour] if ev.c == 0 else cheques_before[ev.seat]
        g.check_value("BI-G2", "cards of the colour in the Exit" if ev.c == 0 else "cheques", count, ev.b)
        got = s.gain(ev.seat, per * count, capped=capped)
        g.check_value(rule, "end bonus kept", got, ev.a)
        g.check_money(ev, rule)
        done.add(key)
    for key, (per, colour) in owed.items():
        p = key[0]
        count = exit_colours[colour] if key[2] == 0 else cheques_before[p]
        if key not in done and s.would_gain(p, per * count, capped) > 0:
            g.current = g.peek()
            fail(
                "BI-G2",
                f"end bonus of {per * count} F to seat {p} from card {key[1]} "
                f"({s.cards[key[1]].annex}) is not logged",
                {"end_bonus": per * count},
                {"end_bonus": None},
            )


def tiebreak(g, p):
    """BI-G3 / BI-V9: corpses the player buried, or corpses under the player's annexes."""
    seat = g.s.seats[p]
    return seat.buried_under_own if g.cfg.tiebreak_own_annexes else seat.buried


def places(g):
    """BI-G3: 1 + the number of players strictly ahead (higher score, or equal score and a
    better tie-break); a remaining tie is shared."""
    n = g.cfg.players
    key = [(g.s.seats[p].score, tiebreak(g, p)) for p in range(n)]
    return [1 + sum(1 for q in range(n) if key[q] > key[p]) for p in range(n)]


def winners(g):
    """Several players: every seat in first place.  Solo (BI-X2): the player unless lost."""
    if g.cfg.players == 1:
        return [] if g.s.seats[0].solo_lost else [0]
    return [p for p, place in enumerate(places(g)) if place == 1]


def scores(g):
    s = g.s
    place = places(g)
    seen = set()
    while g.peek().kind == "score":
        ev = g.take()
        p = ev.seat
        if not (0 <= p < g.cfg.players) or p in seen:
            fail("BI-G3", f"score of seat {p} twice or no such seat")
        g.check_value(
            "BI-G3",
            "score, place, tie-break",
            (s.seats[p].score, place[p], tiebreak(g, p)),
            (ev.a, ev.b, ev.c),
        )
        g.check_money(ev, "BI-G3")
        seen.add(p)
    if len(seen) != g.cfg.players:
        g.current = g.peek()
        fail("BI-G3", f"scores of seats {sorted(set(range(g.cfg.players)) - seen)} are not logged")
