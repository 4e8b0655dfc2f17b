"""The opt-in cold-compile trims and the helper process (``kernels/cold_compile.py``,
``BOARDSIM_FAST_COMPILE=1``), and what every build keeps: explicit signatures, no compile to
resolve a config (no game kernel).

The trims must not change what numba generates, and the helper must compile exactly the
kernels the block kernel's compile asks for (``kernels/bloody_inn/compile_plan.py``): both are
checked in fresh processes with empty caches, so what is measured is a real cold compile.
"""

import difflib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa

from sim import api

ROOT = Path(__file__).resolve().parent.parent

TOY = """
from numba import njit


@njit(inline="always")
def _add(a, b):
    c = a + b
    if c > 10:
        c -= 3
    return c


@njit(inline="always")
def _twice(a):
    return _add(a, a) + _add(a, 1)


@njit
def leaf(x):
    return min(x, 7) + max(x, 2)


@njit
def kernel(arr):
    s = 0
    for i in range(arr.size):
        s += _twice(arr[i]) + _add(s, i) + leaf(arr[i])
    return s


@njit
def other_kernel(arr):  # the same inlined callees in a second caller
    return _twice(arr[0]) - _add(arr[1], 4)
"""

RUN_TOY = """
import sys
import numpy as np
if sys.argv[1] == "trimmed":
    from numba.core import bytecode, inline_closurecall, ir, targetconfig
    from kernels import cold_compile
    cold_compile._front_end_once_per_callee(ir, inline_closurecall, bytecode)
    cold_compile._flags_hash_once(targetconfig)
import toy_kernels
print("RESULT", toy_kernels.kernel(np.arange(20)), toy_kernels.other_kernel(np.arange(5, 9)))
"""


def _run_script(tmp_path, name, source, *args, path=(), **env):
    """Run ``source`` as ``tmp_path/name`` in a fresh interpreter (this tree first on its
    path, then ``path``) with ``env`` added; its standard output."""
    (tmp_path / name).write_text(source)
    full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *map(str, path)]), **env)
    if "NUMBA_CACHE_DIR" not in env:
        full.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, name, *args], cwd=tmp_path, env=full, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _canonical_ir(text):
    """numba's LLVM dump with the process's unique ids and addresses renumbered in order of
    first appearance (they differ between any two processes)."""
    text = re.sub(r"-+(LLVM DUMP.*?)-+", r"\1", text)
    text = re.sub(r"numba\.dynamic\.globals\.[0-9a-f]+", "numba.dynamic.globals.X", text)
    text = re.sub(r"inttoptr \(i64 \d+", "inttoptr (i64 X", text)
    seen = {}

    def renumber(kind):
        def sub(m):
            key = (kind, m.group(1))
            if key not in seen:
                seen[key] = sum(1 for k in seen if k[0] == kind)
            return f"{kind}{seen[key]}"

        return sub

    text = re.sub(r"B\d+v(\d+)", renumber("Bv"), text)  # the mangled names' unique ids
    text = re.sub(r"\$(\d+)", renumber("$"), text)
    return re.sub(r"_v(\d+)_", lambda m: renumber("_v")(m) + "_", text)  # inlined variables


def _dump(tmp_path, mode):
    (tmp_path / "toy_kernels.py").write_text(TOY)
    cache = str(tmp_path / f"cache-{mode}")
    return _run_script(
        tmp_path, "run_toy.py", RUN_TOY, mode, path=[tmp_path], NUMBA_DUMP_LLVM="1", NUMBA_CACHE_DIR=cache
    )


def test_the_front_end_trims_leave_numbas_llvm_ir_unchanged(tmp_path):
    plain = _dump(tmp_path, "numba")
    trimmed = _dump(tmp_path, "trimmed")
    assert "RESULT 7803800 " in plain and plain.count("LLVM DUMP") >= 4
    a, b = _canonical_ir(plain).splitlines(), _canonical_ir(trimmed).splitlines()
    diff = list(difflib.unified_diff(a, b, lineterm="", n=0))
    assert diff == [], "\n".join(diff[:40])


_BRANCHES = "".join(
    f"        if s % {k + 13} == {k % 5}:\n            s = (s * {k + 2} + a[(i * {k + 3}) % a.size]) % 1000003\n"
    for k in range(40)
)

LINKED_KERNELS = f"""
@njit
def leaf(x):
    return min(x, 7) + max(x, 2)


@njit
def mid(a):  # big enough that LLVM keeps its three calls in top as calls
    s = 0
    for i in range(a.size):
        s += leaf(a[i]) * (i % 3)
{_BRANCHES}
    return s


@njit
def top(a):
    return mid(a) + mid(a[1:]) * 3 + mid(a[2:]) * 5 + leaf(a[0])


@njit
def outer(a):  # links top, an entry point compiled before, as a callee
    return top(a) - mid(a) * 2
"""

LINKED = (
    """
import json
import numpy as np
from numba import njit
from numba.core import codegen, event
from kernels import cold_compile

cold_compile._final_passes_only_at_the_entry_point(codegen, event)
"""
    + LINKED_KERNELS
    + """

def defined(module):
    return [(f.name, f.linkage.name) for f in module.functions if not f.is_declaration]


a = np.arange(20)
out = {"first": int(top(a))}  # top compiled from Python: the entry point
lib = top.overloads[top.signatures[0]].library
out["entry"] = defined(lib._final_module)
out["for_linking"] = defined(lib._get_module_for_linking())
out["results"] = [int(top(a)), int(outer(a))]
out["callees"] = [int(mid(a)), int(leaf(3))]  # compiled for top, called from Python after it
print("RESULT", json.dumps(out))
"""
)


def _callee(name):
    return "4leaf" in name or "3mid" in name


def test_an_entry_point_runs_its_own_optimised_copies_of_its_callees(tmp_path):
    """The entry point (a kernel called from Python) gets every linked callee as an internal
    copy, optimised with it, so its machine code cannot call a callee's own library (compiled
    without the final passes; the JIT resolves a linkonce_odr name to the first copy loaded).
    A later caller links the entry point's module as numba would: exported functions
    linkonce_odr, no internal duplicates of the callees."""
    import numpy as np

    stdout = _run_script(tmp_path, "linked.py", LINKED, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = json.loads(stdout.split("RESULT ", 1)[1])
    plain = {"njit": lambda f: f, "np": np}
    exec(LINKED_KERNELS.replace("@njit\n", ""), plain)
    a = np.arange(20)
    assert out["results"] == [plain["top"](a), plain["outer"](a)]
    assert out["callees"] == [plain["mid"](a), plain["leaf"](3)]
    entry_callees = [(n, k) for n, k in out["entry"] if _callee(n)]
    assert any("3mid" in n for n, _ in entry_callees), out["entry"]  # still a call
    assert all(k in ("internal", "private") for _, k in entry_callees), entry_callees
    linking = [(n, k) for n, k in out["for_linking"] if _callee(n)]
    assert sorted(k for _, k in linking) == ["linkonce_odr", "linkonce_odr"], linking


ENTRY_THEN_CALLEE = """
from tests.test_bloody_inn_search import fresh, template
from kernels.bloody_inn.play import play_one
from kernels.bloody_inn.setup import setup_game

a, pr = template(1, ["expert"], 6)
b = a.copy()
play_one(fresh(a, 6, 0), pr)  # an entry point: its own copies of setup_game and the rest
setup_game(fresh(b, 6, 0))  # compiled as play_one's callee, now called from Python
print("RESULT", int(a.sum()), int(b.sum()))
"""


def test_callees_of_an_entry_point_called_from_python_after_it(tmp_path):
    """A kernel compiled as an entry point's callee, then called from Python, runs its own
    library's code.  With the entry point's internal copies under the callees' own names the
    JIT found a copy by name instead, and this crashed (segmentation fault)."""
    # the suite's cache (the kernels loaded from it crashed the same way as compiled ones)
    fast = {"BOARDSIM_FAST_COMPILE": "1"}
    first = _run_script(tmp_path, "entry_then_callee.py", ENTRY_THEN_CALLEE, **fast)
    again = _run_script(tmp_path, "entry_then_callee.py", ENTRY_THEN_CALLEE, **fast)
    assert first.split("RESULT ", 1)[1] == again.split("RESULT ", 1)[1]


COLD_RUN = """
import json, sys
import pyarrow as pa
from numba.core import event
from kernels import cold_compile

compiled, helpers = [], []


class Compiles(event.Listener):
    def on_start(self, e):
        f = e.data["dispatcher"].py_func
        compiled.append(f"{f.__module__}.{f.__qualname__}")

    def on_end(self, e):
        pass


event.register("numba:compile", Compiles())
start = cold_compile._Helper.__init__


def record(self, targets):
    helpers.append(self)
    start(self, targets)


cold_compile._Helper.__init__ = record
from sim import api

cfg = json.loads(sys.argv[1])
chunk = api.play_range(api.resolve(cfg), 0, cfg["games"])
with pa.ipc.new_file(sys.argv[2], chunk.games.schema) as w:
    w.write_table(chunk.games)
h = helpers[0] if helpers else None
print(json.dumps({
    "helpers": len(helpers),
    "targets": [f"{d.py_func.__module__}.{d.py_func.__qualname__}" for d, _ in h.targets] if h else [],
    "ok": sorted(h.ok) if h else [],
    "asked": sorted(h.asked) if h else [],
    "compiled": compiled,
}))
"""

EXPERT_3P = {
    "game": "bloody_inn",
    "players": 3,
    "rules": {"length": "long"},
    "seed": 11,
    "seats": [{"strategy": "expert"}],
    "games": 40,
}


def test_a_cold_bloody_inn_compile_loads_every_kernel_of_its_helper(tmp_path):
    """A cold compile with the helper: this process compiles none of the helper's kernels
    (each was in the cache when its typing reached it: the plan's argument types are the
    ones the block kernel asks for), and the games are those of a compile without it."""
    arrow = tmp_path / "games.arrow"
    cache = str(tmp_path / "cache")
    out = _run_script(
        tmp_path,
        "cold_run.py",
        COLD_RUN,
        json.dumps(EXPERT_3P),
        str(arrow),
        BOARDSIM_CACHE_DIR=cache,
        BOARDSIM_COMPILE_HELPER="1",
        BOARDSIM_FAST_COMPILE="1",
    )
    rep = json.loads(out.strip().splitlines()[-1])
    if (len(os.sched_getaffinity(0))) < 2:
        assert rep["helpers"] == 0  # one core: no helper
        return
    assert rep["helpers"] == 1
    targets = rep["targets"]
    assert "kernels.bloody_inn.morning.morning" in targets and len(targets) >= 10
    assert rep["ok"] == list(range(len(targets)))  # the helper compiled every one
    assert rep["asked"] == list(range(len(targets)))  # this process's typing needed every one
    assert sorted(set(targets) & set(rep["compiled"])) == []  # and this process none
    assert "kernels.bloody_inn.play._play_block" in rep["compiled"]  # it was a cold compile
    cold = pa.ipc.open_file(str(arrow)).read_all()
    here = api.play_range(api.resolve(dict(EXPERT_3P)), 0, EXPERT_3P["games"]).games
    assert cold.num_rows == EXPERT_3P["games"]
    assert cold.equals(here)


def test_the_helpers_kernels_are_real_calls():
    """An ``inline="always"`` function is typed inside its caller, never compiled on its own:
    in the plan it would be work for nothing."""
    from numba import types

    from kernels.bloody_inn.compile_plan import helper_targets

    flags = (types.int64, types.none, types.none)
    block = (types.int64[::1], types.float64[::1]) + (types.int64,) * 10 + (types.none, types.none) + flags
    targets = helper_targets(block)
    assert len(targets) >= 10
    for disp, argtypes in targets:
        assert disp.targetoptions.get("inline", "never") == "never", disp.py_func.__qualname__
        assert len(argtypes) == disp.py_func.__code__.co_argcount, disp.py_func.__qualname__


def test_no_helper_without_the_fast_compile_flag(monkeypatch):
    from kernels import cold_compile

    monkeypatch.delenv("BOARDSIM_FAST_COMPILE", raising=False)
    monkeypatch.setattr(cold_compile, "_PLANS", {})
    cold_compile.help_compile(object(), lambda args: [])
    assert cold_compile._PLANS == {}


def test_no_helper_when_it_is_switched_off(monkeypatch):
    from kernels import cold_compile

    monkeypatch.setenv("BOARDSIM_COMPILE_HELPER", "0")
    assert not cold_compile._helper_wanted()
    monkeypatch.setenv("BOARDSIM_COMPILE_HELPER", "1")
    assert cold_compile._helper_wanted() == (len(os.sched_getaffinity(0)) >= 2)


def test_a_helper_that_dies_leaves_the_compile_to_this_process(tmp_path):
    """The helper's process exits at once (a broken interpreter path): the waits give up
    and every kernel compiles here, with the same result."""
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        from numba import njit
        from kernels import cold_compile

        @njit(cache=True)
        def leaf(x):
            return x * 3 + 1

        @njit(cache=True)
        def entry(a):
            return leaf(a[0]) + leaf(a[1])

        started = []
        start = cold_compile._Helper.__init__
        cold_compile._Helper.__init__ = lambda self, t: started.append(t) or start(self, t)
        cold_compile.help_compile(entry, lambda args: [(leaf, (args[0].dtype,))])
        sys.executable = "/bin/false"  # the helper process fails at once
        print("RESULT", entry(np.array([2, 5])), "HELPERS", len(started))
        sys.executable = "/nonexistent/python"  # no helper process at all: compiles alone

        @njit(cache=True)
        def entry2(a):
            return leaf(a[0]) * 2

        cold_compile.help_compile(entry2, lambda args: [(leaf, (args[0].dtype,))])
        print("RESULT2", entry2(np.array([4, 0])))
        """
    )
    cache = str(tmp_path / "cache")
    out = _run_script(
        tmp_path,
        "dies.py",
        script,
        NUMBA_CACHE_DIR=cache,
        BOARDSIM_COMPILE_HELPER="1",
        BOARDSIM_FAST_COMPILE="1",
    )
    cores = len(os.sched_getaffinity(0))
    assert f"RESULT 23 HELPERS {int(cores >= 2)}" in out
    assert "RESULT2 26" in out


def _declared_helpers():
    """(module, name) of every kernel declared with ``@njit(sig(...))``, read from the sources."""
    found = set()
    for path in (ROOT / "kernels").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for m in re.finditer(r"^@njit\(sig\(.*\n(?:@.*\n)*def (\w+)\(", path.read_text(), re.M):
            found.add((module, m.group(1)))
    return found


def test_resolving_a_bloody_inn_config_compiles_no_game_kernel(tmp_path):
    """A config is checked (``sim validate``, a bad-input error) without compiling a game:
    the one compile work is that of the small helpers with a declared signature (numba
    compiles those, with their callees, when their module is imported: here the strategies'
    for their parameter tables), never a policy, a rule or the block kernel."""
    script = textwrap.dedent(
        """
        from numba.core import event
        compiled, depth = [], [0]

        class Compiles(event.Listener):  # the outermost compiles (a callee compiles inside)
            def on_start(self, e):
                if depth[0] == 0:
                    f = e.data["dispatcher"].py_func
                    compiled.append((f.__module__, f.__qualname__))
                depth[0] += 1

            def on_end(self, e):
                depth[0] -= 1

        event.register("numba:compile", Compiles())
        from sim import api
        api.resolve({"game": "bloody_inn", "players": 3, "seats": [{"strategy": "expert"}]})
        print("COMPILED", [list(c) for c in compiled])
        """
    )
    out = _run_script(tmp_path, "imports.py", script, BOARDSIM_CACHE_DIR=str(tmp_path / "cache"))
    compiled = [tuple(c) for c in json.loads(out.split("COMPILED ", 1)[1].replace("'", '"'))]
    declared = _declared_helpers()
    assert len(declared) >= 30 and ("kernels.bloody_inn.play", "_play_block") not in declared
    ours = [c for c in compiled if c[0].startswith("kernels.")]
    assert ours, out[-2000:]  # a cold cache: the declared helpers did compile
    assert sorted(set(ours) - declared) == [], out[-2000:]


FIRST_CALL_FROM_PYTHON = """
import numpy as np
from kernels.bloody_inn import layout as L
from kernels.bloody_inn.state import move_card
from kernels.bloody_inn.strat_heuristic import room_value

st = np.zeros(L.STATE_END, np.int64)
st[L.C_LOC + 5] = L.LOC.exit  # card 5 in the Exit list, moved to the Bistro list
st[L.LIST_N + L.L_EXIT] = 1
st[L.LISTS + L.L_EXIT * L.MAXC] = 5
assert move_card(st, np.int64(5), np.int64(L.LOC.bistro), np.int64(0)) is None
print("MOVED", st[L.LIST_N + L.L_EXIT], st[L.LIST_N + L.L_BISTRO], st[L.LISTS + L.L_BISTRO * L.MAXC])
st[L.R_KEY + 2] = L.WHITE
print("VALUE", room_value(st, np.int64(0), 0.5, np.int64(2), np.int64(2)))
print("VERSIONS", len(move_card.overloads), len(room_value.overloads))
"""


def test_a_helper_with_a_declared_signature_is_one_version_called_from_python(tmp_path):
    """A helper declared with ``njit(sig(...))`` and first called from Python (an empty
    cache, nothing typed before): it runs once, returns its own result, and the Python float
    and ints it is given convert to the declared version (no second one)."""
    out = _run_script(
        tmp_path, "first_call.py", FIRST_CALL_FROM_PYTHON, BOARDSIM_CACHE_DIR=str(tmp_path / "cache")
    )
    # one move: the Exit list loses the card, the Bistro list holds it once
    assert "MOVED 0 1 5" in out
    assert "VALUE 0.0" in out  # rank 2 in an empty room keyed white: no tokens, no key (BI-E1)
    assert "VERSIONS 1 1" in out  # the declared version only
