"""The trajectory table (``--trajectory``): one row per game, round and seat.

Checked against sources the trajectory does not come from: the event log's cash and cheques
after each seat's last event of a round, the seats table's builds, the games table's rounds;
and the data is the same whatever threads, chunk size or arrays' first size.
"""

from __future__ import annotations

import json

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim import api, dataset, runner
from sim.cli import app
from sim.dataset import DatasetError
from sim.errors import ConfigError
from sim.games.bloody_inn import adapter as bloody_inn

EXPERT = "configs/bloody_inn/strategies/expert-3p.toml"


@pytest.fixture(scope="module")
def played():
    return api.simulate(EXPERT, games=60, seed=11, threads=2, trajectory=True, events=True)


def test_one_row_per_round_and_seat(played):
    tr = pl.from_arrow(played.trajectory)
    games = pl.from_arrow(played.games)
    assert tr.columns[:2] == ["game_id", "config_id"]
    per_game = tr.group_by("game_id").agg(pl.len().alias("n"), pl.col("round").max().alias("last"))
    joined = per_game.join(games.select("game_id", "rounds", "players"), on="game_id")
    assert joined.height == games.height
    assert (joined["n"] == joined["rounds"].cast(pl.Int64) * joined["players"].cast(pl.Int64)).all()
    assert (joined["last"] == joined["rounds"]).all()
    # the rows of a game are its rounds in order, the seats in order within a round
    assert tr.sort("game_id", "round", "seat").equals(tr)


def test_cash_and_cheques_match_the_event_log(played):
    """BI-G3 money after each round: the seat's cash and cheques after its last event of the
    round (the event log records the acting seat's money after every event)."""
    ev = pl.from_arrow(played.events).filter((pl.col("seat") >= 0) & (pl.col("phase") != "end"))
    last = (
        ev.sort("game_id", "seq")
        .group_by("game_id", "round", "seat")
        .agg(pl.col("cash").last().alias("ev_cash"), pl.col("cheques").last().alias("ev_cheques"))
    )
    tr = pl.from_arrow(played.trajectory)
    j = tr.join(last, on=["game_id", "round", "seat"], how="inner")
    assert j.height > 0.9 * tr.height  # nearly every seat acts in every round
    assert (j["cash"] == j["ev_cash"]).all()
    assert (j["cheques"] == j["ev_cheques"]).all()
    assert (tr["score"] == tr["cash"].cast(pl.Int32) + 10 * tr["cheques"].cast(pl.Int32)).all()


def test_annexes_of_the_last_round_are_the_seats_builds(played):
    tr = pl.from_arrow(played.trajectory)
    games = pl.from_arrow(played.games).select("game_id", "rounds")
    seats = pl.from_arrow(played.seats).select("game_id", "seat", "builds")
    last = tr.join(games, on="game_id").filter(pl.col("round") == pl.col("rounds"))
    j = last.join(seats, on=["game_id", "seat"])
    assert j.height == seats.height
    assert (j["annexes"] == j["builds"]).all()
    assert tr["hand"].min() >= 0


def test_games_and_seats_do_not_change_with_the_trajectory(played):
    plain = api.simulate(EXPERT, games=60, seed=11, threads=1)
    assert plain.trajectory is None
    assert plain.games.equals(played.games)
    assert plain.seats.equals(played.seats)


def test_arrays_too_small_at_first_give_the_same_rows(played, monkeypatch):
    monkeypatch.setattr(bloody_inn, "TRAJECTORY_ROUNDS", 1)  # every block retries
    again = api.simulate(EXPERT, games=60, seed=11, threads=2, trajectory=True)
    assert again.trajectory.equals(played.trajectory)


def _run(out, threads, chunk_games):
    return runner.run_dataset(
        EXPERT, out, games=90, seed=5, threads=threads, chunk_games=chunk_games, trajectory=True
    )


def test_files_identical_whatever_threads_and_chunk_size(tmp_path):
    m1 = _run(tmp_path / "t1", 1, 30)
    m2 = _run(tmp_path / "t2", 2, 30)
    _run(tmp_path / "t3", 2, 45)
    assert "trajectory" in m1["tables"] and m1["trajectory"] is True
    sha = [[c["files"]["trajectory"]["sha256"] for c in m["chunks"]] for m in (m1, m2)]
    assert sha[0] == sha[1]
    a = dataset.read_table(tmp_path / "t1", "trajectory")
    b = dataset.read_table(tmp_path / "t3", "trajectory")
    assert a.equals(b)
    assert a.num_rows == sum(c["files"]["trajectory"]["rows"] for c in m1["chunks"])


def test_a_damaged_trajectory_file_is_refused(tmp_path):
    out = tmp_path / "d"
    m = _run(out, 2, 90)
    path = out / m["chunks"][0]["files"]["trajectory"]["path"]
    table = pq.read_table(path)
    pq.write_table(table.slice(0, table.num_rows - 3), path)
    with pytest.raises(DatasetError):
        dataset.read_table(out, "trajectory")


def test_resume_needs_the_same_trajectory_setting(tmp_path):
    out = tmp_path / "r"
    _run(out, 2, 90)
    result = CliRunner().invoke(
        app, ["run", EXPERT, "--games", "90", "--seed", "5", "--out", str(out), "--resume"]
    )
    assert result.exit_code == 2
    assert "--trajectory" in result.output


def test_cli_writes_the_table(tmp_path):
    out = tmp_path / "c"
    result = CliRunner().invoke(
        app, ["run", EXPERT, "--games", "20", "--out", str(out), "--trajectory", "--json", "--threads", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "trajectory" in json.loads(result.output.strip().splitlines()[-1])["tables"]
    assert dataset.read_table(out, "trajectory").num_rows > 20 * 3


def test_a_game_without_trajectories_is_refused(monkeypatch):
    """A game whose adapter does not say it records trajectories (the fake game) is refused
    with one line naming --trajectory, before anything is played."""
    import fake_adapter

    from sim import registry

    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
    with pytest.raises(ConfigError, match="--trajectory.*not fakegame"):
        api.simulate({"game": fake_adapter.NAME, "players": 2, "games": 2, "seed": 1}, trajectory=True)


def test_the_trajectory_file_is_delta_encoded_and_reads_back_as_written(tmp_path):
    """Every integer column of a trajectory file is delta-encoded (dataset.DELTA_TABLES: the
    values step little from row to row, and dictionaries cost the write a fifth more), the
    string ``config_id`` keeps its dictionary, and the rows and types read back unchanged."""
    out = tmp_path / "d"
    runner.run_dataset(EXPERT, out, games=40, seed=3, trajectory=True)
    part = next((out / "trajectory").glob("part-*.parquet"))
    meta = pq.read_metadata(part).row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    for name in ("game_id", "round", "seat", "cash", "cheques", "score", "annexes", "hand"):
        assert "DELTA_BINARY_PACKED" in encodings[name], (name, encodings[name])
        assert "RLE_DICTIONARY" not in encodings[name], (name, encodings[name])
    assert "RLE_DICTIONARY" in encodings["config_id"]
    played = api.simulate(EXPERT, games=40, seed=3, trajectory=True).trajectory
    assert dataset.read_table(out, "trajectory").equals(played)
