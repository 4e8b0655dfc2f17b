"""The dataset on disk: layout, manifest and crash-safe chunk files.

::

    <out>/manifest.json              resolved config, seed, versions, git commit, chunks, status
    <out>/games/part-NNNNN.parquet   one row per game
    <out>/seats/part-NNNNN.parquet   one row per (game, seat)
    <out>/events/part-NNNNN.parquet  one row per event (only when events were asked for)

A chunk file is written under a hidden temporary name (``.part-NNNNN.parquet.tmp``, which no
Parquet reader globbing ``*.parquet`` picks up) and renamed when complete; only then is the chunk
added to the manifest, which is itself replaced atomically.  A run killed at any moment
therefore leaves complete, hashed chunk files and a manifest listing exactly those.

:func:`write_chunk_files` does not touch the manifest, so it can run anywhere that sees the
output directory (a worker process); :class:`DatasetWriter` records its result.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import SimError

FORMAT = "boardsim-dataset"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
TABLES = ("games", "seats", "events")
COMPRESSION = "zstd"

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


def read_manifest(out):
    """The manifest dict of the dataset at ``out``, or ``None`` if there is none."""
    p = manifest_path(out)
    if not p.is_file():
        return None
    try:
        with p.open() as fh:
            m = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise SimError(f"{p}: unreadable manifest ({exc}); use --force to overwrite the dataset") from exc
    if m.get("format") != FORMAT:
        raise SimError(f"{p}: not a {FORMAT} manifest; use --force to overwrite")
    return m


def write_manifest(out, manifest):
    """Replace ``manifest.json`` atomically (write a temporary file, then rename)."""
    p = manifest_path(out)
    tmp = p.with_name("." + MANIFEST + ".tmp")
    with tmp.open("w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=False)
        fh.write("\n")
    os.replace(tmp, p)


def sha256_file(path, bufsize=1 << 20):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(bufsize)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


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


def write_chunk_files(out, index, start, count, tables):
    """Write one chunk's tables under temporary names, rename them, hash them.

    Parameters
    ----------
    out : path
        Dataset directory (its table sub-directories must exist).
    index, start, count : int
        Chunk number and its game range ``start .. start+count-1``.
    tables : dict[str, pyarrow.Table]
        ``games``, ``seats`` and optionally ``events``.

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
        pq.write_table(table, tmp, compression=COMPRESSION)
        digest = sha256_file(tmp)
        size = tmp.stat().st_size
        os.replace(tmp, final)
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
    """Remove a dataset's own files (manifest and table folders), nothing else in ``out``."""
    out = Path(out)
    for name in TABLES:
        if (out / name).is_dir():
            shutil.rmtree(out / name)
    manifest_path(out).unlink(missing_ok=True)
    Path(out, "." + MANIFEST + ".tmp").unlink(missing_ok=True)


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
        self.record(entry)
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


def table_files(out, name, manifest=None):
    """Paths of a table's chunk files, in game order, as the manifest lists them."""
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if manifest is None:
        raise SimError(f"{out}: no {MANIFEST}; not a dataset")
    return [out / c["files"][name]["path"] for c in manifest["chunks"] if name in c["files"]]


def read_table(out, name="games", columns=None):
    """Read a whole table of a dataset into one Arrow table (games in order)."""
    files = table_files(out, name)
    if not files:
        raise SimError(f"{out}: the dataset has no {name!r} table")
    return pa.concat_tables([pq.read_table(f, columns=columns) for f in files])
