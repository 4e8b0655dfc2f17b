"""The meta-game (sim meta): Nash averaging and alpha-Rank on payoff tables whose answer is
known, a real round-robin on duplicate deals, and bad meta configs.

Known answers: rock-paper-scissors has the unique equilibrium (1/3, 1/3, 1/3) and every
strategy the same rating; a copy of rock added splits rock's mass between the copies
(Nash averaging's invariance to redundant strategies, Balduzzi et al. 2018, section 4); a
strictly dominant strategy is the whole support; alpha-Rank puts all its mass on a strategy
that beats every other at large alpha and spreads it evenly over a symmetric cycle.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis import meta
from analysis.questions.meta import dominance
from sim.cli import app

RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])


def test_rock_paper_scissors_has_the_uniform_equilibrium_and_equal_ratings():
    p, r = meta.nash_average(RPS)
    assert np.allclose(p, 1 / 3, atol=1e-6)
    assert np.allclose(r, r[0], atol=1e-6)


def test_rock_paper_scissors_from_win_shares():
    # rock beats scissors 80% of the games, scissors paper, paper rock
    P = 0.5 + 0.3 * RPS
    p, r = meta.nash_average(meta.antisymmetric(P))
    assert np.allclose(p, 1 / 3, atol=1e-6)
    assert np.allclose(r, 0.0, atol=1e-6)


def test_a_copy_of_rock_splits_rocks_mass():
    # rock, paper, scissors, rock again: the max-entropy equilibrium is (1/6, 1/3, 1/3, 1/6)
    A = np.zeros((4, 4))
    A[:3, :3] = RPS
    A[3, :3], A[:3, 3] = RPS[0], RPS[:, 0]
    p, r = meta.nash_average(A)
    assert np.allclose(p, [1 / 6, 1 / 3, 1 / 3, 1 / 6], atol=1e-5)
    assert np.allclose(r, 0.0, atol=1e-6)


def test_a_dominant_strategy_is_the_whole_support():
    # strategy 1 beats 0 and 2; 0 beats 2
    P = np.array([[0.5, 0.3, 0.7], [0.7, 0.5, 0.9], [0.3, 0.1, 0.5]])
    p, r = meta.nash_average(meta.antisymmetric(P))
    assert np.allclose(p, [0, 1, 0], atol=1e-9)
    # the others' ratings are their win shares against strategy 1, minus 1/2
    assert np.allclose(r, [0.3 - 0.5, 0.0, 0.1 - 0.5], atol=1e-9)


def test_a_mixed_equilibrium_with_a_strategy_outside_the_support():
    # rock-paper-scissors plus a strategy that loses to all three
    A = np.zeros((4, 4))
    A[:3, :3] = RPS
    A[3, :3] = -0.5
    A[:3, 3] = 0.5
    p, r = meta.nash_average(A)
    assert np.allclose(p, [1 / 3, 1 / 3, 1 / 3, 0], atol=1e-6)
    assert r[3] == pytest.approx(-0.5, abs=1e-6)


def test_alpharank_on_a_cycle_and_a_dominant_strategy():
    assert np.allclose(meta.alpharank(0.5 + 0.3 * RPS), 1 / 3, atol=1e-9)
    P = np.array([[0.5, 0.3, 0.7], [0.7, 0.5, 0.9], [0.3, 0.1, 0.5]])
    pi = meta.alpharank(P)
    assert pi[1] > 0.999
    # a weak selection spreads the mass: alpha -> 0 is a neutral drift over the strategies
    assert np.allclose(meta.alpharank(P, alpha=1e-9), 1 / 3, atol=1e-6)


@pytest.mark.parametrize("local", [True, False])
def test_hand_alpharank_agrees_with_openspiel(local):
    osp = pytest.importorskip("open_spiel.python.egt.alpharank")
    rng = np.random.default_rng(7)
    for n in (2, 3, 5):
        M = rng.uniform(0, 1, (n, n))
        for alpha, m in ((0.5, 10), (10.0, 20), (100.0, 50)):
            mine = meta.alpharank(M, alpha=alpha, m=m, local=local)
            _, _, theirs, _, _ = osp.compute([M], m=m, alpha=alpha, use_local_selection_model=local)
            assert np.allclose(mine, theirs, atol=1e-8), (n, alpha, m, mine, theirs)


def test_dominant_only_when_every_interval_clears_the_fair_share():
    rows = [
        # a beats b and c, its interval against c touches 1/2: not dominant
        ("a", "b", 0.70, 0.65),
        ("a", "c", 0.56, 0.49),
        ("b", "a", 0.30, 0.25),
        ("b", "c", 0.40, 0.35),
        ("c", "a", 0.44, 0.38),
        ("c", "b", 0.60, 0.55),
    ]
    t = pl.DataFrame([{"players": 2, "row": r, "col": c, "share": s, "share_lo": lo} for r, c, s, lo in rows])
    assert dominance(t, 2) == ([], ["a"])
    t2 = t.with_columns(
        pl.when((pl.col("row") == "a") & (pl.col("col") == "c"))
        .then(0.51)
        .otherwise(pl.col("share_lo"))
        .alias("share_lo")
    )
    assert dominance(t2, 2) == (["a"], [])


# --- a real round-robin ------------------------------------------------------------------


META = """\
game = "bloody_inn"
players = 2
games = 200
seed = 11
[rules]
length = "long"
[[strategies]]
name = "random"
strategy = "random"
[[strategies]]
name = "greedy"
strategy = "greedy"
"""


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_a_tiny_bloody_inn_round_robin_gives_a_payoff_table_with_intervals(cli, tmp_path):
    import json

    (tmp_path / "m.toml").write_text(META)
    res = cli("meta", "m.toml", "--out", "out", "--json", "--no-report", "--no-progress")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    table = {(r["row"], r["col"]): r for r in payload["tables"]["payoff_table"]}
    assert set(table) == {("random", "greedy"), ("greedy", "random")}
    for r in table.values():
        assert r["deals"] == 100 and r["games"] == 200  # 200 games = 100 deals x 2 seat orders
        assert 0.0 <= r["share_lo"] < r["share"] < r["share_hi"] <= 1.0 or r["share"] in (0.0, 1.0)
        assert r["share_hi"] - r["share_lo"] > 0.0
    # every game has a winner (BI-V9 breaks ties by sharing): the two shares are complements
    s = table[("random", "greedy")]["share"] + table[("greedy", "random")]["share"]
    assert s == pytest.approx(1.0, abs=1e-9)
    ratings = {r["strategy"]: r for r in payload["tables"]["meta_ratings"]}
    assert set(ratings) == {"random", "greedy"}
    assert math.isclose(sum(r["nash_mass"] for r in ratings.values()), 1.0)
    assert payload["tables"]["skill_share"][0]["cells"] == 2
    # the dataset is a sweep over the pairings, with a manifest per pairing
    assert (tmp_path / "out" / "sweep.json").is_file()
    assert len(list((tmp_path / "out").glob("p*/manifest.json"))) == 1


GOOD = 'game = "bloody_inn"\nplayers = 2\ngames = 10\n'
TWO = '[[strategies]]\nname = "a"\nstrategy = "random"\n[[strategies]]\nname = "b"\nstrategy = "greedy"\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD + TWO + "colour = 1\n", "colour = 1 is invalid; allowed: one of the keys"),
        ('game = "chess"\nplayers = 2\ngames = 10\n' + TWO, "game = 'chess' is invalid"),
        ('game = "bloody_inn"\nplayers = 5\ngames = 10\n' + TWO, "players = 5 is invalid"),
        ('game = "bloody_inn"\nplayers = 2\n' + TWO, "games is missing"),
        (GOOD + '[[strategies]]\nname = "a"\nstrategy = "random"\n', "strategies = "),
        (GOOD + TWO.replace('"b"', '"a"'), "strategies.1.name = 'a' is invalid; allowed: a name no other"),
        (GOOD + TWO.replace('"greedy"', '"grredy"'), "strategies.1.strategy = 'grredy' is invalid"),
        (
            GOOD + TWO + "params = { nonsense = 1.0 }\n",
            "strategies.1.params.nonsense = 1.0 is invalid; allowed: one of the keys",
        ),
        (GOOD + TWO.replace('name = "a"', 'name = "a b"'), "strategies.0.name = 'a b' is invalid"),
        (GOOD + TWO + "colour = 2\n", "strategies.1.colour = 2 is invalid"),
    ],
)
def test_bad_meta_configs_give_one_line_naming_the_key(cli, tmp_path, text, expected):
    (tmp_path / "bad.toml").write_text(text)
    res = cli("meta", "bad.toml", "--out", "out")
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: bad.toml: "), lines[0]
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


def test_the_shipped_meta_configs_resolve():
    from sim import meta as sim_meta
    from sim.config import data_dir

    for name in ("bloody_inn-2p", "bloody_inn-2p-search", "bloody_inn-3p", "cluedo-2p", "cluedo-3p"):
        plan = sim_meta.plan(data_dir() / "meta" / f"{name}.toml")
        k = len(plan.names)
        assert len(plan.pairings) == (k * (k - 1) // 2 if plan.players == 2 else k * (k - 1))
        for _row, _col, resolved in plan.pairings:
            assert resolved["rotate"] == "duplicate"
            assert resolved["games"] % plan.players == 0


def test_a_three_player_round_robin_puts_one_deviator_in_a_field(tmp_path):
    """Each ordered pair is a pairing with lineup [row, col, col] on duplicate deals; greedy
    alone among random players wins far more than 1/3 (+50 pts in docs/meta.md) and random
    alone among greedy players far less."""
    from analysis.dataset import open_dataset
    from analysis.metrics import run_question
    from sim import meta as sim_meta
    from sim import sweep as sweeps

    (tmp_path / "m3.toml").write_text(
        META.replace("players = 2", "players = 3").replace("games = 200", "games = 60")
    )
    plan = sim_meta.plan(tmp_path / "m3.toml")
    assert [(r, c) for r, c, _ in plan.pairings] == [("random", "greedy"), ("greedy", "random")]
    assert [s["strategy"] for s in plan.pairings[1][2]["seats"]] == ["greedy", "random", "random"]
    sweeps.run_sweep(sim_meta.as_sweep(plan), tmp_path / "out")
    table = run_question(open_dataset(tmp_path / "out"), "meta")["payoff_table"]
    rows = {(r["row"], r["col"]): r for r in table.iter_rows(named=True)}
    assert set(rows) == {("random", "greedy"), ("greedy", "random")}
    assert rows[("greedy", "random")]["deals"] == 20
    assert rows[("greedy", "random")]["gain_lo"] > 0 > rows[("random", "greedy")]["gain_hi"]
    for r in rows.values():
        assert r["gain"] == pytest.approx(r["share"] - 1 / 3)
        assert r["share_lo"] <= r["share"] <= r["share_hi"]
