"""The metric pattern: small classes with one job, grouped by the balance question they
answer, registered so a user can add one.

A metric declares which frame it reads (``source``): ``"seats"`` (one row per game x seat,
every games column joined on), ``"games"``, ``"events"``, or ``"result:<name>"`` (the table
an earlier metric of the same question produced).  ``compute(frame)`` returns a Polars
DataFrame (a table) or a dict (a few numbers).  ``by`` holds the grouping columns: the
player count plus every swept parameter, so one call answers every cell of a sweep.

Adding a metric::

    from analysis.metrics import Metric, register

    @register("duration")
    class LongestGame(Metric):
        name = "longest_game"
        title = "Longest game (rounds)"
        source = "games"

        def compute(self, games):
            return games.group_by(self.by).agg(pl.col("rounds").max()).sort(self.by).collect()
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from .errors import AnalysisError


class Metric:
    """Base class.  Subclasses set ``name``, ``title``, ``source`` and implement
    ``compute``; ``applies(ds)`` says whether a dataset has what the metric needs."""

    name = "metric"
    title = "Metric"
    source = "seats"
    #: columns the source frame must have (checked by ``applies``)
    needs: tuple = ()
    #: one-line explanation shown under the table
    note = ""

    def __init__(self, by=("players",), **context):
        self.by = list(by)
        self.context = context

    @classmethod
    def from_dataset(cls, ds):
        """Build the metric for a dataset (default: group by players + swept params)."""
        return cls(by=["players", *ds.group_params()], dataset=ds)

    @classmethod
    def applies(cls, ds) -> bool:
        # which games a metric is for is its question's business (``Question.applies``, from
        # the adapter's ``analyses()`` in the dataset's facts): no game is named here
        if cls.source == "events":
            if ds.events is None:
                return False
            cols = ds.events.collect_schema().names()
        elif cls.source == "games":
            cols = ds.games_columns()
        elif cls.source == "seats":
            cols = ds.seats_columns()
        else:
            return True
        return all(c in cols for c in cls.needs)

    def compute(self, frame):  # pragma: no cover - interface
        raise NotImplementedError

    def per_group(self, table, row):
        """One row per group of ``table`` by ``self.by``: the group's keys, then the dict
        ``row(group)`` returns; sorted by the keys (None for an empty table)."""
        rows = []
        for key, grp in table.group_by(self.by, maintain_order=True):
            key = key if isinstance(key, tuple) else (key,)
            rows.append({**dict(zip(self.by, key)), **row(grp)})
        return pl.DataFrame(rows).sort(self.by) if rows else None


@dataclass
class Question:
    """A balance question: its metrics (run in order), the sentences that answer it and
    its plots."""

    name: str
    title: str
    metrics: list = field(default_factory=list)
    headlines: object = None  # (ds, results) -> list[str]
    plots: object = None  # (ds, results) -> list[(title, svg)]
    applies: object = None  # (ds) -> bool
    why_not: object = None  # (ds) -> str | None: one line when the data cannot answer it
    #: (ds, results) -> list of {key, estimate, lo, hi, games, unit}: the headline numbers
    #: a strength ladder compares across rungs
    key_numbers: object = None


QUESTIONS: dict[str, Question] = {}

#: analysis options and their defaults (a study sets them in its ``[analysis]`` table)
OPTIONS = {
    # deck size: a cell's seats are "even" when every seat's win share is within this
    # margin of 1/n (an equivalence test), in share units (0.01 = 1 pt)
    "equivalence_margin": 0.01,
}


def asked_by_game(name):
    """``applies`` of a game's own question: the dataset's game names it among its analyses
    (manifest ``facts.analyses``, from the adapter's ``analyses()``)."""
    return lambda ds: name in (ds.facts or {}).get("analyses", ())


def question(name, title, *, applies=None):
    """Declare a question (idempotent)."""
    if name not in QUESTIONS:
        QUESTIONS[name] = Question(name, title, applies=applies)
    return QUESTIONS[name]


def register(question_name):
    """Class decorator: add a metric to a question (created if needed)."""

    def deco(cls):
        q = question(question_name, question_name.title())
        q.metrics = [m for m in q.metrics if m.name != cls.name] + [cls]
        return cls

    return deco


def _frame(ds, source, results):
    if source == "seats":
        return ds.seats
    if source == "games":
        return ds.games
    if source == "events":
        return ds.events
    if source.startswith("result:"):
        return results.get(source.split(":", 1)[1])
    raise AnalysisError(f"unknown metric source {source!r}")


def run_question(ds, name, options=None):
    """Compute every applicable metric of question ``name`` on dataset ``ds``.

    ``options`` overrides entries of ``OPTIONS`` (the metrics read them from
    ``self.context["options"]``).

    Returns
    -------
    dict
        metric name -> DataFrame or dict, in metric order (metrics that do not apply to
        this dataset are left out).
    """
    _load_builtin()
    if name not in QUESTIONS:
        raise AnalysisError(f"question = {name!r} is invalid; allowed: {', '.join(QUESTIONS)}")
    q = QUESTIONS[name]
    if q.applies is not None and not q.applies(ds):
        return {}
    results = {}
    for cls in q.metrics:
        if not cls.applies(ds):
            continue
        metric = cls.from_dataset(ds)
        metric.context["options"] = {**OPTIONS, **(options or {})}
        frame = _frame(ds, cls.source, results)
        if frame is None:
            continue
        out = metric.compute(frame)
        if out is not None:
            results[cls.name] = out
    return results


def question_names():
    _load_builtin()
    return list(QUESTIONS)


def _load_builtin():
    # importing the modules registers their metrics: every module of analysis.questions (the
    # registry of questions; no list to keep, no game named, no kernel imported)
    import importlib
    import pkgutil

    from . import questions

    for mod in pkgutil.iter_modules(questions.__path__):
        importlib.import_module(f"{questions.__name__}.{mod.name}")
