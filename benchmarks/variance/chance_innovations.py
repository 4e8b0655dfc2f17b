"""How much of who wins do the Entrance's draws explain?  A control variate built from the
in-game chance of The Bloody Inn (an AIVAT-style correction with a linear value).

    sim run configs/bloody_inn/strategies/expert-3p.toml --games 30000 --events -o DIR
    python benchmarks/variance/chance_innovations.py DIR [--seat 0] [--buckets 4]

Every traveller reaches play through the face-up Entrance (BI-S2, BI-E1, BI-E3): each card
revealed is a uniform draw from the cards it could still have been (season 1: every
traveller not yet revealed, the box included; season 2: the reshuffled Exit not yet
revealed).  For each reveal, its pocket money, rank and type minus their mean over those
cards is a *martingale difference* (mean 0 given everything before it), whatever the players
do.  Summed per game by the seat that places the card (the first player of the round it
enters, fixed before it is revealed), the season and a bucket of three rounds, they form
covariates with an exact mean of 0, so ``y - X b`` is unbiased for any ``b`` fitted on other
games (10 folds by game id).  The script prints the plain and adjusted estimates of the
seat's win share, the cross-fitted variance ratio (1: no game saved; 0.25 would be the 4x the
issue asks) and the in-sample R² of the covariates (an upper bound of what they can explain).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import polars as pl

TYPES = ("merchant", "artisan", "religious", "police")  # noble left out: the counts add to 1


def _attrs(card):
    return [card["pocket"], card["rank"]] + [1.0 if card["type"] == t else 0.0 for t in TYPES]


def covariates(path, buckets):
    """Game ids and the ``(games, k)`` covariates of the run in ``path`` (with events)."""
    resolved = json.loads((Path(path) / "manifest.json").read_text())["resolved"]
    players = resolved["players"]
    travellers = [c for c in resolved["cards"] if c["type"] not in ("peasant", "aid")]
    attr = {c["id"]: np.array(_attrs(c)) for c in travellers}
    every = np.array([_attrs(c) for c in travellers for _ in range(c["copies"])])
    width = every.shape[1]
    ev = (
        pl.scan_parquet(f"{path}/events/*.parquet")
        .filter(pl.col("kind").is_in(["deck", "season", "place"]))
        .select("game_id", "seq", "round", "kind", "seat", "card", "card_kind")
        .sort("game_id", "seq")
        .collect()
    )
    games = ev["game_id"].unique().sort().to_numpy()
    row = {g: i for i, g in enumerate(games)}
    x = np.zeros((len(games), 2 * players * buckets * width))
    for (gid,), grp in ev.group_by(["game_id"], maintain_order=True):
        order, placed, first_round, season = {1: [], 2: []}, {}, {}, 1
        for kind, name, seat, card, rnd in grp.select(
            "kind", "card_kind", "seat", "card", "round"
        ).iter_rows():
            if kind == "deck":
                order[1].append((card, name))
            elif kind == "season":  # BI-E3: the Exit, shuffled, is the new Entrance
                season = 2
                order[2].append((card, name))
            else:
                first_round.setdefault(season, rnd)
                placed[(season, card)] = (seat, min(buckets - 1, (rnd - first_round[season]) // 3))
        for s in (1, 2):
            pool = every if s == 1 else np.array([attr[n] for _, n in order[2]]).reshape(-1, width)
            total, left = pool.sum(axis=0), len(pool)
            for card, name in order[s]:
                z = attr[name] - total / left  # the reveal minus what it could have been
                total, left = total - attr[name], left - 1
                if (s, card) not in placed:
                    continue  # revealed, never placed: no cell (a weight of 0 keeps the mean 0)
                seat, bucket = placed[(s, card)]
                cell = ((s - 1) * players + seat) * buckets + bucket
                x[row[gid], cell * width : (cell + 1) * width] += z
    return games, x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--seat", type=int, default=0)
    ap.add_argument("--buckets", type=int, default=4, help="buckets of three rounds per season")
    args = ap.parse_args()
    games, x = covariates(args.dataset, args.buckets)
    seats = (
        pl.scan_parquet(f"{args.dataset}/seats/*.parquet")
        .filter(pl.col("seat") == args.seat)
        .select("game_id", "win")
        .collect()
    )
    y = pl.DataFrame({"game_id": games}).join(seats, on="game_id", how="left")["win"].to_numpy().astype(float)
    adjusted = y.copy()
    fold = games % 10
    for k in range(10):
        fit = fold != k
        b = np.linalg.lstsq(np.column_stack([np.ones(fit.sum()), x[fit]]), y[fit], rcond=None)[0]
        adjusted[~fit] = y[~fit] - x[~fit] @ b[1:]
    n = len(y)
    z = np.column_stack([np.ones(n), x])
    resid = y - z @ np.linalg.lstsq(z, y, rcond=None)[0]
    print(
        json.dumps(
            {
                "games": n,
                "covariates": x.shape[1],
                "covariate_means_max_abs": float(np.abs(x.mean(axis=0)).max()),
                "plain": [float(y.mean()), float(1.96 * y.std(ddof=1) / np.sqrt(n))],
                "adjusted": [float(adjusted.mean()), float(1.96 * adjusted.std(ddof=1) / np.sqrt(n))],
                "variance_ratio": float(adjusted.var(ddof=1) / y.var(ddof=1)),
                "r2_in_sample": float(1 - (resid**2).sum() / ((y - y.mean()) ** 2).sum()),
            }
        )
    )


if __name__ == "__main__":
    main()
