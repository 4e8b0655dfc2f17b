"""The ``search`` player's accusation by rollouts (CL-T6), at 3 players or more.

When the seat may accuse (its pawn in a room at the start or at the end of its own turn) and
is not certain, it compares accusing now with its likeliest triple — it wins with that
triple's estimated probability ``p`` — against waiting: on ``rollouts`` deals sampled
consistently with its own knowledge (``search._sample``: importance-weighted), it plays the
game on to its end on a scratch copy of the state with every seat's own agent code
(``rules.take_turn``), the seat itself playing ``search`` without rollouts and with
``rsamples`` samples per decision.  It accuses when ``p >= wins when waiting + margin``
(``margin`` > 0 makes it wait more); the rollouts stop as soon as those left could not change
that choice.

In a sampled world the opponents' private knowledge is not known; it is *approximated*:
each opponent knows its sampled hand, the public reveals, what the seat really showed it,
and what the public suggestion log (``S_SLOG``: who asked the three cards, who showed)
tells it in that world — non-refuters' has-nots, the card shown to it (drawn from the
refuter's sampled hand as the agents choose it), a clause on the refuter otherwise.  Not
rebuilt: cards shown privately between opponents by CL-K5, CL-K1's public "nobody holds it"
(so opponents know a little less than they do).  The unseen part of the clue pile is
shuffled (its cards in a canonical order first); the opponents' estimates and "stale" flags
start afresh.  Only the seat's own knowledge, public facts and what it showed or was shown
reach the scratch copy, so twins that differ in cards the seat has not seen decide alike.

Randomness: each decision takes one stream number of the seat (``S_SDEC``, as every search
sampling); rollout ``i`` draws its dice and the agents' choices from a stream keyed by that
decision and ``2 i``, the seat's own samplings inside it from ``2 i + 1``; the game's stream
is never touched.  Rollouts never nest: the scratch game runs its own loop, which does not
call back into this module.
"""

import numpy as np
from numba import njit

from kernels.rng import randint, stream_key, uniform

from ..index import nowrap
from . import agents, search
from . import layout as L
from .knowledge import add_clause, add_has, add_not, kbase, kn_init, low_card, popc, propagate
from .rules import accuse, take_turn

P_ROLLOUTS = 8  # sampled deals played out per accusation decision (0: threshold bar)
P_RMARGIN = 9  # accuse when p >= P(win | wait) + margin
P_RSAMPLES = 10  # the seat's samples per decision inside a rollout
POOL = 8  # weighted deals sampled per rollout played
FLOOR = 0.1  # below this probability the seat never accuses on a guess (no rollouts)


@njit(cache=True)
def active(st, seat):
    """Does the seat decide its accusations by rollouts?"""
    return (
        st[nowrap(L.S_AGENT + seat)] == L.AGENT.SEARCH
        and st[L.S_N] >= 3
        and search._param(st, seat, P_ROLLOUTS) >= L.PARAM_SCALE
        and not st[nowrap(L.S_FORBID + seat)] & L.R_GAMBLE
    )


@njit(cache=True)
def _show_pick(sc, r, to, match):
    """The card ``r`` shows ``to`` from ``match`` in a sampled world, as ``agents.choose_show``
    picks it (show = 1): a card already public or already shown to ``to``, else any."""
    pref = match & (sc[nowrap(L.S_PUBLIC + r)] | sc[nowrap(L.S_SHOWN + r * 6 + to)])
    pool = pref if pref else match
    if pool & (pool - 1) == 0:
        return pool
    k = randint(sc, L.S_RNG, popc(pool))
    while k > 0:
        pool &= pool - 1
        k -= 1
    return pool & -pool


@njit(cache=True)
def _world(sc, st, tb, seat, hands, i, nr, key):
    """Scratch copy of ``st`` in sampled world ``hands[i]`` (see the module docstring)."""
    n = st[L.S_N]
    sc[:] = st
    sc[L.S_RNG] = key  # the rollout's own stream from here on
    sc[L.S_REC] = 0
    sc[L.S_NEV] = 0
    sc[L.S_CHECK] = 0
    for h in range(L.N_HOLDERS):
        sc[nowrap(L.S_TRUE + h)] = hands[i, h]
        m = hands[i, h]
        while m:
            sc[nowrap(L.S_OWNER + low_card(m))] = h
            m &= m - 1
    sc[L.S_ENV0] = hands[i, L.ENVELOPE]
    # private shows between opponents are unknown: rebuilt below from the log
    for j in range(n):
        for q in range(n):
            if j != seat and q != seat:
                sc[nowrap(L.S_SHOWN + j * 6 + q)] = 0
    for j in range(n):
        if j == seat:
            continue
        kb = kbase(j)
        kn_init(sc, kb, j, n, False)
        for h in range(L.N_HOLDERS):
            add_has(sc, kb, h, sc[nowrap(L.S_PUBLIC + h)])
        add_has(sc, kb, seat, st[nowrap(L.S_SHOWN + seat * 6 + j)])
        sc[nowrap(L.S_PROB + j * 24 + search.PR_VER)] = -1
        sc[nowrap(L.S_STALE + j)] = 0
        sc[nowrap(L.S_SACC + j)] = L.SACC_BAR
    for e in range(st[L.S_NSLOG]):
        x = st[nowrap(L.S_SLOG + e)]
        a = x & 7
        m = (x >> 3) & L.ALL_CARDS
        r = (x >> 24) - 1
        last = n if r < 0 else (r - a) % n
        for k in range(1, last):
            q = (a + k) % n
            for p in range(n):
                if p != seat and p != q:
                    add_not(sc, kbase(p), q, m)
        if r < 0:
            continue
        if a != seat:
            if r == seat:
                bit = st[nowrap(L.S_SHOWN + seat * 6 + a)] & m
                bit &= -bit
            else:
                bit = _show_pick(sc, r, a, sc[nowrap(L.S_TRUE + r)] & m)
                sc[nowrap(L.S_SHOWN + r * 6 + a)] |= bit
            if bit:
                add_has(sc, kbase(a), r, bit)
        for p in range(n):
            if p != seat and p != a and p != r:
                add_clause(sc, kbase(p), r, m)
    for j in range(n):
        if j != seat:
            propagate(sc, kbase(j))
    # the clue cards not drawn yet lie on top of the pile from S_CLUE_PTR, order unknown
    unseen = min(sc[L.S_NPILE], max(0, tb[L.T_CLUE_PILE] - sc[L.S_CLUE_DRAWN]))
    if unseen > 1:
        np_ = sc[L.S_NPILE]
        ptr = sc[L.S_CLUE_PTR]
        for u in range(1, unseen):  # canonical order (insertion sort), then shuffle
            v = sc[nowrap(L.S_DECK + (ptr + u) % np_)]
            w = u
            while w > 0 and sc[nowrap(L.S_DECK + (ptr + w - 1) % np_)] > v:
                sc[nowrap(L.S_DECK + (ptr + w) % np_)] = sc[nowrap(L.S_DECK + (ptr + w - 1) % np_)]
                w -= 1
            sc[nowrap(L.S_DECK + (ptr + w) % np_)] = v
        for u in range(unseen - 1, 0, -1):
            w = randint(sc, L.S_RNG, u + 1)
            a = sc[nowrap(L.S_DECK + (ptr + u) % np_)]
            sc[nowrap(L.S_DECK + (ptr + u) % np_)] = sc[nowrap(L.S_DECK + (ptr + w) % np_)]
            sc[nowrap(L.S_DECK + (ptr + w) % np_)] = a
    # search seats play without rollouts and with fewer samples in the scratch game
    for j in range(n):
        if sc[nowrap(L.S_AGENT + j)] == L.AGENT.SEARCH:
            sc[nowrap(L.S_PARAM + j * L.N_PARAMS + P_ROLLOUTS)] = 0
            sc[nowrap(L.S_PARAM + j * L.N_PARAMS + search.P_SAMPLES)] = nr
            sc[nowrap(L.S_PROB + j * 24 + search.PR_VER)] = -1


@njit(cache=True)
def _play_out(sc, tb, seat, advance):
    """Play the scratch game to its end (or the CL-V7 cap); ``advance``: the current seat's
    turn is over.  Returns 1 if ``seat`` won."""
    n = sc[L.S_N]
    max_turns = tb[L.T_MAX_TURNS]
    while True:
        cur = sc[L.S_CUR]
        if advance:
            sc[L.S_TURNS] += 1
            if sc[L.S_TURNS] >= max_turns:
                break
            cur = (cur + 1) % n
            if cur == 0:
                sc[L.S_ROUNDS] += 1
            sc[L.S_CUR] = cur
        advance = True
        if sc[nowrap(L.S_ACTIVE + cur)]:
            take_turn(sc, tb, cur)
            sc[L.S_NEV] = 0
        if sc[L.S_OVER]:
            break
    return 1 if sc[L.S_WINNER] == seat else 0


@njit(cache=True)
def _decide(st, tb, seat, at_start, settle):
    """The triple to accuse now, or -1 to wait (module docstring), and the rollouts played
    (0 without rollouts).  With ``settle`` the rollouts stop once the rest could not change
    the choice (the same choice as playing them all)."""
    agents.prepare(st, seat)
    t = agents.certain_triple(st, seat)
    if t >= 0:
        return t, 0
    pb = L.S_PROB + seat * 24
    best = st[nowrap(pb + 22)]
    p = st[nowrap(pb + 23)] / 1e6
    if best < 0 or p < FLOOR:
        return -1, 0
    nroll = search._param(st, seat, P_ROLLOUTS) // L.PARAM_SCALE
    # a pool of POOL x rollouts weighted deals; the rollouts play deals resampled from it in
    # proportion to their weights (systematic resampling): the importance weights are very
    # uneven (effective size ~ 1/7 of the pool), and played out with their weights a few
    # deals would decide
    npool = POOL * nroll
    hands = np.empty((npool, L.N_HOLDERS), np.int64)
    trip = np.empty(npool, np.int64)
    wts = np.empty(npool)
    k = search._sample(st, seat, hands, trip, wts)
    if k == 0:
        return -1, 0
    p = 0.0
    for i in range(k):
        if trip[nowrap(i)] == best:
            p += wts[nowrap(i)]
    base = stream_key(st[L.S_SKEY], seat * search.STREAM_STRIDE + st[nowrap(L.S_SDEC + seat)])
    st[nowrap(L.S_SDEC + seat)] += 1
    nr = max(L.PARAM_SCALE, search._param(st, seat, P_RSAMPLES))
    sc = np.empty(L.STATE_SIZE, np.int64)
    sc[L.S_RNG] = stream_key(base, 2 * nroll)
    u = uniform(sc, L.S_RNG) / nroll
    cum = wts[0]
    j = 0
    wins = 0
    mg = search._param(st, seat, P_RMARGIN) / L.PARAM_SCALE
    played = 0
    for i in range(nroll):
        # settled: accusing (or waiting) whatever the rollouts left would give, so they
        # are not played (each has its own streams: nothing else depends on how many ran)
        if settle and (p >= (wins + nroll - i) / nroll + mg or p < wins / nroll + mg):
            break
        played += 1
        while cum < u and j < k - 1:
            j += 1
            cum += wts[nowrap(j)]
        u += 1.0 / nroll
        _world(sc, st, tb, seat, hands, j, nr, stream_key(base, 2 * i))
        sc[L.S_SKEY] = stream_key(base, 2 * i + 1)
        if at_start:
            sc[nowrap(L.S_SACC + seat)] = L.SACC_WAIT_START
        else:
            sc[nowrap(L.S_SACC + seat)] = L.SACC_BAR
        wins += _play_out(sc, tb, seat, not at_start)
    if p >= wins / nroll + mg:  # wins: all of them, or enough to settle the choice
        return best, played
    return -1, played


@njit(cache=True)
def before_turn(st, tb, seat):
    """Before the seat's turn: decide the accusation at its start (pawn in a room) into
    ``S_SACC`` (a triple, or ``SACC_WAIT_TURN``); the turn makes no other guess."""
    ch = st[nowrap(L.S_CHAR + seat)]
    t = -1
    if st[nowrap(L.S_POS + ch)] < 9:
        t = _decide(st, tb, seat, True, True)[0]
    st[nowrap(L.S_SACC + seat)] = t if t >= 0 else L.SACC_WAIT_TURN


@njit(cache=True)
def after_turn(st, tb, seat):
    """After the seat's turn (the game not over, the seat still in, its pawn in a room):
    accuse now or wait, by rollouts; then the bar is back for the seat's other choices."""
    ch = st[nowrap(L.S_CHAR + seat)]
    if st[L.S_OVER] == 0 and st[nowrap(L.S_ACTIVE + seat)] and st[nowrap(L.S_POS + ch)] < 9:
        t = _decide(st, tb, seat, False, True)[0]
        if t >= 0:
            accuse(st, seat, t)
    st[nowrap(L.S_SACC + seat)] = L.SACC_BAR
