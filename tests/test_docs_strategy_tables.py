"""The strategy tables of docs/strategies.md come from recorded runs, not typing: the recorded
file's check cell is played again by the current code and must give the same numbers, and the
generated reading names a strategy as doing "the most" only when its interval clears the rest."""

import json
from pathlib import Path

from sim import docs_results
from sim.games.bloody_inn import strategy_tables as T

ROOT = Path(__file__).resolve().parents[1]


def _recorded():
    module, name = docs_results.TABLES["strategy-tables"]
    assert module == T.__name__
    return json.loads((ROOT / "docs" / "results" / name).read_text(encoding="utf-8"))


def test_the_recorded_check_cell_is_what_the_code_plays_now():
    """A change to the rules or a strategy that moves these rows means the tables are stale:
    record them again with ``python -m sim.docs --record strategy-tables``."""
    rec = _recorded()
    assert rec["check"]["games"] == T.CHECK_GAMES and rec["seed"] == T.SEED
    assert json.loads(json.dumps(T.check())) == rec["check"]["cells"]


def test_the_recorded_tables_cover_every_cell():
    rec = _recorded()
    assert list(rec["heads_up"]) == list(T.OPPONENTS)
    assert len(rec["mixed"]) == len(T.MIXED) and list(rec["behaviour"]) == list(T.BEHAVIOUR)
    assert all(c["games"] == rec["games_per_cell"] for c in rec["heads_up"].values())


def _cell(value, half):
    return {"value": value, "lo": value - half, "hi": value + half, "n": 100}


def _results(kills):
    """Recorded-shaped results whose behaviour table has these mean kills (half-width 0.1)."""
    names = list(kills)
    share = _cell(0.6, 0.01)
    be = {
        n: {c: _cell(1.0, 0.1) for c in (*T.BEHAVIOUR_COLUMNS, "travellers_bribed")} | {"seat_games": 300}
        for n in names
    }
    for n, k in kills.items():
        be[n]["kills"] = _cell(k, 0.1)
    bands = {b: _cell(1 / 6, 0.01) for b, _, _ in T.BANDS}
    solo = {
        "games": 100,
        "loss": _cell(0.01, 0.01),
        "mean_score_not_lost": _cell(120.0, 1.0),
        "mean_score_lost_as_0": _cell(119.0, 1.0),
        "bands": bands,
        "quantiles": {"0.5": 120.0},
    }
    hu = {"greedy": {"games": 100, "win": share, "score": _cell(80, 1), "opp_score": _cell(60, 1)}}
    return {"games_per_cell": 100, "seed": 1, "solo": solo, "heads_up": hu, "mixed": {}, "behaviour": be}


def test_most_is_said_only_when_the_interval_clears_the_next():
    apart = T.render(_results({"killer": 6.0, "builder": 3.0}))
    assert "`killer` kills the most" in apart
    close = T.render(_results({"killer": 6.0, "builder": 5.85}))  # intervals overlap
    assert "kills the most" not in close.replace("no strategy kills the most", "")
    assert "no strategy kills the most by a margin its interval clears" in close
