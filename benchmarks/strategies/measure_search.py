"""Reproduce the ``search`` measurements of docs/strategies.md.

    python benchmarks/strategies/measure_search.py CELL [CELL ...] [--out FILE]

Cells (long games, rotated seats, invariant checks on, 2 threads; CPU seconds are the
process's, so they hold on a shared machine where wall time does not):

- ``solo``: ``search`` and ``expert`` alone on the same 2,000 deals, the score counting a
  lost game as 0 against the rulebook bands (BI-X3);
- ``hu``: ``search`` against ``expert``, 4,000 games, win share by seat;
- ``4p``: one ``search`` seat among three ``expert``s, 1,000 games;
- ``field``: ``search``, then ``expert``, against banker, briber and killer (4 players);
- ``ladder``: greedy-random, heuristic-greedy, expert-heuristic heads-up, 4,000 games each;
- ``cost``: CPU per game and per search decision at 1-4 players (1 thread);
- ``budget``: how a fixed budget of 256 rollouts per decision is best spent (samples of the
  hidden cards vs rollouts per sample vs candidates), solo on the same 400 deals, each arm's
  mean score and its paired difference from the default (4 candidates x 64 samples x 1);
- ``wide``: 8 candidates x 32 samples (the best split of ``budget``) against the default
  ``search`` heads-up, 600 games, seats rotated;
- ``place``: search at placement on and off (and the same extra CPU on more night samples),
  solo on the same 2,000 deals, then on against off heads-up (1,000 games);
- ``s64``: the quarter-budget players of the 20,000-game first-player runs against
  ``expert`` and the default ``search``, heads-up, 1,000 games each;
- ``selfcost``: CPU per game with ``search`` at every seat at 2-4 players (1 thread);
- ``brexpert``: the best response to ``search`` (best-response-search-2p.toml) against
  ``expert``, 40,000 games on the tuner's validation seed;
- ``first``: the first player with ``search`` at every seat at 3 and 4 players is run with
  ``sim run configs/bloody_inn/strategies/search-self-{3,4}p.toml`` (chunked, resumable).

Every line printed (and appended to ``--out``) is one JSON record with 95% intervals
(Wilson for shares, normal for means).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numba
import numpy as np
import polars as pl

from analysis.stats import wilson
from sim import api

BANDS = [-1, 0.5, 110, 130, 150, 170, 1e9]
BAND_NAMES = ["lost", "below 110", "110-129", "130-149", "150-169", "170+"]


def run(players, seats, games, seed, threads=2):
    numba.set_num_threads(threads)
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": True,
        "rules": {"length": "long", "check_invariants": True},
        "seats": [{"strategy": s} if isinstance(s, str) else s for s in seats],
    }
    t = time.process_time()
    r = api.simulate(cfg, threads=threads)
    g, s = pl.from_arrow(r.games), pl.from_arrow(r.seats)
    assert (g["invariant_error"] == 0).all()
    return g, s, time.process_time() - t


def mean_ci(x):
    x = np.asarray(x, dtype=float)
    h = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return [round(x.mean(), 4), round(x.mean() - h, 4), round(x.mean() + h, 4)]


def share_ci(x):
    x = np.asarray(x, dtype=float)
    lo, hi = wilson(x.sum(), len(x))
    return [round(x.mean(), 4), round(float(lo), 4), round(float(hi), 4)]


def cell_solo():
    for name in ("search", "expert"):
        g, s, cpu = run(1, [name], 2000, 101)
        x = (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float)
        counts = np.histogram(x, bins=BANDS)[0]
        bands = {b: share_ci(np.arange(len(x)) < c) for b, c in zip(BAND_NAMES, counts)}
        yield {
            "cell": "solo",
            "strategy": name,
            "games": len(x),
            "mean_lost_as_0": mean_ci(x),
            "bands": bands,
            "cpu_s": round(cpu, 1),
        }


def cell_hu():
    g, s, cpu = run(2, ["search", "expert"], 4000, 202)
    m = s.filter(pl.col("lineup") == 0)
    yield {
        "cell": "heads-up vs expert",
        "games": g.height,
        "win": share_ci(m["win"]),
        "win_as_first": share_ci(m.filter(pl.col("seat") == 0)["win"]),
        "win_as_second": share_ci(m.filter(pl.col("seat") == 1)["win"]),
        "score": mean_ci(m["score"]),
        "expert_score": mean_ci(s.filter(pl.col("lineup") == 1)["score"]),
        "cpu_s": round(cpu, 1),
    }


def cell_4p():
    g, s, cpu = run(4, ["search", "expert", "expert", "expert"], 1000, 303)
    m = s.filter(pl.col("lineup") == 0)
    yield {
        "cell": "one search among 3 expert",
        "games": g.height,
        "win": share_ci(m["win"]),
        "score": mean_ci(m["score"]),
        "cpu_s": round(cpu, 1),
    }


def cell_field():
    for name in ("search", "expert"):
        g, s, cpu = run(4, [name, "banker", "briber", "killer"], 600, 505)
        m = s.filter(pl.col("lineup") == 0)
        yield {
            "cell": "vs banker, briber, killer",
            "strategy": name,
            "games": g.height,
            "win": share_ci(m["win"]),
            "cpu_s": round(cpu, 1),
        }


def cell_ladder():
    for a, b in (("greedy", "random"), ("heuristic", "greedy"), ("expert", "heuristic")):
        g, s, _ = run(2, [a, b], 4000, 404)
        yield {
            "cell": "ladder",
            "a": a,
            "b": b,
            "games": g.height,
            "win_a": share_ci(s.filter(pl.col("lineup") == 0)["win"]),
        }


def cell_cost():
    games = {1: 200, 2: 100, 3: 60, 4: 40}
    for players in (1, 2, 3, 4):
        seats = ["search"] + ["expert"] * (players - 1)
        run(players, seats, 2, 1, threads=1)  # warm
        g, s, cpu = run(players, seats, games[players], 606, threads=1)
        decisions = g["turns"].sum() / players  # the search seat's night actions
        yield {
            "cell": "cost",
            "players": players,
            "games": g.height,
            "cpu_ms_per_game": round(1000 * cpu / g.height, 2),
            "cpu_ms_per_decision": round(1000 * cpu / decisions, 3),
        }


BUDGET_ARMS = (  # (candidates, determinizations, rollouts): 256 rollouts per decision each
    (4, 64, 1),
    (4, 32, 2),
    (4, 16, 4),
    (2, 128, 1),
    (8, 32, 1),
)


def cell_budget():
    base = None
    for nc, nd, nr in BUDGET_ARMS:
        params = {"candidates": nc, "determinizations": nd, "rollouts": nr, "budget": 256}
        params.update(placement=0, method=0)  # measured before either existed
        g, s, cpu = run(1, [{"strategy": "search", "params": params}], 400, 101)
        s = s.sort("game_id")
        x = (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float)
        if base is None:
            base = x
        yield {
            "cell": "budget",
            "candidates": nc,
            "determinizations": nd,
            "rollouts": nr,
            "games": len(x),
            "mean_lost_as_0": mean_ci(x),
            "minus_default": mean_ci(x - base) if x is not base else None,
            "cpu_s": round(cpu, 1),
        }


def cell_wide():
    dmc = {"placement": 0, "method": 0}  # measured before either existed
    wide = {"strategy": "search", "params": {"candidates": 8, "determinizations": 32, **dmc}}
    g, s, cpu = run(2, [wide, {"strategy": "search", "params": dmc}], 600, 707)
    m = s.filter(pl.col("lineup") == 0)
    yield {
        "cell": "8 x 32 vs default search",
        "games": g.height,
        "win": share_ci(m["win"]),
        "margin": mean_ci(m["score"].to_numpy() - s.filter(pl.col("lineup") == 1)["score"].to_numpy()),
        "cpu_s": round(cpu, 1),
    }


def cell_selfcost():
    games = {2: 60, 3: 40, 4: 30}
    run(2, ["search", "search"], 2, 1, threads=1)  # warm
    for players in (2, 3, 4):
        g, s, cpu = run(players, ["search"] * players, games[players], 606, threads=1)
        yield {
            "cell": "self-play cost",
            "players": players,
            "games": g.height,
            "cpu_s_per_game": round(cpu / g.height, 3),
        }


def cell_brexpert():
    br = {
        "strategy": "heuristic",
        "params_file": "configs/bloody_inn/strategies/best-response-search-2p.toml",
    }
    g, s, cpu = run(2, [br, "expert"], 40000, 16999)
    s = s.join(g.select("game_id", "n_winners"), on="game_id")
    share = pl.when(pl.col("win") != 0).then(1.0 / pl.col("n_winners")).otherwise(0.0)
    w = s.filter(pl.col("lineup") == 0).select(share)[:, 0]
    yield {
        "cell": "best response to search vs expert",
        "games": g.height,
        "win": share_ci(w),
        "cpu_s": round(cpu, 1),
    }


def cell_place():
    """Search at placement (BI-E1) on and off, and the same extra CPU spent on more samples
    of the night actions instead: solo on the same 2,000 deals (paired differences from
    placement off), then placement on against off heads-up."""
    arms = (
        ("placement off", {"placement": 0, "method": 0}),
        ("placement on", {"placement": 1, "method": 0}),
        (
            "placement off, 96 samples (budget 384)",
            {"placement": 0, "method": 0, "determinizations": 96, "budget": 384},
        ),
    )
    base = None
    for name, params in arms:
        g, s, cpu = run(1, [{"strategy": "search", "params": params}], 2000, 11)
        s = s.sort("game_id")
        x = (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float)
        if base is None:
            base = x
        yield {
            "cell": "placement, solo",
            "arm": name,
            "games": len(x),
            "mean_lost_as_0": mean_ci(x),
            "minus_off": mean_ci(x - base) if x is not base else None,
            "cpu_s": round(cpu, 1),
        }
    on = {"strategy": "search", "params": {"placement": 1, "method": 0}}
    off = {"strategy": "search", "params": {"placement": 0, "method": 0}}
    g, s, cpu = run(2, [on, off], 1000, 12)
    m = s.filter(pl.col("lineup") == 0)
    yield {
        "cell": "placement on vs off, heads-up",
        "games": g.height,
        "win": share_ci(m["win"]),
        "margin": mean_ci(m["score"].to_numpy() - s.filter(pl.col("lineup") == 1)["score"].to_numpy()),
        "cpu_s": round(cpu, 1),
    }


def cell_s64():
    """The players of the 20,000-game first-player runs (search64-self-*.toml: 4 candidates x
    16 samples, the heuristic places) against ``expert`` and against the default ``search``,
    heads-up, 1,000 games each, seats rotated."""
    s64 = {
        "strategy": "search",
        "params": {"determinizations": 16, "budget": 64, "placement": 0, "method": 0},
    }
    for other in ("expert", "search"):
        g, s, cpu = run(2, [s64, other], 1000, 808)
        m = s.filter(pl.col("lineup") == 0)
        yield {
            "cell": "search64 heads-up",
            "against": other,
            "games": g.height,
            "win": share_ci(m["win"]),
            "cpu_s": round(cpu, 1),
        }


CELLS = {
    "s64": cell_s64,
    "place": cell_place,
    "solo": cell_solo,
    "hu": cell_hu,
    "4p": cell_4p,
    "field": cell_field,
    "ladder": cell_ladder,
    "cost": cell_cost,
    "budget": cell_budget,
    "wide": cell_wide,
    "selfcost": cell_selfcost,
    "brexpert": cell_brexpert,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cells", nargs="+", choices=list(CELLS))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    for c in a.cells:
        for rec in CELLS[c]():
            line = json.dumps(rec)
            print(line, flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
