"""Bloody Inn ruleset flags BI-V1..BI-V10: each reading of the seeds, default and
alternative, on an explicit state."""

import polars as pl
import pytest
from bloody_inn_harness import L, Table

import sim
from sim.api import simulate
from sim.errors import ConfigError

# -- BI-V1 ------------------------------------------------------------------------------


def test_BI_V1_length_default_long_alternative_short():
    """BI-V1: ``length`` defaults to long (3p: 54 cards); short gives the short column (42)."""
    assert sim.resolve({"game": "bloody_inn", "players": 3})["rules"]["length"] == "long"
    assert len(Table(3).entrance()) == 54
    assert len(Table(3, rules={"length": "short"}).entrance()) == 42
    with pytest.raises(ConfigError, match="rules.length"):
        sim.resolve({"game": "bloody_inn", "rules": {"length": "medium"}})


# -- BI-V2 ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 20, 70])
def test_BI_V2_deck_size_any_size(size):
    t = Table(2, rules={"deck_size": size})
    assert len(t.entrance()) == size and len([c for c in t.box() if c < 70]) == 70 - size
    t.check()


@pytest.mark.parametrize("bad", [0, 71, "big"])
def test_BI_V2_deck_size_out_of_range_is_refused(bad):
    with pytest.raises(ConfigError, match="deck_size"):
        sim.resolve({"game": "bloody_inn", "rules": {"deck_size": bad}})


def test_BI_V2_deck_copies_doubles_the_travellers():
    """BI-V2: ``deck_copies = 2``: 140 travellers (every kind twice as often), still 8
    peasants; the default deck doubles (3p long: 108) and a deck up to 140 is allowed."""
    t = Table(3, rules={"deck_copies": 2})
    assert t[L.G_NTRAV] == 140 and t.ncards == 148
    assert sum(t.kind(c) == "marquis" for c in range(t.ncards)) == 2
    assert sum(t.kind(c) == "peasant" for c in range(t.ncards)) == 8
    assert len(t.entrance()) == 108
    big = Table(2, rules={"deck_copies": 2, "deck_size": 140})
    assert len(big.entrance()) == 140 and len(set(big.entrance())) == 140
    big.check()
    with pytest.raises(ConfigError, match="deck_size"):
        sim.resolve({"game": "bloody_inn", "rules": {"deck_copies": 2, "deck_size": 141}})


# -- BI-V3 ------------------------------------------------------------------------------


def test_BI_V3_unique_annexes_true_refuses_a_second_identical_annex():
    t = Table(2).clear()
    t.give_annex(0, "representative")
    second = t.to_hand(0, "representative")[0]
    t.to_hand(0, "peasant", "peasant")
    assert t.act_build(0, second) is False and len(t.annexes(0)) == 1
    other = t.to_hand(1, "representative", "peasant")[0]  # another player may build one
    assert t.act_build(1, other)


def test_BI_V3_unique_annexes_false_duplicates_stack():
    """BI-V3 ``unique_annexes = false``: two Parlors lower a bribe by 2; two King Size Beds
    pay 6 F each."""
    t = Table(2, rules={"unique_annexes": False}).clear()
    t.give_annex(0, "representative")
    t.give_annex(0, "representative")
    assert len(t.annexes(0)) == 2
    target = t.to_room(0, "count")  # rank 2, now free
    assert t.act_bribe(0, target) and t.hand(0) == [target]
    t.set_money(1, cash=0)
    t.give_annex(1, "viscount", keep_money=False)
    t.give_annex(1, "viscount", keep_money=False)
    assert t.cash(1) == 12
    t.check()


# -- BI-V4 ------------------------------------------------------------------------------


@pytest.mark.parametrize("players,white", [(1, 3), (2, 2), (3, 3), (4, 4)])
def test_BI_V4_white_keys_equal_to_players(players, white):
    """BI-V4 ``white_keys = "players"``: 2/3/4 white keys with 2/3/4 players (solo keeps 3)."""
    t = Table(players, rules={"white_keys": "players"})
    assert t.keys().count(L.WHITE) == white
    assert len(t.open_rooms()) == players + white == t[L.G_OPEN_ROOMS]


def test_BI_V4_bad_white_keys_value_is_refused():
    with pytest.raises(ConfigError, match="white_keys"):
        sim.resolve({"game": "bloody_inn", "players": 4, "rules": {"white_keys": 5}})


# -- BI-V5 ------------------------------------------------------------------------------


@pytest.mark.parametrize("voluntary,kept", [(True, 1), (False, 3)])
def test_BI_V5_voluntary_dismissal(voluntary, kept):
    """BI-V5: with ``voluntary_dismissal`` a player may dismiss accomplices they could pay
    (greedy keeping at most 1); without it only unpaid ones leave."""
    seats = [{"strategy": "greedy", "params": {"keep_max": 1.0}}]
    t = Table(2, rules={"voluntary_dismissal": voluntary}, seats=seats).clear()
    t.to_hand(0, "peasant", "duke", "newsboy")
    t.set_money(0, cash=10)
    t.pay_wages(0)
    assert len(t.hand(0)) == kept and t.cash(0) == 10 - kept
    t.check()


# -- BI-V6 ------------------------------------------------------------------------------


@pytest.mark.parametrize("final_round,played", [("partial", True), ("strict", False)])
def test_BI_V6_final_round_strict_ends_as_soon_as_the_inn_cannot_be_filled(final_round, played):
    t = Table(3, rules={"final_round": final_round}).clear()
    t[L.G_SEASON] = 2
    t.set_entrance("baron", "viscount", "count", "novice", "monk")  # 5 < 6 rooms
    assert t.evening() is played and t[L.G_LAST_ROUND] == 1
    t2 = Table(3, rules={"final_round": final_round}).clear()
    t2[L.G_SEASON] = 2
    t2.set_entrance("baron", "viscount", "count", "novice", "monk", "abbot")
    assert t2.evening() is True and t2[L.G_LAST_ROUND] == 0  # filled: not yet


# -- BI-V7 ------------------------------------------------------------------------------


def test_BI_V7_one_season_ends_at_the_first_run_out():
    """BI-V7 ``seasons = 1``: no season change; the first run-out is the end trigger."""
    t = Table(2, rules={"seasons": 1}).clear()
    t.set_entrance("baron", "viscount")
    t.to_exit("count", "novice", "monk")
    assert t.evening() is True  # 2 travellers >= 2 players
    assert t[L.G_SEASON] == 1 and t[L.G_LAST_ROUND] == 1 and len(t.exit()) == 3


@pytest.mark.parametrize("seasons", [1, 2])
def test_BI_V7_seasons_played_in_whole_games(seasons):
    res = simulate({"game": "bloody_inn", "players": 3, "rules": {"seasons": seasons}}, games=300, seed=4)
    assert pl.from_arrow(res.games)["seasons_played"].unique().to_list() == [seasons]


# -- BI-V8 ------------------------------------------------------------------------------


@pytest.mark.parametrize("capped,cash", [(True, 40), (False, 47)])
def test_BI_V8_end_bonus_capped(capped, cash):
    t = Table(2, rules={"end_bonus_capped": capped}).clear()
    t.give_annex(0, "prince")
    t.set_money(0, cash=35, cheques=4)
    t.end_game()
    assert t.cash(0) == cash and t.p(L.P_SCORE, 0) == cash + 40


# -- BI-V9 ------------------------------------------------------------------------------


@pytest.mark.parametrize("tiebreak,winner", [("buried_by_player", 0), ("buried_under_own_annexes", 1)])
def test_BI_V9_tiebreak(tiebreak, winner):
    """BI-V9: equal scores are broken by corpses the player buried (default) or by corpses
    lying under the player's own annexes and Barn."""
    t = Table(2, rules={"tiebreak": tiebreak}).clear()
    a = t.give_annex(1, "count")
    # seat 0 buries two corpses under seat 1's annex: 0 buried 2, 1 holds 2 under its own
    for kind in ("baron", "peasant"):
        c = t.to_corpse(0, kind)[0]
        assert t.act_bury(0, (c, a))
    assert t.p(L.P_BURIED, 0) == 2 and t.p(L.P_BURIED_OWN, 1) == 2
    t.set_money(0, cash=20, cheques=0)
    t.set_money(1, cash=20, cheques=0)
    t.end_game()
    assert [t.p(L.P_WINNER, p) for p in range(2)] == [int(p == winner) for p in range(2)]


# -- BI-V10 -----------------------------------------------------------------------------


def test_BI_V10_wealth_cap_other_value():
    t = Table(2, rules={"wealth_cap": 60}).clear()
    t.set_money(0, cash=38, cheques=3)
    assert t.gain_cash(0, 20) == 20 and t.cash(0) == 58
    assert t.gain_cash(0, 20) == 2 and t.cash(0) == 60
    t.set_money(0, cash=35)
    assert t.act_launder(0, -2) is True and t.cash(0) == 55  # 55 <= 60
    assert t.act_launder(0, -1) is False
    t.check()


def test_BI_V10_unlimited_wealth_turns_cash_above_the_cap_into_four_cheques():
    """BI-V10 ``unlimited_wealth``: above 40 the player takes four cheques and moves the
    cash back by 40, nothing is lost."""
    t = Table(2, rules={"unlimited_wealth": True}).clear()
    t.set_money(0, cash=38, cheques=1)
    corpse = t.to_corpse(0, "marquis")[0]
    t.to_hand(0, "novice", "monk", "abbot")
    assert t.act_bury(0, (corpse, t.barn(0)))  # 38 + 26 = 64
    assert (t.cash(0), t.cheques(0)) == (24, 5)
    t.set_money(0, cash=40)
    assert t.gain_cash(0, 1) == 1 and (t.cash(0), t.cheques(0)) == (1, 9)
    t.check()


def test_BI_V8_uncapped_end_bonus_is_not_an_invariant_violation():
    """BI-V8 ``end_bonus_capped = false``: 47 F after scoring is a legal end state, so the
    kernel's invariant check must accept it (it runs after ``end_game`` in ``play_one``)."""
    from kernels.bloody_inn.invariants import check

    t = Table(2, rules={"end_bonus_capped": False}).clear()
    t.give_annex(0, "prince")
    t.set_money(0, cash=35, cheques=4)
    t[L.G_PHASE] = 3  # as play_one sets it for scoring
    t.end_game()
    assert t.cash(0) == 47
    assert check(t.st) == 0


def test_BI_V3_duplicate_from_now_on_effects_stack():
    """BI-V3 ``unique_annexes = false``: two Room Services pay twice the rank, two Gardens
    add 4 F, two Distilleries free two wages, two Workshops lower a build by 2."""
    t = Table(
        2, rules={"unique_annexes": False, "voluntary_dismissal": False, "deck_copies": 2}, seats="greedy"
    ).clear()
    t.give_annex(0, "concierge")
    t.give_annex(0, "concierge")
    assert t[L.R_TOKENS + 0 * L.MAXP + 0] == 2  # greedy: both on its own room
    for kind in ("gardener", "gardener", "distiller", "distiller", "mechanic", "mechanic"):
        t.give_annex(0, kind)
    for r in (1, 2, 3, 4):
        t.to_room(r, "baron")
    t.set_money(0, cash=0)
    t.set_entrance("count")
    assert t.evening() and t.cash(0) == 4  # 2 tokens x rank 2
    t.travellers_leave()
    assert t.cash(0) == 4 + 1 + 4  # own room + 2 Gardens
    t.to_hand(0, "peasant", "newsboy")
    t.set_money(0, cash=0)
    t.pay_wages(0)
    assert len(t.hand(0)) == 2 and t.cash(0) == 0
    count = t.to_hand(0, "count")[0]  # rank 2, free with 2 Workshops
    assert t.act_build(0, count) and len(t.hand(0)) == 2
    t.check()
