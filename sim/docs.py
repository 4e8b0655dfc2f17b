"""The parts of the docs that come from the code, regenerated in place: ``python -m sim.docs``.

A generated block sits between two marker comments in a Markdown file::

    <!-- sim.docs:NAME -->
    ...what the generator NAME writes...
    <!-- /sim.docs:NAME -->

``python -m sim.docs`` rewrites every block of ``docs/*.md`` and ``README.md`` from the current
code; ``python -m sim.docs --check`` rewrites nothing and exits with status 1 naming each stale
block (``tests/test_docs_blocks.py`` runs it, so a changed option, default or rule constant
fails until the docs are regenerated).  Every generator is cheap: it reads the Typer app, the
adapters' ``strategies()`` and resolved defaults, and the source tree; none plays a game.

Generators (``GENERATORS``):

* ``commands``: a table of the commands, each with its usage and what it does (docs/cli.md);
* ``cli``: every command's ``--help`` at a fixed width of 100 columns (docs/cli.md);
* ``cli-errors``: the one-line errors of a few bad configs and options (docs/cli.md);
* ``strategies``: every game's strategies, their parameters and defaults (docs/strategies.md);
* ``rule-constants``: every game's numeric rule constants of ``[rules]`` with their rule ids
  and printed values (docs/rules.md);
* ``rules``: every rule id of the rules contract with the kernel functions that cite it and the
  tests that cite it (docs/rules.md), found by searching the source for the id;
* ``quick-study``: the quick study's verdicts, answer table and causal power (docs/analysis.md),
  rendered from the results recorded under ``docs/results/`` (``sim.docs_results``): numbers
  that need game runs are recorded once with ``python -m sim.docs --record STUDY`` after
  ``sim study STUDY``, never typed;
* ``strategy-tables``: The Bloody Inn's strategy tables (docs/strategies.md), played and
  recorded with ``python -m sim.docs --record strategy-tables``.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: where the rules contract lives beside the project (read when present; see ``contract_ids``)
CONTRACT_DIR = ROOT.parent / "shared" / "rules"
HELP_WIDTH = 100
#: files whose rule ids are examples, not citations: the tests of this module
NOT_CITING = ("tests/test_docs_blocks.py",)
#: at most this many functions (or tests) are named per rule id and file, the rest counted
MAX_NAMES = 4

BLOCK = re.compile(
    r"<!-- sim\.docs:(?P<name>[a-z0-9-]+) -->\n(?P<body>.*?)<!-- /sim\.docs:(?P=name) -->", re.S
)
#: a rule id as code and tests cite it: ``BI-N3`` in text, ``BI_N3`` in a test's name; not the
#: ``BI-N1`` inside ``BI-N10``; Cluedo's two-player rules are numbered ``CL-2.1``
RULE_ID = re.compile(r"(?<![A-Za-z0-9])(BI|CL)[-_](?:([A-Z]{1,2})([0-9]+)|([0-9]+)[._]([0-9]+))(?![0-9])")
#: a rule id defined by the contract: a list item (``- BI-N3 ...``) or a table row (``| BI-V1 |``)
ID_TEXT = r"(?:BI|CL)-(?:[A-Z]{1,2}[0-9]+|[0-9]+\.[0-9]+)(?![0-9])"
DEFINED_ID = re.compile(rf"^(?:- |\| )({ID_TEXT})", re.M)


# --- blocks --------------------------------------------------------------------------------


def doc_files(root=ROOT):
    """The Markdown files that may hold generated blocks."""
    return sorted((root / "docs").glob("*.md")) + [root / "README.md"]


def find_blocks(text):
    """``[(name, body)]`` of the generated blocks of ``text``, in order."""
    return [(m["name"], m["body"]) for m in BLOCK.finditer(text)]


def regenerate(text, render):
    """``text`` with every block's body replaced by ``render(name)``."""
    return BLOCK.sub(
        lambda m: f"<!-- sim.docs:{m['name']} -->\n{render(m['name'])}<!-- /sim.docs:{m['name']} -->", text
    )


def check_or_write(root=ROOT, *, write):
    """Regenerate every block under ``root``; return ``(stale, problems)``.

    ``stale``: ``"path: block NAME"`` for each block whose text differs from what the code
    gives (rewritten when ``write``).  ``problems``: blocks of an unknown name and generators
    that no file has a block for.
    """
    cache = {}

    def render(name):
        if name not in cache:
            cache[name] = _ensure_newline(GENERATORS[name](root))
        return cache[name]

    stale, problems, seen = [], [], set()
    for path in doc_files(root):
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        blocks = find_blocks(text)
        if not blocks:
            continue
        rel = path.relative_to(root)
        unknown = [n for n, _ in blocks if n not in GENERATORS]
        problems += [f"{rel}: block {n} has no generator (known: {', '.join(GENERATORS)})" for n in unknown]
        if unknown:
            continue
        for name, body in blocks:
            seen.add(name)
            if body != render(name):
                stale.append(f"{rel}: block {name}")
        new = regenerate(text, render)
        if write and new != text:
            path.write_text(new, encoding="utf-8")
    problems += [f"no file has a block for generator {n}" for n in GENERATORS if n not in seen]
    return stale, problems


def _ensure_newline(s):
    return s if s.endswith("\n") else s + "\n"


# --- generator: the CLI ---------------------------------------------------------------------


def cli_reference(root=ROOT):
    """Every visible command's ``--help``, at ``HELP_WIDTH`` columns, in registration order."""
    import typer

    from .cli import app

    group = typer.main.get_command(app)
    # the commands' own Context class: Typer may bring its own copy of Click
    top = group.context_class(group, info_name="sim", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
    out = []
    for name, cmd in group.commands.items():
        if cmd.hidden:
            continue
        ctx = cmd.context_class(
            cmd, info_name=name, parent=top, terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH
        )
        text = "\n".join(line.rstrip() for line in cmd.get_help(ctx).splitlines())
        out += [f"### `sim {name}`", "", "```text", text, "```", ""]
    return "\n".join(out)


def cli_commands(root=ROOT):
    """A table of the visible commands: each one's usage and the first paragraph of its help."""
    import typer

    from .cli import app

    group = typer.main.get_command(app)
    top = group.context_class(group, info_name="sim")
    rows = ["| command | does |", "|---|---|"]
    for name, cmd in group.commands.items():
        if cmd.hidden:
            continue
        ctx = cmd.context_class(cmd, info_name=name, parent=top)
        args = " ".join(p.strip("{}") for p in cmd.collect_usage_pieces(ctx) if p != "[OPTIONS]")
        usage = f"sim {name}" + (f" {args}" if args else "")
        first = " ".join((cmd.help or "").split("\n\n")[0].split())
        rows.append(f"| `{_cell(usage)}` | {_cell(first)} |")
    return "\n".join(rows) + "\n"


#: one-line errors the CLI prints for bad input: (command, the config's TOML, more arguments);
#: every config plays 10 games, so an input the code came to accept would cost nothing
ERROR_EXAMPLES = (
    ("validate", 'game = "bloody_inn"\nplayers = 3\ngames = 10\n[rules]\ndeck_size = 90\n', ()),
    (
        "validate",
        'game = "bloody_inn"\nplayers = 3\ngames = 10\n'
        + "".join(f'[[seats]]\nstrategy = "{s}"\n' for s in ("random", "psychic", "random")),
        (),
    ),
    ("validate", 'game = "bloody_inn"\nplayers = 3\ngames 10\n', ()),
    ("run", 'game = "bloody_inn"\nplayers = 3\ngames = 10\n', ("--games", "-5", "--out", "out")),
)


def cli_errors(root=ROOT):
    """The error line of each of ``ERROR_EXAMPLES``, as ``sim`` prints it (run in a temporary
    folder holding ``configs/my.toml``)."""
    from typer.testing import CliRunner

    from .cli import app

    runner = CliRunner()
    lines = ["```"]
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="sim-docs-") as tmp:
        os.chdir(tmp)  # the messages name the config by the path it was given: configs/my.toml
        try:
            Path("configs").mkdir()
            for command, toml, more in ERROR_EXAMPLES:
                Path("configs/my.toml").write_text(toml, encoding="utf-8")
                res = runner.invoke(app, [command, "configs/my.toml", *more])
                err = res.stderr.strip().splitlines()
                ok = res.exit_code == 2 and err
                lines.append(err[-1] if ok else f"(no error line: exit status {res.exit_code})")
        finally:
            os.chdir(here)
    return "\n".join(lines + ["```"]) + "\n"


# --- generator: strategies ------------------------------------------------------------------


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def strategies_table(root=ROOT):
    """Every game's strategies with their parameters, defaults and meanings (as ``sim
    strategies GAME`` lists them)."""
    from . import registry

    out = []
    for game in registry.game_names():
        rows = registry.get_adapter(game).strategies()
        out += [
            f"**{game}** (`sim strategies {game}`)",
            "",
            "| strategy | what it does | parameters = defaults |",
            "|---|---|---|",
        ]
        meanings = {}  # (parameter, meaning) -> strategies, in first-seen order
        for s in rows:
            params = ", ".join(f"`{k}` = {v:g}" for k, v in s["params"].items()) or "(none)"
            out.append(f"| `{s['name']}` | {_cell(s.get('description', ''))} | {params} |")
            for k in s["params"]:
                meanings.setdefault((k, s["param_help"][k]), []).append(s["name"])
        if meanings:
            out += ["", "| parameter | meaning | of |", "|---|---|---|"]
            out += [
                f"| `{k}` | {_cell(m)} | {', '.join(f'`{n}`' for n in names)} |"
                for (k, m), names in meanings.items()
            ]
        out.append("")
    return "\n".join(out)


# --- generator: rule constants --------------------------------------------------------------


def rule_constants_table(root=ROOT):
    """Every game's numeric rule constants (``[rules]`` keys whose default is the printed
    value), read from the facts a dataset records."""
    from . import api, registry

    out = ["| game | `[rules]` key | rule | printed value | meaning |", "|---|---|---|---|---|"]
    for game in registry.game_names():
        resolved = api.resolve({"game": game})
        facts = registry.dataset_facts(resolved)
        for name, c in facts.get("rule_constants", {}).items():
            out.append(
                f"| {game} | `{name}` | {c['rule']} | {resolved['rules'][name]} | {_cell(c['meaning'])} |"
            )
    return "\n".join(out) + "\n"


# --- generator: rule ids, where implemented and tested --------------------------------------


def contracts():
    """``{game: (contract file, rule-id prefix)}`` as each adapter declares it
    (``rules_contract``); a game without a contract is left out."""
    from . import registry

    out = {}
    for game in registry.game_names():
        contract = getattr(registry.get_adapter(game), "rules_contract", None)
        if contract:
            out[game] = tuple(contract)
    return out


def contract_ids(root=ROOT, contract_dir=None):
    """``{game: [rule id, ...]}`` in contract order.

    Read from the rules contract (``CONTRACT_DIR``) when it is present; otherwise (a copy of
    the project without the contract beside it) from the ids docs/rules.md lists, so the rest
    of the block (where each id is implemented and tested) is still checked.
    """
    contract_dir = CONTRACT_DIR if contract_dir is None else Path(contract_dir)
    out = {}
    for game, (file, prefix) in contracts().items():
        path = contract_dir / file
        if path.exists():
            ids = DEFINED_ID.findall(path.read_text(encoding="utf-8"))
        else:
            ids = listed_ids(root).get(game, [])
        out[game] = list(dict.fromkeys(i for i in ids if i.startswith(prefix + "-")))
    return out


def listed_ids(root=ROOT):
    """``{game: [rule id, ...]}`` as docs/rules.md's ``rules`` block lists them."""
    path = root / "docs" / "rules.md"
    if not path.exists():
        return {}
    body = dict(find_blocks(path.read_text(encoding="utf-8"))).get("rules", "")
    out, game = {}, None
    for line in body.splitlines():
        m = re.match(r"^### .*\(`(\w+)`\)", line)
        if m:
            game = m[1]
        m = re.match(rf"^\| ({ID_TEXT}) \|", line)
        if m and game:
            out.setdefault(game, []).append(m[1])
    return out


def _spans(tree):
    """``[(first line, last line, name, node)]`` of every function and class (decorators
    included in the span)."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append((first, node.end_lineno, node.name, node))
    return spans


def _owner(spans, lines, lineno):
    """The innermost function (or class) holding line ``lineno``; a comment or decorator
    just above a definition belongs to it; ``None`` at module level."""
    inside = [s for s in spans if s[0] <= lineno <= s[1]]
    if inside:
        return max(inside, key=lambda s: s[0])
    later = [s for s in spans if s[0] > lineno]
    if later:
        nxt = min(later, key=lambda s: s[0])
        between = lines[lineno : nxt[0] - 1]
        if all(not ln.strip() or ln.lstrip().startswith("#") for ln in between):
            return nxt
    return None


def cited_ids(paths, root=ROOT, *, tests_only=False):
    """``{rule id: {file: [name, ...]}}``: where each rule id is cited in ``paths``.

    A citation belongs to the function (or class) it is in, or just above; ``tests_only``
    keeps only citations in test functions (``test_*``: their name, docstring, body or
    decorators), else a module-level citation is recorded under the name ``(module)``.
    """
    out = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        spans, lines = _spans(tree), text.splitlines()
        rel = path.relative_to(root).as_posix()
        for i, line in enumerate(lines, start=1):
            for m in RULE_ID.finditer(line):
                rid = f"{m[1]}-{m[2]}{m[3]}" if m[2] else f"{m[1]}-{m[4]}.{m[5]}"
                owner = _owner(spans, lines, i)
                if tests_only:
                    if owner is None or not owner[2].startswith("test"):
                        continue
                    name = owner[2]
                else:
                    name = owner[2] if owner else "(module)"
                names = out.setdefault(rid, {}).setdefault(rel, [])
                if name not in names:
                    names.append(name)
    return out


def _py_files(root, *dirs):
    return sorted(
        p
        for d in dirs
        if d.exists()
        for p in d.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(root).as_posix() not in NOT_CITING
    )


def _where(cites):
    """``kernels/x.py: `f`, `g`; kernels/y.py: `h` (+2)``, files in path order."""
    parts = []
    for file in sorted(cites):
        names = cites[file]
        shown = ", ".join(f"`{n}`" for n in names[:MAX_NAMES])
        more = f" (+{len(names) - MAX_NAMES})" if len(names) > MAX_NAMES else ""
        parts.append(f"{file}: {shown}{more}")
    return "; ".join(parts) if parts else "—"


@functools.lru_cache(maxsize=4)
def rule_sources(root=ROOT):
    """``(implemented, refereed, tested)``: citations of rule ids in the kernels and the game
    adapters, in the independent referees, and in test functions."""
    referees = sorted((root / "sim" / "games").glob("*/referee"))
    code = [
        p
        for p in _py_files(root, root / "kernels", root / "sim" / "games")
        if not set(referees) & set(p.parents)
    ]
    implemented = cited_ids(code, root)
    refereed = cited_ids(_py_files(root, *referees), root)
    tested = cited_ids(_py_files(root, root / "tests"), root, tests_only=True)
    return implemented, refereed, tested


def rules_index(root=ROOT):
    """Per game, every rule id of the contract: the kernel (and adapter) functions that cite
    it, the referee functions that check it, and the tests that cite it."""
    from . import registry

    implemented, refereed, tested = rule_sources(root)
    out = []
    for game, ids in contract_ids(root).items():
        title = registry.get_adapter(game).title if game in registry.game_names() else game
        untested = [i for i in ids if i not in tested]
        out += [
            f"### {title} (`{game}`)",
            "",
            f"{len(ids)} rule ids; {len(ids) - len(untested)} cited by at least one test"
            + (f"; not cited by a test: {', '.join(untested)}" if untested else "")
            + ".",
            "",
            "| rule | implemented in (kernels/, sim/games/) | checked by the referee (sim/games/*/referee/) | tests |",
            "|---|---|---|---|",
        ]
        for rid in ids:
            out.append(
                f"| {rid} | {_where(implemented.get(rid, {}))} | {_where(refereed.get(rid, {}))} "
                f"| {_where(tested.get(rid, {}))} |"
            )
        out.append("")
    return "\n".join(out)


def _recorded(name):
    from . import docs_results

    return lambda root=ROOT: docs_results.block(name, root)


GENERATORS = {
    "commands": cli_commands,
    "cli": cli_reference,
    "cli-errors": cli_errors,
    "strategies": strategies_table,
    "rule-constants": rule_constants_table,
    "rules": rules_index,
    "quick-study": _recorded("quick-study"),
    "strategy-tables": _recorded("strategy-tables"),
}


# --- the command ----------------------------------------------------------------------------


def main(argv=None, root=ROOT):
    """``python -m sim.docs [--check]``: the exit status (0, 1 with ``--check`` when a block is
    stale, 2 for a block without a generator or a tree without ``docs/``)."""
    parser = argparse.ArgumentParser(
        prog="python -m sim.docs",
        description="Regenerate the docs' generated blocks (<!-- sim.docs:NAME --> ... "
        "<!-- /sim.docs:NAME -->) from the code.",
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each stale block")
    parser.add_argument(
        "--record",
        metavar="STUDY",
        help="record a finished study's answers under docs/results/ (then regenerate the blocks); "
        "strategy-tables: play and record the strategy tables",
    )
    parser.add_argument("--out", metavar="DIR", help="with --record: the study's datasets (default: its out)")
    args = parser.parse_args(argv)
    if not (root / "docs").is_dir():
        print(f"error: {root / 'docs'} is not a folder; run sim.docs from a source checkout", file=sys.stderr)
        return 2
    if args.record:
        from . import docs_results
        from .errors import SimError

        try:
            print(f"recorded: {docs_results.record(args.record, root, args.out)}")
        except (SimError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    stale, problems = check_or_write(root, write=not args.check)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if args.check:
        for s in stale:
            print(f"stale: {s}; run `python -m sim.docs` to regenerate it", file=sys.stderr)
        return 1 if stale or problems else 0
    for s in stale:
        print(f"regenerated: {s}")
    return 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
