"""Numba kernels: njit code over flat NumPy arrays only (no I/O, no Python objects).

See ``kernels/rng.py`` for the per-game counter-based random stream and one
sub-package per game (``kernels/bloody_inn``, ``kernels/cluedo``).

Compile cache.  Numba's on-disk cache (``cache=True``) is invalidated only when the
*file of the cached function itself* changes, not when a function it calls (and inlines)
in another file changes — an edited rule could silently keep running the old code.  So
the cache lives in a directory named after a hash of every kernel source file: any
edit to any kernel file starts a fresh cache.  Base directory: ``$BOARDSIM_CACHE_DIR``,
else ``$NUMBA_CACHE_DIR``, else ``~/.cache/boardsim``.
"""
import hashlib
import os
import shutil
from pathlib import Path

import numba


def _source_hash():
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    h.update(numba.__version__.encode())
    return h.hexdigest()[:16]


def _set_cache_dir():
    base = os.environ.get("BOARDSIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    base = Path(base) if base else Path.home() / ".cache" / "boardsim"
    target = base / f"numba-{SOURCE_HASH}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        # keep the few most recent caches, drop older ones
        old = sorted((p for p in base.glob("numba-*") if p != target),
                     key=lambda p: p.stat().st_mtime, reverse=True)
        for p in old[4:]:
            shutil.rmtree(p, ignore_errors=True)
    except OSError:
        return
    numba.config.CACHE_DIR = str(target)


SOURCE_HASH = _source_hash()
_set_cache_dir()
