"""Objections (raised while replaying) and divergences (what the referee reports) for Cluedo.

The same shape as the Bloody Inn referee's (``sim.games.bloody_inn.referee.divergence``): an
:class:`Objection` names the rule the log breaks; the game replay turns the first one into a
:class:`Divergence` with the offending event and both states.  Only the event's columns
differ (Cluedo events have ``turn`` and ``a, b, c, d``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.replay_report import Divergence as BaseDivergence
from sim.replay_report import Objection, fail

#: Ids the referee reports besides the rules' CL-... ids.
LOG_RULES = {
    "LOG-1": "event stamped with the wrong turn, or out of sequence",
    "LOG-2": "event the rules do not call for here (or one missing)",
    "LOG-4": "the log ends before the game does, or goes on after it",
    "RES-1": "seats table disagrees with the replay (turns, suggestions, accused, score, place, win, ...)",
    "RES-2": "games table disagrees with the replay (rounds, turns, winner, solution, truncated, ...)",
}


__all__ = ["LOG_RULES", "Divergence", "Objection", "fail"]


@dataclass
class Divergence(BaseDivergence):
    """The first divergence of one game (``to_dict`` keys as the Bloody Inn referee's)."""

    state_limit = 700

    def event_line(self, e):
        return (
            f"seq {e['seq']} turn {e['turn']} {e['kind']} seat {e['seat']} "
            f"a={e['a']} b={e['b']} c={e['c']} d={e['d']}"
        )
