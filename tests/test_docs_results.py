"""Documented numbers that need game runs come from recorded results, not typing: a finished
study (the fake game's, a two-rung ladder) is recorded with ``python -m sim.docs --record``,
the docs block says what the study's report says, and a recorded number that changes makes
``python -m sim.docs --check`` name the block."""

import json
import re

import fake_adapter
import pytest

from analysis.study import load_study, run_study
from sim import docs, docs_results, registry, runner, sweep

RUN = """game = "fakegame"
players = 3
games = 300
seed = 3
rotate = true
[[seats]]
strategy = "random"
"""

STUDY = """title = "Ladder study"
[[data]]
name = "mixed"
run = "run.toml"
questions = ["seats"]
ladder = ["random", "greedy"]
"""

DOC = "# Results\n\n<!-- sim.docs:quick-study -->\n<!-- /sim.docs:quick-study -->\n\nAfter.\n"


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished two-rung study, its report and its results recorded into a docs tree."""
    tmp = tmp_path_factory.mktemp("study")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
        (tmp / "run.toml").write_text(RUN)
        (tmp / "study.toml").write_text(STUDY)
        st = load_study(tmp / "study.toml", out=tmp / "out")
        _, md = run_study(st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=lambda m: None)
        root = tmp / "tree"
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "analysis.md").write_text(DOC)
        path = docs_results.record(tmp / "study.toml", root, out=tmp / "out")
    return root, path, md.read_text()


def _words(text):
    return re.sub(r"\s+", " ", text).strip()


def test_the_block_says_what_the_studys_report_says(recorded):
    _, path, md = recorded
    block = docs_results.render(json.loads(path.read_text()))
    verdicts = md[md.index("## Verdicts") : md.index("## Answers")]
    # every verdict of the report, word for word (the report wraps its lines, the block does not)
    report_items = [_words(x) for x in re.split(r"\n- ", verdicts.split("\n", 2)[2]) if x.strip()]
    block_items = [_words(x[2:]) for x in block.splitlines() if x.startswith("- **")]
    assert block_items and [x.lstrip("- ") for x in report_items] == block_items
    # the ladder's table: a row per headline number, its cells the report's
    rows = [r for r in block.splitlines() if r.startswith("| first-player gap, 3 players |")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    answers = _words(md[md.index("## Answers") :])
    for c in cells[1:3]:  # greedy, random (strongest first)
        assert c in answers, c
    assert "headline numbers hold at every strength from random to greedy" in block
    assert "-----" not in block  # the table once, as Markdown (not its terminal text as well)


def test_a_changed_recorded_number_makes_the_block_stale(recorded, capsys):
    root, path, _ = recorded
    assert path.parent == root / "docs" / "results"
    f = root / "docs" / "results" / docs_results.RECORDED["quick-study"][1]
    data = json.loads(path.read_text())
    f.write_text(json.dumps(data))
    stale, _ = docs.check_or_write(root, write=True)
    assert "docs/analysis.md: block quick-study" in stale
    text = (root / "docs" / "analysis.md").read_text()
    assert "first-player gap, 3 players" in text and text.endswith("After.\n")
    assert not docs.check_or_write(root, write=False)[0]  # written: current
    # one recorded number changes (a new run): --check names the block and exits 1
    data["ladders"][0]["rows"][0][1] += " (changed)"
    f.write_text(json.dumps(data))
    assert docs.main(["--check"], root=root) == 1
    assert "stale: docs/analysis.md: block quick-study" in capsys.readouterr().err


def test_record_from_the_command_line_names_a_missing_dataset_in_one_line(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "run.toml").write_text(RUN)
    (tmp_path / "study.toml").write_text(STUDY)
    code = docs.main(
        ["--record", str(tmp_path / "study.toml"), "--out", str(tmp_path / "none")], root=tmp_path
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "none" in err[0]
    assert not (tmp_path / "docs" / "results").exists()
