"""The deduction engine on hand-built knowledge states: it finds what is entailed and nothing
that is not (CL-S2 one envelope card per category, CL-T5 refutation facts, hand sizes)."""

import numpy as np

from kernels.cluedo import layout as L
from kernels.cluedo.agents import certain_triple, prepare, unpack_room, unpack_suspect, unpack_weapon
from kernels.cluedo.knowledge import (
    add_clause,
    add_has,
    add_not,
    copy_block,
    kbase,
    propagate,
    sample_deal,
    solve,
)
from sim.games.cluedo import adapter as C

ALL = L.ALL_CARDS


def bit(*names):
    m = 0
    for n in names:
        m |= 1 << C.card_index(n)
    return m


def blank(sizes):
    """A state whose seat-0 knowledge block knows nothing; holder sizes given as {h: size}."""
    st = np.zeros(L.STATE_SIZE, np.int64)
    kb = kbase(0)
    for h in range(L.N_HOLDERS):
        st[L.S_HSIZE + h] = sizes.get(h, 0)
        if sizes.get(h, 0) == 0:
            st[kb + L.K_NOT + h] = ALL
    return st, kb


def has(st, kb, h):
    return int(st[kb + L.K_HAS + h])


def nt(st, kb, h):
    return int(st[kb + L.K_NOT + h])


def exact_closure(st, kb, budget=200_000):
    """The oracle: for each card and holder, is there a consistent deal putting it there?"""
    possible = np.zeros((L.N_CARDS, L.N_HOLDERS), bool)
    for c in range(L.N_CARDS):
        for h in range(L.N_HOLDERS):
            copy_block(st, kb, L.S_XK)
            add_has(st, L.S_XK, h, 1 << c)
            r = solve(st, L.S_XK, budget)
            assert r != -1, "oracle out of budget"
            possible[c, h] = r == 1
    return possible


# 4 players: seats 0,1 hold 5 cards, seats 2,3 hold 4, the envelope 3
SIZES4 = {0: 5, 1: 5, 2: 4, 3: 4, L.ENVELOPE: 3}


def test_held_card_is_nowhere_else():
    st, kb = blank(SIZES4)
    add_has(st, kb, 2, bit("rope"))
    assert propagate(st, kb) == 0
    for h in (0, 1, 3, L.ENVELOPE):
        assert nt(st, kb, h) & bit("rope")


def test_card_with_one_possible_holder_is_held_there():
    st, kb = blank(SIZES4)
    for h in (0, 1, 2, L.ENVELOPE):
        add_not(st, kb, h, bit("dagger"))
    assert propagate(st, kb) == 0
    assert has(st, kb, 3) & bit("dagger")


def test_clause_with_one_possible_card_becomes_a_fact():
    """CL-T5: seat 1 showed someone a card of (plum, rope, hall); plum and hall are known elsewhere."""
    st, kb = blank(SIZES4)
    add_clause(st, kb, 1, bit("plum", "rope", "hall"))
    add_has(st, kb, 2, bit("plum"))
    add_has(st, kb, 3, bit("hall"))
    assert propagate(st, kb) == 0
    assert has(st, kb, 1) & bit("rope")
    assert st[kb + L.K_NCL] == 0


def test_clause_with_two_possible_cards_entails_nothing_more():
    st, kb = blank(SIZES4)
    add_clause(st, kb, 1, bit("plum", "rope", "hall"))
    add_has(st, kb, 2, bit("plum"))
    assert propagate(st, kb) == 0
    assert has(st, kb, 1) == 0
    for h in range(L.N_HOLDERS):
        assert not has(st, kb, h) & bit("rope", "hall")
    # and the oracle agrees that rope and hall may each be elsewhere
    poss = exact_closure(st, kb)
    assert poss[C.card_index("rope"), L.ENVELOPE] and poss[C.card_index("hall"), 0]


def test_full_hand_excludes_everything_else():
    st, kb = blank(SIZES4)
    add_has(st, kb, 2, bit("plum", "rope", "hall", "study"))
    assert propagate(st, kb) == 0
    assert nt(st, kb, 2) == ALL & ~bit("plum", "rope", "hall", "study")


def test_as_many_possible_cards_as_hand_size_are_all_held():
    st, kb = blank(SIZES4)
    add_not(st, kb, 3, ALL & ~bit("plum", "rope", "hall", "study"))
    assert propagate(st, kb) == 0
    assert has(st, kb, 3) == bit("plum", "rope", "hall", "study")


def test_envelope_holds_exactly_one_card_per_category():
    """CL-S2: five suspects held by players -> the sixth is in the envelope; a known envelope
    weapon rules the other weapons out of it."""
    st, kb = blank(SIZES4)
    add_has(st, kb, 0, bit("scarlett", "mustard"))
    add_has(st, kb, 1, bit("white", "green"))
    add_has(st, kb, 2, bit("peacock"))
    add_has(st, kb, L.ENVELOPE, bit("rope"))
    assert propagate(st, kb) == 0
    assert has(st, kb, L.ENVELOPE) & bit("plum")
    assert nt(st, kb, L.ENVELOPE) & L.CAT_WEAPON == L.CAT_WEAPON & ~bit("rope")
    assert not has(st, kb, L.ENVELOPE) & L.CAT_ROOM


def test_nobody_refutes_puts_unheld_cards_in_envelope():
    """CL-T5: nobody could refute seat 0's (plum, rope, hall) and seat 0 holds none of them."""
    st, kb = blank(SIZES4)
    add_has(st, kb, 0, bit("scarlett", "dagger", "kitchen", "lounge", "study"))
    add_not(st, kb, 0, ALL & ~bit("scarlett", "dagger", "kitchen", "lounge", "study"))
    for h in (1, 2, 3):
        add_not(st, kb, h, bit("plum", "rope", "hall"))
    assert propagate(st, kb) == 0
    assert has(st, kb, L.ENVELOPE) == bit("plum", "rope", "hall")


def test_contradiction_is_reported():
    st, kb = blank(SIZES4)
    add_has(st, kb, 2, bit("rope"))
    add_not(st, kb, 2, bit("rope"))
    assert propagate(st, kb) == 1


def test_counting_entailment_found_by_exact_search_not_by_propagation():
    """Seat 3 has one unknown card left and two clauses {a, b} and {a, c}: only a satisfies
    both.  Propagation (unit rules) cannot see it; the exact search must."""
    st, kb = blank(SIZES4)
    add_has(st, kb, 3, bit("scarlett", "dagger", "kitchen"))
    add_clause(st, kb, 3, bit("plum", "rope"))
    add_clause(st, kb, 3, bit("plum", "hall"))
    assert propagate(st, kb) == 0
    assert not has(st, kb, 3) & bit("plum")  # propagation alone: not found
    poss = exact_closure(st, kb)
    plum = C.card_index("plum")
    assert poss[plum, 3] and not poss[plum, 0] and not poss[plum, L.ENVELOPE]
    assert not poss[C.card_index("rope"), 3] and not poss[C.card_index("hall"), 3]


def test_exact_search_proves_the_envelope_for_the_logic_agent():
    """A state where propagation leaves two envelope triples but only one is consistent:
    ``prepare`` (exact search, CL-T6 accusation only when certain) must settle it."""
    res = C.resolve({"players": 3, "seats": [{"strategy": "logic"}]})
    res.update(seed=0)
    st, tb = C.new_state(res)
    C.set_deal(
        st,
        [
            ["scarlett", "mustard", "candlestick", "dagger", "kitchen", "ballroom"],
            ["white", "green", "lead_pipe", "revolver", "conservatory", "dining_room"],
            ["peacock", "rope", "billiard_room", "library", "lounge", "hall"],
        ],
        ["plum", "wrench", "study"],
    )
    kb = kbase(0)
    # seat 0 knows: seat 1's and 2's hands except that one of {peacock, plum} and one of
    # {rope, wrench} is unresolved; seat 2 has one unknown card and two clauses on it
    for c in ("white", "green", "lead_pipe", "revolver", "conservatory", "dining_room"):
        add_has(st, kb, 1, bit(c))
    for c in ("billiard_room", "library", "lounge", "hall"):
        add_has(st, kb, 2, bit(c))
    add_not(st, kb, 2, bit("study"))
    add_clause(st, kb, 2, bit("peacock", "rope"))
    add_clause(st, kb, 2, bit("peacock", "wrench"))
    add_clause(st, kb, 2, bit("rope", "plum"))
    assert propagate(st, kb) == 0
    cand = int(L.ALL_CARDS & ~st[kb + L.K_NOT + L.ENVELOPE])
    assert bin(cand & L.CAT_SUSPECT).count("1") == 2 or bin(cand & L.CAT_WEAPON).count("1") == 2
    st[L.S_PARAM + L.N_PARAMS * 0 + 3] = 0  # exact off: not certain
    st[kb + L.K_EXVER] = -1
    prepare(st, 0)
    assert certain_triple(st, 0) == -1
    st[L.S_PARAM + 3] = 8 * L.PARAM_SCALE  # exact on: certain and right
    st[kb + L.K_EXVER] = -1
    prepare(st, 0)
    t = certain_triple(st, 0)
    assert t >= 0
    names = [C.load_board().cards[f(t)] for f in (unpack_suspect, unpack_weapon, unpack_room)]
    assert names == ["plum", "wrench", "study"]


def _random_knowledge(rng, n):
    """A random true deal and a random sound subset of facts and clauses about it."""
    cards = rng.permutation(21)
    env = [int(rng.integers(0, 6)), int(6 + rng.integers(0, 6)), int(12 + rng.integers(0, 9))]
    rest = [c for c in cards if c not in env]
    owner = np.full(21, L.ENVELOPE)
    for i, c in enumerate(rest):
        owner[c] = i % n
    st = np.zeros(L.STATE_SIZE, np.int64)
    kb = kbase(0)
    for h in range(L.N_HOLDERS):
        st[L.S_HSIZE + h] = int((owner == h).sum())
        if st[L.S_HSIZE + h] == 0:
            st[kb + L.K_NOT + h] = ALL
    p_has, p_not = rng.uniform(0.05, 0.6), rng.uniform(0.05, 0.8)  # how much is known
    for c in range(21):
        if owner[c] == 0 or (owner[c] != L.ENVELOPE and rng.random() < p_has):
            add_has(st, kb, int(owner[c]), 1 << c)
        for h in range(n):
            if h != owner[c] and (h == 0 or rng.random() < p_not):
                add_not(st, kb, h, 1 << c)
    for _ in range(rng.integers(0, 10)):
        h = int(rng.integers(1, n))
        mine = [c for c in range(21) if owner[c] == h]
        trio = {int(rng.choice(mine))} | set(int(x) for x in rng.choice(21, 2, replace=False))
        m = 0
        for c in trio:
            m |= 1 << c
        add_clause(st, kb, h, m)
    return st, kb, owner


def test_propagation_is_sound_and_the_logic_agent_finds_every_entailed_envelope():
    """Random sound knowledge states: every fact propagation derives is entailed (the exact
    closure agrees) and the true deal stays consistent; with exact search allowed on all
    triples, the logic agent is certain of the envelope exactly when it is entailed."""
    rng = np.random.default_rng(7)
    certain_cases = 0
    for _ in range(60):
        n = int(rng.integers(3, 7))
        st, kb, owner = _random_knowledge(rng, n)
        assert propagate(st, kb) == 0
        poss = exact_closure(st, kb)
        for c in range(21):
            assert poss[c, owner[c]]  # truth is consistent
            for h in range(L.N_HOLDERS):
                if (st[kb + L.K_HAS + h] >> c) & 1:
                    assert poss[c].sum() == 1 and poss[c, h]
                if (st[kb + L.K_NOT + h] >> c) & 1:
                    assert not poss[c, h]
        env = poss[:, L.ENVELOPE]
        entailed = env[:6].sum() == 1 and env[6:12].sum() == 1 and env[12:].sum() == 1
        st[L.S_N] = n
        st[L.S_AGENT] = L.AGENT.LOGIC
        st[L.S_PARAM + 3] = 324 * L.PARAM_SCALE
        st[kb + L.K_EXVER] = -1
        prepare(st, 0)
        t = certain_triple(st, 0)
        assert (t >= 0) == entailed
        if entailed:
            certain_cases += 1
            assert [unpack_suspect(t), unpack_weapon(t), unpack_room(t)] == list(np.flatnonzero(env))
    assert certain_cases > 0


def test_sampled_deals_are_consistent():
    rng = np.random.default_rng(3)
    for trial in range(30):
        n = int(rng.integers(3, 7))
        st, kb, owner = _random_knowledge(rng, n)
        st[L.S_RNG] = trial
        assert propagate(st, kb) == 0
        for _ in range(5):
            lw = sample_deal(st, kb)
            if lw == -np.inf:
                continue
            deal = [int(st[kb + L.K_HAS + h] | st[L.X_A + h]) for h in range(L.N_HOLDERS)]
            assert sum(bin(d).count("1") for d in deal) == 21
            for h in range(L.N_HOLDERS):
                assert bin(deal[h]).count("1") == st[L.S_HSIZE + h]
                assert deal[h] & st[kb + L.K_NOT + h] == 0
            env = deal[L.ENVELOPE]
            for cat in (L.CAT_SUSPECT, L.CAT_WEAPON, L.CAT_ROOM):
                assert bin(env & cat).count("1") == 1
            for i in range(st[kb + L.K_NCL]):
                e = int(st[kb + L.K_CL + i])
                assert deal[e >> 21] & (e & ALL)
