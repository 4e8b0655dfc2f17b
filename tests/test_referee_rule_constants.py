"""The referees follow the rule constants of the run they replay (``[rules]`` numbers such as
the fine per corpse, BI-M1, or the faces of a die, CL-C2), read from the dataset manifest's
resolved config, and a manifest resolved before the constants existed plays and replays the
printed numbers.

For every constant: a run with a value other than the printed one replays with no divergence,
and the log of the printed game (right under the printed value) judged under the configured
value is objected to, citing the constant's rule.  The printed values are written out here
from ../shared/rules/ (not read from the code).
"""

from __future__ import annotations

import json

import numba
import pyarrow as pa
import pytest
from typer.testing import CliRunner

import sim.api
from sim import registry
from sim.api import simulate
from sim.cli import app
from sim.games.bloody_inn.referee import replay_tables as replay_bloody_inn
from sim.games.cluedo.referee import replay_tables as replay_cluedo
from sim.runner import run_dataset

#: (constant, printed value, a changed value, its rule, players, strategy, games): the
#: changed value is one the printed games of the sample contradict somewhere
BLOODY_INN = [
    ("start_cash", 5, 12, "BI-S3", 3, "greedy", 20),
    ("start_cheques", 1, 3, "BI-S3", 3, "greedy", 20),
    ("start_peasants", 2, 1, "BI-S3", 3, "greedy", 20),
    ("solo_bistro_peasants", 2, 4, "BI-X1", 1, "greedy", 20),
    ("room_service_per_rank", 1, 3, "BI-E2", 3, "greedy", 60),
    ("peasants_per_bribe", 2, 1, "BI-N3", 3, "random", 40),
    ("police_to_investigate", 1, 2, "BI-M1", 3, "random", 40),
    ("fine_per_corpse", 10, 30, "BI-M1", 3, "random", 40),
    ("leave_income_per_room", 1, 3, "BI-M2", 3, "greedy", 20),
    ("wage_per_accomplice", 1, 2, "BI-M3", 3, "greedy", 20),
    ("final_fine_per_corpse", 10, 20, "BI-G1", 3, "random", 40),
]
CLUEDO = [
    ("die_faces", 6, 4, "CL-C2", 4, "logic", 20),
    ("clue_pile", 29, 5, "CL-C2", 4, "logic", 20),
]
CASES = [("bloody_inn", *c) for c in BLOODY_INN] + [("cluedo", *c) for c in CLUEDO]
REFEREE = {"bloody_inn": replay_bloody_inn, "cluedo": replay_cluedo}


def _config(game, players, strategy, rules):
    return {"game": game, "players": players, "seats": [{"strategy": strategy}], "rules": rules}


def test_the_cases_cover_every_constant_of_both_games():
    """Every constant the adapters record gets a case, with the printed value and rule the
    rules contract gives it."""
    for game, cases in (("bloody_inn", BLOODY_INN), ("cluedo", CLUEDO)):
        resolved = sim.api.resolve({"game": game, "players": 3})
        facts = registry.get_adapter(game).dataset_facts(resolved)["rule_constants"]
        assert {c[0]: (c[1], c[3]) for c in cases} == {
            name: (f["printed"], f["rule"]) for name, f in facts.items()
        }


@pytest.mark.parametrize(
    "game,name,printed,value,rule,players,strategy,games", CASES, ids=[c[1] for c in CASES]
)
def test_a_changed_constant_replays_clean_and_the_printed_log_is_objected_to(
    tmp_path, game, name, printed, value, rule, players, strategy, games
):
    out = tmp_path / "ds"
    run_dataset(
        _config(game, players, strategy, {name: value}), out, games=games, seed=5, events=True, progress=False
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["resolved"]["rules"][name] == value
    report = registry.replay_dataset(out)  # the referee reads the manifest's resolved config
    assert report.games == games and report.ok, report.divergences[0].format()

    # the printed game's log, right under the printed value, judged under the changed one
    plain = simulate(_config(game, players, strategy, {}), games=games, seed=5, events=True)
    replay = REFEREE[game]
    assert replay(plain.resolved, plain.games, plain.seats, plain.events).ok
    changed = {**plain.resolved, "rules": {**plain.resolved["rules"], name: value}}
    report = replay(changed, plain.games, plain.seats, plain.events)
    assert report.divergences, f"the printed log of {games} games passes with {name} = {value}"
    assert {d.rule for d in report.divergences} == {rule}, report.divergences[0].format()


def _first(events, kind):
    rows = events.to_pylist()
    return next(i for i, r in enumerate(rows) if r["kind"] == kind), rows


def _with(events, i, **fields):
    rows = events.to_pylist()
    rows[i] = {**rows[i], **fields}
    return pa.Table.from_pylist(rows, schema=events.schema)


def test_BI_M1_one_fine_at_the_printed_rate_is_objected_to_at_its_event():
    """BI-M1 with ``fine_per_corpse = 20``: the first Morning fine changed to 10 F per corpse
    (cash, and the cash the seat keeps) is objected to at that event."""
    res = simulate(_config("bloody_inn", 3, "random", {"fine_per_corpse": 20}), games=40, seed=5, events=True)
    rows = res.events.to_pylist()
    i = next(
        i
        for i, r in enumerate(rows)
        if r["kind"] == "investigation" and r["b"] == 20 * r["a"] and r["c"] == 0
    )
    e = rows[i]
    less = 10 * e["a"]
    bad = _with(res.events, i, b=e["b"] - less, cash=e["cash"] + less)
    report = replay_bloody_inn(res.resolved, res.games, res.seats, bad)
    div = next(d for d in report.divergences if d.game_id == e["game_id"])
    assert div.rule == "BI-M1" and div.event["seq"] == e["seq"], div.format()
    assert "owes" in div.message


def test_CL_C2_a_die_face_over_the_configured_faces_is_objected_to_at_its_roll():
    """CL-C2 with ``die_faces = 4``: a roll showing 5 (a face of the printed die) is objected to."""
    res = simulate(_config("cluedo", 4, "logic", {"die_faces": 4}), games=10, seed=5, events=True)
    i, rows = _first(res.events, "roll")
    bad = _with(res.events, i, a=5)
    report = replay_cluedo(res.resolved, res.games, res.seats, bad)
    div = next(d for d in report.divergences if d.game_id == rows[i]["game_id"])
    assert div.rule == "CL-C2" and div.event["seq"] == rows[i]["seq"], div.format()
    assert "1 to 4" in div.message


# --- manifests written before the constants existed -------------------------------------


def _old_manifest(out, game):
    """Rewrite a dataset's manifest as the code before the rule constants wrote it: no
    constant in ``resolved.rules`` (and the config_id of that resolved config)."""
    from sim.config import config_id

    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    facts = registry.get_adapter(game).dataset_facts(manifest["resolved"])["rule_constants"]
    for name in facts:
        del manifest["resolved"]["rules"][name]
    manifest["config_id"] = config_id(manifest["resolved"])
    path.write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize("game,players,strategy", [("bloody_inn", 3, "greedy"), ("cluedo", 4, "logic")])
def test_a_manifest_without_the_constants_reruns_and_replays_the_printed_game(
    tmp_path, game, players, strategy
):
    out = tmp_path / "old"
    run_dataset(_config(game, players, strategy, {}), out, games=30, seed=8, events=True, progress=False)
    path = _old_manifest(out, game)
    printed = {
        n: f["printed"]
        for n, f in registry.get_adapter(game)
        .dataset_facts(sim.api.resolve({"game": game, "players": players}))["rule_constants"]
        .items()
    }

    resolved = sim.api.resolve(path)  # sim run <manifest>: the printed numbers filled in
    assert {n: resolved["rules"][n] for n in printed} == printed
    # the same config as today's resolution of the run (so the same config_id), the same rows
    assert resolved == sim.api.resolve(_config(game, players, strategy, {}), games=30, seed=8)
    again = simulate(path, events=True)
    for table in ("games", "seats", "events"):
        assert getattr(again, table).equals(sim.api.read_table(out, table)), table

    report = registry.replay_dataset(out)  # the referee reads the printed numbers too
    assert report.games == 30 and report.ok, report.divergences[0].format()

    res = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "rerun"), "--no-progress"])
    assert res.exit_code == 0, res.output


def test_a_manifest_missing_another_key_still_fails_the_key_check(tmp_path):
    """Only the rule constants are filled in: any other missing key is still a manifest from
    a code that does not fit."""
    out = tmp_path / "ds"
    run_dataset(_config("bloody_inn", 2, "greedy", {}), out, games=10, seed=1, progress=False)
    path = _old_manifest(out, "bloody_inn")
    manifest = json.loads(path.read_text())
    del manifest["resolved"]["rules"]["season_change"]
    from sim.config import config_id

    manifest["config_id"] = config_id(manifest["resolved"])
    path.write_text(json.dumps(manifest))
    res = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "rerun"), "--no-progress"])
    assert res.exit_code != 0 and "key rules.season_change" in res.output


# --- threads and chunk sizes ------------------------------------------------------------


TUNED = {
    "bloody_inn": {
        "start_cash": 8,
        "start_cheques": 0,
        "room_service_per_rank": 2,
        "peasants_per_bribe": 3,
        "police_to_investigate": 2,
        "fine_per_corpse": 20,
        "leave_income_per_room": 2,
        "wage_per_accomplice": 2,
        "final_fine_per_corpse": 30,
    },
    "cluedo": {"die_faces": 8, "clue_pile": 12},
}


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("game,players,strategy", [("bloody_inn", 3, "greedy"), ("cluedo", 4, "logic")])
def test_threads_and_chunk_size_do_not_change_the_rows_of_changed_constants(
    tmp_path, game, players, strategy
):
    config = _config(game, players, strategy, TUNED[game])
    tables = []
    try:
        for threads, chunk in ((1, 250), (2, 90)):
            out = tmp_path / f"t{threads}"
            run_dataset(
                config,
                out,
                games=250,
                seed=6,
                threads=threads,
                chunk_games=chunk,
                events=True,
                progress=False,
            )
            tables.append({t: sim.api.read_table(out, t) for t in ("games", "seats", "events")})
    finally:
        sim.api.set_threads(None)
    one, two = tables
    for t in ("games", "seats", "events"):
        assert one[t].num_rows > 0 and one[t].equals(two[t]), t
