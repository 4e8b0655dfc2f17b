"""Instructions a game of a run config executes, counted by valgrind: an A/B below timing noise.

On the shared 2-core VM a game's CPU time moves by 5-10% between runs minutes apart, so a
change worth 2-4% cannot be seen by timing it.  The instructions a game executes hardly move:
valgrind's ``cachegrind`` tool (no cache simulation) counts them, whatever else the machine is
doing.  The count is

    (instructions of a process that plays ``games`` games - those of one that plays none) / games

the two processes being alike but for the games (start-up, loading the compiled kernels and a
100-game warm-up in both); the games are ``--first`` .. ``--first + games - 1``.  Fewer
instructions is not the same as less time (cache misses and mispredicted branches are not
counted), so a change found this way is timed as well.

How far to trust it: the same tree and the same 5,000 games, through three ways of writing the
same 3-player ``expert`` config (with and without ``rotate``, and
``configs/bloody_inn/strategies/expert-3p.toml``), count 248,381 / 249,495 / 249,839
instructions a game, and a repeat of one of them 250,603: within ~1%.  Before the two
processes resolved the config with the same game count, the same three counted 259,724 /
257,781 / 252,949 (a 2.7% spread, 4% above): Python work of the playing process alone was
counted as the games'.  With the same count but the garbage collector left on during the games,
the first counts 250,749 (+1%).

Usage (from the project root; ``PYTHONPATH=<worktree>`` measures another tree)::

    python benchmarks/instructions.py configs/bloody_inn/strategies/expert-3p.toml
    python benchmarks/instructions.py CONFIG --games 5000 --first 1000 --cache /tmp/vg-cache

Under valgrind the CPU reports other features, so numba compiles the kernels again for it
(about 10 minutes the first time, cached in ``--cache``, by default a directory of its own
under the system's temporary directory: the project's cache keeps the native code).
``--generic-cpu`` compiles them natively for a generic x86-64 CPU instead
(``NUMBA_CPU_NAME=generic``, ~40 s), code valgrind loads as it is; its counts are those of
that code, not of the native build's.  Needs ``valgrind`` (Debian: ``apt-get install valgrind``).

``--cache-sim`` also simulates the caches (an L1 data cache of 32 KB, 8-way, 64-byte lines, as
this machine's cores; the 1 MB L2 as valgrind's last level) and gives the L1 data misses a game
the same way.  Simulated misses are not time either: padding the state's 4 KB regions apart
cut them by ~80% with no time gained (docs/history/benchmarks.md, issue 31).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

WARMUP = 100
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")
_D1 = re.compile(r"D1\s+misses:\s+([\d,]+)\s+\(\s*([\d,]+) rd\s+\+\s+([\d,]+) wr")
#: cachegrind's simulated caches with ``--cache-sim``: this machine's L1s, its L2 as "LL"
CACHE_SIM = ("--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64")


def _int(text):
    return int(text.replace(",", ""))


def instruction_count(stderr):
    """The ``I refs`` total of a cachegrind run's report, or None."""
    m = _REFS.search(stderr)
    return _int(m.group(1)) if m else None


def d1_misses(stderr):
    """(all, read, write) L1 data misses of a cachegrind report with cache simulation, or None."""
    m = _D1.search(stderr)
    return tuple(_int(g) for g in m.groups()) if m else None


def _child(config, games, first, total):
    """Play games ``0 .. WARMUP-1``, then ``first .. first+games-1`` of ``config`` on one
    thread (under valgrind).

    Both processes of a count resolve the config with the same ``total`` games (the same
    config id and objects), and the garbage collector is off while the games are played (a
    collection only the playing process triggers walks every object numba holds): their
    difference is then the games' own work."""
    import gc

    from sim import api

    resolved = api.resolve(config, games=total)
    api.set_threads(1)
    api.play_range(resolved, 0, WARMUP)
    gc.collect()
    gc.disable()
    if games:
        api.play_range(resolved, first, games)


def _child_cmd(config, games, first, total):
    return [
        sys.executable,
        __file__,
        "--child",
        str(games),
        "--first",
        str(first),
        "--total",
        str(total),
        str(config),
    ]


def _count(config, games, first, total, env, cache_sim=False):
    """(instructions, D1 misses or None) of a valgrind run playing ``games`` games."""
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        *(CACHE_SIM if cache_sim else ("--cache-sim=no",)),
        "--smc-check=all-non-file",  # the kernels are machine code written at run time
        "--cachegrind-out-file=/dev/null",
        *_child_cmd(config, games, first, total),
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    n = instruction_count(done.stderr)
    misses = d1_misses(done.stderr) if cache_sim else None
    if done.returncode != 0 or n is None or (cache_sim and misses is None):
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SystemExit(
            f"instructions: valgrind run of {games} games failed (exit {done.returncode}):\n{tail}"
        )
    return n, misses


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", type=Path, help="a run config (TOML)")
    ap.add_argument("--games", type=int, default=5000, help="games of the measured process (default 5000)")
    ap.add_argument("--first", type=int, default=WARMUP, help=f"first game measured (default {WARMUP})")
    ap.add_argument("--cache", type=Path, default=None, help="numba cache for the valgrind runs")
    ap.add_argument(
        "--cache-sim", action="store_true", help="also simulate the caches: L1 data misses a game"
    )
    ap.add_argument(
        "--generic-cpu",
        action="store_true",
        help="compile natively for a generic x86-64 CPU (~40 s) instead of under valgrind (~10 min)",
    )
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--total", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        _child(args.config, args.child, args.first, args.total)
        return
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        raise SystemExit(2)
    if not args.config.is_file():
        print(f"instructions: {args.config}: no such file", file=sys.stderr)
        raise SystemExit(2)
    if args.games < 1:
        print(f"instructions: --games {args.games} is invalid; allowed: 1 or more", file=sys.stderr)
        raise SystemExit(2)
    if args.first < WARMUP:
        print(f"instructions: --first {args.first} is invalid; allowed: {WARMUP} or more", file=sys.stderr)
        raise SystemExit(2)
    name = "boardsim-valgrind-cache-generic" if args.generic_cpu else "boardsim-valgrind-cache"
    cache = args.cache or Path(tempfile.gettempdir()) / name
    cache.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, BOARDSIM_CACHE_DIR=str(cache))
    if args.generic_cpu:
        env["NUMBA_CPU_NAME"] = "generic"  # numba's public setting: code valgrind runs as it is
    from kernels import source_hash

    total = args.first + args.games + WARMUP  # resolved alike in both processes

    if not any((cache / f"kernels-{source_hash(env)}").rglob("*.nbc")):
        # fills the cache: the two runs below load the same code
        if args.generic_cpu:
            print(
                f"compiling the kernels for a generic CPU into {cache} (under a minute) ...", file=sys.stderr
            )
            subprocess.run(_child_cmd(args.config, 0, args.first, total), env=env, check=True)
        else:
            print(
                f"compiling the kernels under valgrind into {cache} (about 10 minutes) ...", file=sys.stderr
            )
            _count(args.config, 0, args.first, total, env)
    with ThreadPoolExecutor(2) as pool:
        (base, base_miss), (played, played_miss) = pool.map(
            lambda n: _count(args.config, n, args.first, total, env, args.cache_sim), (0, args.games)
        )
    per_game = (played - base) / args.games
    last = args.first + args.games - 1
    print(
        f"{args.config}: {per_game:,.0f} instructions a game (games {args.first:,}-{last:,}; {base:,} without them)"
    )
    if args.cache_sim:
        d, rd, wr = ((b - a) / args.games for a, b in zip(base_miss, played_miss))
        print(f"{args.config}: {d:,.0f} simulated L1 data misses a game ({rd:,.0f} read + {wr:,.0f} write)")


if __name__ == "__main__":
    main()
