"""Kernels compiled without numba's division-by-zero checks (``error_model="numpy"``).

A division by zero there gives inf or nan instead of an error, so every divisor must be a
non-zero constant or bounded away from zero.  The audit below lists each division of those
modules (found in the sources of every game's kernels); a new division with a variable divisor
fails it until its guard is added here, and a guard must be code present in its function.
"""

import ast
import importlib
import math
from pathlib import Path

import pytest

from kernels.bloody_inn import strat_heuristic
from sim import api, registry
from sim.errors import ConfigError

KERNELS = Path(__file__).resolve().parent.parent / "kernels"

#: modules whose njit functions are inlined into the audited ones and so compiled with their
#: flags whatever their own decorators say (``kernels/rng.py``'s counter-based RNG)
INLINED = ["rng"]

#: a divisor bounded by the resolved config rather than by code in its function: the
#: lineup and the player count are at least 1 (checked by test_the_config_bounds_these_divisors)
CONFIG = "config: players >= 1 and a lineup has >= 1 seat"

#: (module, function) -> each divisor that is neither a literal nor a non-zero module constant,
#: with the code of that function that keeps it away from zero (checked to be there) or CONFIG
GUARDED = {
    ("bloody_inn/strat_heuristic", "_slot_value"): {"2.0 + spare": "if spare < 0:"},
    ("bloody_inn/strat_heuristic", "_fade"): {"hz": "hz = horizon if horizon > 1e-6 else 1e-6"},
    ("bloody_inn/strat_tools", "clock"): {"rooms": "if st[L.G_OPEN_ROOMS] > 0 else 1"},
    ("bloody_inn/strat_tools", "_turn_of_round"): {"2 * np_": CONFIG},
    ("bloody_inn/setup", "setup_game"): {"st[L.G_NLINEUP]": CONFIG},
    ("bloody_inn/play", "_write_rows"): {"n_win": "if st[nowrap(L.P_WINNER + p)] != 0 else 0.0"},
    ("bloody_inn/play", "_play_block"): {"st[L.G_NLINEUP]": CONFIG},
    ("bloody_inn/loop", "advance"): {"2 * np_": CONFIG},
    ("bloody_inn/deal_features", "entrance_kinds"): {"st[L.G_NLINEUP]": CONFIG},
}


def _squash(lines):
    """Source lines without any whitespace (a guard is found whatever the formatting)."""
    return "".join("".join(line.split()) for line in lines)


def _kernel_modules():
    """Every kernel module of every game, as ``<game>/<module>`` or ``<module>``."""
    return sorted(str(p.relative_to(KERNELS).with_suffix("")) for p in KERNELS.rglob("*.py"))


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


def _numpy_model_modules():
    """Kernel modules (any game) with at least one njit function compiled without the checks."""
    return [m for m in _kernel_modules() if any(_error_model(f) == "numpy" for f in _njit_functions(m))]


NUMPY_MODEL = _numpy_model_modules() + INLINED


@pytest.mark.parametrize("module", NUMPY_MODEL)
def test_every_divisor_without_a_check_is_a_constant_or_guarded(module):
    unguarded = [
        f"{module}.{fn.name}: / {ast.unparse(right)}"
        for fn in _njit_functions(module)
        for right in _divisors(fn)
        if not _constant(right) and ast.unparse(right) not in GUARDED.get((module, fn.name), {})
    ]
    assert not unguarded, unguarded


def test_the_audit_sees_the_divisions_it_lists_and_their_guards():
    for (module, name), guards in GUARDED.items():
        fn = next(f for f in _njit_functions(module) if f.name == name)
        assert set(guards) <= {ast.unparse(r) for r in _divisors(fn)}, (module, name)
        source = _squash((KERNELS / f"{module}.py").read_text().split("\n")[fn.lineno - 1 : fn.end_lineno])
        for divisor, guard in guards.items():
            assert guard == CONFIG or _squash([guard]) in source, (module, name, divisor, guard)


@pytest.mark.parametrize("module", NUMPY_MODEL)
def test_every_capitalised_divisor_is_a_non_zero_module_constant(module):
    """A name in capitals counts as a constant above only if the module really binds it to a
    non-zero number (a layout index or a zero would not guard anything)."""
    mod = importlib.import_module("kernels." + module.replace("/", "."))
    for fn in _njit_functions(module):
        for right in _divisors(fn):
            if isinstance(right, ast.Name) and right.id.isupper():
                value = getattr(mod, right.id, None)
                assert isinstance(value, (int, float)) and value != 0, (module, fn.name, right.id, value)


def test_the_config_bounds_these_divisors():
    """The CONFIG guards: no resolved config has zero players or an empty lineup."""
    for game in registry.game_names():
        adapter = registry.get_adapter(game)
        assert adapter.min_players >= 1, game
        with pytest.raises(ConfigError):
            api.resolve({"game": game, "players": 0})
        with pytest.raises(ConfigError):
            api.resolve({"game": game, "players": adapter.min_players, "seats": []})


@pytest.mark.parametrize("module", [m for m in NUMPY_MODEL if m not in INLINED])
def test_the_audited_modules_are_compiled_without_the_checks(module):
    """A module is all or nothing: every njit function of an audited module (the rules and the
    scripted strategies) is compiled without the checks; rng's helpers, audited above, take the
    flags of the kernels they are inlined into."""
    fns = _njit_functions(module)
    checked = [f.name for f in fns if _error_model(f) != "numpy"]
    assert fns and not checked, checked


def test_the_guarded_divisions_stay_finite_at_their_worst_inputs():
    assert math.isfinite(strat_heuristic._fade(5.0, 0.0))
    assert math.isfinite(strat_heuristic._fade(5.0, -3.0))
    assert strat_heuristic._slot_value(2.0, 1.0, -7) == pytest.approx(2.0)
