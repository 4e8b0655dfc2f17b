"""Numba kernels: njit code over flat NumPy arrays only (no I/O, no Python objects).

See ``kernels/rng.py`` for the per-game counter-based random stream and one
sub-package per game (``kernels/bloody_inn``, ``kernels/cluedo``).

Compile cache.  Numba's on-disk cache (``cache=True``) is invalidated only when the
*file of the cached function itself* changes, not when a function it calls (and inlines)
in another file changes — an edited rule could silently keep running the old code.  So
each game package calls ``use_source_keyed_cache(__file__)`` first thing: its cache lives
in a directory named after a hash of that package's sources, ``kernels/rng.py``,
``kernels/sigs.py``, ``kernels/layout_tools.py`` and the compile settings
(``kernels/cold_compile.py``, this file), and any edit there starts a fresh cache (an edit
to another game's kernel does not).  Base
directory: ``$BOARDSIM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``, else ``~/.cache/boardsim``.

Cold compile.  The same call also trims numba's compile work that these kernels do not
need (``kernels/cold_compile.py``): final module passes of callees, unused C-ABI wrappers,
the inliner's repeated front end and copies, the compile flags' hash.
"""

import fcntl
import hashlib
import os
import shutil
import time
from pathlib import Path

import numba
from numba.core.caching import CacheImpl, UserProvidedCacheLocator

_ROOT = Path(__file__).resolve().parent


def source_hash(package_dir):
    """Hash of every ``.py`` file of ``package_dir``, the shared ``kernels/rng.py``,
    ``kernels/sigs.py`` and ``kernels/layout_tools.py``, the compile settings
    (``kernels/cold_compile.py``, ``kernels/__init__.py``: they change the machine code), and
    numba's version."""
    h = hashlib.sha256()
    files = sorted(Path(package_dir).rglob("*.py")) + [
        _ROOT / n for n in ("rng.py", "sigs.py", "layout_tools.py", "cold_compile.py", "__init__.py")
    ]
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(numba.__version__.encode())
    return h.hexdigest()[:16]


#: game package directory -> its source-keyed cache directory (``use_source_keyed_cache``)
_GAME_CACHES: dict[str, str] = {}


def _game_cache_of(py_file):
    """The cache directory of the game package holding ``py_file`` (None: in none)."""
    for d in Path(py_file).resolve().parents:
        if str(d) in _GAME_CACHES:
            return _GAME_CACHES[str(d)]
    return None


class _GameCacheLocator(UserProvidedCacheLocator):
    """Numba cache locator of a function defined in a game package: that package's own
    source-keyed directory, whatever numba's global ``CACHE_DIR`` says when the function is
    decorated (the global is one for the process: a Bloody Inn module imported after the
    Cluedo package was set up would otherwise cache under Cluedo's source hash, and an edit
    of a Bloody Inn file inlined elsewhere would not start a fresh cache)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        base = _game_cache_of(py_file)
        self._cache_path = os.path.join(base, self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.exists(py_file) or _game_cache_of(py_file) is None:
            return None  # not a game package's file: numba's own locators decide
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


def _install_locator():
    if _GameCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, _GameCacheLocator)


def use_source_keyed_cache(package_file):
    """Point numba's cache for the package's functions at a directory keyed by the package's
    source hash.

    Must run before the package's modules define their ``@njit(cache=True)`` functions
    (numba picks the cache directory when a function is decorated).  The package's own
    functions always cache there (:class:`_GameCacheLocator`); numba's global ``CACHE_DIR``
    is pointed there too, for the shared ``kernels/*.py`` helpers (in every game's hash).
    """
    from kernels.cold_compile import cheaper_cold_compile  # only where a game's kernels load

    cheaper_cold_compile()
    package_dir = Path(package_file).resolve().parent
    base = os.environ.get("BOARDSIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    base = Path(base) if base else Path.home() / ".cache" / "boardsim"
    name = package_dir.name
    target = base / f"{name}-{source_hash(package_dir)}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        prune_old_caches(base, name, keep=target)
    except OSError:
        return None
    _GAME_CACHES[str(package_dir)] = str(target)
    _install_locator()
    numba.config.CACHE_DIR = str(target)
    return target


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
