"""Studies: one TOML file from nothing to a report.

A study names the datasets to produce (run or sweep configs), the questions to answer on
each, and the report::

    title = "The Bloody Inn: balance study"
    out = "results/bloody_inn-balance"       # default results/<study file stem>; relative
                                            # to the current directory
    [[data]]
    name = "first_player"                   # folder under out
    sweep = "bloody_inn/first-player.toml"  # or run = "..."; relative to the study file
    questions = ["seats", "strategies"]     # an entry asking "experience" is played with
                                            # the trajectory table (sim run --trajectory)
    label = "First player, 1-4 players"     # optional, shown in the report
    games = 20000                           # optional override (run only)
    seed = 7                                # optional override (run only)
    ladder = ["heuristic", "expert"]        # optional: play the entry once per strategy
                                            # (weakest first, strongest last), every seat
                                            # that strategy; the Answers compare the rungs.
                                            # A rung may be a table: {name = "search16",
                                            # strategy = "search", params = {...},
                                            # games = 300} (games per run / sweep point;
                                            # for a sweep, its file must not set games)

    [[data]]
    name = "meta_game"
    meta = "../meta/bloody_inn-2p.toml"     # a round-robin (``sim meta``) on duplicate deals
    games = 2000                            # optional, per pairing; seed optional too
    questions = ["meta", "skill"]           # the default for a meta entry

    [[data]]
    name = "power"
    power = "../bloody_inn/power/expert-2p.toml"  # restricted play (``sim power``): a run
    cards = "ALL"                           # config; "ALL", ids "A,B" or a list of ids
    actions = true                          # one arm per action too
    games = 2000                            # optional, per arm; seed optional too
    questions = ["power"]                   # the default for a power entry

    [analysis]
    equivalence_margin = 0.01               # deck size: "even" = every seat within 1 pt

    [report]
    file = "report.html"                    # relative to out
    title = "..."
    intro = "..."

The datasets are produced by callables passed in (``sim.runner.run_dataset`` and
``sim.sweep.run_sweep`` from the CLI), always with ``resume=True`` unless forced: a
finished dataset is skipped, an interrupted one completed, and one made from a different
config is refused with a clear error rather than silently reused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from .dataset import is_run_dir, is_sweep_dir, open_dataset, read_manifest
from .errors import AnalysisError
from .ladder import ladder_section
from .metrics import question_names
from .report import Entry, build_report, write_report

STUDY_KEYS = ("title", "description", "out", "data", "report", "analysis")
DATA_KEYS = (
    "name",
    "run",
    "sweep",
    "power",
    "meta",
    "questions",
    "label",
    "games",
    "seed",
    "ladder",
    "cards",
    "actions",
)
KINDS = ("run", "sweep", "power", "meta")
#: the questions an entry answers when it names none
DEFAULT_QUESTIONS = {"power": ["power"], "meta": ["meta", "skill"]}
RUNG_KEYS = ("name", "strategy", "params", "games")
POWER_ONLY = ("cards", "actions")
ANALYSIS_KEYS = ("equivalence_margin",)
REPORT_KEYS = ("file", "title", "intro")


@dataclass
class DataSpec:
    name: str
    kind: str  # "run" | "sweep" | "power" | "meta"
    config: Path
    questions: tuple
    label: str
    games: int | None = None
    seed: int | None = None
    ladder: tuple = ()  # of Rung, weakest first
    cards: str | None = None  # power: "ALL" or comma-separated annex ids
    actions: bool = False  # power: one arm per action


@dataclass
class Rung:
    """One rung of a strength ladder: every seat plays ``strategy`` (with ``params``)."""

    name: str
    strategy: str
    params: dict = field(default_factory=dict)
    games: int | None = None

    def seats(self):
        seat = {"strategy": self.strategy}
        if self.params:
            seat["params"] = dict(self.params)
        return [seat]


@dataclass
class Study:
    path: Path
    title: str
    description: str
    out: Path
    data: list = field(default_factory=list)
    report_file: str = "report.html"
    report_title: str = ""
    report_intro: str = ""
    options: dict = field(default_factory=dict)


def _bad(source, key, value, allowed):
    return AnalysisError(f"{source}: {key} = {value!r} is invalid; allowed: {allowed}")


def _check_keys(source, table, allowed, prefix=""):
    for k in table:
        if k not in allowed:
            raise _bad(source, prefix + k, table[k], "one of " + ", ".join(allowed))


_NAME = r"[A-Za-z0-9_.-]+"


def _power_keys(src, where, d, kind):
    """``cards`` and ``actions`` of a power entry (and only of one)."""
    for k in POWER_ONLY:
        if k in d and kind != "power":
            raise _bad(src, where + k, d[k], f"no {k} key on a {kind} entry (only on a power entry)")
    if kind != "power":
        return None, False
    cards = d.get("cards")
    if isinstance(cards, list) and cards and all(isinstance(c, str) and c.strip() for c in cards):
        cards = ",".join(cards)
    if cards is not None and (not isinstance(cards, str) or not cards.strip()):
        raise _bad(src, where + "cards", d["cards"], '"ALL", "id,id" or a list of annex card ids')
    actions = d.get("actions", False)
    if not isinstance(actions, bool):
        raise _bad(src, where + "actions", actions, "true or false")
    if cards is None and not actions:
        raise _bad(src, where + "cards/actions", None, 'cards = "ALL" or ids, and/or actions = true')
    if "ladder" in d:
        raise _bad(
            src, where + "ladder", d["ladder"], "no ladder on a power entry (its config sets the seats)"
        )
    return cards, actions


def _ladder(src, where, d, kind, cfg):
    """The entry's rungs, weakest first: names or tables with name/strategy/params/games."""
    raw = d.get("ladder", [])
    allowed = (
        "a list of distinct strategy names or {name, strategy, params, games} tables "
        "(weakest first, strongest last)"
    )
    if not isinstance(raw, list):
        raise _bad(src, where + "ladder", raw, allowed)
    rungs = []
    for j, x in enumerate(raw):
        at = f"{where}ladder[{j}]"
        if isinstance(x, str):
            x = {"strategy": x}
        if not isinstance(x, dict):
            raise _bad(src, at, x, allowed)
        _check_keys(src, x, RUNG_KEYS, at + ".")
        strategy = x.get("strategy")
        if not isinstance(strategy, str) or not re.fullmatch(_NAME, strategy):
            raise _bad(src, at + ".strategy", strategy, "a strategy name (sim strategies)")
        rname = x.get("name", strategy)
        if not isinstance(rname, str) or not re.fullmatch(_NAME, rname) or rname in [r.name for r in rungs]:
            raise _bad(src, at + ".name", rname, "a unique rung name of letters, digits, _ . -")
        params = x.get("params", {})
        if not isinstance(params, dict):
            raise _bad(src, at + ".params", params, "a table of the strategy's parameters")
        games = x.get("games")
        if games is not None:
            if not isinstance(games, int) or isinstance(games, bool) or games < 1:
                raise _bad(src, at + ".games", games, "a positive integer (games per run or sweep point)")
            if kind == "sweep" and "games" in tomllib.loads(cfg.read_text(encoding="utf-8")):
                raise _bad(
                    src,
                    at + ".games",
                    games,
                    f"no rung games while the sweep {cfg.name} sets games itself (drop one of them)",
                )
        rungs.append(Rung(rname, strategy, dict(params), games))
    return tuple(rungs)


def load_study(path, out=None) -> Study:
    """Read and validate a study file.

    Raises
    ------
    AnalysisError
        naming the file, the key, the bad value and what is allowed.
    """
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AnalysisError(f"{path}: cannot read the study ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise AnalysisError(f"{path}: not valid TOML ({exc})") from None
    src = str(path)
    _check_keys(src, raw, STUDY_KEYS)
    title = raw.get("title", path.stem)
    if not isinstance(title, str):
        raise _bad(src, "title", title, "a string")
    out_dir = Path(out) if out is not None else Path(raw.get("out", f"results/{path.stem}"))
    data = raw.get("data")
    if not isinstance(data, list) or not data:
        raise _bad(src, "data", data, "one or more [[data]] tables with name and run or sweep")
    known = question_names()
    specs, names = [], set()
    for i, d in enumerate(data):
        where = f"data[{i}]."
        if not isinstance(d, dict):
            raise _bad(src, f"data[{i}]", d, "a table")
        _check_keys(src, d, DATA_KEYS, where)
        name = d.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name in names:
            raise _bad(src, where + "name", name, "a unique folder name of letters, digits, _ . -")
        names.add(name)
        kinds = [k for k in KINDS if k in d]
        if len(kinds) != 1:
            raise _bad(
                src,
                where + "run/sweep/power/meta",
                kinds or None,
                'exactly one of run = "<run config>", sweep = "<sweep config>", '
                'power = "<run config>" (restricted play, as sim power) or '
                'meta = "<meta config>" (a round-robin, as sim meta)',
            )
        kind = kinds[0]
        if not isinstance(d[kind], str):
            raise _bad(src, where + kind, d[kind], "a path relative to the study file")
        cfg = path.parent / d[kind]
        if not cfg.is_file():
            raise _bad(src, where + kind, d[kind], f"an existing file ({cfg} not found)")
        qs = d.get("questions", DEFAULT_QUESTIONS.get(kind, ["seats", "duration"]))
        if not isinstance(qs, list) or not qs or any(q not in known for q in qs):
            raise _bad(src, where + "questions", qs, "a list of " + ", ".join(known))
        for k in ("games", "seed"):
            v = d.get(k)
            if v is not None and (
                kind == "sweep"
                or not isinstance(v, int)
                or isinstance(v, bool)
                or v < (1 if k == "games" else 0)
            ):
                raise _bad(
                    src,
                    where + k,
                    v,
                    f"a {'positive' if k == 'games' else 'non-negative'}"
                    " integer, for run, power and meta entries (a sweep sets it in its own"
                    " file; a ladder rung may set its games)",
                )
        cards, actions = _power_keys(src, where, d, kind)
        label = d.get("label", name)
        if not isinstance(label, str):
            raise _bad(src, where + "label", label, "a string")
        if kind == "meta" and "ladder" in d:
            raise _bad(
                src,
                where + "ladder",
                d["ladder"],
                "no ladder on a meta entry (its config lists the strategies)",
            )
        ladder = _ladder(src, where, d, kind, cfg)
        specs.append(
            DataSpec(name, kind, cfg, tuple(qs), label, d.get("games"), d.get("seed"), ladder, cards, actions)
        )
    rep = raw.get("report", {})
    if not isinstance(rep, dict):
        raise _bad(src, "report", rep, "a table")
    _check_keys(src, rep, REPORT_KEYS, "report.")
    for k in REPORT_KEYS:
        if k in rep and not isinstance(rep[k], str):
            raise _bad(src, f"report.{k}", rep[k], "a string")
    opts = raw.get("analysis", {})
    if not isinstance(opts, dict):
        raise _bad(src, "analysis", opts, "a table")
    _check_keys(src, opts, ANALYSIS_KEYS, "analysis.")
    m = opts.get("equivalence_margin")
    if m is not None and (isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m < 0.5):
        raise _bad(src, "analysis.equivalence_margin", m, "a share between 0 and 0.5 (0.01 = 1 pt)")
    return Study(
        path,
        title,
        raw.get("description", ""),
        out_dir,
        specs,
        rep.get("file", "report.html"),
        rep.get("title", title),
        rep.get("intro", raw.get("description", "")),
        dict(opts),
    )


def dataset_complete(target: Path, kind: str) -> bool:
    """True when ``target`` already holds a complete run / sweep."""
    if kind == "run":
        return is_run_dir(target) and read_manifest(target).get("status") == "complete"
    if not is_sweep_dir(target):
        return False
    import json

    try:
        return json.loads((target / "sweep.json").read_text()).get("status") == "complete"
    except (OSError, ValueError):
        return False


def run_study(
    study: Study,
    *,
    run_dataset=None,
    run_sweep=None,
    force=False,
    threads=None,
    progress=None,
    report_only=False,
    echo=print,
):
    """Produce every dataset of a study (skipping finished ones), then write the report.

    Parameters
    ----------
    study : Study
    run_dataset, run_sweep : callable
        The pipeline (``sim.runner.run_dataset``, ``sim.sweep.run_sweep``).
    force : bool
        Re-run datasets that already exist.
    report_only : bool
        Do not run anything; report on the datasets already there.

    Returns
    -------
    (html_path, md_path)
    """
    # a power entry's arms are planned before anything runs: a bad card id fails in one line
    # ... and a meta entry's pairings resolved: a bad strategy parameter fails the same way
    plans = {} if report_only else {s.name: entry_plan(s) for s in study.data if s.kind in DEFAULT_QUESTIONS}
    study.out.mkdir(parents=True, exist_ok=True)
    if not report_only:
        for spec in study.data:
            for rung in reversed(spec.ladder or (None,)):
                target = study.out / spec.name / rung.name if rung else study.out / spec.name
                name = f"{spec.name}[{rung.name}]" if rung else spec.name
                _produce(
                    spec, rung, target, name, run_dataset, run_sweep, force, threads, progress, echo, plans
                )
    return write_report(study_report(study), study.out / study.report_file)


def study_report(study: Study):
    """The report of a study whose datasets are all there (``run_study`` writes it; the docs'
    generated results read it too): the ladders' answers first, then every question."""
    entries, ladders = [], []
    for spec in study.data:
        targets = []
        for rung in reversed(spec.ladder or (None,)):  # the report shows the strongest rung first
            target = study.out / spec.name / rung.name if rung else study.out / spec.name
            label = f"{spec.label}, {rung.name}" if rung else spec.label
            entries.append(Entry(label, open_dataset(target), spec.questions, study.options))
            targets.append((rung.name if rung else None, label))
        if spec.ladder:
            ladders.append((spec, targets))
    report = build_report(entries, study.report_title or study.title, study.report_intro)
    front = [ladder_section(spec.label, targets, report.sections) for spec, targets in ladders]
    report.sections = [sec for sec in front if sec is not None] + report.sections
    return report


def _rung_run_config(path, rung):
    """A run config with every seat playing ``rung``."""
    raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    raw["seats"] = rung.seats()
    raw["name"] = f"{raw.get('name', Path(path).stem)}-{rung.name}"
    return raw


def power_plan(spec):
    """The arms of a power entry (``sim.power.plan``); a bad card id fails in one line."""
    from sim import power

    return power.plan(spec.config, cards=spec.cards, actions=spec.actions, games=spec.games, seed=spec.seed)


def meta_plan(spec):
    """The pairings of a meta entry (``sim.meta.plan``); a bad strategy fails in one line."""
    from sim import meta

    return meta.plan(spec.config, games=spec.games, seed=spec.seed)


def entry_plan(spec):
    """The plan of a power or meta entry, made before anything of the study runs."""
    return power_plan(spec) if spec.kind == "power" else meta_plan(spec)


def _produce(spec, rung, target, name, run_dataset, run_sweep, force, threads, progress, echo, plans):
    """Play one dataset of a study entry (one rung of its ladder)."""
    if dataset_complete(target, spec.kind) and not force:
        echo(f"{name}: complete, checking it matches {spec.config.name}")
    else:
        echo(f"{name}: running {spec.kind} {spec.config}" + (f", every seat {rung.name}" if rung else ""))
    if spec.kind == "power":
        if run_sweep is None:
            raise AnalysisError("no sweep runner available to produce power datasets")
        from sim import power

        sweep = power.as_sweep(plans[spec.name], spec.config)
        run_sweep(sweep, target, resume=not force, force=force, threads=threads, progress=progress)
        return
    if spec.kind == "meta":
        if run_sweep is None:
            raise AnalysisError("no sweep runner available to produce meta datasets")
        from sim import meta

        sweep = meta.as_sweep(plans[spec.name])
        run_sweep(sweep, target, resume=not force, force=force, threads=threads, progress=progress)
        return
    # the experience question reads the trajectory table: an entry that asks it records it
    extra = {"trajectory": True} if "experience" in spec.questions else {}
    if spec.kind == "run":
        if run_dataset is None:
            raise AnalysisError("no runner available to produce run datasets")
        man = run_dataset(
            _rung_run_config(spec.config, rung) if rung else spec.config,
            target,
            games=rung.games if rung and rung.games else spec.games,
            seed=spec.seed,
            threads=threads,
            resume=not force,
            force=force,
            progress=progress,
            **extra,
        )
        if isinstance(man, dict) and man.get("nothing_to_do"):
            echo(f"{name}: already complete, skipped")
        return
    if run_sweep is None:
        raise AnalysisError("no sweep runner available to produce sweep datasets")
    if rung:
        extra["base_overrides"] = {"seats": rung.seats()}
        if rung.games:
            extra["base_overrides"]["games"] = rung.games
    run_sweep(spec.config, target, resume=not force, force=force, threads=threads, progress=progress, **extra)
