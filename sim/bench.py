"""How fast the kernels are, where the time goes, how close to the machine's limit (``sim bench``,
whose command line is ``sim/commands/bench.py``).

For every game and a representative strategy mix at each player count it measures, each in a
fresh child process (so peak memory is that measurement's own, read with ``os.wait4``):

* games per second on 1 thread and on all cores, the speed-up and parallel efficiency
  (speed-up / threads): ``--rounds`` pairs of passes (1 thread, then all cores) in one
  process, the speed-up being the median of the pairs' ratios, so that a VM's drifting speed
  (this project's reference VM: 2x within half an hour) does not decide it;
* per game: kernel time (the Numba calls), Arrow time (the rest of building the tables) and
  Parquet time (writing the chunk files: zstd, sha256) apart, and the whole pipeline's rate;
* the same kernels with ``NUMBA_DISABLE_JIT=1`` on a small sample: the pure-Python speed of the
  same code, the JIT's speed-up, and a check that both give the same rows.
* the search row (Bloody Inn, 1 and 2 players, not in ``--quick``): one ``search`` seat with
  its default parameters beside ``expert``s on 1 thread, its CPU time per game and per
  decision (night action), decisions per CPU second, and games per CPU second over the
  yardstick's.

Per game it also times ``sim run`` with 1,000 games in a child with an empty compile cache
(cold compile; the number of compiled function versions is counted in that cache, and the
seconds spent compiling the game's kernels are read from numba's compile events) and again
with the cache filled (warm start: it should compile nothing and load from the cache).  ``--targets`` runs every game's throughput targets (``bench_targets`` of its adapter) through
``sim run`` (1,000,000 games each).  ``--json`` prints everything with a description of the
machine (CPU, cores, memory, versions, load average), so runs can be compared.

Speed is given as a ratio to the yardstick (``../shared/bench/yardstick.py``: its trick-taking
kernel, read before and after the rows at 1 thread and all cores), since this project's
reference VM changes speed with its host's load.  ``--quick`` is a bench of well under a
minute: each game once at its default player count, one pair of passes, no start-up,
JIT-disabled or target runs.  Every bench states its expected duration at the start and
prints a line as each part finishes.

No timing here is a pass/fail test; ``benchmarks/README.md`` says how to read the numbers.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .errors import ConfigError, SimError

BENCH_FORMAT = 1
WARM_GAMES = 1_000  # `sim run` size of the cold/warm start measurement
MIN_GAMES, MAX_GAMES = 64, 5_000_000
CHILD_TIMEOUT = 3_600

TARGET_SPEEDUP_2 = 1.8
#: Rows whose games take longer than ``LONG_GAME_US`` CPU microseconds (1 thread) have less
#: scheduling overhead per game, so they must reach ``TARGET_SPEEDUP_2_LONG`` on 2 threads.
TARGET_SPEEDUP_2_LONG = 1.85
LONG_GAME_US = 10.0
#: 1-thread / all-cores pass pairs per throughput row (the speed-up is their median ratio)
ROUNDS = 3
TARGET_WARM_START_S = 3.0
#: ``--quick``: each game at its default player count with the mixed lineup, one pair of
#: passes of about ``QUICK_SECONDS`` (all cores), no start-up, JIT-disabled or target runs
QUICK_SECONDS = 0.5
#: trick-taking games per yardstick reading (a reading takes about a second per thread count)
YARDSTICK_GAMES = 100_000
#: what the expected duration is made of, measured on the reference 2-core VM when idle: a
#: measurement child's start (Python, numba, the cached kernels), one pass's overhead beyond
#: its games (warm-up, Parquet), a game with the JIT disabled, a cold compile and warm start
#: of one game's kernels, a yardstick child
CHILD_S = 3.0
PASS_OVERHEAD_S = 0.3
PY_GAME_S = 0.15
COLD_START_S = 55.0
WARM_START_S = 2.0
YARDSTICK_S = 4.0
SEARCH_GAME_S = 0.15  # a game of the search row (one search seat), solo or heads-up


# --- the machine ----------------------------------------------------------------------------


def _read(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def machine():
    """A description of this machine and software, to compare bench runs."""
    import numba

    from . import dataset

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in _read("/proc/cpuinfo").splitlines()
            if ln.startswith("model name")
        ),
        platform.processor() or platform.machine(),
    )
    mem = next(
        (
            int(ln.split()[1]) * 1024
            for ln in _read("/proc/meminfo").splitlines()
            if ln.startswith("MemTotal:")
        ),
        None,
    )
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "host": platform.node(),
        "platform": platform.platform(),
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable,
        "memory_bytes": mem,
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba_threading_layer": os.environ.get("NUMBA_THREADING_LAYER", "default"),
        "versions": dataset.package_versions(),
        "git": dataset.git_state(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "time": dataset.now_iso(),
    }


# --- configs --------------------------------------------------------------------------------


def lineups(game, players):
    """Named strategy mixes of ``game`` at ``players``: each strategy at every seat, and
    ``mixed`` (the game's strategies in turn over the seats; the lineup rotates)."""
    from . import registry

    names = [s["name"] for s in registry.get_adapter(game).strategies()]
    out = {"mixed": [names[i % len(names)] for i in range(players)]}
    out.update({n: [n] * players for n in names})
    return out


def bench_config(game, players, lineup, games=WARM_GAMES, seed=1):
    """The run config ``sim bench`` measures: the game's own (``bench_config``) with the
    bench's size, seed and name."""
    from . import registry

    cfg = {"rotate": True, **registry.get_adapter(game).bench_config(players, list(lineup))}
    return {"game": game, "games": games, "seed": seed, "name": f"bench-{game}-{players}p", **cfg}


def _adapter_targets():
    """Every registered game's ``bench_targets`` (``registry.BenchTarget`` dicts)."""
    from . import registry

    return [t for game in registry.game_names() for t in registry.get_adapter(game).bench_targets()]


def bench_targets():
    """Every registered game's throughput targets: ``(label, config, seconds for 1,000,000
    games)``."""
    return [(t["label"], t["config"], t["seconds"]) for t in _adapter_targets()]


def _typical_target_s():
    """``{label: seconds}`` 1,000,000 games of each target typically take on the reference
    machine (its ``typical_s``, else the seconds allowed): what the bench's estimate budgets."""
    return {t["label"]: t.get("typical_s", t["seconds"]) for t in _adapter_targets()}


def bench_ratio_targets():
    """``{label: least games/s over the yardstick's}`` of the targets that set one (a target's
    ``yardstick_ratio``, both cores against the yardstick on both cores)."""
    return {
        t["label"]: t["yardstick_ratio"] for t in _adapter_targets() if t.get("yardstick_ratio") is not None
    }


def to_toml(cfg):
    """TOML text of a run config (``sim.toml_writer``)."""
    from . import toml_writer

    return toml_writer.dumps(cfg)


# --- child processes ------------------------------------------------------------------------


def run_child(cmd, *, env=None, stdin=None, cwd=None, timeout=CHILD_TIMEOUT):
    """Run ``cmd``; return ``(returncode, stdout, stderr, wall seconds, peak RSS bytes,
    CPU seconds)``.

    The peak resident memory and CPU time are the child's own (``os.wait4``), not totals over
    every child this process ever had.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=env,
            cwd=cwd,
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            if stdin is not None:
                proc.stdin.write(stdin.encode())
                proc.stdin.close()
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            wall,
            usage.ru_maxrss * 1024,
            usage.ru_utime + usage.ru_stime,
        )


def _child_env(**extra):
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _measure_in_child(spec, **env):
    code, out, err, wall, rss, _ = run_child(
        [sys.executable, "-c", "from sim.bench import _child_main; _child_main()"],
        stdin=json.dumps(spec),
        env=_child_env(**env),
    )
    if code != 0:
        tail = "\n".join(err.strip().splitlines()[-15:])
        raise SimError(
            f"bench measurement failed ({spec['config']['game']}, "
            f"{spec['config']['players']} players):\n{tail}"
        )
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_rss_bytes"] = rss
    result["child_wall_s"] = round(wall, 3)
    return result


def _child_main():
    """Entry point of a measurement child: spec JSON on stdin, result JSON on stdout."""
    import warnings

    warnings.simplefilter("ignore")  # the RNG's intended uint64 wrap-around without JIT
    spec = json.loads(sys.stdin.read())
    result = measure(spec)
    sys.stdout.write(json.dumps(result) + "\n")


# --- the measurement (runs in the child) ----------------------------------------------------


class KernelTimer:
    """Time spent in a game's Numba functions called from Python, while active.

    It wraps every Numba dispatcher reachable as a module attribute of the game's adapter
    module and of ``kernels.*`` (the child loads only the measured game's kernels; calls
    between compiled functions are not affected); use it only after a warm-up call, so
    nothing needs compiling while it is active.
    """

    def __init__(self, game):
        from . import registry

        self.modules = [type(registry.get_adapter(game)).__module__, "kernels"]
        self.seconds = 0.0
        self.calls = 0
        self._patched = []
        self._lock = threading.Lock()
        self._active = 0
        self._t0 = 0.0

    def _wrap(self, fn):
        def timed(*args, **kwargs):
            # wall time while at least one call runs: calls made at once from several
            # threads (a kernel's blocks) count once, as the wall clock sees them
            with self._lock:
                if self._active == 0:
                    self._t0 = time.perf_counter()
                self._active += 1
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self._active -= 1
                    self.calls += 1
                    if self._active == 0:
                        self.seconds += time.perf_counter() - self._t0

        return timed

    def __enter__(self):
        from numba.core.dispatcher import Dispatcher

        for name, mod in list(sys.modules.items()):
            if mod is None or not (
                name == self.modules[0] or name == self.modules[1] or name.startswith(self.modules[1] + ".")
            ):
                continue
            for attr, obj in list(vars(mod).items()):
                if isinstance(obj, Dispatcher):
                    setattr(mod, attr, self._wrap(obj))
                    self._patched.append((mod, attr, obj))
        return self

    def __exit__(self, *exc):
        for mod, attr, obj in reversed(self._patched):
            setattr(mod, attr, obj)
        self._patched.clear()
        return False


def tables_digest(chunk):
    """sha256 of a chunk's games and seats tables (Arrow IPC bytes): equal digests, equal rows."""
    import pyarrow as pa

    h = hashlib.sha256()
    for table in (chunk.games, chunk.seats):
        sink = pa.BufferOutputStream()
        table = table.combine_chunks()
        with pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
        h.update(sink.getvalue().to_pybytes())
    return h.hexdigest()


def measure(spec):
    """Throughput of one config; see :func:`_measure_in_child` (runs in a fresh process).

    ``spec``: ``config`` (run config dict), ``games`` (fixed count or None), ``seconds``
    (target time of the all-cores pass when ``games`` is None), ``threads`` (list),
    ``write`` (also time the Parquet files), ``digest_games`` (hash of games 0..k-1).
    """
    import numba

    from . import api, dataset

    resolved = api.resolve(spec["config"])
    jit = not numba.config.DISABLE_JIT
    all_threads = numba.config.NUMBA_NUM_THREADS
    res = {"jit": jit, "max_threads": all_threads}
    if jit:
        try:
            res["threading_layer"] = numba.threading_layer()
        except ValueError:  # no parallel region has run yet
            pass
    if spec.get("digest_games"):
        api.set_threads(all_threads)
        t0 = time.perf_counter()
        res["digest"] = tables_digest(api.play_range(resolved, 0, spec["digest_games"]))
        res["digest_games"] = spec["digest_games"]
        res["digest_s"] = round(time.perf_counter() - t0, 4)
        res["warmup_s"] = res["digest_s"]
    if not spec.get("threads"):
        return res
    # warm up (loads the compiled kernels) and calibrate on all cores
    api.set_threads(all_threads)
    t0 = time.perf_counter()
    api.play_range(resolved, 0, spec.get("warmup_games", MIN_GAMES))
    res.setdefault("warmup_s", round(time.perf_counter() - t0, 4))
    n = spec.get("games")
    if n is None:
        cal = max(MIN_GAMES, 256)
        t0 = time.perf_counter()
        api.play_range(resolved, 0, cal)
        rate = cal / max(time.perf_counter() - t0, 1e-6)
        n = int(min(MAX_GAMES, max(MIN_GAMES, rate * spec.get("seconds", 1.0))))
    res["games"] = n
    passes = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, threads in enumerate(spec["threads"]):
            api.set_threads(threads)
            timer = KernelTimer(resolved["game"]) if jit else None
            c0, t0 = time.process_time(), time.perf_counter()
            if timer is not None:
                with timer:
                    chunk = api.play_range(resolved, 0, n)
            else:
                chunk = api.play_range(resolved, 0, n)
            play, cpu = time.perf_counter() - t0, time.process_time() - c0
            # CPU time (all threads) per game hardly depends on other load on the machine,
            # unlike the wall-clock rate: threads / cpu_us_per_game estimates the idle rate.
            p = {
                "threads": threads,
                "play_s": round(play, 4),
                "games_per_s": round(n / play, 1),
                "cpu_s": round(cpu, 4),
                "cpu_us_per_game": round(cpu / n * 1e6, 2),
            }
            if spec.get("count_turns"):
                p["turns"] = int(chunk.games.column("turns").to_numpy().sum())
            if timer is not None and timer.calls:
                p["kernel_s"] = round(timer.seconds, 4)
                p["kernel_us_per_game"] = round(timer.seconds / n * 1e6, 2)
                p["arrow_us_per_game"] = round((play - timer.seconds) / n * 1e6, 2)
            if spec.get("write"):
                out = Path(tmp) / f"pass{i}"
                for name in ("games", "seats"):
                    (out / name).mkdir(parents=True, exist_ok=True)
                tables = {"games": chunk.games, "seats": chunk.seats}
                t0 = time.perf_counter()
                dataset.write_chunk_files(out, 0, 0, n, tables)
                write = time.perf_counter() - t0
                p["parquet_s"] = round(write, 4)
                p["parquet_us_per_game"] = round(write / n * 1e6, 2)
                p["pipeline_games_per_s"] = round(n / (play + write), 1)
                shutil.rmtree(out, ignore_errors=True)
            del chunk
            passes.append(p)
    res["passes"] = passes
    if jit:
        try:
            res["threading_layer"] = numba.threading_layer()
        except ValueError:
            pass
    return res


# --- the yardstick -------------------------------------------------------------------------


def default_yardstick():
    """The yardstick kernel file: ``$BOARDSIM_YARDSTICK``, else ``../shared/bench/yardstick.py``
    beside the project's source tree; ``None`` when neither exists."""
    env = os.environ.get("BOARDSIM_YARDSTICK")
    if env:
        return Path(env)
    path = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "yardstick.py"
    return path if path.exists() else None


def _yardstick_main():
    """Entry point of a yardstick child: spec JSON on stdin (``path``, ``games``, ``threads``),
    the trick-taking kernel's games/s at each thread count (best of the yardstick's own
    repetitions) as JSON on stdout."""
    import importlib.util

    import numba
    import numpy as np

    spec = json.loads(sys.stdin.read())
    mod_spec = importlib.util.spec_from_file_location("yardstick", spec["path"])
    mod = importlib.util.module_from_spec(mod_spec)
    # registered before it runs: numba's cache of its parallel kernels names the module, and a
    # module missing from sys.modules is cached as '<dynamic>', which the next child cannot load
    sys.modules[mod_spec.name] = mod
    mod_spec.loader.exec_module(mod)
    n = spec["games"]
    readings = {}
    for threads in spec["threads"]:
        numba.set_num_threads(threads)
        first, best = mod.run(mod.trick_batch, n, [np.empty((n, 4), np.int32), np.empty(n, np.int8)])
        readings[str(threads)] = {"games_per_s": round(n / best), "first_call_s": round(first, 3)}
    sys.stdout.write(json.dumps(readings) + "\n")


def yardstick_reading(path, threads, games=YARDSTICK_GAMES):
    """``{threads: games/s}`` of the yardstick's trick-taking kernel, in a fresh child."""
    import numba

    threads = sorted({t for t in threads if 1 <= t <= numba.config.NUMBA_NUM_THREADS})
    spec = {"path": str(path), "games": games, "threads": threads}
    code, out, err, *_ = run_child(
        [sys.executable, "-c", "from sim.bench import _yardstick_main; _yardstick_main()"],
        stdin=json.dumps(spec),
        env=_child_env(),
    )
    if code != 0:
        tail = (err.strip().splitlines() or ["?"])[-1]
        raise SimError(f"bench: the yardstick {path} failed: {tail}")
    readings = json.loads(out.strip().splitlines()[-1])
    return {int(t): r["games_per_s"] for t, r in readings.items()}


def _geomean(values):
    values = [v for v in values if v]
    return round(statistics.geometric_mean(values)) if values else None


def add_yardstick_ratios(result):
    """Each throughput row's games/s over the yardstick's at the same thread count (the
    geometric mean of its readings before and after the rows); a search row's games per CPU
    second over the yardstick's games/s on 1 thread."""
    readings = result.get("yardstick", {}).get("readings", [])
    for row in result.get("search", []):
        yard = _geomean([r.get(1) for r in readings])
        row["yardstick_1"] = yard
        row["yardstick_ratio_1"] = round(row["games_per_cpu_s"] / yard, 6) if yard else None
    for row in result["throughput"]:
        for key, threads in (("1", 1), ("all", row["threads"])):
            yard = _geomean([r.get(threads) for r in readings])
            rate = row[f"games_per_s_{key}"]
            row[f"yardstick_{key}"] = yard
            row[f"yardstick_ratio_{key}"] = round(rate / yard, 4) if yard and rate else None


# --- the parts of a bench run ---------------------------------------------------------------


def _median_pass(passes):
    """The pass with the median rate (the lower middle one for an even count)."""
    ranked = sorted(passes, key=lambda p: p["games_per_s"])
    return ranked[(len(ranked) - 1) // 2]


def throughput(game, players, mix, lineup, *, games, seconds, digest_games, rounds=ROUNDS):
    """1-thread and all-cores passes, interleaved ``rounds`` times in one child process.

    A VM's speed drifts with its host's load (measured here: 2x within half an hour), so the
    speed-up is the median of the ``rounds`` ratios of *adjacent* passes (1 thread, then all
    cores), each taken in the same phase of the host; the rates and time splits shown are those
    of the median pass of each kind.
    """
    import numba

    all_threads = numba.config.NUMBA_NUM_THREADS
    threads = [1] if all_threads == 1 else [1, all_threads] * rounds
    spec = {
        "config": bench_config(game, players, lineup),
        "games": games,
        "seconds": seconds,
        "threads": threads,
        "write": True,
        "digest_games": digest_games,
    }
    r = _measure_in_child(spec)
    passes = r["passes"]
    ones = [p for p in passes if p["threads"] == 1]
    fulls = [p for p in passes if p["threads"] == threads[-1]]
    one, full = _median_pass(ones), _median_pass(fulls)
    if all_threads == 1:
        ratios = [1.0]
    else:
        ratios = [
            f["games_per_s"] / o["games_per_s"]
            for o, f in zip(passes[0::2], passes[1::2])
            if o["games_per_s"]
        ]
    speedup = statistics.median(ratios) if ratios else None
    row = {
        "game": game,
        "players": players,
        "mix": mix,
        "lineup": lineup,
        "games": r["games"],
        "threads": full["threads"],
        "games_per_s_1": one["games_per_s"],
        "games_per_s_all": full["games_per_s"],
        "speedup": round(speedup, 3) if speedup else None,
        "speedups": [round(x, 3) for x in ratios],
        "efficiency": round(speedup / full["threads"], 3) if speedup else None,
        "pipeline_games_per_s": full.get("pipeline_games_per_s"),
        "cpu_us_per_game_1": one.get("cpu_us_per_game"),
        "cpu_us_per_game_all": full.get("cpu_us_per_game"),
        "threading_layer": r.get("threading_layer"),
        "kernel_us_per_game_1": one.get("kernel_us_per_game"),
        "kernel_us_per_game_all": full.get("kernel_us_per_game"),
        "arrow_us_per_game_all": full.get("arrow_us_per_game"),
        "parquet_us_per_game": full.get("parquet_us_per_game"),
        "warmup_s": r.get("warmup_s"),
        "peak_rss_bytes": r["peak_rss_bytes"],
        "passes": passes,
    }
    if digest_games:
        row["digest"] = r.get("digest")
        row["digest_games"] = digest_games
    return row


def search_row(game, players, games):
    """CPU time per game and per decision of ``game``'s search player (one seat, its default
    parameters, beside the adapter's ``bench_search`` opponents) on 1 thread, in a fresh child.
    A decision is one turn of that seat (the adapter's ``decision`` says what that is)."""
    from . import registry

    plan = registry.get_adapter(game).bench_search()
    lineup = [plan["strategy"]] + [plan["others"]] * (players - 1)
    spec = {
        "config": bench_config(game, players, lineup, games=games),
        "games": games,
        "threads": [1],
        "warmup_games": 1,
        "count_turns": True,
    }
    res = _measure_in_child(spec, NUMBA_NUM_THREADS=1)
    p = res["passes"][0]
    cpu = max(p["cpu_s"], 1e-9)
    decisions = p["turns"] / players  # one search seat: its share of the turns
    return {
        "game": game,
        "players": players,
        "lineup": lineup,
        "decision": plan["decision"],
        "games": games,
        "cpu_s": p["cpu_s"],
        "cpu_ms_per_game": round(1000 * cpu / games, 2),
        "decisions": decisions,
        "cpu_ms_per_decision": round(1000 * cpu / decisions, 3),
        "decisions_per_cpu_s": round(decisions / cpu, 1),
        "games_per_cpu_s": round(games / cpu, 3),
        "peak_rss_bytes": res["peak_rss_bytes"],
    }


def pure_python(game, players, mix, lineup, *, games):
    """The same kernels with ``NUMBA_DISABLE_JIT=1`` on ``games`` games (one thread)."""
    spec = {"config": bench_config(game, players, lineup), "digest_games": games}
    r = _measure_in_child(spec, NUMBA_DISABLE_JIT=1, NUMBA_NUM_THREADS=1)
    rate = games / r["digest_s"] if r["digest_s"] else None
    return {
        "game": game,
        "players": players,
        "mix": mix,
        "games": games,
        "seconds": r["digest_s"],
        "games_per_s": round(rate, 3) if rate else None,
        "digest": r["digest"],
        "peak_rss_bytes": r["peak_rss_bytes"],
    }


def _sim_run(toml_path, out, games, *, env, cwd, compile_log=None):
    """``sim run`` of ``toml_path`` in a child; ``(wall s, peak RSS bytes, summary)``.

    With ``compile_log`` (a path), the child is the same CLI run with numba's compile
    events counted (:func:`_run_counting_compiles`); they are added to the summary under
    ``"jit"``.
    """
    args = [
        "run",
        str(toml_path),
        "--games",
        str(games),
        "--out",
        str(out),
        "--force",
        "--json",
        "--no-progress",
    ]
    if compile_log is None:
        cmd = [sys.executable, "-m", "sim.cli", *args]
    else:
        entry = "from sim.bench import _run_counting_compiles; _run_counting_compiles()"
        cmd = [sys.executable, "-c", entry, str(compile_log), *args]
    code, stdout, err, wall, rss, cpu = run_child(cmd, env=env, cwd=cwd)
    if code != 0:
        raise SimError(
            f"bench: `sim run {toml_path.name} --games {games}` failed: "
            f"{(err.strip().splitlines() or ['?'])[-1]}"
        )
    summary = json.loads(stdout.strip().splitlines()[-1])
    summary["cpu_s"] = round(cpu, 3)
    if compile_log is not None:
        summary["jit"] = json.loads(Path(compile_log).read_text())
    return wall, rss, summary


def _compile_counter():
    """A ``numba.core.event`` listener for ``numba:compile``: wall time inside the
    outermost compile events (a function compiled while its caller is typed counts once,
    inside the caller's time) and how many of the game's kernels (``kernels.*``
    dispatchers) were compiled."""
    from numba.core import event

    class CompileCounter(event.Listener):
        def __init__(self):
            self.seconds = 0.0
            self.kernel_compiles = 0
            self._depth = 0
            self._t0 = 0.0

        def on_start(self, ev):
            if self._depth == 0:
                self._t0 = time.perf_counter()
            self._depth += 1
            func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            if getattr(func, "__module__", "").startswith("kernels."):
                self.kernel_compiles += 1

        def on_end(self, ev):
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._t0

    counter = CompileCounter()
    event.register("numba:compile", counter)
    return counter


def _kernel_cache_stats():
    """``(hits, misses)`` of numba's on-disk cache over every dispatcher of ``kernels.*``."""
    from numba.core.dispatcher import Dispatcher

    seen, hits, misses = set(), 0, 0
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith("kernels."):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, Dispatcher) and id(obj) not in seen:
                seen.add(id(obj))
                hits += sum(obj.stats.cache_hits.values())
                misses += sum(obj.stats.cache_misses.values())
    return hits, misses


def _run_counting_compiles():
    """A start-up child: ``sim ARGS`` (``sys.argv[2:]``) as the console script runs it, with
    numba's compile events counted from before any kernel is imported; the counts go to
    the JSON file ``sys.argv[1]``: ``compile_s`` (seconds compiling), ``kernel_compiles``
    (kernel versions compiled), ``cache_hits`` / ``cache_misses`` (on-disk cache, kernels)."""
    log, sys.argv = sys.argv[1], ["sim", *sys.argv[2:]]
    counter = _compile_counter()
    from .cli import main

    try:
        main()
    finally:
        hits, misses = _kernel_cache_stats()
        Path(log).write_text(
            json.dumps(
                {
                    "compile_s": round(counter.seconds, 3),
                    "kernel_compiles": counter.kernel_compiles,
                    "cache_hits": hits,
                    "cache_misses": misses,
                }
            )
        )


def startup(game, players, mix, lineup):
    """Cold compile (empty cache) and warm start of ``sim run`` with 1,000 games.

    Both runs count numba's compile events: ``jit_compile_s`` is the cold run's time spent
    compiling the game's kernels (fresh process, empty ``BOARDSIM_CACHE_DIR``), and the warm
    run should compile nothing and load its kernels from the cache (``warm_cache_hits``).
    """
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        cache = tmp / "cache"
        cache.mkdir()
        cfg = tmp / "bench.toml"
        cfg.write_text(to_toml(bench_config(game, players, lineup)))
        env = _child_env(BOARDSIM_CACHE_DIR=cache, NUMBA_CACHE_DIR=cache)
        run = functools.partial(_sim_run, cfg, tmp / "out", WARM_GAMES, env=env, cwd=tmp)
        cold, cold_rss, cold_summary = run(compile_log=tmp / "cold.json")
        versions = len(list(cache.rglob("*.nbc")))
        functions = len(list(cache.rglob("*.nbi")))
        # kernel packages the cold run compiled: inside the cache's kernels-<key> directory numba
        # names each source folder's cache <folder>_<path hash>; kernels/ itself (rng, sigs) is shared
        folders = [d for key in cache.glob("kernels-*") for d in key.iterdir() if d.is_dir()]
        packages = sorted({d.name.rsplit("_", 1)[0] for d in folders if any(d.rglob("*.nbi"))} - {"kernels"})
        warm, warm_rss, summary = run(compile_log=tmp / "warm.json")
    cold_jit, warm_jit = cold_summary["jit"], summary["jit"]
    return {
        "game": game,
        "players": players,
        "mix": mix,
        "games": WARM_GAMES,
        "cold_s": round(cold, 3),
        "warm_s": round(warm, 3),
        "cold_cpu_s": cold_summary["cpu_s"],
        "warm_cpu_s": summary["cpu_s"],
        "compile_s": round(cold - warm, 3),
        "jit_compile_s": cold_jit["compile_s"],
        "kernel_compiles": cold_jit["kernel_compiles"],
        "cold_cache_hits": cold_jit["cache_hits"],
        "warm_jit_compile_s": warm_jit["compile_s"],
        "warm_kernel_compiles": warm_jit["kernel_compiles"],
        "warm_cache_hits": warm_jit["cache_hits"],
        "warm_cache_misses": warm_jit["cache_misses"],
        "compiled_versions": versions,
        "cached_functions": functions,
        "compiled_packages": packages,
        "cold_peak_rss_bytes": cold_rss,
        "warm_peak_rss_bytes": warm_rss,
        "warm_run_elapsed_s": summary.get("elapsed_s"),
    }


def targets(games, yardstick=None, sittings=1, threads=None):
    """Every game's throughput targets through ``sim run`` (``games`` each; the time target is
    scaled when ``games`` is not 1,000,000).

    Each target is run ``sittings`` times.  With a ``yardstick`` file the yardstick is read on
    ``threads`` (default: all cores) before the first run and after every run, so each run
    lies between two readings (shared with its neighbours) and its ratio is its games/s over
    their geometric mean: the machine's speed drifts (2x within half an hour here), and only a
    reading taken beside a run says how fast the machine was for it.  A row gives the median
    run (elapsed, CPU, games/s), the median ratio and, from two runs up, a 95 % interval of
    the mean ratio (Student's t over the runs).
    """
    from . import registry

    ratio_targets = bench_ratio_targets()
    threads = threads or _all_threads()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-targets-") as tmp:
        tmp = Path(tmp)
        for label, cfg, seconds in bench_targets():
            game = cfg["game"]
            scaled = seconds * games / 1_000_000
            row = {"target": label, "games": games, "target_s": round(scaled, 3)}
            names = registry.game_names()
            strategies = [s["name"] for s in registry.get_adapter(game).strategies()] if game in names else []
            missing = sorted({s["strategy"] for s in cfg["seats"]} - set(strategies))
            if game not in names or missing:
                row["skipped"] = (
                    f"game {game!r} is not registered"
                    if game not in names
                    else f"no {', '.join(map(repr, missing))} strategy in {game}"
                )
                rows.append(row)
                continue
            path = tmp / f"{game}.toml"
            path.write_text(to_toml(dict(cfg, games=games, seed=1, name="bench-target")))
            env = _child_env()
            _sim_run(path, tmp / "warm", 1_000, env=env, cwd=tmp)  # compile outside the clock
            runs = []
            before = yardstick_reading(yardstick, [threads]).get(threads) if yardstick else None
            for _ in range(sittings):
                wall, rss, summary = _sim_run(path, tmp / "out", games, env=env, cwd=tmp)
                shutil.rmtree(tmp / "out", ignore_errors=True)
                after = yardstick_reading(yardstick, [threads]).get(threads) if yardstick else None
                yard = _geomean([before, after]) if before and after else None
                runs.append(
                    {
                        "elapsed_s": summary["elapsed_s"],
                        "wall_s": round(wall, 3),
                        "games_per_s": summary["games_per_s"],
                        "peak_rss_bytes": rss,
                        "process_cpu_s": summary["cpu_s"],
                        "yardstick_before": before,
                        "yardstick_after": after,
                        "yardstick_ratio": round(summary["games_per_s"] / yard, 4) if yard else None,
                    }
                )
                before = after
            row.update(_summarise_runs(runs, ratio_targets.get(label)))
            row["ok"] = row["elapsed_s"] <= scaled
            rows.append(row)
    return rows


def _summarise_runs(runs, ratio_target=None):
    """A target row's fields from its runs: the median run's elapsed seconds, CPU and games/s
    (the lower middle one for an even count, by games/s), the largest peak memory, the median
    yardstick ratio, a 95 % interval of the mean ratio (Student's t, two runs or more) and,
    when the target sets one, whether the median ratio reaches ``ratio_target``."""
    from scipy import stats

    mid = _median_pass(runs)
    ratios = [r["yardstick_ratio"] for r in runs if r["yardstick_ratio"] is not None]
    out = {
        "runs": runs,
        "elapsed_s": mid["elapsed_s"],
        "wall_s": mid["wall_s"],
        "games_per_s": mid["games_per_s"],
        "process_cpu_s": mid["process_cpu_s"],
        "peak_rss_bytes": max(r["peak_rss_bytes"] for r in runs),
        "yardstick_ratio": round(statistics.median(ratios), 4) if ratios else None,
        "yardstick_ratio_ci95": None,
        "yardstick_ratio_target": ratio_target,
        "ratio_ok": None,
    }
    if len(ratios) >= 2:
        mean = statistics.fmean(ratios)
        half = stats.t.ppf(0.975, len(ratios) - 1) * statistics.stdev(ratios) / len(ratios) ** 0.5
        out["yardstick_ratio_ci95"] = [round(mean - half, 4), round(mean + half, 4)]
    if ratio_target is not None and ratios:
        out["ratio_ok"] = out["yardstick_ratio"] >= ratio_target
    return out


def _ratio_cell(row):
    """'0.0992 [0.0961, 0.1023]' for a target row's ratio and interval ('-' without a ratio)."""
    ratio = row.get("yardstick_ratio")
    if ratio is None:
        return "-"
    ci = row.get("yardstick_ratio_ci95")
    return f"{ratio:.4f}" + (f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "")


def speedup_target(row):
    """The 2-thread speed-up a throughput row must reach: ``TARGET_SPEEDUP_2_LONG`` for games
    longer than ``LONG_GAME_US`` CPU microseconds on 1 thread, else ``TARGET_SPEEDUP_2``."""
    us = row.get("cpu_us_per_game_1")
    return TARGET_SPEEDUP_2_LONG if us is not None and us > LONG_GAME_US else TARGET_SPEEDUP_2


def checks(result):
    """The machine-level targets (2-core speed-up, warm start, JIT = Python rows), judged on
    this run's numbers."""
    out = []
    for row in result["throughput"]:
        if row["threads"] == 2 and row["speedup"] is not None:
            target = speedup_target(row)
            out.append(
                {
                    "check": f"speed-up on 2 threads, {row['game']} {row['players']}p {row['mix']}",
                    "target": f">= {target}",
                    "value": row["speedup"],
                    "ok": row["speedup"] >= target,
                }
            )
    for row in result["startup"]:
        out.append(
            {
                "check": f"warm start of sim run ({WARM_GAMES:,} games), {row['game']}",
                "target": f"< {TARGET_WARM_START_S} s",
                "value": row["warm_s"],
                "ok": row["warm_s"] < TARGET_WARM_START_S,
            }
        )
    for row in result["startup"]:
        if "warm_kernel_compiles" in row:
            out.append(
                {
                    "check": f"warm start compiles no kernel (all from the cache), {row['game']}",
                    "target": "0 compiled",
                    "value": row["warm_kernel_compiles"],
                    "ok": row["warm_kernel_compiles"] == 0 and row["warm_cache_hits"] > 0,
                }
            )
    for row in result["pure_python"]:
        jit = next(
            (
                t
                for t in result["throughput"]
                if (t["game"], t["players"], t["mix"]) == (row["game"], row["players"], row["mix"])
            ),
            None,
        )
        if jit is not None and jit.get("digest"):
            out.append(
                {
                    "check": f"JIT and pure Python give the same rows, {row['game']}",
                    "target": "equal",
                    "value": jit["digest"] == row["digest"],
                    "ok": jit["digest"] == row["digest"],
                }
            )
    for row in result.get("targets", []):
        if "skipped" not in row:
            out.append(
                {
                    "check": f"{row['target']}: {row['games']:,} games",
                    "target": f"<= {row['target_s']} s",
                    "value": row["elapsed_s"],
                    "ok": row["ok"],
                }
            )
            if row.get("ratio_ok") is not None:
                runs = len(row["runs"])
                out.append(
                    {
                        "check": f"{row['target']}: games/s over the yardstick's, median of {runs} run(s)",
                        "target": f">= {row['yardstick_ratio_target']}",
                        "value": row["yardstick_ratio"],
                        "spec": ".4f",
                        "ok": row["ratio_ok"],
                    }
                )
    return out


# --- presentation ---------------------------------------------------------------------------


def _fmt(v, spec=",.0f"):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, (int, float)) and spec:
        return format(v, spec)
    return str(v)


def _table(headers, rows):
    cells = [[_fmt(c[0], c[1]) if isinstance(c, tuple) else _fmt(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    line = lambda r: "  ".join(
        x.rjust(w) if i else x.ljust(w)  # noqa: E731
        for i, (x, w) in enumerate(zip(r, widths))
    )
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def _spread(ratios):
    """'1.78-2.05' for the speed-ups of the rounds ('-' when there is one or none)."""
    if not ratios or len(ratios) < 2:
        return "-"
    return f"{min(ratios):.2f}-{max(ratios):.2f}"


def render(result):
    """The bench result as plain-text tables."""
    m = result["machine"]
    mem = f"{m['memory_bytes'] / 2**30:.1f} GiB" if m.get("memory_bytes") else "?"
    out = [
        f"machine: {m['cpu']}, {m['usable_cpus']} usable CPUs, {mem}, numba "
        f"{m['versions'].get('numba')} ({m['numba_threads']} threads); load average at "
        f"start {', '.join(f'{x:.2f}' for x in m['load_average'] or [])}, at end "
        f"{', '.join(f'{x:.2f}' for x in result.get('load_average_end') or [])}"
    ]
    yard = result.get("yardstick") or {}
    if yard.get("readings"):
        # thread counts are JSON keys (strings) in a result read back from --json
        readings = [{int(t): g for t, g in r.items()} for r in yard["readings"]]
        per = "; ".join(
            f"{t} thread{'s' if t > 1 else ''}: " + " / ".join(f"{r[t]:,}" for r in readings if t in r)
            for t in sorted({t for r in readings for t in r})
        )
        out.append(f"yardstick ({yard['path']}, trick-taking games/s before / after): {per}")
    elif yard.get("skipped"):
        out.append(f"yardstick: {yard['skipped']}")
    if result.get("elapsed_s") is not None:
        out.append(f"took {result['elapsed_s']:.0f} s (expected about {result['expected_s']:.0f} s)")
    mb = lambda b: b / 2**20 if b else None  # noqa: E731
    if result["throughput"]:
        rows = [
            [
                r["game"],
                r["players"],
                r["mix"],
                r["games"],
                (r["games_per_s_1"], ",.0f"),
                (r["games_per_s_all"], ",.0f"),
                r["threads"],
                (r["speedup"], ".2f"),
                _spread(r.get("speedups")),
                (r["efficiency"], ".2f"),
                (r.get("cpu_us_per_game_1"), ".1f"),
                (r.get("cpu_us_per_game_all"), ".1f"),
                (r["kernel_us_per_game_all"], ".1f"),
                (r["arrow_us_per_game_all"], ".1f"),
                (r["parquet_us_per_game"], ".1f"),
                (r["pipeline_games_per_s"], ",.0f"),
                (r.get("yardstick_ratio_1"), ".3f"),
                (r.get("yardstick_ratio_all"), ".3f"),
                (mb(r["peak_rss_bytes"]), ",.0f"),
            ]
            for r in result["throughput"]
        ]
        out += [
            "",
            "throughput (games/s; per-game times in microseconds: CPU time of all "
            "threads, then wall time on all cores; speed-up: median of the rounds' ratios, "
            "range: lowest-highest; x yard: games/s over the yardstick's trick-taking games/s "
            "at the same threads)",
            _table(
                [
                    "game",
                    "players",
                    "mix",
                    "games",
                    "1 thread",
                    "all cores",
                    "threads",
                    "speed-up",
                    "range",
                    "efficiency",
                    "cpu us 1t",
                    "cpu us all",
                    "kernel us",
                    "arrow us",
                    "parquet us",
                    "pipeline g/s",
                    "x yard 1t",
                    "x yard all",
                    "peak MB",
                ],
                rows,
            ),
        ]
    if result.get("search"):
        rows = [
            [
                r["game"],
                r["players"],
                " ".join(r["lineup"]),
                r["games"],
                (r["cpu_ms_per_game"], ".1f"),
                (r["decisions"], ",.0f"),
                (r["cpu_ms_per_decision"], ".2f"),
                (r["decisions_per_cpu_s"], ",.0f"),
                (r.get("yardstick_ratio_1"), ".5f"),
            ]
            for r in result["search"]
        ]
        out += [
            "",
            "search players (default parameters, one search seat, 1 thread; CPU time; a decision: "
            + "; ".join(sorted({f"{r['game']}: {r['decision']}" for r in result["search"]}))
            + "; x yard: games per CPU second over the yardstick's games/s on 1 thread)",
            _table(
                [
                    "game",
                    "players",
                    "lineup",
                    "games",
                    "cpu ms/game",
                    "decisions",
                    "cpu ms/dec",
                    "dec/cpu s",
                    "x yard 1t",
                ],
                rows,
            ),
        ]
    if result["pure_python"]:
        rows = []
        for r in result["pure_python"]:
            jit = next(
                (
                    t
                    for t in result["throughput"]
                    if (t["game"], t["players"], t["mix"]) == (r["game"], r["players"], r["mix"])
                ),
                None,
            )
            one = jit["games_per_s_1"] if jit else None
            speed = one / r["games_per_s"] if one and r["games_per_s"] else None
            rows.append(
                [
                    r["game"],
                    r["players"],
                    r["mix"],
                    r["games"],
                    (r["games_per_s"], ",.2f"),
                    (one, ",.0f"),
                    (speed, ",.0f"),
                    jit.get("digest") == r["digest"] if jit else None,
                ]
            )
        out += [
            "",
            "JIT speed-up (NUMBA_DISABLE_JIT=1 runs the same code as plain Python; 1 thread)",
            _table(
                ["game", "players", "mix", "games", "python g/s", "jit g/s", "jit speed-up", "same rows"],
                rows,
            ),
        ]
    if result["startup"]:
        rows = [
            [
                r["game"],
                r["players"],
                r["mix"],
                (r["cold_s"], ".2f"),
                (r["compile_s"], ".2f"),
                (r.get("jit_compile_s"), ".2f"),
                r["compiled_versions"],
                r.get("helper_compiles"),
                r["cached_functions"],
                (r["warm_s"], ".2f"),
                r.get("warm_cache_hits"),
                r.get("warm_kernel_compiles"),
                (r.get("cold_cpu_s"), ".2f"),
                (r.get("warm_cpu_s"), ".2f"),
                (mb(r["cold_peak_rss_bytes"]), ",.0f"),
                (mb(r["warm_peak_rss_bytes"]), ",.0f"),
            ]
            for r in result["startup"]
        ]
        out += [
            "",
            f"start-up of `sim run` with {WARM_GAMES:,} games (whole process, seconds)",
            _table(
                [
                    "game",
                    "players",
                    "mix",
                    "cold",
                    "compile",
                    "jit compile",
                    "versions",
                    "by helper",
                    "functions",
                    "warm",
                    "warm hits",
                    "warm compiles",
                    "cold cpu",
                    "warm cpu",
                    "cold peak MB",
                    "warm peak MB",
                ],
                rows,
            ),
        ]
    if result.get("targets"):
        rows = [
            [
                r["target"],
                r["games"],
                len(r.get("runs", [])),
                (r["target_s"], ".1f"),
                (r.get("elapsed_s"), ".2f"),
                (r.get("process_cpu_s"), ".1f"),
                (r.get("games_per_s"), ",.0f"),
                r.get("ok") if "skipped" not in r else r["skipped"],
                _ratio_cell(r),
                (r.get("yardstick_ratio_target"), ".2f"),
                r.get("ratio_ok"),
            ]
            for r in result["targets"]
        ]
        out += [
            "",
            "targets through `sim run` (both cores, Parquet included; each run between two "
            "yardstick readings, the median run and the median ratio [95% interval of the mean])",
            _table(
                [
                    "target",
                    "games",
                    "runs",
                    "target s",
                    "elapsed s",
                    "cpu s",
                    "games/s",
                    "met",
                    "x yard",
                    "ratio target",
                    "ratio met",
                ],
                rows,
            ),
        ]
    if result["checks"]:
        out += [
            "",
            _table(
                ["check", "target", "value", "met"],
                [
                    [c["check"], c["target"], (c["value"], c.get("spec", ",.2f")), c["ok"]]
                    for c in result["checks"]
                ],
            ),
        ]
    return "\n".join(out)


# --- the command ----------------------------------------------------------------------------


def _selection(games_opt, players_opt, mixes_opt, quick=False):
    from . import registry

    names = registry.game_names()
    chosen = games_opt or names
    for g in chosen:
        if g not in names:
            raise ConfigError("--game", g, " | ".join(repr(n) for n in names))
    plan = []
    for g in chosen:
        a = registry.get_adapter(g)
        every = list(range(a.min_players, a.max_players + 1))
        counts = players_opt or ([_default_players(g) or a.min_players] if quick else every)
        counts = [p for p in counts if a.min_players <= p <= a.max_players]
        if not counts:
            raise ConfigError("--players", players_opt, f"{a.min_players} to {a.max_players} for {g}")
        default_players = _default_players(g)
        for p in counts:
            mixes = lineups(g, p)
            # default: the mixed lineup at every count, and each strategy alone at the
            # game's default count (strategies can differ in cost by orders of magnitude)
            wanted = mixes_opt or (list(mixes) if p == default_players and not quick else ["mixed"])
            bad = [m for m in wanted if m not in mixes]
            if bad and games_opt:
                raise ConfigError("--mix", bad[0], " | ".join(repr(m) for m in mixes))
            for m in wanted:
                if m in mixes:
                    plan.append((g, p, m, mixes[m]))
    if not plan:
        raise ConfigError("--mix", mixes_opt, "a strategy of the chosen games or 'mixed'")
    return plan


def _default_players(game):
    from . import api

    try:
        return api.resolve({"game": game})["players"]
    except SimError:
        return None


def _reference(plan):
    """One (game, players, mix, lineup) per game for the start-up and pure-Python runs: the
    game's default player count when measured, else its first."""
    out = {}
    for g, p, m, lineup in plan:
        default = _default_players(g)
        if g not in out or (p == default and out[g][1] != default):
            out[g] = (g, p, m, lineup)
    return list(out.values())


def run(game=None, players=None, mix=None, *, settings, yardstick=None, say=print):
    """A whole bench: the throughput rows of the games, player counts and mixes chosen (see
    ``sim bench --help``), the JIT-disabled and start-up runs of one row per game, the targets,
    the yardstick readings before and after; ``say`` gets the expected duration first and a
    line as each part finishes.  Returns the result (what ``--json`` prints).

    ``settings``: ``quick``, ``seconds``, ``games``, ``rounds``, ``py_games``, ``startup``,
    ``targets``, ``target_games``; ``yardstick``: the yardstick file (``None``: no ratios).
    """
    games, seconds, rounds, py_games = (settings[k] for k in ("games", "seconds", "rounds", "py_games"))
    startup_, targets_, yard_path = settings["startup"], settings["targets"], yardstick
    plan = _selection(game, players, mix, quick=settings["quick"])
    refs = _reference(plan)
    all_threads = _all_threads()
    expected = expected_seconds(plan, refs, settings, threads=all_threads, yardstick=yard_path is not None)
    result = {
        "format": "boardsim-bench",
        "format_version": BENCH_FORMAT,
        "machine": machine(),
        "settings": settings,
        "expected_s": expected,
        "throughput": [],
        "pure_python": [],
        "startup": [],
        "search": [],
        "yardstick": {"path": str(yard_path), "games": YARDSTICK_GAMES, "readings": []}
        if yard_path
        else {"skipped": "no yardstick file (give --yardstick PATH or set BOARDSIM_YARDSTICK); no ratios"},
    }
    t_start = time.perf_counter()
    search_counts = _search_counts(plan, settings["quick"])
    parts = (
        len(plan)
        + len(search_counts)
        + len(refs) * (bool(py_games) + startup_)
        + bool(targets_)
        + 2 * bool(yard_path)
    )
    say(
        f"bench: {len(plan)} throughput row(s), {parts} part(s): about {expected:.0f} s on the reference "
        f"2-core machine when idle (longer under load, plus a compile if the kernels are not cached)"
    )
    done = [0]

    def progress(what):
        done[0] += 1
        say(
            f"bench: [{done[0]}/{parts}] {what} ({time.perf_counter() - t_start:.0f} s of about {expected:.0f} s)"
        )

    threads_used = [1, all_threads]
    if yard_path:
        result["yardstick"]["readings"].append(yardstick_reading(yard_path, threads_used))
        progress("yardstick before: " + _yard_line(result["yardstick"]["readings"][-1]))
    digest_for = {(g, p, m): py_games for g, p, m, _ in refs} if py_games else {}
    for g, p, m, lineup in plan:
        row = throughput(
            g,
            p,
            m,
            lineup,
            games=games,
            seconds=seconds,
            digest_games=digest_for.get((g, p, m)),
            rounds=rounds,
        )
        result["throughput"].append(row)
        progress(
            f"{g} {p}p {m}: {row['games_per_s_1']:,.0f} games/s on 1 thread, {row['games_per_s_all']:,.0f} "
            f"on {row['threads']}" + (f", speed-up {row['speedup']:.2f}" if row["speedup"] else "")
        )
    for (g, p), n in search_counts.items():
        r = search_row(g, p, n)
        result["search"].append(r)
        progress(
            f"{g} {p}p {r['lineup'][0]}: {r['cpu_ms_per_game']:,.1f} ms of CPU a game, "
            f"{r['decisions_per_cpu_s']:,.0f} decisions per CPU second"
        )
    for g, p, m, lineup in refs:
        if py_games:
            r = pure_python(g, p, m, lineup, games=py_games)
            result["pure_python"].append(r)
            progress(f"{g} {p}p {m}, JIT disabled: {py_games} games at {r['games_per_s']:,.2f} games/s")
        if startup_:
            r = startup(g, p, m, lineup)
            result["startup"].append(r)
            progress(f"{g}: cold start {r['cold_s']:.1f} s, warm start {r['warm_s']:.1f} s")
    if targets_:
        result["targets"] = targets(
            settings["target_games"], yard_path, settings.get("target_sittings") or 1, all_threads
        )
        progress(f"targets through sim run: {sum(1 for t in result['targets'] if t.get('ok'))} met")
    if yard_path:
        result["yardstick"]["readings"].append(yardstick_reading(yard_path, threads_used))
        progress("yardstick after: " + _yard_line(result["yardstick"]["readings"][-1]))
        add_yardstick_ratios(result)
    result["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    result["load_average_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    result["checks"] = checks(result)
    return result


def _search_counts(plan, quick):
    """``{(game, players): games}`` of the search rows: each game's ``bench_search`` counts
    that the bench measures (none with ``--quick``)."""
    from . import registry

    if quick:
        return {}
    out = {}
    for g, p, *_ in plan:
        rows = registry.get_adapter(g).bench_search()
        if rows and p in rows["games"]:
            out[g, p] = rows["games"][p]
    return dict(sorted(out.items()))


def _all_threads():
    import numba

    return numba.config.NUMBA_NUM_THREADS


def _yard_line(reading):
    return ", ".join(f"{g:,} games/s on {t} thread{'s' if t > 1 else ''}" for t, g in sorted(reading.items()))


def expected_seconds(plan, refs, settings, *, threads, yardstick):
    """Seconds a bench of ``plan`` should take on the reference machine when idle, from the
    parts' measured costs (``CHILD_S`` ... ``YARDSTICK_S``): each row's passes (the 1-thread
    pass of ``seconds`` all-cores work takes ``threads`` times as long), the JIT-disabled
    games, the start-ups, the targets and the yardstick readings."""
    rounds, seconds = settings["rounds"], settings["seconds"]
    work = 0.0 if settings["games"] is not None else seconds * (1 + threads) * rounds
    total = len(plan) * (CHILD_S + work + 2 * rounds * PASS_OVERHEAD_S)
    total += sum(CHILD_S + SEARCH_GAME_S * n for n in _search_counts(plan, settings["quick"]).values())
    if settings["py_games"]:
        total += len(refs) * (CHILD_S + settings["py_games"] * PY_GAME_S)
    if settings["startup"]:
        total += len(refs) * (COLD_START_S + WARM_START_S)
    if settings["targets"]:
        scale = settings["target_games"] / 1_000_000
        sittings = settings.get("target_sittings") or 1
        for t in _typical_target_s().values():
            total += 2 * WARM_START_S + sittings * (WARM_START_S + t * scale)
            if yardstick:  # one reading before the first run and one after each run
                total += (sittings + 1) * YARDSTICK_S
    if yardstick:
        total += 2 * YARDSTICK_S
    return round(total)
