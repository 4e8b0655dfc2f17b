"""``sim bench`` on a tiny sample: every measurement runs and the JSON has its fields.

No timing is asserted (timings belong in `sim bench` itself); the checks are on structure,
on consistency between fields, and on the one exact fact the bench reports: the JIT and the
plain-Python run of the same kernels give the same rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from typer.testing import CliRunner

from sim import bench
from sim.cli import app

BIN = Path(sys.executable).parent
SIM = [str(BIN / "sim")] if (BIN / "sim").exists() else [sys.executable, "-m", "sim.cli"]


def sim(*args, cwd):
    res = subprocess.run(SIM + [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=1800)
    return res.returncode, res.stdout, res.stderr


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("bench")
    (cwd / "yard.py").write_text(FAKE_YARDSTICK)  # the real yardstick's readings cost seconds
    code, out, err = sim(
        "bench",
        *("--game", "bloody_inn", "--players", 2, "--games", 64, "--py-games", 2),
        *("--yardstick", "yard.py", "--json"),
        cwd=cwd,
    )
    assert code == 0, err
    return json.loads(out)


def test_json_describes_the_machine(result):
    m = result["machine"]
    assert result["format"] == "boardsim-bench"
    for key in (
        "cpu",
        "logical_cpus",
        "usable_cpus",
        "memory_bytes",
        "numba_threads",
        "versions",
        "git",
        "load_average",
        "time",
        "host",
    ):
        assert key in m, key
    assert m["usable_cpus"] >= 1 and m["numba_threads"] >= 1
    assert m["versions"]["numba"] and len(m["load_average"]) == 3
    assert len(result["load_average_end"]) == 3


def test_throughput_row_has_rates_and_the_time_split(result):
    (row,) = result["throughput"]
    assert (row["game"], row["players"], row["mix"]) == ("bloody_inn", 2, "mixed")
    assert row["lineup"] == bench.lineups("bloody_inn", 2)["mixed"]
    assert len(set(row["lineup"])) == 2  # two different strategies in a mixed lineup
    assert row["games"] == 64
    one, full = row["passes"][0], row["passes"][-1]
    assert one["threads"] == 1 and full["threads"] == row["threads"] == m_threads(result)
    # --rounds 3 (default): 1 thread and all cores alternate, the speed-up is the median of
    # the three adjacent ratios and the rates shown are those of the median passes
    threads = [p["threads"] for p in row["passes"]]
    rounds = result["settings"]["rounds"]
    assert rounds == 3
    if m_threads(result) > 1:
        assert threads == [1, m_threads(result)] * rounds
        ratios = [
            f["games_per_s"] / o["games_per_s"] for o, f in zip(row["passes"][0::2], row["passes"][1::2])
        ]
        assert row["speedups"] == pytest.approx(ratios, rel=1e-2)
        assert row["speedup"] == pytest.approx(sorted(ratios)[1], rel=1e-2)
    ones = sorted(p["games_per_s"] for p in row["passes"] if p["threads"] == 1)
    alls = sorted(p["games_per_s"] for p in row["passes"] if p["threads"] == row["threads"])
    assert row["games_per_s_1"] == ones[(len(ones) - 1) // 2]
    assert row["games_per_s_all"] == alls[(len(alls) - 1) // 2]
    for p in row["passes"]:
        assert p["games_per_s"] > 0 and p["kernel_us_per_game"] > 0
        assert p["cpu_us_per_game"] > 0 and p["cpu_s"] > 0
        assert p["parquet_us_per_game"] > 0 and p["pipeline_games_per_s"] > 0
        # the kernel is part of play time; play + write is the pipeline
        assert p["kernel_s"] <= p["play_s"] + 1e-3
        assert p["pipeline_games_per_s"] <= p["games_per_s"]
    # every pass plays the row's games, so a rate is that count over the pass's own play time
    # and the speed-ups compare like with like (a pass of other games would break both)
    # (play_s is rounded to 0.1 ms, games_per_s to 0.1 game/s)
    for p in row["passes"]:
        lo, hi = row["games"] / (p["play_s"] + 5e-5), row["games"] / max(p["play_s"] - 5e-5, 1e-9)
        assert lo - 0.05 <= p["games_per_s"] <= hi + 0.05
    assert row["peak_rss_bytes"] > 10 * 2**20


def m_threads(result):
    return result["machine"]["numba_threads"]


def test_pure_python_run_gives_the_same_rows_as_the_jit(result):
    (py,) = result["pure_python"]
    (row,) = result["throughput"]
    assert py["games"] == row["digest_games"] == 2
    assert py["digest"] == row["digest"]
    assert py["games_per_s"] > 0
    assert any(c["check"].startswith("JIT and pure Python") and c["ok"] for c in result["checks"])


def test_pure_python_plays_the_compiled_games_of_every_scripted_bloody_inn_policy():
    """``NUMBA_DISABLE_JIT=1`` runs the kernels as plain Python (the bench's JIT table), so an
    LLVM intrinsic of the compiled code (the lowest set bit of the rooms' mask) needs a Python
    twin, and both must play the same games: 2 games of 4 players, a seat of each policy."""
    lineup = ["random", "greedy", "heuristic", "expert"]
    spec = {"config": bench.bench_config("bloody_inn", 4, lineup), "digest_games": 2}
    py = bench._measure_in_child(spec, NUMBA_DISABLE_JIT=1, NUMBA_NUM_THREADS=1)
    jit = bench._measure_in_child(spec)
    assert py["jit"] is False and jit["jit"] is True
    assert py["digest"] == jit["digest"]


def test_startup_counts_a_cold_compile(result):
    (s,) = result["startup"]
    assert s["games"] == bench.WARM_GAMES
    assert s["cold_s"] > 0 and s["warm_s"] > 0
    # the cold run compiled into the empty cache: compiled versions were written
    assert s["compiled_versions"] >= 1 and s["cached_functions"] >= 1
    assert s["cold_peak_rss_bytes"] > 0 and s["warm_peak_rss_bytes"] > 0
    # compiling costs CPU: the cold run used more of it than the warm one
    assert s["cold_cpu_s"] > s["warm_cpu_s"] > 0
    # a Bloody Inn run compiles the Bloody Inn kernels only (Cluedo's are imported lazily)
    assert s["compiled_packages"] == ["bloody_inn"]


def test_startup_reports_compile_seconds_and_a_warm_cache_hit(result):
    """The cold compile of the game's kernels read from numba's compile events."""
    (s,) = result["startup"]
    # the cold run (empty cache) compiled every kernel version the cache holds and loaded none
    assert 0 < s["jit_compile_s"] <= s["cold_s"]
    assert s["kernel_compiles"] == s["compiled_versions"] >= 1 and s["cold_cache_hits"] == 0
    # the warm run (same cache) compiled nothing and loaded its kernels from the cache
    assert s["warm_kernel_compiles"] == 0 and s["warm_jit_compile_s"] == 0
    assert s["warm_cache_hits"] >= 1 and s["warm_cache_misses"] == 0
    assert any(c["check"].startswith("warm start compiles no kernel") and c["ok"] for c in result["checks"])


def test_table_renders_every_section(result):
    text = bench.render(result)
    for header in (
        "throughput",
        "1 thread",
        "all cores",
        "speed-up",
        "cpu us 1t",
        "kernel us",
        "parquet us",
        "JIT speed-up",
        "same rows",
        "cold",
        "warm",
        "versions",
        "jit compile",
        "warm hits",
        "x yard 1t",
        "yardstick (",
        "took ",
    ):
        assert header in text, header


def test_configs_written_as_toml_read_back_the_same():
    cfg = bench.bench_config("bloody_inn", 3, ["random", "greedy", "random"])
    assert tomllib.loads(bench.to_toml(cfg)) == cfg
    for _, config, _ in bench.bench_targets():
        target = dict(config, games=10, seed=1, name="t")
        assert tomllib.loads(bench.to_toml(target)) == target


def test_targets_come_from_every_game():
    games = {config["game"] for _, config, _ in bench.bench_targets()}
    assert games == {"bloody_inn", "cluedo"}


def test_targets_skip_a_missing_strategy(monkeypatch):
    monkeypatch.setattr(
        bench,
        "bench_targets",
        lambda: [("nothing", {"game": "bloody_inn", "players": 3, "seats": [{"strategy": "nosuch"}]}, 8.0)],
    )
    (row,) = bench.targets(1000)
    assert "nosuch" in row["skipped"] and row["target_s"] == pytest.approx(0.008)


def _scripted_targets(monkeypatch, readings, runs, ratio_target=0.10):
    """``bench.targets`` on the expert target with scripted yardstick readings and
    ``sim run`` results (the first run is the warm-up's)."""
    label = "bloody_inn 3p long, expert at every seat"
    config = dict(next(c for name, c, _ in bench.bench_targets() if name == label))
    monkeypatch.setattr(bench, "bench_targets", lambda: [(label, config, 20.0)])
    monkeypatch.setattr(bench, "bench_ratio_targets", lambda: {label: ratio_target})
    readings = iter(readings)
    monkeypatch.setattr(bench, "yardstick_reading", lambda path, threads: {threads[0]: next(readings)})
    runs = iter([(1.0, 1, {"elapsed_s": 0.5, "games_per_s": 2000.0, "cpu_s": 1.0})] + runs)
    monkeypatch.setattr(bench, "_sim_run", lambda *a, **k: next(runs))
    return label


def _run(elapsed, rate, rss=300_000_000):
    return (elapsed + 1.0, rss, {"elapsed_s": elapsed, "games_per_s": rate, "cpu_s": 2 * elapsed})


def test_each_target_run_is_read_against_the_yardstick_on_either_side(monkeypatch):
    # readings 600k, then 800k, 700k, 640k after the runs: each run's ratio is over the
    # geometric mean of the readings beside it (692,820; 748,331; 669,328)
    _scripted_targets(
        monkeypatch,
        [600_000, 800_000, 700_000, 640_000],
        [_run(14.3, 70_000), _run(15.2, 66_000, 310_000_000), _run(16.7, 60_000)],
    )
    (row,) = bench.targets(1_000_000, yardstick=Path("yard.py"), sittings=3, threads=2)
    assert [r["yardstick_ratio"] for r in row["runs"]] == [0.101, 0.0882, 0.0896]
    assert [(r["yardstick_before"], r["yardstick_after"]) for r in row["runs"]] == [
        (600_000, 800_000),
        (800_000, 700_000),
        (700_000, 640_000),
    ]
    # the median run (by games/s) and the median ratio; Student's t with 2 degrees of freedom
    assert (row["games_per_s"], row["elapsed_s"], row["peak_rss_bytes"]) == (66_000, 15.2, 310_000_000)
    assert row["yardstick_ratio"] == 0.0896
    assert row["yardstick_ratio_ci95"] == [0.0755, 0.1104]
    assert row["ratio_ok"] is False and row["ok"] is True  # 15.2 s of the 20 allowed
    (check,) = [
        c
        for c in bench.checks({"throughput": [], "startup": [], "pure_python": [], "targets": [row]})
        if ">=" in c["target"]
    ]
    assert (check["target"], check["value"], check["ok"]) == (">= 0.1", 0.0896, False)


def test_one_target_run_has_a_ratio_but_no_interval(monkeypatch):
    _scripted_targets(monkeypatch, [700_000, 700_000], [_run(14.0, 71_000)])
    (row,) = bench.targets(1_000_000, yardstick=Path("yard.py"), sittings=1, threads=2)
    assert row["yardstick_ratio"] == 0.1014 and row["ratio_ok"] is True
    assert row["yardstick_ratio_ci95"] is None
    text = bench.render(
        {
            "machine": {"cpu": "x", "usable_cpus": 2, "versions": {}, "numba_threads": 2, "load_average": []},
            "throughput": [],
            "pure_python": [],
            "startup": [],
            "search": [],
            "targets": [row],
            "checks": [],
        }
    )
    assert "0.1014" in text and "x yard" in text


def test_the_duration_estimate_budgets_a_targets_typical_seconds_not_its_allowed_ones(monkeypatch):
    target = {"label": "t", "config": {}, "seconds": 100.0, "typical_s": 10.0}
    monkeypatch.setattr(bench, "_adapter_targets", lambda: [target])
    settings = {
        "rounds": 1,
        "seconds": 1.0,
        "games": None,
        "quick": True,
        "py_games": 0,
        "startup": False,
        "targets": True,
        "target_games": 1_000_000,
    }
    one = bench.expected_seconds([], [], dict(settings, target_sittings=1), threads=2, yardstick=None)
    three = bench.expected_seconds([], [], dict(settings, target_sittings=3), threads=2, yardstick=None)
    assert one < 100 and 20 < three - one < 30  # two more runs of ~10 s (and their starts)


def test_target_runs_without_a_yardstick_have_no_ratio(monkeypatch):
    _scripted_targets(monkeypatch, [], [_run(14.0, 71_000), _run(14.5, 69_000)])
    (row,) = bench.targets(1_000_000, yardstick=None, sittings=2, threads=2)
    assert row["yardstick_ratio"] is None and row["ratio_ok"] is None and len(row["runs"]) == 2


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--target-sittings", "0"], "--target-sittings = 0"),
        (["--game", "chess"], "--game = 'chess'"),
        (["--game", "bloody_inn", "--players", "9"], "--players"),
        (["--game", "bloody_inn", "--mix", "nosuch"], "--mix = 'nosuch'"),
        (["--games", "1"], "--games = 1"),
        (["--rounds", "0"], "--rounds = 0"),
    ],
)
def test_bad_options_are_one_line(tmp_path, args, fragment):
    code, out, err = sim("bench", *args, cwd=tmp_path)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_speedup_target_is_stricter_for_long_games():
    # games longer than 10 CPU us need 1.85 on 2 threads; shorter ones 1.8
    long_row = {
        "threads": 2,
        "speedup": 1.82,
        "cpu_us_per_game_1": 35.0,
        "game": "g",
        "players": 3,
        "mix": "m",
    }
    short_row = dict(long_row, cpu_us_per_game_1=6.0)
    result = {"throughput": [long_row, short_row], "startup": [], "pure_python": []}
    got = [c for c in bench.checks(result) if c["check"].startswith("speed-up")]
    assert [(c["target"], c["ok"]) for c in got] == [(">= 1.85", False), (">= 1.8", True)]


# --- sim bench --quick ------------------------------------------------------------------------

#: a stand-in for the yardstick kernel file with the same two names ``sim bench`` reads (``run``,
#: ``trick_batch``), reporting 1,000 games/s per thread, so the ratios' thread matching shows
FAKE_YARDSTICK = """
import numba

def trick_batch(seed, n, points, first_leader):
    pass

def run(kernel, n, cols, reps=3):
    return 0.0, n / (1000.0 * numba.get_num_threads())
"""


def bench_in_process(*args):
    """``sim bench ARGS`` in this process (the measurements still run in their own children)."""
    res = CliRunner().invoke(app, ["bench", *map(str, args)])
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    yard = tmp_path_factory.mktemp("bench-quick") / "yard.py"
    yard.write_text(FAKE_YARDSTICK)
    code, out, err = bench_in_process(
        "--quick", "--game", "bloody_inn", "--games", 64, "--yardstick", yard, "--json"
    )
    assert code == 0, err
    return json.loads(out), err


def test_quick_states_its_expected_duration_then_a_line_per_part_as_it_finishes(quick):
    result, err = quick
    lines = [ln for ln in err.splitlines() if ln.startswith("bench:")]
    assert "about" in lines[0] and f"about {result['expected_s']:.0f} s" in lines[0]
    # the yardstick before, the one row, the yardstick after: numbered in the order they ran
    assert [ln.split("]")[0] for ln in lines[1:]] == ["bench: [1/3", "bench: [2/3", "bench: [3/3"]
    assert "yardstick before" in lines[1] and "bloody_inn 3p mixed" in lines[2]
    assert "yardstick after" in lines[3]
    assert result["elapsed_s"] > 0 and result["expected_s"] > 0


def test_quick_measures_the_default_player_count_once_without_startup_or_pure_python(quick):
    result, _ = quick
    (row,) = result["throughput"]
    assert (row["game"], row["players"], row["mix"]) == ("bloody_inn", 3, "mixed")
    assert result["settings"]["quick"] and result["settings"]["rounds"] == 1
    threads = row["threads"]
    assert [p["threads"] for p in row["passes"]] == ([1] if threads == 1 else [1, threads])
    assert result["pure_python"] == [] and result["startup"] == []


def test_quick_gives_each_rate_as_a_ratio_to_the_yardstick_at_the_same_threads(quick):
    result, _ = quick
    (row,) = result["throughput"]
    readings = result["yardstick"]["readings"]
    assert len(readings) == 2  # before and after the rows
    assert all(r == {"1": 1000, str(row["threads"]): 1000 * row["threads"]} for r in readings)
    assert row["yardstick_1"] == 1000 and row["yardstick_all"] == 1000 * row["threads"]
    assert row["yardstick_ratio_1"] == pytest.approx(row["games_per_s_1"] / 1000, rel=1e-3)


def test_quick_takes_an_option_given_beside_it():
    code, _, err = bench_in_process("--quick", "--game", "bloody_inn", "--games", 64, "--rounds", 0)
    assert code == 2 and "--rounds = 0" in err  # --rounds given is used, not quick's 1


def test_a_missing_yardstick_file_is_one_line():
    code, _, err = bench_in_process("--quick", "--yardstick", "nosuch.py")
    assert code == 2 and "--yardstick = 'nosuch.py'" in err and "Traceback" not in err


def test_the_default_yardstick_is_the_shared_one_beside_the_project(monkeypatch):
    monkeypatch.delenv("BOARDSIM_YARDSTICK", raising=False)
    beside = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "yardstick.py"
    assert bench.default_yardstick() == (beside if beside.exists() else None)
    monkeypatch.setenv("BOARDSIM_YARDSTICK", "/some/yard.py")
    assert bench.default_yardstick() == Path("/some/yard.py")


#: a yardstick-shaped file whose kernel is cached and parallel, as the real one's is
CACHED_YARDSTICK = """
import time

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def trick_batch(seed, n, points, first_leader):
    for g in prange(n):
        first_leader[g] = (seed + g) % 4


def run(kernel, n, cols, reps=3):
    t0 = time.perf_counter()
    kernel(1, n, *cols)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    kernel(1, n, *cols)
    return first, max(time.perf_counter() - t0, 1e-9)
"""


def test_a_cached_parallel_yardstick_reads_again_from_its_cache(tmp_path, monkeypatch):
    """The second reading loads the first one's cache: the file is run as a named module, so
    numba does not cache its parallel kernel under '<dynamic>' (which the next child cannot
    import: 'No module named <dynamic>')."""
    yard = tmp_path / "yard.py"
    yard.write_text(CACHED_YARDSTICK)
    monkeypatch.setenv("BOARDSIM_CACHE_DIR", str(tmp_path / "cache"))  # the children key under it
    first = bench.yardstick_reading(yard, [1], games=1000)
    again = bench.yardstick_reading(yard, [1], games=1000)
    assert set(first) == set(again) == {1} and again[1] > 0
    assert list((tmp_path / "cache").rglob("*.nbi"))  # it was cached, so read back the second time
