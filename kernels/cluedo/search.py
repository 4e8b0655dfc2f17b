"""``search``: the suggestion and the accusation chosen by looking one suggestion ahead over
deals sampled consistently with the seat's own knowledge.

The seat keeps the ``logic`` bookkeeping (``knowledge.propagate``, exact search when few
triples remain).  At each decision it draws ``samples`` deals consistent with that knowledge
(``knowledge.sample_deal``: sequential importance sampling, weighted so that the samples
estimate the uniform distribution over consistent deals; publicly wrong accusations rule
their triple out, CL-T6; with ``tells`` a deal in which an opponent holds a suspect or weapon
it named in a suggestion weighs less, ``_told``):

* **suggestion** (CL-T5): for every suspect and weapon it may name (its own cards included:
  naming an own card isolates the other two), it plays the refutation out on every sample —
  the first player to the left holding one of the three cards shows one, as the agents do:
  a card it already showed the seat or to everyone if it has one, else any of them — and
  scores the expected entropy of the envelope's suspect, weapon and room after seeing the
  outcome (who showed, and which card).  It names the pair with the least (one-ply expected
  information gain; the plug-in entropies carry the Miller–Madow correction so that an
  outcome seen on few samples does not look more informative than it is);
* **accusation** (CL-T6): when it is certain; else, at 3 players or more with ``rollouts``,
  by playing sampled deals on to the end (``kernels/cluedo/rollout.py``); else when the
  likeliest triple's estimated probability reaches ``threshold ** opponents still in``
  (``wants_gamble``);
* everything else (where to walk, stay or passage, which card to show, clue-card choices)
  is ``prob``'s, fed by these estimates.

Randomness: every sampling draws from its own stream keyed by the game's key (run seed and
game id, ``S_SKEY``), the seat and the seat's count of samplings so far (``S_SDEC``); the
game's own stream is set aside meanwhile and restored, so a search seat never changes the
dice or the other players' random choices.  Honesty: the only inputs are the seat's own
knowledge block, the public hand sizes, the public board and accusations, and what was shown
to the seat or to everyone; two games that differ only in cards the seat has not seen give
it the same samples and the same decisions (tests/test_cluedo_search.py).
"""

import math

import numpy as np
from numba import njit, types

from kernels.rng import stream_key
from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L
from .knowledge import kbase, low_card, pack, popc, sample_deal, wrongly_accused

# parameter slots (kernels.cluedo.agents.P_*: 0-5 are shared with prob)
P_SAMPLES = 5  # deals sampled per decision
P_THRESHOLD = 6  # per opponent still in: accuse when the likeliest triple reaches threshold**opponents
P_MOVE = 7  # move by information per turn with at most this many players (else as prob)
P_TELLS = 11  # how surely an opponent's suggested suspect and weapon are not its own cards
PR_VER = 21  # S_PROB slot holding the knowledge version of the estimate (as agents.PR_VER)
STREAM_STRIDE = 1 << 32  # decision streams: seat * STRIDE + sampling number
F1 = types.float64[::1]  # declared types of helpers called with constants (kernels/sigs.py)
F2 = types.float64[:, ::1]
ROLL = 0  # start-of-turn actions, as agents.ROLL / STAY / PASSAGE (+ room)
STAY = 1
PASSAGE = 2


@njit(cache=True, inline="always")
def _param(st, seat, k):
    return st[nowrap(L.S_PARAM + seat * L.N_PARAMS + k)]


@njit(cache=True)
def _sample(st, seat, hands, trip, wts):
    """Fill ``hands[k, h]`` (every holder's cards), ``trip[k]`` (the envelope triple) and
    ``wts[k]`` (normalised importance weights) for up to ``len(trip)`` deals consistent with
    the seat's propagated knowledge; returns how many were kept.

    Draws from the seat's own decision stream (module docstring); the game's stream is
    restored afterwards."""
    kb = kbase(seat)
    saved = st[L.S_RNG]
    st[L.S_RNG] = stream_key(st[L.S_SKEY], seat * STREAM_STRIDE + st[nowrap(L.S_SDEC + seat)])
    st[nowrap(L.S_SDEC + seat)] += 1
    tells = _param(st, seat, P_TELLS) / L.PARAM_SCALE
    log_keep = math.log(max(1e-9, 1.0 - tells))
    k = 0
    for _ in range(trip.shape[0]):
        lw = sample_deal(st, kb)
        if lw == -math.inf:
            continue
        env = st[nowrap(kb + L.K_HAS + L.ENVELOPE)] | st[L.X_A + L.ENVELOPE]
        t = pack(low_card(env & L.CAT_SUSPECT), low_card(env & L.CAT_WEAPON), low_card(env & L.CAT_ROOM))
        if wrongly_accused(st, t):
            continue
        for h in range(L.N_HOLDERS):
            hands[k, h] = st[nowrap(kb + L.K_HAS + h)] | st[nowrap(L.X_A + h)]
        if tells > 0.0:
            lw = _told(st, seat, hands, k, log_keep, lw)
        trip[nowrap(k)] = t
        wts[nowrap(k)] = lw
        k += 1
    st[L.S_RNG] = saved
    if k == 0:
        return 0
    top = wts[0]
    for i in range(1, k):
        top = max(top, wts[nowrap(i)])
    total = 0.0
    for i in range(k):
        wts[nowrap(i)] = math.exp(wts[nowrap(i)] - top)
        total += wts[nowrap(i)]
    for i in range(k):
        wts[nowrap(i)] /= total
    return k


@njit(cache=True)
def _told(st, seat, hands, k, log_keep, lw):
    """Log-weight ``lw`` of sampled deal ``k`` with what the opponents' suggestions tell (CL-T5):
    agents name the suspect and weapon they are still unsure of, so seldom a card they hold
    (``prob`` and ``logic`` name one only once its category is settled); each named suspect
    or weapon the suggester holds in the deal weighs ``1 - tells`` (``log_keep``, its log).
    Only the public suggestion log is read (who asked which cards): twins that differ in
    cards the seat has not seen weigh their samples alike."""
    for e in range(st[L.S_NSLOG]):
        x = st[nowrap(L.S_SLOG + e)]
        a = x & 7
        if a != seat:
            lw += log_keep * popc(hands[k, a] & (x >> 3) & (L.CAT_SUSPECT | L.CAT_WEAPON))
    return lw


@njit(cache=True)
def _n_samples(st, seat):
    return max(1, _param(st, seat, P_SAMPLES) // L.PARAM_SCALE)


@njit(cache=True)
def refresh(st, seat):
    """Envelope probabilities per card, the likeliest triple and its probability into the
    seat's ``S_PROB`` slots (as ``prob`` keeps them), once per knowledge version."""
    kb = kbase(seat)
    pb = L.S_PROB + seat * 24
    if st[nowrap(pb + PR_VER)] == st[nowrap(kb + L.K_VER)] + 1:
        return
    st[nowrap(pb + PR_VER)] = st[nowrap(kb + L.K_VER)] + 1
    cand = L.ALL_CARDS & ~st[nowrap(kb + L.K_NOT + L.ENVELOPE)]
    n = _n_samples(st, seat)
    hands = np.empty((n, L.N_HOLDERS), np.int64)
    trip = np.empty(n, np.int64)
    wts = np.empty(n)
    k = 0
    if popc(cand & L.CAT_SUSPECT) * popc(cand & L.CAT_WEAPON) * popc(cand & L.CAT_ROOM) > 1:
        k = _sample(st, seat, hands, trip, wts)
    for c in range(21):
        st[nowrap(pb + c)] = 0
    st[nowrap(pb + 22)] = -1
    st[nowrap(pb + 23)] = 0
    if k == 0:
        return
    wt = np.zeros(324)
    for i in range(k):
        wt[nowrap(trip[nowrap(i)])] += wts[nowrap(i)]
    best = 0
    for t in range(324):
        if wt[nowrap(t)] > 0.0:
            st[nowrap(pb + t % 6)] += int(wt[nowrap(t)] * 1e6)
            st[nowrap(pb + 6 + (t // 6) % 6)] += int(wt[nowrap(t)] * 1e6)
            st[nowrap(pb + L.FIRST_ROOM + t // 36)] += int(wt[nowrap(t)] * 1e6)
            if wt[nowrap(t)] > wt[nowrap(best)]:
                best = t
    st[nowrap(pb + 22)] = best
    st[nowrap(pb + 23)] = int(wt[nowrap(best)] * 1e6)


@njit(cache=True)
def wants_gamble(st, seat):
    """The likeliest triple if it is worth accusing now (CL-T6), else -1 (certainty is the
    caller's: ``agents.wants_accuse``).

    One turn of look-ahead: accusing now wins with the triple's probability ``p``; waiting
    for the next turn (by then most likely certain) wins only if none of the ``m``
    opponents still in the game accuses right first, each failing to with probability
    ``threshold``.  So the seat accuses once ``p >= threshold ** m``."""
    pb = L.S_PROB + seat * 24
    if st[nowrap(pb + 22)] < 0:
        return -1
    m = 0
    for j in range(st[L.S_N]):
        if j != seat and st[nowrap(L.S_ACTIVE + j)]:
            m += 1
    bar = (_param(st, seat, P_THRESHOLD) / L.PARAM_SCALE) ** max(1, m)
    if st[nowrap(pb + 23)] >= bar * 1e6:
        return st[nowrap(pb + 22)]
    return -1


@njit(cache=True, inline="always")
def _category(c):
    return 0 if c < 6 else (1 if c < L.FIRST_ROOM else 2)


@njit(cache=True, inline="always")
def _envelope_cols(t):
    """The columns of ``marg`` holding triple ``t``'s suspect, weapon and room."""
    return t % 6, 6 + (t // 6) % 6, L.FIRST_ROOM + t // 36


@njit(cache=True, inline="always")
def _add_at(wsum, wsq, marg, o, cs, cw, cr, x):
    """Weight ``x`` to outcome ``o``, and to its marginals in columns ``cs``, ``cw``, ``cr``."""
    wsum[nowrap(o)] += x
    wsq[nowrap(o)] += x * x
    marg[o, cs] += x
    marg[o, cw] += x
    marg[o, cr] += x


@njit(cache=True, inline="always")
def _add(wsum, wsq, marg, o, t, x):
    cs, cw, cr = _envelope_cols(t)
    _add_at(wsum, wsq, marg, o, cs, cw, cr, x)


@njit(sig(F1, F1, F2, I), cache=True)
def _expected_entropy(wsum, wsq, marg, n_out):
    """Expected entropy (nats) of the envelope's suspect, weapon and room after an outcome:
    ``sum_o P(o) * sum_category H(category | o)``, each plug-in entropy with the Miller–Madow
    correction ``(bins seen - 1) / (2 N_eff)`` at the outcome's effective sample size."""
    out = 0.0
    for o in range(n_out):
        p = wsum[nowrap(o)]
        if p <= 0.0:
            continue
        neff = p * p / wsq[nowrap(o)]
        h = 0.0
        for cat in range(3):
            lo = 0 if cat == 0 else (6 if cat == 1 else L.FIRST_ROOM)
            hi = 6 if cat == 0 else (L.FIRST_ROOM if cat == 1 else 21)
            seen = 0
            for c in range(lo, hi):
                q = marg[o, c] / p
                if q > 0.0:
                    h -= q * math.log(q)
                    seen += 1
            h += (seen - 1) / (2.0 * neff)
        out += p * h
    return out


@njit(cache=True)
def _pair_values(st, seat, room_card, hands, trip, wts, k, best):
    """Expected envelope entropy after suggesting each suspect and weapon in the room of
    ``room_card``: returns the least, its pair (``suspect * 64 + weapon``) in ``best[0]``."""
    n = st[L.S_N]
    barred = (
        st[nowrap(L.S_TRUE + seat)] if st[nowrap(L.S_FORBID + seat)] & L.R_OWN else 0
    )  # restricted play (R_OWN)
    # what the seat knows each opponent (in asking order) would rather show it: a card it
    # already showed the seat or everyone (the agents' least revealing card, agents.choose_show)
    pref = np.zeros(n, np.int64)
    for d in range(1, n):
        j = (seat + d) % n
        pref[nowrap(d - 1)] = st[nowrap(L.S_PUBLIC + j)] | st[nowrap(L.S_SHOWN + j * 6 + seat)]
    # read once for every pair: each sample's envelope cards (their columns of ``marg``) and
    # each opponent's hand in asking order, one row per opponent
    col = np.empty((3, k), np.int64)
    opp = np.empty((n - 1, k), np.int64)
    for i in range(k):
        col[0, i], col[1, i], col[2, i] = _envelope_cols(trip[nowrap(i)])
        for d in range(1, n):
            opp[d - 1, i] = hands[i, (seat + d) % n]
    n_out = 1 + 3 * (n - 1)
    wsum = np.zeros(n_out)
    wsq = np.zeros(n_out)
    marg = np.zeros((n_out, 21))
    best[0] = -1
    best_v = math.inf
    for s in range(6):
        if (barred >> s) & 1:
            continue
        for w in range(6, 12):
            if (barred >> w) & 1:
                continue
            m = (1 << s) | (1 << w) | (1 << room_card)
            wsum[:] = 0.0
            wsq[:] = 0.0
            marg[:, :] = 0.0
            for i in range(k):  # in sample order: the sums as one pair at a time gives them
                o = 0
                shown = 0
                for d in range(n - 1):  # the first opponent holding a named card shows one
                    match = opp[d, i] & m
                    if match:
                        shown = match & pref[nowrap(d)]
                        if shown == 0:
                            shown = match
                        o = 1 + 3 * d
                        break
                x = wts[nowrap(i)]
                if shown == 0:
                    _add_at(wsum, wsq, marg, 0, col[0, i], col[1, i], col[2, i], x)
                else:
                    x = x / popc(shown)
                    while shown:
                        c = low_card(shown)
                        shown &= shown - 1
                        _add_at(wsum, wsq, marg, o + _category(c), col[0, i], col[1, i], col[2, i], x)
            v = _expected_entropy(wsum, wsq, marg, n_out)
            if v < best_v - 1e-12:
                best_v = v
                best[0] = s * 64 + w
    return best_v


@njit(cache=True)
def _entropy_now(trip, wts, k):
    """Entropy of the envelope's suspect, weapon and room now (same estimate as after an
    outcome: one outcome that everything shares)."""
    wsum = np.zeros(1)
    wsq = np.zeros(1)
    marg = np.zeros((1, 21))
    for i in range(k):
        _add(wsum, wsq, marg, 0, trip[nowrap(i)], wts[nowrap(i)])
    return _expected_entropy(wsum, wsq, marg, 1)


@njit(cache=True)
def _look_value(st, seat, hands, trip, wts, k):
    """Expected envelope entropy after looking at one face-down card not looked at yet
    (CL-2.2): in each sample it is any of the table's cards the seat has not looked at."""
    looked = 0
    for q in range(9):
        if (st[nowrap(L.S_LOOKED + seat)] >> q) & 1 and st[nowrap(L.S_ROOMCARD + q)] >= 0:
            looked |= 1 << st[nowrap(L.S_ROOMCARD + q)]  # the seat saw these itself
    wsum = np.zeros(21)
    wsq = np.zeros(21)
    marg = np.zeros((21, 21))
    for i in range(k):
        pool = hands[i, L.TABLE] & ~looked
        if pool == 0:
            _add(wsum, wsq, marg, 0, trip[nowrap(i)], wts[nowrap(i)])
            continue
        x = wts[nowrap(i)] / popc(pool)
        while pool:
            c = low_card(pool)
            pool &= pool - 1
            _add(wsum, wsq, marg, c, trip[nowrap(i)], x)
    return _expected_entropy(wsum, wsq, marg, 21)


@njit(sig(ST, I, F1, I), cache=True)
def room_values(st, seat, gain, rooms):
    """``gain[q]`` for each room ``q`` of the mask ``rooms`` (0 for the others): expected
    information (nats of envelope entropy) of a turn ending in room ``q`` — its best
    suggestion, plus the look at its face-down card if the seat has not looked there yet
    (CL-2.2)."""
    k_max = _n_samples(st, seat)
    hands = np.empty((k_max, L.N_HOLDERS), np.int64)
    trip = np.empty(k_max, np.int64)
    wts = np.empty(k_max)
    k = _sample(st, seat, hands, trip, wts)
    for q in range(9):
        gain[nowrap(q)] = 0.0
    if k == 0:
        return
    h0 = _entropy_now(trip, wts, k)
    best = np.empty(1, np.int64)
    hl = -1.0
    for q in range(9):
        if not (rooms >> q) & 1:
            continue
        gain[nowrap(q)] = max(0.0, h0 - _pair_values(st, seat, L.FIRST_ROOM + q, hands, trip, wts, k, best))
        if (
            st[L.S_N] == 2
            and st[nowrap(L.S_ROOMCARD + q)] >= 0
            and not (st[nowrap(L.S_LOOKED + seat)] >> q) & 1
        ):
            if hl < 0.0:
                hl = max(0.0, h0 - _look_value(st, seat, hands, trip, wts, k))
            gain[nowrap(q)] += hl


@njit(cache=True, inline="always")
def _turns_to(tb, q, node):
    """Turns a walk from ``node`` into room ``q`` takes: about half a turn more than the
    static walking distance over the mean roll of 7 (CL-T1), and at least the one turn
    that a stay or a passage takes too."""
    d = tb[nowrap(L.T_SDIST + q * L.MAX_NODES + node)]
    return max(1.0, 0.5 + d / 7.0)


@njit(cache=True)
def moves(st, seat):
    """Does the seat choose its stay, passage and walk target by information per turn
    (``start_action``, ``choose_target``)?  With at most ``move`` players; else as ``prob``."""
    return st[L.S_N] * L.PARAM_SCALE <= _param(st, seat, P_MOVE)


@njit(cache=True)
def start_action(st, tb, seat, pos, may_stay):
    """At the start of a turn in room ``pos`` (CL-T3): stay and suggest, take a passage, or
    roll, whichever gains the most information per turn (``room_values``; a walk to a room
    is valued at its gain over the turns it takes).  Returns agents' STAY / ROLL /
    PASSAGE + room."""
    gain = np.empty(9)
    room_values(st, seat, gain, 0x1FF)
    best_rate = -1.0
    act = ROLL
    if may_stay:
        best_rate = gain[nowrap(pos)]
        act = STAY
    passages = 0 if st[nowrap(L.S_FORBID + seat)] & L.R_PASSAGE else st[nowrap(L.S_PASS + pos)]
    for q in range(9):
        if (passages >> q) & 1 and gain[nowrap(q)] > best_rate + 1e-12:
            best_rate = gain[nowrap(q)]
            act = PASSAGE + q
    for q in range(9):
        if q != pos and gain[nowrap(q)] / _turns_to(tb, q, pos) > best_rate + 1e-12:
            return ROLL
    return act


@njit(cache=True)
def choose_target(st, tb, seat, pos):
    """The room to walk towards: the most information per turn of walking."""
    gain = np.empty(9)
    room_values(st, seat, gain, 0x1FF)
    best = -1
    best_rate = -1.0
    for q in range(9):
        if q == pos:
            continue
        r = gain[nowrap(q)] / _turns_to(tb, q, pos)
        if r > best_rate + 1e-12 or (
            r > best_rate - 1e-12
            and tb[nowrap(L.T_SDIST + q * L.MAX_NODES + pos)]
            < tb[nowrap(L.T_SDIST + best * L.MAX_NODES + pos)]
        ):
            best_rate = r
            best = q
    return best


@njit(cache=True)
def choose_suggestion(st, seat):
    """Suspect and weapon to name in the room the seat's pawn is in (CL-T5), by one-ply
    expected information gain over sampled deals; returns ``suspect * 64 + weapon``."""
    room_card = L.FIRST_ROOM + st[nowrap(L.S_POS + st[nowrap(L.S_CHAR + seat)])]
    k_max = _n_samples(st, seat)
    hands = np.empty((k_max, L.N_HOLDERS), np.int64)
    trip = np.empty(k_max, np.int64)
    wts = np.empty(k_max)
    k = _sample(st, seat, hands, trip, wts)
    best = np.empty(1, np.int64)
    if k == 0:  # no consistent deal (cannot happen with sound knowledge): any legal pair
        best[0] = -1
        barred = st[nowrap(L.S_TRUE + seat)] if st[nowrap(L.S_FORBID + seat)] & L.R_OWN else 0
        for s in range(6):
            for w in range(6, 12):
                if best[0] < 0 and not (barred >> s) & 1 and not (barred >> w) & 1:
                    best[0] = s * 64 + w
        return best[0]
    _pair_values(st, seat, room_card, hands, trip, wts, k, best)
    return best[0]
