"""``sim balance`` on a synthetic game whose fair rules are known by construction.

The game is the fake adapter's (``tests/fake_adapter.py``: scores hashed from the seed, the
game id and the seat, ``0 .. deck_size - 1``) with one rule added here: seat 0's score gets
``round((deck_size - 50) / 5)`` points, one fewer in a short game.  So seat 0 is as likely to
win as any other seat exactly when that bonus is 0 (deck size 48..52 in a long game, 53..57
in a short one), the official rules (deck 30, long) leave it a clear disadvantage, and the
one-change answer is a deck size of 48..52.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from fake_adapter import FakeAdapter, _hash
from typer.testing import CliRunner

from sim import balance as bal
from sim import balance_metrics as bm
from sim import registry
from sim.balance_spec import load_spec, parse_spec
from sim.cli import app
from sim.errors import ConfigError
from sim.registry import Chunk

NAME = "fakebalance"


def seat0_bonus(deck_size, length):
    return int(round((deck_size - 50) / 5)) - (1 if length == "short" else 0)


class BalanceFake(FakeAdapter):
    name = NAME

    def simulate_chunk(self, resolved, start, count, *, events):
        n, seed = resolved["players"], resolved["seed"]
        rules = resolved["rules"]
        ids = np.arange(start, start + count, dtype=np.int64)
        deck = rules["deck_size"]
        scores = np.stack([(_hash(seed, ids, 1 + s) % np.uint64(deck)).astype(np.int64) for s in range(n)], 1)
        scores[:, 0] += seat0_bonus(deck, rules["length"])
        best = scores.max(axis=1)
        is_best = scores == best[:, None]
        n_win = is_best.sum(axis=1)
        rounds = (5 + _hash(seed, ids, 0) % np.uint64(10)).astype(np.int16)
        games = pa.table({"game_id": ids, "players": np.full(count, n, np.int8), "rounds": rounds})
        win = np.where(is_best, 1.0 / n_win[:, None], 0.0).reshape(-1)
        seats = pa.table(
            {
                "game_id": np.repeat(ids, n),
                "seat": np.tile(np.arange(n, dtype=np.int8), count),
                "lineup": np.tile(np.arange(n, dtype=np.int8), count),
                "score": scores.reshape(-1),
                "win": win.astype(np.float32),
            }
        )
        return Chunk(games, seats, None)


ADAPTER = BalanceFake()


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, NAME, __name__)


def spec_dict(**over):
    d = {
        "game": NAME,
        "name": "fake-fair",
        "players": [2, 3],
        "strategy": "random",
        "edits": [
            {"key": "rules.deck_size", "range": [20, 80], "step": 1},
            {"key": "rules.length", "values": ["long", "short"]},
        ],
        "objectives": [{"metric": "first_player_gap", "players": [2, 3], "target": [-1.5, 1.5]}],
        "search": {"optimizer": "tpe", "seed": 3, "batch": 6, "budget_games": 400_000},
        "racing": {"rungs": [1000, 3000, 9000]},
        "confirm": {"games": 40_000, "candidates": 3},
    }
    d.update(over)
    return d


def test_official_rules_are_unfair_by_construction():
    spec = parse_spec(spec_dict())
    stats = bm.play_block(spec, spec.official(), ("self", 3, "random"), 0, 20_000, 1)
    m, lo, hi = bm.estimate(spec.objectives[0], 3, stats)
    assert hi < -3  # the bonus of -4 at deck 30 leaves seat 0 far behind


def test_search_finds_the_known_best_edit(tmp_path):
    spec = parse_spec(spec_dict())
    s = bal.Search(spec, out=tmp_path, progress=False).run()
    passed = [(c, ev) for c, ev in s.confirmation[1:] if ev["meets"]]
    assert passed, [(spec.describe(c.values), ev["rows"]) for c, ev in s.confirmation]
    c, ev = min(passed, key=lambda t: len(t[0].changes))
    # the fewest changes that can be fair: one, the deck size, at a value with no bonus
    assert c.changes == ["rules.deck_size"]
    assert seat0_bonus(c.values["rules.deck_size"], "long") == 0
    # the official rules fail their confirmation on the same fresh deals
    assert not s.confirmation[0][1]["meets"]
    # fresh deals: the confirmation seed is one the search never played
    seeds = {rec["seed"] for rec in s.store.blocks.values() if rec["phase"] == "search"}
    assert seeds == {spec.search["seed"]} and spec.confirm["seed"] not in seeds


def test_racing_keeps_the_true_best_when_it_is_clear():
    """One fair candidate among clearly unfair ones, many racing seeds: it always reaches the
    last rung (and the unfair ones are dropped early, saving games)."""
    for seed in range(8):
        spec = parse_spec(spec_dict(search={"seed": seed, "batch": 9}, racing={"rungs": [500, 1500, 4500]}))
        s = bal.Search(spec, progress=False)
        official, _ = s._candidate(spec.official())
        s.race([official])
        s._update_incumbent()
        decks = [20, 24, 28, 34, 50, 66, 72, 76, 80]
        batch = [s._candidate({"rules.deck_size": d, "rules.length": "long"})[0] for d in decks]
        s.race(batch)
        best = batch[decks.index(50)]
        assert best.rung == len(spec.racing["rungs"]) - 1 and not best.dropped, seed
        assert sum(c.rung == 2 for c in batch) <= 3
        assert sum(c.games for c in batch) < len(batch) * 2 * 4500 / 2


@pytest.mark.parametrize(
    "edit, key",
    [
        ({"key": "rules.deck_size", "range": [5, 60]}, "edits.0.range"),  # the game allows 10..80
        ({"key": "rules.deck_size", "range": [60, 20]}, "edits.0.range"),
        ({"key": "rules.deck_size", "range": [20, 60], "step": 0}, "edits.0.step"),
        ({"key": "rules.length", "values": ["long", "medium"]}, "edits.0.values"),
        ({"key": "rules.nonsense", "values": [1, 2]}, "edits.0.key"),
        ({"key": "rules.deck_size", "range": [20, 60], "players": 4}, "edits.0.players"),
    ],
)
def test_bad_ranges_give_one_line_errors(edit, key):
    with pytest.raises(ConfigError) as exc:
        parse_spec(spec_dict(edits=[edit]), "fake.toml")
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("fake.toml: ") and key in msg, msg


def test_bad_spec_on_the_command_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'game = "fakebalance"\nplayers = [2]\nstrategy = "random"\n'
        '[[edits]]\nkey = "rules.deck_size"\nrange = [1, 30]\n'
        '[[objectives]]\nmetric = "first_player_gap"\ntarget = [-1, 1]\n'
    )
    res = CliRunner().invoke(app, ["balance", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "edits.0.range" in line and "bad.toml" in line, res.output


def _front(search):
    return [(c.key, round(c.final["loss"], 12)) for c in search.front()], [
        (c.key, ev["meets"]) for c, ev in search.confirmation
    ]


def test_resume_gives_the_same_front(tmp_path):
    spec = parse_spec(spec_dict(search={"optimizer": "tpe", "seed": 5, "batch": 6, "budget_games": 250_000}))
    whole = bal.Search(spec, out=tmp_path / "a", progress=False).run()

    class Interrupting(bal.LocalPlayer):
        calls = 0

        def play(self, spec, tasks):
            Interrupting.calls += 1
            if Interrupting.calls == 9:
                raise KeyboardInterrupt
            return super().play(spec, tasks)

    out = tmp_path / "b"
    with pytest.raises(KeyboardInterrupt):
        bal.Search(spec, out=out, progress=False, player=Interrupting()).run()
    kept = len((out / bal.BLOCKS).read_text().splitlines())
    assert kept > 0
    resumed = bal.Search(spec, out=out, progress=False, resume=True).run()
    assert resumed.store.reused >= kept
    assert _front(resumed) == _front(whole)
    assert resumed.games == whole.games


def test_cli_writes_the_dataset_and_resumes(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(
        'game = "fakebalance"\nname = "fake"\nplayers = [2]\nstrategy = "random"\n'
        '[[edits]]\nkey = "rules.deck_size"\nrange = [20, 80]\n'
        '[[objectives]]\nmetric = "first_player_gap"\ntarget = [-2, 2]\n'
        "[search]\nbatch = 4\n[racing]\nrungs = [500, 1500]\n[confirm]\ngames = 5000\n"
    )
    out = tmp_path / "o"
    res = CliRunner().invoke(
        app, ["balance", str(path), "--out", str(out), "--budget-games", "40000", "--json", "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    summ = json.loads(res.output)
    assert summ["status"] == "complete" and summ["front"][0]["n_changes"] == 0
    for name in (
        "candidates.parquet",
        "games.parquet",
        "estimates.parquet",
        "confirmation.parquet",
        "manifest.json",
        "report.md",
        "front.png",
        "spec.toml",
    ):
        assert (out / name).is_file(), name
    assert (out / "report.md").read_text().splitlines()[2].startswith("**")
    again = CliRunner().invoke(app, ["balance", str(path), "--out", str(out), "--budget-games", "40000"])
    assert again.exit_code == 2 and "--resume" in again.output
    res2 = CliRunner().invoke(
        app,
        [
            "balance",
            str(path),
            "--out",
            str(out),
            "--budget-games",
            "40000",
            "--json",
            "--resume",
            "--no-progress",
        ],
    )
    assert res2.exit_code == 0, res2.output
    assert json.loads(res2.output)["front"] == summ["front"]


def test_ray_backend_gives_the_local_front(tmp_path, monkeypatch):
    """Candidates' blocks as Ray tasks on a local Ray instance: the same front and
    confirmation as the local backend."""
    pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[test,ray]'")
    import os

    from sim.backends import ray as ray_backend

    tests_dir = os.path.dirname(__file__)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([tests_dir, os.environ.get("PYTHONPATH", "")]))
    spec = parse_spec(
        spec_dict(search={"seed": 4, "batch": 4, "budget_games": 60_000}, confirm={"games": 5000})
    )
    local = bal.Search(spec, progress=False).run()
    try:
        remote = bal.Search(spec, progress=False, player=bal.RayPlayer()).run()
    finally:
        ray_backend.shutdown()
    assert _front(remote) == _front(local)


SHIPPED = sorted((Path(__file__).resolve().parents[1] / "configs" / "balance").glob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_specs_load(path):
    """Every shipped spec passes the loader: each edit's extreme values resolve under the
    game's own validation at each of its player counts."""
    spec = load_spec(path)
    assert spec.edits and all(e.official in e.values for e in spec.edits)


def test_fair_seats_edits_the_rule_constants():
    """The Bloody Inn fair-seats spec searches the rules' own numbers (BI-S3, BI-E2, BI-N3,
    BI-M1..M3, BI-G1), each with its printed value as one choice; the solo Bistro (BI-X1)
    plays no part at 2-4 players."""
    spec = load_spec(SHIPPED[0].parent / "bloody_inn-fair-seats.toml")
    edited = {e.key[len("rules.") :]: e for e in spec.edits if e.key.startswith("rules.")}
    printed = {  # ../shared/rules/bloody-inn.md
        "start_cash": 5,
        "start_cheques": 1,
        "start_peasants": 2,
        "room_service_per_rank": 1,
        "peasants_per_bribe": 2,
        "police_to_investigate": 1,
        "fine_per_corpse": 10,
        "leave_income_per_room": 1,
        "wage_per_accomplice": 1,
        "final_fine_per_corpse": 10,
    }
    for name, value in printed.items():
        assert edited[name].official == value and len(edited[name].values) > 1, name
    assert "solo_bistro_peasants" not in edited


@pytest.mark.parametrize(
    "edit, words",
    [
        ({"key": "rules.fine_per_corpse", "range": [5, 30], "step": 5}, "a multiple of 10"),
        ({"key": "rules.start_peasants", "range": [1, 3]}, "at most 2 with 4 player(s)"),
        ({"key": "rules.start_cash", "range": [0, 60]}, "at most rules.wealth_cap = 40"),
    ],
)
def test_a_bad_rule_constant_range_is_one_line(tmp_path, edit, words):
    path = tmp_path / "bad.toml"
    lines = [f"{k} = {json.dumps(v)}" for k, v in edit.items()]
    path.write_text(
        'game = "bloody_inn"\nplayers = [2, 4]\nstrategy = "greedy"\n[[edits]]\n'
        + "\n".join(lines)
        + '\n[[objectives]]\nmetric = "first_player_gap"\ntarget = [-1, 1]\n'
    )
    with pytest.raises(ConfigError) as exc:
        load_spec(path)
    msg = str(exc.value)
    assert "\n" not in msg and "edits.0.range" in msg and words in msg, msg


def test_the_answer_without_a_met_edit_names_the_one_missing_fewest_targets():
    """With no confirmed edit meeting every target, the report opens with the edit that
    misses the fewest targets, even when another has a lower loss."""
    from types import SimpleNamespace

    from sim.balance_report import answer

    spec = parse_spec(
        spec_dict(
            objectives=[
                {"metric": "first_player_gap", "players": [2], "target": [-1.0, 1.0]},
                {"metric": "mean_rounds", "players": [2], "target": [8.0, 12.0]},
            ]
        )
    )

    def ev(gap, rounds, loss):
        rows = [
            {
                "objective": "first_player_gap@2p",
                "metric": "first_player_gap",
                "players": 2,
                "unit": "pts",
                "estimate": gap,
                "lo": gap - 0.2,
                "hi": gap + 0.2,
                "target_lo": -1.0,
                "target_hi": 1.0,
                "meets": -1.0 <= gap - 0.2 and gap + 0.2 <= 1.0,
            },
            {
                "objective": "mean_rounds@2p",
                "metric": "mean_rounds",
                "players": 2,
                "unit": "rounds",
                "estimate": rounds,
                "lo": rounds - 0.1,
                "hi": rounds + 0.1,
                "target_lo": 8.0,
                "target_hi": 12.0,
                "meets": 8.0 <= rounds - 0.1 and rounds + 0.1 <= 12.0,
            },
        ]
        return {"rows": rows, "loss": loss, "meets": all(r["meets"] for r in rows)}

    def cand(deck):
        return SimpleNamespace(
            values={"rules.deck_size": deck, "rules.length": "long"}, changes=["rules.deck_size"]
        )

    search = SimpleNamespace(
        spec=spec,
        confirmation=[
            (cand(30), ev(-4.0, 10.0, 9.0)),  # the official rules
            (cand(44), ev(1.1, 12.05, 0.2)),  # misses both, lower loss
            (cand(52), ev(0.0, 12.5, 0.4)),  # misses only the length
        ],
    )
    text = answer(search)
    assert (
        "closest is: change rules.deck_size 30 -> 52" in text and "targets missed: mean_rounds@2p;" in text
    ), text
