"""``search``: a night action chosen by playing the heuristic's best few candidates forward.

At each of its night actions (BI-N1) a search seat

1. asks the heuristic (its own 16 parameters, ``expert``'s by default) to value every
   candidate action, and keeps the best ``candidates`` within ``gap`` francs of the best
   (the heuristic's own choice first, with its multi-target extension);
2. samples the hidden cards ``determinizations`` times, consistently with what the seat
   knows (``redeal``): the travellers in the other players' hands and unburied corpses,
   the Entrance below its public top card and the box are dealt again from the pool of
   all of them, each place keeping its known size; once the Entrance was made of the
   public Exit (BI-E3, season 2 on) its cards are known and only their order is sampled;
3. plays every candidate on each sample (the same sample and the same random stream for
   every candidate: common random numbers), ``rollouts`` times, with the rollout policy at
   every seat, to the end of the game or for ``rollout_rounds`` rounds (then scored as if the
   game ended there, BI-G);
4. takes the candidate with the best mean outcome: the score in solo (a lost game counts
   0, BI-X2); with opponents the win share (ties split) plus ``margin_weight`` x the score
   margin over the best opponent / 100.  Ties go to the earlier candidate (the heuristic's
   order).

This is determinized ("perfect-information") Monte Carlo at one ply (DMC, ``method`` 0):
the choice is made on means over samples, so there is no tree to fuse
strategies across samples; the rollout policy's own moves are the known weakness.

With ``method`` 1 (the default) the same candidates and samples feed information-set MCTS instead
(single-observer SO-ISMCTS, Cowling, Powley and Whitehouse 2012; ``_ismcts``): a tree over
the seat's own next ``tree_depth`` night actions, the other seats played by the rollout
policy in between (the environment), one fresh sample per iteration, UCB1 over the
actions available in that sample (``exploration``), as many iterations as DMC would play
rollouts (fewer once no later one could change the choice), and the root's most visited
action taken.  With ``tree_reuse`` (the default) a decision's root starts from the nodes the
seat's previous tree grew for it (one level below the action chosen then) and plays only the
rest of its iterations.  With ``common_samples`` a root action's n-th iteration of a decision
plays sample n, so the root's actions are compared on the same samples, as DMC's are (the
root's action is then chosen before the sample is dealt).  DMC or ISMCTS, reuse and common
samples: measured in docs/strategies.md.

Randomness: every sample draws from a stream keyed by the game's own stream state, the
turn, the seat and the sample index, so rows do not depend on threads or chunking and the
real game's stream is never advanced.  Honesty: the only reads of hidden cards are the
pool the samples are dealt from, gathered in card order, so any two states that differ
only in hidden cards give the same samples and the same decision (tests).

The decision is left in ``D_T`` / ``D_DEST`` and ``G_STASH_*``; ``decide_action`` plays it
when ``take_action`` asks (layout ``G_STASH``).  The work states live in ``st`` itself
(``G_SEARCH_AT``), the rollout parameters in the second half of ``pr``.
"""

import math

import numpy as np
from numba import njit, types

from kernels.rng import randint, stream_key
from kernels.sigs import PR, ST, I, sig

from ..index import nowrap
from . import layout as L
from . import strat_greedy
from . import strat_heuristic as heur
from .rollout import NO_STOP, copy_game, play_from, play_from_placement, play_to_seat
from .search_params import search_index
from .state import move_card
from .strat_heuristic import REC, REC_N, REC_W, SCALE, STAMP

F = types.float64
NHEUR = 16  # the heuristic's parameters open a search seat's block
KMAX = 12  # most candidates
TMAX = 64  # most targets of the heuristic's own (multi-target) choice
#: greedy's defaults, for greedy rollouts
GREEDY_PR = np.array([d for _, d, _ in strat_greedy.PARAMS], dtype=np.float64)
#: the rollout policy's strategy id per ``rollout_policy`` value (random, greedy, heuristic)
POLICY_ID = np.array([0, 1, 2], dtype=np.int64)

# The search seat's own scratch in ``S_E`` (no other strategy runs during its decision):
C_TAB = L.S_E  # per candidate: action, targets, peasants flag, launder amount, target, dest
C_W = 6
C_FIRST_T = L.S_E + KMAX * C_W  # the heuristic's own choice: its targets ...
C_FIRST_D = C_FIRST_T + TMAX  # ... and destinations
C_SUM = C_FIRST_D + TMAX  # outcome sums x 2**20 per candidate
C_CHOSEN = C_SUM + KMAX  # index of the candidate taken
OUT_SCALE = 1048576.0
SP_PLACEMENT = search_index("placement")
PLACE_SALT = 1 << 20  # sample streams of placement decisions: d + PLACE_SALT x (Entrance position + 1)

# The search parameters' indices in a seat's block, by name (the tuple may grow).
SP_CANDIDATES = search_index("candidates")
SP_DETERMINIZATIONS = search_index("determinizations")
SP_ROLLOUTS = search_index("rollouts")
SP_ROLLOUT_ROUNDS = search_index("rollout_rounds")
SP_ROLLOUT_POLICY = search_index("rollout_policy")
SP_BUDGET = search_index("budget")
SP_MARGIN_WEIGHT = search_index("margin_weight")
SP_GAP = search_index("gap")
SP_METHOD = search_index("method")
SP_EXPLORATION = search_index("exploration")
SP_TREE_DEPTH = search_index("tree_depth")
SP_TREE_REUSE = search_index("tree_reuse")
SP_COMMON = search_index("common_samples")

# ISMCTS scratch, after the DMC table in ``S_E``
DMAX = 8  # most own decisions in the tree (``tree_depth``)
C_NODES = C_CHOSEN + 1  # tree nodes in use
C_PICK = C_NODES + 1  # the child ``_select`` chose (-1: the tree is full)
C_EXPANDED = C_PICK + 1  # 1 if ``_select`` created it now
C_SIG = C_EXPANDED + 1  # an action signature (4 ints)
C_PATH = C_SIG + 4  # the nodes of this iteration, root first (DMAX + 1)
C_MATCH = C_PATH + DMAX + 1  # per candidate at the current node: its child, or -1
C_ROOT_N = C_SUM  # common samples: iterations of each root action this decision (DMC's sums are free)
# A tree node: visits, availability (times it could be chosen), outcome sum x OUT_SCALE, first
# child, next sibling, then its action's signature (``_signature``).  Node v is NODE_W ints
# at ``G_SEARCH_AT + 2 * STATE_END + v * NODE_W``, at most TREE_NODES of them (layout).
N_VISITS, N_AVAIL, N_SUM, N_CHILD, N_NEXT, N_A, N_T, N_NT, N_X = range(9)
assert L.NODE_W == 9


@njit(sig(ST, I, I), cache=True, _nrt=False)
def sample_key(st, p, d):
    """The stream of sample ``d`` of seat ``p``'s decision at this turn: a function of the
    game's own stream state (seed, game, draws so far), the turn and the seat."""
    return stream_key(st[L.G_RNG] ^ (st[L.G_TURNS] * 1000003 + p * 7919), d)


@njit(sig(ST, I), cache=True, _nrt=False)
def redeal(w, p):
    """Deal the cards seat ``p`` cannot see again, uniformly among the deals it cannot tell
    apart (module docstring).  Draws from ``w``'s stream; uses ``w``'s scratch."""
    ntrav = w[L.G_NTRAV]
    np_ = w[L.G_NP]
    pos = w[L.G_ENT_POS]
    below = w[L.G_ENT_N] - pos - 1
    if below < 0:
        below = 0
    known_entrance = w[L.G_SEASON] > 1  # BI-E3: made of the Exit, which everyone saw
    for q in range(2 * L.MAXP):
        w[nowrap(L.S_C + q)] = 0  # travellers per hand (q) and per corpse pile (MAXP + q)
    n = 0
    ne = 0
    for c in range(ntrav):  # card order: the pool never depends on where cards lie
        loc = w[nowrap(L.C_LOC + c)]
        hidden = loc == L.LOC.box
        if loc == L.LOC.entrance and w[nowrap(L.C_SLOT + c)] > pos:
            if known_entrance:
                w[nowrap(L.S_B + ne)] = c
                ne += 1
            else:
                hidden = True
        elif L.LOC.hand <= loc < L.LOC.hand + np_ and loc - L.LOC.hand != p:
            hidden = True
            w[nowrap(L.S_C + loc - L.LOC.hand)] += 1
        elif L.LOC.corpse <= loc < L.LOC.corpse + np_ and loc - L.LOC.corpse != p:
            hidden = True
            w[nowrap(L.S_C + L.MAXP + loc - L.LOC.corpse)] += 1
        if hidden:
            w[nowrap(L.S_A + n)] = c
            n += 1
    for i in range(n - 1):  # Fisher-Yates
        j = i + randint(w, L.G_RNG, n - i)
        t = w[nowrap(L.S_A + i)]
        w[nowrap(L.S_A + i)] = w[nowrap(L.S_A + j)]
        w[nowrap(L.S_A + j)] = t
    for i in range(ne - 1):
        j = i + randint(w, L.G_RNG, ne - i)
        t = w[nowrap(L.S_B + i)]
        w[nowrap(L.S_B + i)] = w[nowrap(L.S_B + j)]
        w[nowrap(L.S_B + j)] = t
    for i in range(n):
        move_card(w, w[nowrap(L.S_A + i)], L.LOC.box, 0)
    k = 0
    for i in range(below):
        if known_entrance:
            c = w[nowrap(L.S_B + i)]
        else:
            c = w[nowrap(L.S_A + k)]
            k += 1
        w[nowrap(L.ENT + pos + 1 + i)] = c
        move_card(w, c, L.LOC.entrance, pos + 1 + i)
    for q in range(np_):
        for _ in range(w[nowrap(L.S_C + q)]):
            move_card(w, w[nowrap(L.S_A + k)], L.LOC.hand + q, 0)
            k += 1
        for _ in range(w[nowrap(L.S_C + L.MAXP + q)]):
            move_card(w, w[nowrap(L.S_A + k)], L.LOC.corpse + q, 0)
            k += 1


@njit(sig(ST, ST, I, I, I), cache=True, _nrt=False)
def determinize(det, st, p, d, sid):
    """``det`` := the game in ``st`` as sample ``d`` of seat ``p``'s decision: the cards it
    cannot see dealt again (:func:`redeal`, from the stream :func:`sample_key`), every seat
    played by strategy ``sid`` with the rollout parameters, no log, no checks; rollouts
    never search."""
    copy_game(det, st)
    det[L.G_LOG] = 0
    det[L.G_CHECK] = 0
    det[L.G_REC] = 0
    det[L.G_SEARCH_AT] = 0
    for q in range(st[L.G_NP]):
        det[L.P_STRAT + q] = sid
        det[L.P_LINEUP + q] = L.MAXP  # the rollout parameters (second half of pr)
    det[L.G_RNG] = sample_key(st, p, d)
    redeal(det, p)


@njit(sig(ST, I, I, I, I, I, I, I), cache=True, _nrt=False)
def _add(st, k, a, nt, peas, laund, t, d):
    o = C_TAB + k * C_W
    st[nowrap(o)] = a
    st[nowrap(o + 1)] = nt
    st[nowrap(o + 2)] = peas
    st[nowrap(o + 3)] = laund
    st[nowrap(o + 4)] = t
    st[nowrap(o + 5)] = d


@njit(sig(ST, PR, I, I, F), cache=True, _nrt=False)
def candidates(st, pr, p, kmax, gap):
    """The heuristic's own choice (its full decision, multi-target included), then its next
    best candidates (one target each) within ``gap`` francs of it, best first, at most
    ``kmax`` in all.  Returns how many (table at ``C_TAB``)."""
    st[L.D_NT] = 0
    st[L.D_PEASANTS] = 0
    st[L.D_LAUNDER] = 0
    st[L.G_REC] = 1
    heur.action(st, pr, p)
    st[L.G_REC] = 0
    a0 = st[L.D_ACTION]
    nt0 = st[L.D_NT]
    if nt0 > TMAX:
        nt0 = TMAX
    for i in range(nt0):
        st[nowrap(C_FIRST_T + i)] = st[nowrap(L.D_T + i)]
        st[nowrap(C_FIRST_D + i)] = st[nowrap(L.D_DEST + i)]
    _add(st, 0, a0, nt0, st[L.D_PEASANTS], st[L.D_LAUNDER], -1, 0)
    if a0 == L.ACTION.passing:
        t0 = -1
    elif st[L.D_PEASANTS] != 0:
        t0 = -2
    else:
        t0 = st[L.D_T]
    n_rec = st[REC_N]
    if n_rec > 62:
        n_rec = 62
    best = -(1 << 62)  # the heuristic's value of its own choice: the best recorded
    for i in range(n_rec):
        if st[nowrap(REC + i * REC_W)] > best:
            best = st[nowrap(REC + i * REC_W)]
    lim = best - gap * SCALE
    k = 1
    used = 0  # bit per record taken
    while k < kmax:
        bi = -1
        bv = -(1 << 62)
        for i in range(n_rec):
            o = REC + i * REC_W
            if (used >> i) & 1 or (st[nowrap(o + 1)] == a0 and st[nowrap(o + 2)] == t0):
                continue
            if st[nowrap(o)] > bv:
                bv = st[nowrap(o)]
                bi = i
        if bi < 0 or bv < lim:
            break
        used |= 1 << bi
        o = REC + bi * REC_W
        a = st[nowrap(o + 1)]
        t = st[nowrap(o + 2)]
        d = st[nowrap(o + 3)]
        if a == L.ACTION.passing:
            _add(st, k, a, 0, 0, d, -1, 0)
        elif t == -2:  # Bistro peasants: d of them for a bribe, one for a kill
            _add(st, k, a, d if a == L.ACTION.bribe else 1, 1, 0, -1, 0)
        else:
            _add(st, k, a, 1, 0, 0, t, d if a == L.ACTION.bury else 0)
        k += 1
    return k


@njit(sig(ST, ST, I, I), cache=True, _nrt=False)
def _set_candidate(w, st, p, k):
    """Make candidate ``k`` (of ``st``'s table) the decision ``w`` plays at this turn."""
    o = C_TAB + k * C_W
    nt = st[nowrap(o + 1)]
    if k == 0:
        for i in range(nt):
            w[nowrap(L.D_T + i)] = st[nowrap(C_FIRST_T + i)]
            w[nowrap(L.D_DEST + i)] = st[nowrap(C_FIRST_D + i)]
    elif nt > 0 and st[nowrap(o + 2)] == 0:
        w[L.D_T] = st[nowrap(o + 4)]
        w[L.D_DEST] = st[nowrap(o + 5)]
    w[L.G_STASH] = w[L.G_TURNS] + 1
    w[L.G_STASH_SEAT] = p
    w[L.G_STASH_ACTION] = st[nowrap(o)]
    w[L.G_STASH_NT] = nt
    w[L.G_STASH_PEAS] = st[nowrap(o + 2)]
    w[L.G_STASH_LAUNDER] = st[nowrap(o + 3)]


@njit(sig(ST, I, F), cache=True, _nrt=False)
def outcome(w, p, margin_w):
    """What a finished rollout is worth to seat ``p``: the score in solo (0 if lost,
    BI-X2); else the win share (ties split) + ``margin_w`` x margin over the best other / 100."""
    np_ = w[L.G_NP]
    if np_ == 1:
        return 0.0 if w[nowrap(L.P_SOLO_LOST + p)] != 0 else float(w[nowrap(L.P_SCORE + p)])
    n_win = 0
    other = -(1 << 40)
    for q in range(np_):
        if w[nowrap(L.P_WINNER + q)] != 0:
            n_win += 1
        if q != p and w[nowrap(L.P_SCORE + q)] > other:
            other = w[nowrap(L.P_SCORE + q)]
    share = 1.0 / n_win if w[nowrap(L.P_WINNER + p)] != 0 else 0.0
    return share + margin_w * (w[nowrap(L.P_SCORE + p)] - other) / 100.0


@njit(cache=True, _nrt=False, inline="always")
def _rollout_strategy(policy):
    """The strategy every seat of a rollout plays for a ``rollout_policy`` value (out of
    range: the heuristic)."""
    return POLICY_ID[policy if 0 <= policy <= 2 else 2]


@njit(sig(PR, I, I), cache=True, _nrt=False)
def _rollout_params(pr, base, policy):
    """The rollout policy's parameters in every block of the second half of ``pr``."""
    off = L.MAXP * L.MAXPARAM
    for e in range(L.MAXP):
        for j in range(L.MAXPARAM):
            v = 0.0
            if policy == 2 and j < NHEUR:
                v = pr[nowrap(base + j)]
            elif policy == 1 and j < GREEDY_PR.shape[0]:
                v = GREEDY_PR[j]
            pr[nowrap(off + e * L.MAXPARAM + j)] = v


@njit(sig(ST, PR, I, I, I, I, I, I, F, I), cache=True, _nrt=False)
def _search(st, pr, p, nc, n_det, n_roll, horizon, policy, margin_w, card):
    """Play every candidate on ``n_det`` samples x ``n_roll`` streams; leave the index
    of the best mean in ``C_CHOSEN``.  ``card`` -1: the candidates are night actions; else
    they are rooms for the drawn traveller ``card`` (placement, BI-E1)."""
    at = st[L.G_SEARCH_AT]
    det = st[at : at + L.STATE_END]
    work = st[at + L.STATE_END : at + 2 * L.STATE_END]
    for i in range(L.TABLES_END):
        det[i] = st[nowrap(i)]
        work[i] = st[nowrap(i)]
    stop = st[L.G_ROUND] + horizon if horizon > 0 else NO_STOP
    sid = _rollout_strategy(policy)
    salt = 0 if card < 0 else PLACE_SALT * (st[L.G_ENT_POS] + 1)
    for k in range(nc):
        st[nowrap(C_SUM + k)] = 0
    for d in range(n_det):
        determinize(det, st, p, d + salt, sid)
        for r in range(n_roll):
            key = stream_key(det[L.G_RNG], r)
            for k in range(nc):
                copy_game(work, det)
                work[L.G_RNG] = key
                work[STAMP] = -1
                if card < 0:
                    _set_candidate(work, st, p, k)
                    play_from(work, pr, stop)
                else:
                    play_from_placement(work, pr, card, st[nowrap(C_TAB + k * C_W)], stop)
                st[nowrap(C_SUM + k)] += int(outcome(work, p, margin_w) * OUT_SCALE)
    best = 0
    for k in range(1, nc):
        if st[nowrap(C_SUM + k)] > st[nowrap(C_SUM + best)]:
            best = k
    st[C_CHOSEN] = best


@njit(sig(ST, I, ST, I), cache=True, _nrt=False)
def _signature(src, k, dst, o):
    """Write the signature of candidate ``k`` of ``src``'s table at ``dst[o : o + 4]``: the
    action, its target card (-1 a pass, -2 the Bistro's peasants), the number of targets, and
    the launder amount / the burial destination / a hash of every target and destination
    of a multi-target choice.  An ISMCTS node is one signature: the same action in every
    determinization where it is available."""
    c = C_TAB + k * C_W
    a = src[nowrap(c)]
    nt = src[nowrap(c + 1)]
    x = 0
    if a == L.ACTION.passing:
        t = -1
        x = src[nowrap(c + 3)]
    elif src[nowrap(c + 2)] != 0:
        t = -2
    elif k == 0:
        t = src[C_FIRST_T] if nt > 0 else -1
        if nt == 1 and a == L.ACTION.bury:
            x = src[C_FIRST_D]
        elif nt > 1:
            for j in range(nt):
                dest = src[nowrap(C_FIRST_D + j)] if a == L.ACTION.bury else 0
                x = stream_key(x, src[nowrap(C_FIRST_T + j)] * 4096 + dest + 64)
    else:
        t = src[nowrap(c + 4)]
        x = src[nowrap(c + 5)]  # 0 unless a burial
    dst[nowrap(o)] = a
    dst[nowrap(o + 1)] = t
    dst[nowrap(o + 2)] = nt
    dst[nowrap(o + 3)] = x


@njit(sig(ST, I), cache=True, _nrt=False)
def _new_node(st, t0):
    """A fresh tree node (no visits, no children); -1 if the tree is full."""
    v = st[C_NODES]
    if v >= L.TREE_NODES:
        return -1
    st[C_NODES] = v + 1
    o = t0 + v * L.NODE_W
    for j in range(L.NODE_W):
        st[nowrap(o + j)] = 0
    st[nowrap(o + N_CHILD)] = -1
    st[nowrap(o + N_NEXT)] = -1
    return v


@njit(cache=True, _nrt=False, inline="always")
def _is_sig(st, o):
    """Whether the 4 ints at ``o`` are the action signature at ``C_SIG``."""
    return (
        st[nowrap(o)] == st[C_SIG]
        and st[nowrap(o + 1)] == st[C_SIG + 1]
        and st[nowrap(o + 2)] == st[C_SIG + 2]
        and st[nowrap(o + 3)] == st[C_SIG + 3]
    )


@njit(sig(ST, I, I), cache=True, _nrt=False)
def _child_of(st, t0, v):
    """The child of node ``v`` whose action signature is the one at ``C_SIG``, or -1 (the
    signatures under one parent are distinct)."""
    ch = st[nowrap(t0 + v * L.NODE_W + N_CHILD)]
    while ch >= 0:
        oc = t0 + ch * L.NODE_W
        if _is_sig(st, oc + N_A):
            return ch
        ch = st[nowrap(oc + N_NEXT)]
    return -1


@njit(sig(ST, I, I, ST, I, F, F), cache=True, _nrt=False)
def _select(st, t0, v, src, m, c_ucb, vscale):
    """Choose among the ``m`` candidates of ``src``'s table (the actions available in this
    determinization) at node ``v``: each is matched to a child by its signature and every
    matched child's availability counted; the first candidate without a child (heuristic
    order) is expanded; else UCB1 over availability, mean + c sqrt(ln(availability) /
    visits) (the subset-armed bandit of SO-ISMCTS).  Returns the candidate; its child in
    ``C_PICK`` (-1 if the tree is full) and ``C_EXPANDED`` 1 if it was created now."""
    ov = t0 + v * L.NODE_W
    for k in range(m):
        _signature(src, k, st, C_SIG)
        found = _child_of(st, t0, v)
        st[nowrap(C_MATCH + k)] = found
        if found >= 0:
            st[nowrap(t0 + found * L.NODE_W + N_AVAIL)] += 1
    for k in range(m):
        if st[nowrap(C_MATCH + k)] < 0:
            c = _new_node(st, t0)
            if c >= 0:
                oc = t0 + c * L.NODE_W
                _signature(src, k, st, oc + N_A)
                st[nowrap(oc + N_AVAIL)] = 1
                st[nowrap(oc + N_NEXT)] = st[nowrap(ov + N_CHILD)]
                st[nowrap(ov + N_CHILD)] = c
            st[C_PICK] = c
            st[C_EXPANDED] = 1
            return k
    best = 0
    bu = -1e300
    for k in range(m):
        oc = t0 + st[nowrap(C_MATCH + k)] * L.NODE_W
        n = float(st[nowrap(oc + N_VISITS)])
        u = st[nowrap(oc + N_SUM)] / OUT_SCALE * vscale / n + c_ucb * math.sqrt(
            math.log(st[nowrap(oc + N_AVAIL)]) / n
        )
        if u > bu:
            bu = u
            best = k
    st[C_PICK] = st[nowrap(C_MATCH + best)]
    st[C_EXPANDED] = 0
    return best


@njit(sig(ST, I), cache=True, _nrt=False)
def _lead(st, t0):
    """Visits of the root's most visited child minus those of the next one (its only child:
    all its visits)."""
    n1 = 0
    n2 = 0
    ch = st[nowrap(t0 + N_CHILD)]  # the root is node 0
    while ch >= 0:
        oc = t0 + ch * L.NODE_W
        n = st[nowrap(oc + N_VISITS)]
        if n > n1:
            n1, n2 = n, n1
        elif n > n2:
            n2 = n
        ch = st[nowrap(oc + N_NEXT)]
    return n1 - n2


@njit(sig(ST, I, I), cache=True, _nrt=False)
def _most_visited(st, t0, nc):
    """The root candidate whose child has the most visits (ties: the better mean, then the
    heuristic's order)."""
    best = 0
    bn = -1
    bm = -1e300
    for k in range(nc):
        _signature(st, k, st, C_SIG)
        ch = _child_of(st, t0, 0)  # the root is node 0
        if ch >= 0:
            oc = t0 + ch * L.NODE_W
            n = st[nowrap(oc + N_VISITS)]
            mean = st[nowrap(oc + N_SUM)] / n if n > 0 else -1e300
            if n > bn or (n == bn and mean > bm):
                best = k
                bn = n
                bm = mean
    return best


@njit(sig(ST, I), cache=True, _nrt=False)
def _kept_at(st, p):
    """Where seat ``p``'s kept children start: game id + 1 (0: none kept), their count,
    then per child its visits, availability, outcome sum and signature (layout ``REUSE_AT``)."""
    return st[L.G_SEARCH_AT] + L.REUSE_AT + p * L.REUSE_W


@njit(sig(ST, I, I, I), cache=True, _nrt=False)
def _keep_children(st, t0, p, c):
    """Keep the children of root child ``c`` (the action seat ``p`` chose; -1: none) for its
    next decision: they are its next night action's nodes, one per action met in the samples."""
    r = _kept_at(st, p)
    n = 0
    ch = st[nowrap(t0 + c * L.NODE_W + N_CHILD)] if c >= 0 else -1
    while ch >= 0 and n < L.REUSE_MAX:
        oc = t0 + ch * L.NODE_W
        o = r + 2 + n * 7
        st[nowrap(o)] = st[nowrap(oc + N_VISITS)]
        st[nowrap(o + 1)] = st[nowrap(oc + N_AVAIL)]
        st[nowrap(o + 2)] = st[nowrap(oc + N_SUM)]
        for j in range(4):
            st[nowrap(o + 3 + j)] = st[nowrap(oc + N_A + j)]
        n += 1
        ch = st[nowrap(oc + N_NEXT)]
    st[nowrap(r)] = st[L.G_GAME_ID] + 1
    st[nowrap(r + 1)] = n


@njit(sig(ST, I, I), cache=True, _nrt=False)
def _candidate_with_signature(st, o, nc):
    """The candidate of ``st``'s table (of ``nc``) whose signature is the 4 ints at ``o``, or -1."""
    for k in range(nc):
        _signature(st, k, st, C_SIG)
        if _is_sig(st, o):
            return k
    return -1


@njit(sig(ST, I, I, I), cache=True, _nrt=False)
def _start_from_kept(st, t0, p, nc):
    """Give the fresh root (node 0) the children seat ``p`` kept at its last decision whose
    actions are among ``st``'s ``nc`` candidates, with their visits, availability and outcome
    sums; the kept ones are used up.  Returns their visits: the iterations they stand for
    (the root has room: at most ``REUSE_MAX`` of its ``TREE_NODES`` nodes are taken)."""
    r = _kept_at(st, p)
    if st[nowrap(r)] != st[L.G_GAME_ID] + 1:
        return 0
    st[nowrap(r)] = 0
    total = 0
    for j in range(st[nowrap(r + 1)]):
        o = r + 2 + j * 7
        if _candidate_with_signature(st, o + 3, nc) < 0:
            continue
        c = _new_node(st, t0)
        oc = t0 + c * L.NODE_W
        st[nowrap(oc + N_VISITS)] = st[nowrap(o)]
        st[nowrap(oc + N_AVAIL)] = st[nowrap(o + 1)]
        st[nowrap(oc + N_SUM)] = st[nowrap(o + 2)]
        for i in range(4):
            st[nowrap(oc + N_A + i)] = st[nowrap(o + 3 + i)]
        st[nowrap(oc + N_NEXT)] = st[nowrap(t0 + N_CHILD)]
        st[nowrap(t0 + N_CHILD)] = c
        total += st[nowrap(o)]
    st[nowrap(t0 + N_VISITS)] += total
    return total


@njit(sig(ST, PR, I, I, I, I, I, I, F, F, F, I, I, I, I), cache=True, _nrt=False)
def _ismcts(
    st, pr, p, nc, n_iter, horizon, policy, kmax, gap, margin_w, c_ucb, depth_max, settle, reuse, common
):
    """SO-ISMCTS over seat ``p``'s next ``depth_max`` night actions, at most ``n_iter``
    iterations; leave the root's most visited candidate in ``C_CHOSEN``.

    Each iteration deals a fresh determinization (``redeal``, stream keyed by the iteration
    like a DMC sample) and descends the tree: at the root among ``st``'s candidates, deeper
    among the heuristic's candidates in the determinized state (``candidates``, with the
    seat's own parameters), each step played and the game played on with the rollout policy
    (the other seats are the environment) to ``p``'s next night action (``play_to_seat``).
    The first node not yet in the tree is expanded, the game played to its end (or the
    horizon) with the rollout policy, and the outcome added to every node of the path.
    With ``settle`` the iterations stop once the most visited root child leads the next by
    more than the iterations left: the choice is then the one all ``n_iter`` would make.
    With ``common`` the root's action is chosen before the sample is dealt, and a root
    action's n-th iteration of the decision plays sample n (``common_samples``).
    """
    at = st[L.G_SEARCH_AT]
    det = st[at : at + L.STATE_END]
    t0 = at + 2 * L.STATE_END
    for i in range(L.TABLES_END):
        det[i] = st[nowrap(i)]
    np_ = st[L.G_NP]
    own = st[nowrap(L.P_LINEUP + p)]
    stop = st[L.G_ROUND] + horizon if horizon > 0 else NO_STOP
    sid = _rollout_strategy(policy)
    # UCB sees solo scores / 40: their spread over rollouts is then about that of a
    # heads-up outcome, and one ``exploration`` is best in both (docs/strategies.md)
    vscale = 0.025 if np_ == 1 else 1.0
    st[C_NODES] = 0
    root = _new_node(st, t0)
    st[C_PATH] = root
    if reuse != 0:  # the kept visits stand for iterations: only the rest are played
        n_iter = max(nc, n_iter - _start_from_kept(st, t0, p, nc))
    if common != 0:
        for k in range(nc):
            st[nowrap(C_ROOT_N + k)] = 0
    for it in range(n_iter):
        d = it
        k0 = -1
        if common != 0:
            # the root's action first (it reads only the real state's candidates); its n-th
            # iteration of this decision plays sample n, so the root's actions are compared on
            # the same samples (common random numbers, as DMC's are)
            k0 = _select(st, t0, root, st, nc, c_ucb, vscale)
            d = st[nowrap(C_ROOT_N + k0)]
            st[nowrap(C_ROOT_N + k0)] = d + 1
        determinize(det, st, p, d, sid)
        det[STAMP] = -1
        v = root
        npath = 1
        while True:
            if npath > depth_max:
                play_from(det, pr, stop)
                break
            if npath == 1:
                k = k0 if common != 0 else _select(st, t0, v, st, nc, c_ucb, vscale)
                _set_candidate(det, st, p, k)
            else:
                det[L.P_LINEUP + p] = own  # the seat's own candidates, whatever the rollout policy
                m = candidates(det, pr, p, kmax, gap)
                det[L.P_LINEUP + p] = L.MAXP
                det[STAMP] = -1
                k = _select(st, t0, v, det, m, c_ucb, vscale)
                _set_candidate(det, det, p, k)
            v = st[C_PICK]
            if v < 0:  # the tree is full: play on without a node
                play_from(det, pr, stop)
                break
            st[nowrap(C_PATH + npath)] = v
            npath += 1
            if st[C_EXPANDED] != 0:
                play_from(det, pr, stop)
                break
            if play_to_seat(det, pr, p, stop) == 0:
                break
        value = int(outcome(det, p, margin_w) * OUT_SCALE)
        for j in range(npath):
            o = t0 + st[nowrap(C_PATH + j)] * L.NODE_W
            st[nowrap(o + N_VISITS)] += 1
            st[nowrap(o + N_SUM)] += value
        # the root takes its most visited child: once the leader's lead exceeds the
        # iterations left, no later one can change the choice, so they are not played (the
        # decision, and so the game, is the one all n_iter give; each sample has its own
        # stream, so nothing else depends on how many were played)
        if settle != 0 and _lead(st, t0) > n_iter - 1 - it:
            break
    st[C_CHOSEN] = _most_visited(st, t0, nc)
    if reuse != 0:
        _signature(st, st[C_CHOSEN], st, C_SIG)
        _keep_children(st, t0, p, _child_of(st, t0, root))


@njit(sig(PR, I), cache=True, _nrt=False)
def _kmax(pr, base):
    """Most candidates searched: ``candidates`` within 1 .. KMAX."""
    kmax = int(pr[nowrap(base + SP_CANDIDATES)])
    return 1 if kmax < 1 else (KMAX if kmax > KMAX else kmax)


@njit(sig(PR, I, I), cache=True, _nrt=False)
def _samples(pr, base, nc):
    """Samples of the hidden cards for ``nc`` candidates: ``determinizations``, cut so that
    samples x ``rollouts`` x candidates stays within ``budget``."""
    n_det = max(1, int(pr[nowrap(base + SP_DETERMINIZATIONS)]))
    n_roll = max(1, int(pr[nowrap(base + SP_ROLLOUTS)]))
    budget = max(1, int(pr[nowrap(base + SP_BUDGET)]))
    if n_det * n_roll * nc > budget:
        n_det = max(1, budget // (n_roll * nc))
    return n_det


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def search_night(st, pr, p, settle):
    """:func:`search_action`; ISMCTS stops early with ``settle`` (:func:`_ismcts`; the
    choice is the same either way)."""
    base = st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM
    kmax = _kmax(pr, base)
    n_roll = max(1, int(pr[nowrap(base + SP_ROLLOUTS)]))
    horizon = int(pr[nowrap(base + SP_ROLLOUT_ROUNDS)])
    policy = int(pr[nowrap(base + SP_ROLLOUT_POLICY)])
    gap = pr[nowrap(base + SP_GAP)]
    nc = candidates(st, pr, p, kmax if st[L.G_SEARCH_AT] > 0 else 1, gap)
    st[STAMP] = -1  # the payment sorts the hand again
    st[C_CHOSEN] = 0
    method = int(pr[nowrap(base + SP_METHOD)])
    reuse = int(pr[nowrap(base + SP_TREE_REUSE)])
    if reuse != 0 and st[L.G_SEARCH_AT] > 0 and (nc <= 1 or method != 1):
        st[nowrap(_kept_at(st, p))] = 0  # no tree this decision: nothing for the next one
    if nc > 1:
        n_det = _samples(pr, base, nc)
        _rollout_params(pr, base, policy)
        if method == 1:  # as many iterations as DMC plays rollouts
            depth = int(pr[nowrap(base + SP_TREE_DEPTH)])
            depth = 1 if depth < 1 else (DMAX if depth > DMAX else depth)
            _ismcts(
                st,
                pr,
                p,
                nc,
                n_det * n_roll * nc,
                horizon,
                policy,
                kmax,
                gap,
                pr[nowrap(base + SP_MARGIN_WEIGHT)],
                pr[nowrap(base + SP_EXPLORATION)],
                depth,
                settle,
                reuse,
                int(pr[nowrap(base + SP_COMMON)]),
            )
        else:
            _search(st, pr, p, nc, n_det, n_roll, horizon, policy, pr[nowrap(base + SP_MARGIN_WEIGHT)], -1)
    _set_candidate(st, st, p, st[C_CHOSEN])
    st[L.D_ACTION] = st[L.G_STASH_ACTION]


@njit(sig(ST, PR, I), cache=True, _nrt=False)
def search_action(st, pr, p):
    """Decide seat ``p``'s night action ahead of ``take_action``, which plays it (module
    docstring).  Without work states (``G_SEARCH_AT`` = 0) it is the heuristic's choice."""
    search_night(st, pr, p, 1)


@njit(sig(ST, PR, I, I, I, F), cache=True, _nrt=False)
def place_candidates(st, pr, p, card, kmax, gap):
    """Rooms for the drawn ``card``: the heuristic's own (the first of the best value), then
    the first room of each next lower value within ``gap`` francs, at most ``kmax``; rooms
    of equal value are one candidate.  Returns how many (rooms at ``C_TAB``)."""
    share = pr[nowrap(st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM + 14)]
    rank = st[nowrap(L.C_RANK + card)]
    k = 0
    last = 1e300
    top = 0.0
    while k < kmax:
        best = -1
        bv = -1e300
        for r in range(L.NROOMS):
            if st[nowrap(L.R_KEY + r)] < 0 or st[nowrap(L.R_CARD + r)] >= 0:
                continue
            v = heur.room_value(st, p, share, rank, r)
            if v < last and v > bv:
                bv = v
                best = r
        if best < 0 or (k > 0 and bv < top - gap):
            break
        if k == 0:
            top = bv
        st[nowrap(C_TAB + k * C_W)] = best
        last = bv
        k += 1
    return k


@njit(sig(ST, PR, I, I), cache=True, _nrt=False)
def search_placement(st, pr, p, card):
    """The room where search seat ``p``, first player, puts the drawn ``card`` (BI-E1), or
    -1 to leave it to the heuristic (``placement`` 0, or no work states).  Rooms the
    heuristic values alike are one candidate; each is played forward like a night action
    (same samples of the hidden cards for every room, common random numbers)."""
    base = st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM
    if pr[nowrap(base + SP_PLACEMENT)] < 0.5 or st[L.G_SEARCH_AT] == 0:
        return -1
    nc = place_candidates(st, pr, p, card, _kmax(pr, base), pr[nowrap(base + SP_GAP)])
    if nc == 1:
        return st[C_TAB]
    n_roll = max(1, int(pr[nowrap(base + SP_ROLLOUTS)]))
    policy = int(pr[nowrap(base + SP_ROLLOUT_POLICY)])
    _rollout_params(pr, base, policy)
    horizon = int(pr[nowrap(base + SP_ROLLOUT_ROUNDS)])
    margin_w = pr[nowrap(base + SP_MARGIN_WEIGHT)]
    _search(st, pr, p, nc, _samples(pr, base, nc), n_roll, horizon, policy, margin_w, card)
    return st[nowrap(C_TAB + st[C_CHOSEN] * C_W)]


def root_outcomes(st, pr, p, n_det):
    """Outside the tree (for tests and measurements): seat ``p``'s root candidates in ``st``
    (its own ``candidates`` and ``gap``), each played to the end on samples 0 .. ``n_det`` - 1
    of its hidden cards (``determinize``, its ``rollout_policy`` at every seat), and its
    outcome for ``p`` (its ``margin_weight``).

    Returns
    -------
    table : ndarray
        A copy of ``st`` holding the candidates (``_signature`` reads them).
    outcomes : ndarray
        Candidates x samples, float (``outcome``).
    """
    base = st[L.P_LINEUP + p] * L.MAXPARAM
    policy = int(pr[base + SP_ROLLOUT_POLICY])
    table, q = st.copy(), pr.copy()
    nc = candidates(table, q, p, _kmax(pr, base), pr[base + SP_GAP])
    table[STAMP] = -1
    _rollout_params(q, base, policy)
    det = np.zeros(L.STATE_END, dtype=np.int64)
    det[: L.TABLES_END] = st[: L.TABLES_END]
    sid = _rollout_strategy(policy)
    x = np.zeros((nc, n_det))
    for k in range(nc):
        for d in range(n_det):
            determinize(det, table, p, d, sid)
            det[STAMP] = -1
            _set_candidate(det, table, p, k)
            play_from(det, q, NO_STOP)
            x[k, d] = outcome(det, p, pr[base + SP_MARGIN_WEIGHT])
    return table, x
