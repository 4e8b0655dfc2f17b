"""The event log as the referee reads it: one :class:`Ev` tuple per row, grouped by game.

The vocabulary (event kind names, action ids, the Barn's slot code) is the log format of
docs/bloody_inn_kernel.md ("Events"); it is written out here rather than imported, so the
referee imports nothing of ``kernels.bloody_inn`` (a test checks the kernel writes the same).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: event kinds of the ``kind`` column (the referee reads them by name; unknown ones are kept
#: as logged and objected to where they appear)
EVENT_NAMES = (
    "deck", "box", "key", "deal", "bistro", "round", "place", "room_service", "season", "last_round",
    "bribe", "build", "kill", "bury", "bury_share", "pay", "launder", "passing", "effect_cash", "token",
    "monk_key", "investigation", "corpse_boxed", "leave_income", "to_exit", "wages", "dismiss",
    "first_player", "end_bonus", "score", "solo_lost", "truncated", "final_investigation", "discard",
    "action",
)  # fmt: skip
#: BI-N1: the night actions by the id the log gives them (``action`` and ``pay`` events);
#: ``passing`` is a pass or a laundering (BI-N7)
ACTION_NAMES = ("bribe", "build", "kill", "bury", "passing")
#: a bury event's annex slot for a corpse under seat p's Barn (BI-C4) is ``BARN_SLOT - p``
BARN_SLOT = -10

__all__ = [
    "Ev",
    "ACTION_OF",
    "ACTION_NAMES",
    "BARN_SLOT",
    "EVENT_NAMES",
    "split_games",
    "event_dict",
    "END",
    "card_kind_mismatches",
]

PHASES = ("evening", "night", "morning", "end")
#: action name -> the id the log uses (``pay`` events' ``b``, fallback passes' ``b``)
ACTION_OF = {name: i for i, name in enumerate(ACTION_NAMES)}

EVENT_COLUMNS = ("seq", "round", "phase", "kind", "seat", "card", "a", "b", "c", "cash", "cheques")


class Ev(NamedTuple):
    """One logged event (``cash``/``cheques``: the acting seat's after the event)."""

    seq: int
    round: int
    phase: str
    kind: str
    seat: int
    card: int
    a: int
    b: int
    c: int
    cash: int
    cheques: int


#: Sentinel after a game's last event, so the replay can always look one event ahead.
END = Ev(-1, -1, "", "(end of log)", -99, -1, 0, 0, 0, -1, -1)


def event_dict(ev, game_id=None, card_kind=None):
    d = ev._asdict()
    if game_id is not None:
        d = {"game_id": game_id, **d}
    if card_kind is not None:
        d["card_kind"] = card_kind
    return d


def _strings(col, names):
    """A string column as a list of the vocabulary's names (unknown values kept as is)."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    idx = pc.fill_null(pc.index_in(col, value_set=pa.array(list(names))), -1)
    idx = idx.to_numpy(zero_copy_only=False)
    out = np.array(list(names) + [None], dtype=object)[idx].tolist()
    if (idx < 0).any():
        raw = col.to_pylist()
        for i in np.flatnonzero(idx < 0):
            out[i] = raw[i]
    return out


def split_games(events):
    """Yield ``(game_id, [Ev, ...])`` per game of an events table, in table order.

    Rows of one game must be contiguous (the writer keeps them so); a game's rows are
    sorted by ``seq``.
    """
    if events.num_rows == 0:
        return
    gid = events.column("game_id").to_numpy()
    cols = {}
    for name in EVENT_COLUMNS:
        if name == "kind":
            cols[name] = _strings(events.column(name), EVENT_NAMES)
        elif name == "phase":
            cols[name] = _strings(events.column(name), PHASES)
        else:
            cols[name] = events.column(name).to_numpy().astype(np.int64).tolist()
    columns = [cols[n] for n in EVENT_COLUMNS]
    starts = np.r_[0, np.flatnonzero(np.diff(gid)) + 1, len(gid)].tolist()
    for lo, hi in zip(starts[:-1], starts[1:]):
        evs = [Ev(*r) for r in zip(*(c[lo:hi] for c in columns))]
        if any(evs[i].seq > evs[i + 1].seq for i in range(len(evs) - 1)):
            evs.sort(key=lambda e: e.seq)
        yield int(gid[lo]), evs


def card_kind_mismatches(events, cards):
    """LOG-3, vectorised: ``{game_id: seq}`` of the first row per game whose ``card_kind``
    does not name the card instance in ``card`` (``None`` when ``card`` is -1)."""
    card = events.column("card").to_numpy().astype(np.int64)
    names = np.array([c.kind for c in cards] + [None, None], dtype=object)
    bad_index = len(cards) + 1
    idx = np.where((card >= 0) & (card < len(cards)), card, np.where(card < 0, len(cards), bad_index))
    expected = names[idx]
    logged = np.array(events.column("card_kind").to_pylist(), dtype=object)
    wrong = expected != logged
    wrong |= idx == bad_index
    out = {}
    if wrong.any():
        gid = events.column("game_id").to_numpy()
        seq = events.column("seq").to_numpy()
        for i in np.flatnonzero(wrong):
            out.setdefault(int(gid[i]), (int(seq[i]), logged[i], expected[i]))
    return out
