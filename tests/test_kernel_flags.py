"""Kernels compiled without numba's division-by-zero checks (``error_model="numpy"``).

A division by zero there gives inf or nan instead of an error, so every divisor must be a
non-zero constant or bounded away from zero.  The audit below lists each division of those
modules; a new division with a variable divisor fails it until its guard is added here.
"""

import ast
import math
from pathlib import Path

import pytest

from kernels.bloody_inn import strat_heuristic

KERNELS = Path(__file__).resolve().parent.parent / "kernels"

#: the modules whose every njit function is compiled without the checks: the rules and the
#: scripted strategies (the search, its rollouts and the invariant checks keep numba's
#: checks); ``kernels/rng.py``'s helpers are inlined into them, so compiled with their flags
NUMPY_MODEL = [
    "bloody_inn/" + m
    for m in (
        "evening night morning scoring setup state legal play policy_tools strategies strat_tools "
        "strat_random strat_greedy strat_fines strat_heuristic"
    ).split()
] + ["rng"]

#: (module, function) -> its divisors that are neither literals nor module constants, each
#: with why it cannot be zero
GUARDED = {
    ("bloody_inn/strat_heuristic", "_slot_value"): {"2.0 + spare": "spare is clipped to >= 0"},
    ("bloody_inn/strat_heuristic", "_fade"): {"hz": "hz = max(horizon, 1e-6)"},
    ("bloody_inn/strat_tools", "clock"): {"rooms": "rooms = max(G_OPEN_ROOMS, 1)"},
    ("bloody_inn/strat_tools", "_turn_of_round"): {"2 * np_": "G_NP >= 1"},
    ("bloody_inn/setup", "setup_game"): {"st[G_NLINEUP]": "a lineup has >= 1 seat"},
    ("bloody_inn/play", "_write_rows"): {"n_win": "only for a winner, so n_win >= 1"},
    ("bloody_inn/play", "_play_block"): {"st[G_NLINEUP]": "a lineup has >= 1 seat"},
}


def _tree(module):
    return ast.parse((KERNELS / f"{module}.py").read_text())


def _njit_call(fn):
    """The ``@njit(...)`` decorator call of ``fn``, or None."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "njit":
            return d
    return None


def _njit_functions(module):
    return [n for n in ast.walk(_tree(module)) if isinstance(n, ast.FunctionDef) and _njit_call(n)]


def _divisors(fn):
    for node in ast.walk(fn):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(
            node.op, (ast.Div, ast.FloorDiv, ast.Mod)
        ):
            yield node.right if isinstance(node, ast.BinOp) else node.value


def _constant(node):
    """A literal other than 0, or a module constant in capitals (SCALE, BIG, ...)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and node.value != 0
    return isinstance(node, ast.Name) and node.id.isupper()


def _error_model(fn):
    for kw in _njit_call(fn).keywords:
        if kw.arg == "error_model":
            return kw.value.value
    return "python"


@pytest.mark.parametrize("module", NUMPY_MODEL)
def test_every_divisor_without_a_check_is_a_constant_or_guarded(module):
    unguarded = [
        f"{module}.{fn.name}: / {ast.unparse(right)}"
        for fn in _njit_functions(module)
        for right in _divisors(fn)
        if not _constant(right) and ast.unparse(right) not in GUARDED.get((module, fn.name), {})
    ]
    assert not unguarded, unguarded


def test_the_audit_sees_the_divisions_it_lists():
    for (module, name), guards in GUARDED.items():
        fn = next(f for f in _njit_functions(module) if f.name == name)
        assert set(guards) <= {ast.unparse(r) for r in _divisors(fn)}, (module, name)


@pytest.mark.parametrize("module", [m for m in NUMPY_MODEL if m.startswith("bloody_inn/")])
def test_the_audited_modules_are_compiled_without_the_checks(module):
    """Every njit function of the rules and scripted strategies, inlined ones too (rng's
    helpers, audited above, take the flags of the kernels they are inlined into)."""
    fns = _njit_functions(module)
    checked = [f.name for f in fns if _error_model(f) != "numpy"]
    assert fns and not checked, checked


def test_the_other_bloody_inn_modules_keep_the_checks():
    audited = {m.split("/")[1] for m in NUMPY_MODEL if "/" in m}
    for path in sorted((KERNELS / "bloody_inn").glob("*.py")):
        if path.stem in audited:
            continue
        module = f"bloody_inn/{path.stem}"
        assert all(_error_model(f) == "python" for f in _njit_functions(module)), module


def test_the_guarded_divisions_stay_finite_at_their_worst_inputs():
    assert math.isfinite(strat_heuristic._fade(5.0, 0.0))
    assert math.isfinite(strat_heuristic._fade(5.0, -3.0))
    assert strat_heuristic._slot_value(2.0, 1.0, -7) == pytest.approx(2.0)
