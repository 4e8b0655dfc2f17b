"""The source-keyed compile cache keeps what other processes may still use (kernels/__init__.py)."""

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


def test_each_games_functions_cache_under_its_own_source_hash_whatever_the_import_order():
    # the global numba CACHE_DIR is one per process; a module of one game imported after the
    # other game's package was set up must still cache under its own game's hash
    import subprocess
    import sys

    code = (
        "import kernels.bloody_inn.layout, kernels.cluedo.layout\n"
        "import kernels.bloody_inn.play as b, kernels.cluedo.play as c, kernels.bloody_inn, kernels.cluedo\n"
        "print(b._write_rows._cache._cache_path)\nprint(c._write_rows._cache._cache_path)\n"
        "print(kernels.bloody_inn.CACHE_DIR)\nprint(kernels.cluedo.CACHE_DIR)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    bi_path, cl_path, bi_dir, cl_dir = out.split("\n")[:4]
    assert bi_path.startswith(bi_dir + os.sep) and cl_path.startswith(cl_dir + os.sep)
    assert os.path.basename(bi_dir).startswith("bloody_inn-") and os.path.basename(cl_dir).startswith(
        "cluedo-"
    )
