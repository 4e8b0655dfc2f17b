"""What every build keeps: one declared version per helper (``njit(sig(...))``) and no game
kernel compiled to resolve a config.  Both are checked in fresh processes with empty caches."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
