"""The meta-game: a round-robin of strategies on duplicate deals (``sim meta``).

A meta config names a game, a player count and a list of strategies (each a name, a
strategy and its parameters, like a study's ladder rungs)::

    game = "bloody_inn"
    players = 2
    games = 2_000              # games per pairing, rounded up to whole deals
    seed = 1
    [rules]
    length = "long"
    [[strategies]]
    name = "greedy"
    strategy = "greedy"
    [[strategies]]
    name = "search8"
    strategy = "search"
    params = { determinizations = 8 }

The run is a sweep over the pairings, one dataset per pairing, every pairing on the same
game ids from the same seed with ``rotate = "duplicate"``: game ``g`` plays deal
``g // players`` with the lineup rotated by ``g % players``, so each entry plays every seat
of every deal and the seat order's effect cancels within a deal; the pairings share their
deals (common random numbers), so a deal can be resampled across the whole table.

- 2 players: one pairing per unordered pair ``(row, col)``, lineup ``[row, col]``.
- 3-4 players: one pairing per ordered pair, lineup ``[row, col, col, ...]``: the *deviator*
  ``row`` alone in a *field* of ``col``.

The sweep's grid keys are ``row`` and ``col`` (lineup entry 0 is always ``row``); the
analysis is the ``meta`` question (``analysis/questions/meta.py``).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

from . import api
from . import sweep as sweeps
from .config import MAX_GAMES, MAX_SEED, check_keys, get_int, load_toml
from .errors import ConfigError
from .registry import game_names, get_adapter

META_KEYS = ("game", "players", "games", "seed", "name", "description", "rules", "strategies")
ENTRY_KEYS = ("name", "strategy", "params")
#: a strategy name is a point-directory and column label: plain characters only
_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,40}")
MAX_STRATEGIES = 12


@dataclass
class MetaPlan:
    """A validated meta config: its strategies and one resolved run config per pairing."""

    source: Path
    raw: dict
    names: list
    players: int
    #: ``[(row, col, resolved), ...]`` in play order
    pairings: list


def _entries(raw, source):
    """``[(name, {strategy, params}), ...]`` from ``raw["strategies"]`` (shape only; the
    strategies and their parameters are checked by the game's resolver per pairing)."""
    entries = raw.get("strategies")
    if not isinstance(entries, list) or not 2 <= len(entries) <= MAX_STRATEGIES:
        raise ConfigError(
            "strategies",
            entries,
            f"a list of 2 to {MAX_STRATEGIES} [[strategies]] tables (name, strategy, params)",
            source,
        )
    out, seen = [], set()
    for k, e in enumerate(entries):
        where = f"strategies.{k}."
        try:
            check_keys(e, ENTRY_KEYS, where)
            strategy = e.get("strategy")
            if not isinstance(strategy, str) or not strategy:
                raise ConfigError(where + "strategy", strategy, "a strategy name (sim strategies GAME)")
            name = e.get("name", strategy)
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                raise ConfigError(where + "name", name, "1-40 letters, digits or . _ + -")
            if name in seen:
                raise ConfigError(where + "name", name, "a name no other entry has")
            params = e.get("params", {})
            if not isinstance(params, dict):
                raise ConfigError(where + "params", params, "a table of the strategy's parameters")
        except ConfigError as exc:
            raise exc.with_source(source) from None
        seen.add(name)
        seat = {"strategy": strategy}
        if params:
            seat["params"] = copy.deepcopy(params)
        out.append((name, seat))
    return out


def _seat_key_to_entry(exc, lineup_entries):
    """A pairing's error on ``seats.N.<rest>`` named as ``strategies.K.<rest>``."""
    m = re.fullmatch(r"seats\.(\d+)(\..*)?", str(exc.key))
    if not m or int(m.group(1)) >= len(lineup_entries):
        return exc
    return ConfigError(
        f"strategies.{lineup_entries[int(m.group(1))]}{m.group(2) or ''}", exc.value, exc.allowed
    )


def plan(config, *, games=None, seed=None):
    """Validate a meta config and resolve every pairing.

    Parameters
    ----------
    config : path
        The meta config (TOML).
    games : int, optional
        Games per pairing (default: the config's), rounded up to whole deals.
    seed : int, optional
        Override the config's seed.

    Returns
    -------
    MetaPlan

    Raises
    ------
    ConfigError
        naming the file, the key (``strategies.K.params.x`` for a strategy's parameter), the
        bad value and what is allowed.
    """
    source = Path(config)
    raw = load_toml(source)
    src = str(source)
    try:
        check_keys(raw, META_KEYS)
        game = raw.get("game")
        if game not in game_names():
            raise ConfigError("game", game, " | ".join(game_names()))
        adapter = get_adapter(game)
        if not getattr(adapter, "duplicate_deals", False):
            raise ConfigError("game", game, "a game with duplicate deals (rotate = 'duplicate')")
        players = get_int(raw, "players", None, 2, min(4, adapter.max_players))
        n_games = get_int(raw, "games", None, 1, MAX_GAMES) if games is None else games
        get_int({"games": n_games}, "games", None, 1, MAX_GAMES)
        run_seed = get_int(raw, "seed", 1, 0, MAX_SEED) if seed is None else seed
        get_int({"seed": run_seed}, "seed", None, 0, MAX_SEED)
        if "rules" in raw and not isinstance(raw["rules"], dict):
            raise ConfigError("rules", raw["rules"], "a table of ruleset flags")
    except ConfigError as exc:
        raise exc.with_source(src) from None
    entries = _entries(raw, src)
    names = [n for n, _ in entries]
    index = {n: i for i, n in enumerate(names)}
    if players == 2:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    else:
        pairs = [(a, b) for a in names for b in names if a != b]
    whole = -(-n_games // players) * players  # whole deals
    seats_of = dict(entries)
    pairings = []
    for row, col in pairs:
        run = {
            "game": game,
            "players": players,
            "games": whole,
            "seed": run_seed,
            "rotate": "duplicate",
            "name": f"{raw.get('name') or source.stem}/{row}~{col}",
            "seats": [copy.deepcopy(seats_of[row])]
            + [copy.deepcopy(seats_of[col]) for _ in range(players - 1)],
        }
        if "rules" in raw:
            run["rules"] = copy.deepcopy(raw["rules"])
        try:
            resolved = api.resolve(run)
        except ConfigError as exc:
            lineup = [index[row]] + [index[col]] * (players - 1)
            raise _seat_key_to_entry(exc, lineup).with_source(src) from None
        pairings.append((row, col, resolved))
    return MetaPlan(source, raw, names, players, pairings)


def as_sweep(meta):
    """The round-robin as a :class:`sim.sweep.Sweep` over ``row`` and ``col``."""
    pts = []
    for i, (row, col, resolved) in enumerate(meta.pairings):
        values = {"row": row, "col": col}
        pts.append(sweeps.Point(sweeps.point_name(i, values), values, resolved))
    return sweeps.Sweep(meta.source, meta.source, {"row": list(meta.names), "col": list(meta.names)}, pts)
