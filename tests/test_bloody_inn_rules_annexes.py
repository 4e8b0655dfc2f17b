"""Bloody Inn annexes (BI-C5, BI-N4): each of the 24 annex effects and the Barn — what it
does when built ("immediately"), during later rounds ("from now on") and at scoring
("end of game").  Expected values are written out from the card texts."""

import pytest
from bloody_inn_harness import LOC, L, Table

#: kind -> (annex, rank, immediate F with no other annex, extra F per morning, F at the end
#: with one Exit card of every colour and one cheque)
ANNEXES = {
    "cultivator": ("Vegetable Garden", 0, 1, 0, 0),
    "mechanic": ("Workshop", 1, 0, 0, 0),
    "distiller": ("Distillery", 2, 0, 0, 0),
    "gardener": ("Gardens", 3, 0, 2, 0),
    "landscaper": ("Park", 3, 4, 0, 4),
    "butcher": ("Butcher's Shop", 3, 0, 0, 0),
    "newsboy": ("Kiosk", 0, 1, 0, 0),
    "representative": ("Parlor", 1, 0, 0, 0),
    "concierge": ("Room Service", 2, 0, 0, 0),
    "brewer": ("Brewery", 3, 0, 0, 0),
    "grocer": ("Grocery", 3, 4, 0, 4),
    "shopkeeper": ("Store", 3, 0, 0, 0),
    "novice": ("Altar", 0, 1, 0, 0),
    "monk": ("Room", 1, 0, 0, 0),
    "abbot": ("Cellar", 2, 0, 0, 0),
    "priest": ("Chapel", 3, 0, 0, 0),
    "archbishop": ("Crypt", 3, 0, 0, 0),
    "bishop": ("Bishopric", 3, 4, 0, 4),
    "baron": ("Large Chandelier", 0, 4, 0, 0),
    "viscount": ("King Size Bed", 1, 6, 0, 0),
    "count": ("Dining Room", 2, 9, 0, 0),
    "duke": ("Stables", 3, 4, 0, 4),
    "prince": ("Greenhouse", 3, 0, 0, 3),
    "marquis": ("Detached House", 3, 18, 0, 0),
}


def test_the_table_has_24_annexes():
    t = Table(2)
    assert len(ANNEXES) == 24
    for kind, (name, rank, *_) in ANNEXES.items():
        assert t.rows[kind]["annex"] == name and t.rows[kind]["rank"] == rank


@pytest.mark.parametrize("kind", sorted(ANNEXES))
def test_BI_C5_each_annex_immediately_from_now_on_and_end_of_game(kind):
    """BI-C5/BI-N4 for every annex: built from hand for its rank (paid with peasants), it
    pays its "immediately" amount once, adds nothing in a plain morning except the Gardens,
    pays its end-of-game amount at scoring, holds ``rank`` corpses and sets its annex bit."""
    name, rank, now, per_morning, at_end = ANNEXES[kind]
    t = Table(2).clear()
    t.set_money(0, cash=0, cheques=1)
    card = t.to_hand(0, kind)[0]
    paid = t.to_hand(0, *(["peasant"] * rank))
    assert t.act_build(0, card)
    assert t.annexes(0) == [card] and t.hand(0) == [] and sorted(t.bistro()) == sorted(paid)
    assert t.cash(0) == now
    assert t.p(L.P_ANNEX_MASK, 0) == 1 << list(ANNEXES).index(kind)
    for _ in range(2):  # two empty-inn mornings
        t.morning()
    assert t.cash(0) == now + 2 * per_morning
    for _ in range(rank):
        t.bury_direct(card)
    extra = t.to_corpse(0, "peasant")[0]
    assert t.act_bury(0, (extra, card)) is False  # capacity = rank
    assert t.act_bury(0, (extra, t.barn(0)))  # + 4 F
    t.to_exit("cultivator", "newsboy", "novice", "baron", "peacekeeper")
    before = t.cash(0)
    t.end_game()
    assert t.cash(0) - before == at_end and t.cheques(0) == 1
    t.check()


# -- "immediately": cash per own annex of a colour -------------------------------------


@pytest.mark.parametrize(
    "kind,same,other",
    [
        ("cultivator", ["mechanic", "distiller"], "newsboy"),
        ("newsboy", ["representative"], "novice"),
        ("novice", ["abbot", "monk"], "cultivator"),
    ],
)
def test_annex_vegetable_garden_kiosk_altar_pay_1_per_own_annex_of_their_colour(kind, same, other):
    """Vegetable Garden (red), Kiosk (blue), Altar (purple): immediately 1 F per own annex
    of the colour including this one; other colours and other players' annexes don't count."""
    t = Table(2).clear()
    for k in same:
        t.give_annex(0, k)
    t.give_annex(0, other)
    t.give_annex(1, same[0])
    t.set_money(0, cash=0)
    t.give_annex(0, kind, keep_money=False)
    assert t.cash(0) == len(same) + 1


# -- "from now on" -------------------------------------------------------------------------


def test_annex_workshop_build_costs_one_card_less():
    """Workshop: Build costs rank - 1 (a rank-1 annex is free, a rank-3 costs 2)."""
    t = Table(2).clear()
    t.give_annex(0, "mechanic")
    bed = t.to_hand(0, "viscount")[0]
    assert t.act_build(0, bed)
    duke = t.to_hand(0, "duke")[0]
    t.to_hand(0, "peasant")
    assert t.act_build(0, duke) is False  # needs 2 other cards
    t.to_hand(0, "peasant")
    assert t.act_build(0, duke) and len(t.bistro()) == 2


@pytest.mark.parametrize("hand,cash,kept,paid", [(3, 2, 3, 2), (1, 0, 1, 0), (2, 5, 2, 1)])
def test_annex_distillery_one_accomplice_paid_no_wages(hand, cash, kept, paid):
    """Distillery: at each round's end one accomplice costs no wage."""
    t = Table(2, rules={"voluntary_dismissal": False}).clear()
    t.give_annex(0, "distiller")
    t.to_hand(0, *(["peasant", "duke", "newsboy"][:hand]))
    t.set_money(0, cash=cash)
    t.pay_wages(0)
    assert len(t.hand(0)) == kept and t.cash(0) == cash - paid


def test_annex_gardens_two_more_francs_when_travellers_leave():
    t = Table(2).clear()
    t.give_annex(1, "gardener")
    t.set_money(1, cash=3)
    t.travellers_leave()  # empty inn: +2 anyway
    assert t.cash(1) == 5
    t.to_room(1, "baron")
    t.travellers_leave()
    assert t.cash(1) == 8


def test_annex_butchers_shop_kills_several_travellers_at_once():
    t = Table(2).clear()
    t.give_annex(0, "butcher")
    a, b = t.to_room(2, "baron"), t.to_room(3, "viscount")
    t.to_hand(0, "peasant")
    assert t.act_kill(0, a, b) and t.corpses(0) == sorted([a, b])


def test_annex_parlor_bribe_costs_one_card_less():
    t = Table(2).clear()
    t.give_annex(1, "representative")
    target = t.to_room(0, "viscount")
    assert t.act_bribe(1, target) and t.hand(1) == [target]


@pytest.mark.parametrize("seats", ["greedy", "random"])
def test_annex_room_service_token_on_a_keyed_room_pays_the_rank(seats):
    """Room Service: building it places a token next to a key (an open room); from then
    on every traveller placed there pays its rank to the owner."""
    for g in range(6):
        t = Table(3, seats=seats, game_id=g).clear()
        t.give_annex(2, "concierge")
        tokens = [r for r in range(8) if t[L.R_TOKENS + r * L.MAXP + 2]]
        assert len(tokens) == 1 and tokens[0] in t.open_rooms()
        if seats == "greedy":
            assert tokens == [2]  # greedy: its own room
        room = tokens[0]
        for r in t.open_rooms():
            if r != room:
                t.to_room(r, "cultivator" if r % 2 else "novice")
        t.set_money(2, cash=0)
        t.set_entrance("duke")
        assert t.evening() and t.cash(2) == 3
        t.travellers_leave()
        t.set_entrance("count", "baron", "viscount", "monk", "abbot", "mechanic")
        assert t.evening()
        assert t.cash(2) == 3 + 1 + t.rank(t.room_card(room))  # + own room 2 occupied
        assert t[L.G_ERR] == 0


@pytest.mark.parametrize("n,ok", [(3, True), (4, True), (5, False)])
def test_annex_brewery_bribes_up_to_four_peasants(n, ok):
    t = Table(2).clear()
    t.give_annex(0, "brewer")
    t.to_bistro(6)
    assert t.act_bribe(0, peasants=n) is ok
    assert len(t.hand(0)) == (n if ok else 0)


def test_annex_store_bribes_several_travellers_at_once():
    t = Table(2).clear()
    t.give_annex(0, "shopkeeper")
    a, b = t.to_room(0, "baron"), t.to_room(4, "viscount")
    t.to_hand(0, "newsboy")
    assert t.act_bribe(0, a, b) and sorted(t.kinds(t.hand(0))) == ["baron", "newsboy", "viscount"]


def test_annex_room_replaces_a_white_key_with_an_own_key():
    """Room (Monk): immediately one white key becomes the builder's key; that room then pays
    the builder at travellers leave.  With no white key left nothing happens."""
    t = Table(2).clear()  # keys 0, 1, W, W, W
    t.give_annex(1, "monk")
    keys = t.keys()
    assert keys.count(L.WHITE) == 2 and keys.count(1) == 2 and keys.count(0) == 1
    mine = [r for r in range(8) if keys[r] == 1 and r != 1][0]
    t.to_room(mine, "baron")
    t.set_money(1, cash=0)
    t.travellers_leave()
    assert t.cash(1) == 1
    t2 = Table(2, rules={"white_keys": 0}).clear()
    assert t2.keys().count(L.WHITE) == 0
    t2.give_annex(0, "monk")
    assert t2.keys()[:2] == [0, 1] and t2[L.G_ERR] == 0


def test_annex_cellar_bury_costs_one_card_less():
    t = Table(2).clear()
    t.give_annex(0, "abbot")
    corpse = t.to_corpse(0, "duke")[0]
    t.to_hand(0, "peasant")
    assert t.act_bury(0, (corpse, t.barn(0))) is False  # 3 - 1 = 2 cards
    t.to_hand(0, "peasant")
    assert t.act_bury(0, (corpse, t.barn(0))) and len(t.bistro()) == 2


def test_annex_chapel_every_card_paid_for_bury_returns():
    t = Table(2).clear()
    t.give_annex(0, "priest")
    corpse = t.to_corpse(0, "count")[0]
    hand = t.to_hand(0, "peasant", "newsboy")
    assert t.act_bury(0, (corpse, t.barn(0))) and t.hand(0) == sorted(hand)
    # the Chapel helps only Bury: a kill still discards
    target = t.to_room(0, "viscount")
    assert t.act_kill(0, target) and len(t.hand(0)) == 1


def test_annex_crypt_buries_several_corpses_at_once():
    t = Table(2).clear()
    crypt = t.give_annex(0, "archbishop")
    a, b = t.to_corpse(0, "baron", "peasant")
    t.set_money(0, cash=0)
    assert t.act_bury(0, (a, crypt), (b, crypt)) and t.fill(crypt) == 2
    assert t.cash(0) == 12


# -- "end of game" ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind,colour_kinds",
    [
        ("landscaper", ["cultivator", "mechanic"]),
        ("grocer", ["newsboy", "concierge"]),
        ("bishop", ["novice", "abbot"]),
        ("duke", ["baron", "count"]),
    ],
)
def test_annex_park_grocery_bishopric_stables_immediately_4_and_4_per_exit_card(kind, colour_kinds):
    t = Table(2).clear()
    t.set_money(0, cash=0)
    t.give_annex(0, kind, keep_money=False)
    assert t.cash(0) == 4
    t.to_exit(*colour_kinds, "peacekeeper")
    t.end_game()
    assert t.cash(0) == 4 + 8


def test_annex_greenhouse_3_per_cheque_at_the_end_only():
    t = Table(2).clear()
    t.set_money(0, cash=0, cheques=5)
    t.give_annex(0, "prince", keep_money=False)
    assert t.cash(0) == 0
    t.end_game()
    assert t.cash(0) == 15


@pytest.mark.parametrize("kind,amount", [("baron", 4), ("viscount", 6), ("count", 9), ("marquis", 18)])
def test_annex_nobles_immediately_earn(kind, amount):
    """Large Chandelier 4, King Size Bed 6, Dining Room 9, Detached House 18 — once."""
    t = Table(2).clear()
    t.set_money(0, cash=1)
    t.give_annex(0, kind, keep_money=False)
    assert t.cash(0) == 1 + amount
    t.morning()
    t.end_game()
    assert t.cash(0) == 1 + amount


def test_annex_barn_capacity_one_no_effect():
    """The Barn (player aid, BI-C4): one corpse, no money of its own, no end bonus."""
    t = Table(2).clear()
    t.set_money(0, cash=0)
    a, b = t.to_corpse(0, "baron", "baron")
    assert t.act_bury(0, (a, t.barn(0))) and t.cash(0) == 8
    assert t.act_bury(0, (b, t.barn(0))) is False
    assert t.act_bury(0, (b, t.barn(1))) and t.cash(0) == 12  # the other Barn: split
    t.to_exit("cultivator", "newsboy", "novice", "baron")
    t.end_game()
    assert t.cash(0) == 12
    assert t.loc(a) == LOC.buried + 0 and t.slot(a) == t.barn(0)
    assert t.annexes(0) == [] and t.p(L.P_ANNEX_MASK, 0) == 0  # no card, no annex bit
    t.check()
