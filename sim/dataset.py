"""The dataset on disk: layout, manifest and crash-safe chunk files.

::

    <out>/manifest.json              resolved config, seed, versions, git commit, chunks, status
    <out>/games/part-NNNNN.parquet   one row per game
    <out>/seats/part-NNNNN.parquet   one row per (game, seat)
    <out>/events/part-NNNNN.parquet  one row per event (only when events were asked for)
    <out>/trajectory/part-NNNNN.parquet  one row per game, round and seat (only when asked for)

A chunk file is written under a hidden temporary name (``.part-NNNNN.parquet.tmp``, which no
Parquet reader globbing ``*.parquet`` picks up) and renamed when complete; only then is the chunk
added to the manifest, which is itself replaced atomically.  A run killed at any moment
therefore leaves complete, hashed chunk files and a manifest listing exactly those.

:func:`write_chunk_files` does not touch the manifest, so it can run anywhere that sees the
output directory (a worker process); :class:`DatasetWriter` records its result.
"""

from __future__ import annotations

import datetime as _dt
import errno
import functools
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import SimError

FORMAT = "boardsim-dataset"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
#: The writer's lock file (see :class:`FolderLock`); readers never read it.
LOCK = ".lock"
TABLES = ("games", "seats", "events", "trajectory")
COMPRESSION = "zstd"
#: ``game_id`` rises game after game (by one in ``games``, in runs in ``seats`` and ``events``)
#: and the events' ``seq`` within a game: delta encoding stores them in a few bits a row,
#: where a dictionary of a chunk's 100,000 distinct ids took the most write time of any
#: column and a fifth of the seats file.
DELTA_COLUMNS = ("game_id", "seq")
#: Tables whose every integer column is delta-encoded: the trajectory's columns move by small
#: steps from one row to the next (round by round, seat by seat), and delta encoding writes
#: them in about a fifth less CPU than dictionaries (the table's write was half of what
#: recording trajectories cost a run), in every Parquet reader.
DELTA_TABLES = ("trajectory",)
#: Min/max statistics are written for ``game_id`` only: every chunk file spans every seat,
#: strategy and value range, so no other column's min/max can let a reader skip a file, and
#: computing them took about a tenth of the write.
STATISTICS_COLUMNS = ("game_id",)

#: Core columns of design.md, in order, with their Arrow types (game columns follow them).
CORE_COLUMNS = {
    "games": [
        ("game_id", pa.int64()),
        ("config_id", pa.string()),
        ("players", pa.int8()),
        ("rounds", pa.int16()),
        ("turns", pa.int32()),
        ("winner", pa.int8()),
        ("n_winners", pa.int8()),
        ("truncated", pa.int8()),
    ],
    "seats": [
        ("game_id", pa.int64()),
        ("config_id", pa.string()),
        ("seat", pa.int8()),
        ("strategy", pa.string()),
        ("score", pa.int16()),
        ("place", pa.int8()),
        ("win", pa.float32()),
    ],
}


def part_name(index):
    """File name of chunk ``index``: ``part-00042.parquet``."""
    return f"part-{index:05d}.parquet"


def now_iso():
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# --- provenance ---------------------------------------------------------------------

_VERSION_PACKAGES = ("boardsim", "numpy", "numba", "llvmlite", "pyarrow", "polars", "typer")


@functools.lru_cache(maxsize=1)
def package_versions():
    """Versions of Python and the packages that shape the data."""
    out = {"python": platform.python_version()}
    for name in _VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


@functools.lru_cache(maxsize=1)
def git_state():
    """``{"commit": sha or None, "dirty": bool or None}`` of the source tree ``sim`` came from."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        if commit.returncode != 0:
            return {"commit": None, "dirty": None}
        # Dirty: the simulator's own code (sim/, kernels/) differs from the commit.
        status = subprocess.run(
            ["git", "-C", str(here.parent), "status", "--porcelain", "--", "sim", "kernels"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
        return {"commit": commit.stdout.strip(), "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


# --- manifest -----------------------------------------------------------------------


def manifest_path(out):
    return Path(out) / MANIFEST


def read_manifest(out, *, writing=False):
    """The manifest dict of the dataset at ``out``, or ``None`` if there is none.

    ``writing``: the caller is about to write a dataset there, so a broken manifest's message
    may suggest ``--force`` (the readers, ``analyse``, ``report`` and ``replay``, have no such option).
    """
    p = manifest_path(out)
    if not p.is_file():
        return None
    hint = "; use --force to overwrite the dataset" if writing else ""
    try:
        with p.open(encoding="utf-8") as fh:
            m = json.load(fh)
    except (OSError, ValueError) as exc:  # ValueError: JSON or UTF-8 decoding
        raise SimError(f"{p}: unreadable manifest ({exc}){hint}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise SimError(f"{p}: not a {FORMAT} manifest{hint}")
    return m


def write_manifest(out, manifest):
    """Replace ``manifest.json`` atomically (write a temporary file, then rename).

    If the write fails (a full disk) the previous manifest is left as it was, so the dataset
    stays consistent and resumable; the ``OSError`` is passed on.
    """
    p = manifest_path(out)
    tmp = p.with_name("." + MANIFEST + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1, sort_keys=False)
            fh.write("\n")
        os.replace(tmp, p)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def sha256_file(path, bufsize=1 << 20):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(bufsize)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


# --- operating-system errors --------------------------------------------------------

_WHAT_TO_DO = {
    errno.ENOSPC: "the disk is full; free some space",
    errno.EDQUOT: "the disk quota is exceeded; free some space",
    errno.EROFS: "the file system is read-only; choose a writable --out",
    errno.EACCES: "permission denied; choose a folder you can write to",
    errno.EPERM: "permission denied; choose a folder you can write to",
    errno.ENOTDIR: "a parent of this path is a file, not a folder; choose another path",
    errno.EEXIST: "a file of that name is in the way; choose another path",
    errno.EISDIR: "this is a folder, not a file",
    errno.ENOENT: "no such file or folder",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EIO: "input/output error (a failing disk?)",
}


def os_error_line(exc, path=None, doing="writing"):
    """One line for an ``OSError``: the path, what failed and what to do."""
    where = path or exc.filename or "?"
    what = _WHAT_TO_DO.get(exc.errno) or (exc.strerror or str(exc))
    return f"{where}: {doing} failed: {what}"


class DatasetError(SimError):
    """A dataset that does not match its manifest (missing, changed or unreadable chunk)."""


# --- one writer per folder -----------------------------------------------------------

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, as before
    fcntl = None


class FolderLock:
    """An exclusive OS lock on ``<folder>/.lock`` while a run, sweep or study writes there.

    ``flock`` locks belong to the open file, so the operating system releases them when the
    process dies however it dies (``kill -9`` included): a stale lock can never block
    ``--resume``.  The file's text (pid, host, start time) only serves the refusal message.
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self._fh = None

    def acquire(self):
        path = self.folder / LOCK
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fh = open(path, "a+", encoding="utf-8")
        except OSError as exc:
            raise SimError(os_error_line(exc, self.folder, "creating the output folder")) from None
        if fcntl is not None:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                fh.close()
                raise SimError(
                    f"{self.folder} is being written by another process ({holder}); wait for it "
                    "to finish or stop it: one writer per folder, --force included"
                ) from None
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()} on {platform.node()} since {now_iso()}\n")
            fh.flush()
        except OSError:
            pass  # a full disk: the lock holds all the same
        self._fh = fh
        return self

    def release(self):
        if self._fh is not None:
            self._fh.close()  # closing the file drops the flock
            self._fh = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
        return False


def is_locked(folder):
    """True while some process holds the writer's lock on ``folder``."""
    path = Path(folder) / LOCK
    if fcntl is None or not path.is_file():
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except OSError:
        return False


# --- chunk files --------------------------------------------------------------------


def _is_string(t):
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def check_core_columns(name, table):
    """Fail loudly (a programming error, not a user one) if an adapter breaks the contract."""
    for i, (col, typ) in enumerate(CORE_COLUMNS.get(name, ())):
        if i >= table.num_columns or table.schema.names[i] != col:
            raise RuntimeError(
                f"{name} table: column {i} should be {col!r}, got {table.schema.names[: i + 1]}"
            )
        actual = table.schema.field(i).type
        if actual != typ and not (_is_string(typ) and _is_string(actual)):
            raise RuntimeError(f"{name}.{col} should be {typ}, got {actual}")


def parquet_options(table, name=None):
    """``pyarrow.parquet.write_table`` options of a chunk file of table ``name``: zstd, delta
    encoding for the rising id columns (``DELTA_COLUMNS``) and for every integer column of a
    ``DELTA_TABLES`` table, dictionaries for the others, statistics for
    ``STATISTICS_COLUMNS``."""
    names = table.column_names
    delta = [
        c
        for c in names
        if (c in DELTA_COLUMNS or name in DELTA_TABLES) and pa.types.is_integer(table.schema.field(c).type)
    ]
    return {
        "compression": COMPRESSION,
        "use_dictionary": [c for c in names if c not in delta],
        "column_encoding": {c: "DELTA_BINARY_PACKED" for c in delta},
        "write_statistics": [c for c in names if c in STATISTICS_COLUMNS],
    }


def write_chunk_files(out, index, start, count, tables):
    """Write one chunk's tables under temporary names, rename them, hash them.

    Parameters
    ----------
    out : path
        Dataset directory (its table sub-directories must exist).
    index, start, count : int
        Chunk number and its game range ``start .. start+count-1``.
    tables : dict[str, pyarrow.Table]
        ``games``, ``seats`` and optionally ``events`` and ``trajectory``.

    Returns
    -------
    dict
        The chunk's manifest entry: index, start, games and per table path, rows, bytes, sha256.
    """
    out = Path(out)
    files = {}
    for name in TABLES:
        table = tables.get(name)
        if table is None:
            continue
        check_core_columns(name, table)
        # One contiguous chunk per column: the file's bytes do not depend on how the rows
        # were produced (slices, workers), so equal data gives equal sha256.
        table = table.combine_chunks()
        final = out / name / part_name(index)
        tmp = final.with_name("." + final.name + ".tmp")
        try:
            pq.write_table(table, tmp, **parquet_options(table, name))
            digest = sha256_file(tmp)
            size = tmp.stat().st_size
            os.replace(tmp, final)
        except OSError:
            # a full disk leaves no half-written file behind, nor this chunk's other tables
            # (unrecorded, so never read): the space they free lets the manifest be updated
            tmp.unlink(missing_ok=True)
            for done in files.values():
                (out / done["path"]).unlink(missing_ok=True)
            raise
        files[name] = {
            "path": f"{name}/{final.name}",
            "rows": table.num_rows,
            "bytes": size,
            "sha256": digest,
        }
    return {"index": int(index), "start": int(start), "games": int(count), "files": files}


def chunk_intact(out, entry):
    """True if every file of a manifest chunk entry exists with its recorded sha256."""
    out = Path(out)
    for info in entry["files"].values():
        p = out / info["path"]
        if not p.is_file() or p.stat().st_size != info["bytes"] or sha256_file(p) != info["sha256"]:
            return False
    return True


def remove_temporaries(out):
    """Delete chunk files a killed run left half-written."""
    for name in TABLES:
        d = Path(out) / name
        if d.is_dir():
            for p in d.glob(".part-*.tmp"):
                p.unlink(missing_ok=True)
    Path(out, "." + MANIFEST + ".tmp").unlink(missing_ok=True)


def clear_dataset(out):
    """Remove a dataset's own files (manifest and table folders, so every chunk file, listed
    or not), nothing else in ``out``.  The manifest goes first: a crash half-way leaves
    files without a manifest, which nothing reads."""
    out = Path(out)
    try:
        manifest_path(out).unlink(missing_ok=True)
        Path(out, "." + MANIFEST + ".tmp").unlink(missing_ok=True)
        for name in TABLES:
            if (out / name).is_dir():
                shutil.rmtree(out / name)
    except OSError as exc:
        raise SimError(os_error_line(exc, None, "removing the old dataset")) from None


class DatasetWriter:
    """Owns a dataset's manifest while a run fills it.

    Parameters
    ----------
    out : path
        The dataset directory.
    manifest : dict
        The manifest to keep (status ``running`` until :meth:`complete`).
    """

    def __init__(self, out, manifest):
        self.out = Path(out)
        self.manifest = manifest
        for name in manifest["tables"]:
            (self.out / name).mkdir(parents=True, exist_ok=True)
        write_manifest(self.out, self.manifest)

    def done_indices(self):
        return {c["index"] for c in self.manifest["chunks"]}

    def write_chunk(self, index, start, count, tables):
        """Write a chunk's files and record them."""
        entry = write_chunk_files(self.out, index, start, count, tables)
        try:
            self.record(entry)
        except OSError:
            # the manifest could not be updated (a full disk): the chunk stays unrecorded, and
            # its files go so the space they take lets the manifest say what was kept
            for info in entry["files"].values():
                (self.out / info["path"]).unlink(missing_ok=True)
            self.manifest["chunks"] = [c for c in self.manifest["chunks"] if c["index"] != index]
            self.manifest["games_done"] = sum(c["games"] for c in self.manifest["chunks"])
            raise
        return entry

    def record(self, entry):
        """Add a finished chunk to the manifest (kept sorted by game range)."""
        chunks = [c for c in self.manifest["chunks"] if c["index"] != entry["index"]]
        chunks.append(entry)
        chunks.sort(key=lambda c: c["index"])
        self.manifest["chunks"] = chunks
        self.manifest["games_done"] = sum(c["games"] for c in chunks)
        self.manifest["updated"] = now_iso()
        write_manifest(self.out, self.manifest)

    def complete(self, **extra):
        """Mark the dataset complete (every chunk is on disk)."""
        self.manifest.update(extra)
        self.manifest["status"] = "complete"
        self.manifest["finished"] = now_iso()
        write_manifest(self.out, self.manifest)
        return self.manifest


# --- reading ------------------------------------------------------------------------

_PART_PATH = re.compile(r"(games|seats|events|trajectory)/part-\d{5,}\.parquet")
#: Threads hashing chunk files (hashlib releases the GIL on large blocks).
HASH_THREADS = max(1, min(8, os.cpu_count() or 1))


def _file_problem(out, info):
    """What is wrong with one listed chunk file (``None`` when it matches the manifest)."""
    path = out / info["path"]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if not path.is_file():
        return "not a file"
    if size != info.get("bytes", size):
        return f"changed ({size:,} bytes, the manifest says {info['bytes']:,})"
    try:
        digest = sha256_file(path)
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if digest != info.get("sha256"):
        return "changed (its sha256 differs from the manifest's)"
    try:
        rows = pq.read_metadata(path).num_rows
    except (OSError, pa.ArrowException) as exc:
        return f"not a readable Parquet file ({exc})"
    if rows != info.get("rows"):
        return f"holds {rows:,} rows, the manifest says {info.get('rows')}"
    return None


def _bad_manifest(out, why):
    return DatasetError(f"{manifest_path(out)}: {why}; the dataset cannot be trusted, nothing was read")


def _listed_files(out, manifest):
    """``[(chunk, table, info)]`` of every file the manifest lists, checked for shape."""
    chunks = manifest.get("chunks")
    if not isinstance(chunks, list):
        raise _bad_manifest(out, "no chunk list")
    rows, seen = [], set()
    for c in chunks:
        files = c.get("files") if isinstance(c, dict) else None
        if not isinstance(files, dict) or not isinstance(c.get("games"), int):
            raise _bad_manifest(out, "a chunk entry without files or games")
        for table, info in files.items():
            p = info.get("path") if isinstance(info, dict) else None
            if not isinstance(p, str) or not _PART_PATH.fullmatch(p) or not p.startswith(table + "/"):
                raise _bad_manifest(out, f"chunk {c.get('index')} lists a file outside the dataset ({p!r})")
            if p in seen:
                raise _bad_manifest(out, f"{p} is listed twice")
            if not isinstance(info.get("sha256"), str):
                raise _bad_manifest(out, f"{p} has no sha256")
            seen.add(p)
            rows.append((c, table, info))
    held = sum(c["games"] for c in chunks)
    if "games_done" in manifest and manifest["games_done"] != held:
        raise _bad_manifest(
            out, f"games_done is {manifest['games_done']:,} but its chunks hold {held:,} games"
        )
    if manifest.get("status") == "complete" and held != manifest.get("games"):
        raise _bad_manifest(
            out, f"status complete but its chunks hold {held:,} of {manifest.get('games')} games"
        )
    return rows


def verify(out, manifest=None, *, tables=None):
    """Check a dataset against its manifest before anything reads it.

    Every chunk file the manifest lists must exist with its recorded size, sha256 and row
    count; the manifest's own bookkeeping must add up.  Files the manifest does not list are
    never read (and so cannot leak in).

    Parameters
    ----------
    out : path
        The dataset directory.
    manifest : dict, optional
        Its manifest, when already read.
    tables : iterable of str, optional
        Check only these tables' files (default: all).

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    DatasetError
        One line naming the first file that is missing, changed or unreadable.
    """
    out = Path(out)
    manifest = manifest if manifest is not None else read_manifest(out)
    if manifest is None:
        raise DatasetError(f"{out}: no {MANIFEST}; not a dataset")
    listed = [r for r in _listed_files(out, manifest) if tables is None or r[1] in tables]
    if len(listed) > 1 and HASH_THREADS > 1:
        with ThreadPoolExecutor(HASH_THREADS) as pool:
            problems = list(pool.map(lambda r: _file_problem(out, r[2]), listed))
    else:
        problems = [_file_problem(out, r[2]) for r in listed]
    for (chunk, _, info), problem in zip(listed, problems):
        if problem is not None:
            first = chunk.get("start", 0)
            raise DatasetError(
                f"{out / info['path']}: {problem}; {MANIFEST} lists it for chunk {chunk.get('index')} "
                f"(games {first:,}-{first + chunk['games'] - 1:,}), so nothing was read. "
                f"`sim run {manifest_path(out)} --out {out} --resume` plays that chunk again"
            )
    return manifest


def unlisted_files(out, manifest):
    """Chunk-like files in the table folders that the manifest does not list (never read)."""
    out = Path(out)
    listed = {info["path"] for c in manifest.get("chunks", []) for info in c.get("files", {}).values()}
    extra = []
    for name in TABLES:
        d = out / name
        if d.is_dir():
            extra += [f"{name}/{p.name}" for p in d.glob("*.parquet") if f"{name}/{p.name}" not in listed]
    return sorted(extra)


def effective_status(out, manifest):
    """The manifest's status, with a ``running`` dataset nobody writes any more (its writer
    was killed) reported as ``interrupted``."""
    status = manifest.get("status")
    if status == "running" and not is_locked(out):
        return "interrupted"
    return status


def table_files(out, name, manifest=None):
    """Paths of a table's chunk files, in game order, as the manifest lists them (unchecked;
    :func:`verify` first)."""
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if manifest is None:
        raise SimError(f"{out}: no {MANIFEST}; not a dataset")
    return [out / c["files"][name]["path"] for c in manifest["chunks"] if name in c["files"]]


def read_table(out, name="games", columns=None):
    """Read a whole table of a dataset into one Arrow table (games in order), after
    :func:`verify` has checked every file of it."""
    manifest = verify(out, tables=(name,))
    files = table_files(out, name, manifest)
    if not files:
        raise SimError(f"{out}: the dataset has no {name!r} table")
    return pa.concat_tables([pq.read_table(f, columns=columns) for f in files])
