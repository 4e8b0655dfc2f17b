"""Numba kernels: njit code over flat NumPy arrays only (no I/O, no Python objects).

See ``kernels/rng.py`` for the per-game counter-based random stream and one
sub-package per game (``kernels/bloody_inn``, ``kernels/cluedo``).

Compile cache.  Numba's on-disk cache (``cache=True``) is invalidated only when the
*file of the cached function itself* changes, not when a function it calls (and inlines)
in another file changes, nor when a compile setting changes (``NUMBA_BOUNDSCHECK=1`` would
load code built without the checks).  So the cache lives in a directory named after a hash
of every kernel source file, numba's and llvmlite's versions and every setting in
:data:`COMPILE_FLAGS`; any change there starts a fresh cache.  The directory is handed to
numba through its public setting ``NUMBA_CACHE_DIR`` (set in the environment here, before
numba is imported when ``sim`` or ``kernels`` is imported first, so child processes inherit
it) under the base ``$BOARDSIM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``, else
``~/.cache/boardsim``: an installed package's read-only ``site-packages`` is never written.
"""

import fcntl
import hashlib
import os
import shutil
import sys
import time
from importlib import metadata
from pathlib import Path

_ROOT = Path(__file__).resolve().parent

#: Environment settings that change the machine code numba builds: each is part of the cache
#: directory's name, so code built one way is never loaded the other way.
COMPILE_FLAGS = (
    "NUMBA_BOUNDSCHECK",
    "NUMBA_OPT",
    "NUMBA_LOOP_VECTORIZE",
    "NUMBA_SLP_VECTORIZE",
    "NUMBA_ENABLE_AVX",
    "NUMBA_CPU_NAME",
    "NUMBA_CPU_FEATURES",
    "NUMBA_DEBUGINFO",
    "NUMBA_FASTMATH",
    "NUMBA_EXTEND_VARIABLE_LIFETIMES",
)


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def source_hash(environ=None):
    """Hash of every ``.py`` file under ``kernels/`` (path and bytes), numba's and llvmlite's
    versions and the values of :data:`COMPILE_FLAGS` in ``environ`` (default: this process's)."""
    environ = os.environ if environ is None else environ
    h = hashlib.sha256()
    for path in sorted(_ROOT.rglob("*.py")):
        h.update(path.relative_to(_ROOT).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    h.update(f"numba={_version('numba')} llvmlite={_version('llvmlite')}".encode())
    for flag in COMPILE_FLAGS:
        h.update(f"\0{flag}={environ.get(flag, '')}".encode())
    return h.hexdigest()[:16]


def _cache_base():
    base = os.environ.get("BOARDSIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    return Path(base) if base else Path.home() / ".cache" / "boardsim"


def _set_up_cache():
    """The source- and flag-keyed cache directory, handed to numba (None: none writable, then
    numba's own default locations apply)."""
    base = _cache_base()
    target = base / f"kernels-{source_hash()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        prune_old_caches(base, "kernels", keep=target)
    except OSError:
        return None
    os.environ.setdefault("BOARDSIM_CACHE_DIR", str(base))  # children key the same base
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    if "numba" in sys.modules:  # imported before this package: its setting, read at import
        sys.modules["numba"].config.CACHE_DIR = str(target)
    return str(target)


#: Caches of other source versions younger than this are kept: another checkout or a process
#: started before an edit may still be using one (pruning by count alone deleted caches that
#: other worktrees' processes were compiling into).
PRUNE_AFTER_S = 7 * 24 * 3600


def prune_old_caches(base, name, keep, now=None, newest=3, max_age_s=PRUNE_AFTER_S):
    """Delete cache directories ``<base>/<name>-*`` other than ``keep`` that are both outside
    the ``newest`` most recently modified and unmodified for ``max_age_s`` seconds."""
    now = time.time() if now is None else now
    others = sorted(
        (p for p in Path(base).glob(f"{name}-*") if p != keep), key=lambda p: p.stat().st_mtime, reverse=True
    )
    removed = []
    for p in others[newest:]:
        if now - p.stat().st_mtime > max_age_s:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


#: kernel variants already compiled (or loaded from the cache) by this process
_READY: set = set()


def compile_once(cache_dir, key, warm):
    """Call ``warm()`` (a call that plays no game, so it only compiles or loads a kernel
    variant) the first time this process asks for ``key``, holding an exclusive lock on the
    game's cache directory meanwhile: processes starting at once on a cold cache (Ray
    workers, parallel test runs) then compile one after the other, and the later ones load
    what the first wrote, instead of writing one cache together (which has crashed them).

    ``cache_dir`` None (no writable cache): ``warm()`` without a lock.
    """
    if key in _READY:
        return
    if cache_dir is None:
        warm()
    else:
        with open(os.path.join(cache_dir, ".compile.lock"), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)  # released when the file is closed, or the process dies
            try:
                warm()
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
    _READY.add(key)


#: the cache directory of this process's kernels (None: no writable one)
CACHE_DIR = _set_up_cache()
