"""Datasets that cannot lie, every case through the CLI (the fake game).

A read verifies the dataset against its manifest; one writer per folder; every operating-system
or encoding problem is one line and exit status 2; a manifest reruns its dataset; the state a
dataset is in is told as it is.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import fake_adapter
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from analysis.dataset import open_dataset
from sim import api, dataset, registry, runner
from sim.cli import app
from sim.progress import Progress

TESTS = Path(__file__).resolve().parent

RUN = 'game = "fakegame"\nplayers = 3\ngames = 3000\nseed = 9\n[rules]\ndeck_size = 30\n'
SWEEP = 'base = "r.toml"\ngames = 200\n[grid]\nplayers = [2, 3]\n'


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.toml").write_text(RUN)
    (tmp_path / "s.toml").write_text(SWEEP)
    runner_ = CliRunner()

    def invoke(*args):
        return runner_.invoke(app, [str(a) for a in args])

    return invoke


def one_line(result, *fragments):
    """Exit status 2, one ``error:`` line on stderr holding every fragment, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def made(cli, *args):
    res = cli("run", "r.toml", "--chunk-games", 1000, *args)
    assert res.exit_code == 0, res.stderr
    return res


def dataset_hash(out):
    """The files of a dataset as its manifest lists them (path and sha256 of each)."""
    m = dataset.verify(out)
    return [(info["path"], info["sha256"]) for c in m["chunks"] for info in c["files"].values()]


# --- every read verifies ----------------------------------------------------------------


def test_deleted_chunk_is_one_line_for_every_reader(cli, tmp_path):
    made(cli, "--out", "d", "--events")
    for t in ("games", "seats"):
        (tmp_path / "d" / t / "part-00002.parquet").unlink()
    for args in (["analyse", "d"], ["report", "d"], ["replay", "d"]):
        one_line(
            cli(*args), "d/games/part-00002.parquet: missing", "chunk 2", "games 2,000-2,999", "--resume"
        )
    assert not (tmp_path / "d" / "report.html").exists()
    with pytest.raises(dataset.DatasetError, match="part-00002.parquet: missing"):
        open_dataset(tmp_path / "d")
    with pytest.raises(dataset.DatasetError, match="part-00002.parquet: missing"):
        api.read_table(tmp_path / "d", "seats")
    # the hint works: the manifest reruns its own missing chunk
    res = cli("run", "d/manifest.json", "--out", "d", "--resume")
    assert res.exit_code == 0, res.stderr
    assert "1,000 played now" in res.stdout
    assert cli("analyse", "d", "-q", "seats").exit_code == 0
    res = cli("report", "d", "-q", "seats")
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "d" / "report.html").is_file()


def test_copied_chunk_is_changed_and_the_games_are_not_counted_twice(cli, tmp_path):
    made(cli, "--out", "d")
    shutil.copy(tmp_path / "d/games/part-00000.parquet", tmp_path / "d/games/part-00001.parquet")
    one_line(cli("analyse", "d"), "d/games/part-00001.parquet: changed")


def test_damaged_parquet_is_one_line(cli, tmp_path):
    made(cli, "--out", "d")
    f = tmp_path / "d/seats/part-00001.parquet"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
    one_line(cli("analyse", "d"), "d/seats/part-00001.parquet: changed (its sha256 differs")
    # a manifest edited to match a file that is no Parquet at all: still one line
    f.write_bytes(b"not parquet" * 100)
    m = json.loads((tmp_path / "d/manifest.json").read_text())
    info = m["chunks"][1]["files"]["seats"]
    info.update(bytes=f.stat().st_size, sha256=dataset.sha256_file(f))
    (tmp_path / "d/manifest.json").write_text(json.dumps(m))
    one_line(cli("analyse", "d"), "d/seats/part-00001.parquet: not a readable Parquet file")


def test_manifest_that_does_not_add_up_is_refused(cli, tmp_path):
    made(cli, "--out", "d")
    m = json.loads((tmp_path / "d/manifest.json").read_text())
    del m["chunks"][2]
    (tmp_path / "d/manifest.json").write_text(json.dumps(m))
    one_line(cli("analyse", "d"), "d/manifest.json", "games_done is 3,000 but its chunks hold 2,000")
    m["games_done"] = 2000
    (tmp_path / "d/manifest.json").write_text(json.dumps(m))
    one_line(cli("analyse", "d"), "status complete but its chunks hold 2,000 of 3000 games")
    m["chunks"][1]["files"]["games"]["path"] = "../elsewhere/part-00001.parquet"
    (tmp_path / "d/manifest.json").write_text(json.dumps(m))
    one_line(cli("analyse", "d"), "lists a file outside the dataset")


def test_unlisted_files_are_not_read(cli, tmp_path):
    made(cli, "--out", "d")
    for t in ("games", "seats"):
        shutil.copy(tmp_path / f"d/{t}/part-00000.parquet", tmp_path / f"d/{t}/part-00099.parquet")
    res = cli("analyse", "d", "--json", "-q", "seats")
    assert res.exit_code == 0, res.stderr
    ds = open_dataset(tmp_path / "d")
    assert ds.games.select("game_id").collect().height == 3000
    assert any("games/part-00099.parquet" in w and "ignored" in w for w in ds.warnings)


def test_sweep_reads_verify_every_point_and_the_index(cli, tmp_path):
    assert cli("sweep", "s.toml", "--out", "sw").exit_code == 0
    point = next(p for p in (tmp_path / "sw").iterdir() if p.name.startswith("p001"))
    (point / "seats" / "part-00000.parquet").write_bytes(b"x")
    one_line(cli("analyse", "sw"), f"{point.name}/seats/part-00000.parquet: changed")
    one_line(cli("replay", "sw"), f"{point.name}/seats/part-00000.parquet: changed")
    assert cli("sweep", "s.toml", "--out", "sw", "--resume").exit_code == 0  # replays it
    assert cli("analyse", "sw", "-q", "seats").exit_code == 0
    points = tmp_path / "sw" / "points.parquet"
    t = pq.read_table(points)
    pq.write_table(t.slice(0, 1), points)
    one_line(cli("analyse", "sw"), "sw/points.parquet: changed")
    assert cli("sweep", "s.toml", "--out", "sw2").exit_code == 0
    shutil.rmtree(next((tmp_path / "sw2").glob("p000*")))
    one_line(cli("analyse", "sw2"), "manifest.json: missing, but", "says the sweep is complete")


def test_study_report_verifies(tmp_path, monkeypatch, cli):
    (tmp_path / "study.toml").write_text(
        'title = "t"\n[[data]]\nname = "a"\nrun = "r.toml"\nquestions = ["seats"]\n'
    )
    assert cli("study", "study.toml", "--out", "st", "--no-progress").exit_code == 0
    (tmp_path / "st/a/games/part-00000.parquet").unlink()
    one_line(
        cli("study", "study.toml", "--out", "st", "--report-only"), "st/a/games/part-00000.parquet: missing"
    )


# --- one writer per folder ----------------------------------------------------------------


def test_second_writer_is_refused_force_included(cli, tmp_path):
    made(cli, "--out", "d")
    before = dataset_hash(tmp_path / "d")
    with dataset.FolderLock(tmp_path / "d"):  # another process's lock (a separate open file)
        for extra in ([], ["--force"], ["--resume"]):
            one_line(
                cli("run", "r.toml", "--out", "d", "--seed", 7, *extra),
                "d is being written by another process (pid",
                "one writer per folder",
            )
        one_line(cli("rerun", "d", "--out", "d", "--force"), "being written by another process")
    assert dataset_hash(tmp_path / "d") == before
    with dataset.FolderLock(tmp_path / "sw"):
        one_line(cli("sweep", "s.toml", "--out", "sw", "--force"), "sw is being written by another process")
    (tmp_path / "study.toml").write_text('title = "t"\n[[data]]\nname = "a"\nrun = "r.toml"\n')
    with dataset.FolderLock(tmp_path / "st"):
        one_line(cli("study", "study.toml", "--out", "st"), "st is being written by another process")


def test_second_writer_while_a_real_run_writes(tmp_path):
    """The issue's scenario: `--force --seed 7` into a folder a run is writing."""
    slow = RUN.replace("deck_size = 30", "deck_size = 30\nsleep_s = 0.25")
    (tmp_path / "slow.toml").write_text(slow)
    (tmp_path / "other.toml").write_text(RUN)
    first = _sim(["run", "slow.toml", "--out", "d", "--chunk-games", 100], tmp_path)  # 30 x 0.25 s
    try:
        _wait_for(lambda: dataset.is_locked(tmp_path / "d"), first)
        code, out, err = _sim_wait(["run", "other.toml", "--out", "d", "--force", "--seed", 7], tmp_path)
        assert code == 2 and err.count("\n") == 1 and "being written by another process" in err
        assert first.poll() is None, "the first run ended before the second was refused"
    finally:
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=120)
    assert first.returncode == 130, err
    m = dataset.verify(tmp_path / "d")
    assert m["seed"] == 9 and m["status"] == "interrupted"
    on_disk = sorted(p.name for p in (tmp_path / "d/games").iterdir())
    assert on_disk == [f"part-{c['index']:05d}.parquet" for c in m["chunks"]]


def test_force_removes_every_old_chunk_file(cli, tmp_path):
    made(cli, "--out", "d")
    stray = tmp_path / "d/games/part-00042.parquet"
    shutil.copy(tmp_path / "d/games/part-00000.parquet", stray)
    (tmp_path / "d" / "notes.txt").write_text("mine")
    res = cli("run", "r.toml", "--out", "d", "--force", "--games", 500)
    assert res.exit_code == 0, res.stderr
    assert not stray.exists() and (tmp_path / "d" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (tmp_path / "d/games").iterdir()) == ["part-00000.parquet"]


def test_run_into_a_sweep_folder_and_sweep_into_a_run_folder_are_refused(cli, tmp_path):
    assert cli("sweep", "s.toml", "--out", "sw").exit_code == 0
    made(cli, "--out", "d")
    for extra in ([], ["--force"]):
        one_line(cli("run", "r.toml", "--out", "sw", *extra), "sw is a sweep's folder", "a folder of its own")
        one_line(
            cli("sweep", "s.toml", "--out", "d", *extra), "d holds a run's dataset", "a folder of its own"
        )
    assert dataset.verify(tmp_path / "d")["status"] == "complete"
    assert cli("analyse", "sw", "-q", "seats").exit_code == 0


# --- operating-system and encoding problems -----------------------------------------------


@pytest.mark.parametrize(
    "content, fragments",
    [
        (
            b'game = "fakegame"\nname = "caf\xe9"\n',
            ["bad.toml: not UTF-8 text (byte 0xe9 at line 2)", "UTF-8"],
        ),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["bad.toml: a binary file, not a TOML config"]),
    ],
)
def test_config_that_is_not_utf8_text(cli, tmp_path, content, fragments):
    (tmp_path / "bad.toml").write_bytes(content)
    for cmd in ("run", "validate", "sweep"):
        one_line(cli(cmd, "bad.toml"), *fragments)


def test_out_under_a_file_or_a_file(cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    one_line(cli("run", "r.toml", "--out", "afile/sub/d"), "afile/sub/d cannot be created: afile is a file")
    one_line(cli("run", "r.toml", "--out", "afile"), "afile exists and is a file")
    one_line(cli("sweep", "s.toml", "--out", "afile/sw"), "afile is a file, not a folder")


def test_report_path_that_cannot_be_written(cli, tmp_path):
    made(cli, "--out", "d")
    (tmp_path / "afile").write_text("x")
    one_line(
        cli("report", "d", "--out", "afile/r.html"),
        "afile: writing the report failed",
        "a file of that name is in the way",
    )


class SmallFS:
    """A small tmpfs mounted for a test where the machine allows it (root); ``mounted`` is
    False otherwise, and the tests then inject the ``OSError`` at the write call instead."""

    def __init__(self, path, size):
        self.path = Path(path)
        self.path.mkdir()
        # BOARDSIM_TEST_NO_MOUNT=1 exercises the injected-OSError path on a machine that mounts
        self.mounted = False
        if not os.environ.get("BOARDSIM_TEST_NO_MOUNT") and shutil.which("mount"):
            cmd = ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(self.path)]
            self.mounted = subprocess.run(cmd, capture_output=True).returncode == 0

    def remount(self, opts):
        subprocess.run(["mount", "-o", f"remount,{opts}", str(self.path)], check=True)

    def close(self):
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], check=False)


@pytest.fixture
def small_fs(tmp_path):
    made = []

    def make(size):
        fs = SmallFS(tmp_path / f"fs{len(made)}", size)
        made.append(fs)
        return fs

    yield make
    for fs in made:
        fs.close()


def _inject(monkeypatch, code, after=0):
    """Make the ``after``-th chunk file write (and later ones) fail with ``OSError(code)``."""
    real = pq.write_table
    calls = [0]

    def write_table(table, where, **kw):
        calls[0] += 1
        if calls[0] > after:
            raise OSError(code, os.strerror(code), str(where))
        return real(table, where, **kw)

    monkeypatch.setattr(dataset.pq, "write_table", write_table)
    return lambda: monkeypatch.setattr(dataset.pq, "write_table", real)


def test_read_only_file_system(cli, tmp_path, small_fs, monkeypatch):
    fs = small_fs("4m")
    target = fs.path / "d"
    if fs.mounted:
        fs.remount("ro")
        one_line(cli("run", "r.toml", "--out", target), str(target), "the file system is read-only")
        one_line(cli("sweep", "s.toml", "--out", target), "the file system is read-only")
    else:
        _inject(monkeypatch, errno.EROFS)
        one_line(cli("run", "r.toml", "--out", target), "the file system is read-only", "--resume")


def test_full_disk_keeps_the_dataset_resumable(cli, tmp_path, small_fs, monkeypatch):
    made(cli, "--out", "ref", "--games", 20000, "--events")
    fs = small_fs("300k")
    target = fs.path / "d"
    args = ["run", "r.toml", "--out", target, "--games", 20000, "--events", "--chunk-games", 1000]
    if fs.mounted:
        line = one_line(cli(*args), "the disk is full; free some space", "--resume")
        fs.remount("size=64m")
    else:
        restore = _inject(monkeypatch, errno.ENOSPC, after=9)
        line = one_line(cli(*args), "the disk is full; free some space", "--resume")
        restore()
    assert "games are kept in" in line
    m = dataset.verify(target)  # what was kept is whole and listed
    assert m["status"] == "interrupted" and 0 < m["games_done"] < 20000
    assert not list(target.rglob("*.tmp"))
    res = cli(*args, "--resume")
    assert res.exit_code == 0, res.stderr
    assert dataset_hash(target) == dataset_hash(tmp_path / "ref")


# --- rerun from a manifest -----------------------------------------------------------------


def test_rerun_from_manifest_is_row_for_row(cli, tmp_path):
    made(cli, "--out", "d", "--events", "--seed", 4)
    res = cli("run", "d/manifest.json", "--out", "again")
    assert res.exit_code == 0, res.stderr
    assert dataset_hash(tmp_path / "again") == dataset_hash(tmp_path / "d")
    res = cli("rerun", "d", "--out", "again2", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["seed"] == 4
    assert dataset_hash(tmp_path / "again2") == dataset_hash(tmp_path / "d")
    assert cli("validate", "d/manifest.json").stdout.startswith("ok: d/manifest.json: fakegame, 3 players")
    one_line(cli("run", "d/manifest.json"), "a rerun of d/manifest.json needs --out NEW")
    one_line(cli("rerun", "nowhere", "--out", "x"), "DIR = 'nowhere'")
    m = json.loads((tmp_path / "d/manifest.json").read_text())
    m["resolved"]["rules"]["deck_size"] = 40
    (tmp_path / "edited.json").write_text(json.dumps(m))
    one_line(cli("run", "edited.json", "--out", "e"), "edited.json: the resolved config was edited")
    m = json.loads((tmp_path / "d/manifest.json").read_text())
    m["resolved"]["rules"]["colour"] = 1
    m["config_id"] = runner.config_id(m["resolved"])
    (tmp_path / "old.json").write_text(json.dumps(m))
    one_line(cli("run", "old.json", "--out", "e"), "does not fit this version of the code (key rules.colour)")
    (tmp_path / "x.json").write_text("{")
    one_line(cli("run", "x.json", "--out", "e"), "x.json: not a readable manifest")


# --- state that tells the truth --------------------------------------------------------------


def test_messages_name_the_folder_and_count_chunks(cli, tmp_path):
    res = cli("run", "r.toml", "--out", "one")
    assert res.exit_code == 0 and "(games, seats; 1 chunk)" in res.stdout
    res = cli("run", "r.toml", "--out", "three", "--chunk-games", 1000)
    assert "(games, seats; 3 chunks)" in res.stdout
    m = json.loads((tmp_path / "three/manifest.json").read_text())
    m["status"] = "running"  # as a kill -9 leaves it
    (tmp_path / "three/manifest.json").write_text(json.dumps(m))
    res = cli("analyse", "three", "-q", "seats")
    assert res.exit_code == 0
    assert "dataset three is interrupted (its manifest says running, but no process writes it)" in res.stderr


def test_resume_names_cards_by_id():
    recorded = {"cards": [{"id": "cultivator", "rank": 0}, {"id": "marquis", "rank": 3}]}
    now = {"cards": [{"id": "cultivator", "rank": 0}, {"id": "marquis", "rank": 2}]}
    assert runner._first_difference(recorded, now) == "cards.marquis.rank"
    assert runner._first_difference({"seats": [{"a": 1}]}, {"seats": [{"a": 2}]}) == "seats.0.a"


# --- progress --------------------------------------------------------------------------------


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("columns", [60, 40, 80, 200])
def test_progress_bar_fits_the_terminal(columns):
    out = _Tty()
    bar = Progress(enabled=True, stream=out, delay=0.0, interval=0.0, columns=columns)
    bar.expect(12_000_000)
    for _ in range(5):
        bar.advance(1_234_567)
    bar.close()
    draws = out.getvalue().rstrip("\n").split("\r")[1:]
    assert len(draws) >= 5
    for d in draws:
        line = d.replace("\x1b[K", "")
        assert len(line) < columns, (columns, line)  # the cursor never reaches the last column
        assert "\n" not in line and "%" in line


def test_progress_off_a_terminal_is_plain_lines(cli):
    slow = RUN.replace("games = 3000", "games = 1500").replace(
        "deck_size = 30", "deck_size = 30\nsleep_s = 0.15"
    )
    Path("slow.toml").write_text(slow)
    res = cli("run", "slow.toml", "--chunk-games", 100, "--progress", "--out", "a")
    assert res.exit_code == 0
    lines = res.stderr.splitlines()
    assert lines and "\r" not in res.stderr and "\x1b" not in res.stderr
    assert lines[-1].startswith("100.0%") and "games/s" in lines[-1]


# --- real subprocesses ---------------------------------------------------------------------

LAUNCH = (
    "import sys; sys.path.insert(0, {tests!r}); import fake_adapter; "
    "fake_adapter.install(); from sim.cli import main; main()"
)


def _sim(args, cwd):
    cmd = [sys.executable, "-c", LAUNCH.format(tests=str(TESTS))] + [str(a) for a in args]
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _sim_wait(args, cwd):
    p = _sim(args, cwd)
    out, err = p.communicate(timeout=120)
    return p.returncode, out, err


def _wait_for(cond, proc, timeout=60):
    import time

    t0 = time.time()
    while time.time() - t0 < timeout:
        if cond():
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("timed out")


# --- the two real games ------------------------------------------------------------------------

REPO = TESTS.parent


@pytest.mark.parametrize(
    "config, extra",
    [("configs/bloody_inn/marquis-rank2.toml", ["--events"]), ("configs/cluedo/logic-4p.toml", [])],
    ids=["bloody_inn", "cluedo"],
)
def test_rerun_of_a_real_game_is_row_for_row(cli, tmp_path, config, extra):
    """The resolved config the manifest records (the card table as a list, police and peasant
    rows, white_keys_count, ...) is accepted as input and plays the same files again."""
    res = cli("run", REPO / config, "--games", 120, "--chunk-games", 50, "--out", "orig", *extra)
    assert res.exit_code == 0, res.stderr
    res = cli("rerun", "orig", "--out", "again")
    assert res.exit_code == 0, res.stderr
    assert dataset_hash(tmp_path / "again") == dataset_hash(tmp_path / "orig")
    a, b = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("orig", "again"))
    assert a["resolved"] == b["resolved"] and a["events"] == b["events"] == bool(extra)
    for table in a["tables"]:
        assert dataset.read_table(tmp_path / "again", table).equals(
            dataset.read_table(tmp_path / "orig", table)
        )


def test_resume_names_a_changed_card_by_its_id(cli, tmp_path):
    text = (REPO / "configs/bloody_inn/marquis-rank2.toml").read_text()
    (tmp_path / "m.toml").write_text(text)
    res = cli("run", "m.toml", "--games", 20, "--out", "d")
    assert res.exit_code == 0, res.stderr
    (tmp_path / "m.toml").write_text(text.replace("rank = 2", "rank = 3"))
    one_line(
        cli("run", "m.toml", "--games", 20, "--out", "d", "--resume"), "first difference: cards.marquis.rank"
    )
