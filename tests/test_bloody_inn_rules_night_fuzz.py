"""Bloody Inn night actions (BI-N2..N9) fuzzed against an oracle written from the rules.

Thousands of random small tables (annexes, filled burial places, rooms, hands, corpses,
Bistro, money) and random decisions — legal and illegal: wrong places, duplicates, bad ids,
too many targets, unaffordable costs, full or missing burial places.  For each one the
oracle (plain Python, from the contract) says whether the action is legal and what it
must do; the kernel's rule function must agree:

- refused -> returns False and the game state is unchanged (scratch aside);
- accepted -> the targets moved where the rule puts them, exactly ``cost`` cards were paid
  (pay events) from the own hand, each returning iff its affinity matches (Chapel: all on
  Bury) and the others discarded (peasants to the Bistro, others to the Exit), the money
  moved as the rule says with the cap, and every invariant holds.
"""

import random

import numpy as np
import pytest
from bloody_inn_harness import LOC, L, Table

from sim.games.bloody_inn.adapter import ADAPTER, annex_ids

ANNEX_KINDS = annex_ids(ADAPTER.base_table())  # the card table's annexes, in table order
POLICE = ["peacekeeper", "brigadier", "brigadier_chief", "major"]
AFFINITY = {"merchant": "bribe", "artisan": "build", "religious": "bury", "police": "kill"}
#: immediately-earned francs (fixed part) and colour counted, from the card texts
NOW = {
    "landscaper": 4,
    "grocer": 4,
    "bishop": 4,
    "baron": 4,
    "viscount": 6,
    "count": 9,
    "duke": 4,
    "marquis": 18,
}
PER_COLOUR = {"cultivator": "red", "newsboy": "blue", "novice": "purple"}


class Oracle:
    """Reads a Table through its public helpers and the card rows (not the kernel's
    effect tables) and predicts the outcome of an action."""

    def __init__(self, t):
        self.t = t

    def owns(self, p, kind):
        return any(self.t.kind(a) == kind for a in self.t.annexes(p))

    def rank(self, c):
        return self.t.rows[self.t.kind(c)]["rank"]

    def ctype(self, c):
        return self.t.rows[self.t.kind(c)]["type"]

    def colour(self, c):
        return self.t.rows[self.t.kind(c)]["colour"]

    def valid(self, c):
        return 0 <= c < self.t.ncards

    def discount(self, p, kind):
        return 1 if self.owns(p, kind) else 0

    def room_targets_cost(self, p, targets, multi_kind, discount_kind):
        t = self.t
        if not targets or len(set(targets)) != len(targets):
            return None
        if len(targets) > 1 and not self.owns(p, multi_kind):
            return None
        if not all(self.valid(c) and t.loc(c) == LOC.room for c in targets):
            return None
        return max(0, sum(self.rank(c) for c in targets) - self.discount(p, discount_kind))

    def bribe(self, p, targets, peasants):
        t = self.t
        if peasants:
            limit = 4 if self.owns(p, "brewer") else 2
            return 0 if 1 <= peasants <= min(limit, len(t.bistro())) else None
        cost = self.room_targets_cost(p, targets, "shopkeeper", "representative")
        return cost if cost is not None and cost <= len(t.hand(p)) else None

    def kill(self, p, targets, peasant):
        t = self.t
        if peasant:
            return 0 if t.bistro() else None
        cost = self.room_targets_cost(p, targets, "butcher", None)
        return cost if cost is not None and cost <= len(t.hand(p)) else None

    def build(self, p, card):
        t = self.t
        if not self.valid(card) or t.loc(card) != LOC.hand + p:
            return None
        kind = t.kind(card)
        if kind not in ANNEX_KINDS or self.owns(p, kind):
            return None
        cost = max(0, self.rank(card) - self.discount(p, "mechanic"))
        return cost if cost <= len(t.hand(p)) - 1 else None

    def free_places(self, dest):
        t = self.t
        if dest < 0:
            q = L.BARN_SLOT - dest
            if not 0 <= q < t.np:
                return None
            return 1 - len([c for c in t.buried(q) if t.slot(c) == dest])
        if not self.valid(dest) or not (LOC.annex <= t.loc(dest) < LOC.annex + t.np):
            return None
        return self.rank(dest) - t.fill(dest)

    def bury(self, p, pairs):
        t = self.t
        corpses = [c for c, _ in pairs]
        if not corpses or len(set(corpses)) != len(corpses):
            return None
        if len(corpses) > 1 and not self.owns(p, "archbishop"):
            return None
        if not all(self.valid(c) and t.loc(c) == LOC.corpse + p for c in corpses):
            return None
        for d in {d for _, d in pairs}:
            free = self.free_places(d)
            if free is None or free < sum(1 for _, x in pairs if x == d):
                return None
        raw = sum(0 if self.ctype(c) == "peasant" else self.rank(c) for c in corpses)
        cost = max(0, raw - self.discount(p, "abbot"))
        return cost if cost <= len(t.hand(p)) else None

    def launder(self, p, k):
        t = self.t
        cash, cheques, cap = t.cash(p), t.cheques(p), t[L.G_CAP]
        return 0 if -min(cheques, (cap - cash) // 10) <= k <= cash // 10 else None


def _random_table(t, rng):
    t.reset(seed=rng.randrange(1 << 30), game_id=rng.randrange(1000))
    t.clear()
    np_ = t.np
    kinds = list(ANNEX_KINDS)
    for p in range(np_):
        for kind in rng.sample(kinds, rng.randrange(0, 4)):
            if any(t.kind(c) == kind for c in t.box()):
                a = t.give_annex(p, kind)
                kinds.remove(kind)
                for _ in range(rng.randrange(0, t.rank(a) + 1)):
                    t.bury_direct(a, rng.choice([c for c in t.box()]))
        if rng.random() < 0.4:
            t.bury_direct(t.barn(p), rng.choice(t.box()))
    travellers = [c for c in t.box() if t.kind(c) != "peasant"]
    rng.shuffle(travellers)
    for r in t.open_rooms():
        if rng.random() < 0.7 and travellers:
            t.to_room(r, travellers.pop())
    peasants = [c for c in t.box() if t.kind(c) == "peasant"]
    rng.shuffle(peasants)
    pool = travellers + peasants
    rng.shuffle(pool)
    for p in range(np_):
        for _ in range(rng.randrange(0, 6)):
            if pool:
                t.to_hand(p, pool.pop())
        for _ in range(rng.randrange(0, 4)):
            if pool:
                t.to_corpse(p, pool.pop())
        t.set_money(p, cash=rng.randrange(0, 41), cheques=rng.randrange(0, 4))
    t.to_bistro(min(rng.randrange(0, 5), sum(t.kind(c) == "peasant" for c in pool)))
    t.check()


def _some_card(t, rng, p):
    """A card id for a decision: usually sensible, sometimes anything (or out of range)."""
    r = rng.random()
    rooms = [c for c in t.rooms() if c >= 0]
    if r < 0.6 and rooms:
        return rng.choice(rooms)
    if r < 0.75 and t.hand(p):
        return rng.choice(t.hand(p))
    if r < 0.85:
        return rng.randrange(-2, t.ncards + 3)
    others = [c for q in range(t.np) for c in t.hand(q) + t.annexes(q) + t.corpses(q)]
    return rng.choice(others) if others else -1


def _check_payment(t, before_hand, pays, cost, action, p, exclude=(), chapel=False):
    assert len(pays) == cost and len({e["card"] for e in pays}) == cost
    for e in pays:
        c = e["card"]
        assert c in before_hand and c not in exclude
        back = chapel or AFFINITY.get(t.rows[t.kind(c)]["type"]) == action
        assert e["a"] == int(back)
        if back:
            assert t.loc(c) == LOC.hand + p
        else:
            assert t.loc(c) == (LOC.bistro if t.kind(c) == "peasant" else LOC.exit)


def _gain(cash, amount, cap):
    return min(cap, cash + amount)


def _one_trial(t, rng):
    o = Oracle(t)
    st = t.st
    p = rng.randrange(t.np)
    action = rng.choice(["bribe", "kill", "build", "bury", "launder"])
    cash0 = [t.cash(q) for q in range(t.np)]
    cheq0 = [t.cheques(q) for q in range(t.np)]
    hand0 = t.hand(p)
    cap = t[L.G_CAP]
    if action in ("bribe", "kill"):
        if rng.random() < 0.25:
            n = rng.randrange(0, 6) if action == "bribe" else 1
            expect = o.bribe(p, [], n) if action == "bribe" else o.kill(p, [], True)
            targets = []
        else:
            n = 0
            k = rng.choice([1, 1, 1, 2, 3])
            targets = [_some_card(t, rng, p) for _ in range(k)]
            expect = o.bribe(p, targets, 0) if action == "bribe" else o.kill(p, targets, False)
    elif action == "build":
        card = rng.choice(t.hand(p)) if t.hand(p) and rng.random() < 0.8 else _some_card(t, rng, p)
        expect = o.build(p, card)
    elif action == "bury":
        corpses = t.corpses(p)
        k = rng.choice([1, 1, 2, 3])
        pairs = []
        for _ in range(k):
            c = rng.choice(corpses) if corpses and rng.random() < 0.85 else _some_card(t, rng, p)
            places = [t.barn(q) for q in range(t.np)] + [a for q in range(t.np) for a in t.annexes(q)]
            d = (
                rng.choice(places)
                if rng.random() < 0.85
                else rng.choice([t.barn(3), t.barn(-1), rng.randrange(-20, t.ncards + 2)])
            )
            pairs.append((c, d))
        expect = o.bury(p, pairs)
    else:
        k = rng.randrange(-5, 6)
        expect = o.launder(p, k)

    t.log_events()
    snapshot = st[: L.D_ACTION].copy()
    if action == "bribe":
        ok = t.act_bribe(p, *targets, peasants=n) if n or not targets else t.act_bribe(p, *targets)
    elif action == "kill":
        ok = t.act_kill(p, peasant=True) if not targets else t.act_kill(p, *targets)
    elif action == "build":
        ok = t.act_build(p, card)
    elif action == "bury":
        ok = t.act_bury(p, *pairs)
    else:
        ok = t.act_launder(p, k)
    assert ok == (expect is not None), (action, expect)
    if not ok:
        changed = np.flatnonzero(st[: L.D_ACTION] != snapshot)
        assert changed.size == 0, f"refused {action} changed state offsets {changed[:10]}"
        return action, False
    ev = t.events()
    pays = [e for e in ev if e["kind"] == "pay"]
    if action in ("bribe", "kill"):
        if targets:
            _check_payment(t, hand0, pays, expect, action, p)
            dest = LOC.hand + p if action == "bribe" else LOC.corpse + p
            assert all(t.loc(c) == dest for c in targets)
            assert all(c not in t.rooms() for c in targets)
        else:
            assert pays == []
            got = [e["card"] for e in ev if e["kind"] == action]
            assert len(got) == (n if action == "bribe" else 1)
            assert all(t.kind(c) == "peasant" for c in got)
        assert [t.cash(q) for q in range(t.np)] == cash0
    elif action == "build":
        _check_payment(t, hand0, pays, expect, "build", p, exclude=(card,))
        kind = t.kind(card)
        assert t.loc(card) == LOC.annex + p
        amount = NOW.get(kind, 0)
        if kind in PER_COLOUR:
            colour = t.rows[kind]["colour"]
            amount += sum(1 for a in t.annexes(p) if t.rows[t.kind(a)]["colour"] == colour)
        assert t.cash(p) == _gain(cash0[p], amount, cap)
    elif action == "bury":
        chapel = o.owns(p, "priest")
        _check_payment(t, hand0, pays, expect, "bury", p, chapel=chapel)
        cash = list(cash0)
        for c, d in pairs:
            owner = (L.BARN_SLOT - d) if d < 0 else t.loc(d) - LOC.annex
            assert t.loc(c) == LOC.buried + owner and t.slot(c) == d
            pocket = t.rows[t.kind(c)]["pocket"]
            if owner == p:
                cash[p] = _gain(cash[p], pocket, cap)
            else:
                cash[p] = _gain(cash[p], pocket - pocket // 2, cap)
                cash[owner] = _gain(cash[owner], pocket // 2, cap)
        assert [t.cash(q) for q in range(t.np)] == cash
    else:
        assert (t.cash(p), t.cheques(p)) == (cash0[p] - 10 * k, cheq0[p] + k)
    if action != "launder":
        assert t.cheques(p) == cheq0[p]
    assert [t.cheques(q) for q in range(t.np) if q != p] == [cheq0[q] for q in range(t.np) if q != p]
    t.check()
    return action, True


@pytest.mark.parametrize("players", [2, 3, 4])
def test_BI_N2_to_N9_fuzzed_actions_agree_with_the_oracle(players):
    """BI-N2..N9: 1,000 random tables and decisions per player count; the kernel accepts
    exactly the legal ones and applies them as the rules say."""
    rng = random.Random(1000 + players)
    t = Table(players, events=True, seats=rng.choice(["random", "greedy"]))
    seen = {}
    for _ in range(1000):
        _random_table(t, rng)
        action, ok = _one_trial(t, rng)
        seen[(action, ok)] = seen.get((action, ok), 0) + 1
    # both outcomes of every action were exercised
    for action in ("bribe", "kill", "build", "bury", "launder"):
        assert seen.get((action, True), 0) >= 20, (action, seen)
        assert seen.get((action, False), 0) >= 20, (action, seen)
