"""`sim replay DIR` on Cluedo datasets: the dispatch by the dataset's game, the same output
and --json shape as the Bloody Inn replay, exit 0 clean / 1 divergent / 2 misuse."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim import dataset as sim_dataset
from sim.cli import app
from sim.games.bloody_inn.referee import ReplayReport as BloodyInnReport

CONFIG = """
game = "cluedo"
players = 3
games = 200
seed = 4
[[seats]]
strategy = "logic"
[[seats]]
strategy = "naive"
[[seats]]
strategy = "naive"
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluedo_replay")
    (root / "cfg.toml").write_text(CONFIG)
    out = root / "ds"
    args = [
        "run",
        str(root / "cfg.toml"),
        "--out",
        str(out),
        "--events",
        "--chunk-games",
        "80",
        "--no-progress",
    ]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return out


def test_clean_dataset_replays(dataset):
    res = CliRunner().invoke(app, ["replay", str(dataset), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "replayed 200 games" in res.output and "no divergence" in res.output


def test_json_has_the_bloody_inn_shape(dataset):
    res = CliRunner().invoke(app, ["replay", str(dataset), "--games", "100", "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert set(report) == set(BloodyInnReport().to_dict())
    assert report["games"] == 100 and report["divergent_games"] == 0 and report["events"] > 100 * 30


def test_corrupted_dataset_fails_with_the_rule(dataset, tmp_path):
    """A shown card the shower does not hold (CL-T5) in one game of the second chunk: exit 1,
    the game and the rule printed, one divergent game."""
    bad = tmp_path / "bad"
    shutil.copytree(dataset, bad)
    part = sorted((bad / "events").glob("part-*.parquet"))[1]
    ev = pq.read_table(part)
    kind = np.array(ev.column("kind").to_pylist(), dtype=object)
    row = int(np.flatnonzero(kind == "show")[0])
    a = ev.column("a").to_numpy().copy()
    seat = int(ev.column("seat")[row].as_py())
    game = int(ev.column("game_id")[row].as_py())
    gid = ev.column("game_id").to_numpy()
    deal = (kind == "deal") & (gid == game) & (ev.column("seat").to_numpy() == seat)
    held = set(a[deal].tolist())
    a[row] = next(c for c in range(21) if c not in held)
    i = ev.schema.get_field_index("a")
    ev = ev.set_column(i, "a", pa.array(a, type=ev.schema.field("a").type))
    pq.write_table(ev, part)
    # a log that is wrong as written (as a simulator bug would write it), not a damaged file:
    # the manifest records the file as it is, so the read verification passes it to the referee
    man = json.loads((bad / "manifest.json").read_text())
    for c in man["chunks"]:
        info = c["files"].get("events")
        if info and info["path"] == f"events/{part.name}":
            info.update(bytes=part.stat().st_size, sha256=sim_dataset.sha256_file(part))
    (bad / "manifest.json").write_text(json.dumps(man))
    res = CliRunner().invoke(app, ["replay", str(bad), "--no-progress"])
    assert res.exit_code == 1, res.output
    assert f"{bad}: game {game}: CL-T5" in res.output
    assert "1 divergent games" in res.output


def test_unknown_game_is_one_line_exit_2(dataset, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(dataset, other)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["game"] = "chess"
    (other / "manifest.json").write_text(json.dumps(manifest))
    res = CliRunner().invoke(app, ["replay", str(other), "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "'chess'" in lines[0] and "bloody_inn, cluedo" in lines[0]


def test_cluedo_sweep_directory(tmp_path):
    """A sweep directory of Cluedo datasets: every grid point replayed by the Cluedo referee."""
    (tmp_path / "base.toml").write_text(
        'game = "cluedo"\nplayers = 3\ngames = 30\nseed = 4\n[[seats]]\nstrategy = "naive"\n'
    )
    (tmp_path / "sweep.toml").write_text(
        'base = "base.toml"\n[grid]\n"rules.move_steps" = ["exact", "up_to"]\n'
    )
    out = tmp_path / "sw"
    res = CliRunner().invoke(
        app, ["sweep", str(tmp_path / "sweep.toml"), "--out", str(out), "--events", "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["replay", str(out), "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["games"] == 60 and report["divergent_games"] == 0 and len(report["datasets"]) == 2
