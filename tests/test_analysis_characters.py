"""The characters question (advantage by character / start square) on data with a known
answer, and on a real Cluedo run through the CLI."""

import json

import numpy as np
import polars as pl
import pytest
from synthetic_data import bloody_inn_config, bloody_inn_tables, write_run
from typer.testing import CliRunner

from analysis.dataset import open_dataset
from analysis.metrics import run_question
from analysis.questions.characters import chi2_homogeneity
from sim.cli import app

NAMES = ["Green", "Mustard", "Orchid", "Peacock", "Plum", "Scarlett"]


def _with_characters(tmp_path, favourite, games=6000, players=3, seed=3):
    """Characters drawn at random per game (distinct at a table); the winner is drawn with
    weight 3 for ``favourite`` (None: every seat alike), who also reaches a room sooner."""
    rng = np.random.default_rng(seed)
    chars = np.array([rng.permutation(len(NAMES))[:players] for _ in range(games)])
    weights = np.where(chars == (NAMES.index(favourite) if favourite else -1), 3.0, 1.0)
    winners = np.array([rng.choice(players, p=w / w.sum()) for w in weights])
    g, s = bloody_inn_tables(games, players, seed=seed, winners=winners)
    flat = chars.reshape(-1)  # seats rows are game-major, seat-minor
    first_room = np.where(np.array(NAMES)[flat] == favourite, 2, 3 + rng.integers(0, 2, flat.size))
    first_room[::7] = -1  # some seats never reach a room
    s = s.with_columns(
        pl.Series("character", np.array(NAMES)[flat]),
        pl.Series("first_room_turn", first_room.astype(np.int16)),
    )
    return open_dataset(write_run(tmp_path / "run", g, s, bloody_inn_config(players, games=games)))


def test_a_favoured_character_is_found(tmp_path):
    res = run_question(_with_characters(tmp_path, "Plum"), "characters")
    share = res["character_win_share"]
    assert share["character"].to_list() == NAMES
    assert share["games"].sum() == 6000 * 3
    plum = share.filter(pl.col("character") == "Plum").row(0, named=True)
    others = share.filter(pl.col("character") != "Plum")
    assert plum["share_lo"] > others["share_hi"].max()
    # the shares are exact counts: wins / games of that character
    assert plum["share"] == pytest.approx(plum["wins"] / plum["games"])
    assert res["character_equality"]["p_value"][0] < 1e-6
    assert res["character_equality"]["df"][0] == 5
    rooms = res["character_first_room"]
    fast = rooms.sort("mean_turn").row(0, named=True)
    assert fast["character"] == "Plum" and fast["mean_turn"] == pytest.approx(2.0)
    assert rooms["never"].min() > 0.1  # every 7th seat never reached a room
    assert all(2.9 < m < 4.1 for m in rooms.filter(pl.col("character") != "Plum")["mean_turn"])


def test_equal_characters_are_not_flagged(tmp_path):
    res = run_question(_with_characters(tmp_path, None), "characters")
    assert res["character_equality"]["p_value"][0] > 0.01
    share = res["character_win_share"]
    assert share["gap"].abs().max() < 0.03  # about 3,000 games per character


def test_chi2_homogeneity_by_hand():
    # rate 0.15; expected wins 15 / 15, non-wins 85 / 85
    stat, df, p = chi2_homogeneity([10, 20], [100, 100])
    assert stat == pytest.approx(2 * 25 / 15 + 2 * 25 / 85)
    assert df == 1 and p == pytest.approx(0.0477, abs=5e-4)
    assert np.isnan(chi2_homogeneity([0, 0], [10, 10])[2])  # nobody ever wins


def test_games_without_characters_skip_the_question(tmp_path):
    g, s = bloody_inn_tables(300, 2, seed=1)
    ds = open_dataset(write_run(tmp_path / "run", g, s, bloody_inn_config(2, games=300)))
    assert run_question(ds, "characters") == {}


def test_a_cluedo_run_answers_it_through_the_cli(tmp_path):
    cli = CliRunner()
    out = tmp_path / "run"
    r = cli.invoke(
        app, ["run", "configs/cluedo/logic-4p.toml", "--games", "3000", "--out", str(out), "--no-progress"]
    )
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["analyse", str(out), "--question", "characters", "--json"])
    assert r.exit_code == 0, r.output
    q = json.loads(r.stdout)["questions"]["characters"]
    shares = q["tables"]["character_win_share"]["rows"]
    assert sorted(row["character"] for row in shares) == sorted(
        pl.read_parquet(out / "seats" / "*.parquet").get_column("character").unique().to_list()
    )
    assert sum(row["games"] for row in shares) == 3000 * 4
    games = pl.read_parquet(out / "games" / "*.parquet")
    won = games.filter(pl.col("n_winners") > 0).height
    assert sum(row["wins"] for row in shares) == pytest.approx(won)
    assert q["headlines"] and "character win shares run from" in q["headlines"][0]
