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


def _inn_with_one_empty_room(players=2, empty=4, rules=None):
    t = Table(players, rules=rules, events=True).clear()
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
    """BI-E2 with BI-N8 (and BI-V12 ``any``, so two tokens share a room): both owners'
    tokens pay; the gain stops at 40."""
    t = _inn_with_one_empty_room(3, empty=5, rules={"room_service_per_room": "any"})
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


def _fill_exactly(season_change):
    """Two players (5 open rooms), 5 cards left in the Entrance, 6 in the Exit: the last
    card drawn fills the inn exactly (as every standard deck does at the end of season 1)."""
    t = Table(2, rules={"season_change": season_change}, events=True).clear()
    guests = t.set_entrance(*TRAVELLERS[:5])
    old_exit = t.to_exit("duke", "prince", "marquis", "bishop", "grocer", "brewer")
    t.log_events()
    return t, guests, old_exit


def test_BI_E3_the_last_card_filling_the_inn_shuffles_the_exit_that_evening():
    """BI-E3: the Exit becomes the new Entrance in the Evening the last card is drawn, even
    when that card fills the inn; the round's survivors then leave in the Morning to the
    new (empty) Exit, not into the season-2 Entrance."""
    t, guests, old_exit = _fill_exactly("when_empty")
    assert t.evening() is True and t[L.G_LAST_ROUND] == 0
    assert t[L.G_SEASON] == 2 and sorted(t.entrance()) == sorted(old_exit) and t.exit() == []
    kinds = [e["kind"] for e in t.events()]
    assert kinds == ["place"] * 5 + ["season"] * 6  # right after the last card is placed
    t.travellers_leave()
    assert sorted(t.exit()) == sorted(guests)  # the survivors: the new Exit
    assert sorted(t.entrance()) == sorted(old_exit)
    t.check()


def test_BI_V11_on_next_draw_waits_for_the_next_evening():
    """BI-V11 ``season_change = on_next_draw``: an Entrance that empties exactly as the inn
    fills changes season only at the next Evening's first draw, so the survivors of that
    round join the season-2 Entrance."""
    t, guests, old_exit = _fill_exactly("on_next_draw")
    assert t.evening()
    assert t[L.G_SEASON] == 1 and t.entrance() == [] and len(t.exit()) == 6
    assert "season" not in [e["kind"] for e in t.events()]
    t.travellers_leave()  # the 5 travellers go to the Exit
    assert t.evening()
    assert t[L.G_SEASON] == 2 and t.exit() == []
    assert len(t.entrance()) == 11 - 5 and set(guests) & set(t.entrance() + [c for c in t.rooms() if c >= 0])
    t.check()


def test_BI_E3_and_BI_V11_agree_when_the_entrance_runs_out_mid_placement():
    """BI-E3 / BI-V11: when the last card is drawn with rooms still empty, both readings
    shuffle at once and go on placing from the new Entrance: same cards, same rooms, same
    new Entrance."""
    seen = []
    for season_change in ("when_empty", "on_next_draw"):
        t = Table(2, rules={"season_change": season_change}, events=True, game_id=3).clear()
        old = t.set_entrance("marquis", "duke")
        t.to_exit(*TRAVELLERS[:10])
        t.log_events()
        assert t.evening() and t[L.G_SEASON] == 2
        placed = _placements(t)
        assert [c for c, _, _ in placed[:2]] == old and len(placed) == 5
        seen.append((placed, t.entrance()))
        t.check()
    assert seen[0] == seen[1]


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


@pytest.mark.parametrize("season_change", ["when_empty", "on_next_draw"])
def test_BI_E4_an_inn_filled_exactly_is_not_yet_the_end(season_change):
    """BI-E4 (with either BI-E3 timing, BI-V11): the Entrance "runs out" the second time
    when a card must be drawn from it; filling the inn with the last card plays a normal
    round, and the next evening ends the game."""
    t = Table(2, rules={"season_change": season_change}).clear()
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


@pytest.mark.parametrize("season_change", ["when_empty", "on_next_draw"])
def test_BI_E3_BI_V11_BI_E4_season_timing_in_whole_games(season_change):
    """BI-E3 / BI-V11 / BI-E4 through whole games with the official decks (a multiple of the
    open rooms): ``when_empty`` shuffles right after the last season-1 card is placed, so
    the new Entrance holds none of that round's travellers; ``on_next_draw`` shuffles at
    the start of the next Evening, and the new Entrance holds the previous round's
    survivors.  Either way the game ends on the second run-out (BI-E4), the trigger round
    played only with at least as many travellers as players."""
    res = simulate(
        {
            "game": "bloody_inn",
            "players": 3,
            "seats": [{"strategy": "greedy"}],
            "rules": {"season_change": season_change},
        },
        games=60,
        seed=4,
        events=True,
    )
    ev = pl.from_arrow(res.events)
    for gid in range(60):
        rows = ev.filter(pl.col("game_id") == gid).to_dicts()
        kinds = [e["kind"] for e in rows]
        first = kinds.index("season")
        rnd = rows[first]["round"]
        placed_now = {e["card"] for e in rows if e["kind"] == "place" and e["round"] == rnd}
        left_before = {e["card"] for e in rows if e["kind"] == "to_exit" and e["round"] == rnd - 1}
        new_entrance = {e["card"] for e in rows if e["kind"] == "season"}
        if season_change == "when_empty":
            assert [k for k in kinds[:first] if k != "room_service"][-1] == "place"
            assert len(placed_now) == 6
            assert not placed_now & new_entrance
        else:
            assert kinds[first - 1] == "round" and left_before <= new_entrance
        last = [e for e in rows if e["kind"] == "last_round"]
        assert len(last) == 1 and last[0]["b"] == int(last[0]["a"] >= 3)
    assert (pl.from_arrow(res.games)["seasons_played"] == 2).all()
