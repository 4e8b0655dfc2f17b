"""``sim bench``'s search row: which player counts it measures, its fields, its yardstick ratio.

No timing is asserted (timings belong in ``sim bench`` itself): the checks are on which rows
run and on the consistency of the fields one measurement gives.
"""

from __future__ import annotations

import pytest

from sim import bench, registry


def _plan(game, counts):
    return [(game, p, "mixed", ["random"] * p) for p in counts]


def test_the_search_rows_follow_each_games_declared_counts():
    rows = {g: registry.get_adapter(g).bench_search() for g in registry.game_names()}
    want = {(g, p): n for g, r in rows.items() if r for p, n in r["games"].items()}
    plan = [row for g in registry.game_names() for row in _plan(g, [1, 2, 3, 4, 5, 6])]
    assert bench._search_counts(plan, quick=False) == want
    assert bench._search_counts(_plan("bloody_inn", [3, 4]), quick=False) == {}
    assert bench._search_counts(plan, quick=True) == {}


def test_a_search_row_measures_cpu_per_game_and_per_decision():
    row = bench.search_row("bloody_inn", 1, 2)
    assert row["lineup"] == ["search"] and row["games"] == 2
    assert row["decisions"] > 2 * 10  # a solo long game has more than ten night actions of its seat
    assert 0 < row["cpu_s"] and row["cpu_ms_per_decision"] < row["cpu_ms_per_game"]
    yard = {"path": "yard.py", "readings": [{1: 1000}, {1: 4000}]}
    result = {"search": [row], "throughput": [], "yardstick": yard}
    bench.add_yardstick_ratios(result)
    assert row["yardstick_1"] == pytest.approx(2000)  # the geometric mean of before and after
    assert row["yardstick_ratio_1"] == pytest.approx(row["games_per_cpu_s"] / 2000, rel=1e-3)
    text = bench.render(
        {
            "machine": {
                "cpu": "x",
                "usable_cpus": 2,
                "memory_bytes": None,
                "versions": {},
                "numba_threads": 2,
                "load_average": [],
            },
            "throughput": [],
            "pure_python": [],
            "startup": [],
            "checks": [],
            **result,
        }
    )
    assert "search players" in text and "a night action" in text and "dec/cpu s" in text
