"""DMC or ISMCTS for the ``search`` strategy: the measurements of docs/strategies.md
("DMC or ISMCTS: measured").

    python benchmarks/strategies/measure_ismcts.py CELL [CELL ...] [--out FILE]
        [--games N] [--determinizations D] [--depth K] [--exploration C]

``ISMCTS`` below is ``search`` with ``method = 1``, ``tree_depth`` K, ``exploration`` C and
``determinizations`` D (its iterations: D x candidates per decision, capped by ``budget``);
``DMC`` is ``search`` with ``method = 0`` (its default when these runs were made).  Long games, invariant checks on, 2 threads; CPU
seconds are the process's (both threads), so they hold on a shared machine.

Cells:

- ``cost``: CPU per game of DMC and of ISMCTS, solo and heads-up (against ``expert``), on
  the same deals, interleaved three times;
- ``tune``: solo, the same deals (seed 101), ISMCTS at depths 1-3 and two explorations
  (``--arms``), the paired score difference from DMC (a lost game counts 0, BI-X2);
- ``solo``: ISMCTS and DMC solo on the same ``--games`` deals (seed 808): means and the
  paired difference;
- ``hu``: ISMCTS against DMC heads-up, ``--games`` games, every deal played once with each
  seating (rotate = "duplicate", seed ``--hu-seed``, 909): ISMCTS's win share (ties split),
  with a Wilson interval over games and a normal one over deals (the paired unit).

Every line printed (and appended to ``--out``) is one JSON record with 95% intervals
(Wilson for shares, normal for means).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import polars as pl
from measure_search import mean_ci, share_ci, solo_scores

from sim import api


def run(players, seats, games, seed, rotate=True, threads=2):
    numba.set_num_threads(threads)
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": rotate,
        "rules": {"length": "long", "check_invariants": True},
        "seats": seats,
    }
    t = time.process_time()
    r = api.simulate(cfg, threads=threads)
    g, s = pl.from_arrow(r.games), pl.from_arrow(r.seats)
    assert (g["invariant_error"] == 0).all()
    return g, s, time.process_time() - t


def ismcts(a, **over):
    params = {"method": 1, "tree_depth": a.depth, "exploration": a.exploration, "determinizations": a.dets}
    return {"strategy": "search", "params": {**params, "placement": a.placement, **over}}


def dmc(a):
    """DMC (``method`` 0; its default when these runs were made, ISMCTS's since).  ``--placement``:
    the runs were made before search at placement existed (0) and once after (1, seed 919)."""
    return {"strategy": "search", "params": {"method": 0, "placement": a.placement}}


def cell_cost(a):
    run(1, [ismcts(a)], 2, 1)  # load both kernels first
    out = {("solo", "dmc"): 0.0, ("solo", "ismcts"): 0.0, ("hu", "dmc"): 0.0, ("hu", "ismcts"): 0.0}
    n = {"solo": 120, "hu": 60}
    for r in range(3):
        for name, seat in (("dmc", dmc(a)), ("ismcts", ismcts(a))):
            out["solo", name] += solo_scores(seat, n["solo"], 1000 + r)[1]
            out["hu", name] += run(2, [seat, {"strategy": "expert"}], n["hu"], 2000 + r)[2]
    for (cell, name), cpu in out.items():
        yield {
            "cell": "cost",
            "table": cell,
            "method": name,
            "games": 3 * n[cell],
            "cpu_ms_per_game": round(1000 * cpu / (3 * n[cell]), 1),
            "params": ismcts(a)["params"] if name == "ismcts" else "defaults",
        }


def cell_tune(a):
    base, cpu0 = solo_scores(dmc(a), a.games, 101)
    yield {"cell": "tune", "arm": "dmc", "mean_lost_as_0": mean_ci(base), "cpu_s": round(cpu0, 1)}
    for depth, c in a.arms:
        x, cpu = solo_scores(ismcts(a, tree_depth=depth, exploration=c), a.games, 101)
        yield {
            "cell": "tune",
            "arm": f"ismcts depth {depth} exploration {c}",
            "games": len(x),
            "mean_lost_as_0": mean_ci(x),
            "minus_dmc": mean_ci(x - base),
            "cpu_s": round(cpu, 1),
        }


def cell_solo(a):
    base, cpu0 = solo_scores(dmc(a), a.games, 808)
    x, cpu = solo_scores(ismcts(a), a.games, 808)
    yield {
        "cell": "solo",
        "games": len(x),
        "dmc": mean_ci(base),
        "ismcts": mean_ci(x),
        "ismcts_minus_dmc": mean_ci(x - base),
        "cpu_s": {"dmc": round(cpu0, 1), "ismcts": round(cpu, 1)},
        "params": ismcts(a)["params"],
    }


def cell_hu(a):
    g, s, cpu = run(2, [ismcts(a), dmc(a)], a.games, a.hu_seed, rotate="duplicate")
    m = s.filter(pl.col("lineup") == 0)
    o = s.filter(pl.col("lineup") == 1)
    # the two games of a deal are not independent: the deal is the unit of the paired interval
    by_deal = (
        m.with_columns((pl.col("game_id") // 2).alias("deal")).group_by("deal").agg(pl.col("win").mean())
    )
    yield {
        "cell": "heads-up ismcts vs dmc",
        "games": g.height,
        "ismcts_win": share_ci(m["win"]),
        "ismcts_win_by_deal": mean_ci(by_deal["win"]),
        "deals": by_deal.height,
        "ismcts_win_as_first": share_ci(m.filter(pl.col("seat") == 0)["win"]),
        "ismcts_win_as_second": share_ci(m.filter(pl.col("seat") == 1)["win"]),
        "ismcts_score": mean_ci(m["score"]),
        "dmc_score": mean_ci(o["score"]),
        "cpu_s": round(cpu, 1),
        "params": ismcts(a)["params"],
    }


CELLS = {"cost": cell_cost, "tune": cell_tune, "solo": cell_solo, "hu": cell_hu}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cells", nargs="+", choices=sorted(CELLS))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--determinizations", dest="dets", type=int, default=64)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--exploration", type=float, default=0.7)
    ap.add_argument(
        "--arms",
        type=lambda t: [(int(x.split(":")[0]), float(x.split(":")[1])) for x in t.split(",")],
        default=[(d, c) for d in (1, 2, 3) for c in (0.25, 0.7)],
        help="tune arms, depth:exploration,... (default: depths 1-3 x 0.25, 0.7)",
    )
    ap.add_argument("--hu-seed", type=int, default=909)
    ap.add_argument("--placement", type=int, default=0, choices=(0, 1))
    a = ap.parse_args(argv)
    for name in a.cells:
        for rec in CELLS[name](a):
            line = json.dumps(rec)
            print(line, flush=True)
            if a.out:
                with a.out.open("a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
