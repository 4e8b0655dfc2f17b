"""The independent Cluedo referee replays batches of real kernel games with zero divergences.

Batches over 2-6 players, the 2-player mode (corner and random rooms), every agent (the
reckless ``prob`` makes wrong accusations, eliminations and no-winner games happen) and every
ruleset flag on and off (CL-V1..CL-V7, ``roll_every_turn``, ``move_steps``).  A divergence
is printed with its rule id, event and both states.  The batch also checks that it covered
what it claims (every clue-card effect, passages, looks, eliminations, truncation), and
measures the deal's first seat over many games (CL-S2).
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from sim.api import simulate
from sim.games.cluedo.referee import replay_result
from sim.games.cluedo.referee.log import split_games

RECKLESS = {"strategy": "prob", "params": {"risk": 0.0, "exact": 0.0, "samples": 4.0}}
L, N, P = {"strategy": "logic"}, {"strategy": "naive"}, {"strategy": "prob", "params": {"samples": 8.0}}

#: (players, seats, rules, games): every flag value appears at least once
CONFIGS = [
    (2, [L, N], {}, 250),  # 2-player mode, corner rooms, exact moves (defaults)
    (2, [P, L], {"two_player_rooms": "random", "roll_every_turn": "yes"}, 120),
    (2, [N], {"move_steps": "up_to", "stay_and_suggest": "classic"}, 200),
    (3, [N], {"stay_and_suggest": "classic", "dice": 1, "move_steps": "up_to"}, 200),
    (3, [RECKLESS], {"roll_every_turn": "yes"}, 300),
    (3, [N], {"first_player": "classic", "characters": ["plum", "scarlett", "green"], "max_turns": 1}, 100),
    (4, [L], {}, 300),
    (4, [P, L, N, L], {"loupe_dice": 1, "first_player": "classic", "move_steps": "up_to"}, 150),
    (4, [N], {"max_turns": 30}, 150),  # CL-V7 truncation
    (5, [L, N, L, N, L], {"characters": ["plum", "white", "scarlett", "green", "peacock"]}, 200),
    (5, [RECKLESS], {"move_steps": "up_to", "roll_every_turn": "yes"}, 250),
    (6, [N], {"clue_cards": "off"}, 150),
    (6, [RECKLESS], {"loupe_dice": 0}, 250),
]


def _config(players, seats, rules, rotate=True):
    return {"game": "cluedo", "players": players, "seats": seats, "rules": rules, "rotate": rotate}


@pytest.fixture(scope="module")
def batches():
    out = []
    for i, (players, seats, rules, games) in enumerate(CONFIGS):
        res = simulate(
            _config(players, seats, rules, rotate=i % 3 != 2), games=games, seed=100 + i, events=True
        )
        out.append((players, rules, res, replay_result(res)))
    return out


def test_kernel_games_replay_clean(batches):
    """Every logged game of every batch replays without a divergence."""
    bad = []
    for players, rules, _, report in batches:
        assert report.games > 0 and report.events > 50 * report.games
        if report.divergences:
            bad.append(f"{players}p {rules}: {report.summary()}\n" + report.divergences[0].format())
    assert not bad, "\n\n".join(bad)


def test_batches_cover_the_rules(batches):
    """The clean replays are not vacuous: all nine clue effects, walks, passages, clue-card
    and suggestion moves, looks, wrong and right accusations, no-winner and truncated games."""
    effects, how, kinds = Counter(), Counter(), Counter()
    truncated = no_winner = 0
    for _, _, res, report in batches:
        truncated += report.truncated
        no_winner += sum(1 for r in res.games.to_pylist() if r["winner"] < 0 and not r["truncated"])
        for _, evs in split_games(res.events):
            for e in evs:
                kinds[e.kind] += 1
                if e.kind == "clue":
                    effects[e.b] += 1
                elif e.kind == "move":
                    how[e.d] += 1
                elif e.kind == "accuse":
                    kinds[f"accuse{e.d}"] += 1
    assert set(effects) == set(range(9)), effects
    assert set(how) == {0, 1, 2, 3}, how
    for kind in ("look", "new_passage", "show", "reveal", "pile", "deal_start", "accuse1", "accuse2"):
        assert kinds[kind] > 0, kind
    assert truncated > 0 and no_winner > 0


def _wilson(k, n, z=3.29):  # 99.9% interval
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


@pytest.mark.parametrize("players,extra_share", [(4, 1 / 2), (5, 3 / 5)])
def test_deal_is_independent_of_the_first_player(players, extra_share):
    """CL-S2: the deal starts at a seat drawn apart from the first player (seat 0), so the
    first player holds an extra card in 1/2 of 4-player and 3/5 of 5-player games.  The
    referee re-derives the deal's first seat from the log of 3,000 one-turn games."""
    res = simulate(_config(players, [N], {"max_turns": 1}), games=3000, seed=7, events=True)
    report = replay_result(res)
    assert report.ok, report.divergences[0].format()
    extra = 18 % players  # seats start .. start + extra - 1 get one card more
    starts = {s: k for (n, s), k in report.deal_starts.items() if n == players}
    assert sum(starts.values()) == 3000 and len(starts) == players
    seat0_extra = sum(k for s, k in starts.items() if (0 - s) % players < extra)
    lo, hi = _wilson(seat0_extra, 3000)
    assert lo <= extra_share <= hi, (seat0_extra, starts)
