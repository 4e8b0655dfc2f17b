"""The strategy tables of docs/strategies.md, played and rendered from the code.

    python -m sim.docs --record strategy-tables      # plays every cell, writes docs/results/
    python -m sim.docs                                # rewrites the docs' blocks from that file

Every cell is played with :func:`sim.api.simulate` (long game, rotated seats, seed 2024);
intervals are 95%: Wilson for shares, normal for means.  Cells:

- solo: ``expert`` alone, its score against the rulebook's bands (BI-X3) and its loss rate (BI-X2);
- 2 players: ``expert`` against each other strategy;
- 3 and 4 players: mixed tables, win share by seat for every strategy;
- behaviour: each strategy at every seat of a 3-player table (self-play), mean kills,
  bribes, builds, buried money, cheques and fines per game.

The recorded file also holds a small ``check`` cell (one heads-up table at few games) that a
test plays again: when the rules or a strategy change its rows, the test says the tables must
be recorded again.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from sim import api
from sim.intervals import Z95, wilson

SEED = 2024
#: games per cell of the recorded tables
GAMES = 20_000
#: the check cell: ``expert`` against ``heuristic`` heads-up, this many games
CHECK_GAMES = 2_000
BANDS = (  # BI-X3: the rulebook's rating of a solo score
    ("lost", None, None),
    ("below 110", -30000, 110),
    ("110-129 worrying", 110, 130),
    ("130-149 hazardous", 130, 150),
    ("150-169 evil", 150, 170),
    ("170+ demonic", 170, 30000),
)
OPPONENTS = ("random", "greedy", "heuristic", "killer", "builder", "briber", "banker")
MIXED = (
    ("expert", "killer", "builder"),
    ("expert", "briber", "banker"),
    ("killer", "builder", "briber"),
    ("builder", "briber", "banker"),
    ("heuristic", "greedy", "random"),
    ("killer", "builder", "briber", "banker"),
    ("expert", "killer", "builder", "briber"),
    ("expert", "builder", "briber", "banker"),
    ("expert", "heuristic", "greedy", "random"),
)
BEHAVIOUR = ("random", "greedy", "heuristic", "killer", "builder", "briber", "banker", "expert")
BEHAVIOUR_COLUMNS = (
    "score",
    "kills",
    "bribes",
    "peasants_bribed",
    "builds",
    "buried_money",
    "cheques",
    "fines",
)


def _share(k, n):
    lo, hi = wilson(k, n)
    return {"value": k / n, "lo": lo, "hi": hi, "n": int(n)}


def _mean(x):
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    m = float(x.mean())
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    return {"value": m, "lo": m - h, "hi": m + h, "n": int(n)}


def _play(players, lineup, games):
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": SEED,
        "rotate": True,
        "rules": {"length": "long"},
        "seats": [{"strategy": s} for s in lineup],
    }
    seats = api.simulate(cfg).seats
    return {c: seats.column(c).to_numpy() for c in seats.column_names if c != "strategy"} | {
        "strategy": np.array(seats.column("strategy").to_pylist())
    }


def solo(games):
    """``expert`` alone: its score against the rulebook's bands (BI-X3) and its loss rate (BI-X2)."""
    s = _play(1, ["expert"], games)
    n = s["score"].size
    lost = s["solo_lost"] == 1
    ok = s["score"][~lost]
    bands = {}
    for name, lo, hi in BANDS:
        k = int(lost.sum()) if lo is None else int(((ok >= lo) & (ok < hi)).sum())
        bands[name] = _share(k, n)
    return {
        "games": int(n),
        "loss": _share(int(lost.sum()), n),
        "mean_score_not_lost": _mean(ok),
        "mean_score_lost_as_0": _mean(np.where(lost, 0, s["score"])),
        "bands": bands,
        "quantiles": {str(q): float(np.quantile(ok, q)) for q in (0.05, 0.25, 0.5, 0.75, 0.95)},
    }


def heads_up(games, opponents=OPPONENTS):
    """``expert`` against each opponent, 2 players, seats rotated."""
    out = {}
    for opp in opponents:
        s = _play(2, ["expert", opp], games)
        me = s["lineup"] == 0
        out[opp] = {
            "games": int(me.sum()),
            "win": _share(float(s["win"][me].sum()), int(me.sum())),
            "score": _mean(s["score"][me]),
            "opp_score": _mean(s["score"][~me]),
        }
    return out


def mixed(games):
    """Mixed tables of 3 and 4 players: each strategy's win share by seat."""
    out = {}
    for lineup in MIXED:
        players = len(lineup)
        s = _play(players, list(lineup), games)
        cell = {"players": players, "by_strategy": {}}
        for name in lineup:
            mine = s["strategy"] == name
            row = {"all": _share(float(s["win"][mine].sum()), int(mine.sum()))}
            for seat in range(players):
                m = mine & (s["seat"] == seat)
                row[f"seat {seat}"] = _share(float(s["win"][m].sum()), int(m.sum()))
            row["score"] = _mean(s["score"][mine])
            cell["by_strategy"][name] = row
        out[f"{players}p: " + ", ".join(lineup)] = cell
    return out


def behaviour(games):
    """Each strategy at every seat of a 3-player table: what it does per game."""
    out = {}
    for name in BEHAVIOUR:
        s = _play(3, [name], games)
        out[name] = {c: _mean(s[c]) for c in BEHAVIOUR_COLUMNS}
        out[name]["travellers_bribed"] = _mean(s["bribes"] - s["peasants_bribed"])
        out[name]["seat_games"] = int(s["score"].size)
    return out


def check():
    """The small cell a test plays again (``expert`` against ``heuristic``, ``CHECK_GAMES`` games)."""
    return heads_up(CHECK_GAMES, ("heuristic",))


def measure(games=GAMES, echo=None):
    """Play every cell; the results as a JSON-ready dict (``echo`` gets a line per part)."""
    res = {"games_per_cell": games, "seed": SEED}
    for part in (solo, heads_up, mixed, behaviour):
        t = time.perf_counter()
        res[part.__name__] = part(games)
        if echo:
            echo(f"{part.__name__}: {time.perf_counter() - t:.0f} s")
    res["check"] = {"games": CHECK_GAMES, "cells": check()}
    return res


def record():
    """What ``python -m sim.docs --record strategy-tables`` writes (progress on stderr)."""
    return measure(echo=lambda m: print(m, file=sys.stderr, flush=True))


def _fs(s):
    return f"{100 * s['value']:.1f}% [{100 * s['lo']:.1f}, {100 * s['hi']:.1f}]"


def _fm(s, d=1):
    return f"{s['value']:.{d}f} [{s['lo']:.{d}f}, {s['hi']:.{d}f}]"


def render(res):
    """The Markdown of the recorded tables."""
    games = res["games_per_cell"]
    so = res["solo"]
    o = [
        f"*Generated by `python -m sim.docs` from `docs/results/` (recorded with `python -m sim.docs "
        f"--record strategy-tables`: {games:,} games per cell, long game, seats rotated, seed {res['seed']}; "
        "95% intervals, Wilson for shares, normal for means).*",
        "",
        f"### Solo, long game ({so['games']:,} games)",
        "",
        f"- mean score of the games not lost: {_fm(so['mean_score_not_lost'])}",
        f"- mean score counting a lost game as 0: {_fm(so['mean_score_lost_as_0'])}",
        f"- solo loss rate (BI-X2): {_fs(so['loss'])}",
        "- score quantiles (games not lost): "
        + ", ".join(f"{float(k):.0%} {v:.0f}" for k, v in so["quantiles"].items()),
        "",
        "| rating (BI-X3) | share of games [95% CI] |",
        "|---|---|",
    ]
    o += [f"| {k} | {_fs(v)} |" for k, v in so["bands"].items()]
    o += [
        "",
        f"### 2 players: `expert` against each strategy ({games:,} games each)",
        "",
        "| opponent | expert win share [95% CI] | expert mean score | opponent mean score |",
        "|---|---|---|---|",
    ]
    o += [
        f"| {opp} | {_fs(c['win'])} | {_fm(c['score'])} | {_fm(c['opp_score'])} |"
        for opp, c in res["heads_up"].items()
    ]
    o += ["", f"### Mixed tables: win share by seat ({games:,} games each, seats rotated)", ""]
    for key, cell in res["mixed"].items():
        n = cell["players"]
        o += [
            f"**{key}**",
            "",
            "| strategy | all seats | " + " | ".join(f"seat {i}" for i in range(n)) + " | mean score |",
            "|---" * (n + 3) + "|",
        ]
        for name, row in cell["by_strategy"].items():
            seats = " | ".join(_fs(row[f"seat {i}"]) for i in range(n))
            o.append(f"| {name} | {_fs(row['all'])} | {seats} | {_fm(row['score'])} |")
        o.append("")
    o += [
        "### Behaviour per strategy: 3 players, the strategy at every seat "
        f"({games:,} games, {3 * games:,} seat-games each)",
        "",
        "| strategy | kills | bribes (travellers + peasants) | builds | buried money | cheques | fines | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, b in res["behaviour"].items():
        o.append(
            f"| {name} | {_fm(b['kills'], 2)} | {_fm(b['bribes'], 2)} "
            f"({b['travellers_bribed']['value']:.2f} + {b['peasants_bribed']['value']:.2f}) | "
            f"{_fm(b['builds'], 2)} | {_fm(b['buried_money'])} | {_fm(b['cheques'], 2)} | "
            f"{_fm(b['fines'], 2)} | {_fm(b['score'])} |"
        )
    return "\n".join(o + [""] + _reading(res)) + "\n"


def _apart(cells, key):
    """The cell with the largest ``key`` when its interval clears every other's, else None."""
    ranked = sorted(cells.items(), key=lambda kv: -kv[1][key]["value"])
    (top, a), (_, b) = ranked[0], ranked[1]
    return top if a[key]["lo"] > b[key]["hi"] else None


def _reading(res):
    """What the tables say, read from their numbers (a "most" only where intervals separate)."""
    so, hu, be = res["solo"], res["heads_up"], res["behaviour"]
    good = sum(so["bands"][b]["value"] for b in ("130-149 hazardous", "150-169 evil", "170+ demonic"))
    evil = sum(so["bands"][b]["value"] for b in ("150-169 evil", "170+ demonic"))
    closest = min(hu, key=lambda k: hu[k]["win"]["value"])
    beaten = [k for k, c in hu.items() if c["win"]["lo"] > 0.5]
    o = [
        "Reading the tables (generated from their numbers):",
        "",
        f"- Solo: `expert` averages {so['mean_score_not_lost']['value']:.1f} in the games it does not "
        f"lose ({so['mean_score_lost_as_0']['value']:.1f} counting a loss as 0); {100 * good:.1f}% of "
        f'games reach "hazardous" or better and {100 * evil:.1f}% "evil" or better (BI-X3); it '
        f"loses {_fs(so['loss'])} of solo games (BI-X2).",
        f"- 2 players: `expert` wins more than half of its games, interval clear of 50%, against "
        f"{len(beaten)} of the {len(hu)} other strategies; `{closest}` comes closest "
        f"({_fs(hu[closest]['win'])}).",
    ]
    for col, what in (
        ("kills", "kills the most"),
        ("fines", "pays the most fines"),
        ("builds", "builds the most"),
        ("travellers_bribed", "bribes the most travellers (not counting peasants)"),
        ("cheques", "holds the most cheques"),
        ("score", "scores the most in self-play"),
    ):
        top = _apart(be, col)
        if top is None:
            o.append(f"- Behaviour: no strategy {what} by a margin its interval clears.")
        else:
            o.append(f"- Behaviour: `{top}` {what} ({_fm(be[top][col], 2)} a game, 3 players, self-play).")
    return o
