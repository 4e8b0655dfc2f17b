"""The runner: play a run config chunk by chunk and stream the chunks into a dataset.

A run is split into chunks of ``chunk_games`` consecutive game ids.  Every game draws from its
own random stream keyed by (seed, game id), so a chunk's rows depend only on the config and its
game range: chunks are independent tasks, can be played in any order or place, and the data is
identical whatever the thread count or chunk size.  Each finished chunk goes straight to disk
(see :mod:`sim.dataset`) and is dropped, so memory stays flat however many games are played.

Backends (:mod:`sim.backends`) decide where chunks (:mod:`sim.chunks`) are played; ``"local"``
plays them one after the other in this process, the next one playing while the last is written.
"""

from __future__ import annotations

import json
import platform
import re
import sys
import time
from pathlib import Path

from . import api, backends, dataset, registry
from .chunks import check_chunk_games, plan_chunks
from .config import config_id
from .errors import ConfigError, RunInterrupted, SimError
from .progress import make_progress


def warn(message):
    """A one-line warning on stderr (the data is fine, but the user should know)."""
    print(f"warning: {message}", file=sys.stderr)


# --- naming -------------------------------------------------------------------------


def safe_name(text):
    """``text`` as a file name: runs of other characters become ``-``."""
    text = re.sub(r"[^A-Za-z0-9._=+-]+", "-", str(text)).strip("-.")
    return text or "run"


def config_name(config, resolved):
    """Name of a run: the TOML file's stem, else the config's ``name``, else its config id."""
    if isinstance(config, (str, Path)):
        return safe_name(Path(config).stem)
    if resolved.get("name"):
        return safe_name(resolved["name"])
    return "run-" + config_id(resolved)


def default_out(config, resolved):
    """``results/<config name>/`` (relative to the working directory)."""
    return Path("results") / config_name(config, resolved)


# --- opening the output -------------------------------------------------------------


def _normalise(obj):
    return json.loads(json.dumps(obj, sort_keys=True))


def _row_label(x, y, i):
    """Rows with an id (cards) are named by it: ``cards.marquis.rank``, not ``cards.11.rank``."""
    if isinstance(x, dict) and isinstance(y, dict) and x.get("id") is not None and x.get("id") == y.get("id"):
        return x["id"]
    return i


def _first_difference(a, b, prefix=""):
    """Dotted key of the first difference between two JSON-like values (or None)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return prefix + k
            d = _first_difference(a[k], b[k], prefix + k + ".")
            if d is not None:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return prefix.rstrip(".") or "(root)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{prefix}{_row_label(x, y, i)}.")
            if d is not None:
                return d
        return None
    return None if a == b else (prefix.rstrip(".") or "(root)")


def _has_dataset_files(out):
    return any((out / name).exists() for name in dataset.TABLES) or dataset.manifest_path(out).exists()


def is_sweep_folder(out):
    """A sweep's output folder (``sweep.json`` or ``points.parquet``)."""
    from .sweep import POINTS, SWEEP_MANIFEST

    return (out / SWEEP_MANIFEST).exists() or (out / POINTS).exists()


def check_out_path(out, what="--out"):
    """Refuse an output path that cannot be a folder: a file, or under a file."""
    if out.exists() and not out.is_dir():
        raise SimError(f"{out} exists and is a file, not a folder; choose another {what}")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SimError(
                    f"{out} cannot be created: {parent} is a file, not a folder; choose another {what}"
                )
            break


def _open_existing(out, resolved, events, chunk_games, resume, force, trajectory=False):
    """Apply the overwrite policy; return the manifest to continue, or None to start afresh."""
    if is_sweep_folder(out):
        raise SimError(f"{out} is a sweep's folder (it has sweep.json); a run needs a folder of its own")
    if not out.is_dir() or not _has_dataset_files(out):
        return None
    if force:
        dataset.clear_dataset(out)
        return None
    existing = dataset.read_manifest(out, writing=True)
    if existing is None:
        if resume:
            # No manifest was ever written: nothing of it was recorded, so nothing to keep.
            dataset.clear_dataset(out)
            return None
        raise SimError(f"{out} holds dataset files without a manifest; use --force to overwrite them")
    total = existing.get("games", 0)
    done = existing.get("games_done", 0)
    if not resume:
        if existing.get("status") == "complete":
            raise SimError(
                f"{out} already holds a complete dataset ({total:,} games); "
                "use --resume to keep it or --force to overwrite it"
            )
        raise SimError(
            f"{out} holds an unfinished dataset ({done:,} of {total:,} games); "
            "use --resume to complete it or --force to start over"
        )
    diff = _first_difference(existing.get("resolved"), _normalise(resolved))
    if diff is not None:
        raise SimError(
            f"{out} was made from a different config (first difference: {diff}); "
            "--resume needs the same config, or use --force to start over"
        )
    if bool(existing.get("events")) != bool(events):
        raise SimError(
            f"{out} was made with events={existing.get('events')}; --resume needs the same --events setting"
        )
    if bool(existing.get("trajectory")) != bool(trajectory):
        raise SimError(
            f"{out} was made with trajectory={bool(existing.get('trajectory'))}; "
            "--resume needs the same --trajectory setting"
        )
    if chunk_games is not None and chunk_games != existing.get("chunk_games"):
        raise SimError(
            f"{out} was written in chunks of {existing.get('chunk_games'):,} games; "
            "--resume needs the same --chunk-games (or leave it out)"
        )
    return existing


def build_manifest(resolved, name, source, events, chunk_games, trajectory=False):
    """The manifest of a new dataset (status ``running``, no chunks yet).

    The one place the manifest's keys are chosen: a self-describing fact added here is
    written by every run and sweep point.
    """
    tables = ["games", "seats"] + (["events"] if events else []) + (["trajectory"] if trajectory else [])
    return {
        "format": dataset.FORMAT,
        "format_version": dataset.FORMAT_VERSION,
        "status": "running",
        "game": resolved["game"],
        "name": name,
        "source": source,
        "config_id": config_id(resolved),
        "seed": resolved["seed"],
        "games": resolved["games"],
        "games_done": 0,
        "chunk_games": chunk_games,
        "events": bool(events),
        "trajectory": bool(trajectory),
        "tables": tables,
        "resolved": _normalise(resolved),
        "facts": _normalise(registry.dataset_facts(resolved)),
        "versions": dataset.package_versions(),
        "git": dataset.git_state(),
        "created": dataset.now_iso(),
        "updated": dataset.now_iso(),
        "sessions": [],
        "chunks": [],
    }


# --- the run ------------------------------------------------------------------------


def run_resolved(
    resolved,
    out,
    *,
    name=None,
    source=None,
    threads=None,
    chunk_games=None,
    events=False,
    resume=False,
    force=False,
    progress=None,
    backend="local",
    precision=None,
    precision_on="seat0",
    trajectory=False,
):
    """Run an already resolved config into ``out``; see :func:`run_dataset`.

    The output folder is locked (:class:`sim.dataset.FolderLock`) from before the overwrite
    policy is applied until the run ends, so a second writer (``--force`` included) is
    refused instead of mixing its chunks into this one's.
    """
    out = Path(out)
    backend_fn = backends.get_backend(backend)
    stop = _precision_stop(resolved, precision, precision_on)
    if stop is not None and chunk_games is None:
        chunk_games = _precision_chunk()
    if threads is not None and backend == "local":
        api.set_threads(threads)  # validate before touching the output
    elif threads is not None and hasattr(backend_fn, "check_threads"):
        backend_fn.check_threads(threads)
    if chunk_games is not None:
        check_chunk_games(chunk_games, events)
    if trajectory:
        api.check_trajectory(resolved["game"])
    if resume and force:
        raise SimError(
            "--resume and --force exclude each other: resume keeps the finished chunks, force deletes them"
        )
    check_out_path(out)
    with dataset.FolderLock(out):
        return _run_locked(
            resolved,
            out,
            backend_fn,
            name,
            source,
            threads,
            chunk_games,
            events,
            resume,
            force,
            progress,
            backend,
            stop=stop,
            trajectory=trajectory,
        )


def _continue_manifest(out, existing):
    """An existing manifest ready to resume: only chunks whose files are intact are kept (a
    damaged one is simply played again)."""
    started = (existing.get("git") or {}).get("commit")
    now = dataset.git_state()["commit"]
    if started and now and started != now and existing.get("status") != "complete":
        warn(
            f"{out} was started with the code at commit {started[:12]} and is resumed at "
            f"{now[:12]}; if the kernels changed in between, start over with --force"
        )
    existing["chunks"] = [c for c in existing["chunks"] if dataset.chunk_intact(out, c)]
    existing["games_done"] = sum(c["games"] for c in existing["chunks"])
    return existing


def _stop_session(out, manifest, session, played0, t0):
    """Record an interrupted session; the manifest says ``interrupted`` with the games kept.
    A full disk may refuse even that: the previous manifest then stays, consistent.
    An interrupt that lands as the session completes keeps ``complete`` (every chunk is on
    disk), written again in case the interrupt cut that write short."""
    if manifest.get("status") == "complete":
        try:
            dataset.write_manifest(out, manifest)
        except OSError:
            pass
        return manifest["games_done"]
    manifest["status"] = "interrupted"
    session.update(
        finished=dataset.now_iso(),
        interrupted=True,
        games_played=manifest["games_done"] - played0,
        elapsed_s=round(time.perf_counter() - t0, 3),
    )
    try:
        dataset.write_manifest(out, manifest)
    except OSError:
        pass
    return manifest["games_done"]


def _run_locked(
    resolved,
    out,
    backend_fn,
    name,
    source,
    threads,
    chunk_games,
    events,
    resume,
    force,
    progress,
    backend,
    stop=None,
    trajectory=False,
):
    existing = _open_existing(out, resolved, events, chunk_games, resume, force, trajectory)
    if existing is not None:
        chunk_games = existing["chunk_games"]
    chunk_games = check_chunk_games(chunk_games, events)
    try:
        dataset.remove_temporaries(out)
        if existing is None:
            manifest = build_manifest(resolved, name or out.name, source, events, chunk_games, trajectory)
        else:
            manifest = _continue_manifest(out, existing)
    except OSError as exc:
        raise SimError(dataset.os_error_line(exc, out, "opening the dataset")) from None

    plan = plan_chunks(resolved["games"], chunk_games)
    bar, owned = make_progress(progress)
    if manifest["status"] == "complete" and len(manifest["chunks"]) == len(plan):
        bar.expect(resolved["games"])
        bar.skip(resolved["games"])
        if owned:
            bar.close()
        return dict(manifest, nothing_to_do=True)  # the extra key is not written to disk

    manifest["status"] = "running"
    session = {
        "started": dataset.now_iso(),
        "backend": backend,
        "threads": threads,
        "host": platform.node(),
        "git_commit": dataset.git_state()["commit"],
        "games_played": 0,
    }
    manifest.setdefault("sessions", []).append(session)
    try:
        writer = dataset.DatasetWriter(out, manifest)
    except OSError as exc:
        raise SimError(dataset.os_error_line(exc, out, "writing the manifest")) from None
    t0 = time.perf_counter()
    played0 = manifest["games_done"]
    extra = {"trajectory": True} if trajectory else {}  # only then: a backend may not know it
    total = resolved["games"]
    # From the first "running" manifest to the "complete" one, an interrupt (Ctrl-C, SIGTERM)
    # anywhere must leave the manifest saying "interrupted", so the whole stretch is guarded.
    try:
        done = writer.done_indices()
        pending = [c for c in plan if c[0] not in done]
        bar.expect(resolved["games"])
        bar.skip(manifest["games_done"])
        if stop is None:
            backend_fn(resolved, pending, writer, events=events, threads=threads, progress=bar, **extra)
        else:
            _play_until_precise(
                stop, plan, done, out, manifest, writer, resolved, backend_fn, events, threads, bar, extra
            )
        return _finish_session(writer, manifest, session, out, owned, bar, stop, backend, total, played0, t0)
    except KeyboardInterrupt:
        if owned:
            bar.close()
        kept = _stop_session(out, manifest, session, played0, t0)
        raise RunInterrupted(
            f"interrupted: {kept:,} of {total:,} games are kept in {out}; "
            "run the same command with --resume to complete the dataset"
        ) from None
    except OSError as exc:
        if owned:
            bar.close()
        kept = _stop_session(out, manifest, session, played0, t0)
        raise SimError(
            dataset.os_error_line(exc, exc.filename or out, "writing the dataset")
            + f"; {kept:,} of {total:,} games are kept in {out}, and the same command with --resume completes it"
        ) from None
    except Exception:
        # any other failure (a lost Ray task, a bug): the run stopped, its chunks are kept
        if owned:
            bar.close()
        _stop_session(out, manifest, session, played0, t0)
        raise


def _finish_session(writer, manifest, session, out, owned, bar, stop, backend, total, played0, t0):
    """Close a session whose games are all played: the manifest says ``complete``."""
    elapsed = time.perf_counter() - t0
    if owned:
        bar.close()
    if stop is None and manifest["games_done"] != total:
        raise RuntimeError(f"backend {backend!r} left {total - manifest['games_done']} games unplayed")
    played = manifest["games_done"] - played0
    session.update(
        finished=dataset.now_iso(),
        games_played=played,
        elapsed_s=round(elapsed, 3),
        games_per_s=round(played / elapsed, 1) if elapsed > 0 else None,
    )
    try:
        return writer.complete()
    except OSError as exc:
        raise SimError(
            dataset.os_error_line(exc, out, "writing the manifest")
            + "; every chunk is on disk, and the same command with --resume completes the dataset"
        ) from None


# --- stop condition: --precision (sim/precision.py) -----------------------------------


def _precision_stop(resolved, precision, precision_on):
    if precision is None:
        return None
    from .precision import PrecisionStop

    return PrecisionStop(resolved, precision, precision_on)


def _precision_chunk():
    from .precision import DEFAULT_PRECISION_CHUNK

    return DEFAULT_PRECISION_CHUNK


def _play_until_precise(
    stop, plan, done, out, manifest, writer, resolved, backend_fn, events, threads, bar, extra=None
):
    """Play chunks in game order until ``stop`` is reached; the manifest records why it
    stopped.  Chunks already on disk (a resume) are counted, not replayed."""
    reached = False
    for c in plan:
        if c[0] not in done:
            backend_fn(resolved, [c], writer, events=events, threads=threads, progress=bar, **(extra or {}))
        entry = next(e for e in manifest["chunks"] if e["index"] == c[0])
        stop.add(out, entry)
        if stop.reached():
            reached = True
            # chunks past the stopping point (from an earlier run) are not part of the data
            manifest["chunks"] = [e for e in manifest["chunks"] if e["index"] <= c[0]]
            manifest["games_done"] = sum(e["games"] for e in manifest["chunks"])
            break
    manifest["games"] = manifest["games_done"]
    manifest["stop"] = stop.record(reached)


def check_max_games(max_games):
    """``max_games`` must be a positive integer (one line naming the option otherwise)."""
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
        raise ConfigError("--max-games", max_games, "a positive integer (games per run or sweep point)")


def run_dataset(
    config,
    out=None,
    *,
    games=None,
    seed=None,
    threads=None,
    chunk_games=None,
    events=False,
    resume=False,
    force=False,
    progress=None,
    backend="local",
    precision=None,
    precision_on="seat0",
    max_games=None,
    trajectory=False,
):
    """Play a run config into a Parquet dataset.

    Parameters
    ----------
    config : str | pathlib.Path | dict
        TOML run config or a dict of the same shape.
    out : path, optional
        Dataset directory (default ``results/<config name>/``).
    games, seed : int, optional
        Override the config's ``games`` / ``seed``.
    threads : int, optional
        Numba threads (default all cores); the data does not depend on it.
    chunk_games : int, optional
        Games per chunk file (default 100,000; 10,000 with events); the data does not depend on it.
    events : bool
        Also write the event log.
    trajectory : bool
        Also write the trajectory table (one row per game, round and seat; games whose
        adapter records it).
    resume : bool
        Complete an interrupted dataset in ``out`` (same config required); a complete one is
        left as it is.
    force : bool
        Delete a dataset already in ``out`` and start over.
    progress : bool | Progress, optional
        Draw a progress bar on stderr (or count into the given ``Progress``).
    backend : str
        Where chunks are played (``"local"``).
    precision : float, optional
        Stop at the first chunk boundary where the 95% half-width of ``precision_on``
        (default ``seat0``: the first player's win share) is at most this; ``games`` is
        then a cap.  See :mod:`sim.precision`.
    max_games : int, optional
        Play at most this many games (a quick look at a long study); the manifest records
        the games asked for.

    Returns
    -------
    dict
        The dataset's manifest (status ``complete``).

    Raises
    ------
    ConfigError
        For an invalid config or option.
    SimError
        When ``out`` holds a dataset and neither ``resume`` nor ``force`` is given.
    RunInterrupted
        On Ctrl-C; finished chunks are kept for ``resume``.
    """
    resolved = api.resolve(config, games=games, seed=seed)
    if max_games is not None:
        check_max_games(max_games)
        resolved = {**resolved, "games": min(resolved["games"], max_games)}
    if out is None:
        out = default_out(config, resolved)
    source = str(config) if isinstance(config, (str, Path)) else None
    return run_resolved(
        resolved,
        out,
        name=config_name(config, resolved),
        source=source,
        threads=threads,
        chunk_games=chunk_games,
        events=events,
        resume=resume,
        force=force,
        progress=progress,
        backend=backend,
        precision=precision,
        precision_on=precision_on,
        trajectory=trajectory,
    )


def summary(manifest, out):
    """A small JSON-able summary of a finished run (for ``--json`` and the CLI line)."""
    last = (manifest.get("sessions") or [{}])[-1]
    if manifest.get("nothing_to_do"):
        last = {"games_played": 0}
    return {
        "out": str(out),
        "status": manifest["status"],
        "game": manifest["game"],
        "config_id": manifest["config_id"],
        "seed": manifest["seed"],
        "games": manifest["games"],
        "games_played": last.get("games_played", 0),
        "elapsed_s": last.get("elapsed_s"),
        "games_per_s": last.get("games_per_s"),
        "chunks": len(manifest["chunks"]),
        "tables": manifest["tables"],
        **({"stop": manifest["stop"]} if "stop" in manifest else {}),
    }
