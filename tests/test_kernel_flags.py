"""Kernels compiled without numba's division-by-zero checks (``error_model="numpy"``).

A division by zero there gives inf or nan instead of an error, so every divisor must be a
non-zero constant or bounded away from zero.  The audit below lists each division of those
modules; a new division with a variable divisor fails it until its guard is added here.
"""

import ast
import inspect
import math
from pathlib import Path

import pytest

from kernels.bloody_inn import strat_heuristic, strat_tools

ROOT = Path(__file__).resolve().parent.parent

#: (module, function) compiled under ``error_model="numpy"`` -> its guarded divisors (source)
#: and why each cannot be zero
GUARDED = {
    ("strat_heuristic", "_slot_value"): {"2.0 + spare": "spare is clipped to >= 0"},
    ("strat_heuristic", "_fade"): {"hz": "hz = max(horizon, 1e-6)"},
    # inlined into the heuristic's _seat, so compiled with its flags
    ("strat_tools", "clock"): {"2 * np_": "G_NP >= 1", "rooms": "rooms = max(G_OPEN_ROOMS, 1)"},
}

MODULES = {"strat_heuristic": strat_heuristic, "strat_tools": strat_tools}


def _divisions(module_name):
    """(function, divisor source) of every /, //, % in the module's functions."""
    tree = ast.parse(Path(MODULES[module_name].__file__).read_text())
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(
                node.op, (ast.Div, ast.FloorDiv, ast.Mod)
            ):
                right = node.right if isinstance(node, ast.BinOp) else node.value
                out.append((fn.name, right))
    return out


def _constant(node):
    """A literal other than 0, or a module constant in capitals (SCALE, BIG, ...)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and node.value != 0
    return isinstance(node, ast.Name) and node.id.isupper()


@pytest.mark.parametrize("module_name", ["strat_heuristic", "strat_tools"])
def test_every_divisor_without_a_check_is_a_constant_or_guarded(module_name):
    found = _divisions(module_name)
    assert found, "no division found: the audit reads the wrong file"
    unguarded = []
    for fn, right in found:
        if _constant(right):
            continue
        if ast.unparse(right) not in GUARDED.get((module_name, fn), {}):
            unguarded.append(f"{module_name}.{fn}: / {ast.unparse(right)}")
    assert not unguarded, unguarded


def test_the_heuristic_is_compiled_without_division_checks_where_the_audit_says():
    src = inspect.getsource(strat_heuristic)
    njits = src.count("@njit(")
    assert njits > 30 and src.count('@njit(cache=True, error_model="numpy"') == njits
    # clock is inlined into the heuristic (numba's inline="always": the caller's flags)
    assert 'inline="always"' in inspect.getsource(strat_tools).split("def clock")[0].rsplit("@njit", 1)[1]


def test_the_guarded_divisions_stay_finite_at_their_worst_inputs():
    assert math.isfinite(strat_heuristic._fade(5.0, 0.0))
    assert math.isfinite(strat_heuristic._fade(5.0, -3.0))
    assert strat_heuristic._slot_value(2.0, 1.0, -7) == pytest.approx(2.0)
