"""Bloody Inn invariants over large random batches, greedy batches, and reproducibility.

The kernel re-checks its invariants after every step when ``rules.check_invariants`` is
on (``invariant_error`` = first violated code: every card in exactly one place and the
location counters / lists agree, rooms and travellers agree, annex and Barn capacities,
cash in 0..cap, cards only where they may be).  On top of that these tests check, per
game and seat, what the summary tables must satisfy: every game ends (``truncated == 0``),
cash within 0..cap, score = cash + 10 x cheques, win shares sum to 1, places agree with
scores, and the per-rank counters add up.

Random batches: more than 200,000 games over 1-4 players, both lengths and every ruleset
flag.  Then greedy and mixed batches, and reproducibility: same seed -> identical tables,
1 thread vs 2 threads -> identical tables, and any chunking of a run -> identical tables.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
import pytest

import sim
from sim.api import play_range, simulate
from sim.games.bloody_inn.adapter import DECK_SIZE

DECK = DECK_SIZE  # BI-S2, the adapter's table (the referee's independent copy is checked against it)
OPEN = {1: 4, 2: 5, 3: 6, 4: 8}

#: ruleset variants of the random batches (every BI-V flag's alternative at least once)
FLAGS = [
    {},  # defaults: long, ...
    {"length": "short"},  # BI-V1
    {"deck_size": 12},  # BI-V2
    {"deck_copies": 2, "length": "short"},  # BI-V2
    {"unique_annexes": False},  # BI-V3
    {"white_keys": "players"},  # BI-V4
    {"voluntary_dismissal": False},  # BI-V5
    {"final_round": "strict", "length": "short"},  # BI-V6
    {"seasons": 1},  # BI-V7
    {"tiebreak": "buried_under_own_annexes"},  # BI-V9
    {"wealth_cap": 25},  # BI-V10
    {"unlimited_wealth": True, "length": "short"},  # BI-V10
    {"season_change": "on_next_draw"},  # BI-V11
    {"room_service_per_room": "any", "end_bonus_capped": False},  # BI-V12, BI-V8
    {
        "length": "short",
        "unique_annexes": False,
        "deck_copies": 3,
        "wealth_cap": 100,
        "voluntary_dismissal": False,
        "white_keys": "players",
    },
    {  # every numeric rule constant away from the printed rules (BI-S3, BI-X1, BI-E2, ...)
        "start_cash": 0,
        "start_cheques": 3,
        "start_peasants": 1,
        "solo_bistro_peasants": 4,
        "room_service_per_rank": 3,
        "peasants_per_bribe": 3,
        "police_to_investigate": 2,
        "fine_per_corpse": 20,
        "leave_income_per_room": 2,
        "wage_per_accomplice": 2,
        "final_fine_per_corpse": 30,
    },
    {  # ... and down to nothing
        "start_cash": 20,
        "start_cheques": 0,
        "start_peasants": 0,
        "solo_bistro_peasants": 0,
        "room_service_per_rank": 0,
        "peasants_per_bribe": 1,
        "fine_per_corpse": 0,
        "leave_income_per_room": 0,
        "wage_per_accomplice": 0,
        "final_fine_per_corpse": 0,
    },
]
GAMES = {1: 3500, 2: 4000, 3: 4000, 4: 4000}
CASES = [(p, i) for p in (1, 2, 3, 4) for i in range(len(FLAGS))]


def _cfg(players, rules, seats="random"):
    seats = seats if isinstance(seats, list) else [{"strategy": seats}]
    return {
        "game": "bloody_inn",
        "players": players,
        "rules": dict(rules, check_invariants=True),
        "seats": seats,
    }


def _col(table, name):
    return table.column(name).to_numpy()


def check_batch(res, players, rules):
    """Assert every per-game and per-seat invariant of a checked batch."""
    resolved = res.resolved["rules"]
    games, seats = res.games, res.seats
    n = games.num_rows
    err = _col(games, "invariant_error")
    bad = np.flatnonzero(err)
    assert bad.size == 0, (
        f"invariant_error codes {np.unique(err[bad]).tolist()} in "
        f"{bad.size} games, first game {bad[0]} round "
        f"{_col(games, 'error_round')[bad[0]]}"
    )
    assert _col(games, "truncated").sum() == 0  # every game ends
    rounds = _col(games, "rounds")
    assert rounds.min() >= 1
    assert (_col(games, "turns") == 2 * players * rounds).all()  # BI-N1
    length = resolved["length"]
    deck = rules.get("deck_size", DECK[(length, players)] * resolved["deck_copies"])
    assert (_col(games, "deck_size") == deck).all()
    white = (
        {1: 3, 2: 2, 3: 3, 4: 4}[players] if resolved["white_keys"] == "players" else OPEN[players] - players
    )
    assert (_col(games, "open_rooms") == players + white).all()
    sp = _col(games, "seasons_played")
    assert sp.min() >= 1 and sp.max() <= resolved["seasons"]

    assert seats.num_rows == n * players
    cash, cheques = _col(seats, "cash"), _col(seats, "cheques")
    cap = resolved["wealth_cap"]
    assert cash.min() >= 0 and cheques.min() >= 0
    if resolved["end_bonus_capped"]:
        assert cash.max() <= cap
    assert (_col(seats, "score") == cash + 10 * cheques).all()
    win = _col(seats, "win").reshape(n, players)
    place = _col(seats, "place").reshape(n, players)
    score = _col(seats, "score").reshape(n, players)
    if players > 1:
        assert np.abs(win.sum(axis=1) - 1.0).max() < 1e-5  # shares sum to 1
        assert ((win > 0) == (place == 1)).all()
        best = score.max(axis=1, keepdims=True)
        assert (score[place == 1] == np.broadcast_to(best, score.shape)[place == 1]).all()
        assert (_col(games, "n_winners") == (place == 1).sum(axis=1)).all()
    else:
        lost = _col(seats, "solo_lost")
        assert (win[:, 0] == 1 - lost).all() and _col(seats, "fines").sum() == 0
    # the winner columns against the rules alone: tests/test_winner_columns.py
    by_rank = lambda what: sum(_col(seats, f"{what}_r{r}") for r in range(4))  # noqa: E731
    assert (_col(seats, "kills") == by_rank("killed") + _col(seats, "peasants_killed")).all()
    assert (_col(seats, "bribes") == by_rank("bribed") + _col(seats, "peasants_bribed")).all()
    assert (by_rank("buried") <= _col(seats, "buried")).all()
    masks = _col(seats, "annex_mask").astype(np.int64)
    popcount = np.array([bin(m).count("1") for m in masks])
    builds = _col(seats, "builds")
    if resolved["unique_annexes"]:
        assert (popcount == builds).all()  # BI-V3
    else:
        assert (popcount <= builds).all()
    return games, seats


def test_random_batches_cover_every_ruleset_flag():
    """The random batches play every BI-V flag away from its default at least once: a flag
    added to the adapter without a fuzz case here fails this test."""
    from sim.games.bloody_inn.adapter import RULE_KEYS

    default = sim.resolve({"game": "bloody_inn", "players": 2})["rules"]
    moved = set()
    for flags in FLAGS:
        rules = sim.resolve({"game": "bloody_inn", "players": 2, "rules": flags})["rules"]
        moved |= {k for k in RULE_KEYS if rules.get(k) != default.get(k)}
    assert set(RULE_KEYS) - {"max_rounds", "check_invariants"} <= moved


@pytest.mark.slow
@pytest.mark.parametrize(
    "players,flags",
    CASES,
    ids=[f"{p}p-{'-'.join(f'{k}={v}' for k, v in FLAGS[i].items()) or 'default'}" for p, i in CASES],
)
def test_random_games_keep_every_invariant(players, flags):
    """Invariants (BI-C..BI-X, every flag) over random games at every decision."""
    rules = FLAGS[flags]
    res = simulate(_cfg(players, rules), games=GAMES[players], seed=1000 + 17 * flags + players)
    assert res.games.num_rows == GAMES[players]
    check_batch(res, players, rules)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("length", ["short", "long"])
def test_greedy_games_keep_every_invariant(players, length):
    rules = {"length": length}
    res = simulate(_cfg(players, rules, "greedy"), games=2500, seed=77 + players)
    check_batch(res, players, rules)


@pytest.mark.parametrize(
    "flags",
    [i for i, f in enumerate(FLAGS) if f],
    ids=[f"{'-'.join(f'{k}={v}' for k, v in f.items())}" for f in FLAGS if f],
)
def test_greedy_games_keep_every_invariant_under_every_flag(flags):
    rules = FLAGS[flags]
    players = 2 + flags % 3
    res = simulate(_cfg(players, rules, "greedy"), games=1500, seed=300 + flags)
    check_batch(res, players, rules)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mixed_greedy_and_random_games_keep_every_invariant(players):
    seats = [{"strategy": "greedy"}, {"strategy": "random"}, {"strategy": "greedy"}, {"strategy": "random"}][
        :players
    ]
    rules = {"unique_annexes": False, "wealth_cap": 60}
    res = simulate(_cfg(players, rules, seats), games=3000, seed=5 + players)
    check_batch(res, players, rules)
    # the rotating lineup gives every lineup entry every seat equally often
    lineup = _col(res.seats, "lineup").reshape(-1, players)
    for seat in range(players):
        counts = np.bincount(lineup[:, seat], minlength=players)
        assert counts.max() - counts.min() <= 1


def test_end_bonus_uncapped_games_keep_every_invariant():
    """BI-V8 ``end_bonus_capped = false``: end bonuses may lift cash above the cap; every
    other invariant must still hold (greedy players reach the cap often)."""
    rules = {"end_bonus_capped": False}
    res = simulate(_cfg(3, rules, "greedy"), games=3000, seed=21)
    check_batch(res, 3, rules)
    assert _col(res.seats, "cash").max() > 40


def test_end_bonus_uncapped_lifts_cash_above_the_cap_in_games():
    """BI-V8 in whole games: without the cap, some final cash exceeds 40; with it, none."""
    for capped in (True, False):
        res = simulate(
            {
                "game": "bloody_inn",
                "players": 3,
                "seats": [{"strategy": "greedy"}],
                "rules": {"end_bonus_capped": capped},
            },
            games=3000,
            seed=21,
        )
        top = _col(res.seats, "cash").max()
        assert (top <= 40) if capped else (top > 40)


# -- reproducibility -----------------------------------------------------------------------


def _tables(res):
    return [res.games, res.seats] + ([res.events] if res.events is not None else [])


def _equal(a, b):
    return all(x.equals(y) for x, y in zip(_tables(a), _tables(b)))


MIXED = {
    "game": "bloody_inn",
    "players": 3,
    "seats": [{"strategy": "greedy"}, {"strategy": "random"}, {"strategy": "random"}],
    "rules": {"length": "short"},
}


def test_same_seed_same_tables_other_seed_other_tables():
    a = simulate(MIXED, games=1500, seed=9, events=True)
    b = simulate(MIXED, games=1500, seed=9, events=True)
    c = simulate(MIXED, games=1500, seed=10, events=True)
    assert _equal(a, b)
    assert not a.seats.equals(c.seats) and not a.events.equals(c.events)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("events", [False, True])
def test_one_thread_and_two_threads_give_identical_tables(events):
    try:
        one = simulate(MIXED, games=3000, seed=3, threads=1, events=events)
        two = simulate(MIXED, games=3000, seed=3, threads=2, events=events)
    finally:
        sim.api.set_threads(None)
    assert _equal(one, two)
    solo = {"game": "bloody_inn", "players": 1, "seats": [{"strategy": "greedy"}]}
    try:
        assert _equal(
            simulate(solo, games=2000, seed=3, threads=1), simulate(solo, games=2000, seed=3, threads=2)
        )
    finally:
        sim.api.set_threads(None)


def test_block_count_of_a_chunk():
    from kernels.layout_tools import block_count

    assert block_count(100_000, 2, 32, 100) == 64  # 32 a thread
    assert block_count(1_000, 2, 32, 100) == 10  # no block under 100 games ...
    assert block_count(50, 2, 32, 100) == 2  # ... beyond one a thread
    assert block_count(1, 2, 32, 100) == 1 and block_count(0, 2, 32, 100) == 1  # none empty
    assert block_count(40, 2, 32, 1) == 40  # a search game a block


def test_block_bounds_end_a_chunk_with_small_blocks():
    from kernels.layout_tools import block_bounds

    b = block_bounds(100_000, 64, 2, 100)
    sizes = np.diff(b)
    assert b[0] == 0 and b[-1] == 100_000 and (sizes > 0).all()
    assert sizes.max() == 1563  # never more than a block's buffers hold (ceil(100,000 / 64))
    assert (sizes[:62] == 1563).all()  # the blocks before the tail keep their size
    assert (sizes[-2:] <= 100).all()  # a thread waits for at most a block of 100 games
    assert (np.diff(sizes[62:]) <= 0).all()  # the tail's blocks shrink
    # a small chunk keeps a block a thread; one thread keeps even blocks; no games, one block
    assert list(np.diff(block_bounds(50, 2, 2, 100))) == [25, 25]
    assert list(np.diff(block_bounds(1_000, 4, 1, 100))) == [250] * 4
    assert list(block_bounds(0, 1, 2, 100)) == [0, 0]


def test_blocks_of_a_chunk_do_not_change_the_games(monkeypatch):
    """The chunk's games are split into 1, 5 or 30 blocks (threads take the next block):
    same tables, events included."""
    from sim.games.bloody_inn import adapter as adapter

    got = []
    for per_thread, block_games in ((1, 100_000), (5, 1), (64, 100)):
        monkeypatch.setattr(adapter, "BLOCKS_PER_THREAD", per_thread)
        monkeypatch.setattr(adapter, "BLOCK_GAMES", block_games)
        got.append(simulate(MIXED, games=3000, seed=4, threads=1, events=True))
    assert _equal(got[0], got[1]) and _equal(got[0], got[2])


@pytest.mark.parametrize("splits", [[1000], [1, 999], [333, 334, 333], [7] * 142 + [6]])
def test_chunking_does_not_change_the_games(splits):
    """``play_range`` over any split of the game ids gives the same rows (with events)."""
    resolved = sim.resolve(MIXED, games=1000, seed=12)
    whole = play_range(resolved, 0, 1000, events=True)
    parts, start = [], 0
    for n in splits:
        parts.append(play_range(resolved, start, n, events=True))
        start += n
    assert start == 1000
    for name in ("games", "seats", "events"):
        got = pa.concat_tables([getattr(p, name) for p in parts])
        assert got.equals(getattr(whole, name)), name
    # a game played alone (game 500 as a chunk of one) equals its row in the big run
    alone = play_range(resolved, 500, 1)
    assert alone.seats.equals(whole.seats.slice(500 * 3, 3))
