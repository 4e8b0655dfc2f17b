"""Bloody Inn morning (BI-M1..M4, BI-X2) and game end (BI-G1..G3, BI-X2) fuzzed against
an oracle written from the rules: random tables (annexes, rooms with or without police,
hands, corpses, money, burials, first player), then the kernel's ``morning`` or
``end_game``, compared with what the contract says must happen to every player's money,
cards, places and wins.  Wages use ``voluntary_dismissal = false`` so how many cards stay
is fixed by the rules (which ones is the player's choice)."""

import random

import pytest
from bloody_inn_harness import LOC, L, Table

from sim.games.bloody_inn.adapter import ADAPTER, annex_ids

ANNEX_KINDS = annex_ids(ADAPTER.base_table())  # the card table's annexes, in table order
END_COLOUR = {"landscaper": "red", "grocer": "blue", "bishop": "purple", "duke": "green"}
CAP = 40


def _fine(cash, cheques, n, chosen):
    """BI-M1: 10 F per corpse in cash or cheques, the player's choice.  ``chosen`` is the
    number of cheques the kernel's player paid (read from the result); the oracle asserts
    it is a legal split and returns the money after paying it: exactly the fine, or
    everything when the player is short."""
    due = 10 * n
    if cash + 10 * cheques < due:
        assert chosen == cheques, "a short player pays every cheque"
        return 0, 0
    assert 0 <= chosen <= min(cheques, n) and due - 10 * chosen <= cash, "not a legal split"
    return cash - (due - 10 * chosen), cheques - chosen


def _random_table(t, rng):
    t.reset(seed=rng.randrange(1 << 30), game_id=rng.randrange(1000))
    t.clear()
    kinds = list(ANNEX_KINDS)
    for p in range(t.np):
        for kind in rng.sample(kinds, rng.randrange(0, 4)):
            t.give_annex(p, kind)
            kinds.remove(kind)
    travellers = [c for c in t.box() if t.kind(c) != "peasant"]
    rng.shuffle(travellers)
    police_ok = rng.random() < 0.5
    for r in t.open_rooms():
        if rng.random() < 0.7:
            c = travellers.pop()
            while not police_ok and t.rows[t.kind(c)]["type"] == "police":
                c = travellers.pop()
            t.to_room(r, c)
    pool = travellers + [c for c in t.box() if t.kind(c) == "peasant"]
    rng.shuffle(pool)
    for p in range(t.np):
        for _ in range(rng.randrange(0, 6)):
            t.to_hand(p, pool.pop())
        if rng.random() < 0.5:
            for _ in range(rng.randrange(1, 4)):
                t.to_corpse(p, pool.pop())
        t.set_money(p, cash=rng.randrange(0, CAP + 1), cheques=rng.randrange(0, 5))
        t[L.P_BURIED + p] = rng.randrange(0, 3)
    left = [c for c in pool if t.kind(c) != "peasant"]  # peasants never enter the Exit
    t.to_exit(*left[: rng.randrange(0, 8)])
    t[L.G_FIRST] = rng.randrange(t.np)
    t.check()


def _owns(t, p, kind):
    return sum(t.kind(a) == kind for a in t.annexes(p))


def _morning_oracle(t, chosen):
    np_ = t.np
    cash = [t.cash(p) for p in range(np_)]
    cheques = [t.cheques(p) for p in range(np_)]
    hands = [len(t.hand(p)) for p in range(np_)]
    police = any(c >= 0 and t.rows[t.kind(c)]["type"] == "police" for c in t.rooms())
    corpses = [len(t.corpses(p)) for p in range(np_)]
    lost = False
    if police:
        for p in range(np_):
            if corpses[p]:
                if np_ == 1:
                    lost = True
                else:
                    cash[p], cheques[p] = _fine(cash[p], cheques[p], corpses[p], chosen[p])
    if lost:
        return dict(cash=cash, cheques=cheques, hands=hands, lost=True, corpses=corpses, first=t[L.G_FIRST])
    keys = t.keys()
    for p in range(np_):
        rooms = sum(1 for r, c in enumerate(t.rooms()) if c >= 0 and keys[r] == p)
        cash[p] = min(CAP, cash[p] + rooms + 2 * _owns(t, p, "gardener"))
    for p in range(np_):
        free = _owns(t, p, "distiller")
        kept = min(hands[p], cash[p] + free)
        cash[p] -= max(0, kept - free)
        hands[p] = kept
    return dict(
        cash=cash,
        cheques=cheques,
        hands=hands,
        lost=False,
        corpses=[0] * np_ if police else corpses,
        first=(t[L.G_FIRST] + 1) % np_,
    )


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_BI_M1_to_M4_fuzzed_mornings_agree_with_the_oracle(players):
    rng = random.Random(50 + players)
    t = Table(players, rules={"voluntary_dismissal": False}, seats=rng.choice(["random", "greedy"]))
    fined = lost = 0
    for _ in range(400):
        _random_table(t, rng)
        before = t.st.copy()
        cheques0 = [t.cheques(p) for p in range(players)]
        hands0 = [t.hand(p) for p in range(players)]
        exit0, bistro0 = set(t.exit()), set(t.bistro())
        in_rooms = [c for c in t.rooms() if c >= 0]
        t.morning()
        # only the fine moves cheques in a Morning (no unlimited wealth here): the split
        chosen = [cheques0[p] - t.cheques(p) for p in range(players)]
        after = t.st.copy()
        t.st[:] = before
        want = _morning_oracle(t, chosen)
        t.st[:] = after
        assert [t.cash(p) for p in range(players)] == want["cash"]
        assert [t.cheques(p) for p in range(players)] == want["cheques"]
        assert [len(t.corpses(p)) for p in range(players)] == want["corpses"]
        if want["lost"]:
            lost += 1
            assert t.p(L.P_SOLO_LOST, 0) == 1 and t[L.G_OVER] == 1
            continue
        fined += sum(t.p(L.P_FINES, p) > 0 for p in range(players))
        assert [len(t.hand(p)) for p in range(players)] == want["hands"]
        assert t[L.G_FIRST] == want["first"]
        assert all(c < 0 for c in t.rooms()) and set(in_rooms) <= set(t.exit())
        for p in range(players):
            assert set(t.hand(p)) <= set(hands0[p])
            for c in set(hands0[p]) - set(t.hand(p)):  # dismissed accomplices
                assert t.loc(c) == (LOC.bistro if t.kind(c) == "peasant" else LOC.exit)
        assert exit0 <= set(t.exit()) and bistro0 <= set(t.bistro())
        t.check()
    assert fined > 20 or players == 1
    assert lost > 20 or players > 1


def _end_oracle(t, chosen):
    np_ = t.np
    cash = [t.cash(p) for p in range(np_)]
    cheques = [t.cheques(p) for p in range(np_)]
    lost = [False] * np_
    for p in range(np_):
        n = len(t.corpses(p))
        if n:
            if np_ == 1:
                lost[p] = True
            else:
                cash[p], cheques[p] = _fine(cash[p], cheques[p], n, chosen[p])
    exit_cards = t.exit() + [c for c in t.rooms() if c >= 0]
    colours = [t.rows[t.kind(c)]["colour"] for c in exit_cards]
    for p in range(np_):
        if lost[p]:
            continue
        bonus = 0
        for a in t.annexes(p):
            kind = t.kind(a)
            if kind in END_COLOUR:
                bonus += 4 * colours.count(END_COLOUR[kind])
            if kind == "prince":
                bonus += 3 * cheques[p]
        cash[p] = min(CAP, cash[p] + bonus)
    score = [cash[p] + 10 * cheques[p] for p in range(np_)]
    buried = [t.p(L.P_BURIED, p) for p in range(np_)]

    def beats(q, p):
        return score[q] > score[p] or (score[q] == score[p] and buried[q] > buried[p])

    place = [1 + sum(beats(q, p) for q in range(np_)) for p in range(np_)]
    if np_ == 1:
        winner = [0 if lost[0] else 1]
    else:
        winner = [int(place[p] == 1) for p in range(np_)]
    return cash, cheques, score, place, winner, lost


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_BI_G1_to_G3_fuzzed_endings_agree_with_the_oracle(players):
    rng = random.Random(90 + players)
    t = Table(players)
    ties = 0
    for _ in range(400):
        _random_table(t, rng)
        if rng.random() < 0.3 and players > 1:  # force score ties
            for p in range(1, players):
                t.set_money(p, cash=t.cash(0), cheques=t.cheques(0))
        before = t.st.copy()
        cheques0 = [t.cheques(p) for p in range(players)]
        t.end_game()
        chosen = [cheques0[p] - t.cheques(p) for p in range(players)]  # the fines' splits
        after = t.st.copy()
        t.st[:] = before
        cash, cheques, score, place, winner, lost = _end_oracle(t, chosen)
        t.st[:] = after
        assert [t.cash(p) for p in range(players)] == cash
        assert [t.cheques(p) for p in range(players)] == cheques
        assert [t.p(L.P_SCORE, p) for p in range(players)] == score
        assert [t.p(L.P_PLACE, p) for p in range(players)] == place
        assert [t.p(L.P_WINNER, p) for p in range(players)] == winner
        assert [t.p(L.P_SOLO_LOST, p) for p in range(players)] == [int(x) for x in lost]
        assert all(c < 0 for c in t.rooms()) and all(t.corpses(p) == [] or lost[p] for p in range(players))
        ties += sum(winner) > 1
        t.check()
    assert ties > 5 or players == 1
