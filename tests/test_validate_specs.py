"""``sim validate`` on a balance spec and a meta config: a good one gives exit 0 and a
summary; a bad one gives one line on stderr naming the file, the key, the bad value and what
is allowed, exit 2, and nothing written."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app

ROOT = Path(__file__).resolve().parent.parent
CLUEDO_SPEC = ROOT / "configs" / "balance" / "cluedo-fair-seats.toml"
META = ROOT / "configs" / "meta" / "cluedo-2p.toml"


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_a_shipped_balance_spec_validates_with_a_summary(cli, tmp_path):
    res = cli("validate", CLUEDO_SPEC)
    assert res.exit_code == 0, res.output
    first, *objectives = res.stdout.strip().splitlines()
    # the spec's seven [[edits]] hold 3 x 2 x 2 x 2 x 2 x 2 x 2 value combinations
    assert "balance spec 'cluedo-fair-seats', cluedo at 3, 4, 6 players, every seat logic" in first
    assert "7 edits (192 candidates), 2 objectives" in first and "search tpe seed 29" in first
    assert objectives == [
        "  seat_gap_max at 3, 4, 6p: <= 1.5 pts",
        "  character_gap_max at 3, 4, 6p: <= 1.5 pts",
    ]
    body = json.loads(cli("validate", CLUEDO_SPEC, "--json").stdout)
    assert body["kind"] == "balance" and body["candidates"] == 192
    assert [e["label"] for e in body["edits"]][:2] == ["rules.loupe_dice", "rules.dice"]
    assert not any(tmp_path.iterdir())  # nothing played, nothing written


def test_a_shipped_meta_config_validates_with_a_summary(cli, tmp_path):
    res = cli("validate", META)
    assert res.exit_code == 0, res.output
    # three strategies heads-up: 3 unordered pairings of 2,000 games each
    assert "meta-game of 3 strategies (naive, logic, prob), cluedo at 2 players" in res.stdout
    assert "3 pairings x 2,000 games (6,000 games in all)" in res.stdout
    body = json.loads(cli("validate", META, "--json").stdout)
    assert [(p["row"], p["col"]) for p in body["pairings"]] == [
        ("naive", "logic"),
        ("naive", "prob"),
        ("logic", "prob"),
    ]
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "source, old, new, fragments",
    [
        (CLUEDO_SPEC, "keep = 0.33", "keep = 1.5", ["racing.keep = 1.5", "0 < keep <= 1"]),
        (
            CLUEDO_SPEC,
            'metric = "seat_gap_max"',
            'metric = "seat_gap"',
            ["objectives.0.metric", "seat_gap_max"],
        ),
        (CLUEDO_SPEC, "values = [2, 1]\n", "values = [2, 7]\n", ["edits.1.values = 7", "rules.dice: 2 | 1"]),
        (CLUEDO_SPEC, 'strategy = "logic"\n\n', 'strategy = "logik"\n\n', ["strategy = 'logik'", "logic"]),
        (CLUEDO_SPEC, "[search]", "[searches]", ["searches", "one of the keys"]),
        (META, 'strategy = "prob"', 'strategy = "probe"', ["strategies.2.strategy = 'probe'", "'prob'"]),
        (META, "players = 2", "players = 9", ["players = 9", "2 to 4"]),
    ],
)
def test_a_bad_spec_is_one_line_exit_2(cli, tmp_path, source, old, new, fragments):
    text = source.read_text()
    assert old in text  # the edit below really changes the shipped file
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1))
    res = cli("validate", bad)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: ") and "Traceback" not in res.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]
