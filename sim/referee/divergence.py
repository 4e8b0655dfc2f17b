"""Objections (raised while replaying) and divergences (what the referee reports).

An :class:`Objection` names the rule the log breaks, says why in one line and carries the
referee's expected values next to the logged ones.  The game replay turns the first one into
a :class:`Divergence` with the offending event and the two states: the referee's own state
at that point and what the log says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Ids the referee reports besides the rules' BI-... ids.
LOG_RULES = {
    "LOG-1": "event stamped with the wrong round or phase",
    "LOG-2": "event the rules do not call for here (or one missing)",
    "LOG-3": "card_kind column does not name the card instance",
    "LOG-4": "the log ends before the game does, or goes on after it",
    "RES-1": "seats table disagrees with the replay (cash, cheques, score, place, win, counts)",
    "RES-2": "games table disagrees with the replay (rounds, turns, winner, truncated, ...)",
}


class Objection(Exception):
    """The log does something the rules do not allow.

    Parameters
    ----------
    rule : str
        Rule id (``BI-N6``, ``LOG-2``, ...).
    message : str
        One line: what is wrong.
    expected, logged : dict, optional
        The referee's values and the log's values of the quantities in question.
    """

    def __init__(self, rule, message, expected=None, logged=None):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.expected = expected or {}
        self.logged = logged or {}


def fail(rule, message, expected=None, logged=None):
    """Raise an :class:`Objection` (messages are only formatted on this failing path)."""
    raise Objection(rule, message, expected, logged)


@dataclass
class Divergence:
    """The first divergence of one game."""

    game_id: int
    rule: str
    message: str
    event: dict | None  # the event row (None for a table check)
    expected: dict = field(default_factory=dict)
    logged: dict = field(default_factory=dict)
    referee_state: dict = field(default_factory=dict)  # referee's state when it objected
    log_state: dict = field(default_factory=dict)  # what the log says at that point
    dataset: str | None = None  # the dataset directory, if any

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
                f"  event  seq {e['seq']} round {e['round']} {e['phase']} {e['kind']} "
                f"seat {e['seat']} card {e['card']} a={e['a']} b={e['b']} c={e['c']} "
                f"cash={e['cash']} cheques={e['cheques']}"
            )
        if self.expected or self.logged:
            lines.append(f"  referee expects {self.expected}; log has {self.logged}")
        if self.referee_state:
            lines.append(f"  referee state  {_short(self.referee_state)}")
        if self.log_state:
            lines.append(f"  log state      {_short(self.log_state)}")
        return "\n".join(lines)


def _short(d, limit=600):
    text = repr(d)
    return text if len(text) <= limit else text[:limit] + " ..."
