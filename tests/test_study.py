"""`sim study`: study files are validated, datasets produced through the real runner (on the
test-only fake game), finished ones skipped, and the report written."""

import json
import re
from pathlib import Path

import fake_adapter
import pytest
from typer.testing import CliRunner

from analysis.errors import AnalysisError
from analysis.study import load_study, meta_plan, power_plan, run_study
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


def test_cli_study_max_games_caps_every_dataset(files, tmp_path):
    out = tmp_path / "quick"
    args = ["study", str(files / "study.toml"), "--out", str(out), "--no-progress", "--max-games", "40"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    manifests = sorted(out.rglob("manifest.json"))
    assert len(manifests) == 1 + 4 and {json.loads(m.read_text())["games"] for m in manifests} == {40}
    res = CliRunner().invoke(app, [*args[:-1], "0"])
    assert res.exit_code == 2 and "--max-games = 0 is invalid" in res.output


@pytest.mark.parametrize(
    "text,match",
    [
        ('title = "x"\ncolour = 1\n[[data]]\nname="a"\nrun="run.toml"\n', "colour = 1 is invalid"),
        ('title = "x"\n', "data = None is invalid"),
        ('[[data]]\nname="a"\n', "data\\[0\\].run/sweep/power/meta = None is invalid"),
        ('[[data]]\nname="a"\nrun="missing.toml"\n', "data\\[0\\].run = 'missing.toml' is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\nquestions=["luck"]\n', "questions = \\['luck'\\]"),
        (
            '[[data]]\nname="a"\nrun="run.toml"\n[[data]]\nname="a"\nrun="run.toml"\n',
            "data\\[1\\].name = 'a' is invalid",
        ),
        ('[[data]]\nname="a"\nsweep="sweep.toml"\ngames=5\n', "data\\[0\\].games = 5 is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\n[report]\npage=1\n', "report.page = 1 is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\nladder="greedy"\n', "data\\[0\\].ladder = 'greedy' is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\nladder=["a", "a"]\n', "ladder\\[1\\].name = 'a' is invalid"),
        ('[[data]]\nname="a"\nrun="run.toml"\n[analysis]\nequivalence_margin=2\n', "equivalence_margin = 2"),
        (
            '[[data]]\nname="a"\nrun="run.toml"\nladder=[{strategy="greedy", depth=2}]\n',
            "ladder\\[0\\].depth = 2",
        ),
        (
            '[[data]]\nname="a"\nrun="run.toml"\nladder=[{strategy="greedy", games=0}]\n',
            "ladder\\[0\\].games = 0",
        ),
        (
            '[[data]]\nname="a"\nrun="run.toml"\nladder=[{strategy="greedy", params=3}]\n',
            "ladder\\[0\\].params = 3",
        ),
        ('[[data]]\nname="a"\nrun="run.toml"\nladder=[{games=5}]\n', "ladder\\[0\\].strategy = None"),
        (
            '[[data]]\nname="a"\nrun="run.toml"\nladder=["greedy", {strategy="greedy"}]\n',
            "ladder\\[1\\].name = 'greedy'",
        ),
        (
            '[[data]]\nname="a"\nsweep="sweep.toml"\nladder=[{strategy="greedy", games=9}]\n',
            "ladder\\[0\\].games = 9 is invalid; allowed: no rung games while the sweep sweep.toml sets games",
        ),
        ('[[data]]\nname="a"\npower="run.toml"\ncards=5\n', "data\\[0\\].cards = 5 is invalid"),
        ('[[data]]\nname="a"\npower="run.toml"\nactions="yes"\n', "data\\[0\\].actions = 'yes' is invalid"),
        ('[[data]]\nname="a"\npower="run.toml"\n', "data\\[0\\].cards/actions = None is invalid"),
        (
            '[[data]]\nname="a"\nrun="run.toml"\ncards="ALL"\n',
            "data\\[0\\].cards = 'ALL' is invalid; allowed: no cards",
        ),
        (
            '[[data]]\nname="a"\npower="run.toml"\nactions=true\nladder=["greedy"]\n',
            "data\\[0\\].ladder = \\['greedy'\\] is invalid; allowed: no ladder on a power entry",
        ),
        ('[[data]]\nname="a"\npower="run.toml"\nrun="run.toml"\n', "data\\[0\\].run/sweep/power"),
        ('[[data]]\nname="a"\nmeta="run.toml"\nrun="run.toml"\n', "data\\[0\\].run/sweep/power/meta"),
        (
            '[[data]]\nname="a"\nmeta="run.toml"\nladder=["greedy"]\n',
            "data\\[0\\].ladder = \\['greedy'\\] is invalid; allowed: no ladder on a meta entry",
        ),
        ('[[data]]\nname="a"\nmeta="run.toml"\ncards="ALL"\n', "data\\[0\\].cards = 'ALL' is invalid"),
        ('[[data]]\nname="a"\nmeta="run.toml"\ngames=0\n', "data\\[0\\].games = 0 is invalid"),
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
            elif d.kind == "power":
                assert len(power_plan(d)) > 1
            elif d.kind == "meta":
                assert len(meta_plan(d).pairings) > 1
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
        if spec.kind == "sweep" and not spec.ladder:
            assert row["games"] == sum(p.resolved["games"] for p in sweep.load(spec.config).points)
        elif spec.kind == "power":
            assert row["games"] == row["points"] * spec.games and row["points"] == len(power_plan(spec))
        elif spec.kind == "meta":
            # every pairing of the round-robin: n(n-1)/2 heads-up, n(n-1) with a deviator
            n, players = len(meta_plan(spec).names), meta_plan(spec).players
            assert row["points"] == (n * (n - 1) // 2 if players == 2 else n * (n - 1))
        elif spec.games is not None:
            assert row["games"] == spec.games


def test_sim_validate_counts_every_rung_and_arm_of_the_quick_study():
    res = CliRunner().invoke(app, ["validate", str(REPO / "configs/studies/bloody_inn-quick.toml"), "--json"])
    assert res.exit_code == 0, res.stderr
    rows = {d["name"]: d for d in json.loads(res.stdout)["data"]}
    # 2-4 players: heuristic and expert 20,000 games each, search8 276; 30 power arms x 10,000
    assert rows["first_player"]["rungs"] == 3 and rows["first_player"]["games"] == 3 * (20_000 + 20_000 + 276)
    assert rows["power"]["points"] == 1 + 24 + 5 and rows["power"]["games"] == 30 * 10_000


def test_sim_validate_names_the_bad_key_of_a_study(tmp_path):
    (tmp_path / "s.toml").write_text('title = "x"\n[[data]]\nname = "a"\nrun = "nope.toml"\n')
    res = CliRunner().invoke(app, ["validate", str(tmp_path / "s.toml")])
    assert res.exit_code == 2
    assert "data[0].run = 'nope.toml'" in res.stderr and "an existing file" in res.stderr


LADDER = """title = "Ladder study"
[[data]]
name = "mixed"
run = "run.toml"
questions = ["seats", "duration"]
ladder = ["random", "greedy"]
[[data]]
name = "decks"
sweep = "sweep.toml"
questions = ["seats"]
ladder = ["random", "greedy"]
[analysis]
equivalence_margin = 0.02
"""


def test_a_ladder_plays_every_rung_and_compares_them(files, tmp_path):
    import polars as pl

    (files / "ladder.toml").write_text(LADDER)
    st = load_study(files / "ladder.toml", out=tmp_path / "out")
    assert [r.name for r in st.data[0].ladder] == ["random", "greedy"] and st.options == {
        "equivalence_margin": 0.02
    }
    html_path, md_path = run_study(
        st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=lambda m: None
    )
    for name in ("mixed", "decks"):
        for rung in ("random", "greedy"):
            seats = pl.read_parquet(tmp_path / "out" / name / rung / "**" / "seats" / "*.parquet")
            manifests = list((tmp_path / "out" / name / rung).rglob("manifest.json"))
            assert manifests and seats.height > 0
            for m in manifests:  # every seat of every game plays the rung's strategy
                cfg = json.loads(m.read_text())["resolved"]
                assert {s["strategy"] for s in cfg["seats"]} == {rung}
    md = md_path.read_text()
    answers = md[md.index("## Answers") : md.index("## Provenance")]
    # the ladder comes first, strongest rung first, one row per headline number
    assert answers.index("Strength ladder") < answers.index("First-player advantage")
    # padded Markdown columns: a cell is its text and spaces up to the column's width
    # (a table wider than 100 characters continues below, the answer column repeated)
    assert re.search(r"^\| answer +\| greedy +\| random +\|", answers, re.M)
    assert re.search(r"^\| answer +(\|[^|]+)*\| verdict +\|$", answers, re.M)
    assert re.search(r"^\| first-player gap, 3 players +\|", answers, re.M)
    assert "rounds per game, 3 players" in answers
    assert "headline numbers hold at every strength from random to greedy" in answers


POWER_STUDY = """title = "Power study"
[[data]]
name = "pw"
power = "power.toml"
cards = ["grocer"]
actions = false
games = 41
label = "Grocery, random players"
[[data]]
name = "rungs"
run = "run.toml"
questions = ["seats"]
ladder = ["random", {name = "g2", strategy = "greedy", games = 30}]
"""


def test_a_power_entry_runs_restricted_play_and_reports_power(files, tmp_path):
    # a tiny Bloody Inn experiment: baseline and one arm where entry 0 never builds Grocery
    (files / "power.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 600\nseed = 4\n[[seats]]\nstrategy = "random"\n'
    )
    (files / "ps.toml").write_text(POWER_STUDY)
    st = load_study(files / "ps.toml", out=tmp_path / "out")
    assert st.data[0].kind == "power" and st.data[0].questions == ("power",)
    assert [(r.name, r.strategy, r.games) for r in st.data[1].ladder] == [
        ("random", "random", None),
        ("g2", "greedy", 30),
    ]
    html_path, md_path = run_study(
        st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=lambda m: None
    )
    arms = json.loads((tmp_path / "out" / "pw" / "sweep.json").read_text())
    man = json.loads(next((tmp_path / "out" / "pw").glob("*grocer*/manifest.json")).read_text())
    assert man["resolved"]["seats"][0]["restrict"] == {"build": ["grocer"]}
    assert man["resolved"]["games"] == 42 and man["resolved"]["rotate"] == "duplicate"  # whole deals
    assert arms.get("status") == "complete"
    # a rung's games override the run's; the other rung keeps the config's
    g2 = json.loads((tmp_path / "out" / "rungs" / "g2" / "manifest.json").read_text())["resolved"]
    r = json.loads((tmp_path / "out" / "rungs" / "random" / "manifest.json").read_text())["resolved"]
    assert g2["games"] == 30 and {s["strategy"] for s in g2["seats"]} == {"greedy"} and r["games"] == 600
    md = md_path.read_text()
    answers = md[md.index("## Answers") : md.index("## Provenance")]
    assert "causal" in answers.lower() and "Grocery" in answers
    # the study is skipped when complete: a second run plays nothing
    seen = []
    run_study(st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=seen.append)
    assert any("pw: complete" in m for m in seen)


def test_sim_validate_names_a_bad_card_of_a_power_entry(tmp_path):
    (tmp_path / "power.toml").write_text('game = "bloody_inn"\nplayers = 2\n')
    (tmp_path / "s.toml").write_text('[[data]]\nname = "a"\npower = "power.toml"\ncards = "peacekeeper"\n')
    res = CliRunner().invoke(app, ["validate", str(tmp_path / "s.toml")])
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "peacekeeper" in lines[0] and "--cards" in lines[0], res.output


def test_sim_study_refuses_a_bad_card_before_anything_runs(files, tmp_path):
    (files / "power.toml").write_text('game = "bloody_inn"\nplayers = 2\n')
    (files / "s.toml").write_text(
        '[[data]]\nname = "r"\nrun = "run.toml"\n[[data]]\nname = "a"\npower = "power.toml"\ncards = "peacekeeper"\n'
    )
    res = CliRunner().invoke(
        app, ["study", str(files / "s.toml"), "--out", str(tmp_path / "o"), "--no-progress"]
    )
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "peacekeeper" in lines[0], res.output
    assert not (tmp_path / "o" / "r").exists()  # the run entry before it was not played


META_STUDY = """title = "Meta study"
[[data]]
name = "rr"
meta = "meta.toml"
games = 40
label = "Round-robin"
"""


def test_a_meta_entry_plays_a_round_robin_and_reports_meta_and_skill(files, tmp_path):
    # three Bloody Inn strategies heads-up on duplicate deals: three pairings of 40 games
    (files / "meta.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 1000\nseed = 8\n'
        '[[strategies]]\nstrategy = "random"\n[[strategies]]\nstrategy = "greedy"\n'
        '[[strategies]]\nstrategy = "heuristic"\n'
    )
    (files / "ms.toml").write_text(META_STUDY)
    st = load_study(files / "ms.toml", out=tmp_path / "out")
    assert st.data[0].kind == "meta" and st.data[0].questions == ("meta", "skill")
    html_path, md_path = run_study(
        st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=lambda m: None
    )
    rr = tmp_path / "out" / "rr"
    assert json.loads((rr / "sweep.json").read_text()).get("status") == "complete"
    mans = [json.loads(m.read_text())["resolved"] for m in sorted(rr.glob("*/manifest.json"))]
    # the entry's games override the config's; every pairing on the same seed, rotated
    assert len(mans) == 3 and {(m["games"], m["seed"], m["rotate"]) for m in mans} == {(40, 8, "duplicate")}
    assert sorted(tuple(s["strategy"] for s in m["seats"]) for m in mans) == [
        ("greedy", "heuristic"),
        ("random", "greedy"),
        ("random", "heuristic"),
    ]
    md = md_path.read_text()
    verdicts = md[md.index("## Verdicts") : md.index("## Answers")]
    assert "Meta-game" in verdicts and "share of outcome variance explained by the strategy" in verdicts
    assert "Nash" in md and "alpha-Rank" in md
    seen = []
    run_study(st, run_dataset=runner.run_dataset, run_sweep=sweep.run_sweep, echo=seen.append)
    assert any("rr: complete" in m for m in seen)


def test_sim_study_refuses_a_bad_meta_strategy_before_anything_runs(files, tmp_path):
    (files / "meta.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\ngames = 10\n'
        '[[strategies]]\nstrategy = "random"\n[[strategies]]\nstrategy = "greedy"\n'
        "params = { depth = 3 }\n"
    )
    (files / "s.toml").write_text(
        '[[data]]\nname = "r"\nrun = "run.toml"\n[[data]]\nname = "m"\nmeta = "meta.toml"\n'
    )
    res = CliRunner().invoke(
        app, ["study", str(files / "s.toml"), "--out", str(tmp_path / "o"), "--no-progress"]
    )
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "strategies.1.params" in lines[0] and "meta.toml" in lines[0], res.output
    assert not (tmp_path / "o" / "r").exists()
