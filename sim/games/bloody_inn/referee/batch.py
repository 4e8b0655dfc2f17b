"""Replaying many games: from an in-memory result or a dataset on disk, with timing."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sim.errors import SimError
from sim.replay_report import ReplayReport as BaseReplayReport
from sim.replay_report import rows_by_game

from .config import RefereeConfig
from .divergence import Divergence
from .game import GameReplay
from .log import card_kind_mismatches, split_games


@dataclass
class ReplayReport(BaseReplayReport):
    """What a replay found: counts, time and the first divergence of each divergent game."""

    def summary_tail(self):
        return f", {self.fallback_passes:,} refused strategy decisions"


def rules_of(resolved):
    """The referee's reading of a run's resolved config (:class:`RefereeConfig`)."""
    return RefereeConfig.from_resolved(resolved)


def replay_game(cfg, game_id, events, game_row=None, seat_rows=None):
    """Replay one game's list of :class:`~sim.games.bloody_inn.referee.log.Ev`; the first divergence or None."""
    return GameReplay(cfg, game_id, events, game_row, seat_rows).run()


def replay_tables(resolved, games, seats, events, *, max_games=None, rules=None):
    """Replay every game of an events table against its games and seats rows.

    Parameters
    ----------
    resolved : dict
        The run's resolved config (``Result.resolved`` or the manifest's ``resolved``).
    games, seats, events : pyarrow.Table
        The run's tables (``games``/``seats`` may be None: the end-of-game table checks
        are then skipped).
    max_games : int, optional
        Replay only the first ``max_games`` games of ``events``.
    rules : RefereeConfig, optional
        ``rules_of(resolved)``, read once per dataset by ``sim.registry.replay_dataset``.

    Returns
    -------
    ReplayReport
    """
    t0 = time.perf_counter()
    cfg = rules or rules_of(resolved)
    report = ReplayReport()
    game_rows = rows_by_game(games)
    seat_rows = rows_by_game(seats, many=True)
    bad_kinds = card_kind_mismatches(events, cfg.cards)
    replayed = set()
    for gid, evs in split_games(events):
        if max_games is not None and report.games >= max_games:
            break
        replay = GameReplay(cfg, gid, evs, game_rows.get(gid), seat_rows.get(gid))
        div = replay.run()
        if gid in bad_kinds:
            seq, logged, expected = bad_kinds[gid]
            if div is None or div.event is None or div.event["seq"] > seq:
                div = Divergence(
                    gid,
                    "LOG-3",
                    f"card_kind of the event with seq {seq} is {logged!r}, the card is a {expected!r}",
                    None,
                    {"card_kind": expected},
                    {"card_kind": logged},
                )
        if games is not None and gid not in game_rows and div is None:
            div = Divergence(gid, "RES-2", "the game has events but no row in the games table", None)
        if div is not None:
            report.divergences.append(div)
        report.games += 1
        report.events += len(evs)
        report.fallback_passes += replay.fallback_passes
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
    """Replay the games of ``sim.simulate(..., events=True)``."""
    if result.events is None:
        raise SimError("the result has no event log; simulate with events=True")
    return replay_tables(result.resolved, result.games, result.seats, result.events, max_games=max_games)
