"""The ``sim`` CLI through Typer's runner and real subprocesses (with the fake game)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import fake_adapter
import pytest
from typer.testing import CliRunner

from sim import dataset, registry
from sim.cli import app

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

RUN = 'game = "fakegame"\nplayers = 3\ngames = 3000\nseed = 9\n[rules]\ndeck_size = 30\n'


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, [str(a) for a in args])

    return invoke


def write(path, text):
    path = Path(path)
    path.write_text(text)
    return path


def one_error_line(result, *fragments):
    """Exit status 2 and exactly one line on stderr naming every fragment, no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def test_run_prints_summary_and_writes_dataset(cli, tmp_path):
    write("r.toml", RUN)
    res = cli("run", "r.toml", "--chunk-games", 1000)
    assert res.exit_code == 0, res.stderr
    assert "3,000 games in" in res.stdout and "games/s" in res.stdout
    assert "results/r/" in res.stdout
    m = dataset.read_manifest(tmp_path / "results" / "r")
    assert m["status"] == "complete" and len(m["chunks"]) == 3 and m["source"] == "r.toml"


def test_run_json_and_overrides(cli, tmp_path):
    write("r.toml", RUN)
    res = cli(
        "run",
        "r.toml",
        "--games",
        500,
        "--seed",
        3,
        "--out",
        "elsewhere",
        "--json",
        "--threads",
        1,
        "--events",
    )
    assert res.exit_code == 0, res.stderr
    s = json.loads(res.stdout)
    assert s["games"] == s["games_played"] == 500 and s["seed"] == 3
    assert s["out"] == "elsewhere" and s["tables"] == ["games", "seats", "events"]
    assert s["games_per_s"] > 0
    assert dataset.read_table(tmp_path / "elsewhere", "events").num_rows == 1500


def test_refusal_resume_and_force(cli):
    write("r.toml", RUN)
    assert cli("run", "r.toml").exit_code == 0
    one_error_line(
        cli("run", "r.toml"), "results/r", "already holds a complete dataset", "--resume", "--force"
    )
    res = cli("run", "r.toml", "--resume")
    assert res.exit_code == 0 and "already complete" in res.stdout
    one_error_line(cli("run", "r.toml", "--resume", "--force"), "exclude each other")
    res = cli("run", "r.toml", "--force", "--seed", 2, "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["seed"] == 2


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("colour = 1\n" + RUN, ["bad.toml", "colour = 1", "allowed: one of the keys"]),
        (RUN.replace("players = 3", "players = 7"), ["bad.toml", "players = 7", "an integer from 1 to 4"]),
        (RUN.replace("players = 3", 'players = "three"'), ["players = 'three'", "an integer"]),
        (RUN.replace("games = 3000", "games = 0"), ["games = 0", "an integer from 1"]),
        (RUN.replace("seed = 9", "seed = -1"), ["seed = -1"]),
        (RUN.replace('game = "fakegame"', 'game = "chess"'), ["game = 'chess'", "'fakegame'"]),
        ("rotate = 1\n" + RUN, ["bad.toml: rotate = 1", "true or false"]),
        (RUN.replace("deck_size = 30", "deck_size = 5"), ["rules.deck_size = 5", "10 to 80"]),
        (RUN.replace("deck_size = 30", "decksize = 30"), ["rules.decksize", "deck_size"]),
        (RUN + '[[seats]]\nstrategy = "psychic"\n', ["seats.0.strategy = 'psychic'", "'random'"]),
        (
            RUN + '[[seats]]\nstrategy = "random"\nparams = { aggression = 2.0 }\n',
            ["seats.0.params.aggression = 2.0", "0.0 to 1.0"],
        ),
        (
            RUN + '[[seats]]\nstrategy = "random"\n[[seats]]\nstrategy = "random"\n',
            ["seats = '2 entries'", "1 or 3"],
        ),
        (RUN + "[cards.joker]\nrank = 2\n", ["cards.joker"]),
        (RUN + "[cards.marquis]\nrank = 9\n", ["cards.marquis.rank = 9"]),
        ('game = "fakegame"\nplayers = = 3\n', ["bad.toml", "invalid TOML", "line 2"]),
        ('game = "fakegame"\n[rules\n', ["invalid TOML", "line 2"]),
    ],
)
def test_each_kind_of_bad_config_is_one_line_exit_2(cli, text, fragments):
    write("bad.toml", text)
    one_error_line(cli("run", "bad.toml"), *fragments)
    one_error_line(cli("validate", "bad.toml"), *fragments)


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["run", "missing.toml"], ["missing.toml", "an existing TOML file"]),
        (["run", "r.toml", "--games", "-5"], ["--games = -5"]),
        (["run", "r.toml", "--seed", "-1"], ["--seed = -1"]),
        (["run", "r.toml", "--chunk-games", "0"], ["chunk-games = 0"]),
        (["run", "r.toml", "--threads", "999"], ["threads = 999"]),
        (["run", "r.toml", "--backend", "cloud"], ["backend = 'cloud'", "'local'"]),
        (["strategies", "chess"], ["game = 'chess'"]),
        (["sweep", "r.toml"], ["r.toml", "a sweep config", "sim run r.toml"]),
        (["run", "s.toml"], ["s.toml", "a run config", "sim sweep s.toml"]),
    ],
)
def test_bad_arguments_are_one_line_exit_2(cli, args, fragments):
    write("r.toml", RUN)
    write("s.toml", 'base = "r.toml"\n[grid]\nplayers = [2]\n')
    one_error_line(cli(*args), *fragments)


def test_usage_errors_exit_2(cli):
    write("r.toml", RUN)
    res = cli("run", "r.toml", "--games", "many")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert cli("run", "r.toml", "--no-such-option").exit_code == 2


def test_validate_run_and_sweep(cli, tmp_path):
    write("r.toml", RUN)
    res = cli("validate", "r.toml")
    assert res.exit_code == 0 and res.stdout.startswith("ok: r.toml: fakegame, 3 players")
    res = cli("validate", "r.toml", "--json")
    assert json.loads(res.stdout)["resolved"]["rules"]["deck_size"] == 30
    write("s.toml", 'base = "r.toml"\n[grid]\nplayers = [1, 2, 4]\n"rules.deck_size" = [10, 80]\n')
    res = cli("validate", "s.toml")
    assert res.exit_code == 0 and "sweep of 6 grid points" in res.stdout
    assert not (tmp_path / "results").exists()
    write("bad.toml", 'base = "r.toml"\n[grid]\nplayers = [2, 5, 6]\n')
    res = cli("validate", "bad.toml")
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 2 and all("players = " in ln and "grid point" in ln for ln in lines)
    one_error_line(cli("sweep", "bad.toml"), "players = 5", "(and 1 more invalid grid points)")
    assert not (tmp_path / "results").exists()


def test_sweep_command(cli, tmp_path):
    write("r.toml", RUN)
    write("s.toml", 'base = "r.toml"\ngames = 200\n[grid]\nplayers = [2, 3]\n')
    res = cli("sweep", "s.toml", "--json")
    assert res.exit_code == 0, res.stderr
    s = json.loads(res.stdout)
    assert s["points"] == 2 and s["games"] == 400 and s["games_played"] == 400
    assert (tmp_path / "results" / "s" / "points.parquet").is_file()
    one_error_line(cli("sweep", "s.toml"), "already holds a complete sweep")
    res = cli("sweep", "s.toml", "--resume", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["games_played"] == 0


def test_games_and_strategies(cli):
    res = cli("games", "--json")
    assert res.exit_code == 0
    assert {
        "game": "fakegame",
        "title": "Fake game (tests only)",
        "min_players": 1,
        "max_players": 4,
    } in json.loads(res.stdout)
    assert "fakegame" in cli("games").stdout
    res = cli("strategies", "fakegame")
    # a whole-number default prints as one (no "1.0"), every parameter with its help
    assert res.exit_code == 0 and "greedy" in res.stdout
    assert "    aggression = 1    # how often greedy attacks" in res.stdout.splitlines()
    rows = json.loads(cli("strategies", "fakegame", "--json").stdout)
    assert rows[0]["params"] == {"aggression": 0.5}


# --- real subprocesses ----------------------------------------------------------------

LAUNCH = (
    "import sys; sys.path.insert(0, {tests!r}); import fake_adapter; "
    "fake_adapter.install(); from sim.cli import main; main()"
)


def sim_proc(args, cwd, **kw):
    cmd = [sys.executable, "-c", LAUNCH.format(tests=str(TESTS))] + [str(a) for a in args]
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def sim_run(args, cwd):
    p = sim_proc(args, cwd)
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


def wait_for_chunks(out, n, proc, timeout=60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        m = dataset.read_manifest(out) if (out / "manifest.json").exists() else None
        if m and len(m["chunks"]) >= n:
            return m
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no chunks appeared")


SLOW = RUN.replace("games = 3000", "games = 4000").replace("deck_size = 30", "deck_size = 30\nsleep_s = 0.15")


def test_subprocess_kill_9_and_resume_is_identical(tmp_path):
    write(tmp_path / "slow.toml", SLOW)
    code, out, err = sim_run(
        ["run", "slow.toml", "--out", "full", "--chunk-games", 250, "--events"], tmp_path
    )
    assert code == 0, err
    p = sim_proc(["run", "slow.toml", "--out", "cut", "--chunk-games", 250, "--events"], tmp_path)
    wait_for_chunks(tmp_path / "cut", 3, p)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    m = dataset.read_manifest(tmp_path / "cut")
    assert m["status"] == "running" and 3 <= len(m["chunks"]) < 16
    code, _, err = sim_run(["run", "slow.toml", "--out", "cut"], tmp_path)
    assert code == 2 and "unfinished dataset" in err and "--resume" in err
    code, out, err = sim_run(["run", "slow.toml", "--out", "cut", "--events", "--resume"], tmp_path)
    assert code == 0, err
    assert "the rest resumed" in out
    for name in ("games", "seats", "events"):
        assert dataset.read_table(tmp_path / "cut", name).equals(dataset.read_table(tmp_path / "full", name))
    a, b = dataset.read_manifest(tmp_path / "cut"), dataset.read_manifest(tmp_path / "full")
    assert [c["files"] for c in a["chunks"]] == [c["files"] for c in b["chunks"]]


def test_subprocess_ctrl_c_keeps_chunks_and_says_how_to_resume(tmp_path):
    write(tmp_path / "slow.toml", SLOW)
    p = sim_proc(["run", "slow.toml", "--chunk-games", 250], tmp_path)
    wait_for_chunks(tmp_path / "results" / "slow", 2, p)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "games are kept in results/slow" in err and "--resume" in err
    assert "Traceback" not in err
    code, out, err = sim_run(["run", "slow.toml", "--resume", "--json"], tmp_path)
    assert code == 0, err
    s = json.loads(out)
    assert s["status"] == "complete" and 0 < s["games_played"] < 4000


def test_subprocess_errors_have_no_traceback(tmp_path):
    write(tmp_path / "bad.toml", 'game = "fakegame"\nplayers = 3\n[rules]\ndeck_size = "big"\n')
    code, out, err = sim_run(["run", "bad.toml"], tmp_path)
    assert code == 2 and out == ""
    assert err.strip() == (
        "error: bad.toml: rules.deck_size = 'big' is invalid; allowed: an integer from 10 to 80"
    )


def test_console_script_starts():
    exe = Path(sys.executable).with_name("sim")
    if not exe.exists():
        pytest.skip("console script not installed")
    res = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for cmd in ("run", "sweep", "validate", "games", "strategies"):
        assert cmd in res.stdout
    res = subprocess.run(
        [str(exe), "strategies", "no-such-game"], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 2 and res.stderr.startswith("error: game = 'no-such-game'")


def test_progress_bar_only_when_asked_off_a_terminal(cli):
    # 15 chunks x 0.15 s: longer than the bar's 1 s delay on any machine
    write("slow.toml", SLOW.replace("games = 4000", "games = 1500"))
    res = cli("run", "slow.toml", "--chunk-games", 100, "--progress", "--out", "a")
    assert res.exit_code == 0
    assert "ETA" in res.stderr and "games/s" in res.stderr and "100.0%" in res.stderr
    assert res.stderr.endswith("\n") and "ETA" not in res.stdout
    res = cli("run", "slow.toml", "--chunk-games", 100, "--out", "b")
    assert res.exit_code == 0 and res.stderr == ""


def test_version_and_help_that_reads_right(cli):
    from importlib.metadata import version

    res = cli("--version")
    assert res.exit_code == 0 and res.stdout.strip() == f"boardsim {version('boardsim')}"
    sweep_help = cli("sweep", "--help").stdout
    assert "[grid]" in sweep_help  # not eaten as markup
    run_help = cli("run", "--help").stdout
    assert "<bool>" not in run_help and "--events " in run_help  # a flag takes no value
    assert "'local'" in run_help and "'ray'" in run_help  # the backends are listed
    # help paragraphs are re-flowed to the terminal, not hard-wrapped where the docstring was
    wide = CliRunner().invoke(app, ["replay", "--help"], terminal_width=200).stdout
    assert "both states) and exits with status 1 if any game diverges." in wide
