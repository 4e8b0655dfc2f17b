"""Which optimiser should ``sim balance`` use?  The same spec, the same games budget, the
same racing, several seeds; each run's incumbent is confirmed on the same fresh deals.

    python benchmarks/balance/optimisers.py [SPEC] [--budget-games N] [--seeds 27,31]
        [--optimizers tpe,nsga2,ngopt,random]

Prints one JSON line per (optimiser, seed): candidates tried, the incumbent's loss on the
search deals and on the fresh deals, whether it meets every target there, and the games.
"""

from __future__ import annotations

import argparse
import json
import time

from sim import api
from sim.balance import Search
from sim.balance_spec import load_spec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec", nargs="?", default="configs/balance/bloody_inn-fair-seats.toml")
    ap.add_argument("--budget-games", type=int, default=4_000_000)
    ap.add_argument("--seeds", default="27")
    ap.add_argument("--optimizers", default="tpe,nsga2,ngopt,random")
    args = ap.parse_args()
    api.set_threads(None)
    spec = load_spec(args.spec)
    for seed in [int(x) for x in args.seeds.split(",")]:
        for opt in args.optimizers.split(","):
            s = Search(spec, optimizer=opt, seed=seed, budget_games=args.budget_games, progress=False)
            t0 = time.monotonic()
            s.run(confirm=False)
            elapsed = time.monotonic() - t0
            (_, off), (best, ev) = s.confirm([s.official, s.incumbent])
            row = {
                "optimizer": opt,
                "seed": seed,
                "budget_games": args.budget_games,
                "games": s.games,
                "seconds": round(elapsed, 1),
                "candidates": len(s.order),
                "fully_played": len(s.full()),
                "incumbent": spec.describe(best.values),
                "changes": len(best.changes),
                "search_loss": round(best.final["loss"], 3),
                "confirmed_loss": round(ev["loss"], 3),
                "confirmed_meets": ev["meets"],
                "official_confirmed_loss": round(off["loss"], 3),
                "front": [(len(c.changes), round(c.final["loss"], 3)) for c in s.front()],
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
