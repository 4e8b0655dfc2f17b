"""What a referee's replay found, for any game: counts, time and the first divergence of each
divergent game (the shared report shape of ``sim replay``; the rules stay in each referee)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
