"""The Cluedo event log as the referee reads it: one :class:`Ev` tuple per row, per game.

The vocabulary (event kind names, the meaning of ``a, b, c, d``) is the log format of
docs/cluedo.md ("Events"); it is written out here rather than imported, so the referee
imports nothing of ``kernels.cluedo``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa

EVENT_COLUMNS = ("seq", "turn", "seat", "kind", "a", "b", "c", "d")

#: event kinds (docs/cluedo.md): what a, b, c, d hold
KINDS = {
    "weapon": "weapon card, room (setup)",
    "envelope": "suspect, weapon, room card",
    "deal": "card, room if face down (seat = holder, 7 = face down)",
    "roll": "die 1, die 2 (0 with one die), loupes, 1 if a clue card is drawn",
    "clue": "clue card number, effect, choice (card / seat / room)",
    "reveal": "card, -1, 1 if held by nobody (seat = revealer, -1 nobody)",
    "show": "card, to seat (seat = the one who shows)",
    "move": "from node, to node, steps allowed, how (0 walk, 1 passage, 2 clue card, 3 suggestion)",
    "suggest": "suspect, weapon, room card, refuting seat (-1 nobody)",
    "look": "face-down card, room",
    "new_passage": "room",
    "accuse": "suspect, weapon, room card, 1 right / 2 wrong",
}
TABLE_HOLDER = 7  # ``deal`` seat of a face-down card (CL-2.1)
WALK, PASSAGE, CLUE_MOVE, SUGGESTION_MOVE = 0, 1, 2, 3


class Ev(NamedTuple):
    seq: int
    turn: int
    seat: int
    kind: str
    a: int
    b: int
    c: int
    d: int


#: after a game's last event, so the replay can always look one event ahead
END = Ev(-1, -1, -99, "(end of log)", 0, 0, 0, 0)


def event_dict(ev, game_id=None):
    d = ev._asdict()
    return d if game_id is None else {"game_id": game_id, **d}


def split_games(events):
    """Yield ``(game_id, [Ev, ...])`` per game of an events table, in table order (a game's
    rows contiguous, as the writer keeps them; sorted by ``seq`` within a game)."""
    if events is None or events.num_rows == 0:
        return
    gid = events.column("game_id").to_numpy()
    cols = []
    for name in EVENT_COLUMNS:
        col = events.column(name)
        if name == "kind":
            col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
            cols.append(col.to_pylist())
        else:
            cols.append(col.to_numpy().astype(np.int64).tolist())
    starts = np.r_[0, np.flatnonzero(np.diff(gid)) + 1, len(gid)].tolist()
    for lo, hi in zip(starts[:-1], starts[1:]):
        evs = [Ev(*r) for r in zip(*(c[lo:hi] for c in cols))]
        if any(evs[i].seq > evs[i + 1].seq for i in range(len(evs) - 1)):
            evs.sort(key=lambda e: e.seq)
        yield int(gid[lo]), evs
