"""Objections (raised while replaying) and divergences (what the referee reports) for Cluedo.

The same shape as the Bloody Inn referee's (``sim.referee.divergence``): an
:class:`Objection` names the rule the log breaks; the game replay turns the first one into a
:class:`Divergence` with the offending event and both states.  Only the event's columns
differ (Cluedo events have ``turn`` and ``a, b, c, d``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Ids the referee reports besides the rules' CL-... ids.
LOG_RULES = {
    "LOG-1": "event stamped with the wrong turn, or out of sequence",
    "LOG-2": "event the rules do not call for here (or one missing)",
    "LOG-4": "the log ends before the game does, or goes on after it",
    "RES-1": "seats table disagrees with the replay (turns, suggestions, accused, score, place, win, ...)",
    "RES-2": "games table disagrees with the replay (rounds, turns, winner, solution, truncated, ...)",
}


class Objection(Exception):
    """The log does something the rules do not allow (``rule``: ``CL-T5``, ``LOG-2``, ...)."""

    def __init__(self, rule, message, expected=None, logged=None):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.expected = expected or {}
        self.logged = logged or {}


def fail(rule, message, expected=None, logged=None):
    """Raise an :class:`Objection`."""
    raise Objection(rule, message, expected, logged)


@dataclass
class Divergence:
    """The first divergence of one game (``to_dict`` keys as the Bloody Inn referee's)."""

    game_id: int
    rule: str
    message: str
    event: dict | None  # the event row (None for a table check)
    expected: dict = field(default_factory=dict)
    logged: dict = field(default_factory=dict)
    referee_state: dict = field(default_factory=dict)
    log_state: dict = field(default_factory=dict)
    dataset: str | None = None

    def to_dict(self):
        return {
            "dataset": self.dataset,
            "game_id": self.game_id,
            "rule": self.rule,
            "message": self.message,
            "event": self.event,
            "expected": self.expected,
            "logged": self.logged,
            "referee_state": self.referee_state,
            "log_state": self.log_state,
        }

    def format(self):
        """A few lines for a terminal."""
        where = f"{self.dataset}: " if self.dataset else ""
        lines = [f"{where}game {self.game_id}: {self.rule} {self.message}"]
        if self.event is not None:
            e = self.event
            lines.append(
                f"  event  seq {e['seq']} turn {e['turn']} {e['kind']} seat {e['seat']} "
                f"a={e['a']} b={e['b']} c={e['c']} d={e['d']}"
            )
        if self.expected or self.logged:
            lines.append(f"  referee expects {self.expected}; log has {self.logged}")
        if self.referee_state:
            lines.append(f"  referee state  {_short(self.referee_state)}")
        if self.log_state:
            lines.append(f"  log state      {_short(self.log_state)}")
        return "\n".join(lines)


def _short(d, limit=700):
    text = repr(d)
    return text if len(text) <= limit else text[:limit] + " ..."
