"""The docs' generated blocks match the code (``python -m sim.docs --check``), and every rule id
of the rules contract is cited by at least one test.

A changed option, default, strategy parameter or rule constant fails here until
``python -m sim.docs`` has rewritten the blocks (docs/cli.md, docs/strategies.md, docs/rules.md).
"""

from __future__ import annotations

import shutil

import pytest

from sim import docs, registry

ROOT = docs.ROOT


@pytest.fixture(scope="module")
def checked():
    return docs.check_or_write(ROOT, write=False)


def test_every_generated_block_matches_the_code(checked):
    stale, problems = checked
    assert not problems, problems
    assert not stale, f"stale docs blocks {stale}: run `python -m sim.docs` and commit the result"


def test_each_generator_has_a_block_in_the_docs():
    names = {
        n for path in docs.doc_files(ROOT) if path.exists() for n, _ in docs.find_blocks(path.read_text())
    }
    assert names == set(docs.GENERATORS)


def _copy(tmp_path, *files):
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / f, tmp_path / f)


def test_a_changed_default_makes_the_strategies_block_stale_and_check_exits_1(tmp_path, monkeypatch, capsys):
    _copy(tmp_path, "docs/strategies.md")
    adapter = registry.get_adapter("bloody_inn")
    rows = adapter.strategies()
    changed = [dict(r, params=dict(r["params"])) for r in rows]
    greedy = next(r for r in changed if r["name"] == "greedy")
    greedy["params"]["police_risk"] += 1.0
    monkeypatch.setattr(adapter, "strategies", lambda: changed)
    assert docs.main(["--check"], root=tmp_path) == 1
    err = capsys.readouterr().err
    assert "stale: docs/strategies.md: block strategies" in err
    before = (tmp_path / "docs/strategies.md").read_text()
    docs.main([], root=tmp_path)  # regenerates in place
    after = (tmp_path / "docs/strategies.md").read_text()
    assert after != before and "`police_risk` = 2" in after
    stale, _ = docs.check_or_write(tmp_path, write=False)
    assert stale == []


def test_a_block_of_an_unknown_name_is_an_error(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/x.md").write_text("a\n<!-- sim.docs:nosuch -->\nold\n<!-- /sim.docs:nosuch -->\n")
    assert docs.main([], root=tmp_path) == 2
    assert "docs/x.md: block nosuch has no generator" in capsys.readouterr().err
    assert "old" in (tmp_path / "docs/x.md").read_text()  # nothing rewritten


def test_rule_constants_block_names_each_constant_with_its_rule_and_printed_value():
    """Written out from the rules contract: the Bloody Inn's starting cash is 5 (BI-S3), the fine
    per corpse 10 (BI-M1); Cluedo's dice have 6 faces and the clue pile 29 cards (CL-C2)."""
    text = docs.rule_constants_table()
    for row in (
        "| bloody_inn | `start_cash` | BI-S3 | 5 |",
        "| bloody_inn | `fine_per_corpse` | BI-M1 | 10 |",
        "| cluedo | `die_faces` | CL-C2 | 6 |",
        "| cluedo | `clue_pile` | CL-C2 | 29 |",
    ):
        assert row in text


def test_rule_ids_are_found_in_text_names_and_decorators_not_inside_longer_ids(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text(
        "import pytest\n\n"
        "def helper():\n    return 'BI-N2'\n\n"
        "def test_BI_N3_bribes():\n    assert 'BI-N10'\n\n"
        "# BI-G2: scoring\n"
        "@pytest.mark.parametrize('rule', ['CL-2.1'])\n"
        "def test_param(rule):\n    pass\n"
    )
    cites = docs.cited_ids([tmp_path / "tests/test_x.py"], tmp_path, tests_only=True)
    assert cites == {
        "BI-N3": {"tests/test_x.py": ["test_BI_N3_bribes"]},
        "BI-N10": {"tests/test_x.py": ["test_BI_N3_bribes"]},
        "BI-G2": {"tests/test_x.py": ["test_param"]},
        "CL-2.1": {"tests/test_x.py": ["test_param"]},
    }
    anywhere = docs.cited_ids([tmp_path / "tests/test_x.py"], tmp_path)
    assert anywhere["BI-N2"] == {"tests/test_x.py": ["helper"]}


def test_every_rule_id_of_the_contract_is_cited_by_a_test():
    """The ids come from the rules contract when it is beside the project, else from the list
    docs/rules.md keeps (which the block check above keeps equal to the contract's)."""
    ids = docs.contract_ids(ROOT)
    assert len(ids["bloody_inn"]) >= 45 and len(ids["cluedo"]) >= 32  # BI-C1..BI-V12, CL-C1..CL-V7
    _, _, tested = docs.rule_sources(ROOT)
    untested = [i for game in ids for i in ids[game] if i not in tested]
    assert not untested, f"rule ids no test cites: {untested}"


def test_each_documented_error_example_is_a_one_line_error():
    body = dict(docs.find_blocks((ROOT / "docs/cli.md").read_text()))["cli-errors"]
    lines = [ln for ln in body.splitlines() if not ln.startswith("```")]
    assert len(lines) == len(docs.ERROR_EXAMPLES)
    assert all(ln.startswith("error: ") for ln in lines), lines


def test_without_the_contract_beside_the_project_the_ids_come_from_docs_rules(tmp_path):
    """A clone without ../shared/rules still checks every id: docs/rules.md lists the same ids
    in the same order as the contract (when the contract is here, this compares the two)."""
    from_docs = docs.contract_ids(ROOT, contract_dir=tmp_path)
    assert from_docs == docs.contract_ids(ROOT)
    assert all(from_docs[game] for game in docs.contracts())
