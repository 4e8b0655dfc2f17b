"""Bloody Inn rules BI-E (evening): placement, Room Service, season change, end trigger."""

import polars as pl
import pytest
from bloody_inn_harness import LOC, L, Table

from sim.api import simulate

TRAVELLERS = [
    "baron",
    "viscount",
    "count",
    "newsboy",
    "representative",
    "concierge",
    "novice",
    "monk",
    "abbot",
    "cultivator",
    "mechanic",
    "distiller",
]


def _placements(t):
    return [(e["card"], e["a"], e["seat"]) for e in t.events() if e["kind"] == "place"]


def test_BI_E1_first_player_fills_every_open_room_in_entrance_order():
    """BI-E1: the first player draws the top Entrance card and places it in an empty open
    room, until every open room holds a traveller; closed rooms stay empty."""
    t = Table(3, events=True).clear()  # 6 open rooms
    t[L.G_FIRST] = 2
    ent = t.set_entrance(*TRAVELLERS[:8])
    t.log_events()
    assert t.evening() is True
    placed = _placements(t)
    assert [c for c, _, _ in placed] == ent[:6]  # drawn from the top, in order
    assert all(seat == 2 for _, _, seat in placed)  # the first player places
    assert sorted(r for _, r, _ in placed) == t.open_rooms()
    for c, r, _ in placed:
        assert t.room_card(r) == c and t.loc(c) == LOC.room and t.slot(c) == r
    for r in range(8):
        if r not in t.open_rooms():
            assert t.room_card(r) == -1
    assert t.entrance() == ent[6:] and t[L.G_LAST_ROUND] == 0
    t.check()


def test_BI_E1_a_placed_traveller_never_moves_and_only_empty_rooms_are_filled():
    """BI-E1: a traveller already in a room stays there; the evening fills only empty rooms."""
    t = Table(2).clear()
    stay = t.to_room(1, "duke")
    ent = t.set_entrance(*TRAVELLERS[:6])
    assert t.evening()
    assert t.room_card(1) == stay and t.slot(stay) == 1
    assert sorted(c for c in t.rooms() if c >= 0) == sorted([stay] + ent[:4])
    assert t.entrance() == ent[4:]
    t.check()


def _inn_with_one_empty_room(players=2, empty=4):
    t = Table(players, events=True).clear()
    for r in t.open_rooms():
        if r != empty:
            t.to_room(r, "cultivator" if r % 2 else "novice")
    return t


@pytest.mark.parametrize("kind,rank", [("baron", 0), ("viscount", 1), ("count", 2), ("duke", 3)])
def test_BI_E2_room_service_pays_the_token_owner_the_rank(kind, rank):
    """BI-E2: a traveller placed in a room with a Room-Service token pays the token's owner
    its rank at once (rank 0: nothing); the other player gains nothing."""
    t = _inn_with_one_empty_room()
    t[L.R_TOKENS + 4 * L.MAXP + 1] = 1  # seat 1's token on room 4
    t.set_money(0, cash=5)
    t.set_money(1, cash=5)
    t.set_entrance(kind, "baron")
    assert t.evening()
    assert t.kind(t.room_card(4)) == kind
    assert t.cash(1) == 5 + rank and t.cash(0) == 5
    t.check()


def test_BI_E2_room_service_respects_the_cap_and_pays_every_token_owner():
    """BI-E2 with BI-N8: two owners' tokens on the room both pay; the gain stops at 40."""
    t = _inn_with_one_empty_room(3, empty=5)
    t[L.R_TOKENS + 5 * L.MAXP + 0] = 1
    t[L.R_TOKENS + 5 * L.MAXP + 2] = 1
    t.set_money(0, cash=39)
    t.set_money(2, cash=10)
    t.set_entrance("marquis")
    assert t.evening()
    assert t.cash(0) == 40 and t.cash(2) == 13 and t.cash(1) == 5
    t.check()


def test_BI_E2_a_token_pays_only_for_placements_in_its_own_room():
    """BI-E2: travellers placed in other rooms pay nothing to the token owner."""
    t = Table(2).clear()
    t[L.R_TOKENS + 0 * L.MAXP + 1] = 1
    t.to_room(0, "baron")  # token room already occupied
    t.set_money(1, cash=7)
    t.set_entrance("marquis", "duke", "prince", "bishop")
    assert t.evening()
    assert t.cash(1) == 7
    t.check()


def test_BI_E3_season_change_mid_evening_keeps_placing():
    """BI-E3: when the Entrance runs out during placement (first time), the Exit is
    shuffled into a new Entrance, placing goes on, and the Exit restarts empty."""
    t = Table(2, events=True).clear()  # 5 open rooms
    old = t.set_entrance("marquis", "duke")
    exit_cards = t.to_exit(*TRAVELLERS[:10])
    t.log_events()
    assert t[L.G_SEASON] == 1
    assert t.evening() is True
    assert t[L.G_SEASON] == 2 and t[L.G_LAST_ROUND] == 0
    placed = [c for c, _, _ in _placements(t)]
    assert len(placed) == 5 and placed[:2] == old
    assert all(c in exit_cards for c in placed[2:])
    assert t.exit() == [] and t[L.G_EXIT_N] == 0
    new_ent = t.entrance()
    assert sorted(new_ent + placed[2:]) == sorted(exit_cards)
    kinds = [e["kind"] for e in t.events()]
    assert kinds.index("season") > kinds.index("place")  # the change happened mid-placement
    t.check()


def test_BI_E3_the_new_entrance_is_shuffled():
    """BI-E3: the Exit is shuffled (the order depends on the game's stream)."""
    orders = set()
    for g in range(12):
        t = Table(2, game_id=g).clear()
        t.set_entrance()
        t.to_exit(*TRAVELLERS)
        assert t.evening()
        orders.add(tuple(t.entrance()))
    assert len(orders) > 6


def test_BI_E3_no_season_change_while_the_entrance_still_has_cards():
    """BI-E3: an Entrance that empties exactly as the inn fills does not "run out" yet; the
    change happens at the next evening's first draw."""
    t = Table(2).clear()
    t.set_entrance(*TRAVELLERS[:5])
    t.to_exit("duke", "prince", "marquis", "bishop", "grocer", "brewer")
    assert t.evening()
    assert t[L.G_SEASON] == 1 and t.entrance() == [] and len(t.exit()) == 6
    t.travellers_leave()  # the 5 travellers go to the Exit
    assert t.evening()
    assert t[L.G_SEASON] == 2 and len(t.entrance()) == 11 - 5 and t.exit() == []
    t.check()


def test_BI_E4_final_round_skipped_with_fewer_travellers_than_players():
    """BI-E4: the second time the Entrance runs out, the round is the last; with fewer
    travellers in the inn than players it is not played (the evening says so)."""
    t = Table(3).clear()
    t[L.G_SEASON] = 2
    t.set_entrance("duke", "marquis")
    t.to_exit("prince")  # no third season
    assert t.evening() is False
    assert t[L.G_LAST_ROUND] == 1 and t[L.G_SEASON] == 2
    assert sum(c >= 0 for c in t.rooms()) == 2
    t.check()


@pytest.mark.parametrize("players,n", [(3, 3), (3, 5), (2, 2), (1, 1), (4, 7)])
def test_BI_E4_final_round_played_when_enough_travellers(players, n):
    """BI-E4: with at least as many travellers as players the last round is played
    normally even though the inn is not full."""
    t = Table(players).clear()
    t[L.G_SEASON] = 2
    t.set_entrance(*TRAVELLERS[:n])
    assert t.evening() is True
    assert t[L.G_LAST_ROUND] == 1
    assert sum(c >= 0 for c in t.rooms()) == n < len(t.open_rooms())
    t.check()


def test_BI_E4_an_inn_filled_exactly_is_not_yet_the_end():
    """BI-E4: the Entrance "runs out" when a card must be drawn from it; filling the inn with
    the last card plays a normal round, and the next evening ends the game."""
    t = Table(2).clear()
    t[L.G_SEASON] = 2
    t.set_entrance(*TRAVELLERS[:5])
    assert t.evening() is True and t[L.G_LAST_ROUND] == 0
    t.travellers_leave()
    assert t.evening() is False and t[L.G_LAST_ROUND] == 1


def test_BI_E4_skipped_final_round_in_whole_games():
    """BI-E4 through whole games (event log): when the trigger round is not played there is
    no night action after it, the game goes straight to the end (travellers discarded,
    final investigation) and the round is not counted; when it is played, it has its night."""
    res = simulate(
        {"game": "bloody_inn", "players": 4, "rules": {"length": "short"}}, games=400, seed=11, events=True
    )
    ev = pl.from_arrow(res.events)
    games = pl.from_arrow(res.games)
    last = ev.filter(pl.col("kind") == "last_round")
    assert last.height == 400  # every game ends by BI-E4 here
    skipped = last.filter(pl.col("b") == 0)["game_id"].to_list()
    played = last.filter(pl.col("b") == 1)["game_id"].to_list()
    assert skipped and played
    assert (last.filter(pl.col("b") == 0)["a"] < 4).all()
    assert (last.filter(pl.col("b") == 1)["a"] >= 4).all()
    night = ("bribe", "build", "kill", "bury", "launder", "passing")
    for gid in skipped[:60] + played[:60]:
        g = ev.filter(pl.col("game_id") == gid)
        kinds = g["kind"].to_list()
        i = kinds.index("last_round")
        after = kinds[i + 1 :]
        n_rounds = kinds.count("round")
        rounds = games.filter(pl.col("game_id") == gid)["rounds"][0]
        if gid in skipped:
            assert not any(k in night for k in after)
            assert after[0] in ("discard", "final_investigation", "end_bonus", "score")
            assert rounds == n_rounds - 1
            assert after.count("discard") == g["a"][i]
        else:
            assert sum(k in night for k in after) >= 2 * 4
            assert rounds == n_rounds
