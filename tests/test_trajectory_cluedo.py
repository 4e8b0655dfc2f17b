"""Cluedo's trajectory table (``--trajectory``): one row per game, round and seat.

Checked against what the trajectory does not come from: the games table's rounds, the seats
table's cards known at the end, the rules' envelope (CL-S2: the true triple is never ruled
out) and the games and seats played without the table; and the rows are the same whatever
threads or chunking.
"""

from __future__ import annotations

import polars as pl
import pytest

from sim import api
from sim.games.cluedo import adapter as C

CONFIG = "configs/cluedo/logic-vs-naive-3p.toml"


@pytest.fixture(scope="module")
def played():
    return api.simulate(CONFIG, games=60, seed=3, threads=2, trajectory=True)


def _frames(r):
    return pl.from_arrow(r.trajectory), pl.from_arrow(r.games), pl.from_arrow(r.seats)


def test_one_row_per_round_and_seat(played):
    tr, games, _ = _frames(played)
    per_game = tr.group_by("game_id").agg(pl.len().alias("n"), pl.col("round").max().alias("last"))
    j = per_game.join(games.select("game_id", "rounds", "players"), on="game_id")
    assert j.height == games.height
    assert (j["n"] == j["rounds"].cast(pl.Int64) * j["players"].cast(pl.Int64)).all()
    assert (j["last"] == j["rounds"]).all()
    assert tr.sort("game_id", "round", "seat").equals(tr)


def test_the_play_is_the_same_with_and_without_the_table(played):
    plain = api.simulate(CONFIG, games=60, seed=3, threads=2)
    assert pl.from_arrow(plain.games).equals(pl.from_arrow(played.games))
    assert pl.from_arrow(plain.seats).equals(pl.from_arrow(played.seats))


def test_knowledge_at_the_end_matches_the_seats_table(played):
    tr, games, seats = _frames(played)
    last = (
        tr.join(games.select("game_id", "rounds"), on="game_id")
        .filter(pl.col("round") == pl.col("rounds"))
        .join(seats.select("game_id", "seat", "known_cards", "accused"), on=["game_id", "seat"])
    )
    assert last.height == seats.height
    assert (last["known"] == last["known_cards"]).all()
    # CL-T6: a wrong accusation puts the seat out; its score so far is 0 from then on
    wrong = last.filter(pl.col("accused") == 2)
    assert (wrong["active"] == 0).all() and (wrong["score"] == 0).all()
    right = last.filter(pl.col("active") == 1)
    assert (right["score"] == right["known"]).all()


def test_candidates_only_shrink_and_never_rule_out_the_envelope(played):
    """Knowledge only grows (CL-T5), so the envelope triples a seat has not ruled out never
    come back; the true triple is never ruled out (CL-S2), so at least one is left."""
    tr, _, _ = _frames(played)
    assert tr["candidates"].min() >= 1 and tr["candidates"].max() <= 6 * 6 * 9
    grew = (
        tr.sort("game_id", "seat", "round")
        .with_columns((pl.col("candidates").diff().over("game_id", "seat")).alias("d"))
        .filter(pl.col("d") > 0)
    )
    assert grew.height == 0
    assert tr["known"].min() >= 1  # a seat knows its own hand from the deal (CL-S2)


def test_rows_do_not_depend_on_threads_or_chunking():
    res = api.resolve(CONFIG, games=40, seed=5)
    one = C.run_arrays(res, 0, 40, threads=1, trajectory=True)[3]
    two = C.run_arrays(res, 0, 40, threads=2, trajectory=True)[3]
    a = C.run_arrays(res, 0, 17, threads=2, trajectory=True)[3]
    b = C.run_arrays(res, 17, 23, threads=2, trajectory=True)[3]
    for k in one:
        assert (one[k] == two[k]).all()
        assert (one[k] == list(a[k]) + list(b[k])).all()
