"""Sweeps: grid validation before running, seeds, one dataset per point, points.parquet."""

from __future__ import annotations

import json

import fake_adapter
import polars as pl
import pytest

from sim import dataset, registry, sweep
from sim.errors import ConfigError, SimError

BASE = (
    'game = "fakegame"\nplayers = 3\ngames = 600\nseed = 42\n[rules]\ndeck_size = 30\n'
    '[[seats]]\nstrategy = "random"\n'
)


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "base.toml").write_text(BASE)
    (tmp_path / "sweeps").mkdir()

    def write(text, name="s.toml"):
        p = tmp_path / "sweeps" / name
        p.write_text(text)
        return p

    return write


GRID = 'base = "../runs/base.toml"\n[grid]\nplayers = [2, 3]\n"rules.deck_size" = [20, 40]\n'


def test_load_sweep_resolves_every_point(files):
    points = sweep.load_sweep(files(GRID))
    assert len(points) == 4
    names = [n for n, _ in points]
    assert names[0] == "p000_players=2_rules.deck_size=20" and len(set(names)) == 4
    got = [(r["players"], r["rules"]["deck_size"]) for _, r in points]
    assert got == [(2, 20), (2, 40), (3, 20), (3, 40)]
    # common random numbers: every point keeps the base seed
    assert {r["seed"] for _, r in points} == {42}
    assert all(len(r["seats"]) == r["players"] for _, r in points)


def test_grid_can_vary_seed_and_override_games(files):
    pts = sweep.load_sweep(files('base = "../runs/base.toml"\ngames = 50\n[grid]\nseed = [1, 2]\n'))
    assert [r["seed"] for _, r in pts] == [1, 2] and {r["games"] for _, r in pts} == {50}


def test_per_seat_key_expands_a_one_entry_lineup(files):
    pts = sweep.load_sweep(
        files('base = "../runs/base.toml"\n[grid]\n"seats.1.strategy" = ["greedy"]\nplayers = [2, 3]\n')
    )
    for _, r in pts:
        assert [s["strategy"] for s in r["seats"]] == ["random", "greedy"] + ["random"] * (r["players"] - 2)


def test_every_invalid_point_is_reported_before_running(files, tmp_path):
    p = files('base = "../runs/base.toml"\n[grid]\nplayers = [2, 9]\n"rules.deck_size" = [5, 40]\n')
    with pytest.raises(sweep.GridError) as err:
        sweep.run_sweep(p, tmp_path / "out")
    assert len(err.value.errors) == 3
    first = str(err.value.errors[0])
    assert "s.toml (grid point players=2, rules.deck_size=5" in first
    assert "rules.deck_size = 5 is invalid; allowed: an integer from 10 to 80" in first
    assert "(and 2 more invalid grid points)" in str(err.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, key",
    [
        ("[grid]\nplayers = [2]\n", "base"),
        ('base = "../runs/missing.toml"\n[grid]\nplayers = [2]\n', "base"),
        ('base = "../runs/base.toml"\n', "grid"),
        ('base = "../runs/base.toml"\n[grid]\nplayers = 2\n', "grid.players"),
        ('base = "../runs/base.toml"\n[grid]\nplayers = []\n', "grid.players"),
        ('base = "../runs/base.toml"\n[grid]\nplayers = [2, 2]\n', "grid.players"),
        ('base = "../runs/base.toml"\n[grid]\ngame = ["cluedo"]\n', "grid.game"),
        ('base = "../runs/base.toml"\n[grid]\n"seats.7.strategy" = ["greedy"]\n', "grid.seats.7.strategy"),
        ('base = "../runs/base.toml"\ngames = 0\n[grid]\nplayers = [2]\n', "games"),
        ('base = "../runs/base.toml"\ncolour = 1\n[grid]\nplayers = [2]\n', "colour"),
    ],
)
def test_bad_sweep_keys(files, text, key):
    p = files(text)
    with pytest.raises(ConfigError) as err:
        sweep.load(p)
    errors = getattr(err.value, "errors", [err.value])
    assert errors[0].key == key
    assert str(p) in str(errors[0])


def test_run_sweep_writes_points_and_datasets(files, tmp_path, monkeypatch):
    p = files(GRID)
    out = sweep.run_sweep(p, tmp_path / "out", threads=1)
    pts = pl.read_parquet(out / "points.parquet")
    assert pts.columns[:5] == ["point", "config_id", "path", "games", "seed"]
    assert pts["players"].to_list() == [2, 2, 3, 3]
    assert pts["rules.deck_size"].to_list() == [20, 40, 20, 40]
    for row in pts.iter_rows(named=True):
        m = dataset.read_manifest(out / row["path"])
        assert m["status"] == "complete" and m["config_id"] == row["config_id"]
        g = pl.read_parquet(out / row["path"] / "games" / "*.parquet")
        assert g.height == 600 and g["players"].unique().to_list() == [row["players"]]
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["status"] == "complete" and len(meta["points"]) == 4
    # default output directory: results/<sweep file stem>/
    monkeypatch.chdir(tmp_path)
    assert sweep.run_sweep(p) == tmp_path.joinpath("results", "s").relative_to(tmp_path)


def test_sweep_refuses_overwrite_and_resumes(files, tmp_path):
    p = files(GRID)
    out = sweep.run_sweep(p, tmp_path / "out")
    with pytest.raises(SimError, match="already holds a complete sweep.*--resume.*--force"):
        sweep.run_sweep(p, out)
    # simulate a sweep killed in its third point: drop that point and mark the sweep running
    meta = json.loads((out / "sweep.json").read_text())
    meta["status"] = "running"
    (out / "sweep.json").write_text(json.dumps(meta))
    third = out / meta["points"][2]["point"]
    ref = dataset.read_table(third, "seats")
    dataset.clear_dataset(third)
    sweep.run_sweep(p, out, resume=True)
    assert dataset.read_table(third, "seats").equals(ref)
    other = files(GRID.replace("[20, 40]", "[20, 50]"), "s.toml")
    with pytest.raises(SimError, match="different sweep"):
        sweep.run_sweep(other, out, resume=True)
    sweep.run_sweep(other, out, force=True)
    assert pl.read_parquet(out / "points.parquet")["rules.deck_size"].to_list() == [20, 50, 20, 50]


def test_common_random_numbers_across_points(files, tmp_path):
    """Points that differ only in a parameter the fake game ignores give identical games."""
    p = files('base = "../runs/base.toml"\n[grid]\n"seats.0.params.aggression" = [0.1, 0.9]\n')
    out = sweep.run_sweep(p, tmp_path / "crn")
    a, b = sorted(d for d in out.iterdir() if d.is_dir())
    ga, gb = dataset.read_table(a), dataset.read_table(b)
    assert ga.column("config_id") != gb.column("config_id")
    assert ga.drop_columns(["config_id"]).equals(gb.drop_columns(["config_id"]))


@pytest.mark.parametrize(
    "kw, key",
    [({"threads": 0}, "threads"), ({"chunk_games": -1}, "chunk-games"), ({"backend": "nope"}, "backend")],
)
def test_bad_options_fail_before_writing(files, tmp_path, kw, key):
    with pytest.raises(ConfigError) as err:
        sweep.run_sweep(files(GRID), tmp_path / "out", **kw)
    assert err.value.key == key
    assert not (tmp_path / "out").exists()


def test_max_games_plays_the_first_games_of_every_point(files, tmp_path):
    """--max-games caps each point; the capped point's games are the full point's first games
    (every game draws from its own (seed, game id) stream), so a quick look previews the full run."""
    p = files(GRID)
    full = sweep.run_sweep(p, tmp_path / "full", threads=1)
    quick = sweep.run_sweep(p, tmp_path / "quick", threads=1, max_games=70)
    for point in pl.read_parquet(quick / "points.parquet")["path"]:
        g = pl.read_parquet(quick / point / "games" / "*.parquet").sort("game_id")
        assert g.height == 70 and dataset.read_manifest(quick / point)["games"] == 70
        first = pl.read_parquet(full / point / "games" / "*.parquet").sort("game_id").head(70)
        assert g.equals(first)
    # a cap above a point's games leaves it as it is
    same = sweep.run_sweep(p, tmp_path / "same", threads=1, max_games=10_000)
    assert dataset.read_manifest(same / pl.read_parquet(same / "points.parquet")["path"][0])["games"] == 600


@pytest.mark.parametrize("bad", [0, -3, True, 2.5])
def test_a_bad_max_games_is_one_line_and_writes_nothing(files, tmp_path, bad):
    with pytest.raises(ConfigError, match="--max-games = .* is invalid; allowed: a positive integer"):
        sweep.run_sweep(files(GRID), tmp_path / "out", max_games=bad)
    assert not (tmp_path / "out").exists()
