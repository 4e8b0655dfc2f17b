"""Night (BI-N): two passes of one action per player, with payment (BI-N2) and effects.

Every night action is logged as an ``action`` event (seat, ``a`` = action id, ``b`` = number
of targets, ``c`` = cost after discount, ``card`` = the card being built), then its payment
(``pay`` events), then the action's own events: one per target for bribe / kill / bury (a
burial under another player's annex adds that player's ``bury_share``), ``build`` plus its
immediate effects, or one ``passing`` / ``launder``.  The ``action`` event delimits the
actions exactly, also in a solo night where one seat acts twice in a row.  A decision the
kernel refused is logged as a lone ``passing`` with ``a = -1`` (no ``action`` event).
"""

from __future__ import annotations

from .divergence import fail
from .log import ACTION_NAMES, ACTION_OF, BARN_SLOT
from .state import WHITE, Place

MAIN_KINDS = ("bribe", "build", "kill", "bury", "passing", "launder")
BUILD_FOLLOW = ("effect_cash", "token", "monk_key")
#: action id -> the kinds of event its first own event may have
BODY_OF = {
    ACTION_OF["bribe"]: ("bribe",),
    ACTION_OF["build"]: ("build",),
    ACTION_OF["kill"]: ("kill",),
    ACTION_OF["bury"]: ("bury",),
    ACTION_OF["passing"]: ("passing", "launder"),
}
#: the rule that governs an action's targets (the ``b`` of its ``action`` event)
TARGET_RULE = {"bribe": "BI-N3", "build": "BI-N4", "kill": "BI-N5", "bury": "BI-N6", "passing": "BI-N7"}


def night(g):
    """BI-N1: from the first player clockwise, one action each, twice (solo: the one seat
    acts twice in a row)."""
    s = g.s
    g.phase = "night"
    n = g.cfg.players
    for _ in range(2):
        for i in range(n):
            turn(g, (s.first + i) % n)
    nxt = g.peek()
    if nxt.phase == "night" and nxt.round == s.round:
        g.current = nxt
        fail(
            "BI-N1",
            f"more than two actions per player in round {s.round}: '{nxt.kind}' of "
            f"seat {nxt.seat} after the second pass",
        )


def turn(g, p):
    """Read and judge one action of seat ``p``."""
    nxt = g.peek()
    if nxt.kind == "passing" and nxt.a == -1 and nxt.seat == p:
        refused_pass(g, p)
    else:
        act, pays, acts = _read_action(g, p)
        _judge(g, p, act, pays, acts)
    g.turns += 1


def refused_pass(g, p):
    """The kernel refused the strategy's decision and the player passed (no ``action``
    event: the refused decision is not logged).  Legal as a pass; counted for the report."""
    ev = g.take()
    g.fallback_passes += 1
    g.check_money(ev, "BI-N7")


def _read_action(g, p):
    """The ``action`` event of seat ``p``, its payments and its own events."""
    events = g.events
    nxt = g.peek()
    if nxt.kind != "action" or nxt.seat != p:
        g.current = nxt
        fail(
            "BI-N1",
            f"seat {p}'s night action (an 'action' event) expected in round "
            f"{g.s.round}; the log has '{nxt.kind}' of seat {nxt.seat}",
            {"kind": "action", "seat": p},
            {"kind": nxt.kind, "seat": nxt.seat},
        )
    act = g.take()
    if act.a not in BODY_OF:
        fail("BI-N1", f"action id {act.a}: the actions are {dict(enumerate(ACTION_NAMES))}")
    pays = []
    while events[g.i].kind == "pay" and events[g.i].seat == p:
        pays.append(g.take())
    nxt = g.peek()
    if nxt.kind == "passing" and nxt.a == -1 and nxt.seat == p:
        g.current = nxt
        fail(
            "LOG-2",
            f"a refused decision (passing, a = -1) after the 'action' event of seq "
            f"{act.seq}: a refused decision logs no 'action' event (nor payment)",
        )
    if nxt.kind not in MAIN_KINDS or nxt.seat != p:
        g.current = nxt
        name = ACTION_NAMES[act.a]
        fail(
            "BI-N1",
            f"seat {p}'s {name} (the 'action' event of seq {act.seq}) has no events "
            f"of its own; the log has '{nxt.kind}' of seat {nxt.seat}"
            + (" (an action logged twice?)" if nxt.kind == "action" else ""),
            {"kind": BODY_OF[act.a], "seat": p},
            {"kind": nxt.kind, "seat": nxt.seat},
        )
    if nxt.kind not in BODY_OF[act.a]:
        g.current = act
        fail(
            "BI-N1",
            f"the 'action' event names a {ACTION_NAMES[act.a]}, but seat {p}'s action is a {nxt.kind}",
            {"action": _action_id(nxt.kind)},
            {"action": act.a},
        )
    main = g.take()
    acts = [main]
    kind = main.kind
    while True:
        e = events[g.i]
        if kind == "bribe" or kind == "kill":
            ok = e.kind == kind and e.seat == p
        elif kind == "bury":
            ok = (e.kind == "bury" and e.seat == p) or e.kind == "bury_share"
        elif kind == "build":
            ok = e.kind in BUILD_FOLLOW and e.seat == p and e.card == main.card
        else:
            ok = False
        if not ok:
            break
        acts.append(g.take())
    return act, pays, acts


def _action_id(kind):
    return ACTION_OF["passing"] if kind == "launder" else ACTION_OF[kind]


def check_action(g, act, action, targets, cost, card=-1):
    """The ``action`` event's fields against the action the referee judged: the number of
    targets (the rule of the action), the cost after discount (BI-N2), the built card."""
    g.current = act
    if act.b != targets:
        fail(
            TARGET_RULE[action],
            f"the 'action' event announces {act.b} target(s); seat {act.seat}'s {action} takes {targets}",
            {"targets": targets},
            {"targets": act.b},
        )
    if act.c != cost:
        fail(
            "BI-N2",
            f"cost of the {action} after discount: the rules give {cost}, the 'action' event has {act.c}",
            {"cost": cost},
            {"cost": act.c},
        )
    if act.card != card:
        fail(
            "BI-N4" if action == "build" else "LOG-2",
            f"the 'action' event names card {act.card}; the {action} "
            + (f"builds card {card}" if card >= 0 else "names no card"),
            {"card": card},
            {"card": act.card},
        )
    g.check_money(act, "BI-N1")


# --- judging one action ----------------------------------------------------------------


def _judge(g, p, act, pays, acts):
    kind = acts[0].kind
    if kind == "passing" or kind == "launder":
        ev = acts[0]
        g.current = ev
        if kind == "passing" and ev.a != 0:
            fail("LOG-2", f"pass with a={ev.a}")
        if pays:
            g.current = pays[0]
            fail("BI-N2", "a pass costs nothing, yet cards were paid", {"cost": 0}, {"cards_paid": len(pays)})
        check_action(g, act, "passing", 0, 0)
        if kind == "launder":
            g.current = ev
            launder(g, p, ev)
        g.check_money(ev, "BI-N7")
    elif kind == "build":
        build(g, p, act, pays, acts)
    elif kind == "bury":
        bury(g, p, act, pays, acts)
    else:
        take_travellers(g, p, kind, act, pays, acts)


def pay(g, p, action, pays, cost, exclude=None):
    """BI-N2: exactly ``cost`` distinct cards from the hand; a card whose affinity matches the
    action (any card for Bury with the Chapel) returns to hand, the others are discarded."""
    s = g.s
    if len(pays) != cost:
        if len(pays) > cost:
            g.current = pays[cost]
        fail(
            "BI-N2",
            f"the {action} costs {cost} card(s), {len(pays)} were paid",
            {"cost": cost},
            {"cards_paid": len(pays)},
        )
    chapel = action == "bury" and s.chapel(p)
    hand = s.seats[p].hand
    seen = set()
    for ev in pays:
        g.current = ev
        g.check_value("BI-N2", "action the card pays for", ACTION_OF[action], ev.b)
        if ev.card not in hand or ev.card in seen:
            fail(
                "BI-N2",
                f"card {ev.card} paid by seat {p} is not in their hand (it is in {s.where.get(ev.card)})",
            )
        g.check(ev.card != exclude, "BI-N4", "the card being built cannot pay for itself")
        back = chapel or s.cards[ev.card].affinity == action
        if ev.a != int(back):
            fail(
                "BI-N6" if chapel else "BI-N2",
                f"card {ev.card} ({s.cards[ev.card].kind}) "
                f"{'returns to hand' if back else 'is discarded'} after paying for the "
                f"{action}",
                {"returned": int(back)},
                {"returned": ev.a},
            )
        g.check_money(ev, "BI-N2")
        seen.add(ev.card)
    for ev in pays:
        if ev.a == 0:
            s.discard(ev.card)


def _in_room(g, ev, rule):
    """The target is the traveller of the room the log names (BI-N9: never a hand or annex)."""
    s = g.s
    if not (0 <= ev.a < 8 and s.rooms[ev.a].traveller == ev.card):
        place = s.where.get(ev.card)
        if place is not None and place.zone in ("hand", "annex"):
            rule = "BI-N9"
        fail(
            rule,
            f"card {ev.card} is not in room {ev.a} (it is in {place})",
            {"place_of_card": place},
            {"room": ev.a},
        )


def take_travellers(g, p, action, act, pays, acts):
    """BI-N3 bribe / BI-N5 kill: room travellers (several with the Store / Butcher's Shop)
    for their ranks, or peasants from the Bistro for free."""
    s = g.s
    rule = "BI-N3" if action == "bribe" else "BI-N5"
    if acts[0].a == -1:
        g.current = acts[0]
        if pays:
            g.current = pays[0]
            fail(
                rule,
                "peasants from the Bistro are free, yet cards were paid",
                {"cost": 0},
                {"cards_paid": len(pays)},
            )
        limit = s.peasant_limit(p, g.cfg.peasants_per_bribe) if action == "bribe" else 1
        if len(acts) > limit:
            fail(
                rule,
                f"{len(acts)} peasants taken from the Bistro in one {action}; at most {limit}",
                {"limit": limit},
                {"peasants": len(acts)},
            )
        for ev in acts:
            g.current = ev
            g.check(ev.a == -1, rule, "Bistro peasants and room travellers in one action")
            if ev.card not in s.bistro:
                fail(rule, f"card {ev.card} is not in the Bistro (it is in {s.where.get(ev.card)})")
            g.check_value(rule, "cost", 0, ev.b)
        check_action(g, act, action, len(acts), 0)
        for ev in acts:
            g.current = ev
            _take(g, p, action, ev.card)
            g.check_money(ev, rule)
        return
    if len(acts) > 1 and not s.multi_target(p, action):
        g.current = acts[1]
        annex = "Store" if action == "bribe" else "Butcher's Shop"
        fail(rule, f"{len(acts)} travellers in one {action}: only with the {annex}")
    seen = set()
    for ev in acts:
        g.current = ev
        g.check(ev.a >= 0, rule, "Bistro peasants and room travellers in one action")
        g.check(ev.card not in seen, rule, "the same card targeted twice")
        _in_room(g, ev, rule)
        seen.add(ev.card)
    raw = sum(s.cards[ev.card].rank for ev in acts)
    cost = max(0, raw - s.discount(p, action))
    for ev in acts:
        g.current = ev
        g.check_value("BI-N2", "cost (ranks - discount)", cost, ev.b)
    check_action(g, act, action, len(acts), cost)
    pay(g, p, action, pays, cost)
    for ev in acts:
        g.current = ev
        _take(g, p, action, ev.card)
        g.check_money(ev, rule)


def _take(g, p, action, card):
    s = g.s
    seat = s.seats[p]
    c = s.cards[card]
    if action == "bribe":
        s.move(card, Place("hand", p))
        seat.bribes += 1
        if c.is_peasant:
            seat.peasants_bribed += 1
        else:
            seat.bribed_by_rank[c.rank] += 1
    else:
        s.move(card, Place("corpse", p))
        seat.kills += 1
        if c.is_peasant:
            seat.peasants_killed += 1
        else:
            seat.killed_by_rank[c.rank] += 1


def bury(g, p, act, pays, acts):
    """BI-N6: own corpses (several with the Crypt) under annexes with free capacity, own or
    another player's; the pocket money to the burier, or split with the annex's owner."""
    s = g.s
    burials = []
    for ev in acts:
        if ev.kind == "bury":
            burials.append([ev, None])
        else:
            g.current = ev
            g.check(burials[-1][1] is None, "BI-N6", "a burial share without its burial")
            burials[-1][1] = ev
    if len(burials) > 1 and not s.multi_target(p, "bury"):
        g.current = burials[1][0]
        fail("BI-N6", f"{len(burials)} corpses in one burial: only with the Crypt")
    left = {}
    seen = set()
    owners = []
    for ev, share in burials:
        g.current = ev
        if ev.card not in s.seats[p].corpses or ev.card in seen:
            fail(
                "BI-N6",
                f"card {ev.card} is not an unburied corpse of seat {p} (it is in {s.where.get(ev.card)})",
            )
        seen.add(ev.card)
        dest = ev.a
        if dest >= 0:
            place = s.where.get(dest)
            if place is None or place.zone != "annex":
                fail("BI-N6", f"burial place {dest} is not an annex (it is in {place})")
            owner = place.owner
            free = s.capacity_left(dest)  # BI-C3
        else:
            owner = BARN_SLOT - dest
            if not (0 <= owner < g.cfg.players):
                fail("BI-N6", f"burial place {dest}: no such Barn")
            free = 1 - s.seats[owner].barn_fill  # BI-C4
        g.check_value("BI-N6", "owner of the burial place", owner, ev.b)
        free = left.get(dest, free)
        if free < 1:
            fail(
                "BI-N6",
                f"burial place {dest} is full (capacity = rank; Barn 1)",
                {"free_capacity": free},
                {"burial_place": dest},
            )
        left[dest] = free - 1
        if owner == p:
            g.check(share is None, "BI-N6", "pocket money split for a burial under an own annex")
        else:
            if share is None:
                fail("BI-N6", f"the annex owner's half (seat {owner}) is not logged")
            g.current = share
            g.check_value(
                "BI-N6",
                "burial share: owner, corpse, burier",
                (owner, ev.card, p),
                (share.seat, share.card, share.b),
            )
        owners.append(owner)
    raw = sum(s.cards[ev.card].rank for ev, _ in burials if not s.cards[ev.card].is_peasant)
    cost = max(0, raw - s.discount(p, "bury"))
    check_action(g, act, "bury", len(burials), cost)
    pay(g, p, "bury", pays, cost)
    seat = s.seats[p]
    for (ev, share), owner in zip(burials, owners):
        g.current = ev
        c = s.cards[ev.card]
        s.move(ev.card, Place("buried", owner, ev.a if ev.a >= 0 else -1))
        if ev.a >= 0:
            s.fill[ev.a] = s.fill.get(ev.a, 0) + 1
        else:
            s.seats[owner].barn_fill += 1
        seat.buried += 1
        s.seats[owner].buried_under_own += 1
        if not c.is_peasant:
            seat.buried_by_rank[c.rank] += 1
        if owner == p:
            got = s.gain(p, c.pocket)
        else:
            got = s.gain(p, c.pocket - c.pocket // 2)  # the burier takes the larger half
        seat.buried_money += got
        g.check_value("BI-N6", "pocket money kept by the burier (BI-C2, cap)", got, ev.c)
        g.check_money(ev, "BI-N6")
        if share is not None:
            g.current = share
            half = s.gain(owner, c.pocket // 2)
            g.check_value("BI-N6", "pocket money kept by the annex owner", half, share.a)
            g.check_money(share, "BI-N6")


def build(g, p, act, pays, acts):
    """BI-N4: a card of the hand becomes an annex, its rank paid with other cards; its
    "immediately" effects fire now (BI-C5)."""
    s = g.s
    ev = acts[0]
    g.current = ev
    card = ev.card
    if card not in s.seats[p].hand:
        fail("BI-N4", f"card {card} built by seat {p} is not in their hand (it is in {s.where.get(card)})")
    c = s.cards[card]
    if not c.annexable:
        fail("BI-C3", f"{c.kind} cannot become an annex")
    if g.cfg.unique_annexes and s.owns_kind(p, c.kind):
        fail("BI-V3", f"seat {p} already owns a {c.annex} (unique annexes)")
    cost = max(0, c.rank - s.discount(p, "build"))
    g.check_value("BI-N2", "cost of the build (rank - discount)", cost, ev.a)
    check_action(g, act, "build", 1, cost, card)
    pay(g, p, "build", pays, cost, exclude=card)
    g.current = ev
    s.move(card, Place("annex", p))
    s.fill[card] = 0
    s.seats[p].builds += 1
    g.check_money(ev, "BI-N4")
    # immediate effects (BI-C5)
    amount = sum(int(a[0]) for a in c.effect_args("on_build_cash"))
    for args in c.effect_args("on_build_cash_per_own_annex_of_colour"):
        per = int(args[1]) if len(args) > 1 else 1
        amount += per * sum(1 for a in s.seats[p].annexes if s.cards[a].colour == args[0])
    wanted = {}
    if amount > 0:
        wanted["effect_cash"] = amount
    token_rooms = [i for i, r in enumerate(s.rooms) if r.key is not None and token_fits(g, r)]
    if c.effect_args("room_service_token") and token_rooms:
        wanted["token"] = True  # BI-V12: no room may take it -> the token is lost
    white = [i for i, r in enumerate(s.rooms) if r.key == WHITE]
    if c.effect_args("replace_white_key") and white:
        wanted["monk_key"] = True
    for e in acts[1:]:
        g.current = e
        if e.kind not in wanted:
            fail(
                "BI-C5", f"'{e.kind}' logged for a {c.annex}, which has no such effect (or it fired already)"
            )
        if e.kind == "effect_cash":
            got = s.gain(p, amount)
            g.check_value("BI-C5", "francs earned on building (kept, due)", (got, amount), (e.a, e.b))
        elif e.kind == "token":
            if not (0 <= e.a < 8 and s.rooms[e.a].key is not None):
                fail("BI-C5", f"Room Service token on room {e.a}, which has no key")
            if e.a not in token_rooms:
                fail(
                    "BI-V12",
                    f"Room Service token on room {e.a}, which holds one already (room_service_per_room = 1)",
                    {"token_rooms": token_rooms},
                    {"room": e.a},
                )
            s.rooms[e.a].tokens[p] = s.rooms[e.a].tokens.get(p, 0) + 1
        else:
            if not (0 <= e.a < 8 and s.rooms[e.a].key == WHITE):
                fail(
                    "BI-C5",
                    f"the Room replaces the key of room {e.a}, which is not white",
                    {"white_rooms": white},
                    {"room": e.a},
                )
            s.rooms[e.a].key = p
        g.check_money(e, "BI-C5")
        del wanted[e.kind]
    for kind, value in wanted.items():
        if kind == "effect_cash" and s.would_gain(p, value) == 0:
            continue  # nothing would be gained at the cap: may go unlogged
        fail("BI-C5", f"{c.annex}: the immediate effect '{kind}' is not logged", {kind: value}, {kind: None})


def token_fits(g, room):
    """BI-V12: a room takes a Room-Service token unless it holds one and the ruleset allows
    one token per room (``room_service_per_room = 1``, the default)."""
    return not (g.cfg.one_token_per_room and any(t > 0 for t in room.tokens.values()))


def launder(g, p, ev):
    """BI-N7: whole tens of cash into cheques, or cheques into cash up to the cap."""
    s = g.s
    seat = s.seats[p]
    k = ev.a
    if k > 0 and 10 * k > seat.cash:
        fail(
            "BI-N7",
            f"{k} cheques bought with {seat.cash} F cash",
            {"most_cheques": seat.cash // 10},
            {"cheques_bought": k},
        )
    if k < 0 and -k > seat.cheques:
        fail("BI-N7", f"{-k} cheques cashed, {seat.cheques} held")
    if k < 0 and seat.cash - 10 * k > g.cfg.wealth_cap:
        fail(
            "BI-N8",
            f"cashing {-k} cheques takes cash over the cap {g.cfg.wealth_cap}",
            {"cap": g.cfg.wealth_cap},
            {"cash": seat.cash - 10 * k},
        )
    seat.cash -= 10 * k
    seat.cheques += k
