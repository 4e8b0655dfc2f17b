"""The ``variants`` question: the points of a sweep over a lineup entry's strategy or
parameters, compared game by game (analysis/questions/variants.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from typer.testing import CliRunner

from analysis.dataset import Dataset, open_dataset
from analysis.metrics import run_question
from analysis.questions.variants import Q, is_variant_sweep
from sim.cli import app

KEY = "seats.0.params.nerve"


def _dataset(wins_by_point, seeds=None, key=KEY, values=None, extra=None):
    """A 2-player sweep in memory: at point k, lineup entry 0 wins game g when
    ``wins_by_point[k][g]`` (entry 1 wins the others); every point on seed 7 unless
    ``seeds`` says otherwise; ``key`` takes ``values[k]`` (default k) and each swept key of
    ``extra`` (key -> values per point) its own."""
    n = len(wins_by_point)
    seeds = seeds or [7] * n
    values = values or [float(k) for k in range(n)]
    extra = extra or {}
    points = pl.DataFrame({"point": [f"p{k}" for k in range(n)], key: values, **extra})
    rows = []
    for k, wins in enumerate(wins_by_point):
        for g, w in enumerate(wins):
            for entry, won in ((0, int(w)), (1, 1 - int(w))):
                rows.append(
                    {
                        "point": f"p{k}",
                        key: values[k],
                        **{x: v[k] for x, v in extra.items()},
                        "game_id": g,
                        "players": 2,
                        "seat": entry,
                        "lineup": entry,
                        "win": float(won),
                    }
                )
    seats = pl.DataFrame(rows).lazy()
    games = seats.filter(pl.col("lineup") == 0).select("point", key, "game_id", "players")
    manifests = {f"p{k}": {"resolved": {"game": "fake", "seed": seeds[k]}} for k in range(n)}
    return Dataset(Path("."), "sweep", "fake", manifests, points, [key, *extra], games, seats)


def test_a_change_in_a_few_games_is_found_with_a_narrow_paired_interval():
    """A variant that wins 100 of 1,000 games the baseline lost, every other game alike (as
    a changed parameter that alters few games under common random numbers): +10 pts, its
    paired interval clear of 0 and much narrower than independent runs would give."""
    rng = np.random.default_rng(3)
    base = rng.random(1000) < 0.4
    variant = base.copy()
    variant[np.flatnonzero(~base)[:100]] = True
    table = run_question(_dataset([base, variant]), "variants")["paired_variants"]
    r = table.row(0, named=True)
    assert r["units"] == 1000 and r["differing_units"] == 100
    assert abs(r["difference"] - 0.10) < 1e-12
    assert 0.0 < r["difference_lo"] < 0.10 < r["difference_hi"]
    assert r["games_factor"] > 3.0


def test_independent_results_get_no_saving_from_the_pairing():
    """Results drawn independently at the two points share nothing game by game: the paired
    interval is no narrower than the unpaired one (games_factor about 1) and a 40% share
    against a 40% share is not told apart."""
    rng = np.random.default_rng(4)
    a, b = rng.random(4000) < 0.4, rng.random(4000) < 0.4
    r = run_question(_dataset([a, b]), "variants")["paired_variants"].row(0, named=True)
    assert 0.85 < r["games_factor"] < 1.15
    assert r["difference_lo"] < 0.0 < r["difference_hi"]


def test_only_sweeps_over_a_seat_on_one_seed_are_compared():
    rng = np.random.default_rng(5)
    w = rng.random(50) < 0.5
    assert is_variant_sweep(_dataset([w, w]))
    assert not is_variant_sweep(_dataset([w, w], seeds=[7, 8]))  # no common random numbers
    assert not is_variant_sweep(_dataset([w, w], key="rules.deck_size"))  # not a seat
    assert run_question(_dataset([w, w], key="rules.deck_size"), "variants") == {}


def test_a_sweep_over_a_seats_strategy_end_to_end(tmp_path):
    """`sim sweep` over lineup entry 0's strategy (expert, then random) against `heuristic`,
    then `sim analyse -q variants`: random wins far less than expert on the same games."""
    (tmp_path / "base.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 300\nseed = 5\nrotate = true\n'
        '[[seats]]\nstrategy = "expert"\n[[seats]]\nstrategy = "heuristic"\n'
    )
    (tmp_path / "s.toml").write_text(
        'base = "base.toml"\n[grid]\n"seats.0.strategy" = ["expert", "random"]\n'
    )
    runner = CliRunner()
    res = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "sw")])
    assert res.exit_code == 0, res.output
    r = run_question(open_dataset(tmp_path / "sw"), "variants")["paired_variants"].row(0, named=True)
    assert (r["variant"], r["baseline"]) == ("strategy=random", "strategy=expert")
    assert r["units"] == 300 and r["difference_hi"] < 0.0
    res = runner.invoke(app, ["analyse", str(tmp_path / "sw"), "--question", "variants"])
    assert res.exit_code == 0 and "lineup entry 0 with strategy=random against strategy=expert" in res.output
    res = runner.invoke(app, ["report", str(tmp_path / "sw")])
    assert res.exit_code == 0, res.output
    verdicts = (tmp_path / "sw" / "report.md").read_text().split("## Answers")[0]
    assert "strategy=random - strategy=expert, 2 players" in verdicts and "below 0" in verdicts


def test_another_swept_key_keeps_its_cells_apart():
    """Swept over the entry's parameter and a rule: each rule value is its own comparison,
    against the first point of that cell, and its sentence names the cell."""
    rng = np.random.default_rng(7)
    base = rng.random(400) < 0.4
    better = base | (rng.random(400) < 0.5)
    ds = _dataset(
        [base, better, base, base],
        values=[0.0, 1.0, 0.0, 1.0],
        extra={"rules.deck_size": [20, 20, 40, 40]},
    )
    results = run_question(ds, "variants")
    rows = results["paired_variants"].sort("rules.deck_size").rows(named=True)
    assert [(r["rules.deck_size"], r["differing_units"] > 0) for r in rows] == [(20, True), (40, False)]
    lines = Q.headlines(ds, results)
    assert lines[0].startswith("2 players, rules.deck_size=20: lineup entry 0 with params.nerve=1.0")
    assert lines[1].startswith("2 players, rules.deck_size=40:")


def test_a_self_play_sweep_has_no_variant_to_compare():
    """With one lineup entry at every seat, the entry's share is the fair share whatever its
    parameters do: nothing to compare (no table, rather than a difference of 0)."""
    rng = np.random.default_rng(6)
    ds = _dataset([rng.random(50) < 0.5, rng.random(50) < 0.5])
    ds.seats = ds.seats.with_columns(pl.lit(0).alias("lineup"))
    assert run_question(ds, "variants") == {}
