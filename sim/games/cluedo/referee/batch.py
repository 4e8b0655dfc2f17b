"""Replaying many Cluedo games: from an in-memory result or a dataset on disk, with timing."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from sim.errors import SimError
from sim.replay_report import ReplayReport as BaseReplayReport
from sim.replay_report import rows_by_game

from .config import CluedoRules
from .divergence import Divergence
from .game import GameReplay
from .log import split_games


@dataclass
class ReplayReport(BaseReplayReport):
    """What a replay found (the same fields and JSON shape as the Bloody Inn referee's
    report; ``fallback_passes`` is always 0, Cluedo has no refused decisions)."""

    #: (players, deal's first seat) -> games: CL-S2, who gets the extra cards
    deal_starts: Counter = field(default_factory=Counter)

    def merge(self, other):
        super().merge(other)
        self.deal_starts.update(getattr(other, "deal_starts", {}))


def rules_of(resolved):
    """The referee's reading of a run's resolved config (:class:`CluedoRules`)."""
    return CluedoRules.from_resolved(resolved)


def replay_game(rules, game_id, events, game_row=None, seat_rows=None):
    """Replay one game's list of :class:`~sim.games.cluedo.referee.log.Ev`; the divergence or None."""
    return GameReplay(rules, game_id, events, game_row, seat_rows).run()


def replay_tables(resolved, games, seats, events, *, max_games=None, rules=None):
    """Replay every game of an events table against its games and seats rows.

    Parameters
    ----------
    resolved : dict
        The run's resolved config.
    games, seats, events : pyarrow.Table
        The run's tables; ``seats`` is needed (each seat's character), ``games`` may be None
        (the games-table checks are then skipped).
    max_games : int, optional
        Replay only the first ``max_games`` games of ``events``.
    rules : CluedoRules, optional
        ``rules_of(resolved)``, read once per dataset by ``sim.registry.replay_dataset``.

    Returns
    -------
    ReplayReport
    """
    t0 = time.perf_counter()
    rules = rules or rules_of(resolved)
    report = ReplayReport()
    game_rows = rows_by_game(games)
    seat_rows = rows_by_game(seats, many=True)
    replayed = set()
    for gid, evs in split_games(events):
        if max_games is not None and report.games >= max_games:
            break
        replay = GameReplay(rules, gid, evs, game_rows.get(gid), seat_rows.get(gid))
        div = replay.run()
        if games is not None and gid not in game_rows and div is None:
            div = Divergence(gid, "RES-2", "the game has events but no row in the games table", None)
        if div is not None:
            report.divergences.append(div)
        if replay.deal_start is not None:
            report.deal_starts[(rules.players, replay.deal_start)] += 1
        report.games += 1
        report.events += len(evs)
        report.truncated += int(replay.truncated)
        replayed.add(gid)
    if games is not None and (max_games is None or report.games < max_games):
        for gid in game_rows:
            if gid not in replayed:
                report.divergences.append(Divergence(gid, "LOG-4", "the game has no events", None))
                report.games += 1
                if max_games is not None and report.games >= max_games:
                    break
    report.seconds = time.perf_counter() - t0
    return report


def replay_result(result, *, max_games=None):
    """Replay the games of ``sim.simulate(cluedo_config, ..., events=True)``."""
    if result.events is None:
        raise SimError("the result has no event log; simulate with events=True")
    return replay_tables(result.resolved, result.games, result.seats, result.events, max_games=max_games)
