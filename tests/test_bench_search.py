"""``sim bench``'s search row: which player counts it measures, its fields, its yardstick ratio.

No timing is asserted (timings belong in ``sim bench`` itself): the checks are on which rows
run and on the consistency of the fields one measurement gives.
"""

from __future__ import annotations

import pytest

from sim import bench


def _plan(game, counts):
    return [(game, p, "mixed", ["random"] * p) for p in counts]


def test_the_search_row_follows_the_measured_bloody_inn_counts():
    assert bench._search_counts(_plan("bloody_inn", [1, 2, 3, 4]), quick=False) == bench.SEARCH_ROW_GAMES
    assert bench._search_counts(_plan("bloody_inn", [2]), quick=False) == {2: bench.SEARCH_ROW_GAMES[2]}
    assert bench._search_counts(_plan("bloody_inn", [3, 4]), quick=False) == {}
    assert bench._search_counts(_plan("cluedo", [1, 2]), quick=False) == {}
    assert bench._search_counts(_plan("bloody_inn", [1, 2]), quick=True) == {}


def test_a_search_row_measures_cpu_per_game_and_per_decision():
    row = bench.search_row(1, 2)
    assert row["lineup"] == ["search"] and row["games"] == 2
    assert row["decisions"] > 2 * 10  # a solo long game has more than ten night actions of its seat
    cpu = row["cpu_s"]
    assert row["cpu_ms_per_game"] == pytest.approx(1000 * cpu / 2, rel=1e-2)
    assert row["cpu_ms_per_decision"] == pytest.approx(1000 * cpu / row["decisions"], rel=1e-2)
    assert row["decisions_per_cpu_s"] == pytest.approx(row["decisions"] / cpu, rel=1e-2)
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
    assert "search (Bloody Inn" in text and "dec/cpu s" in text
