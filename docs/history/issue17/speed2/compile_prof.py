"""Where a cold compile goes: exclusive wall time of every ``numba:run_pass`` event per function
(nested compiles subtracted), for one ``sim run``.

Usage: ``BOARDSIM_CACHE_DIR=$(mktemp -d) python compile_prof.py CONFIG GAMES OUT.json``
"""

import collections
import json
import sys
import tempfile
import time

from numba.core import event as ev

stack = []  # [kind, name, t0, seconds of nested events]
by_fn = collections.defaultdict(float)
incl_fn = collections.defaultdict(float)
by_pass = collections.defaultdict(float)
by_fn_pass = collections.defaultdict(float)
count_fn = collections.Counter()


class Listener(ev.Listener):
    def on_start(self, event):
        d = event.data or {}
        if event.kind == "numba:compile":
            f = d["dispatcher"].py_func
            name = f"{f.__module__}.{f.__qualname__}"
            count_fn[name] += 1
        else:
            name = d.get("name", "?").split(" [")[0] + f" [{d.get('module')}.{d.get('qualname')}]"
        stack.append([event.kind, name, time.perf_counter(), 0.0])

    def on_end(self, event):
        kind, name, t0, nested = stack.pop()
        dur = time.perf_counter() - t0
        if stack:
            stack[-1][3] += dur
        if kind == "numba:compile":
            incl_fn[name] += dur
            return
        pass_name, fn = name.split(" [")[0], name.split(" [")[1].rstrip("]")
        by_pass[pass_name] += dur - nested
        by_fn_pass[(fn, pass_name)] += dur - nested
        by_fn[fn] += dur - nested


listener = Listener()
ev.register("numba:compile", listener)
ev.register("numba:run_pass", listener)
t0 = time.perf_counter()
from sim import runner  # noqa: E402 - after the listener, so every compile is seen

runner.run_dataset(sys.argv[1], tempfile.mkdtemp() + "/x", games=int(sys.argv[2]))
total = time.perf_counter() - t0


def ranked(d):
    return sorted(d.items(), key=lambda x: -x[1])


res = {
    "total": total,
    "by_pass": ranked(by_pass),
    "by_fn": ranked(by_fn),
    "incl": ranked(incl_fn),
    "count": count_fn.most_common(),
    "fn_pass": [[f"{a} | {b}", v] for (a, b), v in ranked(by_fn_pass)[:80]],
}
json.dump(res, open(sys.argv[3], "w"), indent=1)
print("total", round(total, 1), "sum passes", round(sum(by_pass.values()), 1))
for p, v in res["by_pass"][:15]:
    print(f"{v:7.2f}  {p}")
print("--- by function (exclusive)")
for p, v in res["by_fn"][:40]:
    print(f"{v:7.2f}  {p}")
print("--- compiled more than once")
for p, v in res["count"]:
    if v > 1:
        print(v, p)
