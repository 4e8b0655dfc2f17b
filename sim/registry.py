"""The game registry: one adapter per game, and the contract every adapter keeps.

An adapter turns a config into kernel arrays and kernel columns into Arrow tables, and answers
every question the rest of the project may ask about its game (:class:`GameAdapter`).
Adding a game means one package ``sim/games/<game>/`` with an ``adapter`` module and one line in ``_ADAPTERS``: the
runner, the dataset writer, the CLI, ``sim tune``, ``sim bench``, ``sim replay`` and the
shared analyses do not change (``docs/adding-a-game.md``).

An adapter module imports its kernels only inside the methods that play or list strategies,
so that listing the games, reading a dataset's facts or analysing a dataset compiles nothing
(and a Bloody Inn run never compiles Cluedo's kernels).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, runtime_checkable

import pyarrow as pa

from .errors import SimError

_ADAPTERS = {
    "bloody_inn": "sim.games.bloody_inn.adapter",
    "cluedo": "sim.games.cluedo.adapter",
}

#: questions every game's dataset answers (``analysis.questions.<name>``); a game adds its
#: own through :meth:`GameAdapter.analyses`
GENERAL_ANALYSES = ("seats", "strategies", "duration")


class GameImportError(SimError, ImportError):
    """A registered game whose adapter does not import: one clear line on the command line
    (a ``SimError``), and an ``ImportError`` to the code and tests that ask for it."""


@dataclass
class Chunk:
    """The tables of a range of games, without ``config_id`` (added by the runner)."""

    games: pa.Table
    seats: pa.Table
    events: pa.Table | None = None
    trajectory: pa.Table | None = None


class StrategyRow(TypedDict):
    """One row of :meth:`GameAdapter.strategies` (and of ``sim strategies GAME --json``).

    ``params`` maps every parameter name to its default (a float); ``param_help`` has one
    line of help for every one of them (same keys).
    """

    name: str
    description: str
    params: dict[str, float]
    param_help: dict[str, str]


class BenchTarget(TypedDict, total=False):
    """A throughput target of ``sim bench --targets``: a run config, the seconds that
    1,000,000 of its games may take through ``sim run`` on the reference 2-core machine and,
    optionally, the least games/s over the yardstick's (both cores) that the median of its
    runs must reach (``yardstick_ratio``) and the seconds 1,000,000 games typically take
    there (``typical_s``, for the bench's estimate of its own duration)."""

    label: str
    config: dict
    seconds: float
    yardstick_ratio: float
    typical_s: float


class Referee(Protocol):
    """An independent replay of a game's event log (``sim replay``): a module with these.

    ``ReplayReport`` is its report class (``ok``, ``games``, ``divergences``, ``summary()``,
    ``to_dict()``, ``merge(other)``; ``ReplayReport()`` is an empty one).
    """

    ReplayReport: type

    def rules_of(self, resolved: dict) -> Any:
        """The referee's own reading of a run's resolved config (read once per dataset)."""

    def replay_tables(self, resolved: dict, games, seats, events, *, max_games=None, rules=None) -> Any:
        """Replay every game of an events table (``rules``: ``rules_of(resolved)``, read
        again when None); a ``ReplayReport``."""


class DealCovariates(Protocol):
    """What chance dealt each game, replayed from ``(seed, game id)`` (:mod:`sim.deals`): a
    module with these."""

    def covariates(self, resolved: dict, first_game: int, count: int) -> Any:
        """A ``(count, k)`` float array: the covariates of games ``first_game ..
        first_game + count - 1``, fixed by the deal before anyone plays."""

    def means(self, resolved: dict, deals: int) -> tuple:
        """Their expected value ``(mean, cov, deals)``: ``cov`` and ``deals`` None when the
        mean is exact, else the covariance and the number of calibration deals it is over."""


class BenchSearch(TypedDict):
    """The search row of ``sim bench``: one seat playing ``strategy`` (its default parameters)
    beside ``others`` at every other seat, ``games`` games at each of these player counts (when
    the bench measures them); ``decision`` says what one of the seat's turns is, in the game's words."""

    strategy: str
    others: str
    games: dict[int, int]
    decision: str


@runtime_checkable
class GameAdapter(Protocol):
    """Everything the rest of the project may ask a game.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"bloody_inn"``.
    title : str
        Display name.
    min_players, max_players : int
        Player counts the game plays (every count in between plays).
    rules_contract : (str, str), optional
        The game's rules contract file (``../shared/rules/``) and its rule-id prefix: the
        docs generator (``python -m sim.docs``) lists its ids with the code and tests citing them.
    """

    name: str
    title: str
    min_players: int
    max_players: int

    def resolve(self, raw: dict) -> dict:
        """Validate every game key of a run config (``ConfigError`` naming the key, the bad
        value and what is allowed) and return the complete resolved config: ``players``,
        ``rules``, ``seats`` (``[{"strategy", "params"}]``, one per seat) and any game data,
        all defaults filled, JSON-serialisable."""

    def strategies(self) -> list[StrategyRow]:
        """The strategies a seat may name, in display order (see :class:`StrategyRow`)."""

    def tuning_bounds(self, strategy: str) -> dict[str, tuple[float, float]]:
        """Search range of the parameters of ``strategy`` for ``sim tune`` (parameters left
        out get the default +- (2 |default| + 1))."""

    def bench_config(self, players: int, lineup: list[str]) -> dict:
        """A run config of ``players`` seats playing ``lineup`` (one strategy name per seat),
        on the rules ``sim bench`` measures; ``game``, ``games``, ``seed`` are added by it."""

    def bench_targets(self) -> list[BenchTarget]:
        """The throughput targets of ``sim bench --targets`` (may be empty)."""

    def bench_search(self) -> BenchSearch | None:
        """The search row of ``sim bench`` (None: the game has no search player)."""

    def dataset_facts(self, resolved: dict) -> dict:
        """What a dataset of ``resolved`` needs to explain itself, stored in its manifest
        under ``facts``: ``columns`` ({table: {column: meaning}}), ``event_kinds`` (the event
        vocabulary, in code order) and any game data the analyses read (the Bloody Inn puts
        the card table as played and the annex-bit order there).  JSON-serialisable."""

    def referee(self) -> Referee | None:
        """The game's independent referee, or None if it has none yet."""

    def deals(self) -> DealCovariates | None:
        """The game's deal covariates (``sim/games/<game>/deals.py``; the control variate of
        ``--precision``), or None if it has none."""

    def analyses(self) -> tuple[str, ...]:
        """Names of the game's own analysis questions (``analysis.questions.<name>``), on top
        of :data:`GENERAL_ANALYSES`."""

    def restrictions(self, resolved: dict) -> dict[str, list[str]] | None:
        """What a seat's ``restrict`` table may bar in ``resolved`` (restricted play,
        ``sim power``): ``{"actions": [...], "build": [card ids]}``, or None if the game has no
        restricted play."""

    def simulate_chunk(self, resolved: dict, start: int, count: int, *, events: bool) -> Chunk:
        """Play games ``start .. start+count-1`` (game ids are global within the run); the
        result depends only on (resolved, game ids), never on chunking or threads."""


def game_names():
    """Names of every registered game (whether or not its adapter imports: asking for the
    adapter of one that does not raises, it is never silently left out)."""
    return list(_ADAPTERS)


def adapter_module(name):
    """The dotted name of game ``name``'s adapter module (what a worker process imports)."""
    if name not in _ADAPTERS:
        raise SimError(f"game = {name!r} is not registered; allowed: {', '.join(map(repr, _ADAPTERS))}")
    return _ADAPTERS[name]


def register(name, module):
    """Register game ``name`` with adapter module ``module`` (a dotted name) unless it is known:
    a worker process learns the games its driver registered at run time."""
    _ADAPTERS.setdefault(name, module)


def get_adapter(name) -> GameAdapter:
    """The adapter object of game ``name``.

    Raises
    ------
    SimError
        ``name`` is not a registered game.
    GameImportError
        its adapter module does not import (a broken install, never hidden; an ``ImportError``).
    """
    try:
        module = importlib.import_module(adapter_module(name))
    except ImportError as exc:
        raise GameImportError(f"game {name!r} is registered but its adapter does not import: {exc}") from exc
    return module.ADAPTER


def analyses(name):
    """Question names that apply to datasets of game ``name`` (general ones first)."""
    own = tuple(get_adapter(name).analyses())
    return GENERAL_ANALYSES + tuple(q for q in own if q not in GENERAL_ANALYSES)


def dataset_facts(resolved):
    """The facts a dataset of ``resolved`` carries in its manifest: the adapter's
    ``dataset_facts`` and ``analyses`` (every question that applies to it)."""
    game = resolved["game"]
    return {**get_adapter(game).dataset_facts(resolved), "analyses": list(analyses(game))}


def referee(name):
    """The referee of game ``name``, or None if it has none."""
    return get_adapter(name).referee()


def replay_dataset(path, *, max_games=None, on_chunk=None):
    """Replay a dataset written by ``sim run CONFIG --events`` with its game's referee, chunk
    by chunk (``sim replay``).

    ``on_chunk(report_so_far)`` is called after every chunk (progress display).

    Raises
    ------
    SimError
        not a dataset, a listed chunk missing or changed, its game has no referee, or it has
        no event log.
    """
    from pathlib import Path

    import pyarrow.parquet as pq

    from . import dataset

    path = Path(path)
    manifest = dataset.read_manifest(path)
    if manifest is None:
        raise SimError(f"{path}: no manifest.json; not a dataset")
    game = manifest.get("game")
    ref = referee(game)
    if ref is None:
        raise SimError(f"{path}: game {game!r} has no referee yet; nothing can replay its events")
    dataset.verify(path, manifest)  # every listed chunk present and unchanged, or one line
    if not manifest.get("events") or "events" not in manifest.get("tables", ()):
        raise SimError(f"{path}: the dataset has no event log; run it with `sim run CONFIG --events`")
    resolved = manifest["resolved"]
    rules = ref.rules_of(resolved)
    total = ref.ReplayReport()
    for chunk in manifest["chunks"]:
        if max_games is not None and total.games >= max_games:
            break
        files = chunk["files"]
        if "events" not in files:
            raise SimError(f"{path}: chunk {chunk['index']} has no events file")
        read = {
            name: pq.read_table(path / files[name]["path"]) if name in files else None
            for name in ("games", "seats", "events")
        }
        left = None if max_games is None else max_games - total.games
        part = ref.replay_tables(
            resolved, read["games"], read["seats"], read["events"], max_games=left, rules=rules
        )
        for div in part.divergences:
            div.dataset = str(path)
        total.merge(part)
        if on_chunk is not None:
            on_chunk(total)
    return total
