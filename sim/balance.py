"""``sim balance``: search the smallest rule edits that meet a spec's targets, by racing on
common deals, and confirm them on fresh deals with the strong player.

The loop (``docs/balance.md``):

1. The **optimiser** (Optuna TPE or NSGA-II, Nevergrad NGOpt, or uniform random as a
   baseline) proposes a batch of candidates, each a value per edit of the spec.
2. **Racing** plays the batch rung by rung.  At every rung every candidate plays the *same*
   game ids of the same seed as every other candidate and as the incumbent (the best fully
   played candidate so far, the official rules at the start): common deals, so candidates
   differ by their edits, not by their luck.  After a rung, a candidate whose loss interval
   lies wholly above the incumbent's at that rung is dropped (a sequential test), and only the
   best ``keep`` share goes on (successive halving) to play more games.  A candidate's value,
   at the last rung it reached, goes back to the optimiser.
3. **Minimality**: every change costs ``search.change_cost`` in the value the single-objective
   optimisers see (NSGA-II sees the number of changes as a second objective), and each new
   incumbent's one-change-fewer variants are queued, so an edit that does not help is tried
   without.  The **front** is, for each number of changes, the best fully played candidate
   that beats every candidate with fewer changes.
4. **Confirmation**: every front point and the official rules play ``confirm.games`` fresh
   games per player count (a seed the search never played) with the confirm strategy; an
   edit meets a target only when its 95% interval lies inside it.

Every played block of games is appended to ``blocks.jsonl`` in the output folder as soon as
it is played; ``--resume`` replays the search from the start with that cache, so the
optimiser sees the same values in the same order and the front is the one an uninterrupted
search gives.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import api
from . import balance_metrics as bm
from .balance_spec import run_config
from .errors import ConfigError, SimError

BLOCKS = "blocks.jsonl"
STATE = "state.json"
BALANCE_FORMAT = "boardsim-balance"
#: the loss of a candidate the game refuses (told to the optimiser)
INVALID = 1e3


class BalanceInterrupted(KeyboardInterrupt):
    """Ctrl-C during a search: what was played is kept; the message says how to resume."""


# --- the cache of played blocks -------------------------------------------------------------


class Store:
    """Played blocks of games, keyed by (candidate, experiment, seed, start, count), appended
    to ``blocks.jsonl`` line by line (a line cut by a kill is ignored on resume)."""

    def __init__(self, out, resume):
        self.path = Path(out) / BLOCKS if out is not None else None
        self.blocks = {}
        self.order = []
        if self.path is not None and resume and self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                k = (rec["cand"], rec["exp"], rec["seed"], rec["start"], rec["count"])
                self.blocks[k] = rec
        self.fh = None
        self.reused = 0

    def get(self, key):
        rec = self.blocks.get(key)
        if rec is not None:
            self.reused += 1
        return rec

    def put(self, key, rec):
        self.blocks[key] = rec
        if self.path is not None:
            if self.fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.fh = open(self.path, "a", encoding="utf-8")
            self.fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            self.fh.flush()

    def close(self):
        if self.fh is not None:
            self.fh.close()
            self.fh = None


# --- players: where blocks are played -------------------------------------------------------


def _exp_id(exp):
    return json.dumps(exp, separators=(",", ":"))


class LocalPlayer:
    """Plays blocks one after the other in this process (all Numba threads on each)."""

    name = "local"

    def play(self, spec, tasks):
        return [bm.play_block(spec, cand, exp, start, count, seed) for cand, exp, start, count, seed in tasks]


def _ray_block(spec, cand, exp, start, count, seed, adapters):
    import numba

    from . import registry
    from .backends.ray import code_fingerprint

    for name, module in adapters.items():  # games the driver registered at run time
        registry.register(name, module)
    numba.set_num_threads(1)
    return bm.play_block(spec, cand, tuple(exp), start, count, seed), code_fingerprint(spec.game)


class RayPlayer:
    """Plays the blocks of a rung as Ray tasks (one CPU each), results in task order."""

    name = "ray"

    def __init__(self):
        from .backends import load
        from .backends.ray import _connect, code_fingerprint

        load("ray")
        self.ray = _connect()
        self.remote = self.ray.remote(num_cpus=1)(_ray_block)
        self.code = None
        self.fingerprint = code_fingerprint

    def play(self, spec, tasks):
        if self.code is None:
            self.code = self.fingerprint(spec.game)
        from . import registry

        spec_ref = self.ray.put(spec)
        adapters = {spec.game: registry.adapter_module(spec.game)}
        refs = [self.remote.remote(spec_ref, c, e, s, n, seed, adapters) for c, e, s, n, seed in tasks]
        out = []
        for stats, code in self.ray.get(refs):
            if code != self.code:
                raise SimError(
                    f"a Ray worker runs other code than this process ({code} != {self.code}); "
                    "install the same boardsim on every node"
                )
            out.append(stats)
        return out


# --- optimisers -----------------------------------------------------------------------------


class _Optimiser:
    """ask() -> {edit label: value}; tell(cand, loss, changes); enqueue(cand)."""

    def __init__(self, spec, seed):
        self.spec = spec
        self.edits = spec.edits
        self.seed = seed

    def _cand(self, idx):
        return {e.label: e.values[int(i)] for e, i in zip(self.edits, idx)}

    def _idx(self, cand):
        return [e.values.index(cand[e.label]) for e in self.edits]


class OptunaOptimiser(_Optimiser):
    def __init__(self, spec, seed, kind):
        super().__init__(spec, seed)
        import optuna
        from optuna.distributions import CategoricalDistribution, IntDistribution

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.kind = kind
        if kind == "nsga2":
            sampler = optuna.samplers.NSGAIISampler(seed=seed, population_size=max(8, spec.search["batch"]))
            self.study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
        else:
            sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=10)
            self.study = optuna.create_study(direction="minimize", sampler=sampler)
        self.dists = {
            f"d{i}": IntDistribution(0, len(e.values) - 1)
            if e.numeric
            else CategoricalDistribution(list(range(len(e.values))))
            for i, e in enumerate(self.edits)
        }
        self.trials = {}

    def ask(self):
        trial = self.study.ask(self.dists)
        cand = self._cand([trial.params[f"d{i}"] for i in range(len(self.edits))])
        self.trials.setdefault(self.spec.key_of(cand), []).append(trial)
        return cand

    def tell(self, cand, loss, changes, cost):
        for trial in self.trials.pop(self.spec.key_of(cand), []):
            value = [loss, changes] if self.kind == "nsga2" else loss + cost * changes
            self.study.tell(trial, value)

    def enqueue(self, cand):
        self.study.enqueue_trial({f"d{i}": v for i, v in enumerate(self._idx(cand))})


class NevergradOptimiser(_Optimiser):
    def __init__(self, spec, seed, budget):
        super().__init__(spec, seed)
        import nevergrad as ng
        import numpy as np

        params = {}
        for i, e in enumerate(self.edits):
            idx = list(range(len(e.values)))
            params[f"d{i}"] = ng.p.TransitionChoice(idx) if e.numeric else ng.p.Choice(idx)
        self.param = ng.p.Dict(**params)
        self.param.random_state = np.random.RandomState(seed)
        self.opt = ng.optimizers.NGOpt(parametrization=self.param, budget=max(budget, 10))
        self.pending = {}

    def ask(self):
        c = self.opt.ask()
        cand = self._cand([c.value[f"d{i}"] for i in range(len(self.edits))])
        self.pending.setdefault(self.spec.key_of(cand), []).append(c)
        return cand

    def tell(self, cand, loss, changes, cost):
        for c in self.pending.pop(self.spec.key_of(cand), []):
            self.opt.tell(c, loss + cost * changes)

    def enqueue(self, cand):
        self.opt.suggest({f"d{i}": v for i, v in enumerate(self._idx(cand))})


class RandomOptimiser(_Optimiser):
    """Uniform random candidates (the baseline of the optimiser comparison)."""

    def __init__(self, spec, seed):
        super().__init__(spec, seed)
        import numpy as np

        self.rng = np.random.default_rng(seed)
        self.queue = []

    def ask(self):
        if self.queue:
            return self.queue.pop(0)
        return self._cand([self.rng.integers(len(e.values)) for e in self.edits])

    def tell(self, cand, loss, changes, cost):
        pass

    def enqueue(self, cand):
        self.queue.append(cand)


def make_optimiser(spec, name, seed, expected_candidates):
    if name in ("tpe", "nsga2"):
        return OptunaOptimiser(spec, seed, name)
    if name == "ngopt":
        import importlib.util

        if importlib.util.find_spec("nevergrad") is None:
            raise SimError(
                "--optimizer ngopt needs nevergrad, which is not installed: pip install 'boardsim[ngopt]'"
            )
        return NevergradOptimiser(spec, seed, expected_candidates)
    return RandomOptimiser(spec, seed)


# --- the search -----------------------------------------------------------------------------


@dataclass
class Candidate:
    id: int
    values: dict
    key: str
    changes: list
    rung: int = -1
    games: int = 0
    evals: list = field(default_factory=list)  # evaluate() per rung reached
    dropped: str = ""  # "test" | "halving" | ""

    @property
    def final(self):
        return self.evals[-1] if self.evals else None


class Search:
    """One balance search: racing, optimiser, incumbent, front, confirmation."""

    def __init__(
        self,
        spec,
        *,
        out=None,
        budget_games=None,
        budget_minutes=None,
        player=None,
        resume=False,
        progress=True,
        optimizer=None,
        racing=None,
        stream=None,
        max_candidates=None,
        seed=None,
        simplify=True,
    ):
        self.spec = spec
        # queue each new incumbent's one-change-fewer variants (minimality); off, the candidate
        # list of the random optimiser is the same whatever the racing (benchmarks/balance)
        self.simplify = simplify
        self.out = Path(out) if out is not None else None
        self.budget_games = budget_games if budget_games is not None else spec.search["budget_games"]
        self.budget_minutes = budget_minutes if budget_minutes is not None else spec.search["budget_minutes"]
        if budget_minutes is not None and budget_games is None:
            self.budget_games = None  # a time budget only
        self.player = player or LocalPlayer()
        self.store = Store(self.out, resume)
        self.progress = progress
        self.stream = stream or sys.stderr
        self.optimizer_name = optimizer or spec.search["optimizer"]
        self.racing = dict(racing or spec.racing)
        self.rungs = self.racing["rungs"]
        self.seed = spec.search["seed"] if seed is None else seed
        self.max_candidates = max_candidates
        self.exps = bm.experiments(spec)
        self.cands = {}
        self.order = []
        self.incumbent = None
        self.games = 0  # search games (cached blocks count as played: replay is identical)
        self.fresh_games = 0
        self.t0 = time.monotonic()
        self.played_seconds = 0.0
        self.rate = None
        self.status = "running"
        self.confirmation = []
        self.stopped_because = ""

    # -- playing ---------------------------------------------------------------------------
    def _blocks(self, cand, rung, seed, exps, rungs):
        start = 0 if rung == 0 else rungs[rung - 1]
        out = []
        for ek, exp in exps.items():
            kind, n, _ = exp
            a, b = (start // n, rungs[rung] // n) if kind == "power" else (start, rungs[rung])
            if b > a:
                out.append((ek, exp, a, b - a, seed))
        return out

    def _play(self, items, phase):
        """Play (or take from the cache) ``[(cand, ek, exp, start, count, seed)]``; return stats."""
        results, todo = [None] * len(items), []
        for i, (cand, _ek, exp, start, count, seed) in enumerate(items):
            key = (cand.key, _exp_id(exp), seed, start, count)
            rec = self.store.get(key)
            if rec is not None:
                results[i] = rec["stats"]
            else:
                todo.append(i)
            g = bm.games_of(exp, count)
            cand.games += g
            if phase == "search":
                self.games += g
        if todo:
            t = time.monotonic()
            tasks = [(items[i][0].values, items[i][2], items[i][3], items[i][4], items[i][5]) for i in todo]
            stats = self.player.play(self.spec, tasks)
            dt = time.monotonic() - t
            n_games = sum(bm.games_of(items[i][2], items[i][4]) for i in todo)
            self.fresh_games += n_games
            self.played_seconds += dt
            if dt > 0:
                self.rate = n_games / dt if self.rate is None else 0.5 * self.rate + 0.5 * n_games / dt
            for i, st in zip(todo, stats):
                cand, ek, exp, start, count, seed = items[i]
                rec = {
                    "cand": cand.key,
                    "cand_id": cand.id,
                    "exp": _exp_id(exp),
                    "exp_key": ek,
                    "phase": phase,
                    "seed": seed,
                    "start": start,
                    "count": count,
                    "games": bm.games_of(exp, count),
                    "stats": st,
                }
                self.store.put((cand.key, _exp_id(exp), seed, start, count), rec)
                results[i] = st
        return results

    def _stats_at(self, cand, rung, seed, exps, rungs):
        """Summed statistics of every experiment up to ``rung``."""
        total = {}
        for r in range(rung + 1):
            for ek, exp, start, count, s in self._blocks(cand, r, seed, exps, rungs):
                rec = self.store.blocks[(cand.key, _exp_id(exp), s, start, count)]
                total[ek] = bm.add(total.get(ek), rec["stats"])
        return total

    def _race_rung(self, live, rung):
        items = []
        for c in live:
            for ek, exp, start, count, seed in self._blocks(c, rung, self.seed, self.exps, self.rungs):
                items.append((c, ek, exp, start, count, seed))
        self._play(items, "search")
        for c in live:
            c.rung = rung
            c.evals.append(bm.evaluate(self.spec, self._stats_at(c, rung, self.seed, self.exps, self.rungs)))

    # -- candidates ------------------------------------------------------------------------
    def _candidate(self, values):
        key = self.spec.key_of(values)
        if key in self.cands:
            return self.cands[key], False
        c = Candidate(len(self.order), dict(values), key, self.spec.changes(values))
        self.cands[key] = c
        self.order.append(c)
        return c, True

    def score(self, c, rung=None):
        ev = c.evals[rung if rung is not None else -1]
        return ev["loss"] + self.spec.search["change_cost"] * len(c.changes)

    def _rank_key(self, c):
        return (self.score(c), len(c.changes), c.id)

    def _valid(self, c):
        """Resolve the candidate's run configs: edits the game refuses together (a deck
        larger than the travellers left by fewer copies...) make an invalid candidate, which
        the optimiser hears as a very poor one."""
        try:
            for n in self.spec.players:
                api.resolve(run_config(self.spec, c.values, n))
        except ConfigError as exc:
            c.dropped = f"invalid: {exc.key} = {exc.value!r}"
            c.evals = [{"rows": [], "loss": INVALID, "loss_lo": INVALID, "loss_hi": INVALID, "meets": False}]
            return False
        return True

    def race(self, batch):
        """Race a batch of new candidates (rung by rung); return them."""
        live = [c for c in batch if self._valid(c)]
        keep = self.racing["keep"]
        last = len(self.rungs) - 1
        for rung in range(len(self.rungs)):
            self._race_rung(live, rung)
            if rung == last:
                break
            inc = self.incumbent
            inc_ev = inc.evals[rung] if inc is not None and len(inc.evals) > rung else None
            if self.racing["test"] and inc_ev is not None:
                for c in live:
                    if c.final["loss_lo"] > inc_ev["loss_hi"]:
                        c.dropped = "test"
                live = [c for c in live if not c.dropped]
            n_keep = max(1, math.ceil(keep * len(live))) if live else 0
            ranked = sorted(live, key=lambda c: (self.score(c, rung), len(c.changes), c.id))
            for c in ranked[n_keep:]:
                c.dropped = "halving"
            live = ranked[:n_keep]
            if not live:
                break
        return batch

    def full(self):
        """Candidates that played every rung."""
        last = len(self.rungs) - 1
        return [c for c in self.order if c.rung == last]

    def _update_incumbent(self):
        done = self.full()
        if not done:
            return False
        best = min(done, key=self._rank_key)
        changed = best is not self.incumbent
        self.incumbent = best
        return changed

    def front(self):
        """Pareto front of loss against number of changes over fully played candidates."""
        done = sorted(self.full(), key=lambda c: (len(c.changes), c.final["loss"], c.id))
        out, best = [], math.inf
        for c in done:
            if c.final["loss"] < best - 1e-12:
                if out and len(out[-1].changes) == len(c.changes):
                    continue
                out.append(c)
                best = c.final["loss"]
        return out

    # -- budget and progress ---------------------------------------------------------------
    def _confirm_games(self):
        n_conf = min(self.spec.confirm["candidates"], max(len(self.front()), 1)) + 1
        g = 0
        for exp in bm.experiments(self.spec, self.spec.confirm["strategy"]).values():
            kind, n, _ = exp
            count = self.spec.confirm["games"] // n if kind == "power" else self.spec.confirm["games"]
            g += bm.games_of(exp, count)
        return n_conf * g

    def time_left(self):
        if self.budget_minutes is None:
            return None
        return self.budget_minutes * 60 - (time.monotonic() - self.t0)

    def _exhausted(self):
        if self.max_candidates is not None and len(self.order) >= self.max_candidates:
            self.stopped_because = f"{self.max_candidates} candidates tried"
            return True
        if self.budget_games is not None and self.games >= self.budget_games:
            self.stopped_because = f"games budget ({self.budget_games:,}) used"
            return True
        left = self.time_left()
        if left is not None:
            # keep time for the confirmation, at the rate measured so far (the confirm
            # player may be slower: its games are counted at the search's rate)
            need = self._confirm_games() / self.rate if self.rate else 0.0
            if left - need <= 0:
                self.stopped_because = f"time budget ({self.budget_minutes:g} min) reached"
                return True
        return False

    def _say(self, text):
        if self.progress:
            print(text, file=self.stream, flush=True)

    def _progress_line(self):
        inc = self.incumbent
        best = "none yet"
        if inc is not None:
            best = f"loss {inc.final['loss']:.3f} with {len(inc.changes)} change(s): {self.spec.describe(inc.values)}"
        if self.budget_games is not None:
            left = f"{max(self.budget_games - self.games, 0):,} games left"
        else:
            left = ""
        tl = self.time_left()
        if tl is not None:
            m, s = divmod(max(int(tl), 0), 60)
            left = (left + ", " if left else "") + f"{m}:{s:02d} left"
        rate = f", {self.rate:,.0f} games/s" if self.rate else ""
        return (
            f"balance: {len(self.order)} candidates, {len(self.full())} fully played, "
            f"{self.games:,} games{rate}, {left}; best {best}"
        )

    # -- the loop --------------------------------------------------------------------------
    def run(self, confirm=True):
        """Search until the budget is used; then confirm the front.  Returns self."""
        spec = self.spec
        per_cand = sum(
            bm.games_of(exp, self.rungs[0] // exp[1] if exp[0] == "power" else self.rungs[0])
            for exp in self.exps.values()
        )
        expected = max(20, int((self.budget_games or 10**7) / max(per_cand, 1) / 2))
        opt = make_optimiser(spec, self.optimizer_name, self.seed, expected)
        official, _ = self._candidate(spec.official())
        self.official = official
        try:
            self.race([official])
            self._update_incumbent()
            self._say(self._progress_line())
            dup_run = 0
            queued = set()
            while not self._exhausted():
                batch, tries = [], 0
                while len(batch) < spec.search["batch"] and tries < 20 * spec.search["batch"]:
                    tries += 1
                    values = opt.ask()
                    c, new = self._candidate(values)
                    if not new:
                        # played before: the optimiser hears its value again (one asked twice
                        # in this batch hears it with the batch)
                        if c.evals:
                            opt.tell(values, c.final["loss"], len(c.changes), spec.search["change_cost"])
                        continue
                    batch.append(c)
                if not batch:
                    dup_run += 1
                    if dup_run >= 3:
                        self.stopped_because = "the optimiser proposes only candidates already played"
                        break
                    continue
                dup_run = 0
                self.race(batch)
                for c in batch:
                    opt.tell(c.values, c.final["loss"], len(c.changes), spec.search["change_cost"])
                if self._update_incumbent() and self.simplify:
                    inc = self.incumbent
                    for label in inc.changes:  # minimality: the same edit with one change fewer
                        simpler = dict(inc.values)
                        simpler[label] = next(e.official for e in spec.edits if e.label == label)
                        k = spec.key_of(simpler)
                        if k not in self.cands and k not in queued:
                            queued.add(k)
                            opt.enqueue(simpler)
                self._say(self._progress_line())
            self.status = "searched"
            self._say(
                f"balance: search stopped ({self.stopped_because}); confirming the front on fresh deals"
            )
            self.confirm()
            self.status = "complete"
        except KeyboardInterrupt:
            self.status = "interrupted"
            raise
        finally:
            self.store.close()
        return self

    # -- confirmation ----------------------------------------------------------------------
    def to_confirm(self):
        """The official rules and the front's edits (lowest loss first, up to confirm.candidates)."""
        front = [c for c in self.front() if c.changes]
        front = sorted(front, key=lambda c: (c.final["loss"], len(c.changes)))[
            : self.spec.confirm["candidates"]
        ]
        return [self.official, *sorted(front, key=lambda c: (len(c.changes), c.id))]

    def confirm(self, candidates=None):
        """Play the official rules and the front (or ``candidates``) on the fresh confirmation
        deals; return ``[(candidate, evaluate(...)), ...]``."""
        conf = self.spec.confirm
        if conf["seed"] == self.seed:
            raise SimError(f"confirm.seed {conf['seed']} is the search's seed: the deals would not be fresh")
        exps = bm.experiments(self.spec, conf["strategy"])
        rungs = [conf["games"]]
        self.confirmation = []
        for c in self.to_confirm() if candidates is None else candidates:
            items = [
                (c, ek, exp, a, n, s) for ek, exp, a, n, s in self._blocks(c, 0, conf["seed"], exps, rungs)
            ]
            self._play(items, "confirm")
            ev = bm.evaluate(self.spec, self._stats_at(c, 0, conf["seed"], exps, rungs))
            self.confirmation.append((c, ev))
            verdict = "meets every target" if ev["meets"] else "fails"
            self._say(f"balance: confirmed {self.spec.describe(c.values)}: {verdict}")
        return self.confirmation


def run_search(spec, **kw):
    """Run a search (see :class:`Search`) and return it."""
    api.set_threads(kw.pop("threads", None))
    return Search(spec, **kw).run()
