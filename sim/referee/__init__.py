"""An independent referee for The Bloody Inn: replays logged games event by event.

The referee re-implements the rules of ``../shared/rules/bloody-inn.md`` in plain Python,
written for clarity, not speed, and shares no rules code with the Numba kernel.  It shares
only the card table loader (``sim.games.bloody_inn_cards``), the resolved config of the run
and the names of the log's vocabulary (event kinds, action ids, the Barn slot code of
``kernels.bloody_inn.layout``).

Entry points::

    replay_result(result)        # a sim.simulate(..., events=True) result
    replay_dataset(path)         # a dataset written by `sim run CONFIG --events`

Both return a :class:`ReplayReport` with the first divergence of every divergent game.
"""

from .batch import ReplayReport, replay_dataset, replay_game, replay_result, replay_tables
from .config import RefereeConfig
from .divergence import Divergence, Objection

__all__ = [
    "Divergence",
    "Objection",
    "RefereeConfig",
    "ReplayReport",
    "replay_dataset",
    "replay_game",
    "replay_result",
    "replay_tables",
]
