"""Synthetic datasets with known answers, written in the documented layout.

Used by the tests (a seat built to win 60% of games, an annex built only by winners, a
known strategy ordering) and handy to try the analyses and reports without the kernels.
Nothing here simulates a game: the numbers are drawn to have the properties asked for.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import polars as pl


def _facts(config):
    """The facts a real run of ``config`` would record (from the game's adapter)."""
    from sim import registry

    return registry.dataset_facts(config)


def _n_annex():
    return len(_facts({"game": "bloody_inn", "players": 2})["annex_bits"])


def bloody_inn_tables(
    n_games,
    players,
    *,
    seed=0,
    winners=None,
    seat_weights=None,
    strategies=("random",),
    skill=None,
    rotate=True,
    winners_build=None,
    never_build=None,
    shared_rate=0.0,
    truncated_rate=0.0,
    deck_size=54,
    rounds_base=12,
    start_game_id=0,
    config_id="synthetic",
):
    """Games and seats tables shaped like the Bloody Inn kernel's output.

    Parameters
    ----------
    n_games, players : int
    winners : array_like of int, optional
        The winning seat of each game (exact control); otherwise drawn with probability
        proportional to ``seat_weights[seat] * skill[strategy]``.
    strategies : sequence of str
        The lineup (one entry per seat, or one for all); with ``rotate`` it shifts by one
        seat per game.
    skill : dict, optional
        Strategy name -> strength (Bradley-Terry-like weight).
    winners_build : int, optional
        Annex bit that only winners build (half of them), never the others.
    never_build : int, optional
        Annex bit that nobody builds.
    shared_rate, truncated_rate : float
        Share of games with a two-way shared win / truncated (no winner).

    Returns
    -------
    (games, seats) : tuple of pl.DataFrame
    """
    rng = np.random.default_rng(seed)
    n, p = int(n_games), int(players)
    lineup = list(strategies) if len(strategies) > 1 else list(strategies) * p
    if len(lineup) != p:
        raise ValueError("strategies must have one entry or one per seat")
    gid = np.arange(start_game_id, start_game_id + n, dtype=np.int64)
    seat = np.tile(np.arange(p), n)
    game_of_row = np.repeat(np.arange(n), p)
    shift = (gid % p) if rotate else np.zeros(n, dtype=np.int64)
    lineup_idx = (seat - shift[game_of_row]) % p
    strat = np.array(lineup, dtype=object)[lineup_idx]
    sw = np.ones(p) if seat_weights is None else np.asarray(seat_weights, dtype=float)
    sk = skill or {}
    weight = sw[seat] * np.array([sk.get(s, 1.0) for s in strat])
    weight = weight.reshape(n, p)

    truncated = rng.random(n) < truncated_rate
    shared = (~truncated) & (rng.random(n) < shared_rate) & (p > 1)
    if winners is not None:
        win_seat = np.asarray(winners, dtype=np.int64)
    else:
        cum = np.cumsum(weight / weight.sum(axis=1, keepdims=True), axis=1)
        win_seat = (rng.random(n)[:, None] > cum).sum(axis=1)
    second = (win_seat + 1 + rng.integers(0, max(p - 1, 1), n)) % p

    win = np.zeros((n, p), dtype=np.float32)
    rows = np.arange(n)
    win[rows, win_seat] = 1.0
    win[shared, :] = 0.0
    win[shared, win_seat[shared]] = 0.5
    win[shared, second[shared]] = 0.5
    win[truncated, :] = 0.0

    # scores: winners on top, shared winners equal, others below in random order
    base = rng.integers(10, 60, (n, p))
    top = base.max(axis=1) + rng.integers(1, 15, n)
    score = base.copy()
    score[rows, win_seat] = top
    score[shared, second[shared]] = top[shared]
    order = np.argsort(-score - rng.random((n, p)) * 0.1, axis=1)
    place = np.empty((n, p), dtype=np.int64)
    place[rows[:, None], order] = np.arange(1, p + 1)
    place[shared, win_seat[shared]] = 1
    place[shared, second[shared]] = 1

    # annexes: every kind at 20% except the controlled ones
    mask = np.zeros((n, p), dtype=np.int64)
    for bit in range(_n_annex()):
        if bit in (winners_build, never_build):
            continue
        mask |= (rng.random((n, p)) < 0.2).astype(np.int64) << bit
    if winners_build is not None:
        built = (win >= 1.0) & (rng.random((n, p)) < 0.5)
        mask |= built.astype(np.int64) << winners_build
    builds = (
        np.array([[bin(int(v)).count("1") for v in r] for r in mask])
        if n * p < 50_000
        else np.vectorize(lambda v: bin(int(v)).count("1"))(mask)
    )

    rounds = rounds_base + rng.integers(0, 5, n) + (p - 2)
    n_winners = np.where(truncated, 0, np.where(shared, 2, 1))
    winner = np.where(n_winners == 1, win_seat, -1)  # design.md: -1 when nobody or several win
    winners_mask = ((win > 0) * (1 << np.arange(p))).sum(axis=1)
    games = pl.DataFrame(
        {
            "game_id": gid,
            "config_id": [config_id] * n,
            "players": np.full(n, p, dtype=np.int8),
            "rounds": rounds.astype(np.int16),
            "turns": (rounds * 2 * p).astype(np.int32),
            "winner": winner.astype(np.int8),
            "n_winners": n_winners.astype(np.int8),
            "truncated": truncated.astype(np.int8),
            "winners": winners_mask.astype(np.int8),
            "deck_size": np.full(n, deck_size, dtype=np.int16),
            "open_rooms": np.full(n, {1: 4, 2: 5, 3: 6, 4: 8}.get(p, 6), dtype=np.int8),
            "seasons_played": np.full(n, 2, dtype=np.int8),
        }
    )
    flat = lambda a, t: a.reshape(-1).astype(t)  # noqa: E731
    cash = rng.integers(0, 41, (n, p))
    seats = {
        "game_id": np.repeat(gid, p),
        "config_id": [config_id] * (n * p),
        "seat": seat.astype(np.int8),
        "strategy": strat.astype(str).tolist(),
        "score": flat(score, np.int16),
        "place": flat(place, np.int8),
        "win": flat(win, np.float32),
        "lineup": lineup_idx.astype(np.int8),
        "cash": flat(cash, np.int16),
        "cheques": flat((score - cash).clip(0) // 10, np.int16),
        "buried": flat(rng.integers(0, 6, (n, p)), np.int16),
        "buried_money": flat(rng.integers(0, 60, (n, p)), np.int16),
        "kills": flat(rng.integers(0, 7, (n, p)), np.int16),
        "bribes": flat(rng.integers(0, 7, (n, p)), np.int16),
        "builds": flat(builds, np.int16),
        "fines": flat(rng.integers(0, 3, (n, p)) * 10, np.int16),
        "wages": flat(rng.integers(0, 20, (n, p)), np.int16),
        "solo_lost": np.zeros(n * p, dtype=np.int8),
        "annex_mask": flat(mask, np.int32),
    }
    for what in ("bribed", "killed", "buried"):
        for r in range(4):
            seats[f"{what}_r{r}"] = flat(rng.poisson(1.5 / (r + 1), (n, p)), np.int16)
    seats["peasants_bribed"] = flat(rng.integers(0, 4, (n, p)), np.int16)
    seats["peasants_killed"] = flat(rng.integers(0, 3, (n, p)), np.int16)
    return games, pl.DataFrame(seats)


def bloody_inn_events(games, seats, *, seed=0):
    """A small event log: one ``cash`` event per seat and round (money over rounds)."""
    rng = np.random.default_rng(seed)
    rows = seats.select("game_id", "config_id", "seat").join(games.select("game_id", "rounds"), on="game_id")
    out = {
        "game_id": [],
        "config_id": [],
        "seq": [],
        "round": [],
        "kind": [],
        "seat": [],
        "card": [],
        "card_kind": [],
        "a": [],
        "b": [],
        "c": [],
        "cash": [],
        "cheques": [],
    }
    for gid, cid, seat, rounds in rows.iter_rows():
        money = 5
        for r in range(int(rounds)):
            money = min(40, money + int(rng.integers(0, 5)))
            out["game_id"].append(gid)
            out["config_id"].append(cid)
            out["seq"].append(r * 10 + seat)
            out["round"].append(r)
            out["kind"].append("leave")
            out["seat"].append(seat)
            out["card"].append(-1)
            out["card_kind"].append("")
            out["a"].append(0)
            out["b"].append(0)
            out["c"].append(0)
            out["cash"].append(money)
            out["cheques"].append(1)
    return pl.DataFrame(
        out,
        schema_overrides={
            "seq": pl.Int32,
            "round": pl.Int16,
            "seat": pl.Int8,
            "card": pl.Int16,
            "a": pl.Int32,
            "b": pl.Int32,
            "c": pl.Int32,
            "cash": pl.Int16,
            "cheques": pl.Int16,
        },
    )


def bloody_inn_config(
    players, *, games, seed=0, strategies=("random",), rotate=True, deck_size=54, length="long"
):
    """A resolved-config-shaped dict for a synthetic manifest."""
    return {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": rotate,
        "rules": {"length": length, "deck_size": deck_size, "deck_copies": 1},
        "seats": [{"strategy": s, "params": {}} for s in strategies],
    }


def write_run(out, games, seats, config, *, events=None, trajectory=None, chunks=2):
    """Write tables as a run directory (parts + manifest with checksums); ``events`` and
    ``trajectory`` optional.

    Returns
    -------
    Path
    """
    out = Path(out)
    chunk_list = []
    n = games.height
    bounds = np.linspace(0, n, chunks + 1).astype(int)
    gids = games["game_id"]
    for i in range(chunks):
        lo, hi = bounds[i], bounds[i + 1]
        if hi <= lo:
            continue
        g_lo, g_hi = gids[int(lo)], gids[int(hi) - 1]
        entry = {"index": i, "start": int(g_lo), "games": int(hi - lo), "files": {}}
        tables = (("games", games), ("seats", seats), ("events", events), ("trajectory", trajectory))
        for name, table in tables:
            if table is None:
                continue
            part = table.filter(pl.col("game_id").is_between(g_lo, g_hi))
            folder = out / name
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"part-{i:05d}.parquet"
            part.write_parquet(path, compression="zstd", statistics=False)
            entry["files"][name] = {
                "path": f"{name}/{path.name}",
                "rows": part.height,
                "bytes": path.stat().st_size,
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            }
        chunk_list.append(entry)
    # the shape sim/dataset.py writes (format, resolved, git, versions, chunks)
    manifest = {
        "format": "boardsim-dataset",
        "format_version": 1,
        "status": "complete",
        "game": config["game"],
        "name": out.name,
        "source": "synthetic",
        "config_id": "synthetic",
        "seed": config.get("seed"),
        "games": n,
        "games_done": n,
        "events": events is not None,
        "tables": ["games", "seats"]
        + (["events"] if events is not None else [])
        + (["trajectory"] if trajectory is not None else []),
        "resolved": config,
        "facts": _facts(config),
        "versions": {"synthetic": "1"},
        "git": {"commit": "synthetic", "dirty": False},
        "chunks": chunk_list,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return out


def write_sweep(out, points):
    """Write a sweep directory.

    Parameters
    ----------
    points : list of (name, params: dict, games, seats, config)

    Returns
    -------
    Path
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    grid = {}
    for name, params, games, seats, config in points:
        write_run(out / name, games, seats, config)
        rows.append(
            {
                "point": name,
                "config_id": name,
                "path": name,
                "games": games.height,
                "seed": config.get("seed", 0),
                **params,
            }
        )
        for k, v in params.items():
            grid.setdefault(k, [])
            if v not in grid[k]:
                grid[k].append(v)
    pl.DataFrame(rows).write_parquet(out / "points.parquet")
    (out / "sweep.json").write_text(
        json.dumps({"format": "boardsim-sweep", "status": "complete", "grid": grid}, indent=1)
    )
    return out


# --- small vectorised models with a known truth (for the coverage and size tests) --------


def annex_games(rng, n_games, build_prob, seat_weight, power, extra_build_prob=None):
    """Games in which each seat builds an annex with probability ``build_prob[seat]`` and
    the single winner is drawn with weight ``seat_weight[seat] * (1 + power * built)``.

    With ``extra_build_prob`` a second annex is built independently of winning (its true
    lift is 0).

    Returns
    -------
    dict of flat arrays (one entry per game x seat): win, built, built2, seat, game
    """
    q = np.asarray(build_prob, dtype=np.float64)
    p = q.size
    built = rng.random((n_games, p)) < q
    w = np.asarray(seat_weight, dtype=np.float64) * (1.0 + power * built)
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    winner = (rng.random(n_games)[:, None] > cum).sum(axis=1)
    win = np.zeros((n_games, p))
    win[np.arange(n_games), winner] = 1.0
    out = {
        "win": win.ravel(),
        "built": built.ravel(),
        "seat": np.tile(np.arange(p), n_games),
        "game": np.repeat(np.arange(n_games), p),
    }
    if extra_build_prob is not None:
        out["built2"] = (rng.random((n_games, p)) < np.asarray(extra_build_prob)).ravel()
    return out


def annex_true_lift(build_prob, seat_weight, power):
    """The exact lift ``annex_games`` is built to have: per seat P(win | built) -
    P(win | not built) (by enumerating the other seats' builds), averaged with the
    expected builders per seat as weights."""
    import itertools

    q = np.asarray(build_prob, dtype=np.float64)
    v = np.asarray(seat_weight, dtype=np.float64)
    p = q.size
    delta = np.zeros(p)
    for s in range(p):
        for others in itertools.product((0, 1), repeat=p - 1):
            pattern = list(others[:s]) + [0] + list(others[s:])
            pr = np.prod([q[i] if pattern[i] else 1 - q[i] for i in range(p) if i != s])
            for b, sign in ((1, 1.0), (0, -1.0)):
                pattern[s] = b
                w = v * (1.0 + power * np.asarray(pattern))
                delta[s] += sign * pr * w[s] / w.sum()
    return float((q * delta).sum() / q.sum())


def character_games(rng, n_games, players, n_characters, seat_weight, favourite_weight=1.0):
    """Games in which ``players`` distinct characters (of ``n_characters``) are dealt at
    random and one winner is drawn with weight ``seat_weight[seat]`` (times
    ``favourite_weight`` for character 0): with ``favourite_weight = 1`` every character
    has the same win share (the null is true).

    Returns
    -------
    dict of flat arrays: win, character, game
    """
    keys = rng.random((n_games, n_characters))
    chars = np.argsort(keys, axis=1)[:, :players]
    w = np.asarray(seat_weight, dtype=np.float64) * np.where(chars == 0, favourite_weight, 1.0)
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    winner = (rng.random(n_games)[:, None] > cum).sum(axis=1)
    win = np.zeros((n_games, players))
    win[np.arange(n_games), winner] = 1.0
    return {"win": win.ravel(), "character": chars.ravel(), "game": np.repeat(np.arange(n_games), players)}


def plackett_luce_games(rng, n_games, strength):
    """Games in which the strategies (one per seat, in a random seat order) finish in a
    Plackett-Luce order with the given strengths: every pair's head-to-head share is then
    exactly the Bradley-Terry one, s_i / (s_i + s_j).

    Returns
    -------
    place : ndarray (n_games, k)
        Finishing place (1 = first) of strategy i in each game.
    """
    s = np.asarray(strength, dtype=np.float64)
    # Gumbel trick: sorting log-strength + Gumbel noise draws a Plackett-Luce order
    keys = np.log(s) - np.log(-np.log(rng.random((n_games, s.size))))
    order = np.argsort(-keys, axis=1)
    place = np.empty_like(order)
    place[np.arange(n_games)[:, None], order] = np.arange(1, s.size + 1)
    return place
