"""Hash of the rows both games write, to show a refactor of the output columns changes none.

Issue 13 ("Bloody Inn's kernel writes one typed 1-D column per field"): run this on ``main``
before the change and on the branch after it; the two outputs must be identical.

Every shipped example run config (``configs/bloody_inn/*.toml``, ``configs/cluedo/*.toml``)
is played with fewer games, plus Bloody Inn's random, greedy and expert at every seat at 1-4
players, a solo short game, a duplicate-deal run with the invariant checks on (its two extra
columns) and every Cluedo agent at 3 players, all with the event log.  For each run it prints
the sha256 of the games, seats and events tables as Arrow IPC bytes: equal hashes mean the
same column names, types, order and values.

    PYTHONPATH=. python benchmarks/issue13/hash_rows.py [--games 300] > hashes.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import pyarrow as pa

from sim import api
from sim.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def digest(table):
    """sha256 of a table's Arrow IPC stream (schema and values)."""
    if table is None:
        return "-"
    sink = pa.BufferOutputStream()
    table = table.combine_chunks()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()[:16]


def runs(games):
    """(label, config) pairs: the shipped run configs, then the strategy grid."""
    for game in ("bloody_inn", "cluedo"):
        for path in sorted((ROOT / "configs" / game).glob("*.toml")):
            try:
                api.resolve(path)
            except ConfigError:
                continue  # a study or sweep file, not a run config
            yield f"{game}/{path.name}", {"path": path}
    for strategy in ("random", "greedy", "expert"):
        for players in (1, 2, 3, 4):
            seats = [{"strategy": strategy}]
            yield (
                f"bloody_inn {strategy} {players}p",
                {"game": "bloody_inn", "players": players, "seats": seats},
            )
    yield (
        "bloody_inn solo short heuristic",
        {
            "game": "bloody_inn",
            "players": 1,
            "rules": {"length": "short"},
            "seats": [{"strategy": "heuristic"}],
        },
    )
    mixed = [{"strategy": s} for s in ("expert", "killer", "builder")]
    yield (
        "bloody_inn 3p duplicate deals, invariants checked",
        {
            "game": "bloody_inn",
            "players": 3,
            "rotate": "duplicate",
            "rules": {"check_invariants": True},
            "seats": mixed,
        },
    )
    for agent in ("naive", "logic", "prob"):
        yield f"cluedo {agent} 3p", {"game": "cluedo", "players": 3, "seats": [{"strategy": agent}]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games per run")
    args = ap.parse_args(argv)
    for label, spec in runs(args.games):
        config = spec.pop("path") if "path" in spec else {**spec, "seed": 13}
        result = api.simulate(config, games=args.games, events=True)
        hashes = " ".join(digest(t) for t in (result.games, result.seats, result.events))
        print(f"{label:52s} {hashes}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
