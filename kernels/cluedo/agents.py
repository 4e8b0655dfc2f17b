"""Agents: every choice a Cluedo player makes, for the ``naive``, ``logic`` and ``prob`` policies.

An agent reads only its own knowledge block (its hand, cards shown to it, public reveals,
who could not refute whose suggestion), the public board (pawns, passages, wrong
accusations) and its own record of what it showed to whom.

* ``naive`` ticks only cards it has seen (and a card announced as unheld, CL-K1); it accuses
  when one unticked card is left in each category.
* ``logic`` keeps every fact (has / has-not / "at least one of" / hand sizes / one envelope
  card per category) closed under ``knowledge.propagate``; when at most ``exact`` envelope
  triples remain it settles them exactly with ``knowledge.solve``; it accuses when the
  envelope is certain.
* ``prob`` reasons like ``logic`` and also estimates envelope probabilities from ``samples``
  importance-weighted consistent deals; it suggests the cards whose envelope probability is
  most uncertain and accuses once the likeliest triple reaches ``risk``.
* ``search`` is ``prob`` whose suggestion, accusation and (at few players) moves come from
  ``search`` (one-ply expected information over sampled deals) through the hooks below; at
  3 players or more its accusation can come from rollouts (``rollout``, decided by the game
  loop between turns and read here by ``accusation``).

Parameters live in ``st[S_PARAM + seat * N_PARAMS + k]`` scaled by ``PARAM_SCALE``.
"""

import math

import numpy as np
from numba import njit

from kernels.rng import randint
from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L
from . import search
from .board import exact_end, reach_exact, reached_steps
from .knowledge import (
    add_has,
    copy_block,
    kbase,
    known_cards,
    low_card,
    pack,
    popc,
    propagate,
    random_card,
    sample_deal,
    solve,
    wrongly_accused,
)

# parameter slots
P_SHOW = 0  # 1: show the least revealing card, 0: a random one
P_LOUPE = 1  # 1: use a loupe for a clue card unless the step is needed to reach the target room
P_WALK = 2  # stay and suggest when the nearest useful room is farther than this
P_EXACT = 3  # settle the envelope exactly when at most this many triples remain (0 off)
P_RISK = 4  # prob: accuse when the likeliest triple has at least this probability
P_SAMPLES = 5  # prob: sampled deals per estimate

STAY = 1
ROLL = 0
PASSAGE = 2  # + destination room

SOLVER_BUDGET = 4000
PR_VER = 21  # S_PROB slots: 0..20 envelope ppm per card, 21 knowledge version, 22 best, 23 ppm


@njit(cache=True, inline="always")
def _forbids(st, seat, bit):
    """Restricted play (sim power): the seat never makes the choice ``bit`` (layout.R_*)."""
    return (st[nowrap(L.S_FORBID + seat)] & bit) != 0


@njit(cache=True, inline="always")
def param(st, seat, k):
    return st[nowrap(L.S_PARAM + seat * L.N_PARAMS + k)]


@njit(cache=True, inline="always")
def unpack_suspect(t):
    return t % 6


@njit(cache=True, inline="always")
def unpack_weapon(t):
    return 6 + (t // 6) % 6


@njit(cache=True, inline="always")
def unpack_room(t):
    return L.FIRST_ROOM + t // 36


# --- what the agent believes ---------------------------------------------------------


@njit(cache=True)
def candidates(st, seat):
    """Cards that may be in the envelope, as this agent sees it."""
    kb = kbase(seat)
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.NAIVE:
        seen = 0
        for h in range(L.N_HOLDERS):
            if h != L.ENVELOPE:
                seen |= st[nowrap(kb + L.K_HAS + h)]
        env = st[nowrap(kb + L.K_HAS + L.ENVELOPE)]
        out = 0
        for k in range(3):
            cat = L.CAT_SUSPECT if k == 0 else (L.CAT_WEAPON if k == 1 else L.CAT_ROOM)
            if env & cat:
                out |= env & cat
            else:
                out |= cat & ~seen
        return out
    return L.ALL_CARDS & ~st[nowrap(kb + L.K_NOT + L.ENVELOPE)]


@njit(cache=True)
def _single_triple(st, seat, cand):
    s = cand & L.CAT_SUSPECT
    w = cand & L.CAT_WEAPON
    r = cand & L.CAT_ROOM
    if popc(s) == 1 and popc(w) == 1 and popc(r) == 1:
        return pack(low_card(s), low_card(w), low_card(r))
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.NAIVE or popc(s) * popc(w) * popc(r) > 12:
        return -1
    # a wrong accusation is public: it rules its triple out (logic and prob)
    found = -1
    for a in range(6):
        if (s >> a) & 1:
            for b in range(6, 12):
                if (w >> b) & 1:
                    for c in range(12, 21):
                        if (r >> c) & 1:
                            t = pack(a, b, c)
                            if not wrongly_accused(st, t):
                                if found >= 0:
                                    return -1
                                found = t
    return found


@njit(cache=True)
def _exact_envelope(st, seat, limit):
    """The envelope triple if exactly one candidate triple is consistent, else -1.

    Runs only when at most ``limit`` candidate triples are left; each is tested by an exact
    search for a consistent deal (a search out of budget counts as consistent: never a false
    certainty)."""
    kb = kbase(seat)
    cand = L.ALL_CARDS & ~st[nowrap(kb + L.K_NOT + L.ENVELOPE)]
    s = cand & L.CAT_SUSPECT
    w = cand & L.CAT_WEAPON
    r = cand & L.CAT_ROOM
    if popc(s) * popc(w) * popc(r) > limit:
        return -1
    found = -1
    for a in range(6):
        if (s >> a) & 1:
            for b in range(6, 12):
                if (w >> b) & 1:
                    for c in range(12, 21):
                        if (r >> c) & 1:
                            t = pack(a, b, c)
                            if wrongly_accused(st, t):
                                continue
                            copy_block(st, kb, L.S_XK)
                            st[L.S_XK + L.K_HAS + L.ENVELOPE] |= (1 << a) | (1 << b) | (1 << c)
                            if solve(st, L.S_XK, SOLVER_BUDGET) != 0:
                                if found >= 0:
                                    return -1
                                found = t
    return found


@njit(cache=True)
def _estimate(st, seat):
    """prob: envelope probabilities from importance-weighted consistent deals (S_PROB)."""
    kb = kbase(seat)
    pb = L.S_PROB + seat * 24
    n = max(1, param(st, seat, P_SAMPLES) // L.PARAM_SCALE)
    logw = np.empty(n)
    trip = np.empty(n, np.int64)
    k = 0
    for _ in range(n):
        lw = sample_deal(st, kb)
        if lw == -math.inf:
            continue
        env = st[nowrap(kb + L.K_HAS + L.ENVELOPE)] | st[L.X_A + L.ENVELOPE]
        t = pack(low_card(env & L.CAT_SUSPECT), low_card(env & L.CAT_WEAPON), low_card(env & L.CAT_ROOM))
        if wrongly_accused(st, t):
            continue
        logw[nowrap(k)] = lw
        trip[nowrap(k)] = t
        k += 1
    for c in range(21):
        st[nowrap(pb + c)] = 0
    st[nowrap(pb + 22)] = -1
    st[nowrap(pb + 23)] = 0
    if k == 0:
        return
    top = logw[0]
    for i in range(1, k):
        top = max(top, logw[nowrap(i)])
    wt = np.zeros(324)
    total = 0.0
    for i in range(k):
        x = math.exp(logw[nowrap(i)] - top)
        wt[nowrap(trip[nowrap(i)])] += x
        total += x
    marg = np.zeros(21)
    best = 0
    for t in range(324):
        if wt[nowrap(t)] > 0.0:
            marg[nowrap(unpack_suspect(t))] += wt[nowrap(t)]
            marg[nowrap(unpack_weapon(t))] += wt[nowrap(t)]
            marg[nowrap(unpack_room(t))] += wt[nowrap(t)]
            if wt[nowrap(t)] > wt[nowrap(best)]:
                best = t
    for c in range(21):
        st[nowrap(pb + c)] = int(marg[nowrap(c)] / total * 1e6)
    st[nowrap(pb + 22)] = best
    st[nowrap(pb + 23)] = int(wt[nowrap(best)] / total * 1e6)


@njit(cache=True)
def prepare(st, seat):
    """Bring the agent's beliefs up to date before it decides (lazy: only when facts changed)."""
    kb = kbase(seat)
    agent = st[nowrap(L.S_AGENT + seat)]
    if agent == L.AGENT.NAIVE:
        return
    if st[nowrap(kb + L.K_DIRTY)]:
        propagate(st, kb)
    limit = param(st, seat, P_EXACT) // L.PARAM_SCALE
    if limit > 0 and st[nowrap(kb + L.K_EXVER)] != st[nowrap(kb + L.K_VER)]:
        t = _exact_envelope(st, seat, limit)
        if t >= 0:
            # entailed: record it so that propagation uses it
            add_has(
                st, kb, L.ENVELOPE, (1 << unpack_suspect(t)) | (1 << unpack_weapon(t)) | (1 << unpack_room(t))
            )
            propagate(st, kb)
        st[nowrap(kb + L.K_EXVER)] = st[nowrap(kb + L.K_VER)]
        st[nowrap(kb + L.K_EXRES)] = t
    if agent == L.AGENT.PROB:
        pb = L.S_PROB + seat * 24
        if st[nowrap(pb + PR_VER)] != st[nowrap(kb + L.K_VER)] + 1:
            st[nowrap(pb + PR_VER)] = st[nowrap(kb + L.K_VER)] + 1
            if _single_triple(st, seat, candidates(st, seat)) < 0:
                _estimate(st, seat)
    elif agent == L.AGENT.SEARCH:
        search.refresh(st, seat)


@njit(cache=True)
def certain_triple(st, seat):
    """The envelope triple if the agent is certain of it, else -1."""
    return _single_triple(st, seat, candidates(st, seat))


@njit(cache=True)
def wants_accuse(st, seat):
    """Triple to accuse now (CL-T6), or -1."""
    t = certain_triple(st, seat)
    if t >= 0:
        return t
    if _forbids(st, seat, L.R_GAMBLE):
        return -1  # restricted: accuses at its first certainty, never on a probability
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.PROB:
        pb = L.S_PROB + seat * 24
        if st[nowrap(pb + 22)] >= 0 and st[nowrap(pb + 23)] >= param(st, seat, P_RISK):
            return st[nowrap(pb + 22)]
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.SEARCH:
        return search.wants_gamble(st, seat)
    return -1


@njit(cache=True)
def accusation(st, seat, at_start):
    """Triple to accuse at one of the turn's two checks (CL-T6: at its start or after the
    suggestion, the pawn in a room), or -1.  A search seat deciding by rollouts
    (``rollout.before_turn``) has its decision in ``S_SACC``: a triple to accuse at the
    start, or no guess during the turn (``SACC_WAIT_TURN``; the game loop decides after it) or
    at its start only (``SACC_WAIT_START``, in a rollout's scratch game); certainty always
    accuses."""
    mode = st[nowrap(L.S_SACC + seat)]
    if mode == L.SACC_BAR:
        return wants_accuse(st, seat)
    t = certain_triple(st, seat)
    if t >= 0:
        return t
    if at_start and mode >= 0:
        return mode
    return -1


@njit(cache=True)
def _env_prob(st, seat, c):
    return st[nowrap(L.S_PROB + seat * 24 + c)]


# --- movement ------------------------------------------------------------------------


@njit(cache=True)
def useful_rooms(st, seat):
    """Rooms (mask over 0..8) worth walking to: with 2 players, first the rooms whose
    face-down card is still unseen (which rooms hold one is public, CL-2.1, not which card);
    then the rooms where a suggestion can still tell the agent about the room card; once the
    room is settled, the rooms whose card nobody else holds."""
    cand = candidates(st, seat) & L.CAT_ROOM
    if cand & (cand - 1):
        r = (_refutable(st, seat, cand) & L.CAT_ROOM) >> L.FIRST_ROOM
    elif _still_learning(st, seat):
        # room settled: rooms nobody else can refute (own or the envelope's) isolate the
        # suspect and the weapon
        r = ((st[nowrap(L.S_TRUE + seat)] | cand) & L.CAT_ROOM) >> L.FIRST_ROOM
    else:
        r = 0
    if st[L.S_N] == 2:  # CL-2.2: face-down cards not looked at yet come first
        fd = 0
        for q in range(9):
            if st[nowrap(L.S_ROOMCARD + q)] >= 0 and not (st[nowrap(L.S_LOOKED + seat)] >> q) & 1:
                fd |= 1 << q
        if fd:
            return fd
    return r


@njit(cache=True)
def _refutable(st, seat, cards):
    """The cards of ``cards`` another player may still hold (a suggestion naming one can be
    refuted); a naive agent does not track has-nots, so for it that is all of them."""
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.NAIVE:
        return cards
    kb = kbase(seat)
    out = 0
    for h in range(st[L.S_N]):
        if h != seat:
            out |= cards & ~st[nowrap(kb + L.K_NOT + h)]
    return out


@njit(cache=True)
def _still_learning(st, seat):
    cand = candidates(st, seat)
    s = cand & L.CAT_SUSPECT
    w = cand & L.CAT_WEAPON
    return (s & (s - 1)) != 0 or (w & (w - 1)) != 0


@njit(cache=True, inline="always")
def sdist(tb, room, node):
    return tb[nowrap(L.T_SDIST + room * L.MAX_NODES + node)]


@njit(sig(ST, ST, I, I, I), cache=True)
def _nearest_room(st, tb, seat, pos, mask):
    """Nearest room of ``mask`` (other than ``pos``) by walking distance; -1 if none."""
    best = -1
    bd = 1 << 30
    for r in range(9):
        if (mask >> r) & 1 and r != pos:
            d = sdist(tb, r, pos)
            if d < bd:
                bd = d
                best = r
    return best


@njit(cache=True)
def start_action(st, tb, seat, pos, may_stay):
    """At the start of a turn in a room (CL-T3): STAY, ROLL or PASSAGE + room."""
    if pos >= 9:
        return ROLL
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.SEARCH and search.moves(st, seat):
        return search.start_action(st, tb, seat, pos, may_stay)
    useful = useful_rooms(st, seat)
    learning = _still_learning(st, seat)
    passages = st[nowrap(L.S_PASS + pos)]
    if st[nowrap(L.S_STALE + seat)]:
        may_stay = False  # the last suggestion taught nothing: go elsewhere,
        passages = 0  # on foot (no passage ping-pong)
    if _forbids(st, seat, L.R_PASSAGE):
        passages = 0
    if may_stay and (useful >> pos) & 1:
        return STAY
    if passages & useful:
        return PASSAGE + low_card(passages & useful)
    if useful == 0:
        if may_stay and learning:
            return STAY
        if passages and learning:
            return PASSAGE + low_card(passages)
        return ROLL
    if may_stay and learning:
        near = _nearest_room(st, tb, seat, pos, useful)
        if near < 0 or sdist(tb, near, pos) * L.PARAM_SCALE > param(st, seat, P_WALK):
            return STAY
    return ROLL


@njit(cache=True)
def choose_target(st, tb, seat, pos):
    """The room the agent walks towards."""
    accusing = wants_accuse(st, seat) >= 0
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.SEARCH and search.moves(st, seat) and not accusing:
        return search.choose_target(st, tb, seat, pos)
    useful = useful_rooms(st, seat)
    if useful == 0 or accusing:
        useful = 0x1FF
    t = _nearest_room(st, tb, seat, pos, useful)
    if t < 0:
        t = _nearest_room(st, tb, seat, pos, 0x1FF)
    return t


@njit(cache=True)
def wants_clue(st, tb, seat, target, total):
    """Loupe (CL-T2): use it for a clue card unless that step is needed to reach the target."""
    if param(st, seat, P_LOUPE) <= 0 or _forbids(st, seat, L.R_CLUE):
        return False
    d = reached_steps(st, target)
    return not (d == total)


@njit(cache=True)
def wants_clue_staying(st, seat):
    """Loupe of a player who stays or takes a passage (``roll_every_turn``): no step is
    needed, so it draws a clue card whenever it uses loupes at all."""
    return param(st, seat, P_LOUPE) > 0 and not _forbids(st, seat, L.R_CLUE)


@njit(cache=True)
def choose_destination(st, tb, seat, pos, target, nq):
    """Where to end the move among the ``nq`` nodes of the last ``board.moves``: the target
    room, else another useful room, else the square closest to the target.  With exact moves
    (``move_steps``) the pawn cannot stay where it is unless nothing else is legal: it takes
    the legal square closest to the target, or any room."""
    useful = useful_rooms(st, seat)
    if useful == 0 or wants_accuse(st, seat) >= 0:
        useful = 0x1FF
    best = pos
    bd = sdist(tb, target, pos)
    room = -1
    for i in range(1, nq):
        v = st[nowrap(L.X_QUEUE + i)]
        if st[nowrap(L.X_DIST + v)] <= 0:
            continue
        if v < 9:
            if v == target:
                return v
            if room < 0 and (useful >> v) & 1:
                room = v
        else:
            d = sdist(tb, target, v)
            if d < bd:
                bd = d
                best = v
    if room >= 0:
        return room
    if tb[L.T_EXACT]:
        return _exact_square(st, tb, pos, target, nq)
    if best == pos and nq > 1:
        # blocked from getting closer (pawns jam a corridor): step aside at random so that
        # jams dissolve instead of repeating forever
        v = st[nowrap(L.X_QUEUE + 1 + randint(st, L.S_RNG, nq - 1))]
        if v >= 9 or (useful >> v) & 1:
            return v
    return best


EXACT_BUDGET = 2000  # search nodes per candidate square (an undecided one is skipped)


@njit(cache=True)
def _exact_square(st, tb, pos, target, nq):
    """Exact moves (``move_steps``): the end square closest to ``target`` among those a walk
    of the whole roll (``S_MOVE_STEPS``) reaches, from the ``nq`` nodes of the last ``reach``.

    A square at blocked distance equal to the roll is an end at once (its shortest path);
    a nearer one needs a longer path (``board.exact_end``).  If none qualifies the pawn is
    boxed in: ``board.reach_exact`` gives the longest walks; else any room; else it stays."""
    total = st[L.S_MOVE_STEPS]
    m = 0
    for i in range(1, nq):
        v = st[nowrap(L.X_QUEUE + i)]
        d = st[nowrap(L.X_DIST + v)]
        # squares alternate colours, so from a square the parity of a walk is fixed (not from
        # a room: its doors may open onto squares of both colours)
        if v >= 9 and d > 0 and (pos < 9 or (total - d) % 2 == 0):
            st[nowrap(L.X_CAND + m)] = v
            m += 1
    while m > 0:
        k = 0
        for i in range(1, m):
            if sdist(tb, target, st[nowrap(L.X_CAND + i)]) < sdist(tb, target, st[nowrap(L.X_CAND + k)]):
                k = i
        v = st[nowrap(L.X_CAND + k)]
        if st[nowrap(L.X_DIST + v)] == total or exact_end(st, tb, pos, total, v, EXACT_BUDGET) == 1:
            return v
        m -= 1
        st[nowrap(L.X_CAND + k)] = st[nowrap(L.X_CAND + m)]
    n = reach_exact(st, tb, pos, total)
    best = -1
    room = -1
    for i in range(1, n):
        v = st[nowrap(L.X_QUEUE + i)]
        if v < 9:
            room = v if room < 0 else room
        elif best < 0 or sdist(tb, target, v) < sdist(tb, target, best):
            best = v
    if best >= 0:
        return best
    return room if room >= 0 else pos


# --- suggestions, showing, clue-card choices ---------------------------------------------


@njit(sig(ST, I, I), cache=True)
def _pick_not_own(st, seat, cat):
    """Restricted (never names an own card, CL-T5): the card of ``cat`` as ``_pick`` would
    choose it among the cards the seat does not hold (a settled category: its envelope card)."""
    mine = st[nowrap(L.S_TRUE + seat)] & cat
    cand = candidates(st, seat) & cat & ~mine
    if cand == 0:
        cand = cat & ~mine
    if cand & (cand - 1) == 0:
        return low_card(cand)
    info = _refutable(st, seat, cand)
    if info:
        cand = info
    if st[nowrap(L.S_AGENT + seat)] >= L.AGENT.PROB and st[nowrap(L.S_PROB + seat * 24 + 22)] >= 0:
        best = -1
        bv = -1
        for c in range(21):
            if (cand >> c) & 1:
                p = _env_prob(st, seat, c)
                v = p * (1_000_000 - p)
                if v > bv:
                    bv = v
                    best = c
        return best
    return random_card(st, cand)


@njit(sig(ST, I, I), cache=True)
def _pick(st, seat, cat):
    if _forbids(st, seat, L.R_OWN):
        return _pick_not_own(st, seat, cat)
    cand = candidates(st, seat) & cat
    if cand == 0:
        cand = cat
    if cand & (cand - 1) == 0:
        # category settled: name an own card of it if any (isolates the other two)
        own = st[nowrap(L.S_TRUE + seat)] & cat
        if own:
            return random_card(st, own)
        return low_card(cand)
    info = _refutable(st, seat, cand)
    if info == 0:
        return random_card(st, cand)  # nobody can refute any: the suggestion isolates
    cand = info
    if st[nowrap(L.S_AGENT + seat)] >= L.AGENT.PROB and st[nowrap(L.S_PROB + seat * 24 + 22)] >= 0:
        best = -1
        bv = -1
        for c in range(21):
            if (cand >> c) & 1:
                p = _env_prob(st, seat, c)
                v = p * (1_000_000 - p)
                if v > bv:
                    bv = v
                    best = c
        return best
    return random_card(st, cand)


@njit(cache=True)
def choose_suggestion(st, seat):
    """Suspect and weapon to name (CL-T5); returns ``suspect * 64 + weapon``."""
    if st[nowrap(L.S_AGENT + seat)] == L.AGENT.SEARCH:
        return search.choose_suggestion(st, seat)
    return _pick(st, seat, L.CAT_SUSPECT) * 64 + _pick(st, seat, L.CAT_WEAPON)


@njit(sig(ST, I, I, I), cache=True)
def choose_show(st, seat, to, matches):
    """Card ``seat`` shows from ``matches`` to seat ``to`` (-1: to everyone)."""
    if matches & (matches - 1) == 0:
        return low_card(matches)
    if param(st, seat, P_SHOW) > 0:
        n = st[L.S_N]
        pref = st[nowrap(L.S_PUBLIC + seat)]
        if to >= 0:
            pref |= st[nowrap(L.S_SHOWN + seat * 6 + to)]
        if matches & pref:
            return random_card(st, matches & pref)
        anyone = 0
        for i in range(n):
            anyone |= st[nowrap(L.S_SHOWN + seat * 6 + i)]
        if matches & anyone:
            return random_card(st, matches & anyone)
    return random_card(st, matches)


@njit(cache=True)
def choose_named_card(st, seat, cat):
    """CL-K2: the card of ``cat`` the drawer asks to see."""
    kb = kbase(seat)
    cand = candidates(st, seat) & cat & ~st[nowrap(L.S_TRUE + seat)]
    if cand & (cand - 1):
        return _pick(st, seat, cat) if st[nowrap(L.S_AGENT + seat)] >= L.AGENT.PROB else random_card(st, cand)
    unknown = cat & ~known_cards(st, kb)
    if unknown:
        return random_card(st, unknown)
    other = cat & ~st[nowrap(L.S_TRUE + seat)]
    return random_card(st, other if other else cat)


@njit(cache=True)
def choose_reveal_player(st, seat):
    """CL-K3: the player still in the game whose hand the drawer knows least (-1: none)."""
    kb = kbase(seat)
    n = st[L.S_N]
    best = -1
    bv = -1
    for k in range(1, n):
        p = (seat + k) % n
        if not st[nowrap(L.S_ACTIVE + p)]:
            continue  # CL-K8: a player out of the game is never chosen
        v = st[nowrap(L.S_HSIZE + p)] - popc(st[nowrap(kb + L.K_HAS + p)])
        if v > bv:
            bv = v
            best = p
    return best


@njit(cache=True)
def choose_room_all_move(st, tb, seat, drawer):
    """CL-K6: the room this player moves its pawn to.  The ``drawer`` prefers a useful room
    other than its own: it suggests in a room it moves to at once, but a drawer who rolled to
    walk does not suggest in the room it started in (CL-K9)."""
    useful = useful_rooms(st, seat)
    ch_pos = st[nowrap(L.S_POS + _char_of(st, seat))]
    if drawer and ch_pos < 9 and useful & ~(1 << ch_pos):
        useful &= ~(1 << ch_pos)
    if useful:
        if ch_pos < 9 and (useful >> ch_pos) & 1:
            return ch_pos
        return low_card(useful) if popc(useful) == 1 else nth_room(useful, randint(st, L.S_RNG, popc(useful)))
    if ch_pos < 9:
        return ch_pos
    return _nearest_room(st, tb, seat, ch_pos, 0x1FF)


@njit(cache=True)
def nth_room(mask, k):
    r = 0
    while True:
        if (mask >> r) & 1:
            if k == 0:
                return r
            k -= 1
        r += 1


@njit(cache=True)
def _char_of(st, seat):
    return st[nowrap(L.S_CHAR + seat)]


@njit(cache=True)
def choose_new_passage(st, seat):
    """CL-K7: the room the drawer joins to the secret passages (-1: every room has one)."""
    free = 0
    for r in range(9):
        if st[nowrap(L.S_PASS + r)] == 0:
            free |= 1 << r
    if free == 0:
        return -1
    pick = free & useful_rooms(st, seat)
    if pick == 0:
        pick = free
    return nth_room(pick, randint(st, L.S_RNG, popc(pick)))
