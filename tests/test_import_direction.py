"""The import arrows run one way: kernels <- sim's core <- analysis <- the CLI.  Kernels import
nothing of sim or analysis; sim's core (everything but the top layer, :data:`CLI`)
never imports analysis; analysis never imports sim's runner or CLI; backends never import the
runner or sweeps.

Every module's imports are read from its source with ``ast`` (function-level and relative
imports included), so a lazy import inside a function counts as an arrow too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (importing package, forbidden module prefixes)
RULES = [
    ("kernels", ("sim", "analysis")),
    ("sim", ("analysis",)),
    ("analysis", ("sim.runner", "sim.cli", "sim.commands")),
    # backends play chunks (sim.chunks); the runner and sweeps choose a backend, never the reverse
    ("sim/backends", ("sim.runner", "sim.sweep", "sim.cli", "sim.commands")),
]


#: back-arrows still in the tree, each to be removed (the test fails when one goes, so the list
#: shrinks with the code)
KNOWN = set()


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path):
    """Absolute names of every module ``path`` imports (``from a import b`` gives ``a`` and
    ``a.b``, since ``b`` may be a submodule)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


#: the top layer: the CLI drives runs and analyses alike, and the docs generator
#: (``python -m sim.docs``) renders the CLI's help and the reports' recorded answers
CLI = ("sim/cli.py", "sim/commands/", "sim/docs.py", "sim/docs_results.py")


def back_arrows(package, forbidden):
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.relative_to(ROOT).as_posix().startswith(CLI):
            continue
        for mod in sorted(imports(path)):
            if any(mod == f or mod.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    return bad


@pytest.mark.parametrize("package,forbidden", RULES, ids=[r[0].replace("/", ".") for r in RULES])
def test_no_back_arrow(package, forbidden):
    assert (ROOT / package).is_dir()
    found = back_arrows(package, forbidden)
    bad = [a for a in found if a not in KNOWN]
    assert not bad, "\n".join(bad)
    gone = {a for a in KNOWN if a.startswith(package + "/")} - set(found)
    assert not gone, f"fixed back-arrows still listed in KNOWN: {sorted(gone)}"


def test_the_reader_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    """The check can fail: a lazy import in a function and a relative import are both read."""
    pkg = tmp_path / "kernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "x.py").write_text("def f():\n    import sim.runner\n    from . import y\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert imports(pkg / "x.py") == {"sim.runner", "kernels", "kernels.y"}
    assert back_arrows("kernels", ("sim",)) == ["kernels/x.py imports sim.runner"]
