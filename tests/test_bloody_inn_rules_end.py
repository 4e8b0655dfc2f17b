"""Bloody Inn rules BI-G (game end and scoring) and BI-X (solo)."""

import polars as pl
import pytest
from bloody_inn_harness import LOC, L, Table

from sim.api import simulate

# -- BI-G1 ------------------------------------------------------------------------------


def test_BI_G1_rooms_empty_to_the_exit_and_final_investigation_without_police():
    """BI-G1: travellers still in rooms go to the Exit, then an investigation happens at
    once regardless of police: 10 F per unburied corpse, corpses to the box (greedy pays the
    fine in cash when the split changes nothing, BI-M1)."""
    t = Table(2, events=True, seats="greedy").clear()
    guests = [t.to_room(0, "baron"), t.to_room(3, "duke")]
    body = t.to_corpse(1, "viscount")[0]
    t.set_money(1, cash=15, cheques=1)
    t.log_events()
    t.end_game()
    assert all(c < 0 for c in t.rooms()) and t.exit() == sorted(guests)
    assert t.loc(body) == LOC.box and (t.cash(1), t.cheques(1)) == (5, 1)
    fined = [e for e in t.events() if e["kind"] == "final_investigation"]
    assert [(e["seat"], e["a"], e["b"], e["c"]) for e in fined] == [(1, 1, 10, 0)]
    t.check()


def test_BI_G1_final_investigation_comes_before_the_greenhouse():
    """BI-G1 then BI-G2: the final fine takes a cheque before the Greenhouse counts them."""
    t = Table(2).clear()
    t.give_annex(0, "prince")
    t.to_corpse(0, "baron")
    t.set_money(0, cash=0, cheques=2)
    t.end_game()
    assert (t.cash(0), t.cheques(0)) == (3, 1)


# -- BI-G2 ------------------------------------------------------------------------------

COLOUR_ANNEX = {"red": "landscaper", "blue": "grocer", "purple": "bishop", "green": "duke"}
OF_COLOUR = {
    "red": ["cultivator", "mechanic", "distiller"],
    "blue": ["newsboy", "representative", "concierge"],
    "purple": ["novice", "monk", "abbot"],
    "green": ["baron", "viscount", "count"],
}


@pytest.mark.parametrize("colour", sorted(COLOUR_ANNEX))
def test_BI_G2_colour_annexes_pay_4_per_exit_card_of_their_colour(colour):
    """BI-G2: Park / Grocery / Bishopric / Stables pay 4 F per card of their colour in the
    Exit at the end — room travellers discarded by BI-G1 included, hands not."""
    t = Table(2).clear()
    t.give_annex(0, COLOUR_ANNEX[colour])
    kinds = OF_COLOUR[colour]
    t.to_exit(kinds[0], kinds[1], "peacekeeper", "brigadier")  # 2 of the colour + 2 grey
    t.to_room(2, kinds[2])  # goes to the Exit at the end
    t.to_hand(0, kinds[0])  # a hand card does not count
    t.set_money(0, cash=3, cheques=0)
    t.set_money(1, cash=3, cheques=0)
    t.end_game()
    assert t.cash(0) == 3 + 4 * 3 and t.cash(1) == 3
    t.check()


def test_BI_G2_greenhouse_pays_3_per_cheque():
    t = Table(2).clear()
    t.give_annex(1, "prince")
    t.set_money(1, cash=1, cheques=4)
    t.end_game()
    assert (t.cash(1), t.cheques(1)) == (13, 4)


def test_BI_G2_end_bonuses_respect_the_cap():
    """BI-G2: the end-of-game gains go to cash and respect the 40 cap (seed 002)."""
    t = Table(2).clear()
    t.give_annex(0, "prince")
    t.give_annex(0, "landscaper")
    t.to_exit("cultivator", "mechanic", "distiller")
    t.set_money(0, cash=30, cheques=3)
    t.end_game()
    assert (t.cash(0), t.cheques(0), t[L.P_SCORE]) == (40, 3, 70)


# -- BI-G3 ------------------------------------------------------------------------------


def _scored(cash, cheques, buried, rules=None):
    n = len(cash)
    t = Table(n, rules=rules).clear()
    for p in range(n):
        t.set_money(p, cash=cash[p], cheques=cheques[p])
        t[L.P_BURIED + p] = buried[p]
        t[L.P_BURIED_OWN + p] = buried[n - 1 - p]  # a different count (BI-V9)
    t.end_game()
    return (
        [t.p(L.P_SCORE, p) for p in range(n)],
        [t.p(L.P_PLACE, p) for p in range(n)],
        [t.p(L.P_WINNER, p) for p in range(n)],
    )


def test_BI_G3_score_is_cash_plus_ten_per_cheque_and_highest_wins():
    score, place, win = _scored([12, 40, 3], [2, 0, 4], [0, 0, 0])
    assert score == [32, 40, 43] and place == [3, 2, 1] and win == [0, 0, 1]


def test_BI_G3_tie_broken_by_corpses_buried_by_the_player():
    """BI-G3: equal scores: the player who buried more corpses wins."""
    score, place, win = _scored([20, 30, 10, 0], [1, 0, 2, 0], [1, 3, 2, 9])
    assert score == [30, 30, 30, 0]
    assert win == [0, 1, 0, 0] and place == [3, 1, 2, 4]


def test_BI_G3_remaining_tie_is_shared():
    """BI-G3: same score and same burials: the win is shared (both first)."""
    score, place, win = _scored([25, 25, 24], [1, 1, 1], [2, 2, 0])
    assert win == [1, 1, 0] and place == [1, 1, 3]
    res = simulate({"game": "bloody_inn", "players": 4}, games=3000, seed=3)
    seats = pl.from_arrow(res.seats)
    shared = seats.group_by("game_id").agg(
        (pl.col("win") > 0).sum().alias("w"), pl.col("win").sum().alias("share")
    )
    assert (shared["share"] - 1.0).abs().max() < 1e-6
    assert shared["w"].max() >= 2  # shared wins happen in real games


# -- BI-G4 ------------------------------------------------------------------------------


def test_BI_G4_a_game_over_the_round_cap_is_logged_truncated_and_still_scored():
    res = simulate(
        {"game": "bloody_inn", "players": 3, "rules": {"max_rounds": 2}}, games=50, seed=1, events=True
    )
    games = pl.from_arrow(res.games)
    assert games["truncated"].to_list() == [1] * 50 and games["rounds"].to_list() == [2] * 50
    assert games.height == 50  # never silently dropped
    ev = pl.from_arrow(res.events)
    assert ev.filter(pl.col("kind") == "truncated").height == 50
    assert ev.filter(pl.col("kind") == "score").height == 150
    seats = pl.from_arrow(res.seats)
    assert (seats["score"] == seats["cash"] + 10 * seats["cheques"]).all()
    full = simulate({"game": "bloody_inn", "players": 3}, games=200, seed=1)
    assert pl.from_arrow(full.games)["truncated"].sum() == 0


# -- BI-X -------------------------------------------------------------------------------


@pytest.mark.parametrize("length,deck", [("short", 36), ("long", 44)])
def test_BI_X1_solo_setup(length, deck):
    """BI-X1: one own key + 3 white keys (4 open rooms); 2 peasants in hand and 2 in the
    Bistro; 34 (short) / 26 (long) travellers removed."""
    t = Table(1, rules={"length": length})
    assert t.keys()[:4] == [0, L.WHITE, L.WHITE, L.WHITE] and len(t.open_rooms()) == 4
    assert len(t.hand(0)) == 2 and len(t.bistro()) == 2
    assert all(t.kind(c) == "peasant" for c in t.hand(0) + t.bistro())
    assert len(t.entrance()) == deck and 70 - deck == (34 if length == "short" else 26)
    t.check()


def test_BI_X2_solo_player_with_a_corpse_at_an_investigation_loses_at_once():
    """BI-X2: an unburied corpse during a (police) investigation loses the solo game at
    once: the morning stops, nothing is paid, the game is over and not won."""
    t = Table(1).clear()
    t.to_room(1, "brigadier")
    t.to_room(0, "baron")
    t.to_corpse(0, "count")
    t.set_money(0, cash=25, cheques=1)
    t.morning()
    assert t.p(L.P_SOLO_LOST, 0) == 1 and t[L.G_OVER] == 1
    assert (t.cash(0), t.cheques(0)) == (25, 1)  # no fine, no income
    t.end_game()
    assert t.p(L.P_WINNER, 0) == 0


def test_BI_X2_final_investigation_also_loses_the_solo_game():
    t = Table(1).clear()
    t.give_annex(0, "prince")
    t.to_corpse(0, "baron")
    t.set_money(0, cash=5, cheques=3)
    t.end_game()
    assert t.p(L.P_SOLO_LOST, 0) == 1 and t.p(L.P_WINNER, 0) == 0
    assert t.cash(0) == 5  # no end bonus once lost


def test_BI_X2_otherwise_the_score_is_the_result():
    t = Table(1).clear()
    t.give_annex(0, "prince")
    t.set_money(0, cash=5, cheques=3)
    t.to_room(1, "major")  # police but no corpse
    t.morning()
    t.end_game()
    assert t.p(L.P_SOLO_LOST, 0) == 0 and t.p(L.P_WINNER, 0) == 1
    assert t.p(L.P_SCORE, 0) == 5 + 9 + 30


def test_BI_X2_solo_results_in_whole_games():
    """BI-X2 in whole games: a lost solo game has win 0, any other win 1; fines never
    appear in solo (a corpse at an investigation ends the game instead)."""
    res = simulate(
        {"game": "bloody_inn", "players": 1, "seats": [{"strategy": "greedy"}]}, games=4000, seed=8
    )
    seats = pl.from_arrow(res.seats)
    assert (seats["win"] == 1 - seats["solo_lost"].cast(pl.Float32)).all()
    assert seats["solo_lost"].sum() > 0 and (seats["solo_lost"] == 0).sum() > 0
    assert seats["fines"].sum() == 0


def test_BI_X3_long_solo_rating_band():
    """BI-X3: the rating of a long solo game by its score (player aid): 110-129 worrying,
    130-149 hazardous, 150-169 evil, 170+ demonic; a caught player (BI-X2) has lost."""
    from sim.games.bloody_inn.adapter import solo_rating

    cases = {
        0: "below",
        109: "below",
        110: "worrying",
        129: "worrying",
        130: "hazardous",
        149: "hazardous",
        150: "evil",
        169: "evil",
        170: "demonic",
        400: "demonic",
    }
    for score, band in cases.items():
        assert solo_rating(score, False, "long") == band, score
    assert solo_rating(180, True, "long") == "lost"
    assert solo_rating(180, False, "short") is None  # the bands rate long games


def test_BI_X3_solo_rating_column_matches_scores():
    """BI-X3 in the seats table: every solo seat carries the band of its score, or "lost"."""
    from sim.games.bloody_inn.adapter import solo_rating

    res = simulate({"game": "bloody_inn", "players": 1, "seats": [{"strategy": "greedy"}]}, games=400, seed=5)
    seats = res.seats.to_pydict()
    assert "solo_rating" in seats
    for score, lost, band in zip(seats["score"], seats["solo_lost"], seats["solo_rating"]):
        assert band == solo_rating(score, bool(lost), "long")
    multi = simulate({"game": "bloody_inn", "players": 2}, games=10, seed=5)
    assert "solo_rating" not in multi.seats.column_names
