"""Split numba's cold compile of one ``sim run`` into LLVM function passes, final module
passes and machine code per library (the rest of ``native_lowering`` is numba's Python-side
lowering).

Usage: ``BOARDSIM_CACHE_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/issue17/llvm_prof.py CONFIG GAMES``
(``benchmarks/issue17/cold_ab.sh ROUNDS TREE...`` times whole cold runs of several trees.)
"""

import collections
import sys
import tempfile
import time

from numba.core import codegen as cg
from numba.core import event as ev

T = collections.defaultdict(float)
per_lib = collections.defaultdict(lambda: collections.defaultdict(float))


def wrap(cls, name, key):
    orig = getattr(cls, name)

    def f(self, *a, **k):
        t0 = time.perf_counter()
        try:
            return orig(self, *a, **k)
        finally:
            d = time.perf_counter() - t0
            T[key] += d
            per_lib[self.name][key] += d

    setattr(cls, name, f)


wrap(cg.CPUCodeLibrary, "_optimize_functions", "fpm")
wrap(cg.CPUCodeLibrary, "_optimize_final_module", "final_opt")
wrap(cg.JITCodeLibrary, "_finalize_specific", "mc")
wrap(cg.CPUCodeLibrary, "finalize", "finalize_total")
wrap(cg.CPUCodeLibrary, "serialize_using_object_code", "serialize")
wrap(cg.CPUCodeLibrary, "_get_module_for_linking", "get_link_mod")

comp = [0.0, 0]


class L(ev.Listener):
    depth = 0

    def on_start(self, e):
        if L.depth == 0:
            L.t0 = time.perf_counter()
        L.depth += 1

    def on_end(self, e):
        L.depth -= 1
        if L.depth == 0:
            comp[0] += time.perf_counter() - L.t0
        comp[1] += 1


ev.register("numba:compile", L())
t0 = time.perf_counter()
from sim import runner  # noqa: E402 - after the wrappers, so every compile is seen

t_imp = time.perf_counter() - t0
runner.run_dataset(sys.argv[1], tempfile.mkdtemp() + "/x", games=int(sys.argv[2]))
tot = time.perf_counter() - t0
print(f"total {tot:.2f} import sim.runner {t_imp:.2f} compile(outer) {comp[0]:.2f} n={comp[1]}")
for k, v in T.items():
    print(f"{k:15s} {v:7.2f}")
rows = sorted(per_lib.items(), key=lambda x: -(x[1]["final_opt"] + x[1]["mc"]))
for n, d in rows[:25]:
    print(f"{d['final_opt']:6.2f} {d['mc']:6.2f} {d['fpm']:6.2f} {d['serialize']:6.2f}  {n[:90]}")
