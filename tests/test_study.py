"""`sim study`: study files are validated, datasets produced through the real runner (on the
test-only fake game), finished ones skipped, and the report written."""

import json
from pathlib import Path

import fake_adapter
import pytest
from typer.testing import CliRunner

from analysis.errors import AnalysisError
from analysis.study import load_study, run_study
from sim import registry, runner, sweep
from sim.cli import app
from sim.errors import SimError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


RUN = """game = "fakegame"
players = 3
games = 600
seed = 3
rotate = true
[[seats]]
strategy = "random"
[[seats]]
strategy = "greedy"
[[seats]]
strategy = "random"
"""

BASE = """game = "fakegame"
players = 2
games = 300
seed = 5
[[seats]]
strategy = "greedy"
"""

SWEEP = """base = "base.toml"
games = 300
[grid]
players = [2, 3]
"rules.deck_size" = [20, 40]
"""

STUDY = """title = "Fake study"
description = "A study on the fake game."
[[data]]
name = "mixed"
run = "run.toml"
questions = ["seats", "strategies", "duration"]
label = "Mixed lineup"
[[data]]
name = "decks"
sweep = "sweep.toml"
questions = ["seats", "deck"]
[report]
file = "study.html"
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "run.toml").write_text(RUN)
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "sweep.toml").write_text(SWEEP)
    (tmp_path / "study.toml").write_text(STUDY)
    return tmp_path


def test_study_from_nothing_to_a_report_then_skips(files, tmp_path):
    st = load_study(files / "study.toml", out=tmp_path / "out")
    assert [d.name for d in st.data] == ["mixed", "decks"]
    log = []
    html_path, md_path = run_study(
        st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=log.append
    )
    assert html_path == tmp_path / "out" / "study.html" and md_path.is_file()
    text = html_path.read_text()
    for s in (
        "Fake study",
        "Mixed lineup",
        "First-player advantage",
        "Strategy strength",
        "Deck size by player count",
        "Provenance",
    ):
        assert s in text
    assert (tmp_path / "out" / "decks" / "points.parquet").is_file()
    stamp = {p: p.stat().st_mtime_ns for p in (tmp_path / "out").rglob("part-*.parquet")}
    assert len(stamp) == 2 + 2 * 4  # games+seats of the run and of 4 sweep points
    log.clear()
    run_study(st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=log.append)
    assert any("mixed: already complete, skipped" in m for m in log)
    assert stamp == {p: p.stat().st_mtime_ns for p in (tmp_path / "out").rglob("part-*.parquet")}


def test_study_refuses_stale_data(files, tmp_path):
    st = load_study(files / "study.toml", out=tmp_path / "out")
    run_study(st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=lambda m: None)
    (files / "run.toml").write_text(RUN.replace("seed = 3", "seed = 4"))
    with pytest.raises(SimError, match="different config"):
        run_study(
            load_study(files / "study.toml", out=tmp_path / "out"),
            run_dataset=runner.run_dataset,
            run_sweep=sweep.run_sweep,
            echo=lambda m: None,
        )


def test_cli_study_and_report_only(files, tmp_path):
    out = tmp_path / "cli"
    res = CliRunner().invoke(app, ["study", str(files / "study.toml"), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert (out / "study.html").is_file() and "report:" in res.stdout
    (out / "study.html").unlink()
    res = CliRunner().invoke(app, ["study", str(files / "study.toml"), "--out", str(out), "--report-only"])
    assert res.exit_code == 0 and (out / "study.html").is_file()


@pytest.mark.parametrize(
    "text,match",
    [
        ('title = "x"\ncolour = 1\n[[data]]\nname="a"\nrun="run.toml"\n', "colour = 1 is invalid"),
        ('title = "x"\n', "data = None is invalid"),
        ('[[data]]\nname="a"\n', "data\\[0\\].run/sweep = None is invalid"),
        ('[[data]]\nname="a"\nrun="missing.toml"\n', "data\\[0\\].run = 'missing.toml' is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\nquestions=["luck"]\n', "questions = \\['luck'\\]"),
        (
            '[[data]]\nname="a"\nrun="run.toml"\n[[data]]\nname="a"\nrun="run.toml"\n',
            "data\\[1\\].name = 'a' is invalid",
        ),
        ('[[data]]\nname="a"\nsweep="sweep.toml"\ngames=5\n', "data\\[0\\].games = 5 is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\n[report]\npage=1\n', "report.page = 1 is invalid"),
        ("title = \n", "not valid TOML"),
    ],
)
def test_bad_study_files(files, text, match):
    (files / "bad.toml").write_text(text)
    with pytest.raises(AnalysisError, match=match):
        load_study(files / "bad.toml")


def test_shipped_studies_are_valid():
    studies = sorted((REPO / "configs" / "studies").glob("*.toml"))
    assert studies, "configs/studies/ ships at least one study"
    for path in studies:
        st = load_study(path)
        assert st.data
        for d in st.data:
            if d.kind == "run":
                runner.api.resolve(d.config)
            else:
                assert sweep.load(d.config).points


STUDIES = sorted((REPO / "configs" / "studies").glob("*.toml")) + [REPO / "configs" / "cluedo" / "study.toml"]


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.name)
def test_sim_validate_checks_a_study_and_what_it_names(path):
    res = CliRunner().invoke(app, ["validate", str(path), "--json"])
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    st = load_study(path)
    assert out["kind"] == "study" and [d["name"] for d in out["data"]] == [d.name for d in st.data]
    for row, spec in zip(out["data"], st.data):
        if spec.kind == "sweep":
            assert row["games"] == sum(p.resolved["games"] for p in sweep.load(spec.config).points)
        elif spec.games is not None:
            assert row["games"] == spec.games


def test_sim_validate_names_the_bad_key_of_a_study(tmp_path):
    (tmp_path / "s.toml").write_text('title = "x"\n[[data]]\nname = "a"\nrun = "nope.toml"\n')
    res = CliRunner().invoke(app, ["validate", str(tmp_path / "s.toml")])
    assert res.exit_code == 2
    assert "data[0].run = 'nope.toml'" in res.stderr and "an existing file" in res.stderr
