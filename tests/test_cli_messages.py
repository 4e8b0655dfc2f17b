"""Messages in the user's terms: values as TOML writes them, an empty file said so, the seat count
against the players, the default lineup said when no [[seats]] names one, and each command
suggesting only options it has."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from sim.cli import app


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, [str(a) for a in args])

    return invoke


def write(name, text):
    with open(name, "w", encoding="utf-8") as fh:
        fh.write(text)
    return name


def one_error_line(res):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "e.toml: the file is empty"),
        ("# a comment\n", "e.toml: the file sets no keys (only comments)"),
        (
            'game = "bloody_inn"\nplayers = true\n',
            "players = true is invalid; allowed: an integer from 1 to 4",
        ),
        ('game = "bloody_inn"\nrotate = false\nplayers = 3\nseed = false\n', "seed = false is invalid"),
        (
            'game = "bloody_inn"\nplayers = 3\n' + '[[seats]]\nstrategy = "random"\n' * 4,
            "seats: 4 [[seats]] entries for 3 players; allowed: 1 entry (every seat plays it) or 3",
        ),
        (
            'game = "cluedo"\nplayers = 3\n' + '[[seats]]\nstrategy = "logic"\n' * 2,
            "seats: 2 [[seats]] entries for 3 players",
        ),
    ],
)
def test_bad_values_quoted_as_toml(cli, text, expected):
    write("e.toml", text)
    line = one_error_line(cli("validate", "e.toml"))
    assert expected in line
    assert "True" not in line and "False" not in line and "None" not in line


def test_no_seats_says_the_default_lineup(cli):
    write("n.toml", 'game = "bloody_inn"\nplayers = 2\ngames = 20\n')
    res = cli("validate", "n.toml")
    assert res.exit_code == 0 and "no [[seats]]: every seat plays random" in res.stdout
    res = cli("run", "n.toml", "--out", "n")
    assert res.exit_code == 0 and res.stdout.startswith("no [[seats]]: every seat plays random")
    write("s.toml", 'game = "bloody_inn"\nplayers = 2\ngames = 20\n[[seats]]\nstrategy = "random"\n')
    assert "no [[seats]]" not in cli("validate", "s.toml").stdout
    assert "no [[seats]]" not in cli("run", "s.toml", "--out", "s").stdout


@pytest.fixture
def dataset_dir(cli):
    write("r.toml", 'game = "bloody_inn"\nplayers = 2\ngames = 40\n[[seats]]\nstrategy = "random"\n')
    res = cli("run", "r.toml", "--events", "--chunk-games", 20, "--out", "ds")
    assert res.exit_code == 0, res.output
    return "ds"


@pytest.mark.parametrize("command", ["analyse", "report", "replay"])
def test_readers_of_a_broken_manifest_do_not_suggest_force(cli, dataset_dir, command):
    write(f"{dataset_dir}/manifest.json", "{not json")
    res = cli(command, dataset_dir)
    assert res.exit_code == 2, res.output
    line = res.stderr.strip().splitlines()[-1]
    assert "unreadable manifest" in line and "--force" not in line


def test_the_writer_of_a_broken_manifest_suggests_force(cli, dataset_dir):
    write(f"{dataset_dir}/manifest.json", "{not json")
    line = one_error_line(cli("run", "r.toml", "--out", dataset_dir))
    assert "unreadable manifest" in line and "--force" in line


@pytest.mark.parametrize("command", ["analyse", "replay"])
def test_unlisted_chunk_files_warned_by_readers(cli, dataset_dir, command):
    shutil.copy(f"{dataset_dir}/games/part-00000.parquet", f"{dataset_dir}/games/part-00099.parquet")
    res = cli(command, dataset_dir)
    assert res.exit_code == 0, res.output
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert any(
        "1 chunk file(s) not in its manifest were ignored (games/part-00099.parquet)" in w for w in warned
    )


def test_replay_json_stays_json_with_a_warning(cli, dataset_dir):
    shutil.copy(f"{dataset_dir}/seats/part-00000.parquet", f"{dataset_dir}/seats/part-00042.parquet")
    res = cli("replay", dataset_dir, "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["games"] == 40
    assert "part-00042" in res.stderr
