"""Bloody Inn evening (BI-E1..E4, BI-V6, BI-V7) fuzzed against an oracle written from the
rules: random inns (some rooms taken), Entrances, Exits, seasons, Room-Service tokens,
money and flags; the kernel's ``evening`` must place exactly the cards the rules draw, in
order, into empty open rooms, change season at most once and only when the Entrance runs
out (BI-E3: when the last card is drawn; BI-V11: at the next draw), pay Room Service
(capped; BI-V12: one token per room, or stacked) and say whether the round is played."""

import random

import pytest
from bloody_inn_harness import L, Table


def _setup(t, rng, stack):
    t.reset(seed=rng.randrange(1 << 30), game_id=rng.randrange(1000))
    t.clear()
    travellers = [c for c in t.box() if t.kind(c) != "peasant"]
    rng.shuffle(travellers)
    for r in t.open_rooms():
        if rng.random() < 0.3:
            t.to_room(r, travellers.pop())
    ent = t.set_entrance(*[travellers.pop() for _ in range(rng.randrange(0, 10))])
    ex = t.to_exit(*[travellers.pop() for _ in range(rng.randrange(0, 10))])
    t[L.G_SEASON] = rng.choice([1, 1, 2])
    for r in t.open_rooms():
        if stack:  # BI-V12 any: several owners, several tokens each
            for q in range(t.np):
                if rng.random() < 0.15:
                    t[L.R_TOKENS + r * L.MAXP + q] = rng.choice([1, 1, 2])
        elif rng.random() < 0.3:  # BI-V12 default: at most one token per room
            t[L.R_TOKENS + r * L.MAXP + rng.randrange(t.np)] = 1
    for q in range(t.np):
        t.set_money(q, cash=rng.randrange(30, 41))
    t[L.G_FIRST] = rng.randrange(t.np)
    t.check()
    return ent, ex


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("flag", [0, 1, 2, 3], ids=["default", "V6-strict", "V7-one-season", "V11-V12"])
def test_BI_E1_to_E4_fuzzed_evenings_agree_with_the_oracle(players, flag):
    rules = [
        {},
        {"final_round": "strict"},
        {"seasons": 1},
        {"season_change": "on_next_draw", "room_service_per_room": "any"},
    ][flag]
    on_next_draw = rules.get("season_change") == "on_next_draw"
    stack = rules.get("room_service_per_room") == "any"
    rng = random.Random(10 * players + flag)
    t = Table(players, rules=rules, events=True, seats=rng.choice(["random", "greedy"]))
    seasons = rules.get("seasons", 2)
    strict = rules.get("final_round") == "strict"
    outcomes = set()
    for _ in range(250):
        ent, ex = _setup(t, rng, stack)
        season = t[L.G_SEASON]
        before_rooms = t.rooms()
        empty = [r for r in t.open_rooms() if before_rooms[r] < 0]
        cash0 = [t.cash(q) for q in range(players)]
        tokens = {r: [t[L.R_TOKENS + r * L.MAXP + q] for q in range(players)] for r in range(8)}
        t.log_events()
        played = t.evening()
        placed = [(e["card"], e["a"], e["seat"]) for e in t.events() if e["kind"] == "place"]
        # BI-E3: the Exit is shuffled in when the last card is drawn (so also when it fills
        # the inn exactly); BI-V11: only when one more card must be drawn
        if on_next_draw:
            change = season < seasons and len(ent) < len(empty)
        else:
            change = season < seasons and 0 < len(empty) and len(ent) <= len(empty)
        n_place = min(len(empty), len(ent) + (len(ex) if change else 0))
        assert len(placed) == n_place
        cards = [c for c, _, _ in placed]
        assert cards[: len(ent)] == ent[: len(cards)]  # the Entrance, in order
        assert set(cards[len(ent) :]) <= set(ex)  # then the shuffled Exit
        assert {r for _, r, _ in placed} <= set(empty) and len({r for _, r, _ in placed}) == n_place
        assert all(seat == t[L.G_FIRST] for _, _, seat in placed)
        for r in range(8):  # taken rooms kept their guest
            if before_rooms[r] >= 0:
                assert t.room_card(r) == before_rooms[r]
        assert t[L.G_SEASON] == season + int(change)
        if change:
            assert t.exit() == [] and sorted(t.entrance() + cards[len(ent) :]) == sorted(ex)
        last = n_place < len(empty)
        assert t[L.G_LAST_ROUND] == int(last)
        in_inn = sum(c >= 0 for c in t.rooms())
        assert played == (not last or (not strict and in_inn >= players))
        cash = list(cash0)
        for c, r, _ in placed:  # BI-E2, capped (BI-N8)
            for q in range(players):
                cash[q] = min(40, cash[q] + t.rank(c) * tokens[r][q])
        assert [t.cash(q) for q in range(players)] == cash
        outcomes.add((change, last, played))
        t.check()
    assert len(outcomes) >= 3
