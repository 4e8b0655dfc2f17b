"""Night (BI-N): two passes of one action per player, with payment (BI-N2) and effects.

An action is logged as its payment (``pay`` events, before the action) followed by the
action's own events: one per target for bribe / kill / bury (a burial under another
player's annex adds that player's ``bury_share``), ``build`` plus its immediate effects,
or one ``passing`` / ``launder``.
"""
from __future__ import annotations

from .divergence import Objection, fail
from .log import ACTION_OF, BARN_SLOT
from .state import WHITE, Place

MAIN_KINDS = ("bribe", "build", "kill", "bury", "passing", "launder")
BUILD_FOLLOW = ("effect_cash", "token", "monk_key")


def night(g):
    """BI-N1: from the first player clockwise, one action each, twice."""
    s = g.s
    g.phase = "night"
    n = g.cfg.players
    if n == 1:
        _solo_night(g)
    else:
        for _ in range(2):
            for i in range(n):
                turn(g, (s.first + i) % n)
    nxt = g.peek()
    if nxt.phase == "night" and nxt.round == s.round:
        g.current = nxt
        fail("BI-N1", f"more than two actions per player in round {s.round}: '{nxt.kind}' of "
             f"seat {nxt.seat} after the second pass")


def turn(g, p, stop=None):
    """Read and judge one action of seat ``p``; with ``stop`` it must end at that index."""
    pays, acts = _read_action(g, p, stop)
    if stop is not None and g.i != stop:
        g.current = g.peek()
        fail("BI-N1", f"seat {p}'s action does not end where the next one starts")
    _judge(g, p, pays, acts)
    g.turns += 1


def _read_action(g, p, stop):
    limit = g.n_events if stop is None else stop
    events = g.events
    pays = []
    while g.i < limit and events[g.i].kind == "pay" and events[g.i].seat == p:
        pays.append(g.take())
    nxt = g.peek()
    if g.i >= limit or nxt.kind not in MAIN_KINDS or nxt.seat != p:
        g.current = nxt
        fail("BI-N1", f"seat {p}'s action expected (round {g.s.round}); the log has "
             f"'{nxt.kind}' of seat {nxt.seat}", {"seat": p},
             {"kind": nxt.kind, "seat": nxt.seat})
    main = g.take()
    acts = [main]
    kind = main.kind
    while g.i < limit:
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
    return pays, acts


def _solo_night(g):
    """A solo night is two actions of seat 0 in a row.  The log has no action marker, so
    where the second begins is not always written down (e.g. two free Bistro bribes): the
    referee tries every place it could begin and accepts the night if one reading is legal."""
    start = g.i
    end = start
    while g.events[end].phase == "night" and g.events[end].round == g.s.round:
        end += 1
    cuts = [k for k in range(start + 1, end)
            if g.events[k].kind in MAIN_KINDS + ("pay",) and g.events[k - 1].kind != "pay"]
    if len(cuts) <= 1:
        turn(g, 0, cuts[0] if cuts else None)
        turn(g, 0)
        return
    saved = (g.s.copy(), g.turns, g.fallback_passes)
    best = None
    for k in cuts:
        try:
            turn(g, 0, k)
            turn(g, 0, end)
            return
        except Objection as obj:
            if best is None or g.i > best[0]:
                best = (g.i, obj, g.current, g.s)
            g.i = start
            g.s = saved[0].copy()
            g.turns, g.fallback_passes = saved[1], saved[2]
    g.i, obj, g.current, g.s = best
    raise obj


# --- judging one action ----------------------------------------------------------------

def _judge(g, p, pays, acts):
    kind = acts[0].kind
    if kind == "passing" or kind == "launder":
        ev = acts[0]
        g.current = ev
        g.check(not pays, "BI-N2", "a pass costs nothing, yet cards were paid")
        if kind == "passing":
            if ev.a not in (0, -1):
                fail("LOG-2", f"pass with a={ev.a}")
            if ev.a == -1:
                g.fallback_passes += 1   # the kernel refused a strategy decision: a pass
        else:
            launder(g, p, ev)
        g.check_money(ev, "BI-N7")
    elif kind == "build":
        build(g, p, pays, acts)
    elif kind == "bury":
        bury(g, p, pays, acts)
    else:
        take_travellers(g, p, kind, pays, acts)


def pay(g, p, action, pays, cost, exclude=None):
    """BI-N2: exactly ``cost`` distinct cards from the hand; a card whose affinity matches the
    action (any card for Bury with the Chapel) returns to hand, the others are discarded."""
    s = g.s
    if len(pays) != cost:
        if len(pays) > cost:
            g.current = pays[cost]
        fail("BI-N2", f"the {action} costs {cost} card(s), {len(pays)} were paid",
             {"cost": cost}, {"cards_paid": len(pays)})
    chapel = action == "bury" and s.chapel(p)
    hand = s.seats[p].hand
    seen = set()
    for ev in pays:
        g.current = ev
        g.check_value("BI-N2", "action the card pays for", ACTION_OF[action], ev.b)
        if ev.card not in hand or ev.card in seen:
            fail("BI-N2", f"card {ev.card} paid by seat {p} is not in their hand (it is in "
                 f"{s.where.get(ev.card)})")
        g.check(ev.card != exclude, "BI-N4", "the card being built cannot pay for itself")
        back = chapel or s.cards[ev.card].affinity == action
        if ev.a != int(back):
            fail("BI-N6" if chapel else "BI-N2", f"card {ev.card} ({s.cards[ev.card].kind}) "
                 f"{'returns to hand' if back else 'is discarded'} after paying for the "
                 f"{action}", {"returned": int(back)}, {"returned": ev.a})
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
        fail(rule, f"card {ev.card} is not in room {ev.a} (it is in {place})",
             {"place_of_card": place}, {"room": ev.a})


def take_travellers(g, p, action, pays, acts):
    """BI-N3 bribe / BI-N5 kill: room travellers (several with the Store / Butcher's Shop)
    for their ranks, or peasants from the Bistro for free."""
    s = g.s
    rule = "BI-N3" if action == "bribe" else "BI-N5"
    if acts[0].a == -1:
        g.current = acts[0]
        g.check(not pays, rule, "peasants from the Bistro are free, yet cards were paid")
        limit = s.peasant_limit(p) if action == "bribe" else 1
        if len(acts) > limit:
            fail(rule, f"{len(acts)} peasants taken from the Bistro in one {action}; at most "
                 f"{limit}", {"limit": limit}, {"peasants": len(acts)})
        for ev in acts:
            g.current = ev
            g.check(ev.a == -1, rule, "Bistro peasants and room travellers in one action")
            if ev.card not in s.bistro:
                fail(rule, f"card {ev.card} is not in the Bistro (it is in "
                     f"{s.where.get(ev.card)})")
            g.check_value(rule, "cost", 0, ev.b)
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


def bury(g, p, pays, acts):
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
            fail("BI-N6", f"card {ev.card} is not an unburied corpse of seat {p} (it is in "
                 f"{s.where.get(ev.card)})")
        seen.add(ev.card)
        dest = ev.a
        if dest >= 0:
            place = s.where.get(dest)
            if place is None or place.zone != "annex":
                fail("BI-N6", f"burial place {dest} is not an annex (it is in {place})")
            owner = place.owner
            free = s.capacity_left(dest)                      # BI-C3
        else:
            owner = BARN_SLOT - dest
            if not (0 <= owner < g.cfg.players):
                fail("BI-N6", f"burial place {dest}: no such Barn")
            free = 1 - s.seats[owner].barn_fill               # BI-C4
        g.check_value("BI-N6", "owner of the burial place", owner, ev.b)
        free = left.get(dest, free)
        if free < 1:
            fail("BI-N6", f"burial place {dest} is full (capacity = rank; Barn 1)",
                 {"free_capacity": free}, {"burial_place": dest})
        left[dest] = free - 1
        if owner == p:
            g.check(share is None, "BI-N6", "pocket money split for a burial under an own annex")
        else:
            if share is None:
                fail("BI-N6", f"the annex owner's half (seat {owner}) is not logged")
            g.current = share
            g.check_value("BI-N6", "burial share: owner, corpse, burier",
                          (owner, ev.card, p), (share.seat, share.card, share.b))
        owners.append(owner)
    raw = sum(s.cards[ev.card].rank for ev, _ in burials if not s.cards[ev.card].is_peasant)
    cost = max(0, raw - s.discount(p, "bury"))
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
            got = s.gain(p, c.pocket - c.pocket // 2)      # the burier takes the larger half
        seat.buried_money += got
        g.check_value("BI-N6", "pocket money kept by the burier (BI-C2, cap)", got, ev.c)
        g.check_money(ev, "BI-N6")
        if share is not None:
            g.current = share
            half = s.gain(owner, c.pocket // 2)
            g.check_value("BI-N6", "pocket money kept by the annex owner", half, share.a)
            g.check_money(share, "BI-N6")


def build(g, p, pays, acts):
    """BI-N4: a card of the hand becomes an annex, its rank paid with other cards; its
    "immediately" effects fire now (BI-C5)."""
    s = g.s
    ev = acts[0]
    g.current = ev
    card = ev.card
    if card not in s.seats[p].hand:
        fail("BI-N4", f"card {card} built by seat {p} is not in their hand (it is in "
             f"{s.where.get(card)})")
    c = s.cards[card]
    if not c.annexable:
        fail("BI-C3", f"{c.kind} cannot become an annex")
    if g.cfg.unique_annexes and s.owns_kind(p, c.kind):
        fail("BI-V3", f"seat {p} already owns a {c.annex} (unique annexes)")
    cost = max(0, c.rank - s.discount(p, "build"))
    g.check_value("BI-N2", "cost of the build (rank - discount)", cost, ev.a)
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
    if c.effect_args("room_service_token"):
        wanted["token"] = True
    white = [i for i, r in enumerate(s.rooms) if r.key == WHITE]
    if c.effect_args("replace_white_key") and white:
        wanted["monk_key"] = True
    for e in acts[1:]:
        g.current = e
        if e.kind not in wanted:
            fail("BI-C5", f"'{e.kind}' logged for a {c.annex}, which has no such effect (or "
                 "it fired already)")
        if e.kind == "effect_cash":
            got = s.gain(p, amount)
            g.check_value("BI-C5", "francs earned on building (kept, due)", (got, amount),
                          (e.a, e.b))
        elif e.kind == "token":
            if not (0 <= e.a < 8 and s.rooms[e.a].key is not None):
                fail("BI-C5", f"Room Service token on room {e.a}, which has no key")
            s.rooms[e.a].tokens[p] = s.rooms[e.a].tokens.get(p, 0) + 1
        else:
            if not (0 <= e.a < 8 and s.rooms[e.a].key == WHITE):
                fail("BI-C5", f"the Room replaces the key of room {e.a}, which is not white",
                     {"white_rooms": white}, {"room": e.a})
            s.rooms[e.a].key = p
        g.check_money(e, "BI-C5")
        del wanted[e.kind]
    for kind, value in wanted.items():
        if kind == "effect_cash" and s.would_gain(p, value) == 0:
            continue                  # nothing would be gained at the cap: may go unlogged
        fail("BI-C5", f"{c.annex}: the immediate effect '{kind}' is not logged",
             {kind: value}, {kind: None})


def launder(g, p, ev):
    """BI-N7: whole tens of cash into cheques, or cheques into cash up to the cap."""
    s = g.s
    seat = s.seats[p]
    k = ev.a
    if k > 0 and 10 * k > seat.cash:
        fail("BI-N7", f"{k} cheques bought with {seat.cash} F cash",
             {"most_cheques": seat.cash // 10}, {"cheques_bought": k})
    if k < 0 and -k > seat.cheques:
        fail("BI-N7", f"{-k} cheques cashed, {seat.cheques} held")
    if k < 0 and seat.cash - 10 * k > g.cfg.wealth_cap:
        fail("BI-N8", f"cashing {-k} cheques takes cash over the cap {g.cfg.wealth_cap}",
             {"cap": g.cfg.wealth_cap}, {"cash": seat.cash - 10 * k})
    seat.cash -= 10 * k
    seat.cheques += k
