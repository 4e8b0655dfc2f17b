"""Objections (raised while replaying) and divergences (what the referee reports).

An :class:`Objection` names the rule the log breaks, says why in one line and carries the
referee's expected values next to the logged ones.  The game replay turns the first one into
a :class:`Divergence` with the offending event and the two states: the referee's own state
at that point and what the log says.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.replay_report import Divergence as BaseDivergence
from sim.replay_report import Objection, fail

#: Ids the referee reports besides the rules' BI-... ids.
LOG_RULES = {
    "LOG-1": "event stamped with the wrong round or phase",
    "LOG-2": "event the rules do not call for here (or one missing)",
    "LOG-3": "card_kind column does not name the card instance",
    "LOG-4": "the log ends before the game does, or goes on after it",
    "RES-1": "seats table disagrees with the replay (cash, cheques, score, place, win, counts)",
    "RES-2": "games table disagrees with the replay (rounds, turns, winner, truncated, ...)",
}


__all__ = ["LOG_RULES", "Divergence", "Objection", "fail"]


@dataclass
class Divergence(BaseDivergence):
    """The first divergence of one game."""

    def event_line(self, e):
        return (
            f"seq {e['seq']} round {e['round']} {e['phase']} {e['kind']} "
            f"seat {e['seat']} card {e['card']} a={e['a']} b={e['b']} c={e['c']} "
            f"cash={e['cash']} cheques={e['cheques']}"
        )
