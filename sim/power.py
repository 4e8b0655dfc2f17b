"""Restricted-play experiments: the arms of ``sim power``.

An experiment is a sweep over one key, ``arm``: the ``baseline`` (the run config as it is)
and one arm per restriction, in which lineup entry 0 never builds one annex
(``card:<id>``) or never takes one action (``action:<name>``).  Every arm plays the same
game ids from the same seed with ``rotate = "duplicate"``, so each deal (shuffle, keys,
first seat) is played once per rotation in every arm: the arms differ only by the
restriction, and the analysis (``analysis/questions/power.py``) pairs them deal by deal.
"""

from __future__ import annotations

import copy

from . import api
from . import sweep as sweeps
from .config import load_run_config
from .errors import ConfigError
from .registry import get_adapter

BASELINE = "baseline"
POWER_FORMAT = "boardsim-power"


def parse_cards(value, allowed):
    """``ALL`` or comma-separated card ids -> list of the ``allowed`` ids (validated)."""
    if value is None:
        return []
    if value.strip().upper() == "ALL":
        return allowed
    ids = [v.strip() for v in value.split(",") if v.strip()]
    if not ids:
        raise ConfigError("--cards", value, "ALL or comma-separated card ids that can be annexes")
    for cid in ids:
        if cid not in allowed:
            raise ConfigError("--cards", cid, "ALL or card ids that can be annexes: " + ", ".join(allowed))
    return list(dict.fromkeys(ids))


def _restrict(raw_seats, players, kind, target):
    """Seats with entry 0 barred from ``target`` (merged into any restriction it has)."""
    seats = raw_seats if isinstance(raw_seats, list) else [raw_seats]
    if len(seats) == 1 and players > 1:
        seats = [copy.deepcopy(seats[0]) for _ in range(players)]
    seats = copy.deepcopy(seats)
    r = dict(seats[0].get("restrict") or {})
    key = "build" if kind == "card" else "actions"
    r[key] = list(r.get(key, [])) + [target]
    seats[0]["restrict"] = r
    return seats


CHARACTERS = "characters"


def plan(config, *, cards=None, actions=False, games=None, seed=None, characters=None):
    """The experiment's points: ``[(arm, resolved config), ...]``, baseline first.

    Parameters
    ----------
    config : path | dict
        A run config of a game with restricted play (its adapter's ``restrictions``).
    cards : str, optional
        ``"ALL"`` or comma-separated annex card ids: one arm per card.
    actions : bool
        One arm per action the game lets a seat be barred from.
    games : int, optional
        Games per arm (rounded up to whole deals, a multiple of the player count).
    characters : bool, optional
        Add the ``characters`` arm (a game whose adapter offers it, Cluedo): the same deals
        with the deal's characters rotated over the seats game by game, nobody restricted, so
        a character's win share is measured at every seat.  Default: when the game has it.
    """
    raw, source = load_run_config(config)
    base = api.resolve(config, games=games, seed=seed)
    adapter = get_adapter(base["game"])
    allowed = adapter.restrictions(base)
    if allowed is None:
        raise ConfigError(
            "game",
            base["game"],
            "a game with restricted play (sim power bars one seat from an action)",
            source,
        )
    players = base["players"]
    if players < 2:
        raise ConfigError(
            "players",
            players,
            f"2 to {adapter.max_players} (power compares a restricted seat with others)",
            source,
        )
    raw["rotate"] = "duplicate"
    raw["games"] = -(-base["games"] // players) * players  # whole deals
    if seed is not None:
        raw["seed"] = seed
    raw.setdefault("seats", [{"strategy": "random"}])
    arms = [(BASELINE, None, None)]
    arms += [(f"card:{c}", "card", c) for c in parse_cards(cards, allowed["build"])]
    if actions:
        arms += [(f"action:{a}", "action", a) for a in allowed["actions"]]
    if characters is None:
        characters = bool(allowed.get("characters"))
    if characters and allowed.get("characters"):
        arms.append((CHARACTERS, CHARACTERS, None))
    if len(arms) == 1:
        raise ConfigError("--cards/--actions", "none", "--cards ALL|ids and/or --actions")
    out = []
    for arm, kind, target in arms:
        pt = copy.deepcopy(raw)
        if kind == CHARACTERS:
            pt["rules"] = dict(pt.get("rules") or {}, characters="permute")
        elif kind is not None:
            pt["seats"] = _restrict(pt["seats"], players, kind, target)
        pt["name"] = f"power/{arm}"
        try:
            resolved = api.resolve(pt)
        except ConfigError as exc:
            raise exc.with_source(source) from None
        out.append((arm, resolved))
    return out


def as_sweep(points, source=None):
    """The experiment as a :class:`sim.sweep.Sweep` over ``arm`` (for ``run_sweep``)."""
    pts = [
        sweeps.Point(sweeps.point_name(i, {"arm": arm}), {"arm": arm}, resolved)
        for i, (arm, resolved) in enumerate(points)
    ]
    return sweeps.Sweep(source, source, {"arm": [a for a, _ in points]}, pts)
