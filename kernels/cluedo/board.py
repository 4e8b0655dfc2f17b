"""Movement on the board (CL-T1): breadth-first search with blocking, on preallocated scratch.

Nodes 0..8 are the rooms (one node each: any number of pawns fit), the rest are walkable
squares (corridor and start squares).  Edges join orthogonal walkable squares, and a room to
the corridor square outside each of its doors; secret passages are separate (``S_PASS``).
Because a move is *up to* the roll and a shortest path never revisits a square, the squares a
pawn can end on are exactly those whose blocked-board BFS distance is at most the roll; other
rooms are dead ends of the search (entering a room ends the move) and the room a pawn starts
in is already visited (no re-entering in the same turn).
"""

import numpy as np
from numba import njit

from .layout import FAR, MAX_DEGREE, MAX_NODES, S_GEN, S_POS, T_ADJ, X_DIST, X_QUEUE, X_STAMP


@njit(cache=True)
def reach(st, tb, start, limit):
    """Nodes a pawn on ``start`` can move to with at most ``limit`` steps (CL-T1).

    Other pawns' squares are neither entered nor crossed; a door whose corridor square is
    occupied is thus blocked both ways.  Fills X_QUEUE[0:n] with the reached nodes (``start``
    first) and X_DIST[node] with their step counts (valid while X_STAMP[node] == st[S_GEN]);
    returns ``n``.
    """
    gen = st[S_GEN] + 1
    st[S_GEN] = gen
    for ch in range(6):
        p = st[S_POS + ch]
        if p >= 9 and p != start:
            st[X_STAMP + p] = gen
            st[X_DIST + p] = -1
    st[X_STAMP + start] = gen
    st[X_DIST + start] = 0
    st[X_QUEUE] = start
    head = 0
    tail = 1
    while head < tail:
        u = st[X_QUEUE + head]
        head += 1
        d = st[X_DIST + u]
        if d >= limit or (u < 9 and u != start):
            continue
        base = T_ADJ + u * MAX_DEGREE
        for k in range(MAX_DEGREE):
            v = tb[base + k]
            if v < 0:
                break
            if st[X_STAMP + v] == gen:
                continue
            st[X_STAMP + v] = gen
            st[X_DIST + v] = d + 1
            st[X_QUEUE + tail] = v
            tail += 1
    return tail


@njit(cache=True)
def reached_steps(st, node):
    """Steps to ``node`` in the last ``reach`` (-1 if not reached or occupied)."""
    if st[X_STAMP + node] != st[S_GEN]:
        return -1
    return st[X_DIST + node]


@njit(cache=True)
def walking_distances(adj, n_nodes, out):
    """Static walking distance (no pawns) from each room to every node: ``out[r, node]``.

    A path may not pass through another room (entering a room ends a move); leaving a room
    costs the step onto the door's corridor square and entering one costs the step through
    the door, so ``out[r, q]`` for a room ``q`` is the room-to-room distance.
    Unreachable nodes get ``FAR``.
    """
    queue = np.empty(MAX_NODES, np.int64)
    for r in range(9):
        for v in range(MAX_NODES):
            out[r, v] = FAR
        out[r, r] = 0
        queue[0] = r
        head = 0
        tail = 1
        while head < tail:
            u = queue[head]
            head += 1
            if u < 9 and u != r:
                continue
            for k in range(MAX_DEGREE):
                v = adj[u, k]
                if v < 0:
                    break
                if out[r, v] == FAR:
                    out[r, v] = out[r, u] + 1
                    queue[tail] = v
                    tail += 1
    return n_nodes
