"""Bloody Inn rules BI-C (cards) and BI-S (setup): explicit states, asserted results.

Expected numbers are written out from the rules contract (``shared/rules/bloody-inn.md``),
not read back from the card table the kernel uses.
"""

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from bloody_inn_harness import ACTION, L, Table, recount

import sim
from sim.errors import ConfigError
from sim.games.bloody_inn.adapter import DECK_SIZE

TYPES = ("merchant", "artisan", "religious", "police", "noble", "peasant")
AFFINITY = {
    "merchant": ACTION.bribe,
    "artisan": ACTION.build,
    "religious": ACTION.bury,
    "police": ACTION.kill,
    "noble": -1,
    "peasant": -1,
}
POCKET = {0: 8, 1: 12, 2: 18, 3: 26}


def _instances(t):
    st = t.st
    n = t.ncards
    return [
        (TYPES[st[L.C_TYPE + c]], int(st[L.C_RANK + c]), int(st[L.C_AFF + c]), int(st[L.C_POCKET + c]))
        for c in range(n)
    ]


def test_BI_C1_five_types_of_14_cards_ranks_4_4_3_3_and_8_peasants():
    """BI-C1: 5 traveller types x 14 cards (ranks 0/1/2/3 in 4/4/3/3 copies) with their
    affinities, plus 8 rank-0 peasants without affinity: 78 cards, the Barn is no card."""
    t = Table(2)
    inst = _instances(t)
    assert t.ncards == 78 and t[L.G_NTRAV] == 70
    by_type = Counter(ty for ty, *_ in inst)
    assert by_type == {
        "merchant": 14,
        "artisan": 14,
        "religious": 14,
        "police": 14,
        "noble": 14,
        "peasant": 8,
    }
    for ty in TYPES[:5]:
        ranks = Counter(r for t_, r, _, _ in inst if t_ == ty)
        assert ranks == {0: 4, 1: 4, 2: 3, 3: 3}, ty
    for ty, rank, aff, _ in inst:
        assert aff == AFFINITY[ty], ty
        if ty == "peasant":
            assert rank == 0
    # travellers first, peasants last (setup deals peasants from the end)
    assert all(ty != "peasant" for ty, *_ in inst[:70])


def test_BI_C2_pocket_money_by_rank_and_nothing_paid_at_the_kill():
    """BI-C2: pocket money 8/12/18/26 by rank, 4 for a peasant; killing pays nothing."""
    t = Table(2)
    for ty, rank, _, pocket in _instances(t):
        assert pocket == (4 if ty == "peasant" else POCKET[rank])
    t.clear()
    t.set_money(0, cash=5, cheques=0)
    victim = t.to_room(0, "count")  # rank 2 noble, pocket 18
    t.to_hand(0, "peacekeeper", "brigadier")  # police pay for Kill and return
    assert t.act_kill(0, victim)
    assert t.cash(0) == 5 and t.cheques(0) == 0 and t.corpses(0) == [victim]
    t.check()


def test_BI_C2_bury_pays_pocket_money():
    """BI-C2: the pocket money is paid when the corpse is buried (own Barn: all of it)."""
    t = Table(2).clear()
    t.set_money(0, cash=5)
    corpse = t.to_corpse(0, "count")[0]
    t.to_hand(0, "novice", "monk")  # religious: return after Bury
    assert t.act_bury(0, (corpse, t.barn(0)))
    assert t.cash(0) == 5 + 18
    t.check()


@pytest.mark.parametrize("kind,rank", [("baron", 0), ("viscount", 1), ("count", 2), ("marquis", 3)])
def test_BI_C3_rank_is_the_number_of_cards_paid(kind, rank):
    """BI-C3: bribing a card costs exactly its rank in cards: with rank - 1 cards in hand it
    is refused, with rank cards it succeeds and all of them are played."""
    if rank > 0:
        short = Table(2).clear()
        target = short.to_room(3, kind)
        short.to_hand(0, *(["peasant"] * (rank - 1)))
        assert short.act_bribe(0, target) is False
        assert short.room_card(3) == target and len(short.hand(0)) == rank - 1
        short.check()
    t = Table(2).clear()
    target = t.to_room(3, kind)
    paid = t.to_hand(0, *(["peasant"] * rank))
    assert t.act_bribe(0, target)
    assert t.hand(0) == [target] and t.room_card(3) == -1
    assert sorted(t.bistro()) == sorted(paid)  # paid peasants -> Bistro
    t.check()


@pytest.mark.parametrize("kind,capacity", [("baron", 0), ("viscount", 1), ("count", 2), ("marquis", 3)])
def test_BI_C3_annex_burial_capacity_is_its_rank(kind, capacity):
    """BI-C3: an annex holds as many corpses as its rank (a rank-0 annex none)."""
    t = Table(2).clear()
    a = t.give_annex(0, kind)
    for _ in range(capacity):
        t.bury_direct(a)
    t.check()
    corpse = t.to_corpse(0, "peasant")[0]  # a peasant corpse costs 0
    assert t.act_bury(0, (corpse, a)) is False
    assert t.corpses(0) == [corpse] and t.fill(a) == capacity
    if capacity:
        t3 = Table(2).clear()
        a3 = t3.give_annex(0, kind)
        for _ in range(capacity - 1):
            t3.bury_direct(a3)
        c3 = t3.to_corpse(0, "peasant")[0]
        assert t3.act_bury(0, (c3, a3))
        assert t3.fill(a3) == capacity
        t3.check()


@pytest.mark.parametrize("kind", ["peacekeeper", "brigadier", "brigadier_chief", "major", "peasant"])
def test_BI_C3_police_and_peasants_cannot_become_annexes(kind):
    """BI-C3: police and peasants cannot be built, even with plenty of cards to pay."""
    t = Table(2).clear()
    c = t.to_hand(0, kind)[0]
    t.to_hand(0, "cultivator", "cultivator", "cultivator", "cultivator")
    assert t.act_build(0, c) is False
    assert c in t.hand(0) and t.annexes(0) == []
    t.check()


def test_BI_C4_every_player_starts_with_a_barn_of_capacity_one():
    """BI-C4: the Barn is a rank-1 annex without effect present from the start: one corpse
    fits (full pocket money for its owner), a second does not."""
    t = Table(3)
    for p in range(3):
        assert t.p(L.P_BARN_FILL, p) == 0 and t.annexes(p) == []
    t.clear()
    t.set_money(1, cash=0)
    a, b = t.to_corpse(1, "peasant", "peasant")
    assert t.act_bury(1, (a, t.barn(1)))
    assert t.cash(1) == 4 and t.p(L.P_BARN_FILL, 1) == 1  # peasant pocket 4, no bonus
    assert t.act_bury(1, (b, t.barn(1))) is False  # full
    assert t.act_bury(1, (b, t.barn(2)))  # another player's Barn is free
    t.check()


def test_BI_C5_immediately_fires_once_from_now_on_lasts_end_of_game_at_scoring():
    """BI-C5: an "immediately" effect pays once when built (not again in later rounds), a
    "from now on" effect keeps working, an "end of game" effect pays only at scoring."""
    t = Table(2).clear()
    t.set_money(0, cash=0, cheques=0)
    t.give_annex(0, "marquis", keep_money=False)  # immediately 18
    assert t.cash(0) == 18
    t.give_annex(0, "gardener")  # from now on +2 at travellers leave
    t.give_annex(0, "prince")  # end of game: 3 per cheque
    t.set_money(0, cheques=2)
    for _ in range(2):  # two mornings: +2 each, no +18
        t.travellers_leave()
    assert t.cash(0) == 18 + 4
    t.end_game()
    assert t.cash(0) == 18 + 4 + 6
    t.check()


@pytest.mark.parametrize("players,white,open_", [(1, 3, 4), (2, 3, 5), (3, 3, 6), (4, 4, 8)])
def test_BI_S1_keys_and_open_rooms(players, white, open_):
    """BI-S1: one own key per player, 3 white keys (4 with 4 players); open rooms = keyed
    rooms (solo 4, 2p 5, 3p 6, 4p 8); the others are closed and never receive a traveller."""
    t = Table(players)
    keys = t.keys()
    for p in range(players):
        assert keys.count(p) == 1
    assert keys.count(L.WHITE) == white
    assert len(t.open_rooms()) == open_ == t[L.G_OPEN_ROOMS]
    assert keys.count(L.CLOSED) == 8 - open_
    assert t.evening()
    for r in range(8):
        assert (t.room_card(r) >= 0) == (keys[r] != L.CLOSED)
    t.check()


DECK = DECK_SIZE  # BI-S2, the adapter's table (the referee's independent copy is checked against it)


@pytest.mark.parametrize("length,players", sorted(DECK))
def test_BI_S2_entrance_size_by_players_and_length(length, players):
    """BI-S2: 70 travellers shuffled, N removed unseen to the box, the rest is the
    face-up Entrance (table by players and length); no peasant in the Entrance."""
    t = Table(players, rules={"length": length})
    ent = t.entrance()
    assert len(ent) == DECK[(length, players)] == t[L.G_DECK_SIZE]
    assert len(set(ent)) == len(ent) and max(ent) < 70
    travellers_in_box = [c for c in t.box() if c < 70]
    assert len(travellers_in_box) == 70 - len(ent)
    assert t[L.G_ENT_POS] == 0
    t.check()


def test_BI_S2_the_entrance_is_a_uniform_shuffle():
    """BI-S2: the shuffle keyed by (seed, game) differs between games and every traveller is
    equally likely to be in the deck and on top (chi-square-like bound, fixed seeds)."""
    n_games = 3000
    in_deck = np.zeros(70)
    on_top = np.zeros(70)
    t = Table(2)  # long, 45 cards
    firsts = set()
    for g in range(n_games):
        t.reset(seed=99, game_id=g)
        ent = t.entrance()
        in_deck[ent] += 1
        on_top[ent[0]] += 1
        firsts.add(tuple(ent[:5]))
    assert len(firsts) > n_games * 0.99
    p = 45 / 70
    expect = n_games * p
    sd = (n_games * p * (1 - p)) ** 0.5
    assert np.all(np.abs(in_deck - expect) < 5 * sd)
    expect_top = n_games / 70
    assert np.all(np.abs(on_top - expect_top) < 5 * expect_top**0.5 + 1)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_BI_S3_starting_cash_cheque_peasants_and_barn(players):
    """BI-S3: cash 5, one 10 F cheque, 2 peasants in hand each, empty Barn; the undealt
    peasants are in the box, the Bistro is empty (solo: 2 peasants in the Bistro)."""
    t = Table(players)
    for p in range(players):
        assert t.cash(p) == 5 and t.cheques(p) == 1
        hand = t.hand(p)
        assert len(hand) == 2 and all(t.kind(c) == "peasant" for c in hand)
        assert t.corpses(p) == [] and t.annexes(p) == [] and t.p(L.P_BARN_FILL, p) == 0
    bistro = 2 if players == 1 else 0
    assert len(t.bistro()) == bistro
    boxed_peasants = [c for c in t.box() if t.kind(c) == "peasant"]
    assert len(boxed_peasants) == 8 - 2 * players - bistro
    assert t.exit() == [] and all(c < 0 for c in t.rooms())
    recount(t)


def test_BI_S4_seat_0_is_first_player_and_the_lineup_rotates():
    """BI-S4: the first player is seat 0 in the logs; with ``rotate`` the strategies rotate
    over the seats game by game, so each lineup entry starts equally often."""
    seats = [{"strategy": "random"}, {"strategy": "greedy"}, {"strategy": "random"}]
    starts = Counter()
    for g in range(6):
        t = Table(3, seats=seats, game_id=g)
        assert t[L.G_FIRST] == 0
        lineup = [t.p(L.P_LINEUP, p) for p in range(3)]
        assert sorted(lineup) == [0, 1, 2]
        assert [t.p(L.P_STRAT, p) for p in range(3)] == [t[L.L_STRAT + li] for li in lineup]
        starts[lineup[0]] += 1
    assert starts == {0: 2, 1: 2, 2: 2}
    for g in range(3):  # rotate = false: fixed seats
        t = Table(3, seats=seats, game_id=g, rotate=False)
        assert [t.p(L.P_LINEUP, p) for p in range(3)] == [0, 1, 2]


# -- the card table and what-if edits (BI-C1..C5 data) -------------------------------------

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "bloody_inn_cards.csv"


@pytest.mark.skipif(not REFERENCE.exists(), reason="shared reference table not present")
def test_BI_C1_C5_card_table_matches_the_reference_row_for_row():
    """BI-C1..C5: ``configs/bloody_inn/cards.csv`` is the reference card table, row for row
    (the Barn row is the player aid of BI-C4)."""
    from sim.games.bloody_inn.cards import CARDS_CSV

    with open(REFERENCE, newline="", encoding="utf-8") as fh:
        ref = list(csv.DictReader(fh))
    with open(CARDS_CSV, newline="", encoding="utf-8") as fh:
        ours = list(csv.DictReader(fh))
    assert ours == ref


def test_BI_C3_card_edit_rank_changes_cost_and_capacity_not_pocket():
    """A what-if edit (Marquis rank 2): bribing it costs 2 cards, as an annex it holds 2
    corpses, its pocket money stays 26."""
    t = Table(2, cards={"marquis": {"rank": 2}}).clear()
    target = t.to_room(0, "marquis")
    assert t.rank(target) == 2 and t[L.C_POCKET + target] == 26
    t.to_hand(0, "peasant", "peasant")
    assert t.act_bribe(0, target) and t.hand(0) == [target]
    t.to_hand(0, "peasant", "peasant")
    assert t.act_build(0, target)
    t.bury_direct(target)
    t.bury_direct(target)
    corpse = t.to_corpse(0, "peasant")[0]
    assert t.act_bury(0, (corpse, target)) is False
    t.check()


def test_BI_C5_card_edit_effect_and_pocket():
    """What-if edits of an effect amount and of the peasants' pocket money."""
    t = Table(2, cards={"marquis": {"effect": "on_build_cash(12)"}, "peasant": {"pocket": 6}}).clear()
    t.set_money(0, cash=0)
    t.give_annex(0, "marquis", keep_money=False)
    assert t.cash(0) == 12
    corpse = t.to_corpse(0, "peasant")[0]
    assert t.act_bury(0, (corpse, t.barn(0))) and t.cash(0) == 18


def test_BI_C1_card_edit_copies():
    """What-if copies: one Major fewer leaves 69 travellers; the deck keeps its size."""
    t = Table(3, cards={"major": {"copies": 2}})
    assert t[L.G_NTRAV] == 69 and t.ncards == 77
    assert sum(t.kind(c) == "major" for c in range(t.ncards)) == 2
    assert len(t.entrance()) == 54
    t.check()


@pytest.mark.parametrize(
    "edit,key",
    [
        ({"major": {"effect": "on_build_cash(4)"}}, "cards.major"),
        ({"marquis": {"rank": 5}}, "cards.marquis.rank"),
        ({"peasant": {"rank": 1}}, "cards.peasant.rank"),
        ({"dragon": {"rank": 1}}, "cards"),
        ({"duke": {"effect": "teleport(3)"}}, "cards.duke.effect"),
    ],
)
def test_BI_C3_bad_card_edits_name_the_key(edit, key):
    with pytest.raises(ConfigError) as err:
        sim.resolve({"game": "bloody_inn", "cards": edit})
    assert key in str(err.value)
