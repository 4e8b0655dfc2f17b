"""A tiny stand-in game for runner/CLI tests: deterministic tables from (seed, game id).

Registered under the name ``fakegame`` by the tests (``sim.registry._ADAPTERS``).  Its
scores are a hash of (seed, game id, seat) so any mix-up of game ranges, chunk order or
seeds shows in the data.  ``rules.sleep_s`` sleeps per chunk, so a subprocess can be killed
in the middle of a run.
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa

from sim.config import check_keys, get_choice, get_float, get_int
from sim.errors import ConfigError
from sim.registry import Chunk

NAME = "fakegame"
STRATEGIES = {"random": {"aggression": 0.5}, "greedy": {"aggression": 1.0}}

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G = np.uint64(0x9E3779B97F4A7C15)


def _mix(z):
    z = z.astype(np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _hash(seed, ids, salt):
    with np.errstate(over="ignore"):
        return _mix(_mix(np.uint64(seed) + _G + np.uint64(salt) * _M2) ^ (ids.astype(np.uint64) * _M1))


class FakeAdapter:
    name = NAME
    title = "Fake game (tests only)"
    min_players = 1
    max_players = 4

    def resolve(self, raw):
        players = get_int(raw, "players", 2, 1, 4)
        rules = raw.get("rules", {})
        check_keys(rules, ("deck_size", "length", "sleep_s"), "rules.")
        r = {
            "deck_size": get_int(rules, "deck_size", 30, 10, 80, "rules."),
            "length": get_choice(rules, "length", "long", ("short", "long"), "rules."),
            "sleep_s": get_float(rules, "sleep_s", 0.0, 0.0, 5.0, "rules."),
        }
        seats = raw.get("seats", [{"strategy": "random"}])
        if not isinstance(seats, list) or not seats:
            raise ConfigError("seats", seats, "a non-empty list of seat tables")
        if len(seats) not in (1, players):
            raise ConfigError("seats", f"{len(seats)} entries", f"1 or {players} (one per seat)")
        out_seats = []
        for i, seat in enumerate(seats):
            p = f"seats.{i}."
            check_keys(seat, ("strategy", "params"), p)
            strat = get_choice(seat, "strategy", "random", tuple(STRATEGIES), p)
            params = seat.get("params", {})
            check_keys(params, tuple(STRATEGIES[strat]), p + "params.")
            out_seats.append(
                {
                    "strategy": strat,
                    "params": {
                        k: get_float(params, k, d, 0.0, 1.0, p + "params.")
                        for k, d in STRATEGIES[strat].items()
                    },
                }
            )
        if len(out_seats) == 1:
            out_seats = out_seats * players
        cards = raw.get("cards", {})
        check_keys(cards, ("marquis", "major"), "cards.")
        out_cards = {}
        for cid, edit in cards.items():
            check_keys(edit, ("rank",), f"cards.{cid}.")
            out_cards[cid] = {"rank": get_int(edit, "rank", 1, 1, 3, f"cards.{cid}.")}
        return {"players": players, "rules": r, "seats": out_seats, "cards": out_cards}

    def strategies(self):
        return [
            {
                "name": k,
                "description": f"{k} play",
                "params": dict(v),
                "param_help": {p: f"how often {k} attacks" for p in v},
            }
            for k, v in STRATEGIES.items()
        ]

    def tuning_bounds(self, strategy):
        return {p: (0.0, 1.0) for p in STRATEGIES.get(strategy, {})}

    def bench_config(self, players, lineup):
        return {"players": players, "seats": [{"strategy": s} for s in lineup]}

    def bench_targets(self):
        return []

    def dataset_facts(self, resolved):
        return {
            "columns": {
                "games": {"best_score": "the highest score"},
                "events": {"step": "step", "value": "v"},
            },
            "event_kinds": [],
        }

    def referee(self):
        return None

    def deals(self):
        return None

    def analyses(self):
        return ()

    def restrictions(self, resolved):
        return None

    def simulate_chunk(self, resolved, start, count, *, events):
        if resolved["rules"]["sleep_s"]:
            time.sleep(resolved["rules"]["sleep_s"])
        n = resolved["players"]
        seed = resolved["seed"]
        ids = np.arange(start, start + count, dtype=np.int64)
        h = _hash(seed, ids, 0)
        rounds = (5 + h % np.uint64(10)).astype(np.int16)
        deck = resolved["rules"]["deck_size"]
        scores = np.stack(
            [(_hash(seed, ids, 1 + s) % np.uint64(deck)).astype(np.int16) for s in range(n)], axis=1
        )
        best = scores.max(axis=1)
        is_best = scores == best[:, None]
        n_win = is_best.sum(axis=1).astype(np.int8)
        winner = np.where(n_win == 1, scores.argmax(axis=1), -1).astype(np.int8)
        games = pa.table(
            {
                "game_id": ids,
                "players": np.full(count, n, np.int8),
                "rounds": rounds,
                "turns": (rounds.astype(np.int32) * n),
                "winner": winner,
                "n_winners": n_win,
                "truncated": np.zeros(count, np.int8),
                "best_score": best.astype(np.int16),
            }
        )
        names = [s["strategy"] for s in resolved["seats"]]
        shift = (ids % n) if resolved["rotate"] else np.zeros(count, np.int64)
        seat = np.tile(np.arange(n, dtype=np.int8), count)
        gid = np.repeat(ids, n)
        strat_idx = (seat + np.repeat(shift, n)) % n
        flat = scores.reshape(-1)
        place = (1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)).reshape(-1).astype(np.int8)
        win = np.where(is_best, 1.0 / n_win[:, None], 0.0).reshape(-1).astype(np.float32)
        seats = pa.table(
            {
                "game_id": gid,
                "seat": seat,
                "strategy": pa.array([names[i] for i in strat_idx], pa.string()),
                "score": flat,
                "place": place,
                "win": win,
            }
        )
        ev = None
        if events:
            eg = np.repeat(ids, 3)
            ev = pa.table(
                {
                    "game_id": eg,
                    "step": np.tile(np.arange(3, dtype=np.int16), count),
                    "value": (_hash(seed, eg * 3 + np.tile(np.arange(3), count), 99) % np.uint64(100)).astype(
                        np.int16
                    ),
                }
            )
        return Chunk(games, seats, ev)


ADAPTER = FakeAdapter()


def install():
    """Register the fake game (for subprocesses: ``import fake_adapter; fake_adapter.install()``)."""
    from sim import registry

    registry._ADAPTERS[NAME] = "fake_adapter"
