"""BI-S (and BI-X1): keys, the Entrance, the box, starting money, peasants."""

from __future__ import annotations

from .divergence import fail
from .state import BISTRO, WHITE, Place

SETUP_KINDS = ("key", "deck", "box", "deal", "bistro")


def setup(g):
    """Read every setup event (any order) up to the first round, check it, lay the table."""
    cfg, s = g.cfg, g.s
    travellers = set(cfg.travellers)
    peasants = set(cfg.peasants)
    keys = {}  # room -> seat or WHITE
    deck = []
    boxed = set()
    dealt = {p: [] for p in range(cfg.players)}
    bistro = []
    seen = set()
    while g.peek().kind in SETUP_KINDS:
        ev = g.take()
        if ev.kind == "key":
            if not (0 <= ev.a < 8) or ev.a in keys:
                fail("BI-S1", f"key on room {ev.a}: rooms are 0..7 with one key each")
            if not (ev.seat == -1 or 0 <= ev.seat < cfg.players):
                fail("BI-S1", f"key of seat {ev.seat}: no such player")
            keys[ev.a] = WHITE if ev.seat == -1 else ev.seat
            if ev.seat >= 0:  # logged once the starting money is dealt: its stamp shows it
                g.check_value(
                    "BI-S3",
                    "the key owner's starting cash and cheques",
                    (cfg.start_cash, cfg.start_cheques),
                    (ev.cash, ev.cheques),
                )
            continue
        card = ev.card
        if card in seen or not (0 <= card < len(cfg.cards)):
            fail("BI-S2", f"card {card} is not a card or is set up twice")
        seen.add(card)
        if ev.kind == "deck":
            if card not in travellers:
                fail("BI-S2", f"card {card} in the Entrance is not a traveller")
            g.check_value("BI-S2", "Entrance position", len(deck), ev.a)
            deck.append(card)
        elif ev.kind == "box":
            if card not in travellers:
                fail("BI-S2", f"card {card} boxed at setup is not a traveller")
            boxed.add(card)
        elif ev.kind == "deal":
            if card not in peasants or not (0 <= ev.seat < cfg.players):
                fail("BI-S3", f"card {card} dealt to seat {ev.seat}: players get peasants")
            dealt[ev.seat].append(card)
            g.check_value(
                "BI-S3",
                "starting cash and cheques",
                (cfg.start_cash, cfg.start_cheques),
                (ev.cash, ev.cheques),
            )
        else:
            if card not in peasants:
                fail("BI-X1", f"card {card} in the Bistro is not a peasant")
            bistro.append(card)
    g.current = g.peek()
    # BI-S1: one own key per player, the white keys, nothing else
    owners = sorted(k for k in keys.values() if k != WHITE)
    g.check_value("BI-S1", "keyed seats", list(range(cfg.players)), owners)
    g.check_value("BI-S1", "white keys", cfg.white_keys, sum(1 for k in keys.values() if k == WHITE))
    # BI-S2 / BI-V2: deck_size travellers form the Entrance, the rest is boxed
    g.check_value("BI-S2", "Entrance size", cfg.deck_size, len(deck))
    g.check(
        set(deck) | boxed == travellers,
        "BI-S2",
        "every traveller must be in the Entrance or the box",
        {"travellers": len(travellers)},
        {"entrance": len(deck), "box": len(boxed)},
    )
    # BI-S3 / BI-X1: two peasants each (rules.start_peasants); solo: two in the Bistro
    # (rules.solo_bistro_peasants); the rest stay boxed
    for p in range(cfg.players):
        g.check_value("BI-S3", "peasants dealt to the seat", cfg.start_peasants, len(dealt[p]))
    g.check_value(
        "BI-X1" if cfg.players == 1 else "BI-S3",
        "peasants in the Bistro",
        cfg.solo_bistro_peasants if cfg.players == 1 else 0,
        len(bistro),
    )
    # lay the table
    for room, key in keys.items():
        s.rooms[room].key = key
    for i, card in enumerate(deck):
        s.move(card, Place("entrance", -1, i))
    s.entrance = list(deck)
    for p, cards in dealt.items():
        s.seats[p].cash = cfg.start_cash  # BI-S3
        s.seats[p].cheques = cfg.start_cheques
        for card in cards:
            s.move(card, Place("hand", p))
    for card in bistro:
        s.move(card, BISTRO)
    s.first = 0  # BI-S4: seat 0 is the first player
