"""An independent referee for The Bloody Inn: replays logged games event by event.

The referee re-implements the rules of ``../shared/rules/bloody-inn.md`` in plain Python,
written for clarity, not speed, and imports nothing of ``kernels.bloody_inn`` nor of the
adapter (``sim.games.bloody_inn.adapter``, ``.cards``): it reads the card table as played
from the run's resolved config with its own effect parser (``cards.py``) and keeps its own
copy of the log's vocabulary (event kinds, action ids, the Barn slot code; ``log.py``).  It
shares with the kernel only the resolved config and that vocabulary (docs/referee.md).

Entry points::

    replay_result(result)        # a sim.simulate(..., events=True) result
    replay_tables(resolved, games, seats, events)   # a run's tables

Both return a :class:`ReplayReport` with the first divergence of every divergent game.
"""

from .batch import ReplayReport, replay_game, replay_result, replay_tables, rules_of
from .config import RefereeConfig
from .divergence import Divergence, Objection

__all__ = [
    "Divergence",
    "Objection",
    "RefereeConfig",
    "ReplayReport",
    "replay_game",
    "replay_result",
    "replay_tables",
    "rules_of",
]
