"""Bloody Inn rules BI-M (morning, in order): investigation, travellers leave, wages,
first player passes."""

import pytest
from bloody_inn_harness import LOC, L, Table

NO_DISMISS = {"voluntary_dismissal": False}


# -- BI-M1 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cash,cheques,corpses,splits",
    [
        (5, 1, 1, {1: 0}),  # the cheque must pay: 5 F cash is not enough
        (25, 3, 2, {0: 20, 1: 10, 2: 0}),  # cash, cheques or a mix
        (15, 0, 2, {0: 15}),  # short: pays what they can
        (12, 1, 2, {1: 10}),  # one cheque and 10 F cash
        (3, 0, 1, {0: 3}),  # short
        (0, 2, 3, {2: 0}),  # short: both cheques, no cash
        (40, 5, 1, {0: 10, 1: 0}),
        (9, 2, 1, {1: 0}),
        (14, 1, 3, {1: 14}),  # short: the cheque and all the cash
    ],
)
def test_BI_M1_legal_splits_of_a_fine(cash, cheques, corpses, splits):
    """BI-M1: 10 F per corpse in cash or cheques, the player's choice: every split that pays
    exactly the fine is legal (``splits``: cheques -> cash paid); a player who cannot pay
    it all pays everything they have.  ``pay_fine`` pays the split it is given."""
    t = Table(2).clear()
    t.set_money(0, cash=cash, cheques=cheques)
    lo, hi = t.fine_range(0, corpses)
    assert list(range(lo, hi + 1)) == sorted(splits)
    for k, cash_paid in splits.items():
        t.set_money(0, cash=cash, cheques=cheques)
        assert t.pay_fine(0, 10 * corpses, k) == (cash_paid, k)
        assert (t.cash(0), t.cheques(0)) == (cash - cash_paid, cheques - k)
        short = cash + 10 * cheques < 10 * corpses
        assert cash_paid + 10 * k == (cash + 10 * cheques if short else 10 * corpses)


def test_BI_M1_random_chooses_uniformly_among_the_legal_splits():
    """BI-M1 with the rules fuzzer: 30 F owed with 40 F and 5 cheques: 0..3 cheques are all
    legal and each is chosen about a quarter of the time; the corpses always go to the box."""
    t = Table(2, seats="random")
    seen = {}
    for g in range(400):
        t.reset(seed=5, game_id=g).clear()
        t.to_room(3, "peacekeeper")
        bodies = t.to_corpse(0, "duke", "peasant", "baron")
        t.set_money(0, cash=40, cheques=5)
        t.investigate(0)
        k = 5 - t.cheques(0)
        assert t.cash(0) == 40 - (30 - 10 * k) and all(t.loc(c) == LOC.box for c in bodies)
        assert t.p(L.P_FINES, 0) == 30
        seen[k] = seen.get(k, 0) + 1
    assert sorted(seen) == [0, 1, 2, 3] and min(seen.values()) > 60  # 100 expected each


@pytest.mark.parametrize("seats", ["greedy", "heuristic", "expert"])
def test_BI_M1_scripted_players_pay_by_cheque_to_keep_cash_for_wages(seats):
    """BI-M1 then BI-M3 (the issue's case): 12 F cash, 2 cheques, one corpse, five
    accomplices.  Paying the 10 F fine in cash would leave 2 F and lose three accomplices
    at wages; the scripted players pay by cheque and keep all five."""
    t = Table(2, seats=seats, rules=NO_DISMISS).clear()
    t.to_room(3, "major")
    t.to_corpse(0, "duke")
    t.to_hand(0, "baron", "viscount", "novice", "monk", "cultivator")
    t.set_money(0, cash=12, cheques=2)
    t.set_money(1, cash=5, cheques=1)
    t.morning()
    assert (t.cheques(0), len(t.hand(0)), t.cash(0)) == (1, 5, 12 - 5)
    assert t.p(L.P_FINES, 0) == 10
    t.check()


@pytest.mark.parametrize("seats", ["greedy", "heuristic", "expert"])
def test_BI_M1_scripted_players_pay_in_cash_when_the_split_does_not_matter(seats):
    """BI-M1: with cash to spare for the wages, the scripted players pay whole tens of cash
    first (cheques are safe from the 40 F cap and the Greenhouse pays for them)."""
    t = Table(2, seats=seats, rules=NO_DISMISS).clear()
    t.to_room(3, "major")
    t.to_corpse(0, "duke", "baron")
    t.to_hand(0, "viscount")
    t.set_money(0, cash=30, cheques=2)
    t.morning()
    assert (t.cash(0), t.cheques(0)) == (30 - 20 - 1, 2)
    t.check()


@pytest.mark.parametrize("seats", ["greedy", "expert"])
def test_BI_G1_scripted_players_keep_the_cheques_their_greenhouse_pays_for(seats):
    """BI-M1 at the final investigation (BI-G1) before BI-G2: with a Greenhouse (3 F per
    cheque) the best split pays cash, and the score shows it: 10 + 3 x 2 + 20 = 36."""
    t = Table(2, seats=seats).clear()
    t.give_annex(0, "prince")
    t.to_corpse(0, "duke")
    t.set_money(0, cash=20, cheques=2)
    t.end_game()
    assert (t.cash(0), t.cheques(0), t.p(L.P_SCORE, 0)) == (16, 2, 36)


def test_BI_M1_every_player_with_corpses_is_fined_others_are_not():
    t = Table(3).clear()
    t.to_room(5, "major")
    t.to_corpse(0, "duke")
    t.to_corpse(2, "peasant", "viscount")
    for p in range(3):
        t.set_money(p, cash=30, cheques=0)
    for p in range(3):
        t.investigate(p)
    assert [t.cash(p) for p in range(3)] == [20, 30, 10]
    assert all(t.corpses(p) == [] for p in range(3))
    t.check()


def test_BI_M1_no_police_in_the_inn_no_investigation():
    """BI-M1: without a police traveller in a room, corpses stay and nobody pays."""
    t = Table(2, rules=NO_DISMISS).clear()
    t.to_room(3, "duke")
    t.to_exit("major")  # police elsewhere do not count
    t.to_hand(1, "brigadier")
    t.set_money(1, cash=5)
    body = t.to_corpse(0, "count")[0]
    t.set_money(0, cash=15, cheques=1)
    t.morning()
    assert t.corpses(0) == [body] and (t.cash(0), t.cheques(0)) == (15, 1)
    assert t.cash(1) == 4  # only the wage for the brigadier
    t.check()


# -- BI-M2 ------------------------------------------------------------------------------


def test_BI_M2_one_franc_per_own_keyed_room_holding_a_traveller_then_the_inn_empties():
    """BI-M2: 1 F per own-keyed occupied room; white-keyed rooms pay nobody; every traveller
    then goes to the Exit."""
    t = Table(3).clear()  # keys: 0, 1, 2, W, W, W
    travellers = [t.to_room(0, "baron"), t.to_room(2, "duke"), t.to_room(3, "count"), t.to_room(4, "major")]
    for p in range(3):
        t.set_money(p, cash=10)
    t.travellers_leave()
    assert [t.cash(p) for p in range(3)] == [11, 10, 11]
    assert all(c < 0 for c in t.rooms())
    assert t.exit() == sorted(travellers)
    t.check()


def test_BI_M2_income_respects_the_cap():
    t = Table(2).clear()
    t.to_room(0, "baron")
    t.set_money(0, cash=40)
    t.travellers_leave()
    assert t.cash(0) == 40


# -- BI-M3 ------------------------------------------------------------------------------


def test_BI_M3_wages_one_franc_per_card_in_hand():
    t = Table(2, rules=NO_DISMISS).clear()
    hand = t.to_hand(0, "peasant", "duke", "newsboy")
    t.set_money(0, cash=5, cheques=1)
    t.pay_wages(0)
    assert t.hand(0) == sorted(hand) and (t.cash(0), t.cheques(0)) == (2, 1)
    assert t.p(L.P_WAGES, 0) == 3
    t.check()


@pytest.mark.parametrize("cash,kept", [(0, 0), (1, 1), (2, 2)])
def test_BI_M3_wages_cannot_be_paid_with_cheques(cash, kept):
    """BI-M3: cheques are refused; unpaid accomplices leave (peasants to the Bistro,
    others to the Exit) and the cheques stay untouched."""
    t = Table(2, rules=NO_DISMISS).clear()
    hand = t.to_hand(0, "peasant", "duke", "newsboy")
    t.set_money(0, cash=cash, cheques=3)
    t.pay_wages(0)
    assert len(t.hand(0)) == kept and t.cash(0) == 0 and t.cheques(0) == 3
    gone = set(hand) - set(t.hand(0))
    for c in gone:
        assert t.loc(c) == (LOC.bistro if t.kind(c) == "peasant" else LOC.exit)
    t.check()


def test_BI_M3_the_player_chooses_who_leaves():
    """BI-M3: the strategy picks the dismissed cards (greedy lets the peasant go first)."""
    t = Table(2, rules=NO_DISMISS, seats="greedy").clear()
    peasant, duke, newsboy = t.to_hand(0, "peasant", "duke", "newsboy")
    t.set_money(0, cash=2)
    t.pay_wages(0)
    assert t.hand(0) == sorted([duke, newsboy]) and t.bistro() == [peasant]
    assert t.cash(0) == 0


def test_BI_M3_empty_hand_pays_nothing():
    t = Table(2).clear()
    t.set_money(0, cash=7)
    t.pay_wages(0)
    assert t.cash(0) == 7


# -- BI-M4 ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_BI_M4_first_player_passes_to_the_next_seat(players):
    t = Table(players).clear()
    seen = []
    for _ in range(players + 1):
        seen.append(t[L.G_FIRST])
        t.morning()
    assert seen == [i % players for i in range(players + 1)]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_BI_M4_N1_seat_order_and_the_turn_of_the_night_agree_with_python_modulo(players):
    """The seat ``i`` places after the first player (BI-M4 passes the first seat on) and the
    action of the night a turn count is at (BI-N1: two passes a round) are computed without
    a division by the player count; they equal Python's ``%`` for every first player and
    offset, and for turn counts far past any game's end."""
    from kernels.bloody_inn.state import seat_from_first
    from kernels.bloody_inn.strat_tools import _turn_of_round

    t = Table(players).clear()
    for first in range(players):
        t.st[L.G_FIRST] = first
        got = [seat_from_first(t.st, i) for i in range(3 * players)]
        assert got == [(first + i) % players for i in range(3 * players)]
    assert [_turn_of_round(k, players) for k in range(500)] == [k % (2 * players) for k in range(500)]


# -- order ------------------------------------------------------------------------------


def test_BI_M_order_investigation_then_income_then_wages():
    """BI-M1..M3 in this order: the fine takes the 10 F, the room income then pays the
    one wage, so the accomplice stays (wages first would have dismissed it)."""
    t = Table(2, rules=NO_DISMISS, events=True).clear()
    t.to_room(0, "major")  # police in seat 0's own room
    t.to_corpse(0, "baron")
    card = t.to_hand(0, "newsboy")[0]
    t.set_money(0, cash=10, cheques=0)
    t.log_events()
    t.morning()
    assert t.cash(0) == 0 and t.hand(0) == [card] and t.corpses(0) == []
    kinds = [e["kind"] for e in t.events() if e["seat"] == 0 or e["kind"] == "to_exit"]
    order = [k for k in kinds if k in ("investigation", "leave_income", "to_exit", "wages", "first_player")]
    assert order == ["investigation", "leave_income", "to_exit", "wages"]
    t.check()
