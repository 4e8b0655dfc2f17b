"""Runs that stop when precise enough (``--precision``): the run stops at the first
chunk boundary where the 95% half-width of the key estimate is at most H (recomputed here
from the rows), the same whatever the thread count; a sweep stops each point on its own."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from scipy.optimize import brentq
from typer.testing import CliRunner

from sim import runner
from sim import sweep as sweeps
from sim.cli import app
from sim.errors import ConfigError

CHUNK = 250


def config(players=2, games=20_000, rotate=True, seats=({"strategy": "random"},)):
    return {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": 9,
        "rotate": rotate,
        "seats": list(seats),
    }


def wilson_half_width(wins):
    """Half the width of the score interval: the win shares q with |mean - q| <= 1.96
    sqrt(q (1 - q) / n_eff), n_eff = units x mean (1 - mean) / variance (at least the units) (a shared win
    counts 1/k, so the variance is below the Bernoulli one); roots found by brentq."""
    wins = np.asarray(wins, dtype=float)
    m, n = wins.mean(), wins.size
    n_eff = max(n, n * m * (1 - m) / wins.var(ddof=1))  # never below the units

    def gap(q):
        return abs(m - q) - 1.959963984540054 * math.sqrt(q * (1 - q) / n_eff)

    return (brentq(gap, m, 1 - 1e-12) - brentq(gap, 1e-12, m)) / 2


def seat0_wins(out):
    seats = pl.read_parquet(out / "seats" / "*.parquet")
    return seats.filter(pl.col("seat") == 0).sort("game_id")["win"].to_numpy()


def test_precision_stops_where_the_interval_says(tmp_path):
    target = 0.04
    man = runner.run_dataset(config(), tmp_path / "a", chunk_games=CHUNK, precision=target, threads=1)
    n = man["games_done"]
    assert man["games"] == n < 20_000 and n % CHUNK == 0
    stop = man["stop"]
    assert stop["precision_met"] and stop["on"] == "seat0" and stop["games"] == n
    w = seat0_wins(tmp_path / "a")
    assert len(w) == n
    # at the stopping boundary the half-width is within the target, one chunk earlier not
    assert wilson_half_width(w) <= target
    assert wilson_half_width(w[: n - CHUNK]) > target
    assert stop["half_width"] == pytest.approx(wilson_half_width(w))
    assert stop["estimate"] == pytest.approx(w.mean())
    # the same stop and the same bytes on two threads
    man2 = runner.run_dataset(config(), tmp_path / "b", chunk_games=CHUNK, precision=target, threads=2)
    assert man2["games_done"] == n
    assert [c["files"]["seats"]["sha256"] for c in man2["chunks"]] == [
        c["files"]["seats"]["sha256"] for c in man["chunks"]
    ]


def test_precision_caps_at_games_and_says_so(tmp_path):
    man = runner.run_dataset(config(games=1000), tmp_path / "c", chunk_games=CHUNK, precision=0.001)
    assert man["games_done"] == 1000
    assert not man["stop"]["precision_met"] and "games cap reached" in man["stop"]["reason"]


def test_precision_on_duplicate_deals_counts_deals(tmp_path):
    man = runner.run_dataset(
        # a mixed lineup: with one strategy everywhere the rotations of a deal are the same game
        config(
            players=3, rotate="duplicate", seats=[{"strategy": s} for s in ("random", "greedy", "random")]
        ),
        tmp_path / "d",
        chunk_games=300,
        precision=0.05,
        precision_on="entry1",
    )
    stop = man["stop"]
    assert stop["unit"] == "deal" and stop["units"] == man["games_done"] // 3
    seats = pl.read_parquet(tmp_path / "d" / "seats" / "*.parquet").filter(pl.col("lineup") == 1)
    per_deal = seats.group_by(pl.col("game_id") // 3).agg(pl.col("win").mean())["win"].to_numpy()
    assert stop["half_width"] == pytest.approx(wilson_half_width(per_deal)) and stop["half_width"] <= 0.05


def test_a_sweep_stops_each_point_on_its_own(tmp_path):
    base = tmp_path / "base.toml"
    base.write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 20000\nseed = 9\n[[seats]]\nstrategy = "random"\n'
    )
    sw = tmp_path / "sw.toml"
    sw.write_text('base = "base.toml"\n[grid]\nplayers = [2, 4]\n')
    out = sweeps.run_sweep(sw, tmp_path / "sw", chunk_games=CHUNK, precision=0.04)
    done = {}
    for p in sweeps.load(sw).points:
        m = json.loads((out / p.name / "manifest.json").read_text())
        assert m["stop"]["precision_met"]
        done[p.values["players"]] = m["games_done"]
    # a 4-player first seat wins ~1/4 of games: a smaller variance, fewer games to the target
    assert done[4] < done[2]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--precision", "-1"], "--precision"),
        (["--precision", "0.01", "--precision-on", "seat7"], "--precision-on"),
    ],
)
def test_bad_precision_options_are_one_line(tmp_path, args, fragment):
    cfg = tmp_path / "r.toml"
    cfg.write_text('game = "bloody_inn"\nplayers = 2\ngames = 100\n')
    r = CliRunner().invoke(app, ["run", str(cfg), "--out", str(tmp_path / "o"), *args])
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and fragment in lines[0], r.output
    assert not (tmp_path / "o").exists()


def test_precision_on_must_name_an_estimate():
    with pytest.raises(ConfigError, match="seat0"):
        runner.run_dataset(config(), "/tmp/never-written", precision=0.01, precision_on="score")
