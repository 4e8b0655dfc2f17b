"""What a referee's replay found, for any game: objections raised while replaying, the first
divergence of each divergent game, counts and time (the shared shapes of ``sim replay``; the
rules stay in each game's referee)."""

from __future__ import annotations

from dataclasses import dataclass, field


class Objection(Exception):
    """The log does something the rules do not allow.

    Parameters
    ----------
    rule : str
        Rule id (``BI-N6``, ``CL-T5``, ``LOG-2``, ...).
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
    """The first divergence of one game; a game's referee says how its events print."""

    game_id: int
    rule: str
    message: str
    event: dict | None  # the event row (None for a table check)
    expected: dict = field(default_factory=dict)
    logged: dict = field(default_factory=dict)
    referee_state: dict = field(default_factory=dict)  # referee's state when it objected
    log_state: dict = field(default_factory=dict)  # what the log says at that point
    dataset: str | None = None  # the dataset directory, if any

    #: characters of a state shown by :meth:`format`
    state_limit = 600

    def event_line(self, e):
        """The event row in one line (the columns differ by game)."""
        raise NotImplementedError

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
            lines.append("  event  " + self.event_line(self.event))
        if self.expected or self.logged:
            lines.append(f"  referee expects {self.expected}; log has {self.logged}")
        if self.referee_state:
            lines.append(f"  referee state  {self._short(self.referee_state)}")
        if self.log_state:
            lines.append(f"  log state      {self._short(self.log_state)}")
        return "\n".join(lines)

    def _short(self, d):
        text = repr(d)
        return text if len(text) <= self.state_limit else text[: self.state_limit] + " ..."


@dataclass
class ReplayReport:
    """Counts, time and divergences of a replay; ``to_dict`` is the ``--json`` shape."""

    games: int = 0
    events: int = 0
    seconds: float = 0.0
    divergences: list = field(default_factory=list)
    fallback_passes: int = 0  # passes the kernel logged for a refused strategy decision
    truncated: int = 0

    @property
    def ok(self):
        return not self.divergences

    @property
    def games_per_s(self):
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def events_per_s(self):
        return self.events / self.seconds if self.seconds else 0.0

    def merge(self, other):
        self.games += other.games
        self.events += other.events
        self.seconds += other.seconds
        self.divergences.extend(other.divergences)
        self.fallback_passes += other.fallback_passes
        self.truncated += other.truncated

    def summary_tail(self):
        """What a game's referee adds to the one-line summary."""
        return ""

    def summary(self):
        verdict = "no divergence" if self.ok else f"{len(self.divergences):,} divergent games"
        return (
            f"replayed {self.games:,} games, {self.events:,} events in {self.seconds:.2f} s "
            f"({self.games_per_s:,.0f} games/s, {self.events_per_s:,.0f} events/s): "
            f"{verdict}; {self.truncated:,} truncated" + self.summary_tail()
        )

    def to_dict(self):
        return {
            "games": self.games,
            "events": self.events,
            "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games_per_s, 1),
            "events_per_s": round(self.events_per_s, 1),
            "divergent_games": len(self.divergences),
            "truncated": self.truncated,
            "fallback_passes": self.fallback_passes,
            "divergences": [d.to_dict() for d in self.divergences],
        }


def rows_by_game(table, many=False):
    """``game_id`` -> its row of ``table`` (``many``: its rows, sorted by seat); {} for None."""
    out = {}
    if table is None:
        return out
    for row in table.to_pylist():
        if many:
            out.setdefault(row["game_id"], []).append(row)
        else:
            out[row["game_id"]] = row
    if many:
        for rows in out.values():
            rows.sort(key=lambda r: r["seat"])
    return out
