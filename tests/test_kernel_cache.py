"""The compile cache (kernels/__init__.py): keyed by every kernel source and compile flag, and it
keeps what other processes may still use."""

import os

from kernels import prune_old_caches


def _cache(base, name, age_s, now):
    d = base / name
    d.mkdir()
    (d / "index.nbi").write_text("x")
    os.utime(d, (now - age_s, now - age_s))
    return d


def test_only_old_caches_beyond_the_newest_three_are_deleted(tmp_path):
    now = 1_800_000_000.0
    day = 24 * 3600
    keep = _cache(tmp_path, "bloody_inn-current", 30 * day, now)  # the one in use: never deleted
    recent = [_cache(tmp_path, f"bloody_inn-r{i}", i * 3600, now) for i in range(1, 6)]
    old = [_cache(tmp_path, f"bloody_inn-o{i}", (10 + i) * day, now) for i in range(3)]
    other_game = _cache(tmp_path, "cluedo-x", 100 * day, now)
    removed = prune_old_caches(tmp_path, "bloody_inn", keep=keep, now=now, newest=3)
    assert sorted(removed) == sorted(old)
    assert all(p.exists() for p in [keep, *recent, other_game])
    assert not any(p.exists() for p in old)


def test_old_caches_within_the_newest_are_kept(tmp_path):
    now = 1_800_000_000.0
    day = 24 * 3600
    keep = _cache(tmp_path, "cluedo-current", 0, now)
    old = [_cache(tmp_path, f"cluedo-o{i}", (10 + i) * day, now) for i in range(4)]
    removed = prune_old_caches(tmp_path, "cluedo", keep=keep, now=now, newest=3)
    assert removed == [old[3]]  # the oldest of four: only it is beyond the newest three


TOY = """
import numpy as np
from numba import njit


@njit(cache=True)
def element(a, i):
    return a[i]
"""

PROBE = """
import json, os, sys
from numba.core import event
import kernels

compiled = []


class Compiles(event.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__qualname__)

    def on_end(self, e):
        pass


event.register("numba:compile", Compiles())
import numpy as np
import toy_kernel

try:
    toy_kernel.element(np.arange(3), 3)
    outside = "read"
except IndexError:
    outside = "IndexError"
print("RESULT", json.dumps({"dir": kernels.CACHE_DIR, "compiled": compiled, "outside": outside,
                            "files": sorted(f for _, _, fs in os.walk(kernels.CACHE_DIR) for f in fs)}))
"""


def _probe(tmp_path, **flags):
    """Run PROBE in a fresh interpreter with the cache base in ``tmp_path`` and ``flags`` set
    (every compile setting of ``kernels.COMPILE_FLAGS`` not in ``flags`` unset)."""
    import json
    import subprocess
    import sys

    from kernels import COMPILE_FLAGS

    (tmp_path / "toy_kernel.py").write_text(TOY)
    (tmp_path / "probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k not in COMPILE_FLAGS and k != "NUMBA_CACHE_DIR"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env.update(BOARDSIM_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join([root, str(tmp_path)]))
    env.update(flags)
    out = subprocess.run(
        [sys.executable, "probe.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.split("RESULT ", 1)[1])


def test_flipping_a_compile_flag_on_a_warm_cache_recompiles_and_never_loads_the_other_build(tmp_path):
    """Numba keys its cache on the function's source file only: without the flags in the
    directory's key, a bounds-checked run would load the unchecked build (and read past the
    array) and the other way round."""
    plain = _probe(tmp_path)
    assert plain["compiled"] == ["element"] and plain["outside"] == "read"
    assert any(f.startswith("toy_kernel.element") and f.endswith(".nbi") for f in plain["files"])
    warm = _probe(tmp_path)
    assert warm["compiled"] == [] and warm["dir"] == plain["dir"]  # loaded from the cache
    checked = _probe(tmp_path, NUMBA_BOUNDSCHECK="1")
    assert checked["compiled"] == ["element"] and checked["outside"] == "IndexError"
    assert checked["dir"] != plain["dir"]
    assert _probe(tmp_path, NUMBA_BOUNDSCHECK="1")["compiled"] == []  # warm with the checks
    again = _probe(tmp_path)
    assert again["compiled"] == [] and again["outside"] == "read"  # not the checked build
    unoptimised = _probe(tmp_path, NUMBA_OPT="0")
    assert unoptimised["compiled"] == ["element"] and unoptimised["dir"] not in (plain["dir"], checked["dir"])


def test_every_compile_flag_and_every_kernel_source_changes_the_cache_key(tmp_path, monkeypatch):
    import kernels

    base = kernels.source_hash({})
    keys = {kernels.source_hash({flag: "1"}) for flag in kernels.COMPILE_FLAGS}
    assert len(keys) == len(kernels.COMPILE_FLAGS) and base not in keys
    assert kernels.source_hash({"NUMBA_NUM_THREADS": "1"}) == base  # threads: same machine code
    assert {"NUMBA_OPT", "NUMBA_BOUNDSCHECK"} <= set(kernels.COMPILE_FLAGS)
    tree = tmp_path / "kernels"
    (tree / "cluedo").mkdir(parents=True)
    (tree / "rng.py").write_text("x = 1\n")
    (tree / "cluedo" / "rules.py").write_text("y = 2\n")
    monkeypatch.setattr(kernels, "_ROOT", tree)
    before = kernels.source_hash({})
    (tree / "cluedo" / "rules.py").write_text("y = 3\n")
    assert kernels.source_hash({}) != before


def test_compile_once_waits_for_another_process_holding_the_cache_lock(tmp_path):
    # two processes starting on a cold cache must not compile into it together: the second
    # waits on the cache directory's lock, then warms (loads what the first wrote)
    import fcntl
    import subprocess
    import sys
    import time

    code = (
        "import sys\nfrom kernels import compile_once\n"
        f"compile_once({str(tmp_path)!r}, 'k', lambda: print('warm', flush=True))\n"
        "compile_once(sys.argv[0], 'k', lambda: print('twice', flush=True))\n"  # same key: not again
    )
    with open(tmp_path / ".compile.lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        time.sleep(2.0)
        assert proc.poll() is None  # blocked on the lock
        fcntl.flock(fh, fcntl.LOCK_UN)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.split() == ["warm"]


def test_both_games_warm_their_kernel_under_the_lock_before_playing(monkeypatch):
    import kernels.bloody_inn.play as bi_play
    from sim import api

    seen = []

    def record(cache_dir, key, warm):
        seen.append((cache_dir, key))
        warm()

    import kernels

    monkeypatch.setattr(bi_play, "compile_once", record)
    monkeypatch.setattr(kernels, "compile_once", record)  # the Cluedo adapter imports it at call time
    for game, players in (("bloody_inn", 2), ("cluedo", 3)):
        res = api.simulate({"game": game, "players": players, "games": 4, "seed": 1})
        assert res.games.num_rows == 4
    assert len(seen) == 2 and {str(d) for d, _ in seen} == {kernels.CACHE_DIR}
