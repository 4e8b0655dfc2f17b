"""The CLI end to end with The Bloody Inn, through real subprocesses (and Typer's runner for
the many bad-input cases): runs, sweeps, kill -9 and resume, determinism across --threads and
--chunk-games, refusal to overwrite, datasets in Polars and PyArrow, shipped example configs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim import dataset
from sim.cli import app

ROOT = Path(__file__).resolve().parent.parent
LONG3 = ROOT / "configs" / "bloody_inn" / "long-3p.toml"
SIM = (
    [sys.executable, "-m", "sim.cli"]
    if not Path(sys.executable).with_name("sim").exists()
    else [str(Path(sys.executable).with_name("sim"))]
)


def sim(*args, cwd):
    res = subprocess.run(SIM + [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900)
    return res.returncode, res.stdout, res.stderr


def tables(out, names=("games", "seats")):
    return {n: dataset.read_table(out, n) for n in names}


def test_run_writes_a_dataset_polars_and_pyarrow_read(tmp_path):
    code, out, err = sim(
        "run", LONG3, "--games", 1500, "--chunk-games", 600, "--out", "ds", "--json", cwd=tmp_path
    )
    assert code == 0, err
    s = json.loads(out)
    assert s["game"] == "bloody_inn" and s["games"] == 1500 and s["chunks"] == 3
    ds = tmp_path / "ds"
    m = dataset.read_manifest(ds)
    assert m["status"] == "complete" and m["resolved"]["players"] == 3
    assert m["source"] == str(LONG3)
    g = pl.read_parquet(ds / "games" / "*.parquet")
    assert g.columns[:8] == [
        "game_id",
        "config_id",
        "players",
        "rounds",
        "turns",
        "winner",
        "n_winners",
        "truncated",
    ]
    assert g["game_id"].to_list() == list(range(1500))
    assert g["config_id"].unique().to_list() == [m["config_id"]]
    seats = pq.read_table(ds / "seats")
    assert seats.num_rows == 4500
    assert seats.schema.names[:7] == ["game_id", "config_id", "seat", "strategy", "score", "place", "win"]
    wins = pl.from_arrow(seats).group_by("game_id").agg(pl.col("win").sum())
    assert wins["win"].round(4).unique().to_list() in ([1.0], [0.0, 1.0])
    # refusal to overwrite, then --force
    code, _, err = sim("run", LONG3, "--games", 1500, "--out", "ds", cwd=tmp_path)
    assert code == 2 and err.startswith("error: ds already holds a complete dataset")
    assert "Traceback" not in err


def test_same_data_whatever_threads_and_chunk_games(tmp_path):
    a = ("run", LONG3, "--games", 1200, "--seed", 11, "--events")
    assert sim(*a, "--threads", 1, "--chunk-games", 1200, "--out", "a", cwd=tmp_path)[0] == 0
    assert sim(*a, "--threads", 2, "--chunk-games", 250, "--out", "b", cwd=tmp_path)[0] == 0
    ta = tables(tmp_path / "a", ("games", "seats", "events"))
    tb = tables(tmp_path / "b", ("games", "seats", "events"))
    for name in ta:
        assert ta[name].num_rows > 0
        assert ta[name].equals(tb[name]), name
    assert sim(*a[:-1], "--seed", 12, "--out", "c", cwd=tmp_path)[0] == 0
    assert not tables(tmp_path / "c")["seats"].equals(ta["seats"])


def test_kill_9_then_resume_is_identical(tmp_path):
    # 100 chunks: even a fast machine is still early in the run when it is killed
    args = ["run", LONG3, "--games", 40_000, "--chunk-games", 400, "--threads", 1]
    assert sim(*args, "--out", "full", cwd=tmp_path)[0] == 0
    p = subprocess.Popen(
        SIM + [str(a) for a in args] + ["--out", "cut"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    t0 = time.time()
    while time.time() - t0 < 600:
        mf = tmp_path / "cut" / "manifest.json"
        if mf.exists() and len(dataset.read_manifest(tmp_path / "cut")["chunks"]) >= 2:
            break
        assert p.poll() is None, p.communicate()
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    m = dataset.read_manifest(tmp_path / "cut")
    assert m["status"] == "running" and 2 <= len(m["chunks"]) < 100
    code, _, err = sim(*args, "--out", "cut", cwd=tmp_path)
    assert code == 2 and "unfinished dataset" in err
    code, out, err = sim(*args, "--out", "cut", "--resume", cwd=tmp_path)
    assert code == 0, err
    assert "the rest resumed" in out
    full, cut = tables(tmp_path / "full"), tables(tmp_path / "cut")
    for name in full:
        assert cut[name].equals(full[name]), name
    shas = [[f["sha256"] for f in c["files"].values()] for c in m["chunks"]]
    done = dataset.read_manifest(tmp_path / "cut")
    assert [[f["sha256"] for f in c["files"].values()] for c in done["chunks"][: len(shas)]] == shas


def test_sweep_over_players_deck_size_and_a_seat(tmp_path):
    (tmp_path / "s.toml").write_text(
        f'base = "{LONG3}"\ngames = 150\n[grid]\nplayers = [2, 4]\n'
        '"rules.deck_size" = [20, 40]\n"seats.1.strategy" = ["greedy"]\n'
    )
    code, out, err = sim("sweep", "s.toml", "--json", cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["points"] == 4
    root = tmp_path / "results" / "s"
    pts = pl.read_parquet(root / "points.parquet")
    assert pts.select("players", "rules.deck_size").rows() == [(2, 20), (2, 40), (4, 20), (4, 40)]
    assert pts["seed"].unique().to_list() == [1]  # common random numbers
    for row in pts.iter_rows(named=True):
        g = pl.read_parquet(root / row["path"] / "games" / "*.parquet")
        assert g.height == 150
        assert g["players"].unique().to_list() == [row["players"]]
        assert g["deck_size"].unique().to_list() == [row["rules.deck_size"]]
        s = pl.read_parquet(root / row["path"] / "seats" / "*.parquet")
        assert sorted(s["strategy"].unique().to_list()) == ["greedy", "random"]
        assert s.filter(pl.col("strategy") == "greedy").height == 150  # one greedy seat a game
    code, _, err = sim("sweep", "s.toml", cwd=tmp_path)
    assert code == 2 and "already holds a complete sweep" in err


GOOD = 'game = "bloody_inn"\nplayers = 3\ngames = 10\nseed = 1\n'


@pytest.mark.parametrize(
    "text, fragments",
    [
        (GOOD.replace("players = 3", "players = 5"), ["players = 5", "1 to 4"]),
        (GOOD + '[rules]\nlength = "medium"\n', ["rules.length = 'medium'", "'long'"]),
        (GOOD + "[rules]\ndeck_size = 71\n", ["rules.deck_size = 71", "1 to 70"]),
        (GOOD + "[rules]\nwhite_keys = 9\n", ["rules.white_keys = 9"]),
        (GOOD + "[rules]\nseasons = 3\n", ["rules.seasons = 3"]),
        (GOOD + "[rules]\nfast = true\n", ["rules.fast", "deck_size"]),
        (GOOD + '[[seats]]\nstrategy = "psychic"\n', ["seats.0.strategy = 'psychic'", "greedy"]),
        (
            GOOD + '[[seats]]\nstrategy = "greedy"\nparams = { nerve = 1.0 }\n',
            ["seats.0.params.nerve", "police_risk"],
        ),
        (GOOD + '[[seats]]\nstrategy = "greedy"\n[[seats]]\nstrategy = "random"\n', ["seats"]),
        (GOOD + "[cards.nobody]\nrank = 2\n", ["cards = 'nobody'", "a card id"]),
        (GOOD + "[cards.mechanic]\nrank = 7\n", ["cards.mechanic.rank = 7"]),
        (GOOD.replace("seed = 1", "seed = 1.5"), ["seed = 1.5"]),
        (GOOD + "[rules\n", ["invalid TOML", "line 5"]),
    ],
)
def test_bad_bloody_inn_configs(tmp_path, monkeypatch, text, fragments):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text(text)
    for cmd in ("run", "validate"):
        res = CliRunner().invoke(app, [cmd, "bad.toml"])
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: bad.toml")
        for f in fragments:
            assert f in lines[0], (f, lines[0])
    assert not (tmp_path / "results").exists()


def test_bad_sweep_point_is_refused_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(
        f'base = "{LONG3}"\n[grid]\nplayers = [2, 4]\n"rules.deck_size" = [30, 80]\n'
    )
    res = CliRunner().invoke(app, ["sweep", "s.toml"])
    assert res.exit_code == 2
    assert "grid point players=2, rules.deck_size=80" in res.stderr
    assert "rules.deck_size = 80 is invalid" in res.stderr and "1 more invalid" in res.stderr
    assert not (tmp_path / "results").exists()


EXAMPLES = sorted((ROOT / "configs" / "bloody_inn").glob("*.toml")) + sorted(
    (ROOT / "configs" / "sweeps").glob("bloody_inn*.toml")
)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_shipped_configs_validate(path):
    res = CliRunner().invoke(app, ["validate", str(path)])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("ok: ")


def test_deck_size_sweep_example_is_the_documented_grid():
    from sim.sweep import load

    sw = load(ROOT / "configs" / "sweeps" / "bloody_inn-deck-size.toml")
    assert len(sw.points) == 21
    # six round sizes and the official deck of each player count (BI-S2, long: 45, 54, 64)
    assert {(p.resolved["players"], p.resolved["rules"]["deck_size"]) for p in sw.points} == {
        (n, d) for n in (2, 3, 4) for d in (20, 30, 40, 50, 60, 70)
    } | {(2, 45), (3, 54), (4, 64)}
    assert {p.values["rules.deck_size"] for p in sw.points if p.resolved["players"] == 3} == {
        20,
        30,
        40,
        50,
        54,
        60,
        70,
    }
    assert {p.resolved["rules"]["length"] for p in sw.points} == {"long"}
