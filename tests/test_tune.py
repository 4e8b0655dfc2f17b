"""``sim tune``: the cross-entropy search improves a deliberately bad starting point, is
reproducible, writes a parameter file a run config can name, and refuses bad input with one
line."""

from __future__ import annotations

import json

import pytest
import tomllib
from typer.testing import CliRunner

from sim import api
from sim import tune as tuner
from sim.cli import app
from sim.errors import ConfigError

SOLO = {"game": "bloody_inn", "players": 1, "rules": {"length": "short"}}

# a plausible-looking but bad policy: cards hoarded at any price, corpses worth nothing,
# burial places worth nothing
BAD = {
    "card_value": 5.5,
    "corpse_value": 0.05,
    "capacity_value": 0.0,
    "kill_bias": -8.0,
    "build_bias": -8.0,
    "hand_target": 12.0,
    "wage_cost": 0.0,
}


def _bad_start(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('strategy = "heuristic"\n[params]\n' + "".join(f"{k} = {v}\n" for k, v in BAD.items()))
    return path


def test_wilson_interval():
    lo, hi = tuner.wilson(50, 100)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.192, abs=0.005)
    assert tuner.wilson(0, 10)[0] == 0.0 and tuner.wilson(10, 10)[1] == pytest.approx(1.0)


def test_tuner_improves_a_bad_start(tmp_path):
    res = tuner.tune(
        SOLO,
        "heuristic",
        [],
        generations=4,
        population=8,
        games=250,
        seed=3,
        start=_bad_start(tmp_path),
        validation_games=1500,
    )
    v, s = res.validation, res.start_validation
    assert s.games == v.games == 1500
    assert v.lo > s.hi, (v, s)  # better on the same fresh games, CIs apart
    assert len(res.history) == 4
    for gen in res.history:  # each generation: best with its 95% CI
        assert gen.best.lo <= gen.best.value <= gen.best.hi
        assert gen.best.value >= gen.mean_eval.value
    # every value inside the parameter's search range
    from kernels.bloody_inn.strat_heuristic import BOUNDS

    for k, x in res.params.items():
        assert BOUNDS[k][0] <= x <= BOUNDS[k][1]


def test_tuner_is_reproducible_and_uses_common_random_numbers():
    kw = dict(generations=2, population=3, games=60, seed=5, validation_games=60)
    a = tuner.tune(SOLO, "heuristic", [], **kw)
    b = tuner.tune(SOLO, "heuristic", [], **kw)
    assert a.params == b.params and a.validation == b.validation
    assert [g.best_params for g in a.history] == [g.best_params for g in b.history]
    c = tuner.tune(SOLO, "heuristic", [], **{**kw, "seed": 6})
    assert c.params != a.params
    # common random numbers: the generation's mean candidate is the start the first time,
    # replayed on that generation's seed; the same candidate on the same seed scores the same
    ev = tuner._Evaluator(SOLO, api.resolve(SOLO), "heuristic", [], "score")
    x = ev.run(a.history[0].mean_params, a.history[0].seed, 60)
    assert x.value == a.history[0].mean_eval.value


def test_only_and_two_player_win_share():
    res = tuner.tune(
        {"game": "bloody_inn", "players": 2},
        "heuristic",
        ["random"],
        generations=1,
        population=3,
        games=100,
        seed=1,
        only=["kill_bias"],
        validation_games=100,
    )
    from kernels.bloody_inn.strat_heuristic import PARAMS

    defaults = {n: d for n, d, _ in PARAMS}
    changed = {k for k in res.params if res.params[k] != pytest.approx(defaults[k], abs=1e-3)}
    assert changed <= {"kill_bias"}
    assert res.settings["objective"] == "win" and res.settings["lineup"] == ["heuristic", "random"]
    assert 0.0 <= res.validation.lo <= res.validation.value <= res.validation.hi <= 1.0


def test_cli_writes_a_file_a_config_can_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "solo.toml"
    cfg.write_text('game = "bloody_inn"\nplayers = 1\n[rules]\nlength = "short"\n')
    out = tmp_path / "best.toml"
    r = CliRunner().invoke(
        app,
        [
            "tune",
            str(cfg),
            "--strategy",
            "heuristic",
            "--generations",
            "1",
            "--population",
            "3",
            "--games",
            "50",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)
    data = tomllib.loads(out.read_text())
    assert data["strategy"] == "heuristic" and data["params"] == summary["params"]
    assert data["tune"]["generation"][0]["best_ci"][0] <= data["tune"]["generation"][0]["best"]
    # a seat names the file; inline params override it
    run = {
        "game": "bloody_inn",
        "players": 2,
        "games": 5,
        "seed": 1,
        "seats": [
            {"strategy": "heuristic", "params_file": str(out), "params": {"kill_bias": 1.25}},
            {"strategy": "random"},
        ],
    }
    seat0 = api.resolve(run)["seats"][0]["params"]
    assert seat0["kill_bias"] == 1.25
    assert all(seat0[k] == v for k, v in data["params"].items() if k != "kill_bias")
    api.simulate(run)
    # the checked-in expert file resolves from the project root
    run["seats"][0] = {"strategy": "expert", "params_file": "configs/bloody_inn/strategies/expert.toml"}
    assert api.resolve(run)["seats"][0]["strategy"] == "expert"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--strategy", "nope"], "strategy"),
        (["--against", "random"], "--against"),
        (["--generations", "0"], "--generations"),
        (["--objective", "fun"], "--objective"),
        (["--only", "speed"], "--only"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, args, needle):
    cfg = tmp_path / "solo.toml"
    cfg.write_text('game = "bloody_inn"\nplayers = 1\n')
    r = CliRunner().invoke(
        app,
        ["tune", str(cfg), "--games", "10", "--population", "3", "--out", str(tmp_path / "x.toml"), *args],
    )
    assert r.exit_code == 2
    assert needle in r.output and "Traceback" not in r.output


def test_params_file_errors_name_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('strategy = "greedy"\n[params]\ncard_value = 1.0\n')
    run = {"game": "bloody_inn", "players": 1, "seats": [{"strategy": "heuristic", "params_file": str(bad)}]}
    with pytest.raises(ConfigError, match="params_file"):
        api.resolve(run)
    run["seats"][0]["params_file"] = str(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="params_file"):
        api.resolve(run)
    bad.write_text('strategy = "heuristic"\n[params]\nwarp = 9.0\n')
    run["seats"][0]["params_file"] = str(bad)
    with pytest.raises(ConfigError, match="warp"):
        api.resolve(run)
