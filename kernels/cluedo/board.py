"""Movement on the board (CL-T1): blocked searches on preallocated scratch.

Nodes 0..8 are the rooms (one node each: any number of pawns fit), the rest are walkable
squares (corridor and start squares).  Edges join orthogonal walkable squares, and a room to
the corridor square outside each of its doors; secret passages are separate (``S_PASS``).

Two readings of "move by the roll" (flag ``move_steps``):

* ``exact`` (default, the seed's *déplacez-vous du score obtenu*): a walk that does not enter
  a room uses the whole roll, on a path that never visits a square twice.  ``reach_exact``
  finds all the end squares by depth-first search over those paths (on this board at most
  about 19,000 paths for a roll of 12, a few hundred for 7); a pawn that cannot use the whole
  roll (boxed in) walks as far as it can.  The agents need only the best end square: a square
  at BFS distance equal to the roll is an end at once, a nearer one is checked by
  ``exact_end`` (a search pruned by the distance left), so a move costs about as much as an
  "up to" one.
* ``up_to``: a pawn may stop anywhere within the roll.  A shortest path never revisits a
  square, so the end squares are exactly those whose blocked-board BFS distance is at most the
  roll (``reach``).

Either way a room is entered with at most the roll (entering ends the move, so a room needs no
exact count): the rooms a pawn can enter are those within BFS distance; other rooms are dead
ends of the search and the room a pawn starts in is already visited (no re-entering).
"""

import numpy as np
from numba import njit

from ..index import nowrap
from . import layout as L


@njit(cache=True)
def reach(st, tb, start, limit):
    """Nodes a pawn on ``start`` can move to with at most ``limit`` steps (CL-T1).

    Other pawns' squares are neither entered nor crossed; a door whose corridor square is
    occupied is thus blocked both ways.  Fills X_QUEUE[0:n] with the reached nodes (``start``
    first) and X_DIST[node] with their step counts (valid while X_STAMP[node] == st[S_GEN]);
    returns ``n``.
    """
    gen = st[L.S_GEN] + 1
    st[L.S_GEN] = gen
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9 and p != start:
            st[nowrap(L.X_STAMP + p)] = gen
            st[nowrap(L.X_DIST + p)] = -1
    st[nowrap(L.X_STAMP + start)] = gen
    st[nowrap(L.X_DIST + start)] = 0
    st[L.X_QUEUE] = start
    head = 0
    tail = 1
    while head < tail:
        u = st[nowrap(L.X_QUEUE + head)]
        head += 1
        d = st[nowrap(L.X_DIST + u)]
        if d >= limit or (u < 9 and u != start):
            continue
        base = L.T_ADJ + u * L.MAX_DEGREE
        for k in range(L.MAX_DEGREE):
            v = tb[nowrap(base + k)]
            if v < 0:
                break
            if st[nowrap(L.X_STAMP + v)] == gen:
                continue
            st[nowrap(L.X_STAMP + v)] = gen
            st[nowrap(L.X_DIST + v)] = d + 1
            st[nowrap(L.X_QUEUE + tail)] = v
            tail += 1
    return tail


@njit(cache=True)
def reach_exact(st, tb, start, total):
    """End nodes of a walk that uses the whole roll ``total`` unless it enters a room (CL-T1,
    ``move_steps = "exact"``).

    Rooms come from ``reach`` (a room is entered by a shortest path, with at most the roll).
    Squares: a depth-first search over the paths that never visit a square twice nor cross a
    pawn records the longest path to each square; the end squares are those reached by a path
    of ``L* = min(total, longest path)`` steps (``L* < total`` only when the pawn is boxed in).
    Fills X_QUEUE[0:n] with ``start`` then the legal end nodes and X_DIST with their steps
    (-1 for squares within reach that are not legal ends); returns ``n``.
    """
    nq = reach(st, tb, start, total)
    gen = st[L.S_GEN]
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9:
            st[nowrap(L.X_VIS + p)] = 1  # pawns are neither crossed nor entered
    st[nowrap(L.X_VIS + start)] = 1
    for i in range(nq):
        st[nowrap(L.X_BEST + st[nowrap(L.X_QUEUE + i)])] = 0
    longest = 0
    sp = 0
    st[L.X_STK] = start
    st[L.X_NXT] = 0
    while sp >= 0:
        u = st[nowrap(L.X_STK + sp)]
        k = st[nowrap(L.X_NXT + sp)]
        v = -1
        if sp < total and k < L.MAX_DEGREE:
            v = tb[nowrap(L.T_ADJ + u * L.MAX_DEGREE + k)]
        if v < 0:
            if sp > 0:
                st[nowrap(L.X_VIS + u)] = 0
            sp -= 1
            continue
        st[nowrap(L.X_NXT + sp)] = k + 1
        if v < 9 or st[nowrap(L.X_VIS + v)]:
            continue  # rooms are ends of the BFS part; no square twice, no pawn crossed
        sp += 1
        st[nowrap(L.X_STK + sp)] = v
        st[nowrap(L.X_NXT + sp)] = 0
        st[nowrap(L.X_VIS + v)] = 1
        if st[nowrap(L.X_BEST + v)] < sp:
            st[nowrap(L.X_BEST + v)] = sp
            if sp > longest:
                longest = sp
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9:
            st[nowrap(L.X_VIS + p)] = 0
    st[nowrap(L.X_VIS + start)] = 0
    out = 1
    for i in range(1, nq):
        v = st[nowrap(L.X_QUEUE + i)]
        if v < 9:
            st[nowrap(L.X_QUEUE + out)] = v
            out += 1
        elif st[nowrap(L.X_BEST + v)] == longest:
            st[nowrap(L.X_DIST + v)] = longest
            st[nowrap(L.X_QUEUE + out)] = v
            out += 1
        else:
            st[nowrap(L.X_DIST + v)] = -1
    st[nowrap(L.X_STAMP + start)] = gen
    return out


@njit(cache=True)
def exact_end(st, tb, start, total, end, budget):
    """Is there a walk of exactly ``total`` steps from ``start`` to the square ``end`` that
    visits no square twice, crosses no pawn and no room (CL-T1, exact moves)?

    Depth-first search pruned by the blocked distance to ``end`` (a path with ``r`` steps left
    must be within ``r`` of it).  1 found, 0 none, -1 the search ran out of ``budget`` nodes
    (undecided).  Leaves ``reach``'s outputs (X_QUEUE, X_DIST, X_STAMP) untouched.
    """
    gen = st[L.S_GEN2] + 1
    st[L.S_GEN2] = gen
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9 and p != end:
            st[nowrap(L.X_DVSTAMP + p)] = gen
            st[nowrap(L.X_DV + p)] = L.FAR  # pawns block the distance too
    st[nowrap(L.X_DVSTAMP + end)] = gen
    st[nowrap(L.X_DV + end)] = 0
    st[L.X_DVQ] = end
    head = 0
    tail = 1
    while head < tail:
        u = st[nowrap(L.X_DVQ + head)]
        head += 1
        d = st[nowrap(L.X_DV + u)]
        for k in range(L.MAX_DEGREE):
            v = tb[nowrap(L.T_ADJ + u * L.MAX_DEGREE + k)]
            if v < 0:
                break
            if v < 9 or st[nowrap(L.X_DVSTAMP + v)] == gen:
                continue
            st[nowrap(L.X_DVSTAMP + v)] = gen
            st[nowrap(L.X_DV + v)] = d + 1
            st[nowrap(L.X_DVQ + tail)] = v
            tail += 1
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9:
            st[nowrap(L.X_VIS + p)] = 1
    st[nowrap(L.X_VIS + start)] = 1
    found = 0
    nodes = 0
    sp = 0
    st[L.X_STK] = start
    st[L.X_NXT] = 0
    while sp >= 0:
        u = st[nowrap(L.X_STK + sp)]
        k = st[nowrap(L.X_NXT + sp)]
        v = -1
        if sp < total and k < L.MAX_DEGREE:
            v = tb[nowrap(L.T_ADJ + u * L.MAX_DEGREE + k)]
        if v < 0:
            if sp > 0:
                st[nowrap(L.X_VIS + u)] = 0
            sp -= 1
            continue
        st[nowrap(L.X_NXT + sp)] = k + 1
        if v < 9 or st[nowrap(L.X_VIS + v)] or st[nowrap(L.X_DVSTAMP + v)] != gen:
            continue
        left = total - sp - 1
        if st[nowrap(L.X_DV + v)] > left or (v == end) != (left == 0):
            continue  # cannot reach the end in time; the end only as the last step
        if left == 0:
            found = 1
            break
        nodes += 1
        if nodes > budget:
            found = -1
            break
        sp += 1
        st[nowrap(L.X_STK + sp)] = v
        st[nowrap(L.X_NXT + sp)] = 0
        st[nowrap(L.X_VIS + v)] = 1
    while sp > 0:  # unwind the path left marked by an early exit
        st[nowrap(L.X_VIS + st[nowrap(L.X_STK + sp)])] = 0
        sp -= 1
    for ch in range(6):
        p = st[nowrap(L.S_POS + ch)]
        if p >= 9:
            st[nowrap(L.X_VIS + p)] = 0
    st[nowrap(L.X_VIS + start)] = 0
    return found


@njit(cache=True)
def reached_steps(st, node):
    """Steps to ``node`` in the last ``reach`` (-1 if not reached or occupied)."""
    if st[nowrap(L.X_STAMP + node)] != st[L.S_GEN]:
        return -1
    return st[nowrap(L.X_DIST + node)]


@njit(cache=True)
def walking_distances(adj, n_nodes, out):
    """Static walking distance (no pawns) from each room to every node: ``out[r, node]``.

    A path may not pass through another room (entering a room ends a move); leaving a room
    costs the step onto the door's corridor square and entering one costs the step through
    the door, so ``out[r, q]`` for a room ``q`` is the room-to-room distance.
    Unreachable nodes get ``FAR``.
    """
    queue = np.empty(L.MAX_NODES, np.int64)
    for r in range(9):
        for v in range(L.MAX_NODES):
            out[r, v] = L.FAR
        out[r, r] = 0
        queue[0] = r
        head = 0
        tail = 1
        while head < tail:
            u = queue[nowrap(head)]
            head += 1
            if u < 9 and u != r:
                continue
            for k in range(L.MAX_DEGREE):
                v = adj[u, k]
                if v < 0:
                    break
                if out[r, v] == L.FAR:
                    out[r, v] = out[r, u] + 1
                    queue[nowrap(tail)] = v
                    tail += 1
    return n_nodes
