"""`sim replay DIR`: the referee over a dataset on disk (exit 0 clean, 1 divergent, 2 misuse)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim import dataset as sim_dataset
from sim.cli import app

CONFIG = """
game = "bloody_inn"
players = 2
games = 300
seed = 4
[rules]
length = "short"
[[seats]]
strategy = "greedy"
[[seats]]
strategy = "random"
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("replay")
    (root / "cfg.toml").write_text(CONFIG)
    out = root / "ds"
    res = CliRunner().invoke(
        app,
        [
            "run",
            str(root / "cfg.toml"),
            "--out",
            str(out),
            "--events",
            "--chunk-games",
            "120",
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    return out


def test_clean_dataset_replays(dataset):
    res = CliRunner().invoke(app, ["replay", str(dataset), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "replayed 300 games" in res.output and "no divergence" in res.output


def test_games_option_and_json(dataset):
    res = CliRunner().invoke(app, ["replay", str(dataset), "--games", "150", "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["games"] == 150 and report["divergent_games"] == 0
    assert report["events"] > 150 * 100 and report["events_per_s"] > 0


def test_corrupted_dataset_fails_with_the_rule(dataset, tmp_path):
    """A wage paid by cheque (BI-M3) in one game of the second chunk: exit 1, one game."""
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(dataset, bad)
    part = sorted((bad / "events").glob("part-*.parquet"))[1]
    ev = pq.read_table(part)
    kind = np.array(ev.column("kind").to_pylist(), dtype=object)
    wages = np.flatnonzero(
        (kind == "wages") & (ev.column("a").to_numpy() > 0) & (ev.column("cheques").to_numpy() > 0)
    )
    row = int(wages[0])
    cash = ev.column("cash").to_numpy().copy()
    cheques = ev.column("cheques").to_numpy().copy()
    cash[row] += ev.column("a").to_numpy()[row]
    cheques[row] -= 1
    for name, values in (("cash", cash), ("cheques", cheques)):
        i = ev.schema.get_field_index(name)
        ev = ev.set_column(i, name, pa.array(values, type=ev.schema.field(name).type))
    pq.write_table(ev, part)
    # a log that is wrong as written (as a simulator bug would write it), not a damaged file:
    # the manifest records the file as it is, so the read verification passes it to the referee
    man = json.loads((bad / "manifest.json").read_text())
    for c in man["chunks"]:
        info = c["files"].get("events")
        if info and info["path"] == f"events/{part.name}":
            info.update(bytes=part.stat().st_size, sha256=sim_dataset.sha256_file(part))
    (bad / "manifest.json").write_text(json.dumps(man))
    game = int(ev.column("game_id")[row].as_py())
    res = CliRunner().invoke(app, ["replay", str(bad), "--no-progress"])
    assert res.exit_code == 1, res.output
    assert f"{bad}: game {game}: BI-M3" in res.output
    assert "1 divergent games" in res.output


def test_not_a_dataset_or_no_events(tmp_path):
    res = CliRunner().invoke(app, ["replay", str(tmp_path)])
    assert res.exit_code == 2 and "not a dataset" in res.output
    (tmp_path / "cfg.toml").write_text(CONFIG.replace("games = 300", "games = 5"))
    out = tmp_path / "plain"
    CliRunner().invoke(app, ["run", str(tmp_path / "cfg.toml"), "--out", str(out), "--no-progress"])
    res = CliRunner().invoke(app, ["replay", str(out)])
    assert res.exit_code == 2 and "--events" in res.output
    res = CliRunner().invoke(app, ["replay", str(out), "--games", "0"])
    assert res.exit_code == 2 and "--games" in res.output


def test_sweep_directory(tmp_path):
    """A sweep directory: every grid point's dataset is replayed and summed."""
    (tmp_path / "base.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 40\nseed = 4\n[[seats]]\nstrategy = "greedy"\n'
    )
    (tmp_path / "sweep.toml").write_text('base = "base.toml"\n[grid]\nplayers = [1, 3]\n')
    out = tmp_path / "sw"
    res = CliRunner().invoke(
        app, ["sweep", str(tmp_path / "sweep.toml"), "--out", str(out), "--events", "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["replay", str(out), "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["games"] == 80 and len(report["datasets"]) == 2
