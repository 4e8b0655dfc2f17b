"""How many games racing saves against a fixed budget per candidate (``sim balance``).

Both arms see the same candidates: the ``random`` optimiser's proposals do not depend on the
values it is told, so with the same seed and without the incumbent's one-change-fewer
variants (``simplify=False``: which variants are queued depends on each arm's incumbent) both
arms try the same list.  The fixed arm plays
every candidate the last rung's games; the racing arm plays the spec's rungs (successive
halving and the sequential test).  Each arm's choice (its incumbent: lowest loss on the search
deals) is then confirmed on the same fresh deals with the strong player (the same games for
both, so at equal confirmation accuracy), so the arms are compared by the games they played
and by how good what they chose is on deals neither saw (the confirmed loss with its bounds
and every objective's 95% interval).

    python benchmarks/balance/racing.py [SPEC] [--candidates N] [--seeds 27,31]

Prints one JSON line per seed and a summary line.
"""

from __future__ import annotations

import argparse
import json
import time

from sim import api
from sim.balance import Search
from sim.balance_spec import load_spec


def arm(spec, seed, candidates, rungs):
    racing = dict(spec.racing, rungs=rungs)
    s = Search(
        spec,
        optimizer="random",
        racing=racing,
        seed=seed,
        max_candidates=candidates,
        budget_games=10**12,
        progress=False,
        simplify=False,  # no incumbent variants: the arms' lists would differ with their incumbents
    )
    t0 = time.monotonic()
    s.run(confirm=False)
    elapsed = time.monotonic() - t0
    (official, off_ev), (best, ev) = s.confirm([s.official, s.incumbent])
    return {
        "games": s.games,
        "seconds": round(elapsed, 1),
        "candidates": len(s.order),
        "chosen": spec.describe(best.values),
        "search_loss": round(best.final["loss"], 3),
        "confirmed_loss": round(ev["loss"], 3),
        "confirmed_loss_bounds": [round(ev["loss_lo"], 3), round(ev["loss_hi"], 3)],
        "confirmed_meets": ev["meets"],
        "confirmed": _intervals(ev),
        "official_confirmed_loss": round(off_ev["loss"], 3),
        "official_confirmed": _intervals(off_ev),
    }


def _intervals(ev):
    """Each objective's confirmed estimate and 95% interval, by its label."""
    return {
        r["objective"]: [round(r["estimate"], 2), round(r["lo"], 2), round(r["hi"], 2)] for r in ev["rows"]
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec", nargs="?", default="configs/balance/bloody_inn-fair-seats.toml")
    ap.add_argument("--candidates", type=int, default=46)
    ap.add_argument("--seeds", default="27")
    args = ap.parse_args()
    api.set_threads(None)
    spec = load_spec(args.spec)
    ratios = []
    for seed in [int(x) for x in args.seeds.split(",")]:
        raced = arm(spec, seed, args.candidates, spec.racing["rungs"])
        fixed = arm(spec, seed, args.candidates, spec.racing["rungs"][-1:])
        ratio = fixed["games"] / raced["games"]
        ratios.append(ratio)
        print(
            json.dumps({"seed": seed, "racing": raced, "fixed": fixed, "games_ratio": round(ratio, 2)}),
            flush=True,
        )
    print(
        json.dumps(
            {"spec": args.spec, "candidates": args.candidates, "games_ratio": [round(r, 2) for r in ratios]}
        )
    )


if __name__ == "__main__":
    main()
