"""Objectives of ``sim balance``: the games each needs, their sufficient statistics, and
their estimates with 95% intervals.

An *experiment* is one kind of game a candidate is played in: ``self`` (every seat the
spec's strategy, seats rotating), ``ladder`` (a strong and a weak strategy heads-up, seats
rotating) or ``power`` (restricted play, as ``sim power``: the unrestricted baseline and one
arm per listed annex in which lineup entry 0 never builds it, on duplicate deals).  A block
of games gives *statistics* (sums that add up over blocks), so a candidate that goes on to
the next rung plays only the games it has not played yet, and every estimate is a function
of the summed statistics.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow.compute as pc

from . import api
from .balance_spec import METRICS, run_config
from .intervals import Z95, wilson
from .power import _restrict


def experiments(spec, strategy=None):
    """Every experiment the spec's objectives need: ``{key: (kind, players, detail)}``."""
    strategy = strategy or spec.strategy
    out = {}
    for obj in spec.objectives:
        kind = METRICS[obj.metric][2]
        for n in obj.players:
            if kind == "self":
                out[f"self@{n}p"] = ("self", n, strategy)
            elif kind == "ladder":
                out[f"ladder:{obj.strong}>{obj.weak}@{n}p"] = ("ladder", n, (obj.strong, obj.weak))
            else:
                key = f"power@{n}p"
                prev = out.get(key, ("power", n, (strategy, [])))[2][1]
                out[key] = ("power", n, (strategy, list(dict.fromkeys([*prev, *obj.cards]))))
    return dict(sorted(out.items()))


def _seats_for(kind, detail, n):
    if kind == "self":
        return [{"strategy": detail}], True
    if kind == "ladder":
        strong, weak = detail
        return [{"strategy": strong}] + [{"strategy": weak}] * (n - 1), True
    return [{"strategy": detail[0]}], "duplicate"


def _whole_deals(start, count, n):
    """A duplicate-deal block: whole deals (multiples of the player count)."""
    return start * n, count * n


def play_block(spec, cand, exp, start, count, seed):
    """Play games ``start .. start+count-1`` of experiment ``exp`` for a candidate; return
    its statistics (a dict of floats and lists that add up over blocks).

    ``power`` blocks count deals: ``count`` deals of ``n`` games each (every rotation), in the
    baseline and in every arm, on the same deal ids.
    """
    kind, n, detail = exp
    seats, rotate = _seats_for(kind, detail, n)
    if kind == "power":
        return _power_block(spec, cand, n, detail, start, count, seed)
    raw = run_config(spec, cand, n, seats=seats, rotate=rotate, games=count, seed=seed)
    resolved = api.resolve(raw)
    chunk = api.play_range(resolved, start, count)
    return _self_stats(chunk, n) if kind == "self" else _ladder_stats(chunk)


def _col(table, name, dtype=np.float64):
    return np.asarray(table.column(name).to_numpy(zero_copy_only=False), dtype=dtype)


def _self_stats(chunk, n):
    seats, games = chunk.seats, chunk.games
    seat = _col(seats, "seat", np.int64)
    win = _col(seats, "win")
    rounds = _col(games, "rounds")
    st = {
        "games": float(games.num_rows),
        "seat_win": np.bincount(seat, weights=win, minlength=n).tolist(),
        "rounds": float(rounds.sum()),
        "rounds2": float((rounds**2).sum()),
    }
    if "character" in seats.column_names:
        chars = seats.column("character").to_pylist()
        cw, cn = {}, {}
        for c, w in zip(chars, win):
            cw[c] = cw.get(c, 0.0) + float(w)
            cn[c] = cn.get(c, 0.0) + 1.0
        st["char_win"], st["char_n"] = cw, cn
    if n == 1:
        score = _col(seats, "score")
        if "solo_lost" in seats.column_names:  # a lost solo game scores 0 (BI-X2)
            score = np.where(_col(seats, "solo_lost") == 1, 0.0, score)
        st["score"], st["score2"] = float(score.sum()), float((score**2).sum())
    return st


def _ladder_stats(chunk):
    seats = chunk.seats
    strong = seats.filter(pc.equal(seats.column("lineup"), 0))
    return {"games": float(strong.num_rows), "strong_win": float(pc.sum(strong.column("win")).as_py() or 0.0)}


def _entry0_wins(spec, cand, n, raw_seats, start_game, n_games, seed):
    raw = run_config(spec, cand, n, seats=raw_seats, rotate="duplicate", games=n_games, seed=seed)
    chunk = api.play_range(api.resolve(raw), start_game, n_games)
    seats = chunk.seats
    mine = seats.filter(pc.equal(seats.column("lineup"), 0))
    gid = _col(mine, "game_id", np.int64) - start_game
    out = np.zeros(n_games)
    out[gid] = _col(mine, "win")
    return out.reshape(-1, n).mean(axis=1)  # per deal: entry 0 over every rotation


def _power_block(spec, cand, n, detail, start, count, seed):
    strategy, cards = detail
    g0, ng = _whole_deals(start, count, n)
    base_seats = [{"strategy": strategy}]
    base = _entry0_wins(spec, cand, n, base_seats, g0, ng, seed)
    st = {"deals": float(count), "base_win": float(base.sum())}
    for cid in cards:
        arm = _entry0_wins(spec, cand, n, _restrict(base_seats, n, "card", cid), g0, ng, seed)
        d = base - arm
        st[f"d:{cid}"] = float(d.sum())
        st[f"d2:{cid}"] = float((d**2).sum())
    return st


def games_of(exp, count):
    """Games a block of ``count`` plays (a power block plays every arm's deals)."""
    kind, n, detail = exp
    if kind == "power":
        return count * n * (1 + len(detail[1]))
    return count


def add(a, b):
    """Sum of two statistics dicts (``a`` may be None)."""
    if a is None:
        return _copy(b)
    out = {}
    for k in set(a) | set(b):
        x, y = a.get(k), b.get(k)
        if x is None or y is None:
            out[k] = _copy(x if y is None else y)
        elif isinstance(x, list):
            out[k] = [p + q for p, q in zip(x, y)]
        elif isinstance(x, dict):
            out[k] = {c: x.get(c, 0.0) + y.get(c, 0.0) for c in set(x) | set(y)}
        else:
            out[k] = x + y
    return out


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return list(v)
    return v


# --- estimates ---------------------------------------------------------------------------


def _gap_interval(wins, games, fair):
    lo, hi = wilson(wins, games)
    p = wins / games
    return 100 * (p - fair), 100 * (lo - fair), 100 * (hi - fair)


def _abs_max(intervals):
    """The largest |x| of several estimates (m, lo, hi): point, and a conservative interval
    (lower end: the largest distance from 0 of an interval that excludes 0; upper end: the
    largest |end|)."""
    m = max(abs(x[0]) for x in intervals)
    lo = max(0.0 if x[1] <= 0 <= x[2] else min(abs(x[1]), abs(x[2])) for x in intervals)
    hi = max(max(abs(x[1]), abs(x[2])) for x in intervals)
    return m, lo, hi


def _mean_interval(s, s2, n):
    m = s / n
    var = max(s2 / n - m * m, 0.0) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    return m, m - half, m + half


def estimate(obj, players, stats):
    """``(estimate, lo, hi)`` of objective ``obj`` at ``players`` from its experiment's stats."""
    metric = obj.metric
    if metric == "first_player_gap":
        return _gap_interval(stats["seat_win"][0], stats["games"], 1 / players)
    if metric == "seat_gap_max":
        return _abs_max([_gap_interval(w, stats["games"], 1 / players) for w in stats["seat_win"]])
    if metric == "character_gap_max":
        cw, cn = stats.get("char_win"), stats.get("char_n")
        if not cw:
            return (math.nan,) * 3
        return _abs_max([_gap_interval(cw[c], cn[c], 1 / players) for c in sorted(cw)])
    if metric == "mean_rounds":
        return _mean_interval(stats["rounds"], stats["rounds2"], stats["games"])
    if metric == "solo_mean":
        return _mean_interval(stats["score"], stats["score2"], stats["games"])
    if metric == "ladder_win":
        lo, hi = wilson(stats["strong_win"], stats["games"])
        return 100 * stats["strong_win"] / stats["games"], 100 * lo, 100 * hi
    if metric == "annex_power_max":
        per = []
        for cid in obj.cards:
            m, lo, hi = _mean_interval(stats[f"d:{cid}"], stats[f"d2:{cid}"], stats["deals"])
            per.append((100 * m, 100 * lo, 100 * hi))
        return max(p[0] for p in per), max(p[1] for p in per), max(p[2] for p in per)
    raise KeyError(metric)


def experiment_key(obj, players):
    """The experiment an objective reads at ``players`` (a key of :func:`experiments`)."""
    kind = METRICS[obj.metric][2]
    if kind == "self":
        return f"self@{players}p"
    if kind == "ladder":
        return f"ladder:{obj.strong}>{obj.weak}@{players}p"
    return f"power@{players}p"


# --- loss: how far from the targets ----------------------------------------------------

#: weight of the distance from the target's centre (a tie-break among candidates inside it)
CENTRE_WEIGHT = 0.1


def _scale(target):
    lo, hi = target
    if math.isfinite(lo) and math.isfinite(hi):
        return (hi - lo) / 2
    return max(abs(lo if math.isfinite(lo) else hi), 1.0) * 0.1


def _excess(x, target, scale):
    lo, hi = target
    return max(lo - x, x - hi, 0.0) / scale


def evaluate(spec, stats_by_exp):
    """Every objective's estimate and the candidate's loss.

    Returns
    -------
    dict
        ``rows``: one per (objective, player count) with estimate, lo, hi, target, meets;
        ``loss``: weighted distance of the estimates outside the targets (in target
        half-widths) plus a small distance from the targets' centres; ``loss_lo`` /
        ``loss_hi``: the same over each interval's nearest / farthest points (no centre term);
        ``meets``: every interval inside its target.
    """
    rows, loss, lo_sum, hi_sum, meets = [], 0.0, 0.0, 0.0, True
    for obj in spec.objectives:
        s = _scale(obj.target)
        for n in obj.players:
            stats = stats_by_exp.get(experiment_key(obj, n))
            m, lo, hi = estimate(obj, n, stats) if stats else (math.nan,) * 3
            if math.isnan(m):
                rows.append(_row(obj, n, m, lo, hi, False))
                loss = lo_sum = hi_sum = math.inf
                meets = False
                continue
            inside = obj.target[0] <= lo and hi <= obj.target[1]
            meets = meets and inside
            rows.append(_row(obj, n, m, lo, hi, inside))
            loss += obj.weight * _excess(m, obj.target, s)
            if math.isfinite(obj.target[0]) and math.isfinite(obj.target[1]):
                loss += CENTRE_WEIGHT * obj.weight * abs(m - sum(obj.target) / 2) / s
            near = (
                0.0
                if obj.target[0] <= hi and lo <= obj.target[1]
                else min(_excess(lo, obj.target, s), _excess(hi, obj.target, s))
            )
            lo_sum += obj.weight * near
            hi_sum += obj.weight * max(_excess(lo, obj.target, s), _excess(hi, obj.target, s))
    return {"rows": rows, "loss": loss, "loss_lo": lo_sum, "loss_hi": hi_sum, "meets": meets}


def _row(obj, n, m, lo, hi, inside):
    return {
        "objective": obj.label(n),
        "metric": obj.metric,
        "players": n,
        "unit": obj.unit,
        "estimate": m,
        "lo": lo,
        "hi": hi,
        "target_lo": obj.target[0],
        "target_hi": obj.target[1],
        "meets": bool(inside),
    }
