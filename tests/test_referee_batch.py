"""The independent referee replays large batches of kernel games with zero divergences.

10,000 ``random`` games (the rules fuzzer) and 10,000 ``greedy`` games, spread over 1-4
players, both lengths (BI-V1) and every ruleset flag (BI-V2..BI-V12, BI-G4 truncation,
what-if card edits).  Games are simulated in chunks of 1,250 so memory stays small.
A divergence is printed with its rule id, event and both states.
"""

from __future__ import annotations

from collections import Counter

import pytest

from sim.api import simulate
from sim.games.bloody_inn.referee import replay_result
from sim.games.bloody_inn.referee.log import split_games

GAMES_PER_CONFIG = 1_250  # x 8 configs = 10,000 games per strategy

#: what-if edits that put the rarer annex effects on cheap, common cards, so that
#: multi-target actions, the Chapel, Room Service, the Room, discounts of 2, free wages,
#: odd pocket money and end bonuses occur in nearly every game
FUZZ_CARDS = {
    "newsboy": {"effect": "multi_target(bribe)", "pocket": 9},
    "cultivator": {"effect": "multi_target(kill)"},
    "novice": {"effect": "multi_target(bury)+bury_payment_returns", "pocket": 13},
    "baron": {"effect": "peasant_bribe_limit(4)+room_service_token"},
    "viscount": {"effect": "discount(bury;2)+wage_reduction(2)+leave_income(3)", "rank": 0},
    "mechanic": {"effect": "replace_white_key+end_cash_per_cheque(3)"},
    "representative": {"effect": "end_cash_per_exit_card_of_colour(blue;4)+on_build_cash(5)+discount(kill)"},
    "peacekeeper": {"rank": 1, "copies": 6},
    "count": {"effect": "on_build_cash_per_own_annex_of_colour(green;3)+discount(bribe;2)"},
    "peasant": {"pocket": 5},
}

#: (players, length, other rules, card edits): every flag value appears at least once
CONFIGS = [
    (1, "short", {}, None),
    (1, "long", {"unique_annexes": False, "voluntary_dismissal": False}, FUZZ_CARDS),
    (
        2,
        "short",
        {"final_round": "strict", "tiebreak": "buried_under_own_annexes", "max_rounds": 12},
        None,
    ),  # BI-G4 truncation
    (
        2,
        "long",
        {"seasons": 1, "end_bonus_capped": False, "white_keys": "players", "room_service_per_room": "any"},
        FUZZ_CARDS,
    ),
    (3, "short", {"unlimited_wealth": True, "wealth_cap": 30}, FUZZ_CARDS),
    (3, "long", {"deck_copies": 2, "season_change": "on_next_draw"}, None),
    (4, "short", {"deck_size": 30, "white_keys": 2, "check_invariants": True}, None),
    (4, "long", {}, None),
]


def _config(strategy, players, length, rules, cards):
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "seats": [{"strategy": strategy}],
        "rules": {"length": length, **rules},
    }
    if cards:
        cfg["cards"] = cards
    return cfg


def _replay(strategy, case, seed):
    players, length, rules, cards = case
    res = simulate(
        _config(strategy, players, length, rules, cards),
        games=GAMES_PER_CONFIG,
        seed=seed,
        events=True,
        threads=None,
    )
    report = replay_result(res)
    shown = "\n".join(d.format() for d in report.divergences[:3])
    assert report.ok, f"{report.summary()}\n{shown}"
    assert report.games == GAMES_PER_CONFIG
    assert report.fallback_passes == 0, "a strategy made an illegal decision"
    return res, report


@pytest.mark.parametrize("case", CONFIGS, ids=[f"{c[0]}p-{c[1]}" for c in CONFIGS])
def test_random_games_replay_without_divergence(case):
    _replay("random", case, seed=101)


@pytest.mark.parametrize("case", CONFIGS, ids=[f"{c[0]}p-{c[1]}" for c in CONFIGS])
def test_greedy_games_replay_without_divergence(case):
    _replay("greedy", case, seed=202)


def test_the_batches_reach_the_rare_rules():
    """The fuzz configs do exercise what the referee checks (so a clean replay means
    something): multi-target actions, shares, tokens, keys, laundering, end bonuses, solo
    losses and truncations all occur."""
    kinds = Counter()
    multi = Counter()
    truncated = 0
    for strategy, case in (
        ("random", CONFIGS[1]),
        ("greedy", CONFIGS[3]),
        ("random", CONFIGS[2]),
        ("greedy", CONFIGS[4]),
    ):
        players, length, rules, cards = case
        res = simulate(_config(strategy, players, length, rules, cards), games=200, seed=7, events=True)
        report = replay_result(res)
        assert report.ok, report.divergences[0].format()
        truncated += report.truncated
        for _, evs in split_games(res.events):
            prev = None
            for e in evs:
                kinds[e.kind] += 1
                if (
                    prev is not None
                    and e.kind == prev.kind == "kill"
                    and e.seat == prev.seat
                    and e.a >= 0
                    and prev.a >= 0
                    and e.b == prev.b
                ):
                    multi["kill"] += 1
                prev = e
    for kind in (
        "bury_share",
        "token",
        "room_service",
        "monk_key",
        "launder",
        "end_bonus",
        "solo_lost",
        "effect_cash",
        "dismiss",
        "final_investigation",
        "season",
    ):
        assert kinds[kind] > 0, kind
    assert multi["kill"] > 0
    assert truncated > 0
