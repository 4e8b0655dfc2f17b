"""Morning (BI-M), in order: investigation, travellers leave, wages, first player passes.

Within a step the seats are independent, so the referee accepts their events in any seat
order; the steps themselves must come in the rules' order.
"""

from __future__ import annotations

from .divergence import fail
from .state import BOX, EXIT


def morning(g):
    s = g.s
    g.phase = "morning"
    investigation(g, final=False)  # BI-M1
    if s.over:  # BI-X2: the solo game is lost at once
        return
    travellers_leave(g)  # BI-M2
    wages(g)  # BI-M3
    ev = g.expect("first_player", "BI-M4", "the first player to pass to the left")
    s.first = (s.first + 1) % g.cfg.players
    g.check_value("BI-M4", "new first player (next seat)", s.first, ev.seat)
    g.check_money(ev, "BI-M4")


def investigation(g, final):
    """BI-M1 (police in a room: at least ``rules.police_to_investigate``, 1 printed) or BI-G1
    (at the end, regardless of police): 10 F per unburied corpse (``rules.fine_per_corpse``,
    at the end ``rules.final_fine_per_corpse``), in cash or cheques as the player chooses
    (``fine_split``); the corpses go to the box.  Solo (BI-X2): a corpse at an investigation
    loses the game."""
    s, cfg = g.s, g.cfg
    rule = "BI-G1" if final else "BI-M1"
    kind = "final_investigation" if final else "investigation"
    police = final or s.police_in_inn() >= cfg.police_to_investigate
    per_corpse = cfg.final_fine_per_corpse if final else cfg.fine_per_corpse
    suspects = {p: len(seat.corpses) for p, seat in enumerate(s.seats) if seat.corpses} if police else {}
    done = set()
    while g.peek().kind in (kind, "solo_lost", "corpse_boxed"):
        ev = g.take()
        p = ev.seat
        g.check(ev.kind != "corpse_boxed", rule, "corpse boxed without its fine")
        if not police:
            fail(
                "BI-M1",
                "investigation although no police traveller is in the inn "
                "(BI-N5: killing or bribing every police officer stops it)"
                if cfg.police_to_investigate == 1
                else f"investigation with {s.police_in_inn()} police travellers in the inn; "
                f"it takes {cfg.police_to_investigate} (rules.police_to_investigate)",
            )
        if p not in suspects or p in done:
            fail(
                rule,
                f"seat {p} fined but has no unburied corpse (or was fined already)",
                {"corpses": suspects},
                {"seat": p},
            )
        g.check_value(rule, "unburied corpses", suspects[p], ev.a)
        done.add(p)
        if ev.kind == "solo_lost":
            g.check(g.cfg.players == 1, "BI-X2", "solo loss in a game of several players")
            s.seats[p].solo_lost = True
            s.over = True
            g.check_money(ev, "BI-X2")
            continue
        g.check(
            g.cfg.players > 1,
            "BI-X2",
            "a solo player caught with an unburied corpse loses at once; the log fines them",
        )
        fine_split(g, p, suspects[p] * per_corpse, ev, rule)
        g.check_money(ev, rule)
        corpses = set(s.seats[p].corpses)
        while g.peek().kind == "corpse_boxed" and g.peek().seat == p:
            e = g.take()
            if e.card not in corpses:
                fail(rule, f"card {e.card} boxed is not an unburied corpse of seat {p}")
            corpses.discard(e.card)
            s.move(e.card, BOX)
            g.check_money(e, rule)
        if corpses:
            fail(rule, f"corpses {sorted(corpses)} of seat {p} are not boxed")
    missing = sorted(set(suspects) - done)
    if missing:
        g.current = g.peek()
        p = missing[0]
        fail(
            rule,
            f"seat {p} has {suspects[p]} unburied corpse(s) "
            f"{'at the end of the game' if final else 'and police is in the inn'}, but is "
            "not fined",
            {"fined": missing},
            {"fined": None},
        )


def fine_split(g, p, owed, ev, rule="BI-M1"):
    """BI-M1: the split the log gives (``b`` F cash, ``c`` cheques) of a fine of ``owed``
    francs (a multiple of 10) must be one the player may choose: exactly the fine in cheques
    and cash, or, when the player is short, everything they have (pay what you can).  Then
    the referee's seat pays it.  ``rule`` is the rule that sets the amount (BI-G1 at the end
    of the game); the split itself is BI-M1's."""
    seat = g.s.seats[p]
    cash, cheques = ev.b, ev.c
    if seat.cash + 10 * seat.cheques < owed:
        allowed = (seat.cash, seat.cheques)
        if (cash, cheques) != allowed:
            fail(
                rule,
                f"seat {p} owes {owed} F with {seat.cash} F cash and {seat.cheques} cheques: "
                f"short, so pays everything; the log pays {cash} F and {cheques} cheques",
                {"cash": allowed[0], "cheques": allowed[1]},
                {"cash": cash, "cheques": cheques},
            )
    elif not (
        0 <= cheques <= min(seat.cheques, owed // 10)
        and 0 <= cash <= seat.cash
        and cash + 10 * cheques == owed
    ):
        fail(
            rule if cash + 10 * cheques != owed else "BI-M1",
            f"seat {p} owes {owed} F with {seat.cash} F cash and {seat.cheques} cheques; "
            f"the log pays {cash} F and {cheques} cheques, not a legal split",
            {"owed": owed, "cash_at_most": seat.cash, "cheques_at_most": min(seat.cheques, owed // 10)},
            {"cash": cash, "cheques": cheques},
        )
    g.s.pay_fine(p, cash, cheques)


def travellers_leave(g):
    """BI-M2: 1 F (``rules.leave_income_per_room``) per own-keyed room holding a traveller
    (Gardens: more), then every traveller goes to the Exit."""
    s = g.s
    n = g.cfg.players
    per_room = g.cfg.leave_income_per_room
    rooms = [0] * n
    for r in s.rooms:
        if r.traveller is not None and r.key is not None and r.key != "white":
            rooms[r.key] += 1
    bonus = [s.leave_bonus(p) for p in range(n)]
    income = [rooms[p] * per_room + bonus[p] for p in range(n)]
    paid = set()
    while g.peek().kind == "leave_income":
        ev = g.take()
        p = ev.seat
        if not (0 <= p < n) or p in paid:
            fail("BI-M2", f"travellers-leave income to seat {p} twice or to no seat")
        if income[p] == 0:
            fail("BI-M2", f"seat {p} earns nothing as travellers leave")
        g.check_value(
            "BI-M2", "own keyed rooms with a traveller, Gardens bonus", (rooms[p], bonus[p]), (ev.b, ev.c)
        )
        got = s.gain(p, income[p])
        g.check_value("BI-M2", "income kept (cap)", got, ev.a)
        g.check_money(ev, "BI-M2")
        paid.add(p)
    for p in range(n):
        if p not in paid and s.would_gain(p, income[p]) > 0:
            g.current = g.peek()
            fail(
                "BI-M2",
                f"seat {p}'s income of {income[p]} F as travellers leave is not logged",
                {"income": income[p]},
                {"income": None},
            )
    while g.peek().kind == "to_exit":
        ev = g.take()
        if not (0 <= ev.a < 8 and s.rooms[ev.a].traveller == ev.card):
            fail("BI-M2", f"card {ev.card} leaves room {ev.a} but is not its traveller")
        s.move(ev.card, EXIT)
    left = [i for i, r in enumerate(s.rooms) if r.traveller is not None]
    if left:
        g.current = g.peek()
        fail(
            "BI-M2",
            f"travellers still in rooms {left} after they left",
            {"rooms_empty": True},
            {"occupied": left},
        )


def wages(g):
    """BI-M3: 1 F (``rules.wage_per_accomplice``) in cash per accomplice in hand (never
    cheques; Distillery: some free).  Accomplices not paid are discarded; with BI-V5 the
    player may dismiss others too."""
    s = g.s
    n = g.cfg.players
    wage = g.cfg.wage_per_accomplice
    hand = [len(seat.hand) for seat in s.seats]
    dismissed = [0] * n
    done = set()
    while g.peek().kind in ("dismiss", "wages"):
        ev = g.take()
        p = ev.seat
        if not (0 <= p < n) or p in done:
            fail("BI-M3", f"wages of seat {p} settled twice or no such seat")
        seat = s.seats[p]
        if ev.kind == "dismiss":
            if ev.card not in seat.hand:
                fail(
                    "BI-M3",
                    f"card {ev.card} dismissed by seat {p} is not in their hand "
                    f"(it is in {s.where.get(ev.card)})",
                )
            s.discard(ev.card)
            dismissed[p] += 1
            g.check_money(ev, "BI-M3")
            continue
        free = s.wage_free(p)
        kept = hand[p] - dismissed[p]
        payable = hand[p] if wage == 0 else free + seat.cash // wage  # accomplices the cash keeps
        must = max(0, hand[p] - payable)
        if dismissed[p] < must:
            fail(
                "BI-M3",
                f"seat {p} keeps {kept} accomplices with {seat.cash} F cash and "
                f"{free} free: wages are paid in cash only",
                {"dismissed_at_least": must},
                {"dismissed": dismissed[p]},
            )
        if not g.cfg.voluntary_dismissal and dismissed[p] != must:
            fail(
                "BI-V5",
                f"seat {p} dismissed {dismissed[p]} accomplices but only {must} "
                "could not be paid (voluntary_dismissal off)",
            )
        cost = max(0, kept - free) * wage
        g.check_value("BI-M3", "wages (paid, kept, free)", (cost, kept, min(free, kept)), (ev.a, ev.b, ev.c))
        seat.cash -= cost
        seat.wages += cost
        g.check_money(ev, "BI-M3")
        done.add(p)
    for p in range(n):
        if p not in done and (hand[p] > 0 or dismissed[p] > 0):
            g.current = g.peek()
            fail(
                "BI-M3",
                f"seat {p} holds {hand[p]} accomplices but no wages are logged",
                {"wages_of_seat": p},
                {"wages_of_seat": None},
            )
