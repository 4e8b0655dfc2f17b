"""Reproduce the strategy tables of docs/strategies.md.

    python benchmarks/strategies/measure.py [--games 100000] [--out results/strategies]

Plays every cell with ``sim.api.simulate`` (rotated seats, long games, seed 2024), prints
Markdown tables with 95% intervals (Wilson for shares, normal for means) and writes them,
with the raw numbers as JSON, to ``--out``.  Cells:

- solo: ``expert`` alone, score against the rulebook bands (BI-X3) and the loss rate;
- 2 players: ``expert`` against each other strategy;
- 3 and 4 players: mixed tables, win share by seat for every strategy;
- behaviour: each strategy at every seat of a 3-player table (self-play), mean kills,
  bribes, builds, buried money, cheques and fines per game.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import polars as pl

from analysis.stats import Z95 as Z
from analysis.stats import wilson
from sim import api

SEED = 2024
BANDS = [
    ("lost", None, None),
    ("below 110", -30000, 110),
    ("110-129 worrying", 110, 130),
    ("130-149 hazardous", 130, 150),
    ("150-169 evil", 150, 170),
    ("170+ demonic", 170, 30000),
]
OPPONENTS = ("random", "greedy", "heuristic", "killer", "builder", "briber", "banker")
MIXED = {
    3: [
        ("expert", "killer", "builder"),
        ("expert", "briber", "banker"),
        ("killer", "builder", "briber"),
        ("builder", "briber", "banker"),
        ("heuristic", "greedy", "random"),
    ],
    4: [
        ("killer", "builder", "briber", "banker"),
        ("expert", "killer", "builder", "briber"),
        ("expert", "builder", "briber", "banker"),
        ("expert", "heuristic", "greedy", "random"),
    ],
}
BEHAVIOUR = ("random", "greedy", "heuristic", "killer", "builder", "briber", "banker", "expert")


def share(k, n):
    lo, hi = wilson(k, n)
    return {"value": k / n, "lo": lo, "hi": hi, "n": n}


def mean_ci(x):
    x = x.cast(pl.Float64)
    n = x.len()
    m = x.mean()
    h = Z * x.std() / math.sqrt(n) if n > 1 else 0.0
    return {"value": m, "lo": m - h, "hi": m + h, "n": n}


def fmt_share(s, pct=True):
    f = 100 if pct else 1
    return f"{f * s['value']:.1f}% [{f * s['lo']:.1f}, {f * s['hi']:.1f}]"


def fmt_mean(s, d=1):
    return f"{s['value']:.{d}f} [{s['lo']:.{d}f}, {s['hi']:.{d}f}]"


def play(players, lineup, games):
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": SEED,
        "rotate": True,
        "rules": {"length": "long"},
        "seats": [{"strategy": s} for s in lineup],
    }
    t = time.perf_counter()
    r = api.simulate(cfg)
    return pl.from_arrow(r.seats), pl.from_arrow(r.games), time.perf_counter() - t


def solo(games):
    s, g, dt = play(1, ["expert"], games)
    n = s.height
    lost = int(s["solo_lost"].sum())
    out = {
        "games": n,
        "seconds": dt,
        "loss": share(lost, n),
        "mean_score_not_lost": mean_ci(s.filter(pl.col("solo_lost") == 0)["score"]),
        "mean_score_lost_as_0": mean_ci(
            s.select(pl.when(pl.col("solo_lost") == 1).then(0).otherwise(pl.col("score")).alias("x"))["x"]
        ),
        "bands": {},
    }
    ok = s.filter(pl.col("solo_lost") == 0)["score"].cast(pl.Int32)
    for name, lo, hi in BANDS:
        k = lost if lo is None else int(((ok >= lo) & (ok < hi)).sum())
        out["bands"][name] = share(k, n)
    q = ok.quantile
    out["quantiles"] = {str(p): q(p) for p in (0.05, 0.25, 0.5, 0.75, 0.95)}
    return out


def heads_up(games):
    out = {}
    for opp in OPPONENTS:
        s, g, dt = play(2, ["expert", opp], games)
        me = s.filter(pl.col("lineup") == 0)
        out[opp] = {
            "games": me.height,
            "win": share(float(me["win"].sum()), me.height),
            "score": mean_ci(me["score"]),
            "opp_score": mean_ci(s.filter(pl.col("lineup") == 1)["score"]),
            "seconds": dt,
        }
    return out


def mixed(games):
    out = {}
    for players, tables in MIXED.items():
        for lineup in tables:
            s, g, dt = play(players, list(lineup), games)
            key = f"{players}p: " + ", ".join(lineup)
            cell = {"games": g.height, "seconds": dt, "by_strategy": {}}
            for name in lineup:
                mine = s.filter(pl.col("strategy") == name)
                row = {"all": share(float(mine["win"].sum()), mine.height)}
                for seat in range(players):
                    m = mine.filter(pl.col("seat") == seat)
                    row[f"seat {seat}"] = share(float(m["win"].sum()), m.height)
                row["score"] = mean_ci(mine["score"])
                cell["by_strategy"][name] = row
            out[key] = cell
    return out


def behaviour(games):
    out = {}
    for name in BEHAVIOUR:
        s, g, dt = play(3, [name], games)
        s = s.with_columns(travellers_bribed=pl.col("bribes") - pl.col("peasants_bribed"))
        out[name] = {
            c: mean_ci(s[c])
            for c in (
                "score",
                "kills",
                "bribes",
                "travellers_bribed",
                "peasants_bribed",
                "builds",
                "buried_money",
                "cheques",
                "fines",
                "wages",
            )
        }
        out[name]["seat_games"] = s.height
        out[name]["seconds"] = dt
    return out


def markdown(res, games):
    L = []
    so = res["solo"]
    L += [
        f"### Solo, long game ({so['games']:,} games)",
        "",
        f"- mean score of the games not lost: {fmt_mean(so['mean_score_not_lost'])}",
        f"- mean score counting a lost game as 0: {fmt_mean(so['mean_score_lost_as_0'])}",
        f"- solo loss rate (BI-X2): {fmt_share(so['loss'])}",
        "- score quantiles (games not lost): "
        + ", ".join(f"{float(k):.0%} {v:.0f}" for k, v in so["quantiles"].items()),
        "",
        "| rating (BI-X3) | share of games [95% CI] |",
        "|---|---|",
    ]
    L += [f"| {k} | {fmt_share(v)} |" for k, v in so["bands"].items()]
    L += [
        "",
        f"### 2 players: `expert` against each strategy ({games:,} games each)",
        "",
        "| opponent | expert win share [95% CI] | expert mean score | opponent mean score |",
        "|---|---|---|---|",
    ]
    for opp, c in res["heads_up"].items():
        L.append(f"| {opp} | {fmt_share(c['win'])} | {fmt_mean(c['score'])} | {fmt_mean(c['opp_score'])} |")
    L += ["", f"### Mixed tables: win share by seat ({games:,} games each, seats rotated)", ""]
    for key, cell in res["mixed"].items():
        players = int(key[0])
        L += [
            f"**{key}**",
            "",
            "| strategy | all seats | " + " | ".join(f"seat {i}" for i in range(players)) + " | mean score |",
            "|---" * (players + 3) + "|",
        ]
        for name, row in cell["by_strategy"].items():
            L.append(
                f"| {name} | {fmt_share(row['all'])} | "
                + " | ".join(fmt_share(row[f"seat {i}"]) for i in range(players))
                + f" | {fmt_mean(row['score'])} |"
            )
        L.append("")
    L += [
        f"### Behaviour per strategy: 3 players, the strategy at every seat "
        f"({games:,} games, {3 * games:,} seat-games each)",
        "",
        "| strategy | kills | bribes (travellers + peasants) | builds | buried money | "
        "cheques | fines | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, b in res["behaviour"].items():
        L.append(
            f"| {name} | {fmt_mean(b['kills'], 2)} | {fmt_mean(b['bribes'], 2)} "
            f"({b['travellers_bribed']['value']:.2f} + {b['peasants_bribed']['value']:.2f})"
            f" | {fmt_mean(b['builds'], 2)} | {fmt_mean(b['buried_money'])} | "
            f"{fmt_mean(b['cheques'], 2)} | {fmt_mean(b['fines'], 2)} | "
            f"{fmt_mean(b['score'])} |"
        )
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--out", default="results/strategies")
    ap.add_argument("--only", default="solo,heads_up,mixed,behaviour")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    res = {"games_per_cell": a.games, "seed": SEED}
    for part in a.only.split(","):
        t = time.perf_counter()
        res[part] = globals()[part](a.games)
        print(f"{part}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        (out / "tables.json").write_text(json.dumps(res, indent=1))
    if all(k in res for k in ("solo", "heads_up", "mixed", "behaviour")):
        md = markdown(res, a.games)
        (out / "tables.md").write_text(md)
        print(md)


if __name__ == "__main__":
    main()
