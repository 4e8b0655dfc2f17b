"""Play 3-player long games of one strategy on 1 thread under a perf map of the kernels.

Usage (an empty cache, so the final LLVM modules exist in this process)::

    mkdir -p /tmp/speed
    BOARDSIM_CACHE_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/issue17/perf_map_play.py expert 25 &
    benchmarks/issue17/perfwait.sh   # perf record -g -p PID for 20 s once the map is written

Writes ``/tmp/perf-PID.map`` (every defined function of every kernel dispatcher's library;
size = distance to the next address) and signals readiness via ``/tmp/speed/ready``.
"""

import os
import sys
import time

import numba

from sim import api

cfg = {
    "game": "bloody_inn",
    "players": 3,
    "rules": {"length": "long"},
    "seed": 1,
    "seats": [{"strategy": sys.argv[1]}],
    "games": 1000,
}
r = api.resolve(cfg)
api.set_threads(1)
api.play_range(r, 0, 200)  # compile

syms = {}
seen = set()


def visit(disp):
    for cres in disp.overloads.values():
        lib = cres.library
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        try:
            mod = lib._final_module
        except Exception:
            continue
        for f in mod.functions:
            if f.is_declaration:
                continue
            try:
                a = lib.get_pointer_to_function(f.name)
            except Exception:
                continue
            if a:
                syms.setdefault(a, f.name)


for name, m in list(sys.modules.items()):
    if not name.startswith("kernels"):
        continue
    for v in vars(m).values():
        if isinstance(v, numba.core.registry.CPUDispatcher):
            visit(v)
addrs = sorted(syms)
with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
    for i, a in enumerate(addrs):
        size = min((addrs[i + 1] - a) if i + 1 < len(addrs) else 65536, 1 << 20)
        fh.write(f"{a:x} {size:x} {syms[a]}\n")
print("map", len(addrs), "functions", file=sys.stderr, flush=True)
open("/tmp/speed/ready", "w").write(str(os.getpid()))
t = time.time()
n = 0
while time.time() - t < float(sys.argv[2]):
    api.play_range(r, n, 5000)
    n += 5000
print("played", n, "in", time.time() - t, file=sys.stderr)
