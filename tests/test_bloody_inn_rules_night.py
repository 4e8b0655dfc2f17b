"""Bloody Inn rules BI-N (night): the five actions, payment and its returns, discounts,
multi-target annexes, peasants and the Bistro, the 40 cap, protected hands and annexes."""

import random

import polars as pl
import pytest
from bloody_inn_harness import ACTION, LOC, L, Table, decision_scratch

from kernels.bloody_inn import strategies
from sim.api import simulate

# -- BI-N1 ------------------------------------------------------------------------------


def test_BI_N1_two_passes_from_the_first_player_clockwise():
    """BI-N1: each round, from the first player clockwise, each player takes one action,
    then a second pass: the acting seats are fp, fp+1, .., fp, fp+1, .. (event log)."""
    res = simulate(
        {"game": "bloody_inn", "players": 3, "rules": {"length": "short"}}, games=60, seed=5, events=True
    )
    ev = pl.from_arrow(res.events).filter(pl.col("kind") != "bury_share")
    checked = 0
    for (gid,), g in ev.group_by(["game_id"], maintain_order=True):
        rounds = g.filter(pl.col("kind") == "round")
        for rnd, fp in zip(rounds["a"].to_list(), rounds["seat"].to_list()):
            night = g.filter((pl.col("round") == rnd) & (pl.col("phase") == "night"))
            seats = night["seat"].to_list()
            if not seats:
                continue  # the unplayed final round
            runs = [s for i, s in enumerate(seats) if i == 0 or seats[i - 1] != s]
            assert runs == [(fp + i) % 3 for i in range(3)] * 2, (gid, rnd)
            checked += 1
    assert checked > 300
    games = pl.from_arrow(res.games)
    assert (games["turns"] == 2 * 3 * games["rounds"]).all()


def test_BI_N1_the_same_action_may_be_taken_twice():
    """BI-N1: nothing forbids two kills by the same player in one night."""
    t = Table(2).clear()
    a = t.to_room(0, "baron")
    b = t.to_room(1, "novice")
    assert t.act_kill(0, a) and t.act_kill(0, b)
    assert t.corpses(0) == sorted([a, b])
    t.check()


# -- BI-N2 ------------------------------------------------------------------------------


def test_BI_N2_matching_affinity_returns_other_cards_to_the_exit():
    """BI-N2: paying a Kill of rank 2 with a police officer (affinity kill) and a merchant:
    the officer comes back to hand, the merchant goes face up to the Exit."""
    t = Table(2).clear()
    target = t.to_room(2, "count")
    cop, merchant = t.to_hand(0, "brigadier", "newsboy")
    assert t.act_kill(0, target)
    assert t.hand(0) == [cop] and t.exit() == [merchant] and t.corpses(0) == [target]
    t.check()


def test_BI_N2_paid_peasants_go_to_the_bistro():
    """BI-N2: discarded peasants go to the Bistro, never to the Exit."""
    t = Table(2).clear()
    target = t.to_room(2, "abbot")  # rank 2
    peasants = t.to_hand(1, "peasant", "peasant")
    assert t.act_bribe(1, target)
    assert t.bistro() == sorted(peasants) and t.exit() == [] and t.hand(1) == [target]
    t.check()


@pytest.mark.parametrize("action", ["bribe", "kill", "build", "bury"])
def test_BI_N2_an_action_that_cannot_be_paid_is_refused_and_changes_nothing(action):
    """BI-N2: a player cannot take an action they cannot pay for (rank 3, two cards)."""
    t = Table(2).clear()
    hand = t.to_hand(0, "peasant", "newsboy")
    t.set_money(0, cash=9, cheques=2)
    if action == "bribe":
        target = t.to_room(0, "duke")
        ok = t.act_bribe(0, target)
    elif action == "kill":
        target = t.to_room(0, "duke")
        ok = t.act_kill(0, target)
    elif action == "build":
        target = t.to_hand(0, "duke")[0]
        hand = hand + [target]
        ok = t.act_build(0, target)
    else:
        target = t.to_corpse(0, "duke")[0]
        ok = t.act_bury(0, (target, t.barn(0)))
    assert ok is False
    assert sorted(t.hand(0)) == sorted(hand) and t.exit() == [] and t.bistro() == []
    assert t.cash(0) == 9 and t.cheques(0) == 2
    t.check()


def test_BI_N2_payment_choice_events_match_the_returns():
    """BI-N2 with the strategy choosing: exactly ``cost`` cards are paid; each one returns iff
    its affinity matches the action (pay events), the rest are discarded."""
    for g in range(20):
        t = Table(2, events=True, game_id=g).clear()
        target = t.to_room(0, "major")  # rank 3 police
        hand = t.to_hand(0, "peacekeeper", "newsboy", "novice", "brigadier", "peasant")
        t.log_events()
        assert t.act_kill(0, target)
        pays = [e for e in t.events() if e["kind"] == "pay"]
        assert len(pays) == 3 and len({e["card"] for e in pays}) == 3
        for e in pays:
            back = t.kind(e["card"]) in ("peacekeeper", "brigadier")
            assert e["a"] == int(back) and e["b"] == ACTION.kill
            assert (e["card"] in t.hand(0)) == back
        assert len(t.hand(0)) == 5 - sum(1 - e["a"] for e in pays)
        assert set(t.hand(0)) <= set(hand)
        t.check()


@pytest.mark.parametrize("rank,cost", [(0, 0), (1, 0), (2, 1), (3, 2)])
def test_BI_N2_discount_lowers_the_cost_by_one_not_below_zero(rank, cost):
    """BI-N2: the Parlor (bribe discount) makes a rank-r bribe cost max(r - 1, 0) cards."""
    kind = {0: "baron", 1: "viscount", 2: "count", 3: "duke"}[rank]
    t = Table(2).clear()
    t.give_annex(0, "representative")
    target = t.to_room(0, kind)
    paid = t.to_hand(0, *(["peasant"] * cost))
    assert t.act_bribe(0, target)
    assert t.hand(0) == [target] and len(t.bistro()) == cost
    if cost:
        t2 = Table(2).clear()
        t2.give_annex(0, "representative")
        t2.to_room(0, kind)
        t2.to_hand(0, *(["peasant"] * (cost - 1)))
        assert t2.act_bribe(0, t2.room_card(0)) is False
    assert sorted(t.bistro()) == sorted(paid)
    t.check()


def test_BI_N2_discount_applies_once_per_action():
    """BI-N2: with the Store and the Parlor, bribing two rank-1 travellers costs 2 - 1 = 1."""
    t = Table(2).clear()
    t.give_annex(0, "representative")
    t.give_annex(0, "shopkeeper")
    a = t.to_room(0, "viscount")
    b = t.to_room(1, "monk")
    t.to_hand(0, "peasant")
    assert t.act_bribe(0, a, b)
    assert t.hand(0) == sorted([a, b]) and len(t.bistro()) == 1
    t.check()


def test_BI_N2_discount_is_per_player_and_per_action():
    """BI-N2: the Parlor lowers only its owner's bribes, not their kills, nor others' bribes."""
    t = Table(2).clear()
    t.give_annex(0, "representative")
    t.to_room(0, "viscount")
    t.to_room(1, "monk")
    assert t.act_kill(0, t.room_card(0)) is False  # kill still costs 1
    assert t.act_bribe(1, t.room_card(1)) is False  # seat 1 has no Parlor
    assert t.act_bribe(0, t.room_card(1))


# -- BI-N3 ------------------------------------------------------------------------------


def test_BI_N3_bribe_takes_a_traveller_from_a_room_into_hand():
    """BI-N3: the traveller leaves its room for the briber's hand; cost = rank."""
    t = Table(2).clear()
    target = t.to_room(3, "count")
    t.to_hand(1, "newsboy", "grocer")  # merchants: affinity bribe
    assert t.act_bribe(1, target)
    assert t.room_card(3) == -1 and t.loc(target) == LOC.hand + 1
    assert sorted(t.kinds(t.hand(1))) == ["count", "grocer", "newsboy"]
    assert t.p(L.P_BRIBES, 1) == 1
    assert t[L.P_BRIBED_R + 1 * 4 + 2] == 1  # seat 1 bribed one rank-2 card
    t.check()


def test_BI_N3_the_bribed_card_cannot_pay_for_its_own_bribe():
    """BI-N3: with an empty hand a rank-1 traveller cannot be bribed (it cannot pay itself)."""
    t = Table(2).clear()
    target = t.to_room(0, "viscount")
    assert t.act_bribe(0, target) is False
    assert t.room_card(0) == target and t.hand(0) == []


@pytest.mark.parametrize(
    "n,bistro,ok", [(1, 2, True), (2, 2, True), (2, 3, True), (3, 4, False), (2, 1, False), (0, 2, False)]
)
def test_BI_N3_bribe_one_or_two_peasants_from_the_bistro_for_free(n, bistro, ok):
    """BI-N3: 1 or 2 peasants from the Bistro, free of charge; never more than 2 without the
    Brewery, never more than the Bistro holds."""
    t = Table(2).clear()
    peasants = t.to_bistro(bistro)
    t.set_money(0, cash=5, cheques=1)
    assert t.act_bribe(0, peasants=n) is ok
    assert len(t.hand(0)) == (n if ok else 0) and set(t.hand(0)) <= set(peasants)
    assert (t.cash(0), t.cheques(0)) == (5, 1)  # free
    assert len(t.bistro()) == bistro - (n if ok else 0)
    if ok:
        assert t.p(L.P_PEAS_BRIBED, 0) == n
    t.check()


def test_BI_N3_store_bribes_several_travellers_for_the_sum_of_ranks():
    """BI-N3: the Store bribes any number of room travellers in one action (cost = sum of
    ranks); without it a second target is refused."""
    t = Table(3).clear()
    a = t.to_room(0, "viscount")
    b = t.to_room(3, "count")
    c = t.to_room(4, "baron")
    t.to_hand(0, "peasant", "peasant", "peasant")
    assert t.act_bribe(0, a, b) is False  # no Store
    t.give_annex(0, "shopkeeper")
    assert t.act_bribe(0, a, b, c)
    assert sorted(t.hand(0)) == sorted([a, b, c]) and len(t.bistro()) == 3
    assert all(r == -1 for r in (t.room_card(0), t.room_card(3), t.room_card(4)))
    t.check()


@pytest.mark.parametrize("where", ["exit", "entrance", "box", "corpse"])
def test_BI_N3_only_travellers_in_rooms_can_be_bribed_or_killed(where):
    """BI-N3/BI-N5: a target must be a traveller in a room of the inn."""
    t = Table(2).clear()
    t.to_hand(0, "peasant", "peasant")
    if where == "exit":
        c = t.to_exit("viscount")[0]
    elif where == "entrance":
        c = t.set_entrance("viscount")[0]
    elif where == "box":
        c = t.free("viscount")
    else:
        c = t.to_corpse(1, "viscount")[0]
    assert t.act_bribe(0, c) is False
    assert t.act_kill(0, c) is False
    assert t.loc(c) != LOC.hand + 0 and len(t.hand(0)) == 2


# -- BI-N4 ------------------------------------------------------------------------------


def test_BI_N4_build_puts_a_hand_card_face_up_paid_with_other_cards():
    """BI-N4: the card leaves the hand for the player's annexes, its rank is paid with other
    cards, the "immediately" effect (King Size Bed: 6 F) fires now."""
    t = Table(2).clear()
    t.set_money(0, cash=5)
    bed, peasant = t.to_hand(0, "viscount", "peasant")
    assert t.act_build(0, bed)
    assert t.annexes(0) == [bed] and t.hand(0) == [] and t.bistro() == [peasant]
    assert t.cash(0) == 11 and t.p(L.P_BUILDS, 0) == 1
    t.check()


def test_BI_N4_the_built_card_cannot_pay_for_itself():
    """BI-N4: a rank-1 card alone in hand cannot be built; a rank-0 card can (cost 0)."""
    t = Table(2).clear()
    bed = t.to_hand(0, "viscount")[0]
    assert t.act_build(0, bed) is False and t.hand(0) == [bed]
    chandelier = t.to_hand(1, "baron")[0]
    assert t.act_build(1, chandelier) and t.annexes(1) == [chandelier]
    t.check()


@pytest.mark.parametrize("where", ["other_hand", "room", "corpse"])
def test_BI_N4_only_an_own_hand_card_can_be_built(where):
    t = Table(2).clear()
    t.to_hand(0, "peasant", "peasant")
    if where == "other_hand":
        c = t.to_hand(1, "viscount")[0]
    elif where == "room":
        c = t.to_room(0, "viscount")
    else:
        c = t.to_corpse(0, "viscount")[0]
    assert t.act_build(0, c) is False and t.annexes(0) == []


def test_BI_N4_artisans_paying_a_build_return_to_hand():
    """BI-N4 with BI-N2: the affinity of artisans is Build."""
    t = Table(2).clear()
    duke, a1, a2, a3 = t.to_hand(0, "duke", "cultivator", "mechanic", "distiller")
    assert t.act_build(0, duke)
    assert t.hand(0) == sorted([a1, a2, a3]) and t.annexes(0) == [duke]
    t.check()


# -- BI-N5 ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["baron", "brigadier", "abbot", "marquis"])
def test_BI_N5_kill_makes_an_unburied_corpse_without_money(kind):
    """BI-N5: the traveller leaves its room and lies face down in front of the killer
    (unburied, no money yet); cost = rank."""
    t = Table(2).clear()
    target = t.to_room(4, kind)
    t.to_hand(1, *(["peasant"] * t.rank(target)))
    t.set_money(1, cash=3, cheques=1)
    assert t.act_kill(1, target)
    assert t.corpses(1) == [target] and t.room_card(4) == -1
    assert t.cash(1) == 3 and t.cheques(1) == 1 and t.p(L.P_KILLS, 1) == 1
    t.check()


def test_BI_N3_N5_the_rooms_holding_a_traveller_follow_kills_and_bribes():
    """BI-N5 and BI-N3 take a traveller out of its room: the mask of the rooms holding one
    (which the heuristic visits) loses that room and the counts of travellers and police (its
    clock) go down; the invariant check flags a mask or a count that disagrees with the
    rooms (code 3)."""
    from kernels.bloody_inn.invariants import check

    t = Table(2).clear()
    a = t.to_room(1, "major")  # police
    b = t.to_room(6, "baron")

    def inn():
        return t[L.G_INN], t[L.G_INN_N], t[L.G_INN_POLICE]

    assert inn() == ((1 << 1) | (1 << 6), 2, 1)
    t.to_hand(0, *(["peasant"] * t.rank(a)))
    assert t.act_kill(0, a)
    assert inn() == (1 << 6, 1, 0)
    t.to_hand(1, *(["peasant"] * t.rank(b)))
    assert t.act_bribe(1, b)
    assert inn() == (0, 0, 0)
    t.check()
    t.to_room(3, "major")
    for field, wrong in ((L.G_INN, 1 << 2), (L.G_INN_N, 2), (L.G_INN_POLICE, 0)):
        right = t[field]
        t.st[field] = wrong
        assert check(t.st) == 3
        t.st[field] = right
    assert check(t.st) == 0


def test_BI_N5_kill_a_peasant_from_the_bistro_for_free():
    """BI-N5: a Bistro peasant can be killed at cost 0 (one per action); none, no kill."""
    t = Table(2).clear()
    assert t.act_kill(0, peasant=True) is False
    p1, p2 = t.to_bistro(2)
    assert t.act_kill(0, peasant=True)
    assert len(t.corpses(0)) == 1 and len(t.bistro()) == 1 and t.p(L.P_PEAS_KILLED, 0) == 1
    assert t.kind(t.corpses(0)[0]) == "peasant" and set(t.corpses(0)) < {p1, p2}
    t.check()


def test_BI_N5_butchers_shop_kills_several_travellers_for_the_sum_of_ranks():
    """BI-N5: the Butcher's Shop kills any number of room travellers in one action."""
    t = Table(2).clear()
    a = t.to_room(0, "viscount")
    b = t.to_room(2, "baron")
    c = t.to_room(3, "major")
    t.to_hand(0, *(["peasant"] * 4))
    assert t.act_kill(0, a, b) is False
    t.give_annex(0, "butcher")
    assert t.act_kill(0, a, b, c)
    assert t.corpses(0) == sorted([a, b, c]) and len(t.bistro()) == 4
    t.check()


def test_BI_N5_killing_every_police_officer_stops_the_investigation():
    """BI-N5 with BI-M1: kill the only officer in the inn and the morning has no fine;
    with a second officer left, the fine comes."""
    for officers, fined in ((1, False), (2, True)):
        t = Table(2).clear()
        cops = [t.to_room(r, "brigadier") for r in (2, 3)[:officers]]
        t.to_room(0, "baron")  # seat 0's own room
        t.to_hand(0, "peasant")
        t.set_money(0, cash=20, cheques=0)
        t.to_corpse(0, "count")
        assert t.act_kill(0, cops[0])
        t.morning()
        assert (t.corpses(0) == []) == fined
        assert t.cash(0) == (20 - 20 if fined else 20) + 1  # 2 corpses; + own room income
        t.check()


# -- BI-N6 ------------------------------------------------------------------------------


def test_BI_N6_bury_under_own_annex_pays_the_whole_pocket_money():
    t = Table(2).clear()
    annex = t.give_annex(0, "count")  # rank 2 annex
    corpse = t.to_corpse(0, "duke")[0]
    t.to_hand(0, "novice", "monk", "abbot")
    t.set_money(0, cash=4)
    assert t.act_bury(0, (corpse, annex))
    assert t.cash(0) == 30 and t.fill(annex) == 1 and t.loc(corpse) == LOC.buried + 0
    assert t.p(L.P_BURIED, 0) == 1 and t.p(L.P_BURIED_OWN, 0) == 1
    assert sorted(t.kinds(t.hand(0))) == ["abbot", "monk", "novice"]  # religious return
    t.check()


@pytest.mark.parametrize("dest", ["annex", "barn"])
def test_BI_N6_burying_under_another_players_annex_splits_the_money(dest):
    """BI-N6: under another player's annex (or Barn) the pocket money is split in half."""
    t = Table(3).clear()
    d = t.give_annex(2, "count") if dest == "annex" else t.barn(2)
    corpse = t.to_corpse(0, "major")[0]  # pocket 26
    t.to_hand(0, "novice", "monk", "abbot")
    t.set_money(0, cash=1)
    t.set_money(2, cash=2)
    assert t.act_bury(0, (corpse, d))
    assert t.cash(0) == 14 and t.cash(2) == 15 and t.cash(1) == 5
    assert t.loc(corpse) == LOC.buried + 2
    assert t.p(L.P_BURIED, 0) == 1 and t.p(L.P_BURIED_OWN, 2) == 1
    assert t.p(L.P_BURIED_OWN, 0) == 0 and t.p(L.P_BURIED, 2) == 0
    t.check()


def test_BI_C3_C4_free_burial_places_of_each_player_follow_builds_and_burials():
    """BI-C4: each Barn holds one corpse; BI-C3: an annex as many as its rank.  The count of
    each player's free places (which the heuristic reads) follows a build and the burials,
    and the invariant check flags a count moved from one player to another (code 4) even
    though the total is still right."""
    from kernels.bloody_inn.invariants import check

    t = Table(3).clear()

    def free():
        return [int(t[L.P_FREE_SPACE + q]) for q in range(3)]

    assert free() == [1, 1, 1] and t[L.G_FREE_SPACE] == 3
    annex = t.give_annex(2, "count")  # rank 2 annex
    assert free() == [1, 1, 3] and t[L.G_FREE_SPACE] == 5
    corpse = t.to_corpse(0, "major")[0]
    t.to_hand(0, "novice", "monk", "abbot")
    assert t.act_bury(0, (corpse, annex))  # under another player's annex
    assert free() == [1, 1, 2] and t[L.G_FREE_SPACE] == 4
    peasant = t.to_corpse(1, "peasant")[0]
    assert t.act_bury(1, (peasant, t.barn(1)))
    assert free() == [1, 0, 2] and t[L.G_FREE_SPACE] == 3
    t.check()
    t.st[L.P_FREE_SPACE + 0] -= 1
    t.st[L.P_FREE_SPACE + 2] += 1
    assert check(t.st) == 4


def test_BI_N6_an_odd_pocket_gives_the_burier_the_larger_half():
    """BI-N6: with a card edit making the pocket money odd, the burier takes the larger half."""
    t = Table(2, cards={"count": {"pocket": 13}}).clear()
    corpse = t.to_corpse(0, "count")[0]
    t.to_hand(0, "novice", "monk")
    t.set_money(0, cash=0)
    t.set_money(1, cash=0)
    assert t.act_bury(0, (corpse, t.barn(1)))
    assert (t.cash(0), t.cash(1)) == (7, 6)


def test_BI_N6_a_peasant_corpse_costs_nothing_to_bury():
    t = Table(2).clear()
    corpse = t.to_corpse(1, "peasant")[0]
    t.set_money(1, cash=0)
    assert t.hand(1) == [] and t.act_bury(1, (corpse, t.barn(1)))
    assert t.cash(1) == 4
    t.check()


@pytest.mark.parametrize("case", ["other_corpse", "room", "exit_dest", "bad_barn", "hand_dest"])
def test_BI_N6_only_own_corpses_into_existing_burial_places(case):
    """BI-N6: one's own unburied corpse, into an annex or a Barn of a player in the game."""
    t = Table(2).clear()
    t.to_hand(0, "peasant", "peasant", "peasant")
    corpse = t.to_corpse(0, "viscount")[0]
    if case == "other_corpse":
        c = t.to_corpse(1, "baron")[0]
        pair = (c, t.barn(0))
    elif case == "room":
        pair = (t.to_room(0, "baron"), t.barn(0))
    elif case == "exit_dest":
        pair = (corpse, t.to_exit("major")[0])  # not an annex
    elif case == "bad_barn":
        pair = (corpse, t.barn(3))  # no seat 3 in a 2-player game
    else:
        pair = (corpse, t.to_hand(1, "duke")[0])  # a card in hand is no annex
    assert t.act_bury(0, pair) is False
    assert t.corpses(0) == [corpse] and len(t.hand(0)) == 3
    t.check()


def test_BI_N6_crypt_buries_several_corpses_for_the_sum_of_ranks():
    """BI-N6: the Crypt buries several corpses in one action (cost = sum of ranks), each
    into a place with room left; without the Crypt a second corpse is refused."""
    t = Table(2).clear()
    a, b, c = t.to_corpse(0, "viscount", "count", "peasant")
    t.to_hand(0, *(["peasant"] * 3))
    t.set_money(0, cash=0)
    t.set_money(1, cash=0)
    assert t.act_bury(0, (a, t.barn(0)), (b, t.barn(1))) is False
    t.give_annex(0, "archbishop")  # Crypt: rank 3, capacity 3
    crypt = t.annexes(0)[0]
    # two corpses into one Barn: refused as a whole
    assert t.act_bury(0, (a, t.barn(0)), (b, t.barn(0))) is False
    assert len(t.corpses(0)) == 3 and len(t.hand(0)) == 3
    assert t.act_bury(0, (a, t.barn(0)), (b, crypt), (c, t.barn(1)))
    assert t.corpses(0) == [] and len(t.bistro()) == 3  # cost 1 + 2 + 0
    assert t.cash(0) == 12 + 18 + 2 and t.cash(1) == 2
    assert t.fill(crypt) == 1 and t.p(L.P_BARN_FILL, 0) == 1 and t.p(L.P_BARN_FILL, 1) == 1
    assert t.p(L.P_BURIED, 0) == 3
    t.check()


def test_BI_N6_chapel_returns_every_card_paid_for_bury():
    """BI-N6: with the Chapel every card paid for Bury returns to hand (without it,
    non-religious cards are discarded)."""
    t = Table(2).clear()
    corpse = t.to_corpse(0, "duke")[0]
    hand = t.to_hand(0, "peasant", "newsboy", "brigadier")
    assert t.act_bury(0, (corpse, t.barn(0)))
    assert t.hand(0) == [] and len(t.bistro()) == 1 and len(t.exit()) == 2
    t2 = Table(2).clear()
    t2.give_annex(0, "priest")
    corpse = t2.to_corpse(0, "duke")[0]
    hand = t2.to_hand(0, "peasant", "newsboy", "brigadier")
    assert t2.act_bury(0, (corpse, t2.barn(0)))
    assert t2.hand(0) == sorted(hand) and t2.bistro() == [] and t2.exit() == []
    t2.check()


def test_BI_N6_buried_corpses_stay_until_the_end():
    """BI-N6: buried corpses are safe from investigations and stay to the end."""
    t = Table(2).clear()
    corpse = t.to_corpse(0, "baron")[0]
    assert t.act_bury(0, (corpse, t.barn(0)))
    t.to_room(0, "major")  # police in the inn
    cash = t.cash(0)
    t.morning()
    t.end_game()
    assert t.loc(corpse) == LOC.buried + 0 and t.p(L.P_FINES, 0) == 0
    assert t.cash(0) == cash + 1  # only the room income
    t.check()


# -- BI-N7 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cash,cheques,k,ok,after",
    [
        (25, 0, 2, True, (5, 2)),
        (25, 0, 3, False, (25, 0)),
        (15, 2, -2, True, (35, 0)),
        (15, 3, -3, False, (15, 3)),  # 45 > 40
        (31, 1, -1, False, (31, 1)),
        (30, 1, -1, True, (40, 0)),
        (9, 1, 0, True, (9, 1)),  # plain pass
        (40, 0, 4, True, (0, 4)),
    ],
)
def test_BI_N7_launder_whole_tens_and_cash_cheques_up_to_the_cap(cash, cheques, k, ok, after):
    """BI-N7: buy cheques with whole tens of cash, or cash cheques while cash stays <= 40."""
    t = Table(2)
    t.set_money(0, cash=cash, cheques=cheques)
    assert t.act_launder(0, k) is ok
    assert (t.cash(0), t.cheques(0)) == after
    t.check()


# -- BI-N8 ------------------------------------------------------------------------------


def test_BI_N8_cash_is_capped_at_40_and_the_excess_is_lost():
    """BI-N8: every gain above 40 is lost (burial, burial share, build bonus)."""
    t = Table(2).clear()
    assert t.gain_cash(0, 0) == 0
    t.set_money(0, cash=38, cheques=0)
    assert t.gain_cash(0, 5) == 2 and t.cash(0) == 40 and t.cheques(0) == 0
    t.set_money(0, cash=30)
    t.set_money(1, cash=35)
    corpse = t.to_corpse(0, "marquis")[0]
    t.to_hand(0, "novice", "monk", "abbot")
    assert t.act_bury(0, (corpse, t.barn(1)))  # 13 each
    assert t.cash(0) == 40 and t.cash(1) == 40
    t.set_money(1, cash=35)
    t.give_annex(1, "count", keep_money=False)  # Dining Room: +9
    assert t.cash(1) == 40
    t.check()


# -- BI-N9 ------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["own_hand", "other_hand", "other_annex", "own_annex"])
def test_BI_N9_hands_and_annexes_cannot_be_killed_or_bribed(where):
    """BI-N9: accomplices in hand and annexes are safe from Kill and Bribe."""
    t = Table(2).clear()
    t.to_hand(0, "peasant", "peasant", "peasant")
    if where == "own_hand":
        c = t.to_hand(0, "viscount")[0]
    elif where == "other_hand":
        c = t.to_hand(1, "viscount")[0]
    elif where == "other_annex":
        c = t.give_annex(1, "viscount")
    else:
        c = t.give_annex(0, "viscount")
    before = t.loc(c)
    assert t.act_kill(0, c) is False
    assert t.act_bribe(0, c) is False
    assert t.loc(c) == before and len(t.hand(0)) == 3 + (where == "own_hand")
    t.check()


# -- what a strategy may see ---------------------------------------------------------------


@pytest.mark.parametrize("seats", ["random", "greedy"])
def test_BI_N_strategies_decide_from_own_hand_public_table_and_top_card_only(seats):
    """BI-E1 (the top Entrance card is public, the rest is not), BI-N2 (own hand), BI-N9:
    in mid-game states, changing only what the deciding player cannot see — the other
    players' hands and corpses, the Entrance below the top card, the box — changes none of
    its decisions (placement, action with targets, payment, wages), RNG state included."""
    rng = random.Random(7)
    checked = 0
    for g in range(4):
        t = Table(3, seats=seats, game_id=g, rules={"length": "short"})
        for _ in range(6):  # six rounds
            fp = t[L.G_FIRST]
            top = t.entrance()[0] if t.entrance() else -1
            if top >= 0:
                a, b = t, t.hidden_variant(fp, rng)
                ra = strategies.decide_placement(a.st.copy(), a.pr, fp, top)
                rb = strategies.decide_placement(b.st.copy(), b.pr, fp, top)
                assert ra == rb
            if not t.evening():
                break
            for i in range(6):
                p = (fp + i) % 3
                b = t.hidden_variant(p, rng)
                a_st, b_st = t.st.copy(), b.st.copy()
                strategies.decide_action(a_st, t.pr, p)
                strategies.decide_action(b_st, b.pr, p)
                assert decision_scratch(a_st) == decision_scratch(b_st), (g, p)
                cost = min(2, t.p(L.P_HAND_N, p))
                strategies.decide_payment(a_st, t.pr, p, ACTION.kill, cost, -1)
                strategies.decide_payment(b_st, b.pr, p, ACTION.kill, cost, -1)
                assert list(a_st[L.D_PAY : L.D_PAY + cost]) == list(b_st[L.D_PAY : L.D_PAY + cost])
                checked += 1
                t.take_action(p)
            for p in range(3):
                b = t.hidden_variant(p, rng)
                a_st, b_st = t.st.copy(), b.st.copy()
                keep = min(t.cash(p), t.p(L.P_HAND_N, p))
                strategies.decide_wages(a_st, t.pr, p, keep)
                strategies.decide_wages(b_st, b.pr, p, keep)
                n = int(a_st[L.D_NT])
                assert n == b_st[L.D_NT]
                assert list(a_st[L.D_T : L.D_T + n]) == list(b_st[L.D_T : L.D_T + n])
            t.morning()
            assert t[L.G_ERR] == 0
    assert checked >= 60
