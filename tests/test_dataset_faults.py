"""Fault injection at scale: real `sim run` processes killed at random moments by
random signals, then resumed; and killed between a file's write and its rename.

The processes are forked from a forkserver that has already imported the simulator, so each
costs milliseconds instead of a Python start-up; they run the real CLI (``sim.cli.main``) on
the fake game and die by real signals.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import random
import signal
import sys
import time
from pathlib import Path

import fake_adapter
import pytest
from typer.testing import CliRunner

from sim import dataset, registry
from sim.cli import app

RUN = 'game = "fakegame"\nplayers = 3\ngames = 800\nseed = 11\n[rules]\ndeck_size = 30\nsleep_s = 0.03\n'
ARGS = ["run", "r.toml", "--chunk-games", 100, "--events"]  # 8 chunks of 3 tables
TRIALS = 30
SIGNALS = (signal.SIGKILL, signal.SIGINT, signal.SIGTERM)

_CTX = mp.get_context("forkserver")
# the forkserver imports the CLI once (numpy, pyarrow, polars, typer...); every child inherits it
# (a module of tests/ could not be preloaded: the forkserver does not see pytest's sys.path)
_CTX.set_forkserver_preload(["sim.cli", "sim.commands.run", "sim.runner"])


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


def _child(argv, cwd, log, stop_before_rename=None):
    """Run ``sim ARGV`` in ``cwd`` as the console script does (output to ``log``) and exit
    the way a process exits, with the CLI's status."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(cwd)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        fake_adapter.install()
        if stop_before_rename:
            _stop_before_rename(*stop_before_rename)
        from sim.cli import main

        Path(cwd, f"ready-{os.getpid()}").touch()  # the random moments count from here
    except KeyboardInterrupt:
        os._exit(130)  # stopped before the CLI started, as Python itself would be
    sys.argv = ["sim", *[str(a) for a in argv]]
    try:
        main()
    except SystemExit as exc:
        sys.stdout.flush()
        os._exit(0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1)
    os._exit(0)


def _stop_before_rename(suffix, nth):
    """kill -9 this process at the ``nth`` rename onto a path ending in ``suffix``."""
    real, count = os.replace, [0]

    def replace(src, dst, *a, **kw):
        if str(dst).replace(os.sep, "/").endswith(suffix):
            count[0] += 1
            if count[0] == nth:
                os.kill(os.getpid(), signal.SIGKILL)  # the file is written, not yet renamed
        return real(src, dst, *a, **kw)

    os.replace = replace


def _start(argv, cwd, **kw):
    p = _CTX.Process(target=_child, args=(argv, str(cwd), str(cwd / "log.txt")), kwargs=kw)
    p.start()
    return p


def _wait_ready(p, cwd):
    while not (cwd / f"ready-{p.pid}").exists() and p.exitcode is None:
        time.sleep(0.001)


def _run(argv, cwd, **kw):
    p = _start(argv, cwd, **kw)
    p.join(120)
    return p.exitcode


def dataset_hash(out):
    m = dataset.verify(out)
    return [(info["path"], info["sha256"]) for c in m["chunks"] for info in c["files"].values()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run: its files' hashes and how long it took."""
    where = tmp_path_factory.mktemp("ref")
    (where / "r.toml").write_text(RUN)
    assert _run([*ARGS, "--out", "warm-up"], where) == 0, (where / "log.txt").read_text()  # the forkserver
    p = _start([*ARGS, "--out", "ref"], where)
    _wait_ready(p, where)
    t0 = time.perf_counter()
    p.join(120)
    span = time.perf_counter() - t0
    assert p.exitcode == 0, (where / "log.txt").read_text()
    ref = dataset_hash(where / "ref")
    assert len(ref) == 24
    return ref, span


def test_killed_at_30_random_moments_and_resumed_gives_the_same_dataset(tmp_path, reference):
    (tmp_path / "r.toml").write_text(RUN)
    ref, span = reference
    rng = random.Random(20261201)
    seen = []
    for trial in range(TRIALS):
        out = f"cut{trial}"
        sig = rng.choice(SIGNALS)
        delay = rng.uniform(0.0, 1.2 * span)
        p = _start([*ARGS, "--out", out], tmp_path)
        _wait_ready(p, tmp_path)
        time.sleep(delay)
        try:
            os.kill(p.pid, sig)
        except ProcessLookupError:
            pass  # it had finished
        p.join(60)
        log = (tmp_path / "log.txt").read_text()[-1500:]
        assert p.exitcode in (0, 130, -signal.SIGKILL, -signal.SIGTERM), (trial, sig, delay, p.exitcode, log)
        cut = tmp_path / out
        kept = None
        if dataset.manifest_path(cut).is_file():
            m = dataset.verify(cut)  # whatever a kill leaves is whole and listed
            assert dataset.effective_status(cut, m) in ("interrupted", "complete")
            if p.exitcode == 130:  # stopped politely: the manifest says so, unless it had completed
                assert m["status"] == "interrupted" or (
                    m["status"] == "complete" and m["games_done"] == m["games"]
                ), (trial, sig, delay, m["status"])
            kept = len(m["chunks"])
            assert dataset_hash(cut) == ref[: 3 * kept] or m["status"] == "complete"
        seen.append((sig.name, round(delay, 2), p.exitcode, kept))
        code = _run([*ARGS, "--out", out, "--resume"], tmp_path)
        assert code == 0, (trial, sig, delay, (tmp_path / "log.txt").read_text()[-2000:])
        assert dataset_hash(cut) == ref, (trial, sig, delay)
        assert not list(cut.rglob("*.tmp"))
    # the trials did hit the run at different stages, with every kind of signal
    assert {s for s, *_ in seen} == {s.name for s in SIGNALS}
    kept = [k for *_, k in seen]
    assert any(k is None or k == 0 for k in kept) and any(k and 0 < k < 8 for k in kept)
    print(
        "\n".join(
            f"trial {i}: {s} after {d} s -> exit {c}, chunks kept {k}" for i, (s, d, c, k) in enumerate(seen)
        )
    )


@pytest.mark.parametrize(
    "stop, nth",
    [("games/part-00003.parquet", 1), ("events/part-00003.parquet", 1), ("manifest.json", 5)],
    ids=["first-table", "last-table", "manifest"],
)
def test_killed_between_write_and_rename(tmp_path, stop, nth, monkeypatch, reference):
    """kill -9 after a file is written under its temporary name, before the rename (for the
    manifest: its 5th rename, the one recording chunk 3)."""
    (tmp_path / "r.toml").write_text(RUN)
    ref = reference[0]
    assert _run([*ARGS, "--out", "cut"], tmp_path, stop_before_rename=(stop, nth)) == -signal.SIGKILL
    cut = tmp_path / "cut"
    assert list(cut.rglob(".*.tmp")), "the written file is there, under its temporary name"
    m = dataset.verify(cut)  # the manifest lists chunks 0-2 only, all whole
    assert len(m["chunks"]) == 3 and m["status"] == "running"
    assert dataset_hash(cut) == ref[:9]
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["analyse", "cut", "-q", "seats", "--json"])
    assert res.exit_code == 0, res.stderr
    warnings = json.loads(res.stdout)["warnings"]
    assert any("cut is interrupted" in w and "300 finished games of 800" in w for w in warnings), warnings
    assert _run([*ARGS, "--out", "cut"], tmp_path) == 2  # refused: unfinished, not silently redone
    assert _run([*ARGS, "--out", "cut", "--resume"], tmp_path) == 0
    assert dataset_hash(cut) == ref and not list(cut.rglob("*.tmp"))
