"""An independent referee for Cluedo: replays logged games event by event.

The referee re-implements the rules of ``../shared/rules/cluedo.md`` in plain Python and
imports nothing of ``kernels.cluedo`` nor of its adapter ``sim.games.cluedo.adapter``: it keeps its
own parse of the game data (``data.py``: board graph, doors, passages, cards, clue deck)
and its own movement search.  It shares with the kernel only the run's resolved config and
the log's vocabulary (event kinds, the numbering of cards, rooms, squares and clue effects;
docs/cluedo.md, "Events").

Entry points::

    replay_result(result)        # a sim.simulate(cluedo_config, ..., events=True) result
    replay_tables(resolved, games, seats, events)   # a run's tables

Both return a :class:`ReplayReport` with the first divergence of every divergent game.
"""

from .batch import ReplayReport, replay_game, replay_result, replay_tables, rules_of
from .config import CluedoRules
from .divergence import Divergence, Objection

__all__ = [
    "CluedoRules",
    "Divergence",
    "Objection",
    "ReplayReport",
    "replay_game",
    "replay_result",
    "replay_tables",
    "rules_of",
]
