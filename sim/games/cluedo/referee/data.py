"""The referee's own reading of the Cluedo game data in ``configs/cluedo/``.

This is a second, independent parse of the board, doors, passages, cards and clue cards: it
shares no code with the kernel or its adapter (``sim.games.cluedo.adapter``).  Only the numbering is
common, because it is the event log's vocabulary (docs/cluedo.md, "Events"): cards 0..20 in
``cards.csv`` order, rooms 0..8 in room order, board nodes = rooms 0..8 then the walkable
squares (``.`` and start digits) in reading order of ``board.txt``; clue cards numbered by
their row (from 1) with the effect ids of :data:`EFFECTS`.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sim.config import data_dir
from sim.errors import SimError

# the shipped files, found through the package (an installed sim has them as package data);
# the parse below is the referee's own
DATA_DIR = data_dir() / "cluedo"
#: the files whose sha256 the run's resolved config records (``data.sha256``), in that order
DATA_FILES = ("board.txt", "doors.csv", "passages.csv", "cards.csv", "clue_cards.csv")

N_SUSPECTS, N_WEAPONS, N_ROOMS = 6, 6, 9
N_CARDS = 21
FIRST_WEAPON, FIRST_ROOM = 6, 12
SUSPECTS = range(0, 6)
WEAPONS = range(6, 12)
ROOM_CARDS = range(12, 21)

#: clue-card effect names by the id the log's ``clue`` event carries in ``b`` (CL-K1..K7)
EFFECTS = (
    "show_specific",  # CL-K1
    "name_suspect",  # CL-K2
    "name_weapon",  # CL-K2
    "name_room",  # CL-K2
    "choose_player_reveals",  # CL-K3
    "all_reveal",  # CL-K4
    "all_show_left",  # CL-K5
    "all_move_to_room",  # CL-K6
    "new_passage",  # CL-K7
)
EFFECT_RULE = ("CL-K1", "CL-K2", "CL-K2", "CL-K2", "CL-K3", "CL-K4", "CL-K5", "CL-K6", "CL-K7")


@dataclass(frozen=True)
class ClueCard:
    number: int  # 1-based row of clue_cards.csv (the log's clue card number)
    effect: int  # index into EFFECTS
    target: int  # card number for show_specific, else -1


@dataclass(frozen=True)
class Data:
    """Cards, board graph and clue deck as the referee reads them."""

    cards: tuple  # card ids by number
    suspects: tuple
    weapons: tuple
    rooms: tuple
    corners: frozenset  # room indices of the four corner rooms (CL-2.1)
    n_nodes: int
    square_xy: dict  # node -> (col, row) for squares
    neighbours: tuple  # node -> tuple of neighbour nodes (squares orthogonal, room <-> door square)
    start: tuple  # start node of each suspect (CL-S1)
    passages: tuple  # room -> frozenset of rooms joined by a secret passage (CL-C3)
    clue: tuple  # ClueCard per row
    sha256: str

    def node_name(self, node):
        if node is None or node < 0:
            return str(node)
        if node < N_ROOMS:
            return self.rooms[node]
        return "square{}".format(self.square_xy.get(node, "?"))

    def card_name(self, card):
        return self.cards[card] if 0 <= card < N_CARDS else str(card)


def _rows(path):
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _bad(path, what, value, allowed):
    raise SimError(f"{path}: {what} = {value!r} is invalid; allowed: {allowed}")


def data_sha256(directory=DATA_DIR):
    """The digest the adapter records in ``resolved['data']['sha256']`` (the five files in order)."""
    digest = hashlib.sha256()
    for name in DATA_FILES:
        digest.update((Path(directory) / name).read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=4)
def load_data(directory=DATA_DIR) -> Data:
    """Parse ``configs/cluedo/`` (or ``directory``); a bad file raises :class:`SimError`."""
    directory = Path(directory)
    cards_csv = directory / "cards.csv"
    rows = _rows(cards_csv)
    kinds = [r["kind"] for r in rows]
    if kinds != ["suspect"] * 6 + ["weapon"] * 6 + ["room"] * 9:
        _bad(cards_csv, "kind column", kinds, "6 suspects, 6 weapons, 9 rooms in that order (CL-C1)")
    cards = tuple(r["id"] for r in rows)
    rooms = cards[FIRST_ROOM:]
    corners = frozenset(i for i, r in enumerate(rows[FIRST_ROOM:]) if r["corner"].strip() == "1")
    if len(corners) != 4:
        _bad(cards_csv, "corner rooms", sorted(corners), "exactly 4 (CL-2.1)")
    digit_of = {r["board"]: i for i, r in enumerate(rows[:6])}
    letter_of = {r["board"].lower(): i for i, r in enumerate(rows[FIRST_ROOM:])}

    board = directory / "board.txt"
    grid = [ln for ln in board.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    node = {}  # (col, row) -> node
    start = [None] * 6
    for y, line in enumerate(grid):
        for x, ch in enumerate(line):
            if ch == "." or ch.isdigit():
                node[(x, y)] = N_ROOMS + len(node)
                if ch.isdigit():
                    if ch not in digit_of:
                        _bad(board, f"start square at {(x, y)}", ch, "the start digits of cards.csv")
                    start[digit_of[ch]] = node[(x, y)]
    if None in start:
        _bad(board, "start squares", start, "one per suspect")
    n_nodes = N_ROOMS + len(node)
    nb = [set() for _ in range(n_nodes)]
    for (x, y), u in node.items():
        for v in (node.get((x + 1, y)), node.get((x - 1, y)), node.get((x, y + 1)), node.get((x, y - 1))):
            if v is not None:
                nb[u].add(v)

    def cell(x, y):
        return grid[y][x] if 0 <= y < len(grid) and 0 <= x < len(grid[y]) else " "

    doors = directory / "doors.csv"
    for i, d in enumerate(_rows(doors)):
        if d["room"] not in rooms:
            _bad(doors, f"line {i + 2} room", d["room"], "a room id of cards.csv")
        r = rooms.index(d["room"])
        doorway = (int(d["doorway_col"]), int(d["doorway_row"]))
        corridor = (int(d["corridor_col"]), int(d["corridor_row"]))
        if letter_of.get(cell(*doorway).lower()) != r:
            _bad(doors, f"line {i + 2} doorway", doorway, f"a square of the {d['room']}")
        if corridor not in node or abs(doorway[0] - corridor[0]) + abs(doorway[1] - corridor[1]) != 1:
            _bad(doors, f"line {i + 2} corridor", corridor, "a walkable square next to the doorway")
        nb[r].add(node[corridor])
        nb[node[corridor]].add(r)

    passages_csv = directory / "passages.csv"
    passages = [set() for _ in range(N_ROOMS)]
    for i, p in enumerate(_rows(passages_csv)):
        if p["room_a"] not in rooms or p["room_b"] not in rooms or p["room_a"] == p["room_b"]:
            _bad(passages_csv, f"line {i + 2}", (p["room_a"], p["room_b"]), "two different room ids")
        a, b = rooms.index(p["room_a"]), rooms.index(p["room_b"])
        passages[a].add(b)
        passages[b].add(a)

    clue_csv = directory / "clue_cards.csv"
    clue = []
    for i, c in enumerate(_rows(clue_csv)):
        if c["effect"] not in EFFECTS:
            _bad(clue_csv, f"line {i + 2} effect", c["effect"], " | ".join(EFFECTS))
        eff = EFFECTS.index(c["effect"])
        target = -1
        if eff == 0:
            if c["target"] not in cards:
                _bad(clue_csv, f"line {i + 2} target", c["target"], "a card id of cards.csv")
            target = cards.index(c["target"])
        clue.append(ClueCard(i + 1, eff, target))
    return Data(
        cards=cards,
        suspects=cards[:6],
        weapons=cards[6:12],
        rooms=rooms,
        corners=corners,
        n_nodes=n_nodes,
        square_xy={u: xy for xy, u in node.items()},
        neighbours=tuple(tuple(sorted(s)) for s in nb),
        start=tuple(start),
        passages=tuple(frozenset(s) for s in passages),
        clue=tuple(clue),
        sha256=data_sha256(directory),
    )


def reachable(data, start, blocked, limit):
    """Steps to every node a pawn on ``start`` can walk to with at most ``limit`` steps (CL-T1).

    ``blocked``: the squares of the other pawns (never entered nor crossed, so a door whose
    corridor square is occupied is blocked).  A room other than ``start`` ends the move (it is
    a dead end of the search); ``start`` itself is never re-entered (no square twice).  A
    shortest path never visits a node twice, so "at most ``limit`` steps along a path with
    no repeated square" is exactly "breadth-first distance <= ``limit``".
    """
    dist = {start: 0}
    frontier = [start]
    d = 0
    nbrs = data.neighbours
    while frontier and d < limit:
        d += 1
        nxt = []
        for u in frontier:
            if u < N_ROOMS and u != start:
                continue
            for v in nbrs[u]:
                if v not in dist and v not in blocked:
                    dist[v] = d
                    nxt.append(v)
        frontier = nxt
    return dist


def exact_walk(data, start, dest, blocked, steps):
    """Is there a walk of exactly ``steps`` steps from ``start`` to ``dest`` that never visits a
    square twice and never crosses a pawn or a room, or one that enters the room ``dest`` in
    at most ``steps`` steps (entering a room ends the move early)?  (CL-T1 with the exact-roll
    reading.)  Depth-first search with a parity and distance bound."""
    if dest < N_ROOMS:
        return dest in reachable(data, start, blocked, steps)
    # distance from dest to every node with the same blocking (a lower bound for pruning)
    to_dest = {dest: 0}
    frontier = [dest]
    d = 0
    while frontier:
        d += 1
        nxt = []
        for u in frontier:
            for v in data.neighbours[u]:
                if v >= N_ROOMS and v not in to_dest and v not in blocked and v != start:
                    to_dest[v] = d
                    nxt.append(v)
        frontier = nxt
    nbrs = data.neighbours
    seen = {start}

    def dfs(u, left):
        if u == dest:
            return left == 0
        for v in nbrs[u]:
            if v < N_ROOMS or v in seen or v in blocked:
                continue
            need = to_dest.get(v)
            if need is None or need > left - 1 or (left - 1 - need) % 2:
                continue
            seen.add(v)
            if dfs(v, left - 1):
                return True
            seen.discard(v)
        return False

    return dfs(start, steps)


def longest_walk(data, start, blocked, cap):
    """Steps of the longest walk from ``start`` (at most ``cap``) over free squares, never on a
    square twice (exact moves: a pawn boxed in walks as far as it can)."""
    nbrs = data.neighbours
    seen = {start}
    best = 0

    def dfs(u, depth):
        nonlocal best
        if depth > best:
            best = depth
        if best >= cap:
            return True
        for v in nbrs[u]:
            if v < N_ROOMS or v in seen or v in blocked:
                continue
            seen.add(v)
            if dfs(v, depth + 1):
                return True
            seen.discard(v)
        return False

    dfs(start, 0)
    return best
