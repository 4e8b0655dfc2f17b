"""Causal power: the ``power`` question on synthetic data with a planted effect
and a null one, the ranking rule, and ``sim power`` end to end."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from synthetic_data import bloody_inn_config, bloody_inn_tables, write_sweep
from typer.testing import CliRunner

from analysis.dataset import open_dataset
from analysis.metrics import run_question
from analysis.questions.power import headlines, leaders
from sim.cli import app


def arm_tables(deals, entry0_win, seed):
    """Two-player duplicate deals: in deal d, game 2d has entry 0 at seat 0, game 2d+1 at
    seat 1; entry 0 wins each game with probability ``entry0_win``."""
    rng = np.random.default_rng(seed)
    n = 2 * deals
    gid = np.arange(n)
    entry0_seat = gid % 2  # rotate: lineup = (seat - gid % 2) % 2, so entry 0 sits at gid % 2
    wins0 = rng.random(n) < entry0_win
    winners = np.where(wins0, entry0_seat, 1 - entry0_seat)
    games, seats = bloody_inn_tables(n, 2, seed=seed, winners=winners, strategies=("expert",))
    games = games.with_columns(pl.Series("deal", gid // 2))
    return games, seats


def power_dir(tmp_path, deals=3000):
    cfg = bloody_inn_config(2, games=2 * deals, strategies=("expert",), rotate="duplicate")
    points = []
    for i, (arm, p, seed) in enumerate(
        [("baseline", 0.5, 1), ("card:grocer", 0.35, 2), ("card:marquis", 0.5, 3), ("action:kill", 0.2, 4)]
    ):
        g, s = arm_tables(deals, p, seed)
        points.append((f"p{i:03d}_arm={arm.replace(':', '-')}", {"arm": arm}, g, s, cfg))
    return write_sweep(tmp_path / "power", points)


def test_a_planted_effect_is_found_and_a_null_one_is_not(tmp_path):
    ds = open_dataset(power_dir(tmp_path))
    t = run_question(ds, "power")["causal_power"]
    rows = {r["target"]: r for r in t.iter_rows(named=True)}
    assert set(rows) == {"grocer", "marquis", "kill"}
    g, m, k = rows["grocer"], rows["marquis"], rows["kill"]
    # planted: entry 0 barred from the Grocery wins 35% instead of 50% -> power +15 pts
    assert g["power_lo"] > 0.10 and g["power_hi"] < 0.20
    assert g["power_lo"] <= 0.15 <= g["power_hi"]
    # null: barred from the Detached House it wins as often as unrestricted
    assert m["power_lo"] < 0 < m["power_hi"]
    assert k["power_lo"] <= 0.30 <= k["power_hi"]
    assert g["units"] == 3000  # paired over deals, not games
    for r in rows.values():
        assert r["power"] == pytest.approx(r["share_unrestricted"] - r["share_restricted"])
    text = " ".join(headlines(ds, results={"causal_power": t}))
    assert "Grocery has the largest causal power" in text  # the annex's name, not the card id
    assert "1 of 2 help" in text  # grocer helps, marquis is not told apart from 0
    assert "does murder pay?" in text and "murder pays" in text


def test_ranking_only_where_intervals_separate():
    rows = [
        {"target": "a", "power": 0.10, "power_lo": 0.08, "power_hi": 0.12},
        {"target": "b", "power": 0.09, "power_lo": 0.07, "power_hi": 0.11},
        {"target": "c", "power": 0.02, "power_lo": 0.01, "power_hi": 0.03},
    ]
    assert [r["target"] for r in leaders(rows)] == ["a", "b"]
    assert [r["target"] for r in leaders(rows[:1] + rows[2:])] == ["a"]


def test_sim_power_end_to_end(tmp_path):
    cfg = tmp_path / "p.toml"
    cfg.write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 600\nseed = 4\n[[seats]]\nstrategy = "random"\n'
    )
    out = tmp_path / "pw"
    r = CliRunner().invoke(
        app,
        ["power", str(cfg), "--cards", "grocer", "--actions", "--games", "601", "--out", str(out), "--json"],
    )
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["arms"] == 7 and res["games_per_arm"] == 602  # whole deals
    rows = {x["target"]: x for x in res["power"]}
    assert set(rows) == {"grocer", "bribe", "build", "kill", "bury", "launder"}
    assert all(x["units"] == 301 for x in rows.values())
    # the arms really were restricted: entry 0 never kills in the kill arm
    seats = pl.read_parquet(next((out / "p004_arm=action-kill" / "seats").glob("*.parquet")))
    assert seats.filter(pl.col("lineup") == 0)["kills"].sum() == 0
    assert seats.filter(pl.col("lineup") == 1)["kills"].sum() > 0
    man = json.loads((out / "p004_arm=action-kill" / "manifest.json").read_text())
    assert man["resolved"]["seats"][0]["restrict"] == {"actions": ["kill"]}
    assert man["resolved"]["rotate"] == "duplicate"
    assert any("causal power" in a for a in res["answers"])
    # the default report of a power dataset has the power section (and builds on every question)
    from analysis.report import report_for_dir

    rep = report_for_dir(out)
    assert "power" in [sec.question for sec in rep.sections]


def test_sim_power_of_a_game_without_restricted_play_is_one_line(tmp_path, monkeypatch):
    # the game's adapter says it has no restricted play (restrictions() is None)
    import fake_adapter

    from sim import registry

    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
    cfg = tmp_path / "c.toml"
    cfg.write_text('game = "fakegame"\nplayers = 3\n')
    r = CliRunner().invoke(app, ["power", str(cfg), "--actions", "--out", str(tmp_path / "o")])
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert "c.toml" in lines[0] and "'fakegame'" in lines[0] and "restricted play" in lines[0]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args, fragment",
    [(["--cards", "peacekeeper"], "--cards"), (["--cards", "grocer", "--games", "0"], "--games")],
)
def test_sim_power_bad_options_are_one_line(tmp_path, args, fragment):
    cfg = tmp_path / "p.toml"
    cfg.write_text('game = "bloody_inn"\nplayers = 2\n')
    r = CliRunner().invoke(app, ["power", str(cfg), *args, "--out", str(tmp_path / "o")])
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and fragment in lines[0], r.output


def test_exploitability_is_reported_for_a_field_of_one_recorded_strategy(tmp_path):
    from synthetic_data import write_run

    from analysis.questions.power import exploitability_file, exploitability_records

    recs = [
        r
        for r in exploitability_records(exploitability_file("bloody_inn"))
        if r["strategy"] == "expert" and r["players"] == 2
    ]
    rec = recs[0]
    g, s = bloody_inn_tables(200, 2, strategies=("expert",))
    ds = open_dataset(
        write_run(tmp_path / "field", g, s, bloody_inn_config(2, games=200, strategies=("expert",)))
    )
    res = run_question(ds, "exploitability")
    assert res["exploitability"]["gain"].to_list() == [r["gain"] for r in recs]
    from analysis.metrics import QUESTIONS

    assert f"{100 * rec['gain']:+.1f} pts" in QUESTIONS["exploitability"].headlines(ds, res)[0]
    g, s = bloody_inn_tables(200, 2, strategies=("expert", "greedy"))
    mixed = write_run(
        tmp_path / "mixed", g, s, bloody_inn_config(2, games=200, strategies=("expert", "greedy"))
    )
    assert run_question(open_dataset(mixed), "exploitability") == {}


def test_a_best_response_that_still_loses_is_reported_as_no_exploit(tmp_path):
    # the recorded tune against search found a response that still loses (gain < 0 with its
    # whole interval): the headline must not say it wins "above the fair share"
    from synthetic_data import write_run

    from analysis.metrics import QUESTIONS

    g, s = bloody_inn_tables(200, 2, strategies=("search",))
    ds = open_dataset(
        write_run(tmp_path / "f", g, s, bloody_inn_config(2, games=200, strategies=("search",)))
    )
    res = run_question(ds, "exploitability")
    rows = res["exploitability"].to_dicts()
    assert rows and all(r["gain_hi"] < 0 for r in rows)
    lines = QUESTIONS["exploitability"].headlines(ds, res)
    assert all(
        "short of the fair share" in x and "no exploit found" in x and "over the fair" not in x for x in lines
    )
    assert f"{-100 * rows[0]['gain']:.1f} pts short" in lines[0]
