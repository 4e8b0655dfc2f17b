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
  ``sim run configs/bloody_inn/strategies/search-self-{3,4}p.toml`` (chunked, resumable);
- ``profile``: where a decision's CPU goes, by taking parts away (1 thread, solo and heads-up
  against ``expert``): placement search off, rollouts cut to one round, DMC instead of ISMCTS,
  no search at all;
- ``curve``: the strength-CPU curve: each arm of ``CURVE_ARMS`` solo on the same
  ``--solo-games`` deals and heads-up against ``expert`` (``--hu-games``), with its CPU per game;
  ``curve_reuse``: the same for ``REUSE_ARMS`` (the default with tree reuse at 8-128 samples);
- ``vsold``: the default ``search`` against the pinned default (``OLD_DEFAULT``) heads-up,
  ``--hu-games`` (4,000 for the target), seats rotated; ``rung``: the same for ``RUNG``;
- ``common``: ``common_samples`` on and off at 8-64 samples (solo on the same
  ``--solo-games`` deals, heads-up on duplicate deals), and at 24 samples against the old default;
- ``pairing``: how much comparing root actions on the same samples can gain: at 200 decisions
  each (solo, heads-up against ``expert``), every root candidate played to the end on samples
  0-63 (``expert`` rollouts), the correlation of the two best candidates' outcomes over those
  samples and the variance of their paired difference over the sum of their variances;
- ``gap``: the default with ``gap`` 5 / 10 / 20 (candidates searched within that many francs of
  the heuristic's best; default 30) against the default heads-up on duplicate deals
  (``--hu-games`` / 4 each, seed 7101), ``gap`` 20 against it on ``--hu-games`` (seed 7201), solo
  paired on the same ``--solo-games`` deals, and the CPU a game of each, one thread, 3 rounds
  interleaved (solo and against ``expert``, 150 games each).

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
from kernels.bloody_inn.search_params import SEARCH_PARAMS
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


def solo_scores(seat, games, seed, threads=2):
    """Solo scores (a lost game counts 0, BI-X3) in game order, so two arms on the same seed
    pair deal by deal, and the CPU seconds."""
    _, s, cpu = run(1, [seat], games, seed, threads)
    s = s.sort("game_id")
    return (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float), cpu


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
        x, cpu = solo_scores({"strategy": "search", "params": params}, 400, 101)
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
        x, cpu = solo_scores({"strategy": "search", "params": params}, 2000, 11)
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


#: the default pinned (ISMCTS depth 2, placement search, rollouts to the end), to compare others with
OLD_DEFAULT = {
    "candidates": 4,
    "determinizations": 64,
    "budget": 256,
    "rollout_rounds": 0,
    "method": 1,
    "placement": 1,
    "tree_depth": 2,
    "tree_reuse": 0,
    "common_samples": 0,
}
#: the default since the search reuses its tree between a seat's night actions
REUSE_DEFAULT = {**OLD_DEFAULT, "tree_reuse": 1}
#: the strength-CPU curve of the default with reuse: samples (and the budget, 4 a sample)
REUSE_ARMS = tuple(
    (f"reuse, {d} samples", {**REUSE_DEFAULT, "determinizations": d, "budget": 4 * d})
    for d in (8, 16, 32, 64, 80, 128)
)
#: the strength-CPU curve's arms: (name, search params)
CURVE_ARMS = (
    ("old default (to the end)", OLD_DEFAULT),
    ("old default, 16 samples", {**OLD_DEFAULT, "determinizations": 16, "budget": 64}),
    ("old default, 32 samples", {**OLD_DEFAULT, "determinizations": 32, "budget": 128}),
)
#: the value function at the rollouts' horizon (``value = 1``), where the kernel has it
VALUE_ARMS = (
    ("value, 1 round, 64 samples", {**OLD_DEFAULT, "rollout_rounds": 1, "value": 1}),
    ("value, 2 rounds, 64 samples", {**OLD_DEFAULT, "rollout_rounds": 2, "value": 1}),
    ("value, 1 round, 32 samples", {**OLD_DEFAULT, "rollout_rounds": 1, "value": 1, "determinizations": 32}),
    ("value, 2 rounds, 32 samples", {**OLD_DEFAULT, "rollout_rounds": 2, "value": 1, "determinizations": 32}),
    (
        "value, 3 rounds, 128 samples",
        {**OLD_DEFAULT, "rollout_rounds": 3, "value": 1, "determinizations": 128, "budget": 512},
    ),
)
if "value" in {n for n, _, _ in SEARCH_PARAMS}:
    CURVE_ARMS += VALUE_ARMS
#: a rung above the old default at twice its CPU (128 samples, rollouts to the end)
RUNG = {**OLD_DEFAULT, "determinizations": 128, "budget": 512}
SIZES = {"solo_games": 400, "hu_games": 400, "arms": None}


def _search(params):
    return {"strategy": "search", "params": params}


def _arms(arms=None):
    """The arms of ``arms`` (default ``CURVE_ARMS``) that ``--arms`` selects."""
    want = SIZES["arms"]
    return [a for i, a in enumerate(CURVE_ARMS if arms is None else arms) if want is None or i in want]


def cell_profile():
    arms = (
        ("default", {}),
        ("placement off", {"placement": 0}),
        ("placement off, rollouts 1 round", {"placement": 0, "rollout_rounds": 1}),
        ("placement off, DMC", {"placement": 0, "method": 0}),
        ("placement off, DMC, rollouts 1 round", {"placement": 0, "method": 0, "rollout_rounds": 1}),
        ("no search (1 candidate)", {"candidates": 1}),
    )
    for players, games in ((1, 40), (2, 24)):
        seats = [_search(OLD_DEFAULT)] + ["expert"] * (players - 1)
        run(players, seats, 2, 1, threads=1)  # warm
        for name, extra in arms:
            seats = [_search({**OLD_DEFAULT, **extra})] + ["expert"] * (players - 1)
            g, s, cpu = run(players, seats, games, 606, threads=1)
            decisions = g["turns"].sum() / players
            yield {
                "cell": "profile",
                "players": players,
                "arm": name,
                "games": g.height,
                "cpu_ms_per_game": round(1000 * cpu / g.height, 2),
                "cpu_ms_per_decision": round(1000 * cpu / decisions, 3),
            }


def cell_curve(arms=None):
    run(1, [_search(REUSE_DEFAULT)], 2, 1)  # load the kernels before any CPU is counted
    run(2, [_search(REUSE_DEFAULT), "expert"], 2, 1)
    for name, params in _arms(arms):
        g, s, cpu = run(1, [_search(params)], SIZES["solo_games"], 101)
        x = (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float)
        g2, s2, cpu2 = run(2, [_search(params), "expert"], SIZES["hu_games"], 202)
        m = s2.filter(pl.col("lineup") == 0)
        yield {
            "cell": "curve",
            "arm": name,
            "params": params,
            "solo_games": len(x),
            "solo_mean_lost_as_0": mean_ci(x),
            "solo_cpu_ms_per_game": round(1000 * cpu / len(x), 2),
            "hu_games": g2.height,
            "hu_win_vs_expert": share_ci(m["win"]),
            "hu_cpu_ms_per_game": round(1000 * cpu2 / g2.height, 2),
        }


def _vs_old(params, label):
    g, s, cpu = run(2, [_search(params), _search(OLD_DEFAULT)], SIZES["hu_games"], 909)
    s = s.join(g.select("game_id", "n_winners"), on="game_id")
    share = pl.when(pl.col("win") != 0).then(1.0 / pl.col("n_winners")).otherwise(0.0)
    m = s.filter(pl.col("lineup") == 0).select(share)[:, 0]
    mine = s.filter(pl.col("lineup") == 0)["score"].to_numpy()
    old = s.filter(pl.col("lineup") == 1)["score"].to_numpy()
    yield {
        "cell": label,
        "params": params,
        "games": g.height,
        "win_share": share_ci(m),
        "margin": mean_ci(mine - old),
        "cpu_s": round(cpu, 1),
    }


def cell_vsold():
    yield from _vs_old({}, "default vs old default")


def cell_rung():
    yield from _vs_old(RUNG, "rung vs old default")


def cell_curve_reuse():
    yield from cell_curve(REUSE_ARMS)


def _duplicate_share(seats, games, seed):
    """Heads-up on duplicate deals (each deal played from both seats): the first seat's win
    share (ties split) paired over the deals, and the CPU seconds."""
    cfg = {
        "game": "bloody_inn",
        "players": 2,
        "games": games,
        "seed": seed,
        "rotate": "duplicate",
        "rules": {"length": "long", "check_invariants": True},
        "seats": seats,
    }
    t = time.process_time()
    r = api.simulate(cfg, threads=2)
    cpu = time.process_time() - t
    s = pl.from_arrow(r.seats).filter(pl.col("lineup") == 0)
    per_deal = s.group_by(pl.col("game_id") // 2).agg(pl.col("win").mean())["win"]
    return mean_ci(per_deal.to_numpy()), round(cpu, 1)


def _samples_arm(d, common):
    return {**REUSE_DEFAULT, "determinizations": d, "budget": 4 * d, "common_samples": common}


def cell_common():
    """``common_samples``: solo paired on the same 1,000 deals at 8-64 samples, heads-up
    against the same player without it on duplicate deals, and a third of the old default's
    CPU (24 samples) against the old default, with and without it, and with common samples
    and one other setting changed (exploration, candidates, depth, placement off)."""
    run(1, [_search(_samples_arm(8, 1))], 2, 1)  # load the kernels before any CPU is counted
    for d in (8, 16, 32, 64):
        x = {}
        for c in (0, 1):
            x[c], cpu = solo_scores(_search(_samples_arm(d, c)), SIZES["solo_games"], 101)
            yield {
                "cell": "common solo",
                "samples": d,
                "common": c,
                "mean": mean_ci(x[c]),
                "cpu_ms": round(1000 * cpu / len(x[c]), 2),
            }
        yield {"cell": "common solo", "samples": d, "common minus own": mean_ci(x[1] - x[0])}
    for d, games, seed in ((8, 2000, 5103), (16, 4000, 5101), (64, 2000, 5102)):
        share, cpu = _duplicate_share([_search(_samples_arm(d, 1)), _search(_samples_arm(d, 0))], games, seed)
        yield {"cell": "common vs own", "samples": d, "games": games, "share": share, "cpu_s": cpu}
    screen = (
        {"exploration": 0.4},
        {"exploration": 1.2},
        {"candidates": 3},
        {"candidates": 5},
        {"tree_depth": 3},
        {"tree_depth": 1},
        {"placement": 0, "determinizations": 32, "budget": 128},
    )
    for c, extra in ((1, {}), (0, {}), *((1, x) for x in screen)):
        arm = {**_samples_arm(24, c), **extra}
        share, cpu = _duplicate_share([_search(arm), _search(OLD_DEFAULT)], 1000, 6101)
        yield {"cell": "common vs old default", "params": arm, "games": 1000, "share": share, "cpu_s": cpu}


def _decision_states(players, n, seed):
    """Up to ``n`` states just before a night action of seat 0 (``search``; the other seat
    ``expert``), one a game: game ``gid`` is played by the heuristic to that seat's
    ``1 + gid % 12``-th night action (``play_to_seat``)."""
    from kernels.bloody_inn import layout as L
    from kernels.bloody_inn.rollout import NO_STOP, play_to_seat
    from kernels.bloody_inn.setup import setup_game
    from kernels.bloody_inn.strategies import HEURISTIC, SEARCH
    from kernels.rng import stream_key
    from sim.games.bloody_inn.adapter import ADAPTER

    seats = [_search({})] + [{"strategy": "expert"}] * (players - 1)
    cfg = {"game": "bloody_inn", "players": players, "games": 1, "seed": seed, "seats": seats}
    cfg["rules"] = {"length": "long"}
    tmpl, pr, _, _ = ADAPTER.build_template(api.resolve(cfg), events=False)
    for gid in range(n):
        st = np.zeros(L.STATE_END + L.SEARCH_SCRATCH, dtype=np.int64)
        st[: L.STATE_END] = tmpl
        st[L.G_SEARCH_AT] = L.STATE_END
        st[L.G_ROTATE] = 0
        st[L.G_GAME_ID] = gid
        st[L.G_RNG] = stream_key(seed, gid)
        q = pr.copy()
        setup_game(st)
        st[L.P_STRAT] = HEURISTIC  # the way there is the heuristic's (no search to reach it)
        if all(play_to_seat(st, q, 0, NO_STOP) for _ in range(1 + gid % 12)):
            st[L.P_STRAT] = SEARCH
            yield st, q


def cell_pairing():
    """How much common samples can gain at the root: the two best candidates' outcomes over
    the same 64 samples, their correlation and the variance factor of their paired difference
    (1 - rho for equal variances; 1: no gain over independent samples), solo and heads-up."""
    from kernels.bloody_inn.strat_search import root_outcomes

    for players in (1, 2):
        rho, factor, z = [], [], []
        for st, pr in _decision_states(players, 200, 21):
            _, x = root_outcomes(st, pr, 0, 64)
            if len(x) < 2:
                continue
            a, b = x[np.argsort(-x.mean(axis=1))[:2]]
            if a.std() == 0 or b.std() == 0:
                continue
            rho.append(np.corrcoef(a, b)[0, 1])
            factor.append(np.var(a - b) / (np.var(a) + np.var(b)))
            z.append(abs(a.mean() - b.mean()) / math.sqrt((np.var(a) + np.var(b)) / 64))
        yield {
            "cell": "pairing",
            "players": players,
            "decisions": len(rho),
            "rho": {
                "median": round(float(np.median(rho)), 3),
                "quartiles": np.percentile(rho, [25, 75]).round(3).tolist(),
            },
            "paired variance factor": {"mean": mean_ci(factor), "median": round(float(np.median(factor)), 3)},
            "gap of the two best in standard errors (independent), median": round(float(np.median(z)), 2),
        }


def cell_gap():
    """``gap``: fewer candidates searched, strength and CPU against the default."""
    default = _samples_arm(64, 1)  # the default: reuse, common samples, gap 30
    arms = {g: {**default, "gap": g} for g in (5, 10, 20)}
    run(1, [_search(default)], 2, 1, threads=1)
    for g, arm in arms.items():
        share, cpu = _duplicate_share([_search(arm), _search(default)], max(2, SIZES["hu_games"] // 4), 7101)
        yield {"cell": "gap vs default", "gap": g, "share": share, "cpu_s": cpu}
    share, cpu = _duplicate_share([_search(arms[20]), _search(default)], SIZES["hu_games"], 7201)
    yield {"cell": "gap vs default", "gap": 20, "games": SIZES["hu_games"], "share": share, "cpu_s": cpu}
    x = {}
    for g, arm in ((30, default), (20, arms[20])):
        x[g], _ = solo_scores(_search(arm), SIZES["solo_games"], 101)
        yield {"cell": "gap solo", "gap": g, "mean": mean_ci(x[g])}
    yield {"cell": "gap solo", "gap 20 minus 30": mean_ci(x[20] - x[30])}
    cpu = {g: {"solo": [], "vs expert": []} for g in (30, 20, 10)}
    for _ in range(3):
        for g, arm in ((30, default), (20, arms[20]), (10, arms[10])):
            cpu[g]["solo"].append(round(1000 * solo_scores(_search(arm), 150, 101, threads=1)[1] / 150, 1))
            cpu[g]["vs expert"].append(
                round(1000 * run(2, [_search(arm), "expert"], 150, 202, threads=1)[2] / 150, 1)
            )
    yield {"cell": "gap cpu ms a game, one thread", "rounds": cpu}


CELLS.update(
    gap=cell_gap,
    pairing=cell_pairing,
    profile=cell_profile,
    curve=cell_curve,
    curve_reuse=cell_curve_reuse,
    vsold=cell_vsold,
    rung=cell_rung,
    common=cell_common,
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cells", nargs="+", choices=list(CELLS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--solo-games", type=int, default=SIZES["solo_games"])
    ap.add_argument("--hu-games", type=int, default=SIZES["hu_games"])
    ap.add_argument("--arms", default=None, help="indices of CURVE_ARMS, comma-separated (default: all)")
    a = ap.parse_args()
    SIZES.update(solo_games=a.solo_games, hu_games=a.hu_games)
    if a.arms:
        SIZES["arms"] = {int(i) for i in a.arms.split(",")}
    for c in a.cells:
        for rec in CELLS[c]():
            line = json.dumps(rec)
            print(line, flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
