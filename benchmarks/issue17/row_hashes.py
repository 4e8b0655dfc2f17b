"""Hash the games, seats and events rows of a fixed set of Bloody Inn configs (issue 13/17).

Used to prove that a refactor or a speed-up of a policy keeps every choice: run it on the
commit before and after and compare.

Usage::

    PYTHONPATH=. python benchmarks/issue17/row_hashes.py OUT.json [--games N]
    python benchmarks/issue17/row_hashes.py --compare A.json B.json

The set: every shipped ``configs/bloody_inn/**/*.toml`` run config; ``expert`` and
``heuristic`` at 1-4 players, long and short game; the archetypes; mixed lineups; rule
variants and parameter signs that reach the policy's other branches (unlimited wealth,
non-unique annexes, no voluntary dismissal, one season, two deck copies, restricted seats,
negative weights, which turn off the heuristic's pruning); and a small ``search`` config
(40 games, 2 players) whose rollouts and candidates come from the heuristic.  Each config
is played in memory (``sim.api.simulate``, events on) with ``N`` games (default 2000; 40 or
20 for the configs with a search seat); each table is sorted by all its columns and hashed column by column
(name, dtype and values), so row order and chunking do not matter.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import polars as pl
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def configs(n):
    """(name, config, games) of the hash set."""
    out = []
    for f in sorted((ROOT / "configs/bloody_inn").rglob("*.toml")):
        data = tomllib.loads(f.read_text())
        if data.get("game") != "bloody_inn" or "seats" not in data:
            continue  # strategy parameter files and tuning settings are not run configs
        searching = any(seat.get("strategy") == "search" for seat in data["seats"])
        out.append((str(f.relative_to(ROOT)), str(f), 20 if searching else n))
    for strat in ("expert", "heuristic"):
        for players in (1, 2, 3, 4):
            for length in ("long", "short"):
                cfg = {
                    "game": "bloody_inn",
                    "players": players,
                    "seed": 7,
                    "rules": {"length": length},
                    "seats": [{"strategy": strat}],
                }
                out.append((f"{strat}-{players}p-{length}", cfg, n))
    arche = [{"strategy": s} for s in ("killer", "builder", "briber", "banker")]
    out.append(("archetypes-4p", {"game": "bloody_inn", "players": 4, "seed": 3, "seats": arche}, n))
    mixed = [{"strategy": s} for s in ("expert", "greedy", "random", "heuristic")]
    out.append(("mixed-4p", {"game": "bloody_inn", "players": 4, "seed": 4, "seats": mixed}, n))
    variants = {
        "unlimited": {"unlimited_wealth": True},
        "nonunique": {"unique_annexes": False},
        "novoluntary": {"voluntary_dismissal": False},
        "oneseason": {"seasons": 1},
        "copies2": {"deck_copies": 2},
        "strict-final": {"final_round": "strict", "season_change": "on_next_draw"},
    }
    for name, rules in variants.items():
        cfg = {
            "game": "bloody_inn",
            "players": 3,
            "seed": 5,
            "rules": rules,
            "seats": [{"strategy": "expert"}],
        }
        out.append((f"expert-3p-{name}", cfg, n))
    restrict = [
        {"strategy": "expert", "restrict": {"actions": ["kill", "launder"]}},
        {"strategy": "expert", "restrict": {"actions": ["bribe"], "build": ["priest", "archbishop"]}},
        {"strategy": "expert", "restrict": {"actions": ["bury", "build"]}},
    ]
    out.append(
        ("expert-3p-restricted", {"game": "bloody_inn", "players": 3, "seed": 6, "seats": restrict}, n)
    )
    neg = {"police_risk": -0.5, "corpse_value": -0.3, "kill_bias": 3.0, "hand_target": 2.0}
    out.append(
        (
            "heuristic-3p-negative",
            {
                "game": "bloody_inn",
                "players": 3,
                "seed": 8,
                "seats": [{"strategy": "heuristic", "params": neg}],
            },
            n,
        )
    )
    brp = ROOT / "configs/bloody_inn/strategies/best-response-expert-2p.toml"
    br = [{"strategy": "heuristic", "params_file": str(brp)}, {"strategy": "expert"}]
    out.append(("best-response-2p", {"game": "bloody_inn", "players": 2, "seed": 9, "seats": br}, n))
    search = [{"strategy": "search", "params": {"determinizations": 4}}, {"strategy": "expert"}]
    out.append(("search-2p", {"game": "bloody_inn", "players": 2, "seed": 10, "seats": search}, 40))
    search3 = [{"strategy": "search"}, {"strategy": "expert"}, {"strategy": "heuristic"}]
    out.append(("search-3p-default", {"game": "bloody_inn", "players": 3, "seed": 11, "seats": search3}, 20))
    return out


def table_hash(table):
    """sha256 of a table sorted by all its columns (names, dtypes and values)."""
    df = pl.from_arrow(table)
    df = df.sort(df.columns)
    h = hashlib.sha256()
    for name in df.columns:
        s = df[name]
        h.update(f"{name}:{s.dtype}:".encode())
        if s.dtype.is_numeric() or s.dtype == pl.Boolean:
            h.update(s.to_numpy().tobytes())
        else:
            h.update("\x1f".join(map(str, s.to_list())).encode())
    return h.hexdigest(), df.height


def main(argv):
    if argv and argv[0] == "--compare":
        a = json.loads(Path(argv[1]).read_text())
        b = json.loads(Path(argv[2]).read_text())
        same = diff = 0
        for k in sorted(set(a) | set(b)):
            if a.get(k) == b.get(k):
                same += 1
            else:
                diff += 1
                print("DIFFERENT", k, a.get(k), b.get(k))
        print(f"{same} configs identical, {diff} different")
        return 1 if diff else 0
    from sim import api

    out_path = Path(argv[0])
    n = int(argv[argv.index("--games") + 1]) if "--games" in argv else 2000
    res = {}
    for name, cfg, games in configs(n):
        t = time.time()
        r = api.simulate(cfg, games=games, events=True)
        res[name] = {}
        for tname in ("games", "seats", "events"):
            digest, rows = table_hash(getattr(r, tname))
            res[name][tname] = [digest, rows]
        print(f"{name}: {time.time() - t:.1f}s {res[name]['games'][0][:12]}", file=sys.stderr, flush=True)
    out_path.write_text(json.dumps(res, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
