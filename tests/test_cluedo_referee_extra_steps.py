"""The Cluedo referee follows the what-if ``rules.extra_steps`` of the run it replays (steps
added to a suspect's every walk; CL-T1 moves the dice total, 0 extra by the rules), read from
the dataset manifest's resolved config.

A run with extra steps replays with no divergence, and the log of the printed game judged
under extra steps is objected to citing CL-T1 (and the other way round).
"""

from __future__ import annotations

import json

from sim import registry
from sim.api import simulate
from sim.games.cluedo.referee import replay_tables
from sim.runner import run_dataset

#: two extra steps for every suspect, so every walk of a random-character game has them
EXTRA = {s: 2 for s in ("scarlett", "mustard", "white", "green", "peacock", "plum")}


def _config(rules):
    return {"game": "cluedo", "players": 4, "seats": [{"strategy": "logic"}], "rules": rules}


def test_a_run_with_extra_steps_replays_clean(tmp_path):
    out = tmp_path / "ds"
    run_dataset(_config({"extra_steps": EXTRA}), out, games=20, seed=5, events=True, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["resolved"]["rules"]["extra_steps"] == EXTRA
    report = registry.replay_dataset(out)  # the referee reads the manifest's resolved config
    assert report.games == 20 and report.ok, report.divergences[0].format()


def test_the_printed_log_under_extra_steps_and_back_is_objected_to_citing_CL_T1():
    plain = simulate(_config({}), games=20, seed=5, events=True)
    assert replay_tables(plain.resolved, plain.games, plain.seats, plain.events).ok
    changed = {**plain.resolved, "rules": {**plain.resolved["rules"], "extra_steps": EXTRA}}
    report = replay_tables(changed, plain.games, plain.seats, plain.events)
    assert report.divergences, "the printed log of 20 games passes with 2 extra steps a walk"
    assert {d.rule for d in report.divergences} == {"CL-T1"}, report.divergences[0].format()

    extra = simulate(_config({"extra_steps": EXTRA}), games=20, seed=5, events=True)
    assert replay_tables(extra.resolved, extra.games, extra.seats, extra.events).ok
    report = replay_tables(plain.resolved, extra.games, extra.seats, extra.events)
    assert report.divergences and {d.rule for d in report.divergences} == {"CL-T1"}


def test_one_walk_short_of_its_extra_step_is_objected_to_at_its_event():
    """With one extra step for every suspect, a walk logged with the plain dice total (one
    step short) is objected to at that walk."""
    import pyarrow as pa

    one = {s: 1 for s in EXTRA}
    res = simulate(_config({"extra_steps": one}), games=10, seed=5, events=True)
    rows = res.events.to_pylist()
    i = next(i for i, r in enumerate(rows) if r["kind"] == "move" and r["d"] == 0)
    rows[i] = {**rows[i], "c": rows[i]["c"] - 1}
    bad = pa.Table.from_pylist(rows, schema=res.events.schema)
    report = replay_tables(res.resolved, res.games, res.seats, bad)
    div = next(d for d in report.divergences if d.game_id == rows[i]["game_id"])
    assert div.rule == "CL-T1" and div.event["seq"] == rows[i]["seq"], div.format()
