"""Property tests (hypothesis) of the rules where a hand-picked example can miss a corner:
payments (BI-M1), the wealth cap (BI-N8, BI-V10), laundering (BI-N7), wages (BI-M3) and
movement (CL-T1).  Each property is the rule restated as arithmetic over every money state,
not a number the code produced."""

from __future__ import annotations

import numpy as np
from bloody_inn_harness import Table
from hypothesis import given, settings
from hypothesis import strategies as hs

from kernels.bloody_inn import layout as L
from kernels.bloody_inn.legal import launder_range
from kernels.cluedo import layout as CL
from kernels.cluedo.board import reach, reached_steps
from sim.games.cluedo import adapter as C

SETTINGS = settings(max_examples=80, deadline=None)
CASH = hs.integers(0, 40)
CHEQUES = hs.integers(0, 12)

_TABLES = {}


def _table(**rules):
    key = tuple(sorted(rules.items()))
    if key not in _TABLES:
        _TABLES[key] = Table(2, rules=rules or None).clear()
    return _TABLES[key]


@SETTINGS
@given(cash=CASH, cheques=CHEQUES, corpses=hs.integers(0, 8))
def test_BI_M1_a_fine_takes_what_is_owed_or_everything(cash, cheques, corpses):
    """BI-M1: 10 F per corpse, paid in cash and cheques; a player who is short pays all."""
    t = _table()
    t.set_money(0, cash, cheques)
    fine = 10 * corpses
    cash_paid, cheques_paid = t.pay_fine(0, fine)
    assert cash_paid + 10 * cheques_paid == min(fine, cash + 10 * cheques)
    assert 0 <= cheques_paid <= cheques and 0 <= cash_paid <= cash
    assert (t.cash(0), t.cheques(0)) == (cash - cash_paid, cheques - cheques_paid)


@SETTINGS
@given(cash=CASH, cheques=CHEQUES, amount=hs.integers(0, 60), unlimited=hs.booleans())
def test_BI_N8_V10_cash_never_exceeds_the_cap(cash, cheques, amount, unlimited):
    """BI-N8: a gain above 40 is lost; BI-V10 unlimited_wealth: it becomes cheques instead."""
    t = _table(unlimited_wealth=unlimited)
    t.set_money(0, cash, cheques)
    kept = t.gain_cash(0, amount)
    assert t.cash(0) <= 40
    if unlimited:
        assert t.cash(0) + 10 * t.cheques(0) == cash + 10 * cheques + amount
        assert kept == amount
    else:
        assert kept == min(amount, 40 - cash) and t.cash(0) == cash + kept
        assert t.cheques(0) == cheques


@SETTINGS
@given(cash=CASH, cheques=CHEQUES, k=hs.integers(-12, 4))
def test_BI_N7_laundering_keeps_wealth_and_the_cap(cash, cheques, k):
    """BI-N7: whole tens of cash become cheques or back; cash may not exceed 40.  A legal
    exchange keeps the player's wealth; an illegal one is refused and changes nothing."""
    t = _table()
    t.set_money(0, cash, cheques)
    most_cashed, most_bought = launder_range(t.st, 0)
    assert most_bought == cash // 10
    assert most_cashed == min(cheques, (40 - cash) // 10)
    legal = -most_cashed <= k <= most_bought
    ok = t.act_launder(0, k)
    if legal:
        assert ok
        assert (t.cash(0), t.cheques(0)) == (cash - 10 * k, cheques + k)
    else:
        assert (t.cash(0), t.cheques(0)) == (cash, cheques)
    assert 0 <= t.cash(0) <= 40


@SETTINGS
@given(cash=hs.integers(0, 8), cheques=CHEQUES, hand=hs.integers(0, 6), voluntary=hs.booleans())
def test_BI_M3_wages_are_cash_only_one_franc_per_kept_accomplice(cash, cheques, hand, voluntary):
    """BI-M3: 1 F cash per card kept (cheques refused); unpaid accomplices leave; without
    voluntary dismissal (BI-V5) the player keeps every card it can pay."""
    t = _table(voluntary_dismissal=voluntary)
    t.clear()
    cards = t.to_hand(0, *["peasant"] * hand)
    t.set_money(0, cash, cheques)
    t.pay_wages(0)
    kept = len(t.hand(0))
    assert set(t.hand(0)) <= set(cards)
    assert t.cheques(0) == cheques
    assert cash - t.cash(0) == kept <= min(hand, cash)
    if not voluntary:
        assert kept == min(hand, cash)
    # dismissed peasants go to the Bistro (BI-M3)
    assert all(t.loc(c) == L.LOC.bistro for c in cards if c not in t.hand(0))
    assert t[L.G_ERR] == 0


B = C.load_board()
SQUARES = list(range(9, B.n_nodes))


def _cluedo_state():
    res = C.resolve({"players": 3, "seats": [{"strategy": "logic"}]})
    res.update(seed=0)
    return C.new_state(res)


_CL = _cluedo_state()


@SETTINGS
@given(
    start=hs.sampled_from(SQUARES + list(range(9))),
    others=hs.lists(hs.sampled_from(SQUARES), min_size=0, max_size=5, unique=True),
    limit=hs.integers(1, 12),
)
def test_CL_T1_a_move_reaches_exactly_the_squares_within_the_roll(start, others, limit):
    """CL-T1: a pawn ends on any node whose shortest unblocked path is at most the roll:
    pawns are neither entered nor crossed, a room ends the move, the start room is left."""
    st, tb = _CL[0].copy(), _CL[1]
    others = [o for o in others if o != start]
    for ch in range(6):
        st[CL.S_POS + ch] = others[ch] if ch < len(others) else 0  # rooms do not block
    n = reach(st, tb, start, limit)
    got = {int(v): reached_steps(st, int(v)) for v in st[CL.X_QUEUE : CL.X_QUEUE + n]}
    # the rule restated as a plain breadth-first search over the board graph
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            if dist[u] == limit or (u < 9 and u != start):
                continue
            for v in B.adj[u]:
                v = int(v)
                if v < 0 or v in dist or v in others:
                    continue
                dist[v] = dist[u] + 1
                nxt.append(v)
        frontier = nxt
    assert got == dist
    assert all(reached_steps(st, o) == -1 for o in others)
    assert np.all(np.array(list(got.values())) <= limit)
