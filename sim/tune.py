"""Strategy tuning by simulation: the cross-entropy method with common random numbers.

``tune(config, strategy, against)`` searches a strategy's parameter vector for the values
that do best in the run config's setting (its players, rules and cards):

1. a Gaussian over the parameters starts at the strategy's defaults (or a ``start`` file),
   with a standard deviation of ``sigma`` x the width of each parameter's search range;
2. each generation draws ``population - 1`` candidates from it (clipped to the ranges)
   plus its mean, and plays every candidate on the **same games** (same seed, so the same
   deals: common random numbers) with the candidate at lineup entry 0 and the ``against``
   strategies at the other entries, seats rotating game by game;
3. the best ``elite`` share of the candidates moves the mean and the spread (smoothed);
4. at the end the final mean and each generation's best are replayed on fresh games
   (``validation_games``, another seed) and the best of them is returned and written.

The objective is the candidate's win share (shared wins count 1/k), or with one player
its mean score with a lost solo game (BI-X2) counted as 0.  Everything is seeded: the
same arguments give the same candidates, the same games and the same result, whatever the
number of threads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from . import api, registry, toml_writer
from .config import load_toml
from .errors import ConfigError
from .intervals import Z95, wilson

OBJECTIVES = ("auto", "win", "score")


@dataclass
class Evaluation:
    """One candidate played on ``games`` games."""

    value: float
    lo: float
    hi: float
    games: int
    win: float
    score: float


@dataclass
class Generation:
    index: int
    seed: int
    best: Evaluation
    best_params: dict
    mean_eval: Evaluation
    mean_params: dict
    sigma: dict


@dataclass
class TuneResult:
    strategy: str
    params: dict
    validation: Evaluation
    start_validation: Evaluation
    history: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)


def _bounds(game, strategy, names, defaults):
    """Search range of each parameter: the adapter's ``tuning_bounds`` where it gives one,
    else the default +- (2 |default| + 1)."""
    table = registry.get_adapter(game).tuning_bounds(strategy)
    lo, hi = [], []
    for n, d in zip(names, defaults):
        if n in table:
            a, b = table[n]
        else:
            a, b = d - 2 * abs(d) - 1, d + 2 * abs(d) + 1
        lo.append(float(a))
        hi.append(float(b))
    return np.array(lo), np.array(hi)


def load_params(path):
    """The ``[params]`` table of a TOML file written by ``tune`` (or by hand)."""
    data = load_toml(path)
    params = data.get("params")
    if not isinstance(params, dict):
        raise ConfigError("params", params, f"a [params] table in {path}")
    return data.get("strategy"), params


class _Evaluator:
    """Plays a candidate's games with the run config's rules and the fixed opponents."""

    def __init__(self, raw, resolved, strategy, against, objective):
        self.raw = raw
        self.players = resolved["players"]
        self.objective = objective
        adapter = registry.get_adapter(resolved["game"])
        known = {s["name"] for s in adapter.strategies()}
        for name in [strategy, *against]:
            if name not in known:
                raise ConfigError("strategy", name, " | ".join(sorted(known)))
        if self.players == 1:
            if against:
                raise ConfigError("--against", ",".join(against), "no opponents with 1 player")
            self.lineup = [strategy]
        else:
            if not against:
                raise ConfigError("--against", "(none)", "at least one opponent strategy")
            if len(against) > self.players - 1:
                raise ConfigError(
                    "--against",
                    ",".join(against),
                    f"at most {self.players - 1} opponent strategies with {self.players} players",
                )
            # one lineup entry per seat, rotating: the candidate plays every seat in turn
            self.lineup = [strategy] + [against[i % len(against)] for i in range(self.players - 1)]

    def run(self, params, seed, games):
        raw = dict(self.raw)
        raw.update(seed=int(seed), games=int(games), rotate=True)
        raw["seats"] = [{"strategy": self.lineup[0], "params": dict(params)}] + [
            {"strategy": name} for name in self.lineup[1:]
        ]
        resolved = api.resolve(raw)
        mine = api.play_range(resolved, 0, games).seats
        mine = mine.filter(pc.equal(mine.column("lineup"), 0))
        n = mine.num_rows
        win = pc.sum(mine.column("win")).as_py() or 0.0
        score = mine.column("score")
        if "solo_lost" in mine.column_names:  # a lost solo game scores 0 (BI-X2)
            score = pc.if_else(pc.equal(mine.column("solo_lost"), 1), 0, score)
        scores = np.asarray(score.to_numpy(zero_copy_only=False), dtype=np.float64)
        mean_score = float(scores.mean()) if n else 0.0
        if self.objective == "win":
            lo, hi = wilson(win, n)
            return Evaluation(win / n, lo, hi, n, win / n, mean_score)
        sd = float(scores.std(ddof=1)) if n > 1 else 0.0
        half = Z95 * sd / math.sqrt(n) if n else 0.0
        return Evaluation(mean_score, mean_score - half, mean_score + half, n, win / n, mean_score)


def tune(
    config,
    strategy,
    against,
    *,
    generations=8,
    population=12,
    games=2000,
    elite=0.25,
    sigma=0.25,
    smoothing=0.7,
    seed=0,
    start=None,
    objective="auto",
    validation_games=None,
    only=None,
    threads=None,
    report=None,
):
    """Search ``strategy``'s parameters; return a ``TuneResult``.

    Parameters
    ----------
    config : path or dict
        A run config: players, rules and card edits are taken from it (its seats, games
        and seed are not used).
    strategy : str
        The strategy whose parameters are tuned (its defaults are the starting mean).
    against : list of str
        Opponent strategies for the other lineup entries (cycled to fill the seats).
    generations, population, games : int
        Generations, candidates per generation (the mean included) and games per candidate.
    elite : float
        Share of a generation's candidates that moves the search distribution.
    sigma : float
        Initial standard deviation as a share of each parameter's range.
    smoothing : float
        Weight of the elites in the update of the mean and the spread.
    seed : int
        Seeds the candidate draws and the games (generation g plays seed * 1000 + g).
    start : path, optional
        A TOML with a ``[params]`` table to start from instead of the defaults.
    objective : {"auto", "win", "score"}
        ``auto``: win share, or the mean score with one player.
    validation_games : int, optional
        Games for the final comparison (default: 4 x ``games``).
    only : list of str, optional
        Tune only these parameters (the others stay at the start values).
    threads : int, optional
        Numba threads; results do not depend on it.
    report : callable, optional
        Called with each ``Generation`` as it completes.
    """
    if objective not in OBJECTIVES:
        raise ConfigError("--objective", objective, " | ".join(OBJECTIVES))
    for key, value, lo in (
        ("--generations", generations, 1),
        ("--population", population, 3),
        ("--games", games, 10),
    ):
        if not isinstance(value, int) or value < lo:
            raise ConfigError(key, value, f"an integer >= {lo}")
    if not 0 < elite < 1:
        raise ConfigError("--elite", elite, "a share between 0 and 1")
    raw = _load_raw(config)
    resolved = api.resolve(raw)
    api.set_threads(threads)
    if objective == "auto":
        objective = "score" if resolved["players"] == 1 else "win"
    ev = _Evaluator(raw, resolved, strategy, list(against), objective)
    adapter = registry.get_adapter(resolved["game"])
    spec = next(s for s in adapter.strategies() if s["name"] == strategy)
    names = list(spec["params"])
    if not names:
        raise ConfigError("--strategy", strategy, "a strategy with parameters")
    x0 = np.array([float(spec["params"][n]) for n in names])
    if start is not None:
        _, sp = load_params(start)
        for k, v in sp.items():
            if k not in names:
                raise ConfigError(f"params.{k}", v, "one of " + ", ".join(names))
            x0[names.index(k)] = float(v)
    lo, hi = _bounds(resolved["game"], strategy, names, x0)
    x0 = np.clip(x0, lo, hi)
    whole_of = getattr(registry.get_adapter(resolved["game"]), "whole_params", lambda s: set())
    whole_names = whole_of(strategy)  # counts and switches
    whole = np.array([n in whole_names for n in names])

    def rounded(x):
        return np.where(whole, np.round(x), np.round(x, 4))

    free = np.ones(len(names), dtype=bool)
    if only:
        for k in only:
            if k not in names:
                raise ConfigError("--only", k, "one of " + ", ".join(names))
        free = np.array([n in only for n in names])
    rng = np.random.default_rng(seed)
    mean = x0.copy()
    sd = sigma * (hi - lo) * free
    floor = 0.02 * (hi - lo) * free
    n_elite = max(2, int(round(elite * population)))
    history = []
    finalists = []
    as_dict = lambda x: {n: float(round(v, 4)) for n, v in zip(names, x)}  # noqa: E731
    for g in range(generations):
        gseed = seed * 1000 + g
        cands = [mean.copy()]
        for _ in range(population - 1):
            cands.append(np.clip(mean + sd * rng.standard_normal(len(names)), lo, hi))
        cands = [rounded(c) for c in cands]
        evals = [ev.run(as_dict(c), gseed, games) for c in cands]
        order = sorted(range(len(cands)), key=lambda i: -evals[i].value)
        elites = np.array([cands[i] for i in order[:n_elite]])
        best = order[0]
        gen = Generation(
            g + 1, gseed, evals[best], as_dict(cands[best]), evals[0], as_dict(mean), as_dict(sd)
        )
        history.append(gen)
        finalists.append(cands[best])
        if report:
            report(gen)
        mean = smoothing * elites.mean(axis=0) + (1 - smoothing) * mean
        sd = np.maximum(smoothing * elites.std(axis=0) + (1 - smoothing) * sd, floor)
        mean = np.where(free, mean, x0)
    finalists.append(rounded(mean))
    vgames = validation_games or 4 * games
    vseed = seed * 1000 + 999
    scored = [(ev.run(as_dict(c), vseed, vgames), c) for c in finalists]
    best_eval, best_x = max(scored, key=lambda t: t[0].value)
    start_eval = ev.run(as_dict(x0), vseed, vgames)
    settings = {
        "game": resolved["game"],
        "players": resolved["players"],
        "against": list(against),
        "lineup": ev.lineup,
        "objective": objective,
        "generations": generations,
        "population": population,
        "games_per_candidate": games,
        "elite": elite,
        "sigma": sigma,
        "smoothing": smoothing,
        "seed": seed,
        "validation_games": vgames,
        "validation_seed": vseed,
        "start": str(start) if start else "defaults",
        "only": list(only) if only else [],
        "rules": dict(raw.get("rules", {})),
    }
    return TuneResult(strategy, as_dict(best_x), best_eval, start_eval, history, settings)


def _load_raw(config):
    if isinstance(config, dict):
        return dict(config)
    return load_toml(config)


# --- writing the result ------------------------------------------------------------


def to_toml(result, *, command=None, note=None):
    """The result as TOML text: ``strategy``, ``[params]`` (what a config's seat can name
    with ``params_file``) and ``[tune]`` (how the values were found)."""
    header = [
        "Parameters found by `sim tune` (cross-entropy method, common random numbers).",
        'A run config uses them with: [[seats]] strategy = "%s" and '
        'params_file = "<this file>".' % result.strategy,
        *(note.splitlines() if note else []),
    ]

    def ev(e):
        return {"value": e.value, "lo": e.lo, "hi": e.hi, "games": e.games, "win": e.win, "score": e.score}

    tune = {"command": command} if command else {}
    tune.update(result.settings)
    tune["validation"] = ev(result.validation)
    tune["start_validation"] = ev(result.start_validation)
    tune["generation"] = [
        {
            "index": gen.index,
            "seed": gen.seed,
            "best": gen.best.value,
            "best_ci": [gen.best.lo, gen.best.hi],
            "mean": gen.mean_eval.value,
            "mean_ci": [gen.mean_eval.lo, gen.mean_eval.hi],
            "best_params": gen.best_params,
        }
        for gen in result.history
    ]
    doc = {
        "strategy": result.strategy,
        "params": {k: float(v) for k, v in result.params.items()},
        "tune": tune,
    }
    return toml_writer.dumps(doc, header=header, float_digits=6)


def write(result, path, **kw):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_toml(result, **kw))
    return path
