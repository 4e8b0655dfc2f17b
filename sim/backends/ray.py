"""The Ray backend: play a run's chunks as Ray tasks on a cluster (or a local Ray instance).

``sim run|sweep ... --backend ray [--address ADDR]``.  Every game draws from its own random
stream keyed by (seed, game id), so a game range can be played anywhere: each pending chunk
becomes one or more Ray tasks (a game range each), the tasks run wherever the cluster has a free
CPU, and the driver (this process) writes the chunk files and the manifest exactly as the local
backend does.  The dataset is identical, row for row and byte for byte, to a local run's.

* **No shared filesystem needed.**  A task returns its tables as Arrow IPC bytes (LZ4
  compressed); the driver concatenates the parts of a chunk in game order and writes them with
  :class:`sim.dataset.DatasetWriter`.  When the output directory is a path every node sees
  (NFS, a mounted bucket), ``BOARDSIM_RAY_SHARED_OUTPUT=1`` lets each task write its chunk
  files itself and return only the manifest entry (one task per chunk then).
* **Workers.**  A task reserves ``--threads`` CPUs (default 1) and its worker runs Numba with
  exactly that many threads (``NUMBA_NUM_THREADS`` in the task's runtime environment and
  ``numba.set_num_threads``).  Kernels load from the node's compile cache (``kernels``' source
  keyed cache under ``$BOARDSIM_CACHE_DIR`` or ``~/.cache/boardsim``), so only a node's first
  task compiles.  Every task reports a fingerprint of the ``sim`` and ``kernels`` sources it
  ran (the game's kernel package and adapter and the shared modules they use); a node
  running other code than the driver stops the run (its data could differ).
  ``BOARDSIM_RAY_SHIP_CODE=1`` ships the driver's ``sim`` and ``kernels`` to the workers
  (Ray ``py_modules``) instead of using the copies installed on the nodes.
* **Failures.**  A task whose worker or node dies is retried by Ray (``max_retries``, default
  3, ``BOARDSIM_RAY_MAX_RETRIES``), also when its result object is lost; an ``OSError`` or
  ``MemoryError`` inside a task is retried too.  A task that still fails stops the run with
  one line naming its games; finished chunks are kept (the manifest lists them), and the same
  command with ``--resume`` completes the dataset, as after Ctrl-C or a killed driver.
* **Address.**  ``--address`` (or ``RAY_ADDRESS``) names an existing cluster: ``HOST:PORT`` of
  the head's GCS when the driver runs on a cluster node, ``ray://HOST:10001`` (Ray Client)
  from elsewhere.  Without one, a local Ray instance is started for this process (all cores)
  and stopped when it exits.

Task size: when fewer than two tasks per free slot would be left, chunks are split into game
ranges of at least 2,000 games so that every CPU of the cluster has work
(``BOARDSIM_RAY_TASK_GAMES`` sets the largest task instead).  The data does not depend on it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import platform
import socket
import threading
import time
from collections import deque
from concurrent import futures
from functools import lru_cache
from pathlib import Path

import pyarrow as pa

from .. import chunks
from ..errors import ConfigError, RunInterrupted, SimError
from . import register_backend

DEFAULT_MAX_RETRIES = 3
#: Grid points of a sweep played at once (each point's chunks are tasks), so the cluster does not
#: idle while the last tasks of one point finish.
MAX_CONCURRENT_POINTS = 4
MIN_TASK_GAMES = 2_000
MAX_THREADS = 1024
#: Exceptions inside a task that are worth another try (a full disk, a node short of memory);
#: any other exception is a bug or bad input and would fail again.
RETRY_EXCEPTIONS = [OSError, MemoryError]

ENV_TASK_GAMES = "BOARDSIM_RAY_TASK_GAMES"
ENV_SHARED = "BOARDSIM_RAY_SHARED_OUTPUT"
ENV_SHIP = "BOARDSIM_RAY_SHIP_CODE"
ENV_RETRIES = "BOARDSIM_RAY_MAX_RETRIES"
#: Fault injection for tests: the first task to create ``<dir>/crashed`` kills its own worker
#: process (as a lost node would), and Ray has to retry it.
ENV_CRASH_ONCE = "BOARDSIM_RAY_CRASH_ONCE"
#: For tests: every task lasts at least this many seconds.  Ray reuses a leased worker for the
#: next task of the same shape, so millisecond tasks may all run on whichever node's worker
#: started first; tasks that hold their CPU a while make the scheduler use every node.
ENV_TASK_MIN_SECONDS = "BOARDSIM_RAY_TASK_MIN_SECONDS"
_TEST_HOOKS = (ENV_CRASH_ONCE, ENV_TASK_MIN_SECONDS)

_options = {
    "address": None,
    "task_games": None,
    "shared_output": None,
    "ship_code": None,
    "max_retries": None,
}
_state = {"address": None, "remote": None, "points": 1}
#: Set when one grid point of a concurrent sweep fails or Ctrl-C arrives: the others stop too.
_stop = threading.Event()


class RayBackendError(SimError):
    """A Ray task failed for good, or the cluster cannot run this code."""


# --- options ------------------------------------------------------------------------


def configure(address=None, task_games=None, shared_output=None, ship_code=None, max_retries=None):
    """Set backend options (``None`` keeps the current value).

    Parameters
    ----------
    address : str, optional
        Ray cluster address (``HOST:PORT`` or ``ray://HOST:10001``); default ``RAY_ADDRESS``,
        else a new local Ray instance.
    task_games : int, optional
        Largest game range of one task (default: automatic; ``BOARDSIM_RAY_TASK_GAMES``).
    shared_output : bool, optional
        Tasks write chunk files into the output directory themselves (it must be visible on
        every node; ``BOARDSIM_RAY_SHARED_OUTPUT=1``).
    ship_code : bool, optional
        Ship this process's ``sim`` and ``kernels`` to the workers (``BOARDSIM_RAY_SHIP_CODE=1``).
    max_retries : int, optional
        Retries of a task whose worker died or whose result was lost (default 3).
    """
    if address is not None:
        if not isinstance(address, str) or not address.strip():
            raise ConfigError("--address", address, "HOST:PORT or ray://HOST:PORT of a Ray cluster")
        if _state["address"] is not None and _state["address"] != address.strip():
            raise SimError(
                f"this process is already connected to Ray at {_state['address']}; "
                "one process uses one cluster"
            )
        _options["address"] = address.strip()
        # Connect now, so that a wrong address fails before any output is touched.
        _connect()
    if task_games is not None:
        _options["task_games"] = _check_int("task_games", task_games, 1, chunks.MAX_CHUNK_GAMES)
    if shared_output is not None:
        _options["shared_output"] = bool(shared_output)
    if ship_code is not None:
        _options["ship_code"] = bool(ship_code)
    if max_retries is not None:
        _options["max_retries"] = _check_int("max_retries", max_retries, 0, 100)


def _check_int(key, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(key, value, f"an integer from {lo} to {hi}")
    return value


def _env_int(name, lo, hi):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        value = raw
    return _check_int(name, value, lo, hi)


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _option(key, env_name=None, lo=0, hi=None, flag=False):
    if _options[key] is not None:
        return _options[key]
    if env_name is None:
        return None
    return _env_flag(env_name) if flag else _env_int(env_name, lo, hi)


def check_threads(threads):
    """``--threads`` with Ray: CPUs (and Numba threads) of each task; at most the CPUs of the
    cluster's largest node, else the task could never be scheduled."""
    cpus = 1 if threads is None else _check_int("threads", threads, 1, MAX_THREADS)
    largest = max((n["Resources"].get("CPU", 0) for n in _connect().nodes() if n["Alive"]), default=0)
    if cpus > largest:
        raise ConfigError(
            "threads",
            threads,
            f"an integer from 1 to {int(largest)} (CPUs of the largest node of the Ray cluster)",
        )
    return cpus


# --- code identity ------------------------------------------------------------------

#: The files that decide a game's rows besides its own kernel package and adapter modules.
_SHARED_SOURCES = (
    "kernels/__init__.py",
    "kernels/rng.py",
    "kernels/sigs.py",
    "sim/api.py",
    "sim/config.py",
    "sim/registry.py",
    "sim/chunks.py",
    "sim/games/__init__.py",
)


@lru_cache(maxsize=None)
def code_fingerprint(game):
    """Hash of the sources that decide the rows of ``game``: its kernel package
    (``kernels/<game>/``), its adapter modules (``sim/games/<game>/*.py``; not its referee,
    which decides no row) and the shared modules they use.  Driver and workers must agree on it: the rows are only identical for
    identical code.  (Edits elsewhere, e.g. to another game, do not count.)
    """
    import kernels
    import sim

    roots = {"kernels": Path(kernels.__file__).resolve().parent, "sim": Path(sim.__file__).resolve().parent}
    files = [roots[rel.split("/", 1)[0]] / rel.split("/", 1)[1] for rel in _SHARED_SOURCES]
    files += sorted((roots["kernels"] / game).rglob("*.py"))
    files += sorted((roots["sim"] / "games" / game).glob("*.py"))
    h = hashlib.sha256()
    for path in files:
        if path.is_file():
            pkg = "kernels" if roots["kernels"] in path.parents else "sim"
            h.update(f"{pkg}/{path.relative_to(roots[pkg]).as_posix()}".encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


# --- connection ---------------------------------------------------------------------


def _connect():
    """Connect to the cluster (once per process) and return the ``ray`` module."""
    import ray

    if ray.is_initialized():
        return ray
    address = _options["address"] or os.environ.get("RAY_ADDRESS") or "local"
    kwargs = {
        "address": address,
        "namespace": "boardsim",
        "log_to_driver": False,
        "logging_level": logging.WARNING,
    }
    if address == "local":
        kwargs["include_dashboard"] = False
    if _option("ship_code", ENV_SHIP, flag=True):
        import kernels
        import sim

        kwargs["runtime_env"] = {
            "py_modules": [str(Path(sim.__file__).parent), str(Path(kernels.__file__).parent)],
            "excludes": ["__pycache__", "*.pyc"],
        }
    _probe(address)
    _messages_to_stderr()
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = (
            "start a local Ray instance" if address == "local" else f"connect to the Ray cluster at {address}"
        )
        raise RayBackendError(f"cannot {where}: {_one_line(exc)}") from None
    _state["address"] = address
    return ray


def _probe(address, timeout=10.0):
    """Fail fast, with one line, when nothing listens at ``HOST:PORT`` (``ray.init`` would
    wait for minutes)."""
    if address in ("local", "auto"):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError("--address", address, "HOST:PORT or ray://HOST:PORT of a Ray cluster")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RayBackendError(
            f"cannot connect to the Ray cluster at {address}: nothing answers "
            f"at {host}:{port} ({exc.strerror or exc}); is the head node "
            "started (ray start --head) and the address right?"
        ) from None


def _messages_to_stderr():
    """Ray prints cluster messages ("(raylet) A worker died ...") on the driver's stdout, where
    they would corrupt ``--json`` output; send them to stderr.  (A private Ray function: if it
    is gone in some Ray version, the messages simply stay where Ray puts them.)"""
    try:
        from ray._private import worker as ray_worker
    except ImportError:
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_boardsim", False):
        return

    def to_stderr(data, *args, **kwargs):
        return original(dict(data, is_err=True), *args, **kwargs)

    to_stderr._boardsim = True
    ray_worker.print_to_stdstream = to_stderr


def shutdown():
    """Disconnect from Ray (stopping the local instance if this process started one)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()
    _state["address"] = None
    _state["remote"] = None


def _remote(ray):
    if _state["remote"] is None:
        _state["remote"] = ray.remote(_play_task)
    return _state["remote"]


# --- the task (runs on a worker) ----------------------------------------------------


def _maybe_crash():
    where = os.environ.get(ENV_CRASH_ONCE)
    if not where:
        return
    try:
        fd = os.open(os.path.join(where, "crashed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{platform.node()} pid {os.getpid()}\n".encode())
    os.close(fd)
    os._exit(1)


def _to_ipc(table):
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_ipc(data):
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def _play_task(resolved, out, index, start, count, events, cpus, shared, trajectory=False):
    """Play games ``start .. start+count-1``; return ``(payload, meta)``.

    ``payload`` is ``{table: Arrow IPC bytes}``, or the chunk's manifest entry when the task
    wrote the chunk files itself (``shared``).
    """
    t0 = time.perf_counter()
    _maybe_crash()
    import numba

    numba.set_num_threads(max(1, min(int(cpus), numba.config.NUMBA_NUM_THREADS)))
    import ray

    meta = {
        "code": code_fingerprint(resolved["game"]),
        "node": ray.get_runtime_context().get_node_id()[:16],
        "host": platform.node(),
        "pid": os.getpid(),
        "threads": numba.get_num_threads(),
    }
    extra = {"trajectory": True} if trajectory else {}  # only when asked for, as for events
    if shared:
        if not (Path(out) / "games").is_dir():
            raise FileNotFoundError(
                f"the output directory {out} is not visible on node "
                f"{platform.node()}; unset {ENV_SHARED} to send the "
                "tables to the driver instead"
            )
        payload = chunks.play_and_write_chunk(resolved, out, index, start, count, events, **extra)
    else:
        tables = chunks.play_chunk_to_tables(resolved, start, count, events, **extra)
        payload = {name: _to_ipc(t) for name, t in tables.items()}
    meta["cache_dir"] = getattr(numba.config, "CACHE_DIR", None)
    hold = float(os.environ.get(ENV_TASK_MIN_SECONDS) or 0) - (time.perf_counter() - t0)
    if hold > 0:
        time.sleep(hold)
    meta["seconds"] = round(time.perf_counter() - t0, 4)
    return payload, meta


# --- planning -----------------------------------------------------------------------


def plan_tasks(pending, slots, task_games=None):
    """Split pending chunks into game ranges: ``[(index, part, start, count), ...]``.

    Parameters
    ----------
    pending : list of (index, start, count)
        Chunks still to play.
    slots : int
        Tasks the cluster can run at once.
    task_games : int, optional
        Largest range of one task; by default chunks are split only when there would be fewer
        than two tasks per slot, and never below :data:`MIN_TASK_GAMES` games.
    """
    if not pending:
        return []
    largest = max(c for _, _, c in pending)
    if task_games is None:
        want = 2 * max(1, slots)
        if len(pending) >= want:
            task_games = largest
        else:
            total = sum(c for _, _, c in pending)
            task_games = max(MIN_TASK_GAMES, math.ceil(total / want))
    tasks = []
    for index, start, count in pending:
        parts = max(1, math.ceil(count / task_games))
        base, extra = divmod(count, parts)
        s = start
        for part in range(parts):
            n = base + (1 if part < extra else 0)
            tasks.append((index, part, s, n))
            s += n
    return tasks


# --- the backend (runs on the driver) -----------------------------------------------


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__


def _task_failure(exc, task, name):
    index, _, start, count = task
    cause = getattr(exc, "cause", None)
    why = (
        f"{type(cause).__name__}: {_one_line(cause)}"
        if cause is not None
        else f"{type(exc).__name__}: {_one_line(exc)}"
    )
    hint = ""
    if isinstance(cause, ModuleNotFoundError) or "No module named" in why:
        hint = (
            "; the workers cannot import the simulator: install boardsim (same commit) "
            f"on every node, or set {ENV_SHIP}=1"
        )
    return RayBackendError(
        f"{name}: the Ray task playing games {start:,}..{start + count - 1:,} (chunk {index}) "
        f"failed: {why}{hint}; finished chunks are kept, run the same command with --resume "
        "to complete the dataset"
    )


def ray_backend(resolved, pending, writer, *, events, threads, progress, trajectory=False):
    """Play ``pending`` chunks as Ray tasks; the driver writes every chunk (see module doc)."""
    if not pending:
        return
    ray = _connect()
    cpus = check_threads(threads)
    shared = bool(_option("shared_output", ENV_SHARED, flag=True))
    retries = _option("max_retries", ENV_RETRIES, 0, 100)
    retries = DEFAULT_MAX_RETRIES if retries is None else retries
    total_cpus = ray.cluster_resources().get("CPU", 1)
    slots = max(1, int(total_cpus // cpus))
    task_games = _option("task_games", ENV_TASK_GAMES, 1, chunks.MAX_CHUNK_GAMES)
    tasks = plan_tasks(pending, slots, None if shared else task_games)
    if shared:  # a task writes a whole chunk's files
        tasks = [(i, 0, s, c) for i, s, c in pending]
    parts_of = {}
    for index, *_ in tasks:
        parts_of[index] = parts_of.get(index, 0) + 1
    chunk_of = {index: (index, start, count) for index, start, count in pending}

    env = {"NUMBA_NUM_THREADS": str(cpus)}
    for hook in _TEST_HOOKS:
        if os.environ.get(hook):
            env[hook] = os.environ[hook]
    # SPREAD: equal tasks go to every node, rather than queueing on the driver's node first.
    remote = _remote(ray).options(
        num_cpus=cpus,
        max_retries=retries,
        retry_exceptions=RETRY_EXCEPTIONS,
        scheduling_strategy="SPREAD",
        runtime_env={"env_vars": env},
    )
    name = writer.manifest.get("name") or str(writer.out)
    session = writer.manifest["sessions"][-1] if writer.manifest.get("sessions") else {}
    info = {
        "address": _state["address"],
        "ray_version": ray.__version__,
        "nodes": sum(1 for n in ray.nodes() if n["Alive"]),
        "cpus": total_cpus,
        "cpus_per_task": cpus,
        "tasks": len(tasks),
        "mode": "shared output" if shared else "arrow to driver",
        "code": code_fingerprint(resolved["game"]),
        "workers": {},
    }
    session["ray"] = info
    out = str(Path(writer.out).resolve())
    resolved_ref = ray.put(resolved)
    queue = deque(tasks)
    window = max(2, math.ceil(2 * slots / _state["points"]))
    inflight, partial = {}, {}
    try:
        while queue or inflight:
            if _stop.is_set():  # another grid point failed or Ctrl-C
                raise KeyboardInterrupt
            while queue and len(inflight) < window:
                t = queue.popleft()
                index, part, start, count = t
                ref = remote.remote(resolved_ref, out, index, start, count, events, cpus, shared, trajectory)
                inflight[ref] = t
            # A bounded wait keeps Ctrl-C responsive on the driver.
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
            for ref in ready:
                t = inflight.pop(ref)
                try:
                    payload, meta = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise _task_failure(exc, t, name) from None
                if meta["code"] != info["code"]:
                    raise RayBackendError(
                        f"node {meta['node']} ({meta['host']}) runs other simulator code "
                        f"than this driver (source fingerprint {meta['code']} vs "
                        f"{info['code']}); install the same boardsim commit on every node or "
                        f"set {ENV_SHIP}=1; finished chunks are kept (--resume)"
                    )
                w = info["workers"].setdefault(
                    meta["node"],
                    {
                        "host": meta["host"],
                        "tasks": 0,
                        "games": 0,
                        "threads": meta["threads"],
                        "cache_dir": meta["cache_dir"],
                    },
                )
                w["tasks"] += 1
                w["games"] += t[3]
                index = t[0]
                if shared:
                    writer.record(payload)
                    progress.advance(payload["games"])
                    continue
                parts = partial.setdefault(index, {})
                parts[t[1]] = payload
                if len(parts) < parts_of[index]:
                    continue
                del partial[index]
                _, start, count = chunk_of[index]
                tables = {
                    tname: _join([parts[p][tname] for p in range(parts_of[index])]) for tname in parts[0]
                }
                writer.write_chunk(index, start, count, tables)
                del tables
                progress.advance(count)
    finally:
        for ref in inflight:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished or gone: nothing to cancel
                pass


def run_points(runs, run):
    """Play the grid points of a sweep, several at once (called by :func:`sim.sweep.run_sweep`).

    Parameters
    ----------
    runs : list of (resolved, out, kwargs)
        One entry per grid point, in order.
    run : callable
        ``run(resolved, out, **kwargs)`` plays one point (:func:`sim.runner.run_resolved`).

    Up to :data:`MAX_CONCURRENT_POINTS` points run in driver threads, each submitting its own
    tasks; a point's dataset is written exactly as when points run one after the other.  When
    a point fails, or on Ctrl-C, the other points stop too (their finished chunks are kept,
    their manifests say so) and the first failure is raised.
    """
    if len(runs) <= 1:
        for resolved, out, kwargs in runs:
            run(resolved, out, **kwargs)
        return
    _connect()
    workers = min(len(runs), MAX_CONCURRENT_POINTS)
    _stop.clear()
    _state["points"] = workers
    pool = futures.ThreadPoolExecutor(workers, thread_name_prefix="boardsim-point")
    jobs = [pool.submit(run, resolved, out, **kwargs) for resolved, out, kwargs in runs]
    try:
        while True:
            done, pending = futures.wait(jobs, timeout=0.5, return_when=futures.FIRST_EXCEPTION)
            if not pending or any(j.exception() is not None for j in done):
                break
    except KeyboardInterrupt:
        _stop.set()
        for j in jobs:
            j.cancel()
        futures.wait(jobs)
        raise RunInterrupted("interrupted") from None
    finally:
        _stop.set()  # stop the other points if one failed
        for j in jobs:
            j.cancel()
        pool.shutdown(wait=True)
        _stop.clear()
        _state["points"] = 1
    # The first real failure, in point order (the others were stopped because of it).
    errors = [j.exception() for j in jobs if not j.cancelled() and j.exception() is not None]
    for exc in errors:
        if not isinstance(exc, KeyboardInterrupt):
            raise exc
    if errors:
        raise errors[0]


def _join(parts):
    """One table from the IPC bytes of consecutive game ranges (single-chunk columns, as the
    local backend hands to the writer, so the Parquet files are byte for byte the same)."""
    tables = [_from_ipc(p) for p in parts]
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    return table.combine_chunks()


ray_backend.configure = configure
ray_backend.check_threads = check_threads
ray_backend.run_points = run_points
register_backend("ray", ray_backend)
