"""Bloody Inn ruleset flags BI-V1..BI-V12: each reading of the seeds, default and
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
    rules = {"unique_annexes": False, "voluntary_dismissal": False, "deck_copies": 2}
    t = Table(2, rules=dict(rules, room_service_per_room="any"), seats="greedy").clear()
    t.give_annex(0, "concierge")
    t.give_annex(0, "concierge")
    assert t[L.R_TOKENS + 0 * L.MAXP + 0] == 2  # greedy: both on its own room (BI-V12 any)
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


def test_BI_V10_unlimited_wealth_greenhouse_counts_the_cheques_held_before_the_end_bonuses():
    """BI-V10 ``unlimited_wealth`` with BI-G2: a colour bonus that takes cash above the cap
    turns into cheques; the Greenhouse counts the cheques held *before* the end bonuses, so
    the result does not depend on the order the annexes were built (and paid) in."""
    results = []
    for order in (("landscaper", "prince"), ("prince", "landscaper")):
        t = Table(2, rules={"unlimited_wealth": True}, events=True).clear()
        for kind in order:
            t.give_annex(0, kind)
        t.to_exit("cultivator", "cultivator", "cultivator", "mechanic", "mechanic")  # 5 red
        t.set_money(0, cash=30, cheques=2)
        t.log_events()
        t.end_game()
        bonus = {t.kind(e["card"]): (e["a"], e["b"]) for e in t.events() if e["kind"] == "end_bonus"}
        assert bonus == {"landscaper": (20, 5), "prince": (6, 2)}  # 3 F x the 2 cheques held
        results.append((t.cash(0), t.cheques(0), t.p(L.P_SCORE, 0)))
        t.check()
    # 30 + 20 + 6 = 56 F -> 16 F and four more cheques
    assert results == [(16, 6, 76), (16, 6, 76)]


# -- BI-V11 -----------------------------------------------------------------------------


def test_BI_V11_season_change_default_and_values():
    """BI-V11: ``season_change`` defaults to ``when_empty`` (BI-E3); ``on_next_draw`` is the
    other reading; anything else is refused naming the key."""
    assert sim.resolve({"game": "bloody_inn"})["rules"]["season_change"] == "when_empty"
    t = Table(2, rules={"season_change": "on_next_draw"})
    assert t[L.G_SEASON_ON_DRAW] == 1 and Table(2)[L.G_SEASON_ON_DRAW] == 0
    with pytest.raises(ConfigError, match="rules.season_change"):
        sim.resolve({"game": "bloody_inn", "rules": {"season_change": "later"}})


# -- BI-V12 -----------------------------------------------------------------------------


def _tokens(t):
    return {
        r: [t[L.R_TOKENS + r * L.MAXP + q] for q in range(t.np)]
        for r in range(8)
        if any(t[L.R_TOKENS + r * L.MAXP + q] for q in range(t.np))
    }


def test_BI_V12_room_service_per_room_default_and_values():
    assert sim.resolve({"game": "bloody_inn"})["rules"]["room_service_per_room"] == 1
    assert Table(2, rules={"room_service_per_room": "any"})[L.G_RS_ANY] == 1
    for bad in (2, 0, True, "one"):
        with pytest.raises(ConfigError, match="rules.room_service_per_room"):
            sim.resolve({"game": "bloody_inn", "rules": {"room_service_per_room": bad}})


@pytest.mark.parametrize("seats", ["random", "greedy", "heuristic", "expert"])
def test_BI_V12_one_token_per_room_every_strategy_picks_a_free_room(seats):
    """BI-V12 default: a room holds at most one Room-Service token, so a Concierge built
    while the other open rooms (including the builder's own) carry tokens goes to the one
    room left free, whatever the strategy (the heuristic would otherwise join the room with
    the opponents' tokens)."""
    for g in range(8):
        t = Table(3, seats=seats, game_id=g).clear()  # open rooms 0..5
        for r in (0, 1, 2, 3, 5):
            t[L.R_TOKENS + r * L.MAXP + (r % 2)] = 1
        t.give_annex(2, "concierge")
        assert t[L.R_TOKENS + 4 * L.MAXP + 2] == 1
        assert sum(v for owners in _tokens(t).values() for v in owners) == 6
        assert t[L.G_ERR] == 0
        t.check()


def test_BI_V12_no_free_room_no_token_and_the_build_stands():
    """BI-V12 default: when every open room carries a token, the Concierge is still built
    (its cost paid) but its token has nowhere to go."""
    t = Table(2, seats="random", events=True).clear()
    for r in t.open_rooms():
        t[L.R_TOKENS + r * L.MAXP + 1] = 1
    before = _tokens(t)
    t.log_events()
    c = t.give_annex(0, "concierge")
    assert t.loc(c) == L.LOC.annex + 0 and _tokens(t) == before and t[L.G_ERR] == 0
    assert "token" not in [e["kind"] for e in t.events()]
    t.check()


def test_BI_V12_any_lets_tokens_stack():
    """BI-V12 ``any``: tokens of several players stack on one room and each owner is paid
    (the heuristic puts its token where the opponents' tokens are)."""
    t = Table(3, seats="heuristic", rules={"room_service_per_room": "any"}).clear()
    t[L.R_TOKENS + 4 * L.MAXP + 0] = 1
    t[L.R_TOKENS + 4 * L.MAXP + 1] = 1
    t.give_annex(2, "concierge")
    assert _tokens(t) == {4: [1, 1, 1]}
    for r, kind in zip((0, 1, 2, 3, 5), ("baron", "baron", "novice", "novice", "cultivator")):
        t.to_room(r, kind)
    for q in range(3):
        t.set_money(q, cash=0)
    t.set_entrance("count")
    assert t.evening() and [t.cash(q) for q in range(3)] == [2, 2, 2]
    t.check()


@pytest.mark.parametrize("per_room", [1, "any"])
def test_BI_V12_tokens_per_room_in_whole_games(per_room):
    """BI-V12 through whole games (event log): with one token per room no room ever gets a
    second token; with ``any`` expert players do stack some."""
    res = simulate(
        {
            "game": "bloody_inn",
            "players": 4,
            "seats": [{"strategy": "expert"}],
            "rules": {"room_service_per_room": per_room, "check_invariants": True},
        },
        games=1500,
        seed=8,
        events=True,
    )
    tokens = pl.from_arrow(res.events).filter(pl.col("kind") == "token")
    per = tokens.group_by("game_id", "a").len()
    assert tokens.height > 100
    assert (pl.from_arrow(res.games)["invariant_error"] == 0).all()
    if per_room == 1:
        assert per["len"].max() == 1
    else:
        assert per["len"].max() > 1
